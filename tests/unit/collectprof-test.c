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
#include "psym.h"
#include "tap.h"

static const char *str(struct psym_profile *p, int64_t i)
{
	return psym_profile_str(p, i);
}

int main(void)
{
	struct psym_collect_meta meta = {
		.period_ns = 10101010, .time_ns = 1000, .duration_ns = 5, .kernel_build_id = "abcd"
	};
	struct psym_procmap maps[2] = {
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
	uint64_t kstack[] = { 0xffffffff81000100, 0xffffffff81000200 };
	uint64_t ustack[] = { 0x400100, 0x7f0000000200, 0x400300 };
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
	{
		uint64_t far = 0x500000;

		ok(psym_collectprof_unknown(c, 42, &far, 1), "unknown address detected");
	}
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
	{
		pb_sample *s = pb->sample[0];
		pb_location *l0 = psym_profile_location(p, s->location_id[0]);
		pb_location *l1 = psym_profile_location(p, s->location_id[1]);
		pb_location *l2 = psym_profile_location(p, s->location_id[2]);
		pb_location *l4 = psym_profile_location(p, s->location_id[4]);
		pb_mapping *km = psym_profile_mapping(p, l0->mapping_id);

		is_int(l0->address, 0xffffffff81000100, "kernel leaf first, as sampled");
		is_int(l1->address, 0xffffffff81000200 - 1, "kernel caller: return address - 1");
		is_int(l2->address, 0x400100 - 1, "user frames below kernel ones are callers");
		is_int(l4->address, 0x400300 - 1, "outermost user caller");
		is_str(str(p, km->filename), "[kernel.kallsyms]", "kernel mapping");
		is_str(str(p, km->build_id), "abcd", "kernel build ID");
		is_str(str(p, psym_profile_mapping(p, l2->mapping_id)->build_id), "1111",
		       "user mapping has its build ID");
		is_str(str(p, s->label[0]->key), "pid", "pid label");
		is_int(s->label[0]->num, 42, "pid value");
		is_str(str(p, s->label[1]->key), "tid", "tid label");
		is_str(str(p, s->label[2]->str), "worker", "comm label");
	}
	{
		/* A user-only stack: the first user frame is the leaf. */
		pb_location *l = psym_profile_location(p, pb->sample[1]->location_id[0]);

		is_int(l->address, 0x400100, "user leaf kept as sampled");
	}
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
	return tap_done();
}
