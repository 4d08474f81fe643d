/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "binfind.h"
#include "builder.h"
#include "demangle.h"
#include "funcmemo.h"
#include "kallsyms.h"
#include "perfmap.h"
#include "mapping.h"
#include "symbolize.h"

#define MAX_FRAMES 256

/* One opened binary, shared by every mapping of the same file. */
struct binary {
	struct psym_binary *bin; /* NULL when not found */
	char *key;               /* path + build ID */
	char why[1024];          /* why not found */
	pthread_mutex_t mu;      /* held while opening and while a mapping uses it */
};

/*
 * Binaries by key. A run has its own; the runs of a batch share one, so
 * each binary and debug file is opened and indexed once for all profiles.
 * Lookups into one binary are serialized (its DWARF caches are not
 * thread-safe); different binaries are used in parallel.
 */
struct psym_bincache {
	pthread_mutex_t mu;
	struct binary **bins;
	size_t n;
	bool shared;
	struct psym_binary_opts bopts;  /* shared: a copy that outlives the runs */
	struct psym_reader_limits limits;
};

struct psym_bincache *psym_bincache_new(const struct psym_symbolize_opts *o)
{
	struct psym_bincache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	pthread_mutex_init(&c->mu, NULL);
	c->shared = true;
	c->limits = o->limits;
	c->bopts = (struct psym_binary_opts){
		.inlines = !o->no_inlines,
		.debug_dirs = o->debug_dirs,
		.n_debug_dirs = o->n_debug_dirs,
		.debuginfod = o->debuginfod,
		.elf_limits = &c->limits.elf,
		.limits = &c->limits,
		.cache_dir = o->cache_dir,
	};
	return c;
}

void psym_bincache_free(struct psym_bincache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		psym_binary_free(c->bins[i]->bin);
		free(c->bins[i]->key);
		pthread_mutex_destroy(&c->bins[i]->mu);
		free(c->bins[i]);
	}
	free(c->bins);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

struct run {
	struct psym_profile *p;
	const struct psym_symbolize_opts *o;
	struct psym_symbolize_result *r;
	struct psym_builder *b;
	struct psym_funcmemo *memo; /* NULL: out of memory, go without */
	struct psym_bincache own, *cache; /* cache: &own, or the batch's */
	struct psym_binary_opts bopts;
	bool *caller_only;       /* by location position, for --adjust-callers */
	int *loc_pid;            /* by location position: pid label of a sample */
	struct psym_kallsyms *ks;
	bool ks_tried;
	char ks_why[1100];
	struct pmcache {
		int pid;
		struct psym_perfmap *pm; /* NULL: none found */
		char why[1100];
	} *pms;
	size_t npms;
	struct psym_binary *vmlinux; /* kernel image with DWARF, NULL: none */
	bool vmlinux_tried;
	uint64_t vmlinux_text;       /* link-time _text of vmlinux */
	char vmlinux_why[1100];
	struct psym_binary *vdso;
	bool vdso_tried;
	char vdso_why[1100];
	char vdso_side[4200];
	struct timespec start, last_progress;
	bool progress_shown;
};

static void logf_(const struct run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void logf_(const struct run *run, const char *fmt, ...)
{
	va_list ap;

	if (!run->o->log || run->o->quiet)
		return;
	va_start(ap, fmt);
	vfprintf(run->o->log, fmt, ap);
	va_end(ap);
}

static void explain_cb(void *ud, const char *path, const char *verdict)
{
	const struct run *run = ud;

	if (run->o->log)
		fprintf(run->o->log, "    tried '%s': %s\n", path, verdict);
}

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void progress(struct run *run, size_t mi, size_t nm)
{
	struct timespec now;

	if (!run->o->progress || !run->o->log)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (elapsed(&run->start, &now) < 1.0 || elapsed(&run->last_progress, &now) < 0.2)
		return;
	run->last_progress = now;
	run->progress_shown = true;
	fprintf(run->o->log, "\rpsym: symbolizing mapping %zu/%zu, %zu locations resolved ", mi + 1,
		nm, run->r->resolved);
	fflush(run->o->log);
}

static void progress_clear(struct run *run)
{
	if (run->progress_shown && run->o->log)
		fprintf(run->o->log, "\r\033[K");
	run->progress_shown = false;
}

/*
 * The resolver step: frames for an ELF virtual address, innermost first:
 * DWARF lines and inline frames when there is debug information, else the
 * symbol table.
 */
static size_t resolve_addr(struct binary *bin, uint64_t vaddr, struct psym_frame *frames,
			   size_t max)
{
	return psym_binary_resolve(bin->bin, vaddr, frames, max);
}

/*
 * Append frames as Lines of loc. memo: the frames' strings live as long as
 * the run (binaries, not perf maps or kallsyms), so a function seen before
 * is found by their addresses without demangling again.
 */
static int add_frames(struct run *run, pb_location *loc, const struct psym_frame *frames,
		      size_t n, bool memo)
{
	for (size_t i = 0; i < n; i++) {
		const struct psym_frame *f = &frames[i];
		uint64_t fid = memo ? psym_funcmemo_get(run->memo, f) : 0;
		int ret;

		if (!fid) {
			const char *sys = f->linkage_name ? f->linkage_name : f->name;
			char *dem = run->o->no_demangle ? NULL : psym_demangle(sys);

			fid = psym_builder_function(run->b, dem ? dem : f->name, sys,
						    f->file ? f->file : "", f->start_line);
			free(dem);
			if (!fid)
				return psym_builder_error(run->b);
			if (memo)
				psym_funcmemo_put(run->memo, f, fid);
		}
		ret = psym_builder_add_line(run->b, loc, fid, f->line, f->column);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * When the binary itself cannot be found, a file with the same build ID can
 * stand in: the binary in a debug dir's .build-id tree, its separate debug
 * file (debug files keep the program headers and the symbol table), or
 * what debuginfod has for it.
 */
static int find_by_build_id(struct run *run, const char *build_id, struct psym_elf **out,
			    char *why, size_t whysz)
{
	const struct psym_symbolize_opts *o = run->o;
	struct psym_err e = { 0 };
	char path[4096];

	if (!build_id || !psym_build_id_valid(build_id))
		return PSYM_NOENT;
	for (size_t i = 0; i < o->n_debug_dirs; i++) {
		static const char *const suffixes[] = { "", ".debug" };

		for (size_t k = 0; k < 2; k++) {
			if (!psym_build_id_path(o->debug_dirs[i], build_id, suffixes[k], path,
						sizeof(path)) ||
			    psym_elf_open(path, &o->limits.elf, out, &e) != 0)
				continue;
			if (psym_elf_build_id(*out) && !strcmp(psym_elf_build_id(*out), build_id)) {
				if (o->explain)
					explain_cb(run, path, "used (found by build ID)");
				return 0;
			}
			psym_elf_close(*out);
		}
	}
	if (o->debuginfod) {
		static const enum psym_debuginfod_kind kinds[] = { PSYM_DEBUGINFOD_EXECUTABLE,
								   PSYM_DEBUGINFOD_DEBUGINFO };

		for (size_t k = 0; k < 2; k++) {
			struct psym_debuginfod_req r = { .build_id = build_id, .kind = kinds[k] };

			if (psym_debuginfod_fetch(o->debuginfod, &r, 1, &e) != 0 || !r.path) {
				if (o->explain)
					explain_cb(run, build_id, r.reason);
				if (k == 1)
					snprintf(why + strlen(why), whysz - strlen(why), "; %s",
						 r.reason);
				continue;
			}
			if (psym_elf_open(r.path, &o->limits.elf, out, &e) == 0 &&
			    psym_elf_build_id(*out) && !strcmp(psym_elf_build_id(*out), build_id)) {
				if (o->explain)
					explain_cb(run, r.path, "used (from debuginfod)");
				psym_debuginfod_reqs_free(&r, 1);
				return 0;
			}
			if (*out)
				psym_elf_close(*out);
			*out = NULL;
			psym_debuginfod_reqs_free(&r, 1);
		}
	}
	return PSYM_NOENT;
}

/*
 * The binary for a mapping, opened once per cache; returned with its mutex
 * held (the caller unlocks it when done with the mapping).
 */
static int open_binary(struct run *run, const char *path, const char *build_id,
		       const char *override, struct binary **out, struct psym_err *e)
{
	struct psym_binfind_opts bo = {
		.search = run->o->binary_path,
		.n_search = run->o->n_binary_path,
		.sysroot = run->o->sysroot,
		.explain = run->o->explain ? explain_cb : NULL,
		.explain_ud = run,
		.elf_limits = &run->o->limits.elf,
	};
	struct psym_bincache *c = run->cache;
	struct psym_elf *elf = NULL;
	struct binary **nb, *slot;
	char *key;
	int ret;

	if (asprintf(&key, "%s\n%s\n%s", override ? override : "", path,
		     build_id ? build_id : "") < 0)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->bins[i]->key, key) == 0) {
			slot = c->bins[i];
			pthread_mutex_unlock(&c->mu);
			free(key);
			pthread_mutex_lock(&slot->mu); /* waits while another run opens it */
			*out = slot;
			return 0;
		}
	}
	nb = realloc(c->bins, (c->n + 1) * sizeof(*nb));
	slot = calloc(1, sizeof(*slot));
	if (!nb || !slot) {
		if (nb)
			c->bins = nb;
		pthread_mutex_unlock(&c->mu);
		free(slot);
		free(key);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	c->bins = nb;
	slot->key = key;
	pthread_mutex_init(&slot->mu, NULL);
	pthread_mutex_lock(&slot->mu);
	c->bins[c->n++] = slot;
	pthread_mutex_unlock(&c->mu);
	*out = slot;
	ret = psym_binfind(&bo, path, build_id, override, &elf, slot->why, sizeof(slot->why), e);
	if (ret < 0)
		return ret;
	if (ret == PSYM_NOENT &&
	    (override || find_by_build_id(run, build_id, &elf, slot->why, sizeof(slot->why)) != 0))
		return 0;
	return psym_binary_new(elf, c->shared ? &c->bopts : &run->bopts, &slot->bin, e);
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static struct psym_kallsyms *get_kallsyms(struct run *run)
{
	struct psym_err e = { 0 };
	char path[4200];
	const char *src = run->o->kallsyms;

	if (run->ks_tried)
		return run->ks;
	run->ks_tried = true;
	if (!src && run->o->side_dir) {
		snprintf(path, sizeof(path), "%s/kallsyms", run->o->side_dir);
		if (is_file(path))
			src = path;
	}
	if (!src) {
		snprintf(run->ks_why, sizeof(run->ks_why),
			 "no kallsyms copy (give --kallsyms FILE, or keep the collector's side "
			 "directory next to the profile)");
		return NULL;
	}
	if (psym_kallsyms_open(src, run->o->limits.kallsyms_symbols, &run->ks, &e) != 0) {
		snprintf(run->ks_why, sizeof(run->ks_why), "%s", e.msg);
		run->ks = NULL;
	} else {
		if (psym_kallsyms_malformed(run->ks))
			logf_(run, "psym: '%s': %zu malformed lines skipped\n", src,
			      psym_kallsyms_malformed(run->ks));
		if (run->o->explain)
			explain_cb(run, src, "kernel symbols used");
	}
	return run->ks;
}

/* The perf map (and jitdump) of a process, loaded once. */
/* Add one perf map or jitdump file to c, saying how many lines were skipped. */
static int add_perfmap(struct run *run, struct pmcache *c, const char *path, bool jitdump,
		       struct psym_err *e)
{
	size_t before = psym_perfmap_malformed(c->pm);
	int ret = jitdump ? psym_perfmap_add_jitdump(c->pm, path, e) :
			    psym_perfmap_add_file(c->pm, path, e);
	size_t bad = psym_perfmap_malformed(c->pm) - before;

	if (ret == 0 && bad)
		logf_(run, "psym: '%s': %zu malformed %s skipped\n", path, bad,
		      jitdump ? "records" : "lines");
	return ret;
}

static struct pmcache *get_perfmap(struct run *run, int pid)
{
	const struct psym_symbolize_opts *o = run->o;
	struct psym_err e = { 0 };
	struct pmcache *c, *n;
	char path[4200];
	size_t found = 0;

	for (size_t i = 0; i < run->npms; i++)
		if (run->pms[i].pid == pid)
			return &run->pms[i];
	n = realloc(run->pms, (run->npms + 1) * sizeof(*n));
	if (!n)
		return NULL;
	run->pms = n;
	c = &run->pms[run->npms++];
	memset(c, 0, sizeof(*c));
	c->pid = pid;
	if (psym_perfmap_new(&o->limits.perfmap, &c->pm, &e) != 0)
		return c;
	for (size_t i = 0; i < o->n_perf_maps; i++) {
		const char *f = o->perf_maps[i];
		size_t len = strlen(f);
		int ret = add_perfmap(run, c, f, len > 5 && !strcmp(f + len - 5, ".dump"), &e);

		if (ret)
			snprintf(c->why, sizeof(c->why), "%s", e.msg);
		else
			found++;
	}
	if (pid > 0) {
		const char *dirs[64];
		size_t nd = 0;

		if (o->side_dir)
			dirs[nd++] = o->side_dir;
		for (size_t i = 0; i < o->n_perf_map_dirs && nd < 64; i++)
			dirs[nd++] = o->perf_map_dirs[i];
		for (size_t i = 0; i < nd; i++) {
			snprintf(path, sizeof(path), "%s/perf-%d.map", dirs[i], pid);
			if (is_file(path)) {
				if (add_perfmap(run, c, path, false, &e) == 0) {
					found++;
					if (o->explain)
						explain_cb(run, path, "perf map used");
					break; /* the first (newest: the saved snapshot) wins */
				}
				snprintf(c->why, sizeof(c->why), "%s", e.msg);
			} else if (o->explain) {
				explain_cb(run, path, "not found");
			}
		}
		for (size_t i = 0; i < nd; i++) {
			snprintf(path, sizeof(path), "%s/jit-%d.dump", dirs[i], pid);
			if (is_file(path) && add_perfmap(run, c, path, true, &e) == 0) {
				found++;
				break;
			}
		}
	}
	if (!found) {
		psym_perfmap_free(c->pm);
		c->pm = NULL;
		if (!c->why[0])
			snprintf(c->why, sizeof(c->why), "no perf map for pid %d", pid);
	}
	return c;
}

static struct psym_binary *get_vdso(struct run *run)
{
	struct psym_err e = { 0 };
	struct psym_elf *elf = NULL;
	struct utsname u;
	char path[4200];
	const char *cands[3];
	size_t n = 0;

	if (run->vdso_tried)
		return run->vdso;
	run->vdso_tried = true;
	if (run->o->vdso)
		cands[n++] = run->o->vdso;
	if (run->o->side_dir) {
		snprintf(run->vdso_side, sizeof(run->vdso_side), "%s/vdso.so", run->o->side_dir);
		cands[n++] = run->vdso_side;
	}
	if (uname(&u) == 0) {
		snprintf(path, sizeof(path), "/lib/modules/%s/vdso/vdso64.so", u.release);
		cands[n++] = path;
	}
	snprintf(run->vdso_why, sizeof(run->vdso_why),
		 "no vDSO image (give --vdso FILE, or keep the collector's side directory)");
	for (size_t i = 0; i < n; i++) {
		if (!is_file(cands[i])) {
			if (run->o->explain)
				explain_cb(run, cands[i], "not found");
			continue;
		}
		if (psym_elf_open(cands[i], &run->o->limits.elf, &elf, &e) != 0) {
			snprintf(run->vdso_why, sizeof(run->vdso_why), "%s", e.msg);
			continue;
		}
		if (run->o->explain)
			explain_cb(run, cands[i], "vDSO image used");
		if (psym_binary_new(elf, &run->bopts, &run->vdso, &e) != 0)
			run->vdso = NULL;
		break;
	}
	return run->vdso;
}

/* vmlinux's own build ID must be the running kernel's, when both are known. */
static bool vmlinux_ok(struct run *run, struct psym_elf *elf, const char *want, const char *path,
		       bool explicit)
{
	const char *have = psym_elf_build_id(elf);
	uint64_t text;

	if (want && *want && have && strcmp(want, have) != 0) {
		snprintf(run->vmlinux_why, sizeof(run->vmlinux_why),
			 "'%s': build ID %s is not the profiled kernel's (%s)", path, have, want);
		return false;
	}
	if (!explicit && (!want || !*want || !have))
		return false; /* a guess by path needs build IDs to agree */
	if (psym_elf_find_symbol(elf, "_text", &text) != 0 &&
	    psym_elf_find_symbol(elf, "_stext", &text) != 0) {
		snprintf(run->vmlinux_why, sizeof(run->vmlinux_why),
			 "'%s': no _text symbol (not a vmlinux?)", path);
		return false;
	}
	run->vmlinux_text = text;
	return true;
}

/*
 * The kernel image, for names, lines and inline frames of kernel code:
 * --vmlinux, else by the kernel mapping's build ID (debug dirs'
 * .build-id trees, debuginfod), else the usual places of Debian's
 * linux-image-*-dbg for the running release when the build ID agrees.
 */
static struct psym_binary *get_vmlinux(struct run *run, const char *build_id)
{
	const struct psym_symbolize_opts *o = run->o;
	struct psym_elf *elf = NULL;
	struct psym_err e = { 0 };
	char why[1100] = "", paths[4][600];
	struct utsname u;
	size_t np = 0;

	if (run->vmlinux_tried)
		return run->vmlinux;
	run->vmlinux_tried = true;
	if (o->vmlinux) {
		if (psym_elf_open(o->vmlinux, &o->limits.elf, &elf, &e) != 0) {
			snprintf(run->vmlinux_why, sizeof(run->vmlinux_why), "%s", e.msg);
			return NULL;
		}
		if (!vmlinux_ok(run, elf, build_id, o->vmlinux, true)) {
			psym_elf_close(elf);
			return NULL;
		}
	} else if (find_by_build_id(run, build_id, &elf, why, sizeof(why)) == 0) {
		if (!vmlinux_ok(run, elf, build_id, psym_elf_path(elf), true)) {
			psym_elf_close(elf);
			elf = NULL;
		}
	}
	if (!elf && !o->vmlinux && uname(&u) == 0) {
		snprintf(paths[np++], sizeof(paths[0]), "/usr/lib/debug/boot/vmlinux-%s", u.release);
		snprintf(paths[np++], sizeof(paths[0]), "/usr/lib/debug/lib/modules/%s/vmlinux",
			 u.release);
		snprintf(paths[np++], sizeof(paths[0]), "/boot/vmlinux-%s", u.release);
		snprintf(paths[np++], sizeof(paths[0]), "/lib/modules/%s/build/vmlinux", u.release);
		for (size_t i = 0; i < np && !elf; i++) {
			if (psym_elf_open(paths[i], &o->limits.elf, &elf, &e) != 0) {
				if (o->explain)
					explain_cb(run, paths[i], "not found");
				elf = NULL;
				continue;
			}
			if (!vmlinux_ok(run, elf, build_id, paths[i], false)) {
				if (o->explain)
					explain_cb(run, paths[i], "rejected: build IDs unknown or differ");
				psym_elf_close(elf);
				elf = NULL;
			}
		}
	}
	if (!elf) {
		if (!run->vmlinux_why[0])
			snprintf(run->vmlinux_why, sizeof(run->vmlinux_why),
				 "no vmlinux for kernel build ID %s", build_id && *build_id ?
				 build_id : "(unknown)");
		return NULL;
	}
	if (o->explain)
		explain_cb(run, psym_elf_path(elf), "vmlinux used");
	if (psym_binary_new(elf, &run->bopts, &run->vmlinux, &e) != 0)
		run->vmlinux = NULL;
	return run->vmlinux;
}

/*
 * Where the profiled kernel's _text was at run time (KASLR): from the
 * kallsyms copy, else from the kernel mapping (perf and psym-collect put
 * _text at memory_start, perf's "[kernel.kallsyms]_text" may carry it in
 * file_offset). 0 when unknown.
 */
static uint64_t kernel_runtime_text(struct run *run, const pb_mapping *m)
{
	struct psym_kallsyms *ks = get_kallsyms(run);

	if (ks && psym_kallsyms_text_addr(ks))
		return psym_kallsyms_text_addr(ks);
	if (m->file_offset >= 0xffff000000000000ULL)
		return m->file_offset;
	/* psym-collect's fallback start when it could not read _text. */
	if (m->memory_start == 0xffff800000000000ULL)
		return 0;
	return m->memory_start;
}

/* Kernel, JIT and vDSO mappings: resolved from what the collector saved. */
static int symbolize_special(struct run *run, enum psym_map_class cls, pb_mapping *m,
			     const char *name, pb_location **locs, size_t nlocs, size_t todo,
			     struct psym_err *e)
{
	struct psym_frame frames[MAX_FRAMES];
	const char *why = NULL, *bid = psym_profile_str(run->p, m->build_id);
	char kwhy[2300];
	size_t done = 0;
	int ret;

	for (size_t i = 0; i < nlocs; i++) {
		pb_location *loc = locs[i];
		size_t n = 0;
		bool stable = false; /* frames from a binary, not a perf map or kallsyms */

		if (loc->n_line && !run->o->force)
			continue;
		if (cls == PSYM_MAP_KERNEL || cls == PSYM_MAP_KMODULE) {
			struct psym_binary *vm = cls == PSYM_MAP_KERNEL ? get_vmlinux(run, bid) : NULL;
			struct psym_kallsyms *ks;
			uint64_t rt = vm ? kernel_runtime_text(run, m) : 0;

			/* vmlinux first (lines, inlines), relocated by the KASLR slide. */
			if (vm && rt)
				n = psym_binary_resolve(vm, loc->address - rt + run->vmlinux_text, frames,
							MAX_FRAMES);
			stable = n > 0;
			if (n)
				goto found;
			ks = get_kallsyms(run);
			if (!ks) {
				why = vm && !rt ? "runtime _text unknown (KASLR): give --kallsyms" :
						  run->ks_why;
				if (!vm && run->vmlinux_why[0] && cls == PSYM_MAP_KERNEL) {
					snprintf(kwhy, sizeof(kwhy), "%s; %s", run->ks_why,
						 run->vmlinux_why);
					why = kwhy;
				}
				break;
			}
			n = psym_kallsyms_lookup(ks, loc->address, &frames[0]) == 0;
		} else if (cls == PSYM_MAP_ANON) {
			long pos = psym_profile_location_pos(run->p, loc->id);
			int pid = run->o->pid ? run->o->pid : (pos >= 0 ? run->loc_pid[pos] : 0);
			struct pmcache *c = get_perfmap(run, pid);

			if (!c || !c->pm) {
				why = c ? c->why : "out of memory";
				continue;
			}
			n = psym_perfmap_lookup(c->pm, loc->address, &frames[0]) == 0;
		} else if (cls == PSYM_MAP_VDSO) {
			struct psym_binary *v = get_vdso(run);
			uint64_t vaddr;

			if (!v) {
				why = run->vdso_why;
				break;
			}
			if (psym_elf_normalize(psym_binary_elf(v), m->memory_start, m->memory_limit,
					       m->file_offset, loc->address, &vaddr) == 0)
				n = psym_binary_resolve(v, vaddr, frames, MAX_FRAMES);
			stable = true;
		} else {
			why = "no code to symbolize in this kind of mapping";
			break;
		}
		if (!n)
			continue;
found:
		loc->n_line = 0;
		ret = add_frames(run, loc, frames, n, stable);
		if (ret)
			return psym_err_set(e, ret, "out of memory while symbolizing");
		m->has_functions = true;
		done++;
	}
	run->r->resolved += done;
	run->r->unresolved_other += todo - done;
	if (done < todo && why)
		logf_(run, "psym: mapping %" PRIu64 " '%s': %zu/%zu locations (%s): %s\n", m->id,
		      *name ? name : "(no name)", done, todo, psym_map_class_name(cls), why);
	else
		logf_(run, "psym: mapping %" PRIu64 " '%s': %zu/%zu locations (%s)\n", m->id,
		      *name ? name : "(no name)", done, todo, psym_map_class_name(cls));
	return 0;
}

static int resolve_mapping(struct run *run, size_t mi, pb_mapping *m, const char *name,
			   struct binary *bin, pb_location **locs, size_t nlocs, size_t todo,
			   size_t kept, struct psym_err *e);

static int symbolize_mapping(struct run *run, size_t mi, pb_mapping *m, pb_location **locs,
			     size_t nlocs, struct psym_err *e)
{
	const struct psym_symbolize_opts *o = run->o;
	const char *name = psym_profile_str(run->p, m->filename);
	const char *bid = psym_profile_str(run->p, m->build_id);
	char clean[4096];
	struct binary *bin = NULL;
	enum psym_map_class cls;
	size_t todo = 0, kept = 0;
	bool deleted;
	int ret;

	for (size_t i = 0; i < nlocs; i++) {
		if (locs[i]->n_line && !o->force)
			kept++;
		else
			todo++;
	}
	run->r->locations += nlocs;
	run->r->kept += kept;
	cls = psym_mapping_classify(name, clean, sizeof(clean), &deleted);
	if (todo == 0) {
		logf_(run, "psym: mapping %" PRIu64 " '%s': %zu locations already symbolized, kept\n",
		      m->id, name, kept);
		return 0;
	}
	if (cls != PSYM_MAP_FILE)
		return symbolize_special(run, cls, m, name, locs, nlocs, todo, e);
	if (o->explain)
		logf_(run, "psym: mapping %" PRIu64 " '%s'%s%s:\n", m->id, name,
		      *bid ? " build ID " : "", bid);
	ret = open_binary(run, clean, *bid ? bid : NULL, mi == 0 ? o->main_binary : NULL, &bin,
			  e);
	if (ret >= 0)
		ret = resolve_mapping(run, mi, m, name, bin, locs, nlocs, todo, kept, e);
	if (bin) /* NULL when open_binary failed before making its entry */
		pthread_mutex_unlock(&bin->mu);
	return ret;
}

#define NO_VADDR UINT64_MAX /* location not to resolve */

static int cmp_loc_addr(const void *a, const void *b)
{
	const pb_location *x = *(pb_location *const *)a, *y = *(pb_location *const *)b;

	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

struct loc_key {
	uint64_t address, id;
	pb_location *loc;
};

/*
 * Sort locations by address, then id. A least-significant-digit radix sort
 * on copies of the keys: a comparison sort would chase a pointer into a
 * location for every comparison, which for a million locations is most of
 * its time. Bytes that are the same in every key (the high bytes of
 * addresses and ids, mostly) take no pass. Falls back to qsort() when
 * memory for the copies is short.
 */
static void sort_by_address(pb_location **locs, size_t n)
{
	struct loc_key *k = malloc((n ? n : 1) * 2 * sizeof(*k)), *tmp;

	if (!k) {
		qsort(locs, n, sizeof(*locs), cmp_loc_addr);
		return;
	}
	tmp = k + n;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct loc_key){ locs[i]->address, locs[i]->id, locs[i] };
	for (int by_address = 0; by_address < 2; by_address++) { /* ids first: the minor key */
		for (unsigned shift = 0; shift < 64; shift += 8) {
			size_t count[256] = { 0 }, pos = 0;

#define KEYBYTE(x) ((unsigned)(((by_address ? (x)->address : (x)->id) >> shift) & 0xff))
			for (size_t i = 0; i < n; i++)
				count[KEYBYTE(&k[i])]++;
			if (n == 0 || count[KEYBYTE(&k[0])] == n)
				continue; /* this byte is the same everywhere */
			for (size_t b = 0; b < 256; b++) {
				size_t c = count[b];

				count[b] = pos;
				pos += c;
			}
			for (size_t i = 0; i < n; i++)
				tmp[count[KEYBYTE(&k[i])]++] = k[i];
#undef KEYBYTE
			{
				struct loc_key *t = k;

				k = tmp;
				tmp = t;
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		locs[i] = k[i].loc;
	free(k < tmp ? k : tmp);
}

/*
 * The locations of one file-backed mapping, with its binary held. They are
 * resolved in address order: consecutive lookups then fall in the same
 * compile unit, function and line rows, which stay in the CPU caches.
 */
static int resolve_mapping(struct run *run, size_t mi, pb_mapping *m, const char *name,
			   struct binary *bin, pb_location **locs, size_t nlocs, size_t todo,
			   size_t kept, struct psym_err *e)
{
	const struct psym_symbolize_opts *o = run->o;
	struct psym_frame frames[MAX_FRAMES];
	struct psym_elf *elf;
	uint64_t *vaddrs = NULL, *want = NULL;
	size_t done = 0, nwant = 0;
	int ret = 0;

	if (!bin->bin) {
		logf_(run, "psym: mapping %" PRIu64 " '%s': 0/%zu locations: %s\n", m->id, name, todo,
		      bin->why);
		run->r->unresolved_file += todo;
		return 0;
	}
	elf = psym_binary_elf(bin->bin);
	sort_by_address(locs, nlocs);
	/* File addresses first, so the DWARF they need is decoded up front on all cores. */
	vaddrs = malloc((nlocs ? nlocs : 1) * sizeof(*vaddrs));
	want = malloc((nlocs ? nlocs : 1) * sizeof(*want));
	if (!vaddrs || !want) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory while symbolizing");
		goto out;
	}
	for (size_t i = 0; i < nlocs; i++) {
		pb_location *loc = locs[i];
		uint64_t vaddr;

		vaddrs[i] = NO_VADDR;
		if ((loc->n_line && !o->force) ||
		    psym_elf_normalize(elf, m->memory_start, m->memory_limit, m->file_offset,
				       loc->address, &vaddr) != 0)
			continue;
		if (run->caller_only && vaddr > 0) {
			long pos = psym_profile_location_pos(run->p, loc->id);

			if (pos >= 0 && run->caller_only[pos])
				vaddr--;
		}
		vaddrs[i] = vaddr;
		want[nwant++] = vaddr;
	}
	ret = psym_binary_prepare(bin->bin, want, nwant, e);
	if (ret)
		goto out;
	for (size_t i = 0; i < nlocs; i++) {
		pb_location *loc = locs[i];
		uint64_t vaddr = vaddrs[i];
		size_t n;

		if (vaddr == NO_VADDR)
			continue;
		if ((i & 1023) == 0)
			progress(run, mi, run->p->pb->n_mapping);
		n = resolve_addr(bin, vaddr, frames, MAX_FRAMES);
		if (!n)
			continue;
		loc->n_line = 0; /* --force: replace what was there */
		ret = add_frames(run, loc, frames, n, true);
		if (ret) {
			ret = psym_err_set(e, ret, "out of memory while symbolizing");
			goto out;
		}
		m->has_functions = true;
		if (frames[0].file)
			m->has_filenames = true;
		if (frames[0].line)
			m->has_line_numbers = true;
		if (n > 1)
			m->has_inline_frames = true;
		done++;
	}
	run->r->resolved += done;
	run->r->unresolved_file += todo - done;
	progress_clear(run);
	{
		const char *dw = psym_binary_dwarf_path(bin->bin);
		const char *note, *cpath;
		char lines[1200];

		size_t hits, misses;

		psym_binary_cache_stats(bin->bin, &hits, &misses);
		if (hits && !misses)
			snprintf(lines, sizeof(lines), ", from the symbol cache");
		else if (dw && strcmp(dw, psym_elf_path(elf)) != 0)
			snprintf(lines, sizeof(lines), ", lines from '%s'", dw);
		else if (dw)
			snprintf(lines, sizeof(lines), ", with lines");
		else if ((note = psym_binary_debug_note(bin->bin))) /* may load symbols: last */
			snprintf(lines, sizeof(lines), ", no lines: %s", note);
		else
			snprintf(lines, sizeof(lines), ", no lines: no DWARF");
		logf_(run, "psym: mapping %" PRIu64 " '%s': %zu/%zu locations from '%s'%s%s\n", m->id,
		      name, done, todo, psym_elf_path(elf), lines, kept ? " (others kept)" : "");
		if ((note = psym_binary_take_cache_damage(bin->bin, &cpath)))
			logf_(run, "psym: warning: symbol cache '%s' ignored (%s): symbolized from '%s'\n",
			      cpath, note, psym_elf_path(elf));
		if (o->explain && dw) {
			size_t units, decoded;

			psym_binary_dwarf_units(bin->bin, &units, &decoded);
			logf_(run, "    DWARF: %zu of %zu compile units decoded so far\n", decoded,
			      units);
		}
	}
out:
	free(vaddrs);
	free(want);
	return ret;
}

int psym_symbolize(struct psym_profile *p, const struct psym_symbolize_opts *o,
		   struct psym_symbolize_result *r, struct psym_err *e)
{
	struct run run = { .p = p, .o = o, .r = r };
	pb_profile *pb = p->pb;
	size_t *first = NULL, *fill = NULL, nomap = 0, acc = 0;
	pb_location **order = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	clock_gettime(CLOCK_MONOTONIC, &run.start);
	pthread_mutex_init(&run.own.mu, NULL);
	run.cache = o->shared ? o->shared : &run.own;
	run.bopts = (struct psym_binary_opts){
		.inlines = !o->no_inlines,
		.debug_dirs = o->debug_dirs,
		.n_debug_dirs = o->n_debug_dirs,
		.debuginfod = o->debuginfod,
		.explain = o->explain ? explain_cb : NULL,
		.explain_ud = &run,
		.elf_limits = &o->limits.elf,
		.limits = &o->limits,
		.cache_dir = o->cache_dir,
	};
	ret = psym_builder_new(p, &run.b, e);
	if (ret)
		return ret;
	run.memo = psym_funcmemo_new();
	/* The process of each location, from its samples' numeric pid label. */
	run.loc_pid = calloc(pb->n_location + 1, sizeof(int));
	if (!run.loc_pid) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < pb->n_sample; i++) {
		pb_sample *smp = pb->sample[i];
		int pid = 0;

		for (size_t j = 0; j < smp->n_label; j++)
			if (!strcmp(psym_profile_str(p, smp->label[j]->key), "pid") &&
			    smp->label[j]->num > 0 && smp->label[j]->num < INT32_MAX)
				pid = (int)smp->label[j]->num;
		for (size_t j = 0; pid && j < smp->n_location_id; j++) {
			long pos = psym_profile_location_pos(p, smp->location_id[j]);

			if (pos >= 0 && !run.loc_pid[pos])
				run.loc_pid[pos] = pid;
		}
	}
	if (o->adjust_callers) {
		/* Locations that are never a sample's leaf hold return addresses. */
		run.caller_only = calloc(pb->n_location + 1, sizeof(bool));
		if (!run.caller_only) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
			goto out;
		}
		for (size_t i = 0; i < pb->n_location; i++)
			run.caller_only[i] = true;
		for (size_t i = 0; i < pb->n_sample; i++) {
			long pos;

			if (!pb->sample[i]->n_location_id)
				continue;
			pos = psym_profile_location_pos(p, pb->sample[i]->location_id[0]);
			if (pos >= 0)
				run.caller_only[pos] = false;
		}
	}
	/* Bucket locations by mapping position, keeping profile order in each. */
	first = calloc(pb->n_mapping + 1, sizeof(*first));
	fill = calloc(pb->n_mapping + 1, sizeof(*fill));
	order = calloc(pb->n_location + 1, sizeof(*order));
	if (!first || !fill || !order) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < pb->n_location; i++) {
		long k = psym_profile_mapping_pos(p, pb->location[i]->mapping_id);

		if (k < 0)
			nomap++;
		else
			fill[k]++;
	}
	for (size_t k = 0; k < pb->n_mapping; k++) {
		first[k] = acc;
		acc += fill[k];
		fill[k] = 0;
	}
	for (size_t i = 0; i < pb->n_location; i++) {
		long k = psym_profile_mapping_pos(p, pb->location[i]->mapping_id);

		if (k >= 0)
			order[first[k] + fill[k]++] = pb->location[i];
	}
	for (size_t k = 0; k < pb->n_mapping && !ret; k++)
		ret = symbolize_mapping(&run, k, pb->mapping[k], order + first[k], fill[k], e);
	if (nomap && !ret) {
		logf_(&run, "psym: %zu locations have no mapping: left as addresses\n", nomap);
		r->locations += nomap;
		r->unresolved_other += nomap;
	}
out:
	progress_clear(&run);
	for (size_t i = 0; i < run.own.n; i++) {
		psym_binary_free(run.own.bins[i]->bin);
		free(run.own.bins[i]->key);
		pthread_mutex_destroy(&run.own.bins[i]->mu);
		free(run.own.bins[i]);
	}
	free(run.own.bins);
	pthread_mutex_destroy(&run.own.mu);
	free(run.caller_only);
	free(run.loc_pid);
	psym_kallsyms_free(run.ks);
	for (size_t i = 0; i < run.npms; i++)
		psym_perfmap_free(run.pms[i].pm);
	free(run.pms);
	psym_binary_free(run.vdso);
	psym_binary_free(run.vmlinux);
	free(first);
	free(fill);
	free(order);
	psym_funcmemo_free(run.memo);
	psym_builder_free(run.b);
	return ret;
}
