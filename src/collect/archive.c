/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "archive.h"
#include "buildid.h"
#include "dwarfsym.h"
#include "elffile.h"
#include "fileio.h"
#include "hashtab.h"
#include "locate.h"
#include "mapping.h"

#define PIDS_PER_MAPPING 4 /* running processes tried per mapping */
#define MAX_MAPPINGS (1 << 20)

/* ---- the tar.zst stream ---------------------------------------------------- */

struct tarz {
	FILE *fp;
	const char *name; /* for messages */
	ZSTD_CStream *zs;
	unsigned char out[1 << 16];
	uint64_t written; /* compressed bytes */
	struct psym_err *e;
};

static int tz_emit(struct tarz *t, const void *buf, size_t len, ZSTD_EndDirective end)
{
	ZSTD_inBuffer in = { buf, len, 0 };

	for (;;) {
		ZSTD_outBuffer out = { t->out, sizeof(t->out), 0 };
		size_t left = ZSTD_compressStream2(t->zs, &out, &in, end);

		if (ZSTD_isError(left))
			return psym_err_set(t->e, PSYM_EINTERNAL, "'%s': zstd: %s", t->name,
					    ZSTD_getErrorName(left));
		if (out.pos && fwrite(t->out, 1, out.pos, t->fp) != out.pos)
			return psym_err_set(t->e, PSYM_EIO, "cannot write '%s': %s", t->name,
					    strerror(errno));
		t->written += out.pos;
		if (end == ZSTD_e_end ? left == 0 : in.pos == in.size)
			return 0;
	}
}

/* Octal into a ustar field of n bytes (n - 1 digits and a NUL); false if too big. */
static bool octal(char *f, size_t n, uint64_t v)
{
	f[n - 1] = '\0';
	for (size_t i = n - 1; i-- > 0;) {
		f[i] = (char)('0' + (v & 7));
		v >>= 3;
	}
	return v == 0;
}

/* One pax record "LEN key=value\n" appended to buf at *len (LEN counts itself). */
static bool pax_record(char *buf, size_t cap, size_t *len, const char *key, const char *val)
{
	size_t body = 1 + strlen(key) + 1 + strlen(val) + 1; /* " key=value\n" */
	size_t digits = 1, total;

	while ((total = body + digits), snprintf(NULL, 0, "%zu", total) > (int)digits)
		digits++;
	if (*len + total + 1 > cap)
		return false;
	snprintf(buf + *len, cap - *len, "%zu %s=%s\n", total, key, val);
	*len += total;
	return true;
}

/* Split path into ustar's prefix (<= 155) and name (<= 100); false when it cannot be. */
static bool ustar_split(const char *path, char name[101], char prefix[156])
{
	size_t len = strlen(path);

	prefix[0] = '\0';
	if (len <= 100) {
		memcpy(name, path, len + 1);
		return true;
	}
	for (size_t i = len; i-- > 0;) {
		if (path[i] != '/' || len - i - 1 > 100 || len - i - 1 == 0)
			continue;
		if (i > 155)
			return false;
		memcpy(prefix, path, i);
		prefix[i] = '\0';
		memcpy(name, path + i + 1, len - i);
		return true;
	}
	return false;
}

static int tz_block(struct tarz *t, const unsigned char h[512])
{
	return tz_emit(t, h, 512, ZSTD_e_continue);
}

/* A ustar header block (type '0', '1' or 'x'), its checksum filled. */
static void ustar_header(unsigned char h[512], const char *name, const char *prefix, char type,
			 uint64_t size, unsigned mode, int64_t mtime, const char *link)
{
	unsigned sum = 0;

	memset(h, 0, 512);
	memcpy(h, name, strlen(name));
	octal((char *)h + 100, 8, mode);
	octal((char *)h + 108, 8, 0);
	octal((char *)h + 116, 8, 0);
	octal((char *)h + 124, 12, size);
	octal((char *)h + 136, 12, mtime > 0 ? (uint64_t)mtime : 0);
	h[156] = (unsigned char)type;
	if (link)
		memcpy(h + 157, link, strlen(link) < 100 ? strlen(link) : 100);
	memcpy(h + 257, "ustar", 6); /* magic "ustar\0", version "00" */
	memcpy(h + 263, "00", 2);
	memcpy(h + 265, "root", 4);
	memcpy(h + 297, "root", 4);
	memcpy(h + 345, prefix, strlen(prefix));
	memset(h + 148, ' ', 8);
	for (int i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum & 0777777);
	h[155] = ' ';
}

/*
 * The header(s) of one entry: a pax 'x' header first when the path, the
 * link name or the size does not fit ustar's fields.
 */
static int tz_header(struct tarz *t, const char *path, char type, uint64_t size, unsigned mode,
		     int64_t mtime, const char *link)
{
	unsigned char h[512];
	char name[101], prefix[156], pax[3 * 512], num[32];
	size_t plen = 0;
	bool split = ustar_split(path, name, prefix);

	if (!split) {
		snprintf(name, sizeof(name), "%.99s", path);
		prefix[0] = '\0';
		if (!pax_record(pax, sizeof(pax), &plen, "path", path))
			return psym_err_set(t->e, PSYM_ELIMIT,
					    "'%s': name too long for the archive", path);
	}
	if (link && strlen(link) > 99 && !pax_record(pax, sizeof(pax), &plen, "linkpath", link))
		return psym_err_set(t->e, PSYM_ELIMIT, "'%s': link name too long", link);
	if (size >= (uint64_t)1 << 33) { /* over 11 octal digits */
		snprintf(num, sizeof(num), "%" PRIu64, size);
		if (!pax_record(pax, sizeof(pax), &plen, "size", num))
			return psym_err_set(t->e, PSYM_EINTERNAL, "pax header overflow");
	}
	if (plen) {
		size_t blocks = (plen + 511) / 512;
		int ret;

		ustar_header(h, "././@PaxHeader", "", 'x', plen, 0644, mtime, NULL);
		ret = tz_block(t, h);
		memset(pax + plen, 0, blocks * 512 - plen);
		if (!ret)
			ret = tz_emit(t, pax, blocks * 512, ZSTD_e_continue);
		if (ret)
			return ret;
	}
	ustar_header(h, name, prefix, type, size >= (uint64_t)1 << 33 ? 0 : size, mode, mtime,
		     link);
	return tz_block(t, h);
}

/* A regular file's entry: header, exactly size bytes of fd, padding. */
static int tz_file(struct tarz *t, const char *path, int fd, const char *src, uint64_t size,
		   unsigned mode, int64_t mtime)
{
	static const unsigned char zero[512];
	unsigned char buf[1 << 16];
	uint64_t done = 0;
	int ret = tz_header(t, path, '0', size, mode, mtime, NULL);

	while (!ret && done < size) {
		size_t want = size - done < sizeof(buf) ? (size_t)(size - done) : sizeof(buf);
		ssize_t n = pread(fd, buf, want, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return psym_err_set(t->e, PSYM_EIO, "cannot read '%s': %s", src,
					    n < 0 ? strerror(errno)
						  : "the file shrank while packed");
		ret = tz_emit(t, buf, (size_t)n, ZSTD_e_continue);
		done += (uint64_t)n;
	}
	if (!ret && size % 512)
		ret = tz_emit(t, zero, 512 - size % 512, ZSTD_e_continue);
	return ret;
}

/* ---- finding the files ------------------------------------------------------ */

struct mapinfo {
	int pids[PIDS_PER_MAPPING];
	int npids;
};

struct packer {
	const struct psym_profile *p;
	const struct psym_archive_opts *o;
	const char *const *ddirs;
	size_t nddirs;
	uint64_t max;
	struct tarz t;
	struct psym_hashtab done;    /* build IDs packed, and ID.debug for debug files */
	struct psym_hashtab tried;   /* ID + NUL + path of a pid-less mapping not found */
	struct psym_hashtab missing; /* build IDs not found yet: their first mapping */
	size_t *miss;		     /* positions of those first mappings, in order */
	size_t nmiss;
	char **keys; /* the tables' keys, owned */
	size_t nkeys;
	struct psym_archive_stats st;
	struct psym_err *e;
};

static void event(const struct packer *k, const struct psym_archive_event *ev)
{
	if (k->o->event)
		k->o->event(k->o->event_ud, ev);
}

void psym_archive_event_text(const struct psym_archive_event *ev, char *buf, size_t bufsz)
{
	switch (ev->kind) {
	case PSYM_ARCHIVE_PACKED:
		snprintf(buf, bufsz, "archive: %s <- %s (%" PRIu64 " bytes)", ev->member, ev->src,
			 ev->size);
		break;
	case PSYM_ARCHIVE_NO_BUILD_ID:
		snprintf(buf, bufsz, "archive: mapping %" PRIu64 " '%s': no build ID, not packed",
			 ev->mapping_id, ev->path);
		break;
	case PSYM_ARCHIVE_EXCLUDED:
		snprintf(buf, bufsz, "archive: mapping %" PRIu64 " '%s': excluded", ev->mapping_id,
			 ev->path);
		break;
	case PSYM_ARCHIVE_MISSING:
		snprintf(buf, bufsz,
			 "archive: mapping %" PRIu64
			 " '%s': no file with build ID %s on this host (not packed)",
			 ev->mapping_id, ev->path, ev->build_id);
		break;
	default: snprintf(buf, bufsz, "archive: ?"); break;
	}
}

void psym_archive_print_event(void *ud, const struct psym_archive_event *ev)
{
	const struct psym_archive_printer *pr = ud;
	char line[8400];

	if (ev->kind != PSYM_ARCHIVE_MISSING && !pr->verbose)
		return;
	psym_archive_event_text(ev, line, sizeof(line));
	fprintf(pr->out, "psym: %s\n", line);
}

/*
 * Record key (len bytes, copied) in h with value v. 0 or -1 (out of
 * memory, or the table's cap).
 */
static int remember(struct packer *k, struct psym_hashtab *h, const char *key, size_t len, void *v)
{
	struct psym_err e = { 0 };
	char *copy = malloc(len + 1), **nk;

	if (!copy)
		return -1;
	if (!(k->nkeys & (k->nkeys - 1))) { /* 0, 1, 2, 4...: double */
		nk = realloc(k->keys, (k->nkeys ? 2 * k->nkeys : 1) * sizeof(*nk));
		if (!nk) {
			free(copy);
			return -1;
		}
		k->keys = nk;
	}
	memcpy(copy, key, len);
	copy[len] = '\0';
	if (psym_hashtab_put(h, copy, len, v, &e)) {
		free(copy);
		return -1;
	}
	k->keys[k->nkeys++] = copy;
	return 0;
}

/* Is key (a build ID, or ID.debug) packed already? */
static bool packed(const struct packer *k, const char *key)
{
	void *v;

	return psym_hashtab_get(&k->done, key, strlen(key), &v) == 0;
}

/*
 * Open path when it is a regular ELF file with build ID id (GNU, or a Go
 * build ID in the "go:" form for a file without a GNU one): the fd (>= 0)
 * and its stat, or -1.
 */
static int open_verified(const char *path, const char *id, struct stat *st)
{
	char got[PSYM_BUILD_ID_HEX_MAX];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) ||
	    psym_elf_fd_mapping_build_id(fd, path, got, NULL) != 0 ||
	    !psym_build_id_equal(got, id)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Pack fd as member name (the cap checked first). */
static int pack(struct packer *k, const char *name, int fd, const char *src, const struct stat *st)
{
	uint64_t size = (uint64_t)st->st_size;

	if (size > k->max - k->st.bytes_in)
		return psym_err_set(
			k->e, PSYM_ELIMIT,
			"'%s': the archive's files would exceed its size cap of %" PRIu64
			" bytes at '%s' (%" PRIu64 " bytes); raise --max-size or "
			"leave paths out with --exclude-path",
			k->t.name, k->max, src, size);
	k->st.bytes_in += size;
	event(k, &(struct psym_archive_event){
			 .kind = PSYM_ARCHIVE_PACKED, .member = name, .src = src, .size = size });
	return tz_file(&k->t, name, fd, src, size, (st->st_mode & 0111) ? 0755 : 0644,
		       (int64_t)st->st_mtim.tv_sec);
}

/*
 * The name a binary is packed under in the .build-id tree: its GNU build
 * ID in lowercase (id lowered too), or the key of a Go build ID
 * (psym_go_build_id_key), which --debug-pkg's reader asks for a mapping
 * with that Go build ID, and which only names the member: the file found
 * there is checked by its Go build ID.
 */
static void tree_key(char *id, char key[PSYM_BUILD_ID_HEX_MAX])
{
	if (psym_build_id_is_go(id)) {
		psym_go_build_id_key(id, key);
		return;
	}
	psym_build_id_lower(id);
	snprintf(key, PSYM_BUILD_ID_HEX_MAX, "%s", id);
}

/* .build-id/NN/REST + suffix for a (lowercase) build ID. */
static void tree_name(char *buf, size_t n, const char *id, const char *suffix)
{
	snprintf(buf, n, ".build-id/%.2s/%s%s", id, id + 2, suffix);
}

/*
 * The build ID of the alternate file (dwz: .gnu_debugaltlink) or the
 * supplementary file (DWARF 5: .debug_sup) a debug file names, or "": read
 * by the DWARF reader's one parser of both.
 */
static void alt_build_id(const char *path, char out[PSYM_BUILD_ID_HEX_MAX])
{
	struct psym_elf *elf = NULL;
	struct psym_err e = { 0 };
	char alt[PATH_MAX];

	out[0] = '\0';
	if (psym_elf_open(path, NULL, &elf, &e) != 0)
		return;
	if (psym_dwarf_altlink(elf, alt, sizeof(alt), out, PSYM_BUILD_ID_HEX_MAX, &e) != 0)
		out[0] = '\0';
	psym_elf_close(elf);
}

/*
 * The separate debug file of build ID id (and its dwz alternate file),
 * from the debug dirs and the processes' own /usr/lib/debug. 0 when
 * packed or not found.
 */
static int pack_debug(struct packer *k, const char *id, const struct mapinfo *mi, int depth)
{
	char path[PATH_MAX], name[300], alt[PSYM_BUILD_ID_HEX_MAX] = "";
	struct stat st;
	int fd = -1, ret = 0;
	char key[PSYM_BUILD_ID_HEX_MAX + 8];

	snprintf(key, sizeof(key), "%s.debug", id);
	if (packed(k, key))
		return 0;
	for (size_t i = 0; fd < 0 && i < k->nddirs + (mi ? (size_t)mi->npids : 0); i++) {
		char dir[64];

		if (i >= k->nddirs)
			snprintf(dir, sizeof(dir), "/proc/%d/root/usr/lib/debug",
				 mi->pids[i - k->nddirs]);
		if (psym_build_id_path(i < k->nddirs ? k->ddirs[i] : dir, id, ".debug", path,
				       sizeof(path)))
			fd = open_verified(path, id, &st);
	}
	if (fd < 0)
		return 0;
	tree_name(name, sizeof(name), id, ".debug");
	ret = pack(k, name, fd, path, &st);
	close(fd);
	if (!ret && remember(k, &k->done, key, strlen(key), NULL))
		ret = psym_err_set(k->e, PSYM_ENOMEM, "out of memory");
	if (ret)
		return ret;
	k->st.debug_files++;
	if (depth == 0)
		alt_build_id(path, alt);
	if (alt[0] && psym_build_id_valid(alt))
		ret = pack_debug(k, alt, mi, depth + 1);
	return ret;
}

/*
 * Mapping pos (build ID id, path clean) found no binary: remembered, so
 * that a pid-less mapping of the same path is not searched again, and so
 * that the build ID is reported as not found at the end unless a later
 * mapping finds it.
 */
static int not_found(struct packer *k, const char *id, const char *clean, size_t pos,
		     const struct mapinfo *mi)
{
	char tkey[PSYM_BUILD_ID_HEX_MAX + PATH_MAX];
	size_t il = strlen(id), cl = strlen(clean);
	void *v;

	if (!mi->npids && il + 1 + cl <= sizeof(tkey)) {
		memcpy(tkey, id, il + 1);
		memcpy(tkey + il + 1, clean, cl);
		if (remember(k, &k->tried, tkey, il + 1 + cl, NULL))
			goto nomem;
	}
	if (psym_hashtab_get(&k->missing, id, il, &v) == 0)
		return 0;
	if (!(k->nmiss & (k->nmiss - 1))) { /* 0, 1, 2, 4...: double */
		size_t *nm = realloc(k->miss, (k->nmiss ? 2 * k->nmiss : 1) * sizeof(*nm));

		if (!nm)
			goto nomem;
		k->miss = nm;
	}
	if (remember(k, &k->missing, id, il, NULL))
		goto nomem;
	k->miss[k->nmiss++] = pos;
	return 0;
nomem:
	return psym_err_set(k->e, PSYM_ENOMEM, "out of memory");
}

/* Was this pid-less mapping's path searched for this build ID already? */
static bool tried(const struct packer *k, const char *id, const char *clean,
		  const struct mapinfo *mi)
{
	char tkey[PSYM_BUILD_ID_HEX_MAX + PATH_MAX];
	size_t il = strlen(id), cl = strlen(clean);
	void *v;

	if (mi->npids || il + 1 + cl > sizeof(tkey))
		return false;
	memcpy(tkey, id, il + 1);
	memcpy(tkey + il + 1, clean, cl);
	return psym_hashtab_get(&k->tried, tkey, il + 1 + cl, &v) == 0;
}

/*
 * The binary of one mapping (at position pos): the first candidate with
 * its build ID. A build ID another mapping packed is not packed again; one
 * that was not found is looked for again, as the same binary may be seen
 * through a dead path first (a container gone) and a live one later.
 */
static int pack_mapping(struct packer *k, const pb_mapping *m, const struct mapinfo *mi, size_t pos)
{
	const char *path = psym_profile_str(k->p, m->filename);
	const char *bid = psym_profile_str(k->p, m->build_id);
	char id[PSYM_BUILD_ID_HEX_MAX], cand[PATH_MAX], found[PATH_MAX], name[300];
	char key[PSYM_BUILD_ID_HEX_MAX]; /* the tree's name: id, or a Go build ID's key */
	bool go = psym_build_id_is_go(bid);
	const char *base;
	struct stat st;
	int fd = -1, ret;
	bool deleted = false;
	char clean[PATH_MAX];

	if (psym_mapping_classify(path, clean, sizeof(clean), &deleted) != PSYM_MAP_FILE)
		return 0;
	if (!*bid || (!go && !psym_build_id_valid(bid)) || strlen(bid) >= sizeof(id)) {
		k->st.no_build_id++;
		event(k, &(struct psym_archive_event){ .kind = PSYM_ARCHIVE_NO_BUILD_ID,
						       .mapping_id = m->id,
						       .path = path });
		return 0;
	}
	for (size_t i = 0; i < k->o->n_exclude; i++) {
		size_t n = strlen(k->o->exclude[i]);

		if (n && !strncmp(clean, k->o->exclude[i], n) &&
		    (clean[n] == '\0' || clean[n] == '/' || k->o->exclude[i][n - 1] == '/')) {
			k->st.excluded++;
			event(k, &(struct psym_archive_event){ .kind = PSYM_ARCHIVE_EXCLUDED,
							       .mapping_id = m->id,
							       .path = path });
			return 0;
		}
	}
	k->st.mappings++;
	strcpy(id, bid);
	tree_key(id, key);
	if (packed(k, key) || tried(k, id, clean, mi))
		return 0;
	/* The processes' own view first: the very file mapped, then their root. */
	for (int i = 0; fd < 0 && i < mi->npids; i++) {
		snprintf(cand, sizeof(cand), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, mi->pids[i],
			 m->memory_start, m->memory_limit);
		fd = open_verified(cand, id, &st);
		if (fd < 0 && clean[0] == '/' &&
		    (size_t)snprintf(cand, sizeof(cand), "/proc/%d/root%s", mi->pids[i], clean) <
			    sizeof(cand))
			fd = open_verified(cand, id, &st);
	}
	if (fd < 0 && clean[0] == '/' && strlen(clean) < sizeof(cand)) {
		memcpy(cand, clean, strlen(clean) + 1);
		fd = open_verified(cand, id, &st);
	}
	for (size_t i = 0; fd < 0 && i < k->nddirs; i++)
		if (psym_build_id_path(k->ddirs[i], key, "", cand, sizeof(cand)))
			fd = open_verified(cand, id, &st);
	/*
	 * The debug file first: a reader that links binaries as REST.debug
	 * keeps it. None is keyed by a Go build ID.
	 */
	ret = go ? 0 : pack_debug(k, id, mi, 0);
	if (ret || fd < 0) {
		if (fd >= 0)
			close(fd);
		return ret ? ret : not_found(k, id, clean, pos, mi);
	}
	memcpy(found, cand, sizeof(found));
	tree_name(name, sizeof(name), key, "");
	ret = pack(k, name, fd, found, &st);
	close(fd);
	if (!ret && remember(k, &k->done, key, strlen(key), NULL))
		ret = psym_err_set(k->e, PSYM_ENOMEM, "out of memory");
	if (ret)
		return ret;
	k->st.binaries++;
	if (go)
		return 0; /* pprof's layout would want the Go build ID as a directory */
	/* pprof's --binary-path layout, as a hard link to the entry above. */
	base = strrchr(clean, '/');
	base = base ? base + 1 : clean;
	if (*base && strcmp(base, ".") && strcmp(base, "..") && strlen(base) < 256) {
		char lname[PSYM_BUILD_ID_HEX_MAX + 300];

		snprintf(lname, sizeof(lname), "%s/%s", id, base);
		ret = tz_header(&k->t, lname, '1', 0, 0755, (int64_t)st.st_mtim.tv_sec, name);
	}
	return ret;
}

/* Each build ID no mapping found, named with the first mapping that had it. */
static void report_missing(struct packer *k)
{
	for (size_t i = 0; i < k->nmiss; i++) {
		const pb_mapping *m = k->p->pb->mapping[k->miss[i]];
		char id[PSYM_BUILD_ID_HEX_MAX], key[PSYM_BUILD_ID_HEX_MAX];

		snprintf(id, sizeof(id), "%s", psym_profile_str(k->p, m->build_id));
		tree_key(id, key);
		if (packed(k, key))
			continue;
		k->st.missing++;
		event(k, &(struct psym_archive_event){ .kind = PSYM_ARCHIVE_MISSING,
						       .mapping_id = m->id,
						       .path = psym_profile_str(k->p, m->filename),
						       .build_id = id });
	}
}

/* Each mapping's sampled pids (a few), from the samples' "pid" labels. */
static int mapping_pids(const struct psym_profile *p, struct mapinfo *mi)
{
	const pb_profile *pb = p->pb;

	for (size_t s = 0; s < pb->n_sample; s++) {
		const pb_sample *sm = pb->sample[s];
		int64_t pid = 0;

		for (size_t l = 0; l < sm->n_label; l++)
			if (!strcmp(psym_profile_str(p, sm->label[l]->key), "pid"))
				pid = sm->label[l]->num;
		if (pid <= 0 || pid > 4194304)
			continue;
		for (size_t i = 0; i < sm->n_location_id; i++) {
			long lp = psym_profile_location_pos(p, sm->location_id[i]), mp;
			struct mapinfo *x;
			bool have = false;

			if (lp < 0)
				continue;
			mp = psym_profile_mapping_pos(p, pb->location[lp]->mapping_id);
			if (mp < 0)
				continue;
			x = &mi[mp];
			for (int j = 0; j < x->npids; j++)
				have |= x->pids[j] == (int)pid;
			if (!have && x->npids < PIDS_PER_MAPPING)
				x->pids[x->npids++] = (int)pid;
		}
	}
	return 0;
}

char *psym_archive_default_name(const char *profile)
{
	static const char *const sfx[] = { ".pb.gz", ".pb.zst", ".pb", ".gz" };
	size_t len = strlen(profile);
	char *out;

	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		size_t n = strlen(sfx[i]);

		if (len > n && !strcmp(profile + len - n, sfx[i])) {
			len -= n;
			break;
		}
	}
	if (asprintf(&out, "%.*s.tar.zst", (int)len, profile) < 0)
		return NULL;
	return out;
}

int psym_archive_write(struct psym_profile *p, const char *out_path,
		       const struct psym_archive_opts *o, struct psym_archive_stats *st,
		       struct psym_err *e)
{
	static const char *const default_ddirs[] = { "/usr/lib/debug" };
	static const unsigned char zero[1024];
	struct packer k = { .p = p, .o = o, .e = e };
	struct psym_out out = { 0 };
	struct mapinfo *mi = NULL;
	bool out_open = false;
	int ret;

	if (p->pb->n_mapping > MAX_MAPPINGS)
		return psym_err_set(e, PSYM_ELIMIT, "more than %d mappings", MAX_MAPPINGS);
	k.ddirs = o->debug_dirs ? o->debug_dirs : default_ddirs;
	k.nddirs = o->debug_dirs ? o->n_debug_dirs : 1;
	k.max = o->max_bytes ? o->max_bytes : PSYM_ARCHIVE_DEFAULT_MAX;
	psym_hashtab_init(&k.done, 0);
	psym_hashtab_init(&k.tried, 0);
	psym_hashtab_init(&k.missing, 0);
	mi = calloc(p->pb->n_mapping + 1, sizeof(*mi));
	k.t.zs = ZSTD_createCStream();
	if (!mi || !k.t.zs) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	ZSTD_CCtx_setParameter(k.t.zs, ZSTD_c_compressionLevel, o->level ? o->level : 3);
	ZSTD_CCtx_setParameter(k.t.zs, ZSTD_c_checksumFlag, 1);
	ret = psym_profile_index(p, e);
	if (ret)
		goto out;
	mapping_pids(p, mi);
	ret = psym_out_open(&out, out_path, e);
	if (ret)
		goto out;
	out_open = true;
	k.t.fp = out.fp;
	k.t.name = out_path;
	k.t.e = e;
	for (size_t i = 0; i < p->pb->n_mapping && !ret; i++)
		ret = pack_mapping(&k, p->pb->mapping[i], &mi[i], i);
	if (!ret)
		report_missing(&k);
	/* Two zero blocks end a tar archive. */
	if (!ret)
		ret = tz_emit(&k.t, zero, sizeof(zero), ZSTD_e_end);
	if (ret)
		goto out;
	out_open = false;
	ret = psym_out_commit(&out, e);
	k.st.bytes_out = k.t.written;
out:
	if (out_open)
		psym_out_abort(&out);
	if (st)
		*st = k.st;
	ZSTD_freeCStream(k.t.zs);
	for (size_t i = 0; i < k.nkeys; i++)
		free(k.keys[i]);
	free(k.keys);
	psym_hashtab_free(&k.done);
	psym_hashtab_free(&k.tried);
	psym_hashtab_free(&k.missing);
	free(k.miss);
	free(mi);
	return ret;
}
