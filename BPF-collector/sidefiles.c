/* SPDX-License-Identifier: MIT */
/*
 * psym-collect: the side files only the profiled host has, written to
 * OUT.d/ next to the profile: kallsyms, the vDSO and perf maps.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "compress.h"
#include "fileio.h"
#include "hostid.h"
#include "kallsyms.h"
#include "kmodules.h"
#include "sha256.h"
#include "sidenames.h"
#include "ustacks.h"

static int write_buf(const char *dst, const char *buf, size_t len, struct psym_err *e);

/*
 * Copy src (a JIT's perf map, as the process sees it) to dst atomically,
 * zstd-compressed (level 3: maps of big JITs run to tens of MB), at most
 * max bytes of it.
 */
static int copy_compressed(const char *src, const char *dst, size_t max, struct psym_err *e)
{
	unsigned char *buf = NULL, *z = NULL;
	size_t len = 0, cap = 0, zlen = 0, n;
	FILE *in = fopen(src, "r");
	int ret = 0;

	if (!in)
		return psym_err_set(e, PSYM_EIO, "cannot open '%s': %s", src, strerror(errno));
	do {
		if (len + 65536 > cap) {
			size_t ncap = cap ? cap * 2 : 1 << 20;
			unsigned char *nb = realloc(buf, ncap);

			if (!nb) {
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
				break;
			}
			buf = nb;
			cap = ncap;
		}
		n = fread(buf + len, 1, 65536, in);
		len += n;
	} while (n > 0 && len < max);
	fclose(in);
	if (!ret)
		ret = psym_zstd(buf, len < max ? len : max, 3, &z, &zlen, e);
	if (!ret)
		ret = write_buf(dst, (const char *)z, zlen, e);
	free(buf);
	free(z);
	return ret;
}

static int save_shared(const char *out, const char *dir, const char *name, const char *sha,
		       const char *buf, size_t len, struct psym_err *e);

/*
 * Our own vDSO: the same image every process on this kernel maps, saved
 * compressed and shared as kallsyms is, named vdso-SHA256.so.zst.
 */
static int save_vdso(const char *out, const char *dir, struct psym_err *e)
{
	char sha[PSYM_SHA256_HEX], name[128];
	const void *bytes;
	size_t len;

	if (psym_own_vdso(&bytes, &len))
		return psym_err_set(e, PSYM_EIO, "cannot find this process's vDSO mapping");
	psym_sha256_hex(bytes, len, sha);
	snprintf(name, sizeof(name), PSYM_SIDE_VDSO_PFX "%s" PSYM_SIDE_VDSO_SFX, sha);
	return save_shared(out, dir, name, sha, bytes, len, e);
}

/* One kallsyms line ("addr type name"): _text or _end's address. */
static void kallsyms_line(const char *p, size_t n, uint64_t *start, uint64_t *limit)
{
	uint64_t a;
	const char *q = p, *end = p + n;

	if (n > 6 && !memcmp(end - 6, " _text", 6)) {
		if (psym_parse_hex(&q, end, &a))
			*start = a;
	} else if (n > 5 && !memcmp(end - 5, " _end", 5)) {
		if (psym_parse_hex(&q, end, &a))
			*limit = a;
	}
}

/*
 * /proc/kallsyms read by a thread while sampling starts (the kernel takes
 * a quarter of a second to print it): the copy saved with the profile, and
 * _text and _end for the kernel mapping.
 */

#define KALLSYMS_MAX ((size_t)256 << 20)

void *read_kallsyms(void *ud)
{
	struct ksyms *k = ud;
	size_t cap = 0;
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);

	while (fd >= 0) {
		ssize_t got;

		if (k->len + 65536 > cap) {
			size_t ncap = cap ? cap * 2 : (size_t)16 << 20;
			char *nb = ncap <= KALLSYMS_MAX ? realloc(k->buf, ncap) : NULL;

			if (!nb)
				break;
			k->buf = nb;
			cap = ncap;
		}
		got = read(fd, k->buf + k->len, 65536);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		k->len += (size_t)got;
	}
	if (fd >= 0)
		close(fd);
	/* Subset copies: sorted here, once for the run, while sampling starts. */
	if (k->subset && k->len) {
		struct psym_err le = { 0 };

		if (psym_kallsyms_parse(k->buf, k->len, "/proc/kallsyms", &k->table, &le))
			k->table = NULL; /* the full copy is written instead */
	}
	return NULL;
}

void ksyms_free(struct ksyms *k)
{
	psym_kallsyms_free(k->table);
	k->table = NULL;
	free(k->buf);
	k->buf = NULL;
}

/* _text and _end (0, 0 when either is missing). */
static void kernel_range(const struct ksyms *k, uint64_t *start, uint64_t *limit)
{
	const char *p = k->buf, *end = k->buf + k->len, *nl;

	*start = *limit = 0;
	while (p && p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		kallsyms_line(p, (size_t)(nl - p), start, limit);
		p = nl + 1;
	}
	if (*limit <= *start)
		*start = *limit = 0;
}

/* Wait for the kallsyms thread; hand the kernel's range to the builder once. */
void ksyms_join(struct ksyms *k, struct psym_collectprof *cp)
{
	uint64_t start, limit;

	if (!k->started)
		return;
	pthread_join(k->t, NULL);
	k->started = false;
	kernel_range(k, &start, &limit);
	k->kstart = start;
	k->klimit = limit;
	k->joined = true;
	psym_collectprof_set_kernel_range(cp, start, limit);
}

void ksyms_apply(const struct ksyms *k, struct psym_collectprof *cp)
{
	if (k->joined)
		psym_collectprof_set_kernel_range(cp, k->kstart, k->klimit);
}

static int write_buf(const char *dst, const char *buf, size_t len, struct psym_err *e)
{
	struct psym_out o;
	int ret = psym_out_open(&o, dst, e);

	if (ret)
		return ret;
	if (len && fwrite(buf, 1, len, o.fp) != len) {
		psym_out_abort(&o);
		return psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", dst, strerror(errno));
	}
	return psym_out_commit(&o, e);
}

/* Is path a copy of ours (a regular file in a trusted dir) whose content has SHA-256 sha? */
static bool shared_copy_good(const char *path, const char *sha)
{
	unsigned char *raw = NULL, *text = NULL;
	size_t rawlen = 0, len = 0;
	char got[PSYM_SHA256_HEX] = "";
	struct psym_err le = { 0 };
	struct stat st;

	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    psym_read_file_cap(path, KALLSYMS_MAX, NULL, &raw, &rawlen, &le))
		return false;
	if (!psym_unzstd(raw, rawlen, KALLSYMS_MAX, path, &text, &len, &le))
		psym_sha256_hex(text, len, got);
	free(raw);
	free(text);
	return !strcmp(got, sha);
}

/*
 * The shared directory beside out (PSYM_SIDE_SHARED), made or checked as
 * the side directory is; false when it cannot be used (then each side
 * directory gets its own copy).
 */
static bool shared_dir(const char *out, char *dir, size_t dirsz)
{
	const char *slash = strrchr(out, '/');
	char why[200];
	struct stat st;
	int n;

	if (slash)
		n = snprintf(dir, dirsz, "%.*s/" PSYM_SIDE_SHARED, (int)(slash - out), out);
	else
		n = snprintf(dir, dirsz, PSYM_SIDE_SHARED);
	if (n < 0 || (size_t)n >= dirsz)
		return false;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return false;
	return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	       psym_stat_trusted(&st, why, sizeof(why));
}

/*
 * The kallsyms copy, zstd-compressed and named by boot ID and content
 * hash (sidenames.h). Written once per boot into the shared directory
 * beside out and hard-linked into the side directory dir: many profiles
 * of one boot cost its bytes once on disk, and each side directory still
 * holds the copy itself (copied or archived with the profile, it stays
 * whole). Where no link can be made, the side directory gets the file.
 */
static int save_shared(const char *out, const char *dir, const char *name, const char *sha,
		       const char *buf, size_t len, struct psym_err *e)
{
	char shdir[4096], shared[4400], path[4400];
	unsigned char *z = NULL;
	size_t zlen = 0;
	bool have_shared;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	have_shared =
		shared_dir(out, shdir, sizeof(shdir)) &&
		(size_t)snprintf(shared, sizeof(shared), "%s/%s", shdir, name) < sizeof(shared);
	if (have_shared && shared_copy_good(shared, sha) && link(shared, path) == 0)
		return 0;
	ret = psym_zstd((const unsigned char *)buf, len, 9, &z, &zlen, e);
	if (ret)
		return ret;
	if (have_shared && write_buf(shared, (const char *)z, zlen, e) == 0 &&
	    link(shared, path) == 0) {
		free(z);
		return 0;
	}
	ret = write_buf(path, (const char *)z, zlen, e);
	free(z);
	return ret;
}

/* kallsyms' stable lines, named by boot ID and SHA-256 (save_shared). */
static int save_stable(const char *out, const char *dir, const char *buf, size_t len,
		       struct psym_err *e)
{
	char sha[PSYM_SHA256_HEX], name[200];
	struct psym_hostid h;

	psym_hostid_local(&h);
	for (const char *c = h.boot_id; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || *c == '-'))
			h.boot_id[0] = '\0';
	psym_sha256_hex(buf, len, sha);
	snprintf(name, sizeof(name), PSYM_SIDE_KALLSYMS_PFX "%s-%s" PSYM_SIDE_KALLSYMS_SFX,
		 h.boot_id[0] ? h.boot_id : "unknown", sha);
	return save_shared(out, dir, name, sha, buf, len, e);
}

/* A line of code the kernel makes and drops while it runs: BPF, trampolines. */
static bool dyn_line(const char *p, size_t n)
{
	return (n > 6 && !memcmp(p + n - 6, "\t[bpf]", 6)) || memmem(p, n, "\t[__builtin__", 13);
}

/*
 * Split the copy: lines that stay for the boot into *stable, the others
 * (dyn_line) into *dyn; both malloc'd.
 */
static int split_kallsyms(const struct ksyms *ks, char **stable, size_t *slen, char **dyn,
			  size_t *dlen, struct psym_err *e)
{
	const char *p = ks->buf, *end = ks->buf + ks->len;

	*stable = malloc(ks->len + 1);
	*dyn = malloc(ks->len + 1);
	*slen = *dlen = 0;
	if (!*stable || !*dyn) {
		free(*stable);
		free(*dyn);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl + 1 : end) - p);
		bool d = dyn_line(p, nl ? n - 1 : n);

		memcpy(d ? *dyn + *dlen : *stable + *slen, p, n);
		*(d ? dlen : slen) += n;
		p += n;
	}
	return 0;
}

/*
 * The kallsyms copy: its lines that stay for the boot as the shared,
 * content-addressed copy, those that come and go (BPF programs such as
 * this collector's own, trampolines) as the side directory's
 * kallsyms.dyn: without the split no two profiles' copies would match.
 */
static int save_kallsyms(const char *out, const char *dir, const struct ksyms *ks,
			 struct psym_err *e)
{
	char *stable, *dyn;
	size_t slen, dlen;
	char path[4400];
	int ret = split_kallsyms(ks, &stable, &slen, &dyn, &dlen, e);

	if (ret)
		return ret;
	ret = save_stable(out, dir, stable, slen, e);
	snprintf(path, sizeof(path), "%s/" PSYM_SIDE_KALLSYMS_DYN, dir);
	if (!ret && dlen)
		ret = write_buf(path, dyn, dlen, e);
	free(stable);
	free(dyn);
	return ret;
}

/*
 * The kernel addresses of the profile cp: each kernel location's address,
 * and the one before it (a return address is looked up so with
 * --adjust-callers). malloc'd into *out.
 */
static int kernel_addrs(struct psym_collectprof *cp, uint64_t **out, size_t *n, struct psym_err *e)
{
	const struct psym_profile *p = psym_collectprof_profile(cp);
	const pb_profile *pb = p->pb;
	uint64_t *kid = calloc(pb->n_mapping + 1, sizeof(*kid));
	uint64_t *a = calloc(2 * pb->n_location + 1, sizeof(*a));
	size_t nk = 0;

	*out = NULL;
	*n = 0;
	if (!kid || !a) {
		free(kid);
		free(a);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < pb->n_mapping; i++) {
		enum psym_map_class c = psym_mapping_classify(
			psym_profile_str(p, pb->mapping[i]->filename), NULL, 0, NULL);

		if (c == PSYM_MAP_KERNEL || c == PSYM_MAP_KMODULE)
			kid[nk++] = pb->mapping[i]->id;
	}
	for (size_t i = 0; i < pb->n_location; i++) {
		const pb_location *l = pb->location[i];
		bool kernel = false;

		for (size_t j = 0; j < nk && !kernel; j++)
			kernel = l->mapping_id == kid[j];
		if (!kernel)
			continue;
		a[(*n)++] = l->address;
		if (l->address)
			a[(*n)++] = l->address - 1;
	}
	free(kid);
	*out = a;
	return 0;
}

/*
 * The kallsyms subset copy (kallsyms.h) of the profile cp's kernel
 * addresses, zstd-compressed, as dir's PSYM_SIDE_KALLSYMS_SUBSET: a few
 * KB where the whole table is 825 KB compressed.
 */
static int save_subset(const char *dir, const struct ksyms *ks, struct psym_collectprof *cp,
		       struct psym_err *e)
{
	char path[4400], *text = NULL;
	unsigned char *z = NULL;
	size_t naddrs = 0, len = 0, zlen = 0;
	uint64_t *addrs = NULL;
	int ret = kernel_addrs(cp, &addrs, &naddrs, e);

	if (!ret)
		ret = psym_kallsyms_subset(ks->table, addrs, naddrs, &text, &len, e);
	if (ret == PSYM_NOENT) {
		ret = 0; /* no kernel frame to name: no copy */
		goto out;
	}
	if (!ret)
		ret = psym_zstd((const unsigned char *)text, len, 9, &z, &zlen, e);
	if (!ret && (size_t)snprintf(path, sizeof(path), "%s/" PSYM_SIDE_KALLSYMS_SUBSET, dir) >=
			    sizeof(path))
		ret = psym_err_set(e, PSYM_ELIMIT, "'%s': path too long", dir);
	if (!ret)
		ret = write_buf(path, (const char *)z, zlen, e);
out:
	free(addrs);
	free(text);
	free(z);
	return ret;
}

int side_dir_ready(const char *out, mode_t mode, struct psym_err *e)
{
	char dir[4096], why[200];
	struct stat st;

	if ((size_t)snprintf(dir, sizeof(dir), PSYM_SIDE_DIR_FMT, out) >= sizeof(dir))
		return psym_err_set(e, PSYM_ELIMIT, "'%s.d': path too long", out);
	if (mkdir(dir, mode) == 0)
		return 0;
	if (errno != EEXIST)
		return psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", dir, strerror(errno));
	/*
	 * One that was there before is written into only if it is ours: a
	 * directory (not a link to one) of this user or root that nobody
	 * else can write. In a shared directory such as /tmp another user
	 * could have made it, with links where the side files go.
	 */
	if (lstat(dir, &st) != 0)
		return psym_err_set(e, PSYM_EIO, "cannot stat '%s': %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return psym_err_set(e, PSYM_EUSAGE,
				    "'%s' is not a directory of its own (a %s): not written into",
				    dir, S_ISLNK(st.st_mode) ? "symbolic link" : "file");
	if (!psym_stat_trusted(&st, why, sizeof(why)))
		return psym_err_set(e, PSYM_EUSAGE, "'%s' is %s: not written into", dir, why);
	return 0;
}

void drop_stale_stacks(const char *out)
{
	char path[4200];

	if ((size_t)snprintf(path, sizeof(path), PSYM_SIDE_DIR_FMT "/" PSYM_SIDE_USTACKS, out) <
	    sizeof(path))
		unlink(path);
}

/* Remove what an earlier run left in dir: side files never mix runs or hosts. */
static void clear_side_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *n = de->d_name;

		char boot[40], sha[65];

		if (!strcmp(n, PSYM_SIDE_KALLSYMS) || !strcmp(n, PSYM_SIDE_VDSO) ||
		    !strcmp(n, PSYM_SIDE_KALLSYMS_SUBSET) || !strcmp(n, PSYM_SIDE_KALLSYMS_DYN) ||
		    psym_side_kallsyms_id(n, boot, sha) || psym_side_vdso_sha(n, sha) ||
		    !strcmp(n, PSYM_SIDE_MODULES) || psym_side_is_perf_map(n) ||
		    psym_side_is_jit_dump(n))
			unlinkat(dirfd(d), n, 0);
	}
	closedir(d);
}

void side_files(const char *out, bool verbose, const struct ksyms *ks, struct psym_collectprof *cp,
		struct psym_err *e)
{
	char dir[4096], path[4200];
	int nmaps = 0, *jit = NULL;
	size_t njit;

	snprintf(dir, sizeof(dir), PSYM_SIDE_DIR_FMT, out);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "psym-collect: cannot create '%s': %s\n", dir, strerror(errno));
		return;
	}
	clear_side_dir(dir);
	if (ks && ks->table && save_subset(dir, ks, cp, e)) {
		fprintf(stderr, "psym-collect: %s: the whole kallsyms table instead\n", e->msg);
		ks = ks->len ? ks : NULL;
		if (ks && save_kallsyms(out, dir, ks, e))
			fprintf(stderr, "psym-collect: %s\n", e->msg);
	} else if (ks && !ks->table && ks->len && save_kallsyms(out, dir, ks, e)) {
		fprintf(stderr, "psym-collect: %s\n", e->msg);
	}
	/* Loaded modules: name, build ID, .text address (their frames get lines). */
	if (ks && psym_collect_modules(NULL, dir, e))
		fprintf(stderr, "psym-collect: %s\n", e->msg);
	if (save_vdso(out, dir, e))
		fprintf(stderr, "psym-collect: %s\n", e->msg);
	/* Perf maps only of processes with samples in anonymous code (JIT). */
	njit = psym_collectprof_jit_pids(cp, NULL, 0);
	if (njit > MAX_PERF_MAPS)
		njit = MAX_PERF_MAPS;
	jit = njit ? calloc(njit, sizeof(*jit)) : NULL;
	if (jit)
		psym_collectprof_jit_pids(cp, jit, njit);
	for (size_t i = 0; jit && i < njit; i++) {
		char src[256];
		struct stat st;
		int pid = jit[i];

		snprintf(src, sizeof(src), "/proc/%d/root/tmp/perf-%d.map", pid, pid);
		if (stat(src, &st) != 0 || !S_ISREG(st.st_mode)) {
			snprintf(src, sizeof(src), "/tmp/perf-%d.map", pid);
			if (stat(src, &st) != 0 || !S_ISREG(st.st_mode))
				continue;
		}
		snprintf(path, sizeof(path), "%s/" PSYM_SIDE_PERF_MAP_ZST, dir, pid);
		if (copy_compressed(src, path, (size_t)1 << 30, e))
			fprintf(stderr, "psym-collect: %s\n", e->msg);
		else
			nmaps++;
	}
	free(jit);
	if (verbose)
		fprintf(stderr, "psym-collect: side files in '%s' (%d perf maps)\n", dir, nmaps);
}

/* --archive: the binaries of the profile's mappings, while the processes run. */
int write_archive(const struct opts *o, struct psym_collectprof *cp, struct psym_err *e)
{
	struct psym_archive_printer pr = { stderr, o->verbose };
	struct psym_archive_opts ao = { .exclude = o->exclude,
					.n_exclude = (size_t)o->nexclude,
					.event = psym_archive_print_event,
					.event_ud = &pr };
	struct psym_archive_stats st;
	char *name = psym_archive_default_name(o->out);
	int ret;

	if (!name)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	ret = psym_archive_write(psym_collectprof_profile(cp), name, &ao, &st, e);
	if (!ret)
		fprintf(stderr,
			"psym-collect: archive '%s': %zu binaries and %zu debug files for %zu "
			"mappings (%zu not found, %zu excluded), %" PRIu64
			" bytes packed into %" PRIu64 "\n",
			name, st.binaries, st.debug_files, st.mappings, st.missing, st.excluded,
			st.bytes_in, st.bytes_out);
	free(name);
	return ret;
}
