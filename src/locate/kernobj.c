/* SPDX-License-Identifier: MIT */
/*
 * Kernel, vDSO and JIT objects (locate.h): the vmlinux (by build ID, by the
 * usual paths, or as given), the vDSO (from memory, a file or by build ID),
 * a copy of kallsyms, and the perf maps and jitdumps of a process.
 */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "buildid.h"
#include "compress.h"
#include "fileio.h"
#include "locate.h"
#include "sha256.h"
#include "sidenames.h"

static void explain(const struct psym_locate_opts *o, const char *path, const char *verdict);

/* A regular file, and not a side file psym_side_file_refused refuses (said in --explain). */
static bool is_file_o(const struct psym_locate_opts *o, const char *path)
{
	struct stat st;
	const char *why;
	size_t n = o && o->side_dir ? strlen(o->side_dir) : 0;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	if (n && !strncmp(path, o->side_dir, n) && path[n] == '/' &&
	    psym_side_file_refused(o->side_dir, path, &why)) {
		explain(o, path, why);
		return false;
	}
	return true;
}

/* Whether real (a resolved path) is dir or inside it. */
static bool inside(const char *real, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(real, dir, n) && (real[n] == '/' || real[n] == '\0' || !strcmp(dir, "/"));
}

bool psym_side_file_refused(const char *side_dir, const char *path, const char **why)
{
	char real[PATH_MAX], dir[PATH_MAX], shared[PATH_MAX + 32];
	struct stat st;
	const char *slash;

	*why = NULL;
	if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
		return false;
	*why = "a symbolic link out of the side directory";
	if (!realpath(side_dir, dir) || !realpath(path, real)) {
		*why = "a symbolic link that does not resolve";
		return true;
	}
	if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "a symbolic link to no regular file";
		return true;
	}
	if (inside(real, dir))
		return false;
	/* The shared directory beside the profile: DIR/../.psym-shared. */
	slash = strrchr(dir, '/');
	if (slash &&
	    snprintf(shared, sizeof(shared), "%.*s/" PSYM_SIDE_SHARED, (int)(slash - dir), dir) <
		    (int)sizeof(shared) &&
	    inside(real, shared))
		return false;
	return true;
}

void psym_side_dir_check(const char *side_dir,
			 void (*fn)(void *ud, const char *path, const char *why), void *ud)
{
	DIR *d = opendir(side_dir);
	struct dirent *de;
	char path[4200];
	const char *why;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    snprintf(path, sizeof(path), "%s/%s", side_dir, de->d_name) <
			    (int)sizeof(path) &&
		    psym_side_file_refused(side_dir, path, &why))
			fn(ud, path, why);
	closedir(d);
}

/* A candidate and its verdict, into the caller's record. */
static void explain(const struct psym_locate_opts *o, const char *path, const char *verdict)
{
	psym_cands_push(o->cands, path, verdict);
}

/* A vmlinux must define _text; a guess by path needs agreeing build IDs. */
static bool vmlinux_ok(const struct psym_locate_opts *o, struct psym_elf *elf, const char *want,
		       const char *path, bool explicit, uint64_t *text, struct psym_reason *why)
{
	const char *have = psym_elf_build_id(elf);

	if (want && *want && have && !psym_build_id_equal(want, have)) {
		psym_reason_set(why, PSYM_R_BUILD_ID_MISMATCH,
				"'%s': build ID %s is not the profiled kernel's (%s)", path, have,
				want);
		explain(o, path, "rejected: build IDs differ");
		return false;
	}
	if (!explicit && (!want || !*want || !have)) {
		explain(o, path, "rejected: build IDs unknown or differ");
		return false;
	}
	if (psym_elf_find_symbol(elf, "_text", text) != 0 &&
	    psym_elf_find_symbol(elf, "_stext", text) != 0) {
		psym_reason_set(why, PSYM_R_NO_VMLINUX, "'%s': no _text symbol (not a vmlinux?)",
				path);
		return false;
	}
	return true;
}

int psym_locate_vmlinux(const struct psym_locate_opts *o, const char *build_id,
			struct psym_elf **out, uint64_t *text, struct psym_reason *why,
			struct psym_err *e)
{
	struct psym_reason r2 = { 0 };
	struct psym_elf *elf = NULL;
	struct psym_err le = { 0 };
	char path[4][600];
	size_t np = 0;
	int ret;

	memset(why, 0, sizeof(*why));
	if (build_id && !*build_id)
		build_id = NULL;
	if (o->vmlinux) {
		ret = psym_elf_open(o->vmlinux, o->elf_limits, &elf, &le);
		if (ret == PSYM_ENOMEM)
			return psym_err_set(e, ret, "%s", le.msg);
		if (ret) {
			psym_reason_set(why, PSYM_R_BAD_FILE, "%s", le.msg);
			return PSYM_NOENT;
		}
		if (!vmlinux_ok(o, elf, build_id, o->vmlinux, true, text, why)) {
			psym_elf_close(elf);
			return PSYM_NOENT;
		}
		goto found;
	}
	if (build_id) {
		ret = psym_locate_by_build_id(o, build_id, &elf, &r2, e);
		if (ret < 0)
			return ret;
		if (ret == 0) {
			if (vmlinux_ok(o, elf, build_id, psym_elf_path(elf), true, text, why))
				goto found;
			psym_elf_close(elf);
			elf = NULL;
		}
	}
	if (o->release) {
		snprintf(path[np++], sizeof(path[0]), "/usr/lib/debug/boot/vmlinux-%s", o->release);
		snprintf(path[np++], sizeof(path[0]), "/usr/lib/debug/lib/modules/%s/vmlinux",
			 o->release);
		snprintf(path[np++], sizeof(path[0]), "/boot/vmlinux-%s", o->release);
		snprintf(path[np++], sizeof(path[0]), "/lib/modules/%s/build/vmlinux", o->release);
	}
	for (size_t i = 0; i < np; i++) {
		ret = psym_elf_open(path[i], o->elf_limits, &elf, &le);
		if (ret == PSYM_ENOMEM)
			return psym_err_set(e, ret, "%s", le.msg);
		if (ret) {
			explain(o, path[i], "not found");
			continue;
		}
		if (vmlinux_ok(o, elf, build_id, path[i], false, text, why))
			goto found;
		psym_elf_close(elf);
		elf = NULL;
	}
	if (why->code == PSYM_R_NONE)
		psym_reason_set(why, PSYM_R_NO_VMLINUX, "no vmlinux for kernel build ID %s",
				build_id ? build_id : "(unknown)");
	return PSYM_NOENT;
found:
	explain(o, psym_elf_path(elf), "vmlinux used");
	*out = elf;
	return 0;
}

/* The image in memory with build_id: 0 with *out, PSYM_NOENT (none), or an error. */
static int vdso_in_memory(const struct psym_locate_opts *o, const char *build_id,
			  struct psym_elf **out, struct psym_reason *why, struct psym_err *e)
{
	for (size_t i = 0; build_id && i < o->n_vdso_images; i++) {
		const struct psym_mem_image *im = &o->vdso_images[i];
		struct psym_err le = { 0 };
		void *copy;
		int ret;

		if (strcasecmp(im->build_id, build_id))
			continue;
		copy = malloc(im->len ? im->len : 1);
		if (!copy)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		memcpy(copy, im->bytes, im->len);
		ret = psym_elf_open_mem(copy, im->len, true, im->name, o->elf_limits, out, &le);
		if (ret == PSYM_ENOMEM)
			return psym_err_set(e, ret, "%s", le.msg);
		if (ret) {
			explain(o, im->name, le.msg);
			psym_reason_set(why, PSYM_R_BAD_FILE, "%s", le.msg);
			continue;
		}
		explain(o, im->name, "vDSO image used");
		return 0;
	}
	return PSYM_NOENT;
}

/* The side dir's first vdso-SHA256.so.zst into buf; PSYM_NOENT when none. */
static int side_vdso_name(const char *dir, char *buf, size_t bufsz)
{
	char best[128] = "", sha[65];
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return PSYM_NOENT;
	while ((de = readdir(d)))
		if (psym_side_vdso_sha(de->d_name, sha) && (!*best || strcmp(de->d_name, best) < 0))
			snprintf(best, sizeof(best), "%s", de->d_name);
	closedir(d);
	if (!*best || snprintf(buf, bufsz, "%s/%s", dir, best) >= (int)bufsz)
		return PSYM_NOENT;
	return 0;
}

/*
 * A compressed, content-addressed vDSO image: inflated (at most 1 MiB, as
 * the collector saves), its content checked against its name, opened.
 */
static int open_vdso_zst(const struct psym_locate_opts *o, const char *path, struct psym_elf **out,
			 struct psym_err *e)
{
	const size_t max = (size_t)1 << 20;
	const char *base = strrchr(path, '/');
	unsigned char *raw = NULL, *img = NULL;
	size_t rawlen = 0, len = 0;
	char sha[65];
	int ret;

	if (!psym_side_vdso_sha(base ? base + 1 : path, sha))
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': not a vDSO image's name", path);
	ret = psym_read_file_cap(path, max, NULL, &raw, &rawlen, e);
	if (ret)
		return ret;
	ret = psym_unzstd(raw, rawlen, max, path, &img, &len, e);
	free(raw);
	if (ret)
		return ret;
	ret = psym_sha256_verify(img, len, sha, path, "image", e);
	if (ret) {
		free(img);
		return ret;
	}
	return psym_elf_open_mem(img, len, true, path, o->elf_limits, out, e);
}

/*
 * The copy of NAME ("kallsyms", "vdso") perf's build-ID cache keeps for
 * build_id under a debug dir: DIR/[KIND]/ID/NAME, as perf record and perf
 * archive lay it out, into buf; PSYM_NOENT when none.
 */
static int perf_cache_file(const struct psym_locate_opts *o, const char *kind, const char *name,
			   const char *build_id, char *buf, size_t bufsz)
{
	char id[PSYM_BUILD_ID_HEX_MAX];

	if (!build_id || !psym_build_id_valid(build_id) || strlen(build_id) >= sizeof(id))
		return PSYM_NOENT;
	strcpy(id, build_id);
	psym_build_id_lower(id);
	for (size_t i = 0; i < o->n_debug_dirs; i++) {
		int n = snprintf(buf, bufsz, "%s/[%s]/%s/%s", o->debug_dirs[i], kind, id, name);

		if (n > 0 && (size_t)n < bufsz && is_file_o(o, buf))
			return 0;
	}
	return PSYM_NOENT;
}

/*
 * This process's own vDSO, the image the profiled processes mapped when
 * the profile is of this kernel (perf reads its own too): when its build
 * ID is build_id or, the vDSO's unknown (perf.data records none), when the
 * profile's kernel build ID is the running kernel's. 0 with *out,
 * PSYM_NOENT, or PSYM_ENOMEM.
 */
static int own_vdso(const struct psym_locate_opts *o, const char *build_id, struct psym_elf **out,
		    struct psym_err *e)
{
	static const char name[] = "[vdso] (this machine's)";
	struct psym_err le = { 0 };
	const void *bytes;
	const char *id;
	size_t len;
	void *copy;
	int ret;

	char kbid[PSYM_BUILD_ID_HEX_MAX];

	if (!build_id &&
	    (!o->kernel_build_id || psym_kernel_notes_build_id("/sys/kernel/notes", kbid, &le) ||
	     strcasecmp(kbid, o->kernel_build_id)))
		return PSYM_NOENT;
	if (psym_own_vdso(&bytes, &len))
		return PSYM_NOENT;
	copy = malloc(len);
	if (!copy)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	memcpy(copy, bytes, len);
	ret = psym_elf_open_mem(copy, len, true, name, o->elf_limits, out, &le);
	if (ret == PSYM_ENOMEM)
		return psym_err_set(e, ret, "%s", le.msg);
	if (ret) {
		explain(o, name, le.msg);
		return PSYM_NOENT;
	}
	id = psym_elf_build_id(*out);
	if (build_id && (!id || strcasecmp(id, build_id))) {
		explain(o, name, "another build ID");
		psym_elf_close(*out);
		*out = NULL;
		return PSYM_NOENT;
	}
	explain(o, name,
		build_id ? "vDSO image used"
			 : "vDSO image used (the profile's kernel is this one)");
	return 0;
}

int psym_locate_vdso(const struct psym_locate_opts *o, const char *build_id, struct psym_elf **out,
		     struct psym_reason *why, struct psym_err *e)
{
	char cands[5][4200];
	size_t n = 0;
	int ret;

	memset(why, 0, sizeof(*why));
	ret = vdso_in_memory(o, build_id, out, why, e);
	if (ret != PSYM_NOENT)
		return ret;
	if (o->vdso)
		snprintf(cands[n++], sizeof(cands[0]), "%s", o->vdso);
	if (o->side_dir && side_vdso_name(o->side_dir, cands[n], sizeof(cands[0])) == 0)
		n++;
	if (o->side_dir)
		snprintf(cands[n++], sizeof(cands[0]), "%s/" PSYM_SIDE_VDSO, o->side_dir);
	if (perf_cache_file(o, "vdso", "vdso", build_id, cands[n], sizeof(cands[0])) == 0)
		n++;
	if (o->release)
		snprintf(cands[n++], sizeof(cands[0]), "/lib/modules/%s/vdso/vdso64.so",
			 o->release);
	psym_reason_set(why, PSYM_R_NO_VDSO,
			"no vDSO image (give --vdso FILE, or keep the collector's side directory)");
	for (size_t i = 0; i <= n; i++) {
		if (i == n) {
			ret = own_vdso(o, build_id, out, e);
			if (ret != PSYM_NOENT)
				return ret;
			break;
		}
		struct psym_err le = { 0 };

		if (!is_file_o(o, cands[i])) {
			explain(o, cands[i], "not found");
			continue;
		}
		const char *base = strrchr(cands[i], '/');
		char sha[65];

		if (o->side_dir && psym_side_vdso_sha(base ? base + 1 : cands[i], sha))
			ret = open_vdso_zst(o, cands[i], out, &le);
		else
			ret = psym_elf_open(cands[i], o->elf_limits, out, &le);
		if (ret == PSYM_ENOMEM)
			return psym_err_set(e, ret, "%s", le.msg);
		if (ret) {
			explain(o, cands[i], le.msg);
			psym_reason_set(why, PSYM_R_BAD_FILE, "%s", le.msg);
			continue;
		}
		explain(o, cands[i], "vDSO image used");
		return 0;
	}
	return PSYM_NOENT;
}

/*
 * The side dir's content-addressed copy (kallsyms-BOOT-SHA.zst) of the
 * profile's boot into buf: the first by name, for the same answer every
 * time. A copy of another boot is refused, said in --explain.
 */
static int side_kallsyms(const struct psym_locate_opts *o, char *buf, size_t bufsz)
{
	char best[256] = "", boot[40], sha[65], path[4200], verdict[160];
	DIR *d = opendir(o->side_dir);
	struct dirent *de;

	if (!d)
		return PSYM_NOENT;
	while ((de = readdir(d))) {
		if (!psym_side_kallsyms_id(de->d_name, boot, sha) ||
		    strlen(de->d_name) >= sizeof(best))
			continue;
		if (o->boot_id && *o->boot_id && strcmp(boot, o->boot_id) != 0) {
			snprintf(path, sizeof(path), "%s/%s", o->side_dir, de->d_name);
			snprintf(verdict, sizeof(verdict),
				 "refused: a copy of boot %s, the profile was recorded on boot %s",
				 boot, o->boot_id);
			explain(o, path, verdict);
			continue;
		}
		if (!*best || strcmp(de->d_name, best) < 0)
			snprintf(best, sizeof(best), "%s", de->d_name);
	}
	closedir(d);
	if (!*best || snprintf(buf, bufsz, "%s/%s", o->side_dir, best) >= (int)bufsz ||
	    !is_file_o(o, buf))
		return PSYM_NOENT;
	return 0;
}

int psym_locate_kallsyms(const struct psym_locate_opts *o, const char *build_id, char *buf,
			 size_t bufsz, struct psym_reason *why)
{
	memset(why, 0, sizeof(*why));
	if (o->kallsyms) {
		snprintf(buf, bufsz, "%s", o->kallsyms);
		return 0;
	}
	/* The profile's own subset (psym-collect's default) first. */
	if (o->side_dir &&
	    snprintf(buf, bufsz, "%s/" PSYM_SIDE_KALLSYMS_SUBSET, o->side_dir) < (int)bufsz &&
	    is_file_o(o, buf))
		return 0;
	if (o->side_dir && side_kallsyms(o, buf, bufsz) == 0)
		return 0;
	if (o->side_dir &&
	    snprintf(buf, bufsz, "%s/" PSYM_SIDE_KALLSYMS, o->side_dir) < (int)bufsz &&
	    is_file_o(o, buf))
		return 0;
	if (perf_cache_file(o, "kernel.kallsyms", "kallsyms", build_id, buf, bufsz) == 0)
		return 0;
	psym_reason_set(why, PSYM_R_NO_KALLSYMS,
			"no kallsyms copy (give --kallsyms FILE, or keep the collector's side "
			"directory next to the profile)");
	return PSYM_NOENT;
}

void psym_locate_perf_maps(const struct psym_locate_opts *o, int pid, psym_perfmap_fn fn, void *ud)
{
	char path[4200];

	if (pid <= 0)
		return;
	for (int jit = 0; jit < 2; jit++) {
		for (size_t i = 0; i < 1 + o->n_perf_map_dirs; i++) {
			const char *dir = i == 0 ? o->side_dir : o->perf_map_dirs[i - 1];

			if (!dir)
				continue;
			if (jit)
				snprintf(path, sizeof(path), "%s/" PSYM_SIDE_JIT_DUMP, dir, pid);
			else if (i == 0 &&
				 snprintf(path, sizeof(path), "%s/" PSYM_SIDE_PERF_MAP_ZST, dir,
					  pid) < (int)sizeof(path) &&
				 is_file_o(o, path))
				; /* the collector's compressed snapshot */
			else
				snprintf(path, sizeof(path), "%s/" PSYM_SIDE_PERF_MAP, dir, pid);
			if (!is_file_o(o, path)) {
				if (!jit)
					explain(o, path, "not found");
				continue;
			}
			if (fn(ud, path, jit))
				break; /* the first (newest: the saved snapshot) wins */
		}
	}
}
