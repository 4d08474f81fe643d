/* SPDX-License-Identifier: MIT */
/*
 * --debug-pkg's cache: what a run wants of a package (deb.h), extracted
 * from the package (deb.c reads it) into an entry that grows over runs.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "buildid.h"
#include "deb.h"
#include "debkmod.h"
#include "dwarfsym.h"
#include "elffile.h"
#include "fileio.h"
#include "hashtab.h"

#define MAX_NAME 4096 /* a member's path, as the tar reader caps it */

/* ---- extraction into the cache ------------------------------------------- */

/*
 * The cache entry of one package file (ROOT = CACHE/NAME-SIZE-MTIME) grows
 * with what profiles ask for: ROOT/usr/lib/debug/... holds the members
 * extracted so far, each written to ROOT/.psym-tmp-PID-XXXXXX and renamed
 * into place (so a file there is always whole), and ROOT/.psym-build-ids
 * lists every build ID the package provides, written after the first
 * complete scan: a later run scans the package again only when it wants a
 * build ID that the package has and the entry does not.
 */
#define INDEX_NAME ".psym-build-ids"
#define TMP_PREFIX ".psym-tmp-"

struct extract {
	const char *deb;	/* for messages */
	char *root;		/* the package's cache entry */
	const char *const *ids; /* wanted build IDs; NULL: every debug file */
	size_t n_ids;
	struct psym_hashtab want_set; /* ids, as a set (keys borrowed from ids) */
	/*
	 * Build IDs found in the package: in the order found (the index
	 * lists them so), and as a set (keys borrowed from seen), as a
	 * package or archive can have 100,000 of them.
	 */
	char **seen;
	size_t n_seen, cap_seen;
	struct psym_hashtab seen_set;
	/* the member being written */
	int fd;
	char *tmp, *final;
	bool classify; /* outside .build-id/: keep if its ELF build ID is wanted */
	uint64_t off;
	/*
	 * dwz alternate files (usr/lib/debug/.dwz/...) that the extracted debug
	 * files name: extracted in a second pass, and only those.
	 */
	char **alts;
	size_t n_alts, cap_alts;
	bool alt_pass;
	/*
	 * Kernel modules wanted by name (debkmod.h): the member being written
	 * is one (kmod), and the member kept for each want so far.
	 */
	const struct psym_deb_kmod *kmods;
	size_t n_kmods;
	char **kmod_kept;
	bool kmod;
	char kmod_rel[256];
	/* The index's module lines ("ko ..."), kept over runs. */
	char **done;
	size_t n_done, cap_done;
	struct psym_err *e;
};

#define DWZ_DIR "usr/lib/debug/.dwz/"
#define MAX_ALTS 4096

/*
 * The member path an extracted debug file (member path `member`, file
 * `file`) names as its alternate, when it is one of the package's .dwz/
 * files: an absolute /usr/lib/debug/.dwz/REST, or a path relative to the
 * member's directory, normalized. Recorded once; errors only for memory.
 */
static int note_alt(struct extract *x, const char *member, const char *file)
{
	char path[MAX_NAME], bid[PSYM_BUILD_ID_HEX_MAX], norm[MAX_NAME];
	struct psym_elf *elf = NULL;
	char **na;
	size_t n = 0;
	int r;

	if (psym_elf_open(file, NULL, &elf, NULL) != 0)
		return 0;
	r = psym_dwarf_altlink(elf, path, sizeof(path), bid, sizeof(bid), NULL);
	psym_elf_close(elf);
	if (r != 0)
		return 0;
	if (path[0] == '/') {
		snprintf(norm, sizeof(norm), "%s", path + 1);
	} else {
		const char *slash = strrchr(member, '/');
		int k = snprintf(norm, sizeof(norm), "%.*s/%s", (int)(slash ? slash - member : 0),
				 member, path);

		if (k < 0 || (size_t)k >= sizeof(norm))
			return 0;
	}
	/* Lexically: "." and empty components dropped, ".." takes one back. */
	{
		char *save = NULL, out[MAX_NAME];
		size_t depth[MAX_NAME / 2], nd = 0;

		for (char *c = strtok_r(norm, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
			size_t len = strlen(c);

			if (!strcmp(c, "."))
				continue;
			if (!strcmp(c, "..")) {
				if (!nd)
					return 0; /* above the package root */
				n = depth[--nd];
				continue;
			}
			if (n + len + 2 > sizeof(out) || nd == sizeof(depth) / sizeof(depth[0]))
				return 0;
			depth[nd++] = n;
			if (n)
				out[n++] = '/';
			memcpy(out + n, c, len);
			n += len;
		}
		out[n] = '\0';
		memcpy(norm, out, n + 1);
	}
	if (strncmp(norm, DWZ_DIR, strlen(DWZ_DIR)) != 0)
		return 0;
	for (size_t i = 0; i < x->n_alts; i++)
		if (!strcmp(x->alts[i], norm))
			return 0;
	if (x->n_alts == MAX_ALTS)
		return 0;
	na = psym_array_grow(x->alts, &x->cap_alts, x->n_alts + 1, sizeof(*na), 0);
	if (!na)
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	x->alts = na;
	x->alts[x->n_alts] = strdup(norm);
	if (!x->alts[x->n_alts])
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	x->n_alts++;
	return 0;
}

static bool alt_wanted(const struct extract *x, const char *path)
{
	for (size_t i = 0; i < x->n_alts; i++)
		if (!strcmp(x->alts[i], path))
			return true;
	return false;
}

static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) != 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

static bool wanted(const struct extract *x, const char *id)
{
	void *v;

	return !x->ids || psym_hashtab_get(&x->want_set, id, strlen(id), &v) == 0;
}

static int add_seen(struct extract *x, const char *id)
{
	char **ns, *copy;
	void *v;
	int ret;

	if (psym_hashtab_get(&x->seen_set, id, strlen(id), &v) == 0)
		return 0;
	ns = psym_array_grow(x->seen, &x->cap_seen, x->n_seen + 1, sizeof(*ns), 0);
	if (!ns)
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	x->seen = ns;
	copy = strdup(id);
	if (!copy)
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	ret = psym_hashtab_put(&x->seen_set, copy, strlen(copy), copy, x->e);
	if (ret) {
		free(copy);
		return ret;
	}
	x->seen[x->n_seen++] = copy;
	return 0;
}

static void clear_seen(struct extract *x)
{
	for (size_t i = 0; i < x->n_seen; i++)
		free(x->seen[i]);
	x->n_seen = 0;
	psym_hashtab_free(&x->seen_set);
	psym_hashtab_init(&x->seen_set, 0);
}

/* ROOT/usr/lib/debug/.build-id/NN/REST.debug (malloc'd), NULL on no memory. */
static char *id_path(const struct extract *x, const char *id)
{
	char *p;

	if (asprintf(&p, "%s/usr/lib/debug/.build-id/%.2s/%s.debug", x->root, id, id + 2) < 0)
		return NULL;
	return p;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/*
 * The build ID a member outside the tree is wanted by (the file at path, or
 * fd when >= 0): its GNU build ID, else the key of its Go build ID
 * (psym_go_build_id_key: what a run wants for a Go binary that a psym
 * archive packed; *go set). False when it has neither.
 */
static bool member_id(const char *path, int fd, char id[PSYM_BUILD_ID_HEX_MAX], bool *go)
{
	char mid[PSYM_BUILD_ID_HEX_MAX];

	if ((fd >= 0 ? psym_elf_fd_mapping_build_id(fd, path, mid, NULL)
		     : psym_elf_file_mapping_build_id(path, mid, NULL)) != 0)
		return false;
	if (go)
		*go = psym_build_id_is_go(mid);
	if (psym_go_build_id_key(mid, id) == 0)
		return true;
	memcpy(id, mid, sizeof(mid));
	return true;
}

/*
 * The build ID of a member named usr/lib/debug/.build-id/NN/REST.debug, or
 * usr/lib/debug/[kernel.kallsyms]/ID/kallsyms (perf archive's copy of the
 * kernel's symbols, deb.c), else false.
 */
static bool tree_build_id(const char *path, char id[PSYM_BUILD_ID_HEX_MAX])
{
	static const char kdir[] = "usr/lib/debug/[kernel.kallsyms]/";
	const char *p = path + strlen("usr/lib/debug/.build-id/");
	size_t rest;

	if (strncmp(path, kdir, sizeof(kdir) - 1) == 0) {
		p = path + sizeof(kdir) - 1;
		rest = strcspn(p, "/");
		if (rest >= PSYM_BUILD_ID_HEX_MAX || strcmp(p + rest, "/kallsyms") != 0)
			return false;
		memcpy(id, p, rest);
		id[rest] = '\0';
		if (!psym_build_id_valid(id))
			return false;
		psym_build_id_lower(id);
		return true;
	}

	if (strncmp(path, "usr/lib/debug/.build-id/", 24) != 0 || strlen(p) < 3 + 6 || p[2] != '/')
		return false;
	rest = strlen(p + 3) - 6;
	if (strcmp(p + 3 + rest, ".debug") != 0 || 2 + rest >= PSYM_BUILD_ID_HEX_MAX)
		return false;
	memcpy(id, p, 2);
	memcpy(id + 2, p + 3, rest);
	id[2 + rest] = '\0';
	if (!psym_build_id_valid(id))
		return false;
	psym_build_id_lower(id);
	return true;
}

static void drop_member(struct extract *x)
{
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	if (x->tmp)
		unlink(x->tmp);
	free(x->tmp);
	free(x->final);
	x->tmp = x->final = NULL;
}

/*
 * A module file that a want names (member path, its bytes in file): 1 to
 * keep it (recorded for each want it meets; *link_path, when asked for,
 * gets where an uncompressed one is linked by build ID, or NULL), 0 to
 * drop it (each want that names it has another build ID), or an error.
 */
static int keep_kmod(struct extract *x, const char *path, const char *file, char **link_path)
{
	char id[PSYM_BUILD_ID_HEX_MAX], rel[256];
	const char *base;
	bool plain = false, have, keep = false;
	int ret;

	if (link_path)
		*link_path = NULL;
	if (!psym_debkmod_member(path, rel, sizeof(rel), &base))
		return 0;
	have = psym_debkmod_build_id(file, path, id, &plain) == 0;
	for (size_t i = 0; i < x->n_kmods; i++) {
		const struct psym_deb_kmod *w = &x->kmods[i];

		if (!psym_debkmod_matches(w, rel, base) ||
		    (w->build_id && (!have || strcmp(w->build_id, id) != 0)))
			continue;
		keep = true;
		if (!x->kmod_kept[i] && !(x->kmod_kept[i] = strdup(path)))
			return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	}
	if (!keep || !have || !plain)
		return keep;
	/* Uncompressed: found by build ID too (a compressed one only by name). */
	ret = add_seen(x, id);
	if (ret)
		return ret;
	if (link_path && !(*link_path = id_path(x, id)))
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	if (!link_path) { /* kept by an earlier run: its link too */
		char *lp = id_path(x, id);

		if (!lp)
			return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
		if (!exists(lp) && mkdirs(lp) == 0)
			link(file, lp);
		free(lp);
	}
	return 1;
}

/* Decide about one member; open its temporary file when it is wanted. */
static int select_cb(void *ud, const char *path, uint64_t size)
{
	struct extract *x = ud;
	char id[PSYM_BUILD_ID_HEX_MAX];
	bool in_tree = tree_build_id(path, id);
	const char *base;
	int ret;

	(void)size;
	drop_member(x);
	x->classify = false;
	x->kmod = false;
	/* dwz files: in the second pass, those named; nothing else then. */
	if (strncmp(path, DWZ_DIR, strlen(DWZ_DIR)) == 0) {
		if (!x->alt_pass || !alt_wanted(x, path))
			return 0;
	} else if (x->alt_pass) {
		return 0;
	} else if (x->ids && psym_debkmod_member(path, x->kmod_rel, sizeof(x->kmod_rel), &base)) {
		/* A module file: by name only (a kernel's package has thousands). */
		for (size_t i = 0; i < x->n_kmods && !x->kmod; i++)
			x->kmod = psym_debkmod_matches(&x->kmods[i], x->kmod_rel, base);
		if (!x->kmod)
			return 0;
	} else if (in_tree) {
		ret = add_seen(x, id);
		if (ret)
			return ret;
		if (!wanted(x, id))
			return 0;
	} else if (x->ids) {
		/* Outside the build-ID tree: its build ID is known once written. */
		x->classify = true;
	}
	if (asprintf(&x->final, "%s/%s", x->root, path) < 0) {
		x->final = NULL;
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	}
	if (exists(x->final)) { /* an earlier run's, or a duplicate entry: the first wins */
		bool named = !x->classify; /* a wanted debug file: its alternate too */

		if (x->kmod) {
			ret = keep_kmod(x, path, x->final, NULL);
			free(x->final);
			x->final = NULL;
			return ret < 0 ? ret : 0;
		}

		if (x->classify && member_id(x->final, -1, id, NULL)) {
			ret = add_seen(x, id);
			if (ret)
				return ret;
			named = wanted(x, id);
		}
		if (named && !x->alt_pass && (ret = note_alt(x, path, x->final)) != 0)
			return ret;
		free(x->final);
		x->final = NULL;
		return 0;
	}
	if (asprintf(&x->tmp, "%s/" TMP_PREFIX "%ld-XXXXXX", x->root, (long)getpid()) < 0) {
		x->tmp = NULL;
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	}
	x->fd = mkstemp(x->tmp);
	if (x->fd < 0) {
		ret = psym_err_set(x->e, PSYM_EIO, "cannot create '%s': %s", x->tmp,
				   strerror(errno));
		free(x->tmp);
		x->tmp = NULL;
		return ret;
	}
	fchmod(x->fd, 0644);
	x->off = 0;
	return 1;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The member is whole in its temporary file: keep it (rename) or drop it. */
static int finish_member(struct extract *x, const char *path)
{
	char id[PSYM_BUILD_ID_HEX_MAX];
	char *link_path = NULL;
	int ret = 0;

	if (ftruncate(x->fd, (off_t)x->off) != 0 || fsync(x->fd) != 0)
		return psym_err_set(x->e, PSYM_EIO, "cannot write '%s': %s", x->tmp,
				    strerror(errno));
	if (x->kmod) {
		ret = keep_kmod(x, path, x->tmp, &link_path);
		if (ret <= 0)
			return ret; /* not wanted: drop_member() removes the temporary */
	} else if (x->classify) {
		bool go;

		if (!member_id(path, x->fd, id, &go))
			return 0; /* not an ELF file with a build ID: nobody asks for it */
		ret = add_seen(x, id);
		if (ret || !wanted(x, id))
			return ret; /* drop_member() removes the temporary */
		/* (a Go binary is asked for where it is: no debug file's name) */
		link_path = go ? NULL : id_path(x, id);
		if (!go && !link_path)
			return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	}
	if (mkdirs(x->final) != 0) {
		ret = psym_err_set(x->e, PSYM_EIO, "cannot create directories for '%s': %s",
				   x->final, strerror(errno));
		goto out;
	}
	if (rename(x->tmp, x->final) != 0) {
		ret = psym_err_set(x->e, PSYM_EIO, "cannot rename into '%s': %s", x->final,
				   strerror(errno));
		goto out;
	}
	free(x->tmp);
	x->tmp = NULL;
	if (!x->alt_pass && (ret = note_alt(x, path, x->final)) != 0)
		goto out;
	/* Found by build ID too, as the package's own .build-id symlink would. */
	if (link_path && mkdirs(link_path) == 0 && link(x->final, link_path) != 0 &&
	    errno != EEXIST)
		ret = psym_err_set(x->e, PSYM_EIO, "cannot link '%s': %s", link_path,
				   strerror(errno));
out:
	free(link_path);
	return ret;
}

static int extract_cb(void *ud, const char *path, uint64_t size, const unsigned char *data,
		      size_t len)
{
	struct extract *x = ud;
	int ret;

	(void)size;
	if (x->fd < 0)
		return psym_err_set(x->e, PSYM_EINTERNAL, "no file open for '%s'", path);
	if (!data) {
		ret = finish_member(x, path);
		drop_member(x);
		return ret;
	}
	/* Runs of zeros become holes: a sparse member costs no disk. */
	if (len && data[0] == 0 && memcmp(data, data + 1, len - 1) == 0) {
		x->off += len;
		if (lseek(x->fd, (off_t)x->off, SEEK_SET) < 0)
			return psym_err_set(x->e, PSYM_EIO, "cannot write '%s': %s", x->tmp,
					    strerror(errno));
		return 0;
	}
	if (write_all(x->fd, data, len) != 0)
		return psym_err_set(x->e, PSYM_EIO, "cannot write '%s': %s", x->tmp,
				    strerror(errno));
	x->off += len;
	return 0;
}

/* The index line of a module want, "KEY PATH"; replaces the want's older one. */
static int add_done(struct extract *x, const char *line)
{
	size_t off;
	char **nd;

	if (!psym_debkmod_parse(line, &off))
		return 0;
	for (size_t i = 0; i < x->n_done; i++) {
		/* The key (fields without spaces) and its space: the same want. */
		if (strncmp(x->done[i], line, off) == 0) {
			char *c = strdup(line);

			if (!c)
				return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
			free(x->done[i]);
			x->done[i] = c;
			return 0;
		}
	}
	nd = psym_array_grow(x->done, &x->cap_done, x->n_done + 1, sizeof(*nd), 0);
	if (!nd)
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	x->done = nd;
	if (!(x->done[x->n_done] = strdup(line)))
		return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
	x->n_done++;
	return 0;
}

/*
 * Has an earlier scan met module want w, and is what it kept still there?
 * (Its index line: "KEY PATH", PATH "-" when the package had none.)
 */
static bool kmod_done(const struct extract *x, const struct psym_deb_kmod *w)
{
	char key[512];
	size_t n;

	if (!psym_debkmod_key(w, key, sizeof(key)))
		return true; /* nothing an index line can hold: never looked for again */
	n = strlen(key);
	for (size_t i = 0; i < x->n_done; i++) {
		const char *path;
		char *full;
		bool there;

		if (strncmp(x->done[i], key, n) != 0 || x->done[i][n] != ' ')
			continue;
		path = x->done[i] + n + 1;
		if (!strcmp(path, "-"))
			return true;
		if (asprintf(&full, "%s/%s", x->root, path) < 0)
			return false;
		there = exists(full);
		free(full);
		return there;
	}
	return false;
}

/* Record this scan's answer for each module want (after a complete scan). */
static int note_kmods_done(struct extract *x)
{
	for (size_t i = 0; i < x->n_kmods; i++) {
		char key[512], *line;
		int ret;

		if (!psym_debkmod_key(&x->kmods[i], key, sizeof(key)))
			continue;
		if (asprintf(&line, "%s %s", key, x->kmod_kept[i] ? x->kmod_kept[i] : "-") < 0)
			return psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
		ret = add_done(x, line);
		free(line);
		if (ret)
			return ret;
	}
	return 0;
}

/* Read ROOT/.psym-build-ids into x->seen; false when there is none (or bad). */
static bool read_index(struct extract *x)
{
	unsigned char *buf;
	size_t len;
	char *path;
	bool ok = true;

	if (asprintf(&path, "%s/" INDEX_NAME, x->root) < 0)
		return false;
	if (psym_read_file(path, (size_t)16 << 20, &buf, &len, NULL) != 0) {
		free(path);
		return false;
	}
	free(path);
	buf[len] = '\0'; /* psym_read_file leaves room for it */
	for (char *line = (char *)buf, *nl; ok && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (strncmp(line, "ko ", 3) == 0)
			ok = psym_debkmod_parse(line, &(size_t){ 0 }) && add_done(x, line) == 0;
		else
			ok = psym_build_id_valid(line) && add_seen(x, line) == 0;
	}
	free(buf);
	return ok;
}

static int write_index(struct extract *x)
{
	char *tmp = NULL, *path = NULL;
	FILE *f;
	int fd, ret = 0;

	if (asprintf(&path, "%s/" INDEX_NAME, x->root) < 0 ||
	    asprintf(&tmp, "%s/" TMP_PREFIX "%ld-XXXXXX", x->root, (long)getpid()) < 0) {
		ret = psym_err_set(x->e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		ret = psym_err_set(x->e, PSYM_EIO, "cannot create '%s': %s", tmp, strerror(errno));
		goto out_unlink;
	}
	fchmod(fd, 0644);
	for (size_t i = 0; i < x->n_seen; i++)
		fprintf(f, "%s\n", x->seen[i]);
	for (size_t i = 0; i < x->n_done; i++)
		fprintf(f, "%s\n", x->done[i]);
	if (fflush(f) != 0 || fsync(fd) != 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
		ret = psym_err_set(x->e, PSYM_EIO, "cannot write '%s': %s", path, strerror(errno));
		goto out_unlink;
	}
	goto out;
out_unlink:
	unlink(tmp);
out:
	free(tmp);
	free(path);
	return ret;
}

/* Does the entry lack a wanted build ID that the package (index) has? */
static bool need_scan(struct extract *x)
{
	bool need = false;

	if (!x->ids || !read_index(x))
		return true;
	for (size_t i = 0; i < x->n_seen && !need; i++) {
		char *p;

		if (!wanted(x, x->seen[i]))
			continue;
		p = id_path(x, x->seen[i]);
		need = !p || !exists(p);
		free(p);
	}
	for (size_t i = 0; i < x->n_kmods && !need; i++)
		need = !kmod_done(x, &x->kmods[i]);
	return need;
}

/*
 * The cache and the package's entry in it, before anything there is read or
 * written: a file planted there would be used as a debug file (its build ID
 * can be made to match, its DWARF can say anything). The one rule of every
 * store and cache psym keeps (psym_stat_trusted): the user's or root's and
 * writable by nobody else; the entry a directory, never a link.
 */
static int check_trusted(const char *cache_root, const char *root, struct psym_err *e)
{
	char why[400];
	int cfd, rfd;

	cfd = psym_trusted_dir_open(AT_FDCWD, cache_root, true, why, sizeof(why));
	if (cfd < 0 && why[0])
		return psym_err_set(e, PSYM_EIO, "package cache %s: not used", why);
	if (cfd < 0)
		return psym_err_set(e, PSYM_EIO, "cannot open the package cache '%s': %s",
				    cache_root, strerror(-cfd));
	rfd = psym_trusted_dir_open(cfd, strrchr(root, '/') + 1, false, why, sizeof(why));
	close(cfd);
	if (rfd < 0)
		return psym_err_set(e, PSYM_EIO, "package cache '%s': entry %s: not used",
				    cache_root, why[0] ? why : strerror(-rfd));
	close(rfd);
	return 0;
}

int psym_deb_extract_debug(const char *deb_path, const char *cache_root,
			   const struct psym_deb_limits *limits, const char *const *build_ids,
			   size_t n_build_ids, char **debug_root, struct psym_err *e)
{
	struct psym_deb_want w = { .build_ids = build_ids, .n_build_ids = n_build_ids };

	return psym_deb_extract(deb_path, cache_root, limits, &w, debug_root, e);
}

int psym_deb_extract(const char *deb_path, const char *cache_root,
		     const struct psym_deb_limits *limits, const struct psym_deb_want *want,
		     char **debug_root, struct psym_err *e)
{
	struct extract x = {
		.deb = deb_path,
		.ids = want->build_ids,
		.n_ids = want->n_build_ids,
		.kmods = want->kmods,
		.n_kmods = want->n_kmods,
		.fd = -1,
		.e = e,
	};
	struct stat st;
	char *result = NULL;
	const char *base;
	int fd, ret = 0;

	psym_hashtab_init(&x.seen_set, 0);
	psym_hashtab_init(&x.want_set, 0);
	fd = psym_open_regular(deb_path, e);
	if (fd < 0)
		return fd;
	for (size_t i = 0; x.ids && i < x.n_ids; i++) {
		ret = psym_hashtab_put(&x.want_set, x.ids[i], strlen(x.ids[i]), NULL, e);
		if (ret)
			goto out;
	}
	if (fstat(fd, &st) != 0) {
		ret = psym_err_set(e, PSYM_EIO, "cannot stat '%s': %s", deb_path, strerror(errno));
		goto out;
	}
	base = strrchr(deb_path, '/');
	base = base ? base + 1 : deb_path;
	/* One cache entry per package file identity (name, size, mtime). */
	if (asprintf(&x.root, "%s/%s-%llx-%llx", cache_root, base, (unsigned long long)st.st_size,
		     (unsigned long long)st.st_mtim.tv_sec) < 0 ||
	    asprintf(&result, "%s/usr/lib/debug", x.root) < 0) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	if ((mkdir(cache_root, 0755) != 0 && errno != EEXIST) ||
	    (mkdir(x.root, 0755) != 0 && errno != EEXIST)) {
		ret = psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", x.root, strerror(errno));
		goto out;
	}
	ret = check_trusted(cache_root, x.root, e);
	if (ret)
		goto out;
	psym_remove_stale_tmps(x.root, TMP_PREFIX, '-');
	x.kmod_kept = calloc(x.n_kmods + 1, sizeof(*x.kmod_kept));
	if (!x.kmod_kept) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	if (need_scan(&x)) {
		clear_seen(&x);
		ret = psym_deb_walk_fd(fd, (uint64_t)st.st_size, deb_path, limits, select_cb,
				       extract_cb, &x, e);
		drop_member(&x);
		if (!ret && x.n_alts) {
			/* The alternate files named, wherever they are in the archive. */
			x.alt_pass = true;
			ret = psym_deb_walk_fd(fd, (uint64_t)st.st_size, deb_path, limits,
					       select_cb, extract_cb, &x, e);
			drop_member(&x);
		}
		if (!ret && x.ids)
			ret = note_kmods_done(&x);
		if (!ret && x.ids)
			ret = write_index(&x);
		if (ret) {
			rmdir(x.root); /* an entry this run created and left empty */
			goto out;
		}
	}
	/* The debug dir exists even when the package had nothing wanted. */
	{
		char *marker;

		if (asprintf(&marker, "%s/", result) < 0) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
			goto out;
		}
		if (mkdirs(marker) != 0)
			ret = psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", result,
					   strerror(errno));
		free(marker);
	}
	if (!ret) {
		*debug_root = result;
		result = NULL;
	}
out:
	drop_member(&x);
	clear_seen(&x);
	free(x.seen);
	psym_hashtab_free(&x.seen_set);
	psym_hashtab_free(&x.want_set);
	for (size_t i = 0; i < x.n_alts; i++)
		free(x.alts[i]);
	free(x.alts);
	for (size_t i = 0; x.kmod_kept && i < x.n_kmods; i++)
		free(x.kmod_kept[i]);
	free(x.kmod_kept);
	for (size_t i = 0; i < x.n_done; i++)
		free(x.done[i]);
	free(x.done);
	free(x.root);
	free(result);
	close(fd);
	return ret;
}

/* Remove a tree we created (bounded depth: our own extraction layout). */
static int rm_rf_depth(const char *path, int depth)
{
	struct dirent *de;
	DIR *d;

	if (depth > 64)
		return -1;
	d = opendir(path);
	if (!d)
		return unlink(path);
	while ((de = readdir(d))) {
		char *child;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (asprintf(&child, "%s/%s", path, de->d_name) < 0)
			break;
		if (de->d_type == DT_DIR)
			rm_rf_depth(child, depth + 1);
		else
			unlink(child);
		free(child);
	}
	closedir(d);
	return rmdir(path);
}

void psym_deb_remove_tree(const char *path)
{
	rm_rf_depth(path, 0);
}
