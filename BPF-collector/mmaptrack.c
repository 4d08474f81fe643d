/* SPDX-License-Identifier: MIT */
/*
 * psym-collect: mappings recorded as they are made, from the kernel's
 * PERF_RECORD_MMAP2 / COMM (exec) / FORK / EXIT records (mmaptrack.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hashtab.h"
#include "mmaptrack.h"
#include "procmaps.h"

struct tmap {
	uint64_t start, limit, offset;
	uint32_t path; /* index into paths */
	uint32_t goid; /* a Go build ID ("go:" form) as an index into paths, or 0 */
	uint8_t bid_len;
	uint8_t bid[20];
};

/* A file's build ID as read when it was mapped. */
struct fbid {
	uint32_t key[6]; /* maj, min, ino (2 words), ino_generation (2 words) */
	uint8_t len;	 /* 0: the file has none, or could not be read */
	uint8_t bid[20];
	uint32_t goid; /* or its Go build ID, as tmap.goid */
};

#define MAX_FBIDS 65536

/*
 * An image the process had before its last exec, kept for the samples
 * taken in it (a sample carries its image: image.bpf.h) until the drain
 * after the exec has taken them all in.
 */
struct oldimage {
	uint64_t exec_time;  /* the exec it began with; 0: from a fork, or before the run */
	uint64_t left_drain; /* the drain when it was left (by the next exec) */
	uint32_t gen, exe;
	bool complete;
	uint16_t n;
	struct tmap *m;
};

struct tproc {
	int pid;
	bool complete; /* seen from its exec or fork */
	bool exited, dead, exe_next;
	uint64_t exit_drain;
	uint64_t exec_time; /* of the current image, as oldimage's */
	uint32_t gen;	    /* bumped on every change */
	uint32_t exe;	    /* path index + 1; 0 = unknown */
	uint16_t n, cap;
	struct tmap *m;
	uint8_t nold; /* oldest first */
	struct oldimage old[MMAPTRACK_MAX_IMAGES];
};

struct ring {
	int fd;
	void *base; /* header page + data pages */
	size_t data_size;
};

/* A record read from a ring (at off in buf), by its kernel time stamp. */
struct pending {
	uint64_t time;
	size_t off;
	uint32_t seq; /* ring order among equal times */
};

struct mmaptrack {
	struct ring *rings;
	int nrings;
	uint32_t max_procs, max_paths;
	struct psym_hashtab procs; /* pid -> struct tproc, rebuilt by sweep */
	struct tproc **all;
	size_t nall, capall;
	size_t ndead; /* of all, the images an exec replaced, until the sweep frees them */
	struct psym_hashtab path_ix; /* path -> index + 1 */
	char **paths;
	size_t npaths;
	uint64_t drain;
	uint64_t images_since; /* execs from then on start an image (mmaptrack_images_since) */
	uint32_t gen;	       /* a new value for every change of any process */
	/* One poll's records of every ring, unwrapped, then taken in time order. */
	unsigned char *buf;
	size_t len, cap;
	struct pending *pend;
	size_t npend, cappend;
	/* Build IDs read at mmap time, by file (device, inode, generation). */
	struct psym_hashtab bids;
	struct fbid **fbid;
	size_t nfbid;
	struct mmaptrack_stats st;
};

static struct tproc *find(struct mmaptrack *t, int pid)
{
	void *v;

	return psym_hashtab_get(&t->procs, &pid, sizeof(pid), &v) == 0 ? v : NULL;
}

/* A new (empty) entry for pid, replacing an earlier process of that pid. */
static struct tproc *add(struct mmaptrack *t, int pid)
{
	struct psym_err e = { 0 };
	struct tproc *old = find(t, pid), *p;

	/* The cap is on processes: an exec's replaced entry is none. */
	if (!old && t->nall - t->ndead >= t->max_procs) {
		t->st.procs_untracked++;
		return NULL;
	}
	if (t->nall == t->capall) {
		size_t ncap = t->capall ? t->capall * 2 : 256;
		struct tproc **na = realloc(t->all, ncap * sizeof(*na));

		if (!na)
			return NULL;
		t->all = na;
		t->capall = ncap;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (psym_hashtab_put(&t->procs, &p->pid, sizeof(p->pid), p, &e)) {
		free(p);
		return NULL;
	}
	if (old) {
		old->dead = true; /* freed by the next sweep, after the table is rebuilt */
		t->ndead++;
	}
	t->all[t->nall++] = p;
	if (t->nall - t->ndead > t->st.procs_max)
		t->st.procs_max = (uint32_t)(t->nall - t->ndead);
	return p;
}

static uint32_t intern(struct mmaptrack *t, const char *path)
{
	struct psym_err e = { 0 };
	char *copy, **np;
	void *v;

	if (psym_hashtab_get(&t->path_ix, path, strlen(path), &v) == 0)
		return (uint32_t)(uintptr_t)v;
	if (t->npaths >= t->max_paths)
		return 0;
	copy = strdup(path);
	np = copy ? realloc(t->paths, (t->npaths + 1) * sizeof(*np)) : NULL;
	if (!np) {
		free(copy);
		return 0;
	}
	t->paths = np;
	if (psym_hashtab_put(&t->path_ix, copy, strlen(copy), (void *)(uintptr_t)(t->npaths + 1),
			     &e)) {
		free(copy);
		return 0;
	}
	t->paths[t->npaths++] = copy;
	return (uint32_t)t->npaths;
}

/*
 * A mapping the kernel gave no build ID for (the note's page was not in
 * memory): read it now, while the process that mapped the file surely
 * has it (through /proc/PID/map_files, else /proc/PID/root/PATH), once per
 * file. Later, at a drain, the process may have exited and the path may
 * name another file.
 */
static void read_bid(struct mmaptrack *t, uint32_t pid, const uint32_t key[6], const char *name,
		     uint64_t addr, uint64_t size, struct tmap *m)
{
	struct psym_err e = { 0 };
	char path[4200], hex[PSYM_BUILD_ID_HEX_MAX];
	struct fbid *f, **nf;
	struct stat st;
	void *v;
	int fd, ret;

	f = calloc(1, sizeof(*f));
	if (!f)
		return;
	memcpy(f->key, key, sizeof(f->key));
	if (psym_hashtab_get(&t->bids, f->key, sizeof(f->key), &v) == 0) {
		struct fbid *c = v;

		free(f);
		m->bid_len = c->len;
		memcpy(m->bid, c->bid, c->len);
		m->goid = c->goid;
		t->st.bids_cached++;
		return;
	}
	snprintf(path, sizeof(path), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64, pid, addr,
		 addr + size);
	/* Never open a device (opening one can act on it). */
	fd = strncmp(name, "/dev/", 5) ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
				       : -1;
	if (fd < 0 && strncmp(name, "/dev/", 5) &&
	    !(strlen(name) > 10 && !strcmp(name + strlen(name) - 10, " (deleted)"))) {
		snprintf(path, sizeof(path), "/proc/%u/root%s", pid, name);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	}
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
	}
	ret = fd >= 0 ? psym_procmaps_fd_build_id(fd, hex) : PSYM_EIO;
	if (ret == 0) {
		if (psym_build_id_is_go(hex)) /* kept as a string: not hex */
			f->goid = intern(t, hex);
		else
			for (const char *h = hex; f->len < 20 && h[0] && h[1]; h += 2)
				f->bid[f->len++] =
					(uint8_t)strtoul((char[3]){ h[0], h[1], 0 }, NULL, 16);
		t->st.bids_read++;
	} else if (ret == PSYM_NOENT) { /* read: the file has none (not a loss) */
		t->st.bids_read++;
		t->st.bids_none++;
	} else {
		t->st.bids_failed++;
	}
	if (fd >= 0)
		close(fd);
	m->bid_len = f->len;
	memcpy(m->bid, f->bid, f->len);
	m->goid = f->goid;
	nf = t->nfbid < MAX_FBIDS ? realloc(t->fbid, (t->nfbid + 1) * sizeof(*nf)) : NULL;
	if (!nf || psym_hashtab_put(&t->bids, f->key, sizeof(f->key), f, &e)) {
		free(f);
		return;
	}
	t->fbid = nf;
	t->fbid[t->nfbid++] = f;
}

static void on_mmap(struct mmaptrack *t, const struct perf_event_header *h, const unsigned char *b,
		    size_t len)
{
	uint32_t pid, pathix;
	uint64_t addr, size, pgoff;
	struct tproc *p;
	struct tmap *m;
	const char *name = (const char *)b + 64;
	size_t w = 0;

	if (len < 64 + 1)
		return;
	memcpy(&pid, b, 4);
	memcpy(&addr, b + 8, 8);
	memcpy(&size, b + 16, 8);
	memcpy(&pgoff, b + 24, 8);
	if (!memchr(name, '\0', len - 64))
		return;
	p = find(t, (int)pid);
	if (!p)
		p = add(t, (int)pid); /* a process from before the run: incomplete */
	if (!p || size == 0 || addr + size < addr)
		return;
	t->st.maps++;
	pathix = intern(t, name);
	if (!pathix) {
		t->st.maps_dropped++;
		return;
	}
	if (p->exe_next && name[0] == '/') {
		p->exe = pathix;
		p->exe_next = false;
	}
	/* A new mapping replaces what it overlaps (munmap is not reported). */
	for (uint16_t i = 0; i < p->n; i++)
		if (p->m[i].limit <= addr || p->m[i].start >= addr + size)
			p->m[w++] = p->m[i];
	p->n = (uint16_t)w;
	if (p->n == p->cap) {
		uint16_t ncap = p->cap ? (uint16_t)(p->cap * 2) : 8;
		struct tmap *nm;

		if (p->cap >= MMAPTRACK_MAX_MAPS || !(nm = realloc(p->m, ncap * sizeof(*nm)))) {
			t->st.maps_dropped++;
			return;
		}
		p->m = nm;
		p->cap = ncap;
	}
	m = &p->m[p->n++];
	memset(m, 0, sizeof(*m));
	m->start = addr;
	m->limit = addr + size;
	m->offset = pgoff;
	m->path = pathix;
	if ((h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && b[32] <= 20) {
		m->bid_len = b[32];
		memcpy(m->bid, b + 36, m->bid_len);
	} else if (!(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && name[0] == '/') {
		uint32_t key[6];

		memcpy(key, b + 32, sizeof(key)); /* maj, min, ino, ino_generation */
		read_bid(t, pid, key, name, addr, size, m);
	}
	p->gen = ++t->gen;
}

static void free_old(struct oldimage *o)
{
	free(o->m);
	o->m = NULL;
	o->n = 0;
}

/*
 * An exec of parent's pid made p: parent's images, its current one last,
 * move to p (the oldest is dropped when p would keep too many).
 */
static void keep_images(struct mmaptrack *t, struct tproc *p, struct tproc *parent)
{
	struct oldimage *o;

	for (uint8_t i = 0; i < parent->nold; i++)
		p->old[i] = parent->old[i];
	p->nold = parent->nold;
	parent->nold = 0;
	if (p->nold == MMAPTRACK_MAX_IMAGES) {
		free_old(&p->old[0]);
		memmove(&p->old[0], &p->old[1], (MMAPTRACK_MAX_IMAGES - 1) * sizeof(p->old[0]));
		p->nold--;
		t->st.images_dropped++;
	}
	o = &p->old[p->nold++];
	o->exec_time = parent->exec_time;
	o->left_drain = t->drain;
	o->gen = parent->gen;
	o->exe = parent->exe;
	o->complete = parent->complete;
	o->n = parent->n;
	o->m = parent->m;
	parent->m = NULL;
	parent->n = parent->cap = 0;
}

/*
 * The build-ID cache's key of a file mapped as /proc/PID/maps says: its
 * device and inode, and a generation no kernel record carries (maps
 * gives none), so that these entries are shared among /proc reads only.
 */
static const uint32_t *seed_key(const struct psym_procmap *pm, uint32_t key[6])
{
	key[0] = (uint32_t)(pm->dev >> 32);
	key[1] = (uint32_t)pm->dev;
	memcpy(&key[2], &pm->inode, 8);
	key[4] = key[5] = UINT32_MAX;
	return key;
}

/*
 * A process from before the run that forks: its maps from /proc, once,
 * with build IDs, so that its children (which may exec or exit at once)
 * start from a complete copy.
 */
static struct tproc *seed(struct mmaptrack *t, int pid, bool skip_empty)
{
	struct psym_procmap *maps = NULL;
	struct psym_err e = { 0 };
	struct tproc *p;
	size_t n = 0;

	if (psym_procmaps_read(pid, &maps, &n, &e) != 0 || (!n && skip_empty)) {
		free(maps);
		return NULL;
	}
	t->st.seeded++;
	p = add(t, pid);
	if (p && n)
		p->m = calloc(n < MMAPTRACK_MAX_MAPS ? n : MMAPTRACK_MAX_MAPS, sizeof(*p->m));
	for (size_t i = 0; p && p->m && i < n && p->n < MMAPTRACK_MAX_MAPS; i++) {
		struct tmap *m = &p->m[p->n];
		uint32_t key[6];

		memset(m, 0, sizeof(*m));
		m->path = intern(t, maps[i].path);
		if (!m->path)
			continue;
		m->start = maps[i].start;
		m->limit = maps[i].limit;
		m->offset = maps[i].offset;
		if (maps[i].path[0] == '/')
			read_bid(t, (uint32_t)pid, seed_key(&maps[i], key), maps[i].path,
				 maps[i].start, maps[i].limit - maps[i].start, m);
		p->n++;
	}
	if (p) {
		char link[64], exe[4096];
		ssize_t len;

		/* Its executable, as a drain's /proc read would name it. */
		snprintf(link, sizeof(link), "/proc/%d/exe", pid);
		len = readlink(link, exe, sizeof(exe) - 1);
		if (len > 0) {
			exe[len] = '\0';
			p->exe = intern(t, exe);
		}
		p->cap = p->n;
		p->complete = p->m || !n;
		p->gen = ++t->gen;
	}
	free(maps);
	return p;
}

int mmaptrack_seed_running(struct mmaptrack *t, int self)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (!t)
		return 0;
	/* What happened since the open first: a process seen from its exec
	 * or fork is complete already. */
	mmaptrack_poll(t, t->drain);
	d = opendir("/proc");
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		struct tproc *p;

		if (*end || end == de->d_name || pid <= 0 || pid > INT_MAX || pid == self)
			continue;
		p = find(t, (int)pid);
		if (p && p->complete)
			continue;
		if (t->nall - t->ndead >= t->max_procs && !p)
			break; /* add() counts what is left untracked from here */
		/* Kernel threads (no mappings) take no entry. */
		if (seed(t, (int)pid, true))
			n++;
	}
	closedir(d);
	t->st.running += (uint64_t)n;
	return n;
}

/* The sample time stamp of records is in CLOCK_MONOTONIC, as image.bpf.h's. */
static void on_record(struct mmaptrack *t, const struct perf_event_header *h,
		      const unsigned char *b, size_t len, uint64_t time)
{
	uint32_t pid, ppid, tid;
	struct tproc *p, *parent;

	t->st.records++;
	switch (h->type) {
	case PERF_RECORD_MMAP2: on_mmap(t, h, b, len); break;
	case PERF_RECORD_COMM:
		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC) || len < 8)
			break;
		memcpy(&pid, b, 4);
		/* exec: the process starts afresh; its image's mappings follow. */
		parent = find(t, (int)pid); /* the image before (add marks it dead) */
		if (parent && parent->dead)
			parent = NULL;
		p = add(t, (int)pid);
		if (p && parent)
			keep_images(t, p, parent);
		if (p) {
			p->complete = true;
			p->exe_next = true;
			p->exec_time = time >= t->images_since ? time : 0;
			p->gen = ++t->gen;
		}
		t->st.execs++;
		break;
	case PERF_RECORD_FORK:
		if (len < 16)
			break;
		memcpy(&pid, b, 4);
		memcpy(&ppid, b + 4, 4);
		if (pid == ppid)
			break; /* a new thread */
		t->st.forks++;
		parent = find(t, (int)ppid);
		if (!parent || (!parent->complete && !parent->exited))
			parent = seed(t, (int)ppid, false);
		p = add(t, (int)pid);
		if (!p)
			break;
		if (parent && parent->n) {
			p->m = malloc(parent->n * sizeof(*p->m));
			if (p->m) {
				memcpy(p->m, parent->m, parent->n * sizeof(*p->m));
				p->n = p->cap = parent->n;
			}
		}
		p->complete = parent && parent->complete && (p->m || !parent->n);
		p->exe = parent ? parent->exe : 0;
		p->gen = ++t->gen;
		break;
	case PERF_RECORD_EXIT:
		if (len < 16)
			break;
		memcpy(&pid, b, 4);
		memcpy(&tid, b + 8, 4);
		if (pid != tid)
			break; /* a thread */
		t->st.exits++;
		p = find(t, (int)pid);
		if (p && !p->exited) {
			p->exited = true;
			p->exit_drain = t->drain;
		}
		break;
	case PERF_RECORD_LOST:
		if (len >= 16) {
			uint64_t n;

			memcpy(&n, b + 8, 8);
			t->st.lost += n;
		}
		break;
	default: break;
	}
}

/* Copy the ring's whole records into t->buf (each with its time stamp). */
static void read_ring(struct mmaptrack *t, struct ring *r)
{
	struct perf_event_mmap_page *mp = r->base;
	unsigned char *data = (unsigned char *)r->base + mp->data_offset;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		size_t off = (size_t)(tail % r->data_size), first = r->data_size - off;
		unsigned char *dst;

		if (first >= sizeof(h)) {
			memcpy(&h, data + off, sizeof(h));
		} else {
			memcpy(&h, data + off, first);
			memcpy((unsigned char *)&h + first, data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) + 8 || tail + h.size > head)
			break; /* corrupt or partial: stop, the kernel writes whole records */
		/* Bounded: at most every ring's size per poll. */
		if (t->len + h.size > t->cap) {
			size_t ncap = t->cap ? t->cap * 2 : (size_t)1 << 20;
			unsigned char *nb = realloc(t->buf, ncap);

			if (!nb)
				break; /* no memory: the rest waits for the next poll */
			t->buf = nb;
			t->cap = ncap;
		}
		if (t->npend == t->cappend) {
			size_t ncap = t->cappend ? t->cappend * 2 : 8192;
			struct pending *np = realloc(t->pend, ncap * sizeof(*np));

			if (!np)
				break;
			t->pend = np;
			t->cappend = ncap;
		}
		dst = t->buf + t->len;
		if (h.size <= first) {
			memcpy(dst, data + off, h.size);
		} else {
			memcpy(dst, data + off, first);
			memcpy(dst + first, data, h.size - first);
		}
		/* sample_id_all with PERF_SAMPLE_TIME: the time stamp ends the record. */
		memcpy(&t->pend[t->npend].time, dst + h.size - 8, 8);
		t->pend[t->npend].off = t->len;
		t->pend[t->npend].seq = (uint32_t)t->npend;
		t->npend++;
		t->len += h.size;
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static int cmp_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void mmaptrack_poll(struct mmaptrack *t, uint64_t drain)
{
	if (!t)
		return;
	t->drain = drain;
	t->len = t->npend = 0;
	for (int i = 0; i < t->nrings; i++)
		read_ring(t, &t->rings[i]);
	/* One process's records can be on several CPUs' rings: time order. */
	qsort(t->pend, t->npend, sizeof(*t->pend), cmp_time);
	for (size_t i = 0; i < t->npend; i++) {
		struct perf_event_header h;
		const unsigned char *rec = t->buf + t->pend[i].off;

		memcpy(&h, rec, sizeof(h));
		on_record(t, &h, rec + sizeof(h), h.size - sizeof(h) - 8, t->pend[i].time);
	}
}

/* A tracker with room for nrings rings and none open yet; NULL: no memory. */
static struct mmaptrack *tracker_new(const struct mmaptrack_opts *o, int nrings)
{
	struct mmaptrack *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->max_procs = o->max_procs;
	t->images_since = UINT64_MAX;
	t->max_paths = o->max_paths;
	psym_hashtab_init(&t->procs, (size_t)o->max_procs * 2 + 16);
	psym_hashtab_init(&t->path_ix, o->max_paths);
	psym_hashtab_init(&t->bids, MAX_FBIDS);
	t->rings = calloc((size_t)(nrings > 0 ? nrings : 1), sizeof(*t->rings));
	if (!t->rings) {
		mmaptrack_close(t);
		return NULL;
	}
	return t;
}

int mmaptrack_open_rings(const struct mmaptrack_opts *o, void *const *bases, int nrings,
			 size_t data_size, struct mmaptrack **out, struct psym_err *e)
{
	struct mmaptrack *t = tracker_new(o, nrings);

	if (!t)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (int i = 0; i < nrings; i++)
		t->rings[t->nrings++] =
			(struct ring){ .fd = -1, .base = bases[i], .data_size = data_size };
	*out = t;
	return 0;
}

int mmaptrack_open(const struct mmaptrack_opts *o, struct mmaptrack **out, struct psym_err *e)
{
	struct mmaptrack *t = tracker_new(o, o->maxcpu);
	long page = sysconf(_SC_PAGESIZE);
	int ret = 0;

	if (!t)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (int cpu = 0; cpu < o->maxcpu; cpu++) {
		struct perf_event_attr a = {
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_DUMMY,
			.size = sizeof(a),
			.mmap = 1,
			.mmap2 = 1,
			.comm = 1,
			.comm_exec = 1,
			.task = 1,
			.build_id = 1,
			.sample_id_all = 1,
			.sample_type = PERF_SAMPLE_TIME,
			/* The clock of bpf_ktime_get_ns: exec times meet samples' images. */
			.use_clockid = 1,
			.clockid = CLOCK_MONOTONIC,
			.watermark = 1,
			.wakeup_watermark = (uint32_t)(o->ring_pages * page / 4),
		};
		struct ring *r = &t->rings[t->nrings];

		if (!o->cpus[cpu])
			continue;
		r->fd = (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (r->fd < 0) {
			ret = psym_err_set(e, PSYM_EBPF,
					   "cannot open the mmap-tracking event on CPU %d: %s", cpu,
					   strerror(errno));
			goto fail;
		}
		r->data_size = (size_t)o->ring_pages * (size_t)page;
		r->base = mmap(NULL, r->data_size + (size_t)page, PROT_READ | PROT_WRITE,
			       MAP_SHARED, r->fd, 0);
		if (r->base == MAP_FAILED) {
			ret = psym_err_set(
				e, PSYM_EBPF,
				"cannot map the mmap-tracking ring of CPU %d (%u pages): %s", cpu,
				o->ring_pages, strerror(errno));
			close(r->fd);
			goto fail;
		}
		t->nrings++;
	}
	*out = t;
	return 0;
fail:
	mmaptrack_close(t);
	return ret;
}

static void put_map(const struct mmaptrack *t, struct psym_procmap *o, const struct tmap *m)
{
	o->start = m->start;
	o->limit = m->limit;
	o->offset = m->offset;
	static const char hex[] = "0123456789abcdef";
	const char *path = t->paths[m->path - 1];
	size_t len = strnlen(path, sizeof(o->path) - 1);

	/* No printf here: this runs for every mapping of every process. */
	o->exec = true;
	memcpy(o->path, path, len);
	o->path[len] = '\0';
	for (uint8_t k = 0; k < m->bid_len; k++) {
		o->build_id[2 * k] = hex[m->bid[k] >> 4];
		o->build_id[2 * k + 1] = hex[m->bid[k] & 15];
	}
	o->build_id[2 * m->bid_len] = '\0';
	if (m->goid) {
		const char *g = t->paths[m->goid - 1];
		size_t glen = strnlen(g, sizeof(o->build_id) - 1);

		memcpy(o->build_id, g, glen);
		o->build_id[glen] = '\0';
	}
}

/* One image of a process, current or old, as the lookups see it. */
struct imageview {
	uint32_t gen, exe;
	bool complete;
	uint16_t n;
	const struct tmap *m;
};

/*
 * pid's image that a sample of image (its exec's time, 0: none seen)
 * was taken in: the one of the latest exec recorded at or before that
 * time; the image from before every recorded exec for 0. False when that
 * image is not kept.
 */
static bool image_find(struct mmaptrack *t, int pid, uint64_t image, struct imageview *v)
{
	struct tproc *p = t ? find(t, pid) : NULL;

	if (!p || p->dead)
		return false;
	if (p->exec_time <= image) {
		*v = (struct imageview){ p->gen, p->exe, p->complete, p->n, p->m };
		return true;
	}
	for (int i = p->nold - 1; i >= 0; i--) {
		const struct oldimage *o = &p->old[i];

		if (o->exec_time <= image) {
			if (!o->m)
				return false; /* freed, or it mapped nothing */
			*v = (struct imageview){ o->gen, o->exe, o->complete, o->n, o->m };
			return true;
		}
	}
	return false;
}

int mmaptrack_maps(struct mmaptrack *t, int pid, uint64_t image, struct psym_procmap **maps,
		   size_t *n, bool *complete, char *exe, size_t exesz)
{
	struct psym_procmap *out;
	struct imageview v;

	*maps = NULL;
	*n = 0;
	if (!image_find(t, pid, image, &v))
		return PSYM_NOENT;
	out = calloc((size_t)v.n + 1, sizeof(*out));
	if (!out)
		return PSYM_ENOMEM;
	for (uint16_t i = 0; i < v.n; i++)
		put_map(t, &out[i], &v.m[i]);
	*maps = out;
	*n = v.n;
	*complete = v.complete;
	snprintf(exe, exesz, "%s", v.exe ? t->paths[v.exe - 1] : "");
	return 0;
}

bool mmaptrack_changed(struct mmaptrack *t, int pid, uint64_t image, uint32_t *gen, bool *complete)
{
	struct imageview v;
	bool changed;

	*complete = false;
	if (!image_find(t, pid, image, &v))
		return false;
	changed = v.gen != *gen;
	*gen = v.gen;
	*complete = v.complete;
	return changed;
}

/*
 * The image recorded right after the one image_find gives for image (the
 * exec that ended it) into *v, *time that exec's (as a sample's image),
 * and *complete the keyed image's: false when the keyed image is not kept
 * or is the current one, or when the next exec's time is not known (an
 * exec from before mmaptrack_images_since).
 */
static bool image_after(struct mmaptrack *t, int pid, uint64_t image, struct imageview *v,
			uint64_t *time, bool *complete)
{
	struct tproc *p = t ? find(t, pid) : NULL;
	int i;

	if (!p || p->dead || p->exec_time <= image)
		return false;
	for (i = p->nold - 1; i >= 0 && p->old[i].exec_time > image; i--)
		;
	if (i < 0 || !p->old[i].m)
		return false; /* not kept: freed, or it mapped nothing */
	*complete = p->old[i].complete;
	if (i + 1 < p->nold) {
		const struct oldimage *o = &p->old[i + 1];

		*v = (struct imageview){ o->gen, o->exe, o->complete, o->n, o->m };
		*time = o->exec_time;
	} else {
		*v = (struct imageview){ p->gen, p->exe, p->complete, p->n, p->m };
		*time = p->exec_time;
	}
	return *time > image;
}

static bool view_holds(const struct imageview *v, uint64_t addr)
{
	for (uint16_t i = 0; i < v->n; i++)
		if (v->m[i].start <= addr && addr < v->m[i].limit)
			return true;
	return false;
}

int mmaptrack_next_image(struct mmaptrack *t, int pid, uint64_t image, uint64_t addr,
			 uint64_t *next, bool *complete)
{
	struct imageview v;
	uint64_t time;

	if (!image_after(t, pid, image, &v, &time, complete) || !view_holds(&v, addr))
		return PSYM_NOENT;
	*next = time;
	return 0;
}

bool mmaptrack_holds(struct mmaptrack *t, int pid, uint64_t image, uint64_t addr)
{
	struct imageview v;

	return image_find(t, pid, image, &v) && view_holds(&v, addr);
}

/* Free p's old images left before drain - 1: their samples are all in. */
static void sweep_images(struct mmaptrack *t, struct tproc *p, uint64_t drain)
{
	for (uint8_t i = 0; i < p->nold; i++)
		if (p->old[i].m && p->old[i].left_drain + 1 < drain) {
			free_old(&p->old[i]);
			t->st.images_freed++;
		}
	/* Whole-freed ones at the front go (an image found freed reads as lost). */
	while (p->nold && !p->old[0].m && p->old[0].left_drain + 1 < drain) {
		memmove(&p->old[0], &p->old[1], (size_t)(p->nold - 1) * sizeof(p->old[0]));
		p->nold--;
	}
}

static void free_proc(struct tproc *p)
{
	for (uint8_t i = 0; i < p->nold; i++)
		free_old(&p->old[i]);
	free(p->m);
	free(p);
}

void mmaptrack_sweep(struct mmaptrack *t, uint64_t drain, void (*fn)(void *ud, int pid), void *ud)
{
	struct psym_err e = { 0 };
	size_t w = 0, freed = 0;

	if (!t)
		return;
	for (size_t i = 0; i < t->nall; i++) {
		struct tproc *p = t->all[i];

		if (p->dead || (p->exited && p->exit_drain + 1 < drain))
			freed++;
		else if (p->nold)
			sweep_images(t, p, drain);
	}
	if (!freed)
		return;
	/* Rebuild the table from the survivors first: it borrows their pids. */
	psym_hashtab_free(&t->procs);
	psym_hashtab_init(&t->procs, (size_t)t->max_procs * 2 + 16);
	for (size_t i = 0; i < t->nall; i++) {
		struct tproc *p = t->all[i];

		if (p->dead || (p->exited && p->exit_drain + 1 < drain)) {
			if (!p->dead && fn)
				fn(ud, p->pid);
			free_proc(p);
			t->st.freed++;
			continue;
		}
		psym_hashtab_put(&t->procs, &p->pid, sizeof(p->pid), p, &e);
		t->all[w++] = p;
	}
	t->nall = w;
	t->ndead = 0;
}

void mmaptrack_images_since(struct mmaptrack *t, uint64_t time)
{
	if (t)
		t->images_since = time;
}

void mmaptrack_stats(const struct mmaptrack *t, struct mmaptrack_stats *st)
{
	if (t)
		*st = t->st;
	else
		memset(st, 0, sizeof(*st));
}

void mmaptrack_close(struct mmaptrack *t)
{
	long page = sysconf(_SC_PAGESIZE);

	if (!t)
		return;
	for (int i = 0; i < t->nrings; i++) {
		if (t->rings[i].fd < 0)
			continue; /* the caller's (mmaptrack_open_rings) */
		munmap(t->rings[i].base, t->rings[i].data_size + (size_t)page);
		close(t->rings[i].fd);
	}
	free(t->rings);
	free(t->buf);
	free(t->pend);
	for (size_t i = 0; i < t->nall; i++)
		free_proc(t->all[i]);
	free(t->all);
	psym_hashtab_free(&t->procs);
	for (size_t i = 0; i < t->npaths; i++)
		free(t->paths[i]);
	free(t->paths);
	psym_hashtab_free(&t->path_ix);
	psym_hashtab_free(&t->bids);
	for (size_t i = 0; i < t->nfbid; i++)
		free(t->fbid[i]);
	free(t->fbid);
	free(t);
}
