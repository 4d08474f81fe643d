/* SPDX-License-Identifier: MIT */
/*
 * The symbolize driver. Data flows one way: each mapping is classified into
 * an object key; the registry locates and opens the object once per key
 * (locate.h, resolvers.h); the mapping's locations are turned into the
 * addresses the resolver takes, looked up through the one resolver
 * interface (resolver.h), and the frames become Lines and Functions through
 * the builder. The driver never looks inside a resolver.
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "builder.h"
#include "buildid.h"
#include "demangle.h"
#include "funcmemo.h"
#include "hostid.h"
#include "mapping.h"
#include "registry.h"
#include "resolvers.h"
#include "store.h"
#include "symbolize.h"

/*
 * Objects shared by the runs of a batch: binaries by path and build ID,
 * located and opened once for all profiles. Per-run objects (kernel, JIT
 * maps, vDSO: they come from each profile's side files) stay in the run.
 */
struct psym_bincache {
	struct psym_registry *reg;
	struct psym_reader_limits limits;
	struct psym_locate_opts lo; /* a copy without --explain */
	struct psym_binary_opts bopts;
};

void psym_symbolize_locate_opts(const struct psym_symbolize_opts *o,
				const struct psym_reader_limits *l, struct psym_locate_opts *lo)
{
	*lo = (struct psym_locate_opts){
		.search = o->binary_path,
		.n_search = o->n_binary_path,
		.sysroot = o->sysroot,
		.debug_dirs = o->debug_dirs,
		.n_debug_dirs = o->n_debug_dirs,
		.debuginfod = o->debuginfod,
		.elf_limits = &l->elf,
		.side_dir = o->side_dir,
		.vmlinux = o->vmlinux,
		.vdso = o->vdso,
		.kallsyms = o->kallsyms,
		.perf_map_dirs = o->perf_map_dirs,
		.n_perf_map_dirs = o->n_perf_map_dirs,
	};
}

struct psym_bincache *psym_bincache_new(const struct psym_symbolize_opts *o)
{
	struct psym_bincache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->reg = psym_registry_new(0);
	if (!c->reg) {
		free(c);
		return NULL;
	}
	psym_registry_set_max_open(c->reg, o->limits.open_objects);
	c->limits = o->limits;
	psym_symbolize_locate_opts(o, &c->limits, &c->lo);
	c->bopts = (struct psym_binary_opts){
		.inlines = !o->no_inlines,
		.locate = &c->lo,
		.limits = &c->limits,
		.cache_dir = o->cache_dir,
		.index_store = o->index_store,
	};
	return c;
}

void psym_bincache_free(struct psym_bincache *c)
{
	if (!c)
		return;
	psym_registry_free(c->reg);
	free(c);
}

struct run {
	struct psym_profile *p;
	const struct psym_symbolize_opts *o;
	struct psym_symbolize_result *r;
	struct psym_builder *b;
	struct psym_funcmemo *memo;  /* NULL: out of memory, go without */
	struct psym_registry *own;   /* this run's objects */
	struct psym_registry *files; /* binaries: own, or the batch's */
	struct psym_locate_opts lo;
	struct psym_binary_opts bopts;
	const struct psym_binary_opts *file_bopts; /* run's, or the batch's */
	char release[65];			   /* this machine's kernel release */
	char foreign[256]; /* why this machine's perf maps do not apply, or "" */
	bool *caller_only;			   /* by location position, for --adjust-callers */
	int *loc_pid;				   /* by location position: pid label of a sample */
	int *pids;				   /* the distinct pid labels, sorted */
	size_t npids;
	long main_mapping;			   /* the mapping --main-binary names, or -1 */
	size_t done_in_mapping;			   /* for the progress line */
	struct sumline {			   /* per-mapping summary lines, held back */
		size_t unresolved;
		size_t order;
		char *text;
	} * sum;
	size_t nsum;
	size_t full, partial, none; /* mappings by how much was resolved */
	struct timespec start, last_progress;
	bool progress_shown;
};

static void logf_(const struct run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

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
		nm, run->r->resolved + run->done_in_mapping);
	fflush(run->o->log);
}

static void progress_clear(struct run *run)
{
	if (run->progress_shown && run->o->log)
		fprintf(run->o->log, "\r\033[K");
	run->progress_shown = false;
}

/*
 * Append frames as Lines of loc. memo: the frames' strings live as long as
 * the run (binaries, not perf maps or kallsyms), so a function seen before
 * is found by their addresses without demangling again.
 */
static int add_frames(struct run *run, pb_location *loc, const struct psym_frame *frames, size_t n,
		      bool memo)
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

static int cmp_loc_addr(const void *a, const void *b)
{
	const pb_location *x = *(pb_location *const *)a, *y = *(pb_location *const *)b;

	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
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

/* How a mapping's object is found: the key's parts. */
struct objref {
	struct run *run;
	enum psym_map_class cls;
	const char *path;     /* cleaned file name */
	const char *build_id; /* "" when unknown */
	const char *named;    /* --main-binary for its mapping, or NULL */
};

static int open_object(void *ud, struct psym_resolver **out, struct psym_reason *why,
		       struct psym_err *e)
{
	const struct objref *ref = ud;
	struct run *run = ref->run;
	const struct psym_symbolize_opts *o = run->o;
	FILE *log = o->quiet ? NULL : o->log;
	struct psym_elf *elf = NULL;
	int ret;

	switch (ref->cls) {
	case PSYM_MAP_FILE: {
		struct psym_objkey k = {
			.path = ref->path,
			.build_id = *ref->build_id ? ref->build_id : NULL,
			.named = ref->named,
		};

		ret = psym_locate_binary(run->file_bopts->locate, &k, &elf, why, e);
		return ret ? ret : psym_file_resolver_new(elf, run->file_bopts, "file", out, e);
	}
	case PSYM_MAP_VDSO:
		ret = psym_locate_vdso(&run->lo, &elf, why, e);
		return ret ? ret : psym_file_resolver_new(elf, &run->bopts, "vdso", out, e);
	case PSYM_MAP_KERNEL:
	case PSYM_MAP_KMODULE:
		return psym_kernel_resolver_new(&run->lo, &run->bopts, ref->build_id,
						ref->cls == PSYM_MAP_KMODULE, &o->limits, log, out,
						e);
	case PSYM_MAP_ANON:
		if (run->foreign[0] && !run->lo.side_dir && !run->lo.n_perf_map_dirs &&
		    !o->n_perf_maps) {
			psym_reason_set(why, PSYM_R_NO_PERF_MAP,
					"no perf maps: %s, so this machine's /tmp/perf-PID.map "
					"names other code (keep the collector's side directory "
					"next to the profile, or give --perf-map-dir DIR)",
					run->foreign);
			return PSYM_NOENT;
		}
		return psym_jit_resolver_new(&run->lo, &o->limits.perfmap, o->perf_maps,
					     o->n_perf_maps, o->pid, log, out, e);
	case PSYM_MAP_SPECIAL:
	default:
		psym_reason_set(why, PSYM_R_NOT_CODE,
				"no code to symbolize in this kind of mapping");
		return PSYM_NOENT;
	}
}

#define NO_VADDR UINT64_MAX /* location not to resolve */

/*
 * Profiles with more mappings than this get a summary (counts and the
 * mappings with the most unresolved locations) instead of a line per
 * mapping; --explain always lists every mapping.
 */
#define SUMMARY_ALL_UP_TO 20
#define SUMMARY_WORST 10

/* One mapping's line: printed now with --explain, else held for the end. */
static void sumline(struct run *run, size_t unresolved, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void sumline(struct run *run, size_t unresolved, const char *fmt, ...)
{
	struct sumline *n;
	va_list ap;
	char *text;

	if (!run->o->log || run->o->quiet)
		return;
	va_start(ap, fmt);
	if (run->o->explain) {
		vfprintf(run->o->log, fmt, ap);
		va_end(ap);
		return;
	}
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	n = text ? realloc(run->sum, (run->nsum + 1) * sizeof(*n)) : NULL;
	if (!n) {
		if (text)
			fputs(text, run->o->log); /* no memory to hold it: say it now */
		free(text);
		return;
	}
	run->sum = n;
	run->sum[run->nsum] = (struct sumline){ unresolved, run->nsum, text };
	run->nsum++;
}

static int cmp_worst(const void *a, const void *b)
{
	const struct sumline *x = a, *y = b;

	if (x->unresolved != y->unresolved)
		return x->unresolved > y->unresolved ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_order(const void *a, const void *b)
{
	const struct sumline *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* The held-back lines: all of them, or counts and the worst. */
static void summary_flush(struct run *run)
{
	size_t shown = run->nsum;

	if (!run->nsum)
		return;
	if (run->nsum > SUMMARY_ALL_UP_TO) {
		qsort(run->sum, run->nsum, sizeof(*run->sum), cmp_worst);
		shown = 0;
		while (shown < SUMMARY_WORST && shown < run->nsum && run->sum[shown].unresolved)
			shown++;
		qsort(run->sum, shown, sizeof(*run->sum), cmp_order);
		fprintf(run->o->log,
			"psym: %zu mappings: %zu fully resolved, %zu in part, %zu not at all%s\n",
			run->nsum, run->full, run->partial, run->none,
			shown ? "; those with the most unresolved locations:" : "");
	}
	for (size_t i = 0; i < shown; i++)
		fputs(run->sum[i].text, run->o->log);
	if (shown < run->nsum && shown)
		fprintf(run->o->log,
			"psym: %zu more mappings not listed (--explain lists every one)\n",
			run->nsum - shown);
	else if (shown < run->nsum)
		fprintf(run->o->log, "psym: (--explain lists every mapping)\n");
}

/* The summary line of one mapping. */
static void summary(struct run *run, const pb_mapping *m, const char *name, enum psym_map_class cls,
		    struct psym_resolver *res, const struct psym_reason *why, size_t done,
		    size_t todo, size_t kept)
{
	char desc[2400] = "", more[4400] = "";
	size_t un = todo - done;

	if (done == todo)
		run->full++;
	else if (done)
		run->partial++;
	else
		run->none++;
	if (res)
		psym_resolver_describe(res, desc, sizeof(desc));
	if (cls == PSYM_MAP_FILE && res)
		sumline(run, un, "psym: mapping %" PRIu64 " '%s': %zu/%zu locations %s%s\n", m->id,
			name, done, todo, desc, kept ? " (others kept)" : "");
	else if (cls == PSYM_MAP_FILE)
		sumline(run, un, "psym: mapping %" PRIu64 " '%s': 0/%zu locations: %s\n", m->id,
			name, todo, psym_reason_text(why));
	else if (done < todo && why->code != PSYM_R_NONE && why->code != PSYM_R_NO_SYMBOL)
		sumline(run, un, "psym: mapping %" PRIu64 " '%s': %zu/%zu locations (%s): %s\n",
			m->id, *name ? name : "(no name)", done, todo, psym_map_class_name(cls),
			psym_reason_text(why));
	else
		sumline(run, un, "psym: mapping %" PRIu64 " '%s': %zu/%zu locations (%s)\n", m->id,
			*name ? name : "(no name)", done, todo, psym_map_class_name(cls));
	if (res && res->ops->warning) {
		res->ops->warning(res, more, sizeof(more));
		if (more[0])
			logf_(run, "psym: warning: %s\n", more);
	}
	if (run->o->explain && res && res->ops->explain) {
		res->ops->explain(res, more, sizeof(more));
		if (more[0])
			logf_(run, "    %s\n", more);
	}
}

/*
 * The locations of one mapping through its resolver. With a prepare step
 * (DWARF), they are resolved in address order: consecutive lookups then
 * fall in the same compile unit, function and line rows, which stay in the
 * CPU caches, and the units they need are decoded up front on all cores.
 */
static int resolve_locations(struct run *run, size_t mi, pb_mapping *m, struct psym_resolver *res,
			     pb_location **locs, size_t nlocs, size_t *donep,
			     struct psym_reason *why, struct psym_err *e)
{
	const struct psym_symbolize_opts *o = run->o;
	struct psym_mapinfo mi_ = {
		.start = m->memory_start,
		.limit = m->memory_limit,
		.file_offset = m->file_offset,
		.build_id = psym_profile_str(run->p, m->build_id),
	};
	struct psym_frames *fr = NULL;
	uint64_t *vaddrs = NULL, *want = NULL;
	size_t done = 0, nwant = 0;
	int ret = 0;

	if (res->ops->prepare)
		sort_by_address(locs, nlocs);
	fr = malloc(sizeof(*fr));
	vaddrs = malloc((nlocs ? nlocs : 1) * sizeof(*vaddrs));
	want = malloc((nlocs ? nlocs : 1) * sizeof(*want));
	if (!fr || !vaddrs || !want) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory while symbolizing");
		goto out;
	}
	for (size_t i = 0; i < nlocs; i++) {
		pb_location *loc = locs[i];
		uint64_t vaddr;

		vaddrs[i] = NO_VADDR;
		if ((loc->n_line && !o->force) ||
		    psym_resolver_to_vaddr(res, &mi_, loc->address, &vaddr) != 0)
			continue;
		/* --adjust-callers: a return address is looked up as the call. */
		if (run->caller_only && vaddr > 0) {
			long pos = psym_profile_location_pos(run->p, loc->id);

			if (pos >= 0 && run->caller_only[pos])
				vaddr--;
		}
		vaddrs[i] = vaddr;
		want[nwant++] = vaddr;
	}
	ret = psym_resolver_prepare(res, want, nwant, e);
	if (ret)
		goto out;
	run->done_in_mapping = 0;
	for (size_t i = 0; i < nlocs; i++) {
		pb_location *loc = locs[i];
		struct psym_lookup_ctx ctx = { .map = &mi_, .pid = o->pid };

		if (vaddrs[i] == NO_VADDR)
			continue;
		if ((i & 1023) == 0)
			progress(run, mi, run->p->pb->n_mapping);
		if (!ctx.pid && res->ops->needs_pid) {
			long pos = psym_profile_location_pos(run->p, loc->id);

			ctx.pid = pos >= 0 ? run->loc_pid[pos] : 0;
			/* No sample names it: the resolver may still place it. */
			ctx.pids = run->pids;
			ctx.npids = run->npids;
		}
		ret = psym_resolver_lookup(res, &ctx, vaddrs[i], fr, why);
		if (ret == PSYM_NOENT) {
			ret = 0;
			continue;
		}
		if (ret)
			goto out;
		loc->n_line = 0; /* --force: replace what was there */
		ret = add_frames(run, loc, fr->f, fr->n, fr->stable);
		if (ret) {
			ret = psym_err_set(e, ret, "out of memory while symbolizing");
			goto out;
		}
		m->has_functions = true;
		if (fr->f[0].file)
			m->has_filenames = true;
		if (fr->f[0].line)
			m->has_line_numbers = true;
		if (fr->n > 1)
			m->has_inline_frames = true;
		done++;
		run->done_in_mapping = done;
	}
out:
	*donep = done;
	free(fr);
	free(vaddrs);
	free(want);
	return ret;
}

static int symbolize_mapping(struct run *run, size_t mi, pb_mapping *m, pb_location **locs,
			     size_t nlocs, struct psym_err *e)
{
	const struct psym_symbolize_opts *o = run->o;
	const char *name = psym_profile_str(run->p, m->filename);
	const char *bid = psym_profile_str(run->p, m->build_id);
	struct psym_reason why = { 0 };
	struct psym_regentry *x = NULL;
	struct psym_resolver *res;
	char clean[4096], *key = NULL;
	struct objref ref = { .run = run, .path = clean, .build_id = bid };
	size_t todo = 0, kept = 0, done = 0;
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
	ref.cls = psym_mapping_classify(name, clean, sizeof(clean), &deleted);
	if (todo == 0) {
		sumline(run, 0,
			"psym: mapping %" PRIu64 " '%s': %zu locations already symbolized, kept\n",
			m->id, name, kept);
		return 0;
	}
	if ((long)mi == run->main_mapping)
		ref.named = o->main_binary;
	if (o->explain && ref.cls == PSYM_MAP_FILE)
		logf_(run, "psym: mapping %" PRIu64 " '%s'%s%s:\n", m->id, name,
		      *bid ? " build ID " : "", bid);
	/* The object key: what makes two mappings the same object. */
	if (asprintf(&key, "%d\n%s\n%s\n%s", (int)ref.cls, ref.named ? ref.named : "",
		     ref.cls == PSYM_MAP_FILE ? clean : "", bid) < 0)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	ret = psym_registry_get(ref.cls == PSYM_MAP_FILE ? run->files : run->own, key, open_object,
				&ref, &x, e);
	free(key);
	if (ret)
		return ret;
	res = psym_regentry_resolver(x);
	if (res)
		ret = resolve_locations(run, mi, m, res, locs, nlocs, &done, &why, e);
	else
		why = *psym_regentry_reason(x);
	progress_clear(run);
	if (!ret) {
		run->r->resolved += done;
		if (ref.cls == PSYM_MAP_FILE)
			run->r->unresolved_file += todo - done;
		else
			run->r->unresolved_other += todo - done;
		summary(run, m, name, ref.cls, res, &why, done, todo, kept);
	}
	psym_regentry_release(x);
	return ret;
}

/* A local candidate exists for the binary of k (no file is opened). */
static bool local_candidate(void *ud, const char *path, enum psym_cand_rule rule)
{
	struct stat st;

	(void)ud;
	(void)rule;
	return stat(path, &st) == 0;
}

/*
 * Every object is located before any is resolved; for debuginfod that
 * means one parallel request for all binaries that no local candidate
 * (search dirs, sysroot, .build-id trees) can supply, executable and
 * debug file, under the session's one deadline. The answers land in
 * debuginfod's cache, where the per-object lookups then find them at
 * once. Without this, objects were fetched one after another.
 */
static void prefetch_debuginfod(struct run *run)
{
	const struct psym_locate_opts *lo = run->file_bopts->locate;
	pb_profile *pb = run->p->pb;
	struct psym_debuginfod_req *reqs;
	struct psym_err e = { 0 };
	char(*ids)[PSYM_BUILD_ID_HEX_MAX];
	size_t n = 0;

	if (!lo || !lo->debuginfod || !pb->n_mapping)
		return;
	reqs = calloc(pb->n_mapping * 2, sizeof(*reqs));
	ids = calloc(pb->n_mapping, sizeof(*ids));
	if (!reqs || !ids) {
		free(reqs);
		free(ids);
		return; /* the per-object lookups still ask */
	}
	for (size_t k = 0; k < pb->n_mapping; k++) {
		const char *name = psym_profile_str(run->p, pb->mapping[k]->filename);
		const char *bid = psym_profile_str(run->p, pb->mapping[k]->build_id);
		char clean[4096], path[4200];
		struct psym_objkey key = { .path = clean, .build_id = bid };
		bool deleted, local = false, dup = false;

		if (!*bid || !psym_build_id_valid(bid) || (long)k == run->main_mapping ||
		    psym_mapping_classify(name, clean, sizeof(clean), &deleted) != PSYM_MAP_FILE)
			continue;
		for (size_t i = 0; i < n && !dup; i++)
			dup = psym_build_id_equal(reqs[i].build_id, bid);
		if (dup || psym_locate_binary_candidates(lo, &key, local_candidate, NULL))
			continue;
		for (size_t i = 0; i < lo->n_debug_dirs && !local; i++)
			local = psym_build_id_path(lo->debug_dirs[i], bid, "", path,
						   sizeof(path)) &&
				local_candidate(NULL, path, PSYM_CAND_TREE);
		if (local || strlen(bid) >= sizeof(ids[0]))
			continue;
		strcpy(ids[n / 2], bid);
		psym_build_id_lower(ids[n / 2]); /* debuginfod's URLs are lowercase */
		reqs[n].build_id = reqs[n + 1].build_id = ids[n / 2];
		reqs[n].kind = PSYM_DEBUGINFOD_EXECUTABLE;
		reqs[n + 1].kind = PSYM_DEBUGINFOD_DEBUGINFO;
		n += 2;
	}
	if (n > 2) /* one object is asked for by its own lookup just as fast */
		psym_debuginfod_fetch(lo->debuginfod, reqs, n, &e);
	psym_debuginfod_reqs_free(reqs, n);
	free(reqs);
	free(ids);
}

int psym_symbolize(struct psym_profile *p, const struct psym_symbolize_opts *o,
		   struct psym_symbolize_result *r, struct psym_err *e)
{
	struct run run = { .p = p, .o = o, .r = r, .main_mapping = -1 };
	struct utsname u;
	pb_profile *pb = p->pb;
	size_t *first = NULL, *fill = NULL, nomap = 0, acc = 0;
	pb_location **order = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	clock_gettime(CLOCK_MONOTONIC, &run.start);
	psym_symbolize_locate_opts(o, &o->limits, &run.lo);
	run.lo.explain = o->explain ? explain_cb : NULL;
	run.lo.explain_ud = &run;
	if (uname(&u) == 0) {
		snprintf(run.release, sizeof(run.release), "%s", u.release);
		run.lo.release = run.release;
	}
	/* This machine's perf maps and kernel release stand in for missing
	 * side files only for a profile recorded here (hostid.h). */
	{
		struct psym_hostid rec;

		if (!psym_hostid_profile_is_local(p, &rec, run.foreign, sizeof(run.foreign))) {
			snprintf(run.release, sizeof(run.release), "%s", rec.kernel);
			run.lo.release = run.release[0] ? run.release : NULL;
			if (o->perf_map_dirs_default)
				run.lo.n_perf_map_dirs = 0;
		}
	}
	run.bopts = (struct psym_binary_opts){
		.inlines = !o->no_inlines,
		.locate = &run.lo,
		.limits = &o->limits,
		.cache_dir = o->cache_dir,
		.index_store = o->index_store,
	};
	run.file_bopts = o->shared ? &o->shared->bopts : &run.bopts;
	run.own = psym_registry_new(0);
	if (!run.own)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	psym_registry_set_max_open(run.own, o->limits.open_objects);
	run.files = o->shared ? o->shared->reg : run.own;
	ret = psym_builder_new(p, &run.b, e);
	if (ret)
		goto out;
	run.memo = psym_funcmemo_new();
	/* The process of each location, from its samples' numeric pid label. */
	run.loc_pid = calloc(pb->n_location + 1, sizeof(int));
	if (!run.loc_pid) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	run.pids = calloc(pb->n_sample + 1, sizeof(int));
	if (!run.pids) {
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
		if (pid && (!run.npids || run.pids[run.npids - 1] != pid))
			run.pids[run.npids++] = pid;
	}
	/* The profile's processes, each once. */
	qsort(run.pids, run.npids, sizeof(int), cmp_int);
	{
		size_t w = 0;

		for (size_t i = 0; i < run.npids; i++)
			if (!w || run.pids[w - 1] != run.pids[i])
				run.pids[w++] = run.pids[i];
		run.npids = w;
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
	/* --main-binary names the first user-space file mapping (like pprof's). */
	for (size_t k = 0; o->main_binary && k < pb->n_mapping; k++) {
		const char *nm = psym_profile_str(p, pb->mapping[k]->filename);

		if (psym_mapping_classify(nm, NULL, 0, &(bool){ false }) == PSYM_MAP_FILE) {
			run.main_mapping = (long)k;
			if (k > 0)
				logf_(&run,
				      "psym: --main-binary applies to mapping %" PRIu64
				      " '%s', the first user-space mapping\n",
				      pb->mapping[k]->id, nm);
			break;
		}
	}
	prefetch_debuginfod(&run);
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
	if (!ret)
		summary_flush(&run);
	if (nomap && !ret) {
		logf_(&run, "psym: %zu locations have no mapping: left as addresses\n", nomap);
		r->locations += nomap;
		r->unresolved_other += nomap;
	}
out:
	progress_clear(&run);
	for (size_t i = 0; i < run.nsum; i++)
		free(run.sum[i].text);
	free(run.sum);
	{
		/* Objects closed now may start an index build (binary.c's policy). */
		size_t built = psym_index_store_built(o->index_store);

		psym_registry_free(run.own);
		r->indexes_built += psym_index_store_built(o->index_store) - built;
	}
	free(run.caller_only);
	free(run.loc_pid);
	free(run.pids);
	free(first);
	free(fill);
	free(order);
	psym_funcmemo_free(run.memo);
	psym_builder_free(run.b);
	return ret;
}
