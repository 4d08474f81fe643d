/* SPDX-License-Identifier: MIT */
/*
 * The collector's profile builder, driven with synthetic tuples (no BPF,
 * no privileges): sample types, labels, kernel-above-user order, the
 * return-address - 1 rule, deduplication, aggregation, unmapped frames.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "collectprof.h"
#include "psym-int.h"
#include "tap.h"

static const char *str(struct psym_profile *p, int64_t i)
{
	return psym_profile_str(p, i);
}

static int bid_calls;

/* The collector's build-ID source: asked once per process and mapping. */
static void fake_bid(void *ud, int pid, struct psym_procmap *m)
{
	(void)ud;
	bid_calls++;
	snprintf(m->build_id, sizeof(m->build_id), "%s", pid == 7 ? "77aa" : "88bb");
}

static const struct psym_collect_meta meta = {
	.period_ns = 10101010, .time_ns = 1000, .duration_ns = 5, .kernel_build_id = "abcd"
};

/* Two executable mappings: a program and a library. */
static const struct psym_procmap maps[2] = {
	{ .start = 0x400000,
	  .limit = 0x401000,
	  .offset = 0x1000,
	  .path = "/bin/a",
	  .build_id = "1111",
	  .exec = true },
	{ .start = 0x7f0000000000,
	  .limit = 0x7f0000100000,
	  .offset = 0,
	  .path = "/lib/b.so",
	  .build_id = "2222",
	  .exec = true },
};

/* The first sample's frames: kernel above user, callers at return address - 1; its labels. */
static void frame_checks(struct psym_profile *p)
{
	pb_profile *pb = p->pb;
	pb_sample *s = pb->sample[0];
	pb_location *l0 = psym_profile_location(p, s->location_id[0]);
	pb_location *l1 = psym_profile_location(p, s->location_id[1]);
	pb_location *l2 = psym_profile_location(p, s->location_id[2]);
	pb_location *l4 = psym_profile_location(p, s->location_id[4]);
	pb_mapping *km = psym_profile_mapping(p, l0->mapping_id);
	pb_location *l;

	is_int(l0->address, 0xffffffff81000100, "kernel leaf first, as sampled");
	is_int(l1->address, 0xffffffff81000200 - 1, "kernel caller: return address - 1");
	/* The kernel's callchain gives the user registers' IP first (perf_callchain_user). */
	is_int(l2->address, 0x400100, "first user frame below kernel ones: the IP, as it is");
	is_int(l4->address, 0x400300 - 1, "outermost user caller");
	is_str(str(p, km->filename), "[kernel.kallsyms]", "kernel mapping");
	is_str(str(p, km->build_id), "abcd", "kernel build ID");
	is_str(str(p, psym_profile_mapping(p, l2->mapping_id)->build_id), "1111",
	       "user mapping has its build ID");
	is_str(str(p, s->label[0]->key), "pid", "pid label");
	is_int(s->label[0]->num, 42, "pid value");
	is_str(str(p, s->label[1]->key), "tid", "tid label");
	is_str(str(p, s->label[2]->str), "worker", "comm label");
	/* A user-only stack: the first user frame is the leaf. */
	l = psym_profile_location(p, pb->sample[1]->location_id[0]);
	is_int(l->address, 0x400100, "user leaf kept as sampled");
}

/* Samples added, aggregated, written and read back. */
static void sample_checks(void)
{
	uint64_t kstack[] = { 0xffffffff81000100, 0xffffffff81000200 };
	uint64_t ustack[] = { 0x400100, 0x7f0000000200, 0x400300 };
	uint64_t far = 0x500000;
	struct psym_collectprof *c = NULL;
	struct psym_collect_stats st;
	struct psym_err e = { 0 };
	struct psym_profile *p, *q = NULL;
	unsigned char *buf;
	size_t len;
	pb_profile *pb;

	ok(psym_collectprof_new(&meta, &c, &e) == 0, "new");
	ok(psym_collectprof_process(c, 42, maps, 2) == 0, "process maps");
	ok(!psym_collectprof_unknown(c, 42, ustack, 3), "all user addresses known");
	ok(psym_collectprof_unknown(c, 42, &far, 1), "unknown address detected");
	ok(psym_collectprof_add(c, 42, 43, "worker", kstack, 2, ustack, 3, 5) == 0, "add");
	ok(psym_collectprof_add(c, 42, 43, "worker", kstack, 2, ustack, 3, 2) == 0, "add again");
	ok(psym_collectprof_add(c, 42, 44, "worker", NULL, 0, ustack, 3, 1) == 0, "other tid");
	ok(psym_collectprof_add(c, 77, 77, "gone", NULL, 0, ustack, 1, 1) == 0,
	   "process without maps");
	p = psym_collectprof_profile(c);
	ok(psym_profile_validate(p, &e) == 0, "valid: %s", e.msg);
	pb = p->pb;
	is_int(pb->n_sample_type, 2, "two sample types");
	is_str(str(p, pb->sample_type[0]->type), "samples", "samples/count");
	is_str(str(p, pb->sample_type[1]->unit), "nanoseconds", "cpu/nanoseconds");
	is_str(str(p, pb->period_type->type), "cpu", "period type cpu");
	is_int(pb->period, 10101010, "period");
	is_str(str(p, pb->comment[0]), PSYM_COLLECT_COMMENT, "return-address rule in comment");
	is_int(pb->n_sample, 3, "one sample per distinct (pid, tid, comm, stack)");
	is_int(pb->sample[0]->value[0], 7, "repeated stack aggregated");
	is_int(pb->sample[0]->value[1], 7 * 10101010LL, "cpu time = count * period");
	is_int(pb->sample[0]->n_location_id, 5, "kernel + user frames");
	frame_checks(p);
	is_int(pb->n_mapping, 3, "mappings deduplicated (a, b.so, kernel)");
	psym_collectprof_stats(c, &st);
	is_int(st.samples, 9, "samples counted");
	is_int(st.frames_unmapped, 1, "frames of a process without maps counted");
	ok(psym_profile_encode(p, true, &buf, &len, &e) == 0, "encode");
	ok(psym_profile_parse(buf, len, "mem", NULL, &q, &e) == 0 &&
		   psym_profile_validate(q, &e) == 0,
	   "reads back valid");
	free(buf);
	psym_profile_free(q);
	psym_collectprof_free(c);
}

/* Build IDs only for mappings a sample uses, once per (pid, mapping). */
static void buildid_checks(void)
{
	static const char text[] = "400000-401000 r-xp 00001000 08:1f 1234567   /bin/a\n"
				   "500000-501000 r-xp 00000000 fd:00 99   /lib/unused.so\n"
				   "600000-601000 rwxp 00000000 00:00 0\n";
	struct psym_collectprof *c = NULL;
	struct psym_err e = { 0 };
	struct psym_procmap *m = NULL;
	struct psym_profile *p;
	pb_profile *pb;
	size_t n = 0;
	uint64_t u[] = { 0x400100, 0x600010 }, anon = 0x600020;
	int jp[4];
	bool found = false;

	ok(psym_procmaps_parse(text, sizeof(text) - 1, &m, &n, &e) == 0 && n == 3,
	   "maps parsed (%zu)", n);
	is_int(m[0].dev, (uint64_t)0x08 << 32 | 0x1f, "device major:minor");
	is_int(m[0].inode, 1234567, "inode");
	is_int(m[1].dev, (uint64_t)0xfd << 32, "device fd:00");
	ok(psym_collectprof_new(&meta, &c, &e) == 0, "new");
	psym_collectprof_set_buildid_fn(c, fake_bid, NULL);
	ok(!psym_collectprof_known(c, 7), "pid unknown before its maps");
	ok(psym_collectprof_process(c, 7, m, n) == 0 && psym_collectprof_known(c, 7), "maps given");
	is_int(psym_collectprof_tag(c, 7), 0, "no tag before one is set");
	ok(psym_collectprof_set_tag(c, 8, 3) == PSYM_NOENT && psym_collectprof_tag(c, 8) == 0,
	   "no tag for a pid with no record");
	ok(psym_collectprof_set_tag(c, 7, 5) == 0 && psym_collectprof_tag(c, 7) == 5,
	   "a tag kept with the record");
	ok(psym_collectprof_add(c, 7, 7, "x", NULL, 0, u, 1, 1) == 0 &&
		   psym_collectprof_add(c, 7, 7, "x", NULL, 0, u, 1, 1) == 0,
	   "two samples in /bin/a");
	is_int(bid_calls, 1, "build ID asked once, for the one mapping used");
	is_int(psym_collectprof_jit_pids(c, jp, 4), 0, "no JIT frame yet");
	ok(psym_collectprof_add(c, 7, 7, "x", NULL, 0, &anon, 1, 1) == 0, "a JIT frame");
	ok(psym_collectprof_jit_pids(c, jp, 4) == 1 && jp[0] == 7, "pid 7 has JIT frames");
	ok(psym_collectprof_comment(c, "psym-collect: host=h kernel=k boot_id=b") == 0,
	   "comment added");
	p = psym_collectprof_profile(c);
	pb = p->pb;
	ok(pb->n_comment == 2 &&
		   !strcmp(str(p, pb->comment[1]), "psym-collect: host=h kernel=k boot_id=b"),
	   "identity comment kept");
	for (size_t i = 0; i < pb->n_mapping; i++)
		found |= !strcmp(str(p, pb->mapping[i]->build_id), "77aa") &&
			 !strcmp(str(p, pb->mapping[i]->filename), "/bin/a");
	ok(found, "the build ID given lands in /bin/a's mapping");
	for (size_t i = 0; i < pb->n_mapping; i++)
		ok(strcmp(str(p, pb->mapping[i]->filename), "/lib/unused.so"),
		   "unused mapping %zu not in the profile", i);
	(void)u[1];
	free(m);
	psym_collectprof_free(c);
}

/* A process in another mount namespace: its samples say which. */
static void mntns_checks(void)
{
	struct psym_collectprof *c = NULL;
	struct psym_err e = { 0 };
	struct psym_profile *p;
	pb_profile *pb;
	uint64_t u1 = 0x400100;
	int64_t got[3] = { -1, -1, -1 };

	ok(psym_collectprof_new(&meta, &c, &e) == 0, "new (mntns)");
	ok(psym_collectprof_process(c, 5, maps, 2) == 0 &&
		   psym_collectprof_process(c, 6, maps, 2) == 0,
	   "two processes");
	psym_collectprof_set_mntns(c, 5, 4026532177u);
	psym_collectprof_set_mntns(c, 99, 1); /* unknown pid: ignored */
	ok(psym_collectprof_add(c, 5, 5, "in", NULL, 0, &u1, 1, 1) == 0 &&
		   psym_collectprof_add(c, 6, 6, "out", NULL, 0, &u1, 1, 1) == 0,
	   "a sample each");
	p = psym_collectprof_profile(c);
	pb = p->pb;
	for (size_t i = 0; i < pb->n_sample; i++) {
		int64_t pid = 0, ns = 0;

		for (size_t j = 0; j < pb->sample[i]->n_label; j++) {
			const char *k = str(p, pb->sample[i]->label[j]->key);

			if (!strcmp(k, "pid"))
				pid = pb->sample[i]->label[j]->num;
			if (!strcmp(k, "mntns"))
				ns = pb->sample[i]->label[j]->num;
		}
		if (pid == 5 || pid == 6)
			got[pid - 5] = ns;
	}
	is_int(got[0], 4026532177, "pid 5: mntns label, its namespace's inode");
	is_int(got[1], 0, "pid 6 (the collector's namespace): no mntns label");
	psym_collectprof_free(c);
}

/*
 * Workers forked from one parent give the same maps: held once, they stay
 * the others' when one exits, and the executable's mapping still goes
 * first (the shared maps' mapping ids renumbered once).
 */
static void shared_maps_checks(void)
{
	struct psym_collectprof *c = NULL;
	struct psym_err e = { 0 };
	struct psym_profile *p;
	pb_profile *pb;
	uint64_t ua = 0x400100, ua2 = 0x400200, ub = 0x7f0000000100;
	size_t right = 0, main7 = 0;

	ok(psym_collectprof_new(&meta, &c, &e) == 0, "new (shared maps)");
	ok(psym_collectprof_process(c, 5, maps, 2) == 0 &&
		   psym_collectprof_process(c, 6, maps, 2) == 0,
	   "two workers, the same maps");
	ok(psym_collectprof_add(c, 5, 5, "w", NULL, 0, &ub, 1, 1) == 0, "pid 5: a sample in b.so");
	psym_collectprof_forget(c, 5);
	ok(!psym_collectprof_known(c, 5) && psym_collectprof_known(c, 6),
	   "pid 5 exited, pid 6 keeps its maps");
	ok(psym_collectprof_set_exe(c, 6, "/bin/a") == 0 &&
		   psym_collectprof_add(c, 6, 6, "w", NULL, 0, &ua, 1, 1) == 0 &&
		   psym_collectprof_add(c, 6, 6, "w", NULL, 0, &ub, 1, 1) == 0,
	   "pid 6: a sample in each");
	ok(psym_collectprof_process(c, 7, maps, 2) == 0 &&
		   psym_collectprof_process(c, 8, maps, 1) == 0 &&
		   psym_collectprof_set_exe(c, 7, "/bin/a") == 0 &&
		   psym_collectprof_add(c, 7, 7, "w", NULL, 0, &ub, 1, 2) == 0 &&
		   psym_collectprof_add(c, 7, 7, "w", NULL, 0, &ua, 1, 1) == 0 &&
		   psym_collectprof_add(c, 8, 8, "w", NULL, 0, &ua, 1, 1) == 0,
	   "pid 7 (the same maps again) and pid 8 (fewer): a sample each");
	ok(psym_collectprof_finish(c, 5) == 0, "finish");
	ok(psym_collectprof_add(c, 7, 7, "w", NULL, 0, &ua2, 1, 1) == 0,
	   "pid 7: a sample after the mappings were renumbered");
	p = psym_collectprof_profile(c);
	pb = p->pb;
	ok(pb->n_mapping == 2 && !strcmp(str(p, pb->mapping[0]->filename), "/bin/a"),
	   "two mappings, the executable's first");
	for (size_t i = 0; i < pb->n_sample; i++) {
		const pb_location *l = NULL;
		const pb_mapping *m = NULL;

		for (size_t j = 0; j < pb->n_location; j++)
			if (pb->location[j]->id == pb->sample[i]->location_id[0])
				l = pb->location[j];
		for (size_t j = 0; l && j < pb->n_mapping; j++)
			if (pb->mapping[j]->id == l->mapping_id)
				m = pb->mapping[j];
		right += m && l->address >= m->memory_start && l->address < m->memory_limit;
	}
	is_int(pb->n_sample, 7, "seven samples");
	is_int(right, 7, "each in the mapping that holds its address");
	for (size_t i = 0; i < pb->n_comment; i++)
		main7 += strstr(str(p, pb->comment[i]), "7 (w, 3 of") != NULL;
	is_int(main7, 1, "pid 7 (most samples, maps shared) named as the main process");
	psym_collectprof_free(c);
}

/*
 * Frame pointers that lie: pid 1's stacks reach /bin/a (its executable),
 * pid 2's stop at the sampled frame, pid 3's wander into no mapping, pid
 * 4 has too few samples, pid 5's are as deep as the sampler goes (cut,
 * not judged), pid 6's end in a library that is not libc.
 */
static void fp_checks(void)
{
	struct psym_collect_meta m = meta;
	struct psym_collectprof *c = NULL;
	struct psym_collect_fpnote f[8];
	struct psym_err e = { 0 };
	uint64_t rooted[3] = { 0x7f0000000010, 0x7f0000000020, 0x400100 };
	uint64_t leaf[1] = { 0x400100 };
	uint64_t wander[3] = { 0x400100, 0x1234, 0x5678 };
	uint64_t deep[4] = { 0x400100, 0x400200, 0x400300, 0x7f0000000010 };
	uint64_t inlib[2] = { 0x400100, 0x7f0000000010 };
	size_t n;
	bool seen[7] = { 0 };

	m.stack_depth_max = 4;
	ok(psym_collectprof_new(&m, &c, &e) == 0, "new (fp)");
	for (int pid = 1; pid <= 6; pid++) {
		psym_collectprof_process(c, pid, maps, 2);
		psym_collectprof_set_exe(c, pid, "/bin/a");
	}
	psym_collectprof_add(c, 1, 1, "ok", NULL, 0, rooted, 3, 20);
	psym_collectprof_add(c, 1, 1, "ok", NULL, 0, leaf, 1, 5);
	psym_collectprof_add(c, 2, 2, "leafy", NULL, 0, leaf, 1, 15);
	psym_collectprof_add(c, 2, 2, "leafy", NULL, 0, rooted, 3, 2);
	psym_collectprof_add(c, 3, 3, "lost", NULL, 0, wander, 3, 12);
	psym_collectprof_add(c, 4, 4, "few", NULL, 0, leaf, 1, 9);
	psym_collectprof_add(c, 5, 5, "deep", NULL, 0, deep, 4, 30);
	psym_collectprof_add(c, 6, 6, "inlib", NULL, 0, inlib, 2, 30);
	n = psym_collectprof_fp_notes(c, PSYM_COLLECT_FP_MIN_SAMPLES, f, 8);
	for (size_t i = 0; i < n && i < 8; i++)
		if (f[i].pid > 0 && f[i].pid < 7)
			seen[f[i].pid] = true;
	is_int((int64_t)n, 2, "fp: two processes' frame pointers do not hold");
	ok(!seen[1], "fp: stacks reaching the executable are rooted");
	ok(seen[2], "fp: stacks that stop at the sampled frame are told");
	ok(seen[3], "fp: stacks that wander into no mapping are told");
	ok(!seen[4], "fp: fewer than the minimum of samples say nothing");
	ok(!seen[5], "fp: stacks as deep as the sampler goes are not judged");
	ok(!seen[6], "fp: a root outside the executable and libc, but no frame lost: not told");
	for (size_t i = 0; i < n && i < 8; i++)
		if (f[i].pid == 2) {
			is_int((int64_t)f[i].samples, 17, "fp: pid 2's samples");
			is_int((int64_t)f[i].rooted, 2, "fp: pid 2's rooted samples");
			is_int((int64_t)f[i].leaf_only, 15, "fp: pid 2's leaf-only samples");
			ok(!strcmp(f[i].comm, "leafy"), "fp: pid 2's comm");
		}
	psym_collectprof_free(c);
}

int main(void)
{
	sample_checks();
	buildid_checks();
	mntns_checks();
	shared_maps_checks();
	fp_checks();
	return tap_done();
}
