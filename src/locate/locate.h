/* SPDX-License-Identifier: MIT */
/*
 * The locator: every rule psym has for finding a file, in one place, used
 * by every command (symbolize, addr, addr --filter, the kernel and vDSO
 * resolvers).
 *
 * Two halves:
 *   - candidate paths as pure functions (no I/O, unit-tested): for a
 *     binary, pprof's conventions in each search dir, then the mapping's
 *     own path under the sysroot; for a separate debug file, GDB's and
 *     elfutils' conventions (.build-id trees, .gnu_debuglink beside the
 *     binary, in .debug/, under each debug dir by the binary's directory and
 *     by name alone);
 *   - a verifier that opens each candidate as a regular ELF file and checks
 *     it: one build-ID rule everywhere (compared without regard to case):
 *     when the object has a build ID, a candidate with another one, or with
 *     none, is rejected with the reason; a file without a build ID is used
 *     only where the user named it (-e, --main-binary, --vmlinux) or, for
 *     an object without a build ID, where a debuglink CRC vouches for it.
 * Then, for what is still missing, files of the same build ID in the debug
 * dirs and debuginfod.
 *
 * Every candidate and its verdict are recorded, in order, in the caller's
 * optional record (psym_locate_opts.cands: data, worded by the search).
 */
#ifndef PSYM_LOCATE_H
#define PSYM_LOCATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "debuginfod.h"
#include "elffile.h"
#include "error.h"
#include "reason.h"

/*
 * An object's image held in memory (a core's vDSO), found by its build ID
 * before any file is tried; the bytes are the caller's and outlive the run.
 */
struct psym_mem_image {
	const char *build_id; /* lowercase hex */
	const void *bytes;
	size_t len;
	const char *name; /* for messages and --explain */
};

/* One candidate a search tried and what was found there (its verdict, as the search words it). */
struct psym_cand_tried {
	char *path; /* owned, with verdict in the same block */
	const char *verdict;
};

/*
 * The candidates of searches, in order: the caller's record, which it
 * reads (and empties) after the search. At most PSYM_CANDS_MAX are kept;
 * the rest are counted in lost.
 */
struct psym_cands {
	struct psym_cand_tried *v;
	size_t n, lost;
};
#define PSYM_CANDS_MAX 256

/* Appends one (c NULL: nothing kept). */
void psym_cands_push(struct psym_cands *c, const char *path, const char *verdict);
/* Frees every candidate; c is empty again. NULL is fine. */
void psym_cands_free(struct psym_cands *c);

/* The discovery options every command shares (see cli's discovery options). */
struct psym_locate_opts {
	const char *const *search; /* --binary-path dirs + $PPROF_BINARY_PATH */
	size_t n_search;
	const char *sysroot; /* NULL or "" = "/" */
	/* Paths are another host's (a core's): a relative one is refused, never
	 * looked up in the current directory as a crash log's ./prog is. */
	bool foreign_paths;
	const char *const *debug_dirs; /* separate debug files, in order */
	size_t n_debug_dirs;
	/* NULL, or for each debug dir the --debug-pkg it was extracted from (or NULL) */
	const char *const *debug_dir_pkgs;
	struct psym_debuginfod *debuginfod; /* the run's session (debuginfod.h); NULL: never */
	const struct psym_elf_limits *elf_limits;
	struct psym_cands *cands; /* every candidate tried is recorded here; NULL: none */
	/* Kernel, vDSO and JIT objects: */
	const char *side_dir;			  /* the collector's IN.d/, or NULL */
	const char *vmlinux;			  /* --vmlinux, or NULL */
	const char *vdso;			  /* --vdso, or NULL */
	const struct psym_mem_image *vdso_images; /* tried first, by build ID */
	size_t n_vdso_images;
	/*
	 * The profile's kernel build ID, or NULL: when it is the running
	 * kernel's, this machine's own vDSO is the profile's (a vDSO mapping
	 * has no build ID of its own in perf.data).
	 */
	const char *kernel_build_id;
	const char *kallsyms;		  /* --kallsyms, or NULL */
	const char *boot_id;		  /* the profile's recorded boot: the side dir's kallsyms
			      * copies of other boots are refused; NULL: any */
	const char *const *perf_map_dirs; /* where perf-PID.map / jit-PID.dump live */
	size_t n_perf_map_dirs;
	const char *release; /* kernel release for the usual places of
					* vmlinux and the vDSO; NULL: none */
	/* Split DWARF: */
	const char *const *dwo_dirs; /* --dwo-dir: where moved .dwo files are */
	size_t n_dwo_dirs;
	const char *dwp; /* --dwp FILE, or NULL */
	/* Kernel modules (--modules-dir): trees searched for MODULE.ko*. */
	const char *const *modules_dirs;
	size_t n_modules_dirs;
};

/*
 * Whether the side file path, in the collector's side directory side_dir,
 * is refused: a symbolic link is followed only to a regular file inside
 * side_dir or the shared directory beside it (PSYM_SIDE_SHARED); psym-collect
 * itself writes regular files and hard links. *why says why (static text).
 * Other kinds of file are left to the readers, which open regular files only.
 */
bool psym_side_file_refused(const char *side_dir, const char *path, const char **why);
/* fn(ud, path, why) for each file of side_dir that psym_side_file_refused refuses. */
void psym_side_dir_check(const char *side_dir,
			 void (*fn)(void *ud, const char *path, const char *why), void *ud);

/* What an object is looked for by. */
struct psym_objkey {
	const char *path;     /* the path the profile or log names (cleaned), or NULL */
	const char *build_id; /* hex, any case, or NULL when unknown */
	const char *named;    /* a file the user named for this object, or NULL:
			       * the only candidate (its build ID still checked
			       * when both have one) */
};

/* Which rule produced a candidate (for unit tests and --explain). */
enum psym_cand_rule {
	PSYM_CAND_NAMED,	 /* the file the user named */
	PSYM_CAND_BUILDID_BASE,	 /* SEARCH/BUILDID/BASENAME */
	PSYM_CAND_BUILDID_DIR,	 /* SEARCH/BUILDID/: each regular file in it */
	PSYM_CAND_BUILDID,	 /* SEARCH/BUILDID */
	PSYM_CAND_PATH_BUILDID,	 /* SEARCH/PATH/BUILDID */
	PSYM_CAND_BASENAME,	 /* SEARCH/BASENAME */
	PSYM_CAND_PATH,		 /* SEARCH/PATH */
	PSYM_CAND_SYSROOT,	 /* SYSROOT/PATH */
	PSYM_CAND_TREE,		 /* DEBUGDIR/.build-id/NN/REST (the binary) */
	PSYM_CAND_TREE_DEBUG,	 /* DEBUGDIR/.build-id/NN/REST.debug */
	PSYM_CAND_PERF_ELF,	 /* DEBUGDIR/.build-id/NN/REST/elf (perf's build-ID cache) */
	PSYM_CAND_PERF_DEBUG,	 /* DEBUGDIR/.build-id/NN/REST/debug (perf's build-ID cache) */
	PSYM_CAND_LINK_BESIDE,	 /* BINDIR/DEBUGLINK */
	PSYM_CAND_LINK_DOTDEBUG, /* BINDIR/.debug/DEBUGLINK */
	PSYM_CAND_LINK_DEBUGDIR, /* DEBUGDIR/BINDIR/DEBUGLINK */
	PSYM_CAND_LINK_TAIL,	 /* DEBUGDIR/TAIL/DEBUGLINK, TAIL: trailing components of
				  * BINDIR, longest first (elfutils' --debuginfo-path) */
	PSYM_CAND_LINK_FLAT,	 /* DEBUGDIR/DEBUGLINK */
	PSYM_CAND_NAME_DEBUG,	 /* no debuglink: BINDIR/BASENAME.debug and the like */
	PSYM_CAND_ALT_RECORDED,	 /* the alternate file's path as recorded */
	PSYM_CAND_ALT_DEBUGDIR,	 /* DEBUGDIR/REST for a recorded /usr/lib/debug/REST */
	PSYM_CAND_ALT_TREE,	 /* DEBUGDIR/.build-id/NN/REST.debug (the alternate file) */
	/* Split DWARF (only for psym_locate_dwo/dwp_candidates' callers): */
	PSYM_CAND_DWO_AS_NAMED, /* COMP_DIR/DWO_NAME, or DWO_NAME when absolute */
	PSYM_CAND_DWO_BESIDE,	/* BINDIR/DWO_NAME, BINDIR/BASENAME */
	PSYM_CAND_DWO_DIR,	/* DWODIR/DWO_NAME, DWODIR/COMP_DIR/DWO_NAME, DWODIR/BASENAME */
	PSYM_CAND_DWP_NAMED,	/* --dwp FILE */
	PSYM_CAND_DWP_BESIDE,	/* BINARY.dwp */
	PSYM_CAND_DWP_DEBUGDIR, /* DEBUGDIR/BASENAME.dwp */
	/* Kernel modules (trees, for psym_locate_module_roots' callers): */
	PSYM_CAND_MODULE_DIR,	   /* --modules-dir DIR */
	PSYM_CAND_MODULE_DEBUGDIR, /* DEBUGDIR/lib/modules/RELEASE */
	PSYM_CAND_MODULE_SYSROOT,  /* SYSROOT/lib/modules/RELEASE */
};

/* Return true to stop the enumeration. */
typedef bool (*psym_cand_fn)(void *ud, const char *path, enum psym_cand_rule rule);

/*
 * Where a kernel module's file is looked for, in order, without I/O: each
 * --modules-dir, each debug dir's lib/modules/RELEASE, then the sysroot's
 * /lib/modules/RELEASE (RELEASE: o->release; those two are skipped when
 * it is unknown). Each is a tree for psym_kmod_find(). Returns true when
 * fn stopped the enumeration.
 */
bool psym_locate_module_roots(const struct psym_locate_opts *o, psym_cand_fn fn, void *ud);

/*
 * The package (--debug-pkg) whose extracted debug dir holds path, for
 * --explain; NULL when path is in no such dir.
 */
const char *psym_locate_debug_pkg(const struct psym_locate_opts *o, const char *path);

/*
 * Candidates for the binary of k, in order, without I/O: k->named alone
 * when set; else for each search dir, with a valid build ID,
 * BUILDID/BASENAME, BUILDID/ (a directory), BUILDID, PATH/BUILDID, then
 * BASENAME and PATH; then PATH under the sysroot. A path whose ".."
 * components would leave the root is normalized first and never leaves
 * it. Returns true when fn stopped the enumeration.
 */
bool psym_locate_binary_candidates(const struct psym_locate_opts *o, const struct psym_objkey *k,
				   psym_cand_fn fn, void *ud);

/* What is known of a binary whose separate debug file is wanted. */
struct psym_debug_key {
	const char *build_id;	    /* hex, or NULL */
	const char *binary_dir;	    /* directory of the binary as given, or NULL */
	const char *binary_dir_abs; /* the same made absolute (symlinks resolved) */
	const char *debuglink;	    /* .gnu_debuglink file name, or NULL */
	uint32_t debuglink_crc;	    /* its CRC32 */
	const char *binary_base;    /* the binary's file name, or NULL */
};

/*
 * Candidates for the debug file, in order, without I/O: each debug dir's
 * .build-id/NN/REST.debug; then, with a debuglink that is a plain file
 * name, BINDIR/NAME, BINDIR/.debug/NAME, and for each debug dir
 * DEBUGDIR/BINDIR/NAME, the DEBUGDIR/TAIL/NAME of psym_locate_link_tails
 * and DEBUGDIR/NAME. Without a debuglink but with a build ID (which then
 * decides), NAME is the binary's own file name with ".debug" added, in
 * BINDIR, BINDIR/.debug and each DEBUGDIR/BINDIR, as elfutils looks.
 */
/*
 * elfutils' --debuginfo-path rule, without I/O: DEBUGDIR joined with each
 * proper trailing part of the binary's absolute directory, longest first
 * (for /some/root/bin: DEBUGDIR/root/bin/NAME, DEBUGDIR/bin/NAME), so a
 * debug tree laid out for the binary's install path finds it wherever the
 * binary now sits. Nothing for a relative dir or a debuglink with a slash.
 * Returns true when fn asked to stop.
 */
bool psym_locate_link_tails(const char *debug_dir, const char *bindir_abs, const char *debuglink,
			    psym_cand_fn fn, void *ud);

bool psym_locate_debug_candidates(const struct psym_locate_opts *o, const struct psym_debug_key *k,
				  psym_cand_fn fn, void *ud);

/* What a skeleton unit of split DWARF says of its .dwo file. */
struct psym_dwo_key {
	const char *binary_path; /* the file with the skeleton units, or NULL */
	const char *comp_dir;	 /* DW_AT_comp_dir, or NULL */
	const char *dwo_name;	 /* DW_AT_dwo_name / DW_AT_GNU_dwo_name */
};

/*
 * Candidates for a .dwo file, in order, without I/O: the path the
 * compiler wrote (DWO_NAME when absolute, else COMP_DIR/DWO_NAME, taken as
 * is); beside the binary, BINDIR/DWO_NAME and BINDIR/BASENAME; for each
 * --dwo-dir, DIR/DWO_NAME, DIR/COMP_DIR/DWO_NAME and DIR/BASENAME (the
 * BASENAME forms only when DWO_NAME has a directory part). Below
 * BINDIR and a --dwo-dir a name is normalized first, so that ".." never
 * leaves the directory. The reader uses a candidate only when it is a
 * regular ELF file holding the unit with the skeleton's dwo id.
 */
bool psym_locate_dwo_candidates(const struct psym_locate_opts *o, const struct psym_dwo_key *k,
				psym_cand_fn fn, void *ud);

/*
 * Candidates for the .dwp package of a binary, in order: --dwp FILE;
 * BINARY.dwp; DEBUGDIR/BASENAME.dwp for each debug dir.
 */
bool psym_locate_dwp_candidates(const struct psym_locate_opts *o, const char *binary_path,
				psym_cand_fn fn, void *ud);

/*
 * What a debug file says of its alternate (dwz, .gnu_debugaltlink) or
 * supplementary (.debug_sup) file: see psym_dwarf_altlink().
 */
struct psym_alt_key {
	const char *path;      /* as recorded */
	const char *build_id;  /* hex: the alternate file's own must match */
	const char *debug_dir; /* directory of the debug file that names it, or NULL */
};

/*
 * Candidates for the alternate file, in order, without I/O, as GDB and
 * elfutils look: the recorded path (a relative one from the debug file's
 * directory), lexically normalized, only when it lies under a debug dir,
 * under /usr/lib/debug or under the debug file's directory (a hostile
 * path reads nothing else); a recorded /usr/lib/debug/REST re-rooted as
 * DEBUGDIR/REST under each debug dir (where an extracted --debug-pkg tree
 * keeps Debian's .dwz/ files); then each debug dir's
 * .build-id/NN/REST.debug by the alternate file's build ID.
 */
bool psym_locate_alt_candidates(const struct psym_locate_opts *o, const struct psym_alt_key *k,
				psym_cand_fn fn, void *ud);

/*
 * Find and open the alternate file: the candidates above, then debuginfod
 * by its build ID. Every file's build ID must be k->build_id. Returns 0
 * with *out, PSYM_NOENT with the most telling reason in why, or an error.
 */
int psym_locate_alt(const struct psym_locate_opts *o, const struct psym_alt_key *k,
		    struct psym_elf **out, struct psym_reason *why, struct psym_err *e);

/*
 * Find and open the binary for k (see above; then, when the binary itself
 * is nowhere, a file with its build ID in the debug dirs' .build-id trees
 * or from debuginfod can stand in: debug files keep the program headers
 * and symbols). Returns 0 with *out, PSYM_NOENT with the most telling
 * reason in why, or a negative error (ENOMEM).
 */
int psym_locate_binary(const struct psym_locate_opts *o, const struct psym_objkey *k,
		       struct psym_elf **out, struct psym_reason *why, struct psym_err *e);

/*
 * Find and open the separate debug file of an opened binary (build-ID
 * trees, debuglink, then debuginfod). Returns 0 with *out, PSYM_NOENT with
 * why, or a negative error.
 */
int psym_locate_debug(const struct psym_locate_opts *o, struct psym_elf *binary,
		      struct psym_elf **out, struct psym_reason *why, struct psym_err *e);

/*
 * The same for what is known of a binary: its build ID (or NULL), path
 * (or NULL: no debuglink rules), debuglink name and CRC (or NULL, 0).
 */
int psym_locate_debug_file(const struct psym_locate_opts *o, const char *build_id,
			   const char *binary_path, const char *debuglink, uint32_t crc,
			   struct psym_elf **out, struct psym_reason *why, struct psym_err *e);

/*
 * Any file with this build ID: the debug dirs' .build-id trees (the binary,
 * then its debug file), then debuginfod (executable, then debuginfo). The
 * file's own build ID must be build_id. For psym addr --build-id and for
 * objects found only by their build ID (a kernel).
 */
int psym_locate_by_build_id(const struct psym_locate_opts *o, const char *build_id,
			    struct psym_elf **out, struct psym_reason *why, struct psym_err *e);

/*
 * The kernel image: --vmlinux, else by the kernel's build ID (debug dirs,
 * debuginfod), else the usual places of the release's debug image when
 * build IDs agree. A found image must define _text (or _stext): its
 * link-time address goes to *text. Returns 0, PSYM_NOENT with why, or an
 * error.
 */
int psym_locate_vmlinux(const struct psym_locate_opts *o, const char *build_id,
			struct psym_elf **out, uint64_t *text, struct psym_reason *why,
			struct psym_err *e);

/*
 * The vDSO image: the image in memory with build_id (vdso_images; the
 * file opened then is named as the image is and cannot be opened again by
 * that name), --vdso, the side dir's vdso.so, the copy of that build ID
 * in perf's build-ID cache of each debug dir ([vdso]/ID/vdso), the
 * release's vdso64.so. build_id may be NULL (unknown).
 */
int psym_locate_vdso(const struct psym_locate_opts *o, const char *build_id, struct psym_elf **out,
		     struct psym_reason *why, struct psym_err *e);

/*
 * The kallsyms copy: --kallsyms, else the side dir's content-addressed
 * copy of the profile's boot (kallsyms-BOOT-SHA.zst), else its old
 * uncompressed kallsyms, else the copy perf's build-ID cache keeps of the
 * kernel of build_id (NULL: unknown) in a debug dir
 * ([kernel.kallsyms]/ID/kallsyms). Writes the path into buf and returns
 * 0, or PSYM_NOENT with why.
 */
int psym_locate_kallsyms(const struct psym_locate_opts *o, const char *build_id, char *buf,
			 size_t bufsz, struct psym_reason *why);

/*
 * Perf maps and jitdumps of process pid: for each of the side dir and the
 * perf map dirs, DIR/perf-PID.map and DIR/jit-PID.dump; fn gets each one
 * that exists (jitdump: true for a jitdump) and returns true to stop that
 * kind of file (the first that loads wins).
 */
typedef bool (*psym_perfmap_fn)(void *ud, const char *path, bool jitdump);
void psym_locate_perf_maps(const struct psym_locate_opts *o, int pid, psym_perfmap_fn fn, void *ud);

/*
 * GNU build IDs are hex: equal when they are the same digits, in any case.
 * Go build IDs ("go:" form, buildid.h) are equal only byte for byte.
 */
bool psym_build_id_equal(const char *a, const char *b);

/* DIR/.build-id/NN/REST<suffix> into buf; false if build_id is not sane hex. */
bool psym_build_id_path(const char *dir, const char *build_id, const char *suffix, char *buf,
			size_t bufsz);

/* CRC32 (the .gnu_debuglink polynomial, zlib's) of a whole regular file. */
int psym_file_crc32(const char *path, uint32_t *crc, struct psym_err *e);

/*
 * Lexically normalize a path: drop "." and empty components, resolve ".."
 * without ever going above the root. Writes the "/a/b" form into buf.
 * False if it does not fit.
 */
bool psym_path_normalize(const char *path, char *buf, size_t bufsz);

#endif
