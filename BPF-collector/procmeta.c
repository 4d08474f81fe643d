/* SPDX-License-Identifier: MIT */
/*
 * psym-collect: process metadata. The maps of each sampled process and
 * the build IDs of its files, read from /proc within each drain's budget.
 */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "collect.h"
#include "stackcopy.h"

/* -v: a few examples of per-process problems; the rest are counted. */
static void example(struct meta *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void example(struct meta *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->verbose || m->examples > MAX_EXAMPLES)
		return;
	if (m->examples++ == MAX_EXAMPLES) {
		fprintf(stderr, "psym-collect: (more of these are only counted in the summary)\n");
		return;
	}
	fputs("psym-collect: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void meta_init(struct meta *m, bool verbose, const int *targets, int ntargets,
	       const volatile sig_atomic_t *stop)
{
	memset(m, 0, sizeof(*m));
	m->verbose = verbose;
	m->stop = stop;
	for (int i = 0; i < ntargets && i < PSYM_MAX_PIDS; i++)
		m->targets[m->ntargets++] = targets[i];
	m->images_fd = -1;
	psym_hashtab_init(&m->pids, 0);
	psym_hashtab_init(&m->bids, BID_CACHE_MAX);
}

static bool is_target(const struct meta *m, int pid)
{
	for (int i = 0; i < m->ntargets; i++)
		if (m->targets[i] == pid)
			return true;
	return false;
}

/* Forget every process (their maps go to the next profile afresh). */
static void drop_pids(struct meta *m)
{
	for (size_t i = 0; i < m->npinfo; i++)
		free(m->pinfo[i]);
	free(m->pinfo);
	m->pinfo = NULL;
	m->npinfo = 0;
	psym_hashtab_free(&m->pids);
}

void meta_free(struct meta *m)
{
	drop_pids(m);
	for (size_t i = 0; i < m->nbident; i++)
		free(m->bident[i]);
	free(m->bident);
	psym_hashtab_free(&m->bids);
	free(m->miss);
}

void meta_recorders(struct meta *m, struct mmaptrack *mt, struct stackcopy *sc)
{
	m->mt = mt;
	m->sc = sc;
}

void meta_images(struct meta *m, int fd)
{
	m->images_fd = fd;
}

/* pid's image now, by the sampling program's map (0: no exec seen); image itself without it. */
static uint64_t image_now(const struct meta *m, int pid, uint64_t image)
{
	uint32_t key = (uint32_t)pid;
	uint64_t t = 0;

	if (m->images_fd < 0)
		return image;
	if (bpf_map_lookup_elem(m->images_fd, &key, &t) != 0)
		return 0;
	return t;
}

/*
 * The sample is of pid's image image: when the profile builder has
 * another image's maps of pid, they go (they would place this image's
 * addresses in the wrong files) and what is known of the pid starts
 * afresh for this image. True when it changed.
 */
static bool select_image(struct meta *m, struct pidinfo *pi, uint64_t image)
{
	if (pi->has_image && pi->image == image)
		return false;
	if (pi->has_image)
		psym_collectprof_forget(m->cp, pi->pid);
	pi->has_image = true;
	pi->image = image;
	pi->gone = pi->skipped = false;
	pi->rereads = 0;
	pi->mt_gen = 0;
	pi->reread_drain = 0;
	return true;
}

void meta_budget(struct meta *m, int64_t until, bool final)
{
	m->until = until;
	m->ops = META_OPS;
	m->final = final;
}

void meta_final(struct meta *m)
{
	m->final = true;
}

void meta_drains_done(struct meta *m, uint64_t drains)
{
	m->drains = drains;
}

/* May the drain under way do one more piece of metadata work? */
static bool budget_ok(struct meta *m)
{
	if (m->ops <= 0 || (*m->stop && !m->final))
		return false;
	if (now_ns() >= m->until)
		return false;
	m->ops--;
	return true;
}

static struct pidinfo *pid_info(struct meta *m, int pid)
{
	struct psym_err e = { 0 };
	struct pidinfo *pi, **np;
	void *v;

	if (psym_hashtab_get(&m->pids, &pid, sizeof(pid), &v) == 0)
		return v;
	np = realloc(m->pinfo, (m->npinfo + 1) * sizeof(*np));
	if (!np)
		return NULL;
	m->pinfo = np;
	pi = calloc(1, sizeof(*pi));
	if (!pi)
		return NULL;
	pi->pid = pid;
	if (psym_hashtab_put(&m->pids, &pi->pid, sizeof(pi->pid), pi, &e)) {
		free(pi);
		return NULL;
	}
	m->pinfo[m->npinfo++] = pi;
	return pi;
}

/* Read pid's maps into the profile builder (no build IDs yet: see file_build_id). */
static void load_maps(struct meta *m, struct pidinfo *pi)
{
	struct psym_procmap *maps = NULL;
	struct psym_err e = { 0 };
	size_t n = 0;
	int ret = PSYM_NOENT;

	/* /proc has the image running now: of use only when it is the sample's. */
	if (image_now(m, pi->pid, pi->image) == pi->image) {
		ret = psym_procmaps_read(pi->pid, &maps, &n, &e);
		if (ret == 0 && image_now(m, pi->pid, pi->image) != pi->image) {
			free(maps);
			maps = NULL;
			ret = PSYM_NOENT;
		}
	}
	if (ret == PSYM_NOENT) {
		pi->gone = true;
		m->ms.maps_gone++;
		example(m, "pid %d exited or exec'd before its maps were read", pi->pid);
		return;
	}
	if (ret) {
		pi->gone = true;
		m->ms.maps_failed++;
		example(m, "pid %d: %s", pi->pid, e.msg);
		return;
	}
	m->ms.maps_read++;
	/*
	 * -p: at most 16 processes, all of them wanted: their build IDs now,
	 * while they run, not each under a drain's budget (a busy host used
	 * it up and left the target's own binary without one). Not their
	 * children, which can be any number: the budget holds for them.
	 */
	if (is_target(m, pi->pid))
		psym_procmaps_build_ids(pi->pid, maps, n);
	if (psym_collectprof_process(m->cp, pi->pid, maps, n) != 0) {
		m->ms.maps_failed++;
	} else {
		/* Its executable, named as the maps name it, goes first. */
		char link[64], exe[sizeof(maps->path)];
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/%d/exe", pi->pid);
		len = readlink(link, exe, sizeof(exe) - 1);
		if (len > 0) {
			exe[len] = '\0';
			psym_collectprof_set_exe(m->cp, pi->pid, exe);
		}
		psym_collectprof_set_mntns(m->cp, pi->pid, psym_procmaps_mntns_other(pi->pid));
	}
	free(maps);
}

/* A file left without a build ID, for the summary: one entry per file and why. */
static void bid_missed(struct meta *m, int pid, const char *path, bool skipped)
{
	struct bidmiss *b;

	for (size_t i = 0; i < m->nmiss; i++)
		if (m->miss[i].skipped == skipped && !strcmp(m->miss[i].path, path)) {
			m->miss[i].procs++;
			return;
		}
	if (!m->miss)
		m->miss = calloc(MAX_BID_MISSES, sizeof(*m->miss));
	if (!m->miss || m->nmiss >= MAX_BID_MISSES) {
		m->miss_more++;
		return;
	}
	b = &m->miss[m->nmiss++];
	snprintf(b->path, sizeof(b->path), "%s", path);
	b->pid = pid;
	b->procs = 1;
	b->skipped = skipped;
}

void meta_bid_misses(const struct meta *m, FILE *out, bool verbose)
{
	size_t shown = verbose ? m->nmiss : BID_MISSES_SHOWN;

	for (size_t i = 0; i < m->nmiss && i < shown; i++) {
		const struct bidmiss *b = &m->miss[i];
		char more[48] = "";

		if (b->procs > 1)
			snprintf(more, sizeof(more), " and %" PRIu32 " more", b->procs - 1);
		fprintf(out,
			"psym-collect: no build ID for '%s' (pid %d%s: %s): its mappings match "
			"any file at that path; --archive cannot pack it\n",
			b->path, b->pid, more,
			b->skipped ? "not read, metadata cap" : "unreadable");
	}
	if (m->nmiss > shown || m->miss_more)
		fprintf(out, "psym-collect: and %" PRIu64 " more files without a build ID%s\n",
			(uint64_t)(m->nmiss > shown ? m->nmiss - shown : 0) + m->miss_more,
			verbose ? "" : " (-v names more)");
}

/*
 * The build ID of a mapped file, asked for by the profile builder the
 * first time a sample needs the mapping: one stat through
 * /proc/PID/map_files, then the cache by (device, inode, mtime); on a miss
 * the file's notes are read with pread (no mapping of the file).
 */
static void file_build_id(void *ud, int pid, struct psym_procmap *m)
{
	struct meta *meta = ud;
	struct psym_err e = { 0 };
	char path[sizeof(m->path) + 64];
	struct bident *b, **nb;
	struct bidkey k;
	struct stat st;
	size_t len = strlen(m->path);
	void *v;
	int fd;

	if (!budget_ok(meta)) {
		meta->ms.bids_skipped++;
		bid_missed(meta, pid, m->path, true);
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start,
		 m->limit);
	if (stat(path, &st) != 0) {
		if (len > 10 && !strcmp(m->path + len - 10, " (deleted)"))
			goto failed;
		snprintf(path, sizeof(path), "/proc/%d/root%s", pid, m->path);
		if (stat(path, &st) != 0)
			goto failed;
	}
	if (!S_ISREG(st.st_mode))
		goto failed;
	memset(&k, 0, sizeof(k));
	k.dev = st.st_dev;
	k.ino = st.st_ino;
	k.sec = st.st_mtim.tv_sec;
	k.nsec = st.st_mtim.tv_nsec;
	if (psym_hashtab_get(&meta->bids, &k, sizeof(k), &v) == 0) {
		b = v;
		snprintf(m->build_id, sizeof(m->build_id), "%s", b->id);
		meta->ms.bids_cached++;
		return;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		goto failed;
	b->k = k;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || psym_procmaps_fd_build_id(fd, b->id) < 0)
		b->id[0] = '\0';
	if (fd >= 0)
		close(fd);
	meta->ms.bids_read++;
	snprintf(m->build_id, sizeof(m->build_id), "%s", b->id);
	nb = meta->nbident < BID_CACHE_MAX
		     ? realloc(meta->bident, (meta->nbident + 1) * sizeof(*nb))
		     : NULL;
	if (!nb || psym_hashtab_put(&meta->bids, &b->k, sizeof(b->k), b, &e)) {
		free(b);
		return;
	}
	meta->bident = nb;
	meta->bident[meta->nbident++] = b;
	return;
failed:
	meta->ms.bids_failed++;
	bid_missed(meta, pid, m->path, false);
	example(meta, "pid %d: cannot read the build ID of '%s'", pid, m->path);
}

/* pid's maps as mmaptrack recorded them: 0, or PSYM_NOENT when it has none. */
static int load_tracked(struct meta *m, struct pidinfo *pi)
{
	struct psym_procmap *maps = NULL;
	char exe[sizeof(maps->path)];
	size_t n = 0;
	bool complete;
	int ret = mmaptrack_maps(m->mt, pi->pid, pi->image, &maps, &n, &complete, exe, sizeof(exe));

	if (ret)
		return ret;
	if (psym_collectprof_process(m->cp, pi->pid, maps, n) != 0) {
		m->ms.maps_failed++;
	} else {
		m->ms.maps_tracked++;
		if (exe[0])
			psym_collectprof_set_exe(m->cp, pi->pid, exe);
		/* Still running (tracked from its exec): its namespace, if readable. */
		psym_collectprof_set_mntns(m->cp, pi->pid, psym_procmaps_mntns_other(pi->pid));
	}
	free(maps);
	return 0;
}

/*
 * A process seen from its exec or fork: its recorded maps, reloaded when
 * they changed (dlopen, exec), and no /proc read at all. False when pid is
 * not tracked that completely.
 */
static bool from_tracker(struct meta *m, struct pidinfo *pi)
{
	bool complete;
	bool changed = mmaptrack_changed(m->mt, pi->pid, pi->image, &pi->mt_gen, &complete);

	if (!complete)
		return false;
	if (changed || !psym_collectprof_known(m->cp, pi->pid))
		load_tracked(m, pi);
	return true;
}

void forget_pid(void *ud, int pid)
{
	struct meta *m = ud;
	struct pidinfo *pi;
	void *v;

	psym_collectprof_forget(m->cp, pid);
	if (psym_hashtab_get(&m->pids, &pid, sizeof(pid), &v) == 0) {
		pi = v;
		pi->gone = pi->skipped = false;
		pi->rereads = 0;
		pi->mt_gen = 0;
		pi->has_image = false;
	}
}

void need_maps(struct meta *m, int pid, uint64_t image, const uint64_t *uips, size_t nu,
	       uint64_t count)
{
	struct pidinfo *pi;

	if (!nu)
		return; /* a kernel-only stack: no process metadata needed */
	pi = pid_info(m, pid);
	if (!pi)
		return;
	select_image(m, pi, m->images_fd < 0 ? UINT64_MAX : image);
	if (m->mt && from_tracker(m, pi))
		return;
	if (pi->gone)
		return;
	if (!psym_collectprof_known(m->cp, pid)) {
		if (budget_ok(m)) {
			load_maps(m, pi);
			/* Exited before it was read: what was recorded of it. */
			if (pi->gone && m->mt && load_tracked(m, pi) == 0)
				m->ms.maps_gone--;
		} else {
			/* Taken in now without its mappings: what the cap cost. */
			m->ms.samples_skipped += count;
			if (!pi->skipped)
				m->ms.maps_skipped++;
			pi->skipped = true;
		}
	} else if (pi->rereads < MAX_REREADS && pi->reread_drain != m->drains &&
		   psym_collectprof_unknown(m->cp, pid, uips, 1) && budget_ok(m)) {
		/* The leaf (the one frame never guessed by an unwinder) outside
		 * the known mappings: dlopen, new JIT code. Once per drain. */
		pi->reread_drain = m->drains;
		pi->rereads++;
		m->ms.rereads++;
		load_maps(m, pi);
	}
}

/* Build IDs of the mapped files the kernel gave none for, while pid runs. */
static void fill_build_ids(int pid, struct psym_procmap *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!maps[i].build_id[0] && maps[i].path[0] == '/')
			psym_procmaps_build_ids(pid, &maps[i], 1);
}

/*
 * --stack-copy: pid's maps into the side file and the profile, from the
 * tracker when it saw pid from its exec or fork, else from /proc (and,
 * when pid has exited, from what the tracker has of it). Samples arrive
 * one by one, so this is not held to the drain's budget: a process not
 * read now would be lost with its samples.
 */
static int sc_load(struct meta *m, struct pidinfo *pi, bool tracked)
{
	struct psym_procmap *maps = NULL;
	struct psym_err e = { 0 };
	char exe[sizeof(maps->path)] = "";
	size_t n = 0;
	bool complete;
	int ret = PSYM_NOENT;

	if (!tracked && image_now(m, pi->pid, pi->image) == pi->image) {
		ret = psym_procmaps_read(pi->pid, &maps, &n, &e);
		if (ret == 0 && image_now(m, pi->pid, pi->image) != pi->image) {
			free(maps); /* exec'd while read: another image's */
			maps = NULL;
			n = 0;
			ret = PSYM_NOENT;
		}
		if (ret == 0) {
			char link[64];
			ssize_t len;

			m->ms.maps_read++;
			psym_procmaps_build_ids(pi->pid, maps, n);
			snprintf(link, sizeof(link), "/proc/%d/exe", pi->pid);
			len = readlink(link, exe, sizeof(exe) - 1);
			exe[len > 0 ? len : 0] = '\0';
		}
	}
	if (ret && m->mt &&
	    mmaptrack_maps(m->mt, pi->pid, pi->image, &maps, &n, &complete, exe, sizeof(exe)) ==
		    0) {
		m->ms.maps_tracked++;
		fill_build_ids(pi->pid, maps, n);
		ret = 0;
	}
	if (ret) {
		m->ms.maps_gone++;
		pi->gone = true;
		example(m, "pid %d exited or exec'd before its maps were read", pi->pid);
		/* No maps for its samples from here on: not another image's, nor an
		 * earlier process's of that pid, offline either. */
		return stackcopy_process(m->sc, pi->pid, NULL, 0, NULL, 0);
	}
	ret = stackcopy_process(m->sc, pi->pid, maps, n, exe, psym_procmaps_mntns_other(pi->pid));
	free(maps);
	return ret;
}

/*
 * Which image a sample is of, when it was taken inside an exec (issue 42,
 * item 1). execve gives the process its new memory, then the exec's COMM
 * record, the new program's mmaps, and its registers (start_thread: the
 * interpreter's entry, the frame pointer cleared), and only at its end the
 * exec tracepoint gives the pid its new image (image.bpf.h). A sample in
 * between carries the image before, with one user frame, the new
 * program's first instruction. It is moved to the image recorded right
 * after its own when all of these hold: one user frame; its own image was
 * seen whole (a mapping missed could be the leaf's) and has no mapping at
 * the leaf, so it cannot be of it; the next image, the exec under way, has
 * one; and, when the sample's time is known (--stack-copy), it was taken
 * after that exec's record. Never further than the next image.
 */
uint64_t meta_exec_image(struct meta *m, int pid, uint64_t image, const uint64_t *uips, size_t nu,
			 uint64_t time, uint64_t count)
{
	uint64_t next;
	bool complete;

	if (!m->mt || m->images_fd < 0 || nu != 1)
		return image;
	if (mmaptrack_next_image(m->mt, pid, image, uips[0], &next, &complete) != 0 || !complete ||
	    (time && time < next) || mmaptrack_holds(m->mt, pid, image, uips[0]))
		return image;
	m->ms.exec_placed += count;
	return next;
}

int stackcopy_need_maps(void *ud, int pid, uint64_t image, uint64_t time, const uint64_t *leaf,
			size_t nleaf)
{
	struct meta *m = ud;
	struct pidinfo *pi = pid_info(m, pid);
	bool complete = false, changed = false, polled = false;

	if (!pi)
		return PSYM_ENOMEM;
	if (m->images_fd < 0) {
		image = UINT64_MAX; /* execs not followed: the newest image */
	} else if (m->mt && nleaf) {
		/* Taken inside an exec? Its records are in the rings by now. */
		if (!mmaptrack_holds(m->mt, pid, image, leaf[0])) {
			mmaptrack_poll(m->mt, m->drains);
			polled = true;
		}
		image = meta_exec_image(m, pid, image, leaf, nleaf, time, 1);
	}
	select_image(m, pi, image);
	if (m->mt) {
		changed = mmaptrack_changed(m->mt, pid, image, &pi->mt_gen, &complete);
		if (!polled && (!complete || !psym_collectprof_known(m->cp, pid) ||
				(nleaf && psym_collectprof_unknown(m->cp, pid, leaf, nleaf)))) {
			/* Its records may be in the rings yet: take them first. */
			mmaptrack_poll(m->mt, m->drains);
			changed |= mmaptrack_changed(m->mt, pid, image, &pi->mt_gen, &complete);
		}
	}
	if (!psym_collectprof_known(m->cp, pid) || (complete && changed)) {
		if (pi->gone && !complete)
			return 0;
		return sc_load(m, pi, complete);
	}
	/* The leaf outside the known mappings: dlopen, JIT code made by
	 * mprotect (which the tracker does not see). Once per drain. */
	if (nleaf && pi->rereads < MAX_REREADS && pi->reread_drain != m->drains + 1 &&
	    psym_collectprof_unknown(m->cp, pid, leaf, nleaf)) {
		pi->reread_drain = m->drains + 1;
		pi->rereads++;
		m->ms.rereads++;
		return sc_load(m, pi, false);
	}
	return 0;
}

void meta_profile(struct meta *m, struct psym_collectprof *cp)
{
	drop_pids(m);
	psym_hashtab_init(&m->pids, 0);
	m->cp = cp;
	if (cp)
		psym_collectprof_set_buildid_fn(cp, file_build_id, m);
}

int meta_first_maps(struct meta *m, const int *pids, int npids, int64_t until)
{
	int ret = 0;

	meta_budget(m, until, false);
	for (int i = 0; i < npids; i++) {
		struct pidinfo *pi = pid_info(m, pids[i]);
		uint64_t image = image_now(m, pids[i], UINT64_MAX);

		if (pi)
			select_image(m, pi, image);
		if (m->sc && !ret)
			ret = stackcopy_need_maps(m, pids[i], image, 0, NULL, 0);
		else if (pi && budget_ok(m))
			load_maps(m, pi);
	}
	return ret;
}
