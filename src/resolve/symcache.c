// SPDX-License-Identifier: MIT
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <libdeflate.h>

#include "buildid.h"
#include "fileio.h"
#include "hashtab.h"
#include "symcache.h"
#include "array.h"
#include "search.h"

#define MAGIC "PSYMSC1\n"
#define CACHE_VERSION PSYM_SYMCACHE_VERSION
#define NO_STR UINT32_MAX
#define MAX_FILE ((uint64_t)1 << 30)
#define MAX_FRAMES_PER_ADDR PSYM_MAX_FRAMES /* frame.h; part of the file format */
#define KEY_MAX 96			    /* a key's bytes in the header, NUL included */

struct hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint64_t n_entries, n_frames, str_size;
	char variant[16];
	char key[KEY_MAX]; /* the object it answers for: build ID or path hash */
	uint32_t crc, pad;
};

struct dent {
	uint64_t vaddr;
	uint32_t first, n;
};

struct dframe {
	uint32_t name, linkage, file;
	uint32_t line, column, start_line; /* DWARF's own are 32-bit at most here */
};

struct add {
	uint64_t vaddr;
	size_t first, n; /* into c->aframes */
};

struct psym_symcache {
	char *path, *dir; /* DIR/vN/KEY.psc, DIR/vN */
	char *root;	  /* DIR */
	char vname[16];	  /* vN */
	char key[KEY_MAX];
	bool untrusted; /* DIR or DIR/vN may not be trusted: never written */
	bool saved;	/* psym_symcache_save ran: nothing more is added */
	char why[320];	/* why the file was ignored, for *note */
	char variant[16];
	/* the file, read into memory and checked */
	void *map;
	size_t map_len, map_cap; /* bytes used, allocated (malloc'd or mapped) */
	bool damaged;		 /* the file was there but could not be used */
	const struct dent *ents;
	const struct dframe *frames;
	const char *strs;
	uint64_t n_ents, n_frames, str_size;
	/* answers added by this run */
	struct add *adds;
	size_t n_adds, cap_adds;
	struct psym_frame *aframes;
	size_t n_aframes, cap_aframes;
	struct psym_idxset add_idx; /* adds by vaddr */
	struct psym_frame scratch[MAX_FRAMES_PER_ADDR];
	size_t hits, misses;
};

int psym_symcache_key(const char *build_id, const char *path, char *key, size_t keysz)
{
	struct stat st;
	uint64_t h = PSYM_FNV1A_INIT;

	if (build_id && psym_build_id_canonical(build_id)) {
		snprintf(key, keysz, "%s", build_id);
		return 0;
	}
	if (!path || stat(path, &st) != 0)
		return PSYM_NOENT;
	/* Plain FNV-1a: the key names cache files, so it must never change. */
	h = psym_fnv1a(path, strlen(path), h);
	h = psym_fnv1a(&st.st_size, sizeof(st.st_size), h);
	h = psym_fnv1a(&st.st_mtim, sizeof(st.st_mtim), h);
	h = psym_fnv1a(&st.st_ino, sizeof(st.st_ino), h);
	snprintf(key, keysz, "f-%016llx", (unsigned long long)h);
	return 0;
}

/*
 * Check the whole file image; false (and why) when it cannot be trusted.
 * *benign: it is a sound file of another version or of other options.
 */
static bool check_file(struct psym_symcache *c, const char **why, bool *benign)
{
	const struct hdr *h = c->map;
	const unsigned char *body;
	uint64_t need;

	*why = "truncated";
	if (c->map_len < sizeof(*h))
		return false;
	*why = "not a psym cache file";
	if (memcmp(h->magic, MAGIC, 8) != 0)
		return false;
	*why = "another cache version";
	*benign = true;
	if (h->version != CACHE_VERSION || h->hdr_size != sizeof(*h))
		return false;
	*why = "written with other options";
	if (memcmp(h->variant, c->variant, sizeof(h->variant)) != 0)
		return false;
	*benign = false;
	/* A file copied or planted under another object's name. */
	if (memcmp(h->key, c->key, sizeof(h->key)) != 0) {
		snprintf(c->why, sizeof(c->why), "written for another object (%.*s), not %s",
			 (int)strnlen(h->key, sizeof(h->key)), h->key, c->key);
		*why = c->why;
		return false;
	}
	*why = "truncated or corrupt (sizes)";
	if (h->n_entries > MAX_FILE / sizeof(struct dent) ||
	    h->n_frames > MAX_FILE / sizeof(struct dframe) || h->str_size > MAX_FILE)
		return false;
	need = sizeof(*h) + h->n_entries * sizeof(struct dent) +
	       h->n_frames * sizeof(struct dframe) + h->str_size;
	if (need != c->map_len)
		return false;
	body = (const unsigned char *)c->map + sizeof(*h);
	*why = "corrupt (checksum)";
	{
		/* libdeflate's CRC-32 (the same checksum as zlib's) runs several times faster. */
		uint32_t crc = libdeflate_crc32(0, body, c->map_len - sizeof(*h));

#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
		/* (A fuzzer cannot forge checksums: it skips this to reach the checks below.) */
		if (crc != h->crc)
			return false;
#endif
	}
	c->ents = (const struct dent *)(const void *)body;
	c->frames =
		(const struct dframe *)(const void *)(body + h->n_entries * sizeof(struct dent));
	c->strs = (const char *)(body + h->n_entries * sizeof(struct dent) +
				 h->n_frames * sizeof(struct dframe));
	c->n_ents = h->n_entries;
	c->n_frames = h->n_frames;
	c->str_size = h->str_size;
	*why = "corrupt (contents)";
	if (c->str_size && c->strs[c->str_size - 1] != '\0')
		return false;
	/* Entries by address, their frames one after another, all of them used. */
	{
		uint64_t next = 0;

		for (uint64_t i = 0; i < c->n_ents; i++) {
			const struct dent *d = &c->ents[i];

			if ((i && d->vaddr <= c->ents[i - 1].vaddr) || d->n > MAX_FRAMES_PER_ADDR ||
			    d->first != next)
				return false;
			next += d->n;
		}
		if (next != c->n_frames)
			return false;
	}
	for (uint64_t i = 0; i < c->n_frames; i++) {
		const struct dframe *f = &c->frames[i];

		if (f->name == NO_STR || f->name >= c->str_size ||
		    (f->linkage != NO_STR && f->linkage >= c->str_size) ||
		    (f->file != NO_STR && f->file >= c->str_size))
			return false;
	}
	return true;
}

/* Below this, the image is malloc'd; above, anonymous memory populated at once. */
#define POPULATE_MIN ((size_t)1 << 20)

/*
 * Read the file whole into memory (at most MAX_FILE bytes). Not a file
 * mapping: the file can be truncated or rewritten in place under a live
 * mapping, and then a lookup would die of SIGBUS or follow offsets that were
 * never checked (a SIGBUS handler would catch the first, not the second, and
 * is process-wide state a library must not take). A private copy is checked
 * once and stays as checked. The CRC check reads every byte anyway; the copy
 * adds the kernel's memcpy from the page cache and the page faults of fresh
 * memory, which MAP_POPULATE takes in one call (bench: see the commit).
 */
static const char *read_image(struct psym_symcache *c, int fd, size_t size)
{
	size_t got = 0;

	c->map_cap = size + 1;
	if (c->map_cap < POPULATE_MIN) {
		c->map = malloc(c->map_cap);
	} else {
		c->map = mmap(NULL, c->map_cap, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (c->map == MAP_FAILED)
			c->map = NULL;
	}
	if (!c->map)
		return "too large to read";
	/* One byte more than stat said: a file that grows meanwhile is caught. */
	while (got < size + 1) {
		ssize_t n = read(fd, (char *)c->map + got, size + 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return "unreadable";
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got != size)
		return "changed while being read";
	c->map_len = size;
	return NULL;
}

static void free_image(struct psym_symcache *c)
{
	if (c->map && c->map_cap < POPULATE_MIN)
		free(c->map);
	else if (c->map)
		munmap(c->map, c->map_cap);
	c->map = NULL;
	c->map_len = c->map_cap = 0;
}

/*
 * The cache's directories, checked (psym_stat_trusted): DIR, a symbolic
 * link there followed once (the user may have pointed --cache at one),
 * then DIR/vN, never a symbolic link (one planted there would send a root
 * run's files elsewhere). Returns the fd of DIR/vN, or -ENOENT when a
 * level is missing, or another negative errno with c->why set and
 * c->untrusted (nothing is read from or written there).
 */
static int open_dirs(struct psym_symcache *c)
{
	char why[256];
	int root, v;

	root = psym_trusted_dir_open(AT_FDCWD, c->root, true, why, sizeof(why));
	if (root == -ENOENT)
		return root;
	if (root < 0) {
		c->untrusted = true;
		snprintf(c->why, sizeof(c->why), "not trusted: %s", why);
		return root;
	}
	v = psym_trusted_dir_open(root, c->vname, false, why, sizeof(why));
	close(root);
	if (v >= 0 || v == -ENOENT)
		return v;
	c->untrusted = true;
	snprintf(c->why, sizeof(c->why), "not trusted: %s in '%s'", why, c->root);
	return v;
}

/* The cache file, opened through its checked directory; -1 when absent or refused (*why). */
static int open_file(struct psym_symcache *c, const char **why)
{
	int dfd = open_dirs(c), fd;

	*why = NULL;
	if (dfd < 0) {
		if (c->untrusted)
			*why = c->why;
		return -1;
	}
	fd = openat(dfd, strrchr(c->path, '/') + 1, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0 && errno == ELOOP)
		*why = "a symbolic link";
	close(dfd);
	return fd;
}

int psym_symcache_open(const char *dir, const char *key, const char *variant,
		       struct psym_symcache **out, const char **note, struct psym_err *e)
{
	struct psym_symcache *c = calloc(1, sizeof(*c));
	const char *why = NULL;
	bool benign = false;
	struct stat st;
	int fd;

	if (note)
		*note = NULL;
	if (!c || asprintf(&c->dir, "%s/v%d", dir, CACHE_VERSION) < 0 ||
	    asprintf(&c->path, "%s/%s.psc", c->dir, key) < 0 || !(c->root = strdup(dir))) {
		if (c) {
			free(c->dir);
			free(c->path);
		}
		free(c);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	snprintf(c->vname, sizeof(c->vname), "v%d", CACHE_VERSION);
	strncpy(c->variant, variant, sizeof(c->variant) - 1);
	psym_idxset_init(&c->add_idx);
	*out = c;
	if (strlen(key) >= sizeof(c->key) || strchr(key, '/')) {
		c->untrusted = true; /* no file for it, read or written */
		return 0;
	}
	memcpy(c->key, key, strlen(key));
	fd = open_file(c, &why);
	if (fd < 0) {
		if (why) {
			c->damaged = true;
			if (note)
				*note = why;
		}
		return 0;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > MAX_FILE)
		why = "not a usable cache file";
	else if (!psym_stat_trusted(&st, c->why, sizeof(c->why)))
		why = c->why; /* planted by another user, or others could have */
	else
		why = read_image(c, fd, (size_t)st.st_size);
	close(fd);
	if (!why && check_file(c, &why, &benign))
		return 0;
	free_image(c);
	c->ents = NULL;
	c->frames = NULL;
	c->strs = NULL;
	c->n_ents = c->n_frames = c->str_size = 0;
	c->damaged = !benign;
	if (note)
		*note = why;
	return 0;
}

bool psym_symcache_damaged(const struct psym_symcache *c)
{
	return c && c->damaged;
}

const char *psym_symcache_path(const struct psym_symcache *c)
{
	return c ? c->path : NULL;
}

/*
 * Addresses come from the profile: hashed with the set's seed, as
 * addresses sharing their low bits must not share a probe chain.
 */
static uint64_t add_hash(const struct psym_symcache *c, uint64_t vaddr)
{
	return psym_idxset_hash_u64s(&c->add_idx, &vaddr, 1);
}

static uint64_t add_hash_at(void *ctx, uint32_t i)
{
	struct psym_symcache *c = ctx;

	return add_hash(c, c->adds[i].vaddr);
}

static const struct add *find_add(const struct psym_symcache *c, uint64_t vaddr)
{
	PSYM_IDXSET_PROBE(&c->add_idx, add_hash(c, vaddr), j)
	if (c->adds[c->add_idx.slot[j] - 1].vaddr == vaddr)
		return &c->adds[c->add_idx.slot[j] - 1];
	return NULL;
}

/* Position of vaddr among the file's entries, n_ents when absent. */
static size_t find_ent(const struct psym_symcache *c, uint64_t vaddr)
{
	size_t lo = PSYM_LOWER_BOUND(0, c->n_ents, i, c->ents[i].vaddr >= vaddr);

	return lo < c->n_ents && c->ents[lo].vaddr == vaddr ? lo : c->n_ents;
}

bool psym_symcache_has(const struct psym_symcache *c, uint64_t vaddr)
{
	return find_ent(c, vaddr) < c->n_ents || find_add(c, vaddr);
}

int psym_symcache_lookup(struct psym_symcache *c, uint64_t vaddr, const struct psym_frame **frames,
			 size_t *n)
{
	size_t lo = find_ent(c, vaddr);
	const struct add *a;

	if (lo < c->n_ents) {
		const struct dent *d = &c->ents[lo];

		for (uint32_t i = 0; i < d->n; i++) {
			const struct dframe *f = &c->frames[d->first + i];

			c->scratch[i] = (struct psym_frame){
				.name = c->strs + f->name,
				.linkage_name = f->linkage == NO_STR ? NULL : c->strs + f->linkage,
				.file = f->file == NO_STR ? NULL : c->strs + f->file,
				.line = f->line,
				.column = f->column,
				.start_line = f->start_line,
			};
		}
		*frames = c->scratch;
		*n = d->n;
		c->hits++;
		return 1;
	}
	a = find_add(c, vaddr);
	if (a) {
		*frames = c->aframes + a->first;
		*n = a->n;
		c->hits++;
		return 1;
	}
	c->misses++;
	return 0;
}

int psym_symcache_add(struct psym_symcache *c, uint64_t vaddr, const struct psym_frame *frames,
		      size_t n)
{
	struct add *a, *na;
	struct psym_frame *nf;

	if (n > MAX_FRAMES_PER_ADDR || c->saved || find_add(c, vaddr))
		return 0;
	if (c->n_adds >= UINT32_MAX - 1)
		return PSYM_ELIMIT;
	na = psym_array_grow(c->adds, &c->cap_adds, c->n_adds + 1, sizeof(*na), 0);
	if (!na)
		return PSYM_ENOMEM;
	c->adds = na;
	if (n) {
		nf = psym_array_grow(c->aframes, &c->cap_aframes, c->n_aframes + n, sizeof(*nf), 0);
		if (!nf)
			return PSYM_ENOMEM;
		c->aframes = nf;
	}
	/* Strings are borrowed: the caller keeps them alive until close. */
	if (n) /* "no frames" answers are cached too: then aframes may still be NULL */
		memcpy(&c->aframes[c->n_aframes], frames, n * sizeof(*frames));
	a = &c->adds[c->n_adds++];
	a->vaddr = vaddr;
	a->first = c->n_aframes;
	a->n = n;
	c->n_aframes += n;
	if (psym_idxset_add(&c->add_idx, (uint32_t)(c->n_adds - 1), add_hash(c, vaddr), add_hash_at,
			    c)) {
		c->n_adds--; /* not findable: not kept */
		c->n_aframes -= n;
		return PSYM_ENOMEM;
	}
	return 0;
}

void psym_symcache_stats(const struct psym_symcache *c, size_t *hits, size_t *misses)
{
	*hits = c ? c->hits : 0;
	*misses = c ? c->misses : 0;
}

/* ---- writing ------------------------------------------------------------------ */

struct writer {
	struct dent *ents;
	struct dframe *frames;
	char *strs;
	size_t n_ents, n_frames, str_size, str_cap;
	struct psym_idxset shash; /* string offsets by their text */
	struct pslot {
		const char *p;
		uint32_t off;
	} * phash; /* by address: resolvers hand out one pointer per string */
	size_t n_phash;
	bool oom;
};

static uint32_t put_str_text(struct writer *w, const char *s);

/* Offset of s in the string table, adding it once; by address first. */
static uint32_t put_str(struct writer *w, const char *s)
{
	size_t i;

	if (!s)
		return NO_STR;
	for (i = (size_t)(((uintptr_t)s * 0x9e3779b97f4a7c15ULL) >> 20) & (w->n_phash - 1);
	     w->phash[i].p; i = (i + 1) & (w->n_phash - 1))
		if (w->phash[i].p == s)
			return w->phash[i].off;
	w->phash[i].p = s;
	w->phash[i].off = put_str_text(w, s);
	return w->phash[i].off;
}

static uint64_t str_hash_at(void *ctx, uint32_t off)
{
	struct writer *w = ctx;
	const char *s = w->strs + off;

	return psym_idxset_hash_bytes(&w->shash, s, strlen(s));
}

static uint32_t put_str_text(struct writer *w, const char *s)
{
	size_t len = strlen(s);
	uint64_t h = psym_idxset_hash_bytes(&w->shash, s, len);
	uint32_t off;

	PSYM_IDXSET_PROBE(&w->shash, h, j)
	if (strcmp(w->strs + w->shash.slot[j] - 1, s) == 0)
		return w->shash.slot[j] - 1;
	if (w->str_size + len + 1 > w->str_cap) {
		size_t ncap = (w->str_cap + len + 1) * 2;
		char *ns = ncap > MAX_FILE ? NULL : realloc(w->strs, ncap);

		if (!ns) {
			w->oom = true;
			return NO_STR;
		}
		w->strs = ns;
		w->str_cap = ncap;
	}
	memcpy(w->strs + w->str_size, s, len + 1);
	off = (uint32_t)w->str_size;
	if (psym_idxset_add(&w->shash, off, h, str_hash_at, w)) {
		w->oom = true;
		return NO_STR;
	}
	w->str_size += len + 1;
	return off;
}

static uint32_t clamp32(int64_t v)
{
	return v < 0 || v > UINT32_MAX ? 0 : (uint32_t)v;
}

static void put_entry(struct writer *w, uint64_t vaddr, const struct psym_frame *fr, size_t n)
{
	w->ents[w->n_ents++] = (struct dent){ vaddr, (uint32_t)w->n_frames, (uint32_t)n };
	for (size_t i = 0; i < n; i++) {
		struct dframe *d = &w->frames[w->n_frames++];

		d->name = put_str(w, fr[i].name ? fr[i].name : "");
		d->linkage = put_str(w, fr[i].linkage_name);
		d->file = put_str(w, fr[i].file);
		d->line = clamp32(fr[i].line);
		d->column = clamp32(fr[i].column);
		d->start_line = clamp32(fr[i].start_line);
	}
}

static int cmp_add(const void *a, const void *b)
{
	const struct add *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n) {
		ssize_t k = write(fd, s, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

/*
 * DIR/vN made as needed (mode 0700) and opened through open_dirs' checks:
 * an fd, or -EPERM when not trusted, or another negative code (e set).
 */
static int make_dirs(struct psym_symcache *c, struct psym_err *e)
{
	int dfd = open_dirs(c);

	if (dfd == -ENOENT) {
		char *slash = strrchr(c->root, '/');

		/* DIR itself may be missing: one level up, then DIR, then vN. */
		if (mkdir(c->root, 0700) != 0 && errno == ENOENT && slash && slash != c->root) {
			*slash = '\0';
			(void)mkdir(c->root, 0700);
			*slash = '/';
			(void)mkdir(c->root, 0700);
		}
		(void)mkdir(c->dir, 0700);
		dfd = open_dirs(c);
	}
	if (dfd >= 0 || c->untrusted)
		return dfd >= 0 ? dfd : -EPERM;
	psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", c->dir, strerror(-dfd));
	return dfd;
}

/*
 * A new temporary KEY.psc.tmp.PID.XXXXXX in dfd, made exclusively (never
 * through a link planted under that name); *name malloc'd.
 */
static int make_tmp(int dfd, const char *base, char **name)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	for (unsigned i = 0; i < 100; i++) {
		unsigned r = (unsigned)(ts.tv_nsec ^ (ts.tv_sec << 20)) * 2654435761u + i * 40503u;
		int fd;

		if (asprintf(name, "%s.tmp.%ld.%06x", base, (long)getpid(), r & 0xffffff) < 0) {
			*name = NULL;
			errno = ENOMEM;
			return -1;
		}
		fd = openat(dfd, *name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			return fd;
		free(*name);
		*name = NULL;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

static int write_file(struct psym_symcache *c, struct psym_err *e)
{
	struct writer w = { 0 };
	size_t total_frames = c->n_frames + c->n_aframes, total_ents = c->n_ents + c->n_adds;
	size_t ia = 0;
	const char *base = strrchr(c->path, '/') + 1; /* c->path is DIR/vN/KEY.psc */
	struct hdr h = { 0 };
	char *tmp = NULL;
	int fd = -1, dfd = -1, ret = 0;
	uint32_t crc;

	qsort(c->adds, c->n_adds, sizeof(*c->adds), cmp_add);
	w.ents = malloc((total_ents + 1) * sizeof(*w.ents));
	w.frames = malloc((total_frames + 1) * sizeof(*w.frames));
	psym_idxset_init(&w.shash);
	w.n_phash = 1024;
	while (w.n_phash < total_frames * 4 + 16)
		w.n_phash *= 2;
	w.phash = calloc(w.n_phash, sizeof(*w.phash));
	if (!w.ents || !w.frames || !w.phash ||
	    psym_idxset_reserve(&w.shash, total_frames * 2 + 16, str_hash_at, &w)) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	/* Merge the file's entries with this run's, by address. */
	for (size_t io = 0; io <= c->n_ents; io++) {
		uint64_t ov = io < c->n_ents ? c->ents[io].vaddr : UINT64_MAX;

		for (; ia < c->n_adds && (c->adds[ia].vaddr < ov || io == c->n_ents); ia++)
			put_entry(&w, c->adds[ia].vaddr, c->aframes + c->adds[ia].first,
				  c->adds[ia].n);
		if (ia < c->n_adds && c->adds[ia].vaddr == ov)
			ia++; /* already in the file */
		if (io < c->n_ents) {
			const struct dent *d = &c->ents[io];
			const struct psym_frame *fr;
			size_t n;

			/* Re-read through lookup's decoding (scratch) to re-intern. */
			psym_symcache_lookup(c, d->vaddr, &fr, &n);
			put_entry(&w, d->vaddr, fr, n);
		}
	}
	if (w.oom) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	memcpy(h.magic, MAGIC, 8);
	h.version = CACHE_VERSION;
	h.hdr_size = sizeof(h);
	h.n_entries = w.n_ents;
	h.n_frames = w.n_frames;
	h.str_size = w.str_size;
	memcpy(h.variant, c->variant, sizeof(h.variant));
	memcpy(h.key, c->key, sizeof(h.key));
	crc = libdeflate_crc32(0, w.ents, w.n_ents * sizeof(*w.ents));
	crc = libdeflate_crc32(crc, w.frames, w.n_frames * sizeof(*w.frames));
	crc = libdeflate_crc32(crc, w.strs, w.str_size);
	h.crc = crc;
	dfd = make_dirs(c, e);
	if (dfd < 0) {
		ret = dfd == -EPERM ? 0 : PSYM_EIO; /* not trusted: said at open */
		goto out;
	}
	{
		/* Temporaries of writers killed before their rename: KEY.psc.tmp.PID.X */
		char prefix[256];

		if (snprintf(prefix, sizeof(prefix), "%s.tmp.", base) < (int)sizeof(prefix))
			psym_remove_stale_tmps(c->dir, prefix, '.');
	}
	fd = make_tmp(dfd, base, &tmp);
	if (fd < 0) {
		ret = psym_err_set(e, PSYM_EIO, "cannot create a temporary in '%s': %s", c->dir,
				   strerror(errno));
		goto out;
	}
	if (write_all(fd, &h, sizeof(h)) || write_all(fd, w.ents, w.n_ents * sizeof(*w.ents)) ||
	    write_all(fd, w.frames, w.n_frames * sizeof(*w.frames)) ||
	    write_all(fd, w.strs, w.str_size) || fsync(fd) != 0 || close(fd) != 0) {
		fd = -1;
		ret = psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, base) != 0) {
		ret = psym_err_set(e, PSYM_EIO, "cannot rename '%s/%s': %s", c->dir, tmp,
				   strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
out:
	if (fd >= 0)
		close(fd);
	if (tmp)
		unlinkat(dfd, tmp, 0);
	free(tmp);
	if (dfd >= 0)
		close(dfd);
	free(w.ents);
	free(w.frames);
	free(w.strs);
	psym_idxset_free(&w.shash);
	free(w.phash);
	return ret;
}

int psym_symcache_save(struct psym_symcache *c, struct psym_err *e)
{
	int ret = 0;

	if (!c || c->saved)
		return 0;
	c->saved = true;
	if (!c->n_adds)
		return 0;
	if (!c->untrusted)
		ret = write_file(c, e); /* sorts the adds: their index no longer holds */
	c->n_adds = c->n_aframes = 0;
	psym_idxset_free(&c->add_idx);
	psym_idxset_init(&c->add_idx);
	return ret;
}

void psym_symcache_close(struct psym_symcache *c)
{
	if (!c)
		return;
	free_image(c);
	free(c->adds);
	free(c->aframes);
	psym_idxset_free(&c->add_idx);
	free(c->path);
	free(c->dir);
	free(c->root);
	free(c);
}
