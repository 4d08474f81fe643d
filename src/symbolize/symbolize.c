/* SPDX-License-Identifier: MIT */
/*
 * The symbolize driver. Data flows one way: each mapping is classified into
 * a typed key of the located-object table and every key is located in one
 * pass (objtab.h, locate.h); the registry opens each object once per key
 * from its entry (resolvers.h); the mapping's locations are turned into the
 * addresses the resolver takes, looked up through the one resolver
 * interface (resolver.h), and the frames become Lines and Functions through
 * the builder. The driver never looks inside a resolver.
 */
#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bincache.h"
#include "builder.h"
#include "buildid.h"
#include "demangle.h"
#include "funcmemo.h"
#include "hostid.h"
#include "lean.h"
#include "mapping.h"
#include "array.h"
#include "objtab.h"
#include "plan.h"
#include "registry.h"
#include "resdesc.h"
#include "resolvers.h"
#include "sort.h"
#include "store.h"
#include "htlhash.h"
#include "symbolize.h"

void psym_symbolize_locate_opts(const struct psym_symbolize_opts *o, struct psym_locate_opts *lo)
{
	*lo = *o->locate;
	lo->side_dir = o->side_dir;
}

/* A number for each run of this process, never 0 (psym_lookup_ctx.run). */
static uint64_t next_run_serial(void)
{
	static uint64_t last;

	return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

struct run {
	struct psym_lean *lp;	/* the profile: its samples and locations */
	struct psym_profile *p; /* psym_lean_profile(lp): everything else */
	const struct psym_symbolize_opts *o;
	struct psym_symbolize_result *r;
	struct psym_builder *b;
	struct psym_funcmemo *memo;    /* NULL: out of memory, go without */
	uint64_t serial;	       /* this run's number (psym_lookup_ctx.run) */
	struct psym_registry *own;     /* this run's objects */
	struct psym_registry *files;   /* binaries: own, or the batch's */
	struct psym_objtab *own_tab;   /* the plan: this run's objects... */
	struct psym_objtab *files_tab; /* ...and binaries: own, or the batch's */
	struct psym_located **plan;    /* by mapping position; NULL: nothing to do */
	size_t *first, *fill;	       /* locations of mapping k: order[first[k]..+fill[k]] */
	uint32_t *order;	       /* location positions */
	size_t nomap;		       /* locations without a mapping, or lines */
	size_t nomap_kept;	       /* ...and with lines (a Java profile's): kept */
	struct psym_locate_opts lo;
	struct psym_binary_opts bopts;
	const struct psym_binary_opts *file_bopts; /* run's, or the batch's */
	char release[65];			   /* this machine's kernel release */
	char kbid[PSYM_BUILD_ID_HEX_MAX];	   /* the profile's kernel build ID, or "" */
	char foreign[256]; /* why this machine's perf maps do not apply, or "" */
	char boot_id[40];  /* the profile's recorded boot ID, or "" */
	bool *caller_only; /* by location position, for --adjust-callers */
	int *loc_pid;	   /* by location position: pid label of a sample */
	int *pids;	   /* the distinct pid labels, sorted */
	int *ns_pid;	   /* by mapping position: a pid in another mount namespace */
	size_t npids;
	long main_mapping;	     /* the mapping --main-binary names, or -1 */
	size_t done_in_mapping;	     /* for the progress callback */
	size_t capmaps;		     /* of r->maps */
	struct psym_skipped skipped; /* the kernel's and JIT resolvers' malformed lines */

	/* The jitdumps the recording mapped (perfmap.h). */
	struct psym_jitdump_rec *jitdumps;
	size_t njitdumps;
};

/* A note to the caller (symbolize.h), not with quiet. */
static void note(const struct run *run, const struct psym_note *n)
{
	if (run->o->note_fn && !run->o->quiet)
		run->o->note_fn(run->o->note_ud, n);
}

/* A file the kernel or JIT resolver read with malformed lines skipped. */
static void skipped_cb(void *ud, const char *path, size_t n, bool records)
{
	note(ud,
	     &(struct psym_note){
		     .kind = PSYM_NOTE_SKIPPED, .name = path, .skipped = n, .records = records });
}

/* --explain: one event to the caller (symbolize.h). */
static void explain_ev(const struct run *run, const struct psym_explain_ev *ev)
{
	if (run->o->explain_fn)
		run->o->explain_fn(run->o->explain_ud, ev);
}

/* A candidate and its verdict, said as it is tried (even with quiet). */
static void explain_cb(void *ud, const char *path, const char *verdict)
{
	const struct run *run = ud;
	struct psym_explain_ev ev = { .kind = PSYM_EXPLAIN_TRIED,
				      .path = path,
				      .verdict = verdict };

	explain_ev(run, &ev);
}

static void progress(struct run *run, size_t mi, size_t nm)
{
	if (run->o->progress)
		run->o->progress(run->o->progress_ud, mi, nm,
				 run->r->resolved + run->done_in_mapping);
}

/* A note or an --explain event comes next: the caller's progress line goes. */
static void progress_clear(struct run *run)
{
	if (run->o->progress)
		run->o->progress(run->o->progress_ud, 0, 0, 0);
}

/*
 * Give loc the frames as its Lines (the builder shares equal chains between
 * locations). memo: the frames' strings live as long as their object is
 * open (binaries, not perf maps or kallsyms), so a function seen before in
 * this opening of it is found by their addresses without demangling again.
 */
static int add_frames(struct run *run, size_t li, const struct psym_frame *frames, size_t n,
		      bool memo)
{
	struct psym_line_val ln[PSYM_BUILDER_MAX_CHAIN];

	_Static_assert(PSYM_BUILDER_MAX_CHAIN >= PSYM_MAX_FRAMES, "a lookup's frames fit a chain");
	if (n > PSYM_BUILDER_MAX_CHAIN)
		return PSYM_ELIMIT; /* n <= PSYM_MAX_FRAMES (struct psym_frames) */
	for (size_t i = 0; i < n; i++) {
		const struct psym_frame *f = &frames[i];
		uint64_t fid = memo ? psym_funcmemo_get(run->memo, f, n - 1 - i) : 0;

		if (!fid) {
			const char *sys = f->linkage_name ? f->linkage_name : f->name;
			char *dem = psym_demangle_as(sys, run->o->demangle);

			if (memo && f->name && f->file) {
				/* In this order: the string table's order is part of the output. */
				int64_t nm = dem ? psym_builder_str(run->b, dem)
						 : psym_funcmemo_str(run->memo, run->b, sys);
				int64_t sx = psym_funcmemo_str(run->memo, run->b, sys);

				fid = psym_builder_function_ix(
					run->b, nm, sx,
					psym_funcmemo_str(run->memo, run->b, f->file),
					f->start_line);
			} else {
				fid = psym_builder_function(run->b, dem ? dem : sys, sys,
							    f->file ? f->file : "", f->start_line);
			}
			free(dem);
			if (!fid)
				return psym_builder_error(run->b);
			if (memo)
				psym_funcmemo_put(run->memo, f, n - 1 - i, fid);
		}
		ln[i].function_id = fid;
		ln[i].line = f->line;
		ln[i].column = f->column;
	}
	return psym_lean_set_lines(run->lp, run->b, li, ln, n);
}

/* For qsort_r: location positions by address (the sort's fallback). */
static int cmp_loc_addr(const void *a, const void *b, void *lp)
{
	size_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t xa = psym_lean_location_address(lp, x), ya = psym_lean_location_address(lp, y);
	uint64_t xi = psym_lean_location_id(lp, x), yi = psym_lean_location_id(lp, y);

	if (xa != ya)
		return xa < ya ? -1 : 1;
	return xi < yi ? -1 : xi > yi;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/*
 * Sort location positions by address, and give each its address in
 * addr[] (n of them): the lookups' first pass then reads the addresses in
 * order instead of chasing into a scattered location for each. The keys
 * are 8 bytes, the address less the lowest one, then the position, sorted
 * on their address half by base's stable radix sort in addr[] itself: a
 * comparison sort would chase into a location for every comparison, which
 * for a million locations is most of its time. Locations at the same
 * address stay in profile order
 * (the order only keeps lookups close; their answers do not depend on
 * it). Falls back to qsort() when the addresses span 4 GiB or more (no
 * file mapping does) or memory is short.
 */
static void sort_by_address(const struct psym_lean *lp, uint32_t *locs, size_t n, uint64_t *addr)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = psym_lean_location_address(lp, locs[i]);

		addr[i] = a;
		lo = a < lo ? a : lo;
		hi = a > hi ? a : hi;
	}
	if (n < 2)
		return;
	if (hi - lo <= UINT32_MAX) {
		for (size_t i = 0; i < n; i++)
			addr[i] = (addr[i] - lo) << 32 | locs[i];
		if (psym_sort_u64_from(addr, n, 32) == 0) {
			for (size_t i = 0; i < n; i++) {
				locs[i] = (uint32_t)addr[i];
				addr[i] = lo + (addr[i] >> 32);
			}
			return;
		}
	}
	qsort_r(locs, n, sizeof(*locs), cmp_loc_addr, (void *)lp);
	for (size_t i = 0; i < n; i++)
		addr[i] = psym_lean_location_address(lp, locs[i]);
}

/* A planned object and its run: what the registry opens on first use. */
struct objref {
	struct run *run;
	struct psym_located *x;
};

/*
 * The mapping --main-binary names. Where the profile has build IDs the
 * file must match one (in any case): applying a binary to a mapping of
 * another build loses every symbol, so that is refused naming both IDs.
 * Profiles without build IDs keep pprof's rule: the first user-space file
 * mapping.
 */
static int find_main_mapping(struct run *run, long *out, struct psym_err *e)
{
	const struct psym_symbolize_opts *o = run->o;
	const pb_profile *pb = run->p->pb;
	char want[PSYM_BUILD_ID_HEX_MAX] = "", htl[PSYM_HTLHASH_HEX] = "";
	struct psym_err be = { 0 };
	long first = -1;
	int ret;

	/* The build ID its mapping would carry: GNU, else Go's ("go:..."). */
	ret = psym_elf_file_mapping_build_id(o->main_binary, want, &be);
	if (ret && ret != PSYM_NOENT)
		return psym_err_set(e, ret, "--main-binary: %s", be.msg);
	for (size_t k = 0; k < pb->n_mapping; k++) {
		const char *nm = psym_profile_str(run->p, pb->mapping[k]->filename);
		const char *bid = psym_profile_str(run->p, pb->mapping[k]->build_id);

		if (psym_mapping_classify(nm, NULL, 0, &(bool){ false }) != PSYM_MAP_FILE)
			continue;
		if (first < 0)
			first = (long)k;
		/* A mapping known by its htlhash (OTLP): the file's hash, read once. */
		if (psym_build_id_is_htlhash(bid) && !*htl &&
		    psym_file_htlhash(o->main_binary, htl, &(struct psym_err){ 0 }))
			strcpy(htl, "-");
		if ((*want && *bid && psym_build_id_equal(bid, want)) ||
		    (psym_build_id_is_htlhash(bid) &&
		     !strcasecmp(bid + sizeof(PSYM_HTLHASH_PREFIX) - 1, htl))) {
			*out = (long)k;
			if (k != (size_t)first)
				note(run, &(struct psym_note){ .kind = PSYM_NOTE_MAIN_BINARY,
							       .mapping_id = pb->mapping[k]->id,
							       .name = nm,
							       .same_build_id = true });
			return 0;
		}
	}
	if (first < 0)
		return 0; /* no user-space file mapping: nothing to apply it to */
	{
		const char *nm = psym_profile_str(run->p, pb->mapping[first]->filename);
		const char *bid = psym_profile_str(run->p, pb->mapping[first]->build_id);

		if (*bid)
			return psym_err_set(e, PSYM_EBADINPUT,
					    "--main-binary '%s' has build ID %s, but no mapping of "
					    "the profile has it (mapping %" PRIu64
					    " '%s', the first user-space one, has build ID %s)",
					    o->main_binary, *want ? want : "(none)",
					    pb->mapping[first]->id, nm, bid);
		*out = first;
		if (first > 0)
			note(run, &(struct psym_note){ .kind = PSYM_NOTE_MAIN_BINARY,
						       .mapping_id = pb->mapping[first]->id,
						       .name = nm });
	}
	return 0;
}

static int open_object(void *ud, struct psym_resolver **out, struct psym_reason *why,
		       struct psym_err *e)
{
	const struct objref *ref = ud;
	struct run *run = ref->run;
	const struct psym_symbolize_opts *o = run->o;

	switch (ref->x->cls) {
	case PSYM_MAP_FILE:
		return psym_file_resolver_open(run->files_tab, ref->x, &o->limits.elf,
					       run->file_bopts, "file", out, why, e);
	case PSYM_MAP_VDSO:
		return psym_file_resolver_open(run->own_tab, ref->x, &o->limits.elf, &run->bopts,
					       "vdso", out, why, e);
	case PSYM_MAP_KERNEL:
	case PSYM_MAP_KMODULE:
		/* What the plan located for it: candidates said as they were. */
		for (size_t i = 0; o->explain && i < ref->x->ntried; i++)
			explain_cb(run, ref->x->tried[i].path, ref->x->tried[i].verdict);
		return psym_kernel_resolver_new(run->own_tab, ref->x, &run->lo, &run->bopts,
						&o->limits, &run->skipped, out, e);
	case PSYM_MAP_ANON:
		if (run->foreign[0] && !run->lo.side_dir && !run->lo.n_perf_map_dirs &&
		    !o->n_perf_maps && !run->njitdumps) {
			psym_reason_set(why, PSYM_R_NO_PERF_MAP,
					"no perf maps: %s, so this machine's /tmp/perf-PID.map "
					"names other code (keep the collector's side directory "
					"next to the profile, or give --perf-map-dir DIR)",
					run->foreign);
			return PSYM_NOENT;
		}
		return psym_jit_resolver_new(run->own_tab, ref->x, &run->lo, &o->limits.perfmap,
					     o->perf_maps, o->n_perf_maps, o->pid, run->jitdumps,
					     run->njitdumps, &run->skipped, out, e);
	case PSYM_MAP_SPECIAL:
	default:
		psym_reason_set(why, PSYM_R_NOT_CODE,
				"no code to symbolize in this kind of mapping");
		return PSYM_NOENT;
	}
}

void psym_symbolize_result_free(struct psym_symbolize_result *r)
{
	for (size_t i = 0; i < r->nmaps; i++) {
		free(r->maps[i].name);
		free(r->maps[i].from);
		psym_reason_kept_free(&r->maps[i].why);
	}
	free(r->maps);
	r->maps = NULL;
	r->nmaps = 0;
}

/*
 * One mapping's outcome, for the caller's summary (not with quiet): c's
 * class, counts and unverified, with the mapping's id and name, where the
 * answers came from and why.
 */
static void mapsum(struct run *run, const pb_mapping *m, const char *name, const char *from,
		   const struct psym_reason *why, const struct psym_mapsum *c)
{
	struct psym_mapsum *x;

	if (run->o->quiet)
		return;
	x = psym_array_grow(run->r->maps, &run->capmaps, run->r->nmaps + 1, sizeof(*x), 0);
	if (!x)
		return; /* no memory for the summary: the counts still say it */
	run->r->maps = x;
	x = &x[run->r->nmaps];
	*x = (struct psym_mapsum){ .id = m->id,
				   .cls = c->cls,
				   .done = c->done,
				   .todo = c->todo,
				   .kept = c->kept,
				   .opened = from != NULL,
				   .unverified = c->unverified };
	x->name = strdup(name);
	x->from = from ? strdup(from) : NULL;
	if (!x->name || (from && !x->from)) {
		free(x->name);
		free(x->from);
		return;
	}
	if (why)
		psym_reason_keep(&x->why, why);
	run->r->nmaps++;
}

/* The files a resolver's lookups tried, from the table (even with quiet). */
static void say_tried(struct run *run, const struct psym_resdesc *d)
{
	for (size_t i = 0; run->o->explain && i < psym_resdesc_ntried(d); i++) {
		char verdict[4400];
		const char *path;

		psym_resdesc_tried(d, i, &path, verdict, sizeof(verdict));
		explain_cb(run, path, verdict);
	}
}

/* The outcome of one mapping, and what its resolver has to say at once. */
static void summary(struct run *run, const pb_mapping *m, const char *name,
		    struct psym_resolver *res, const struct psym_reason *why,
		    const struct psym_mapsum *c)
{
	char desc[2400] = "";
	struct psym_resdesc d = { 0 };

	if (res) {
		psym_resolver_describe(res, &d);
		psym_resdesc_summary(&d, desc, sizeof(desc));
	}
	mapsum(run, m, name, res ? desc : NULL, why, c);
	if (!res)
		return;
	say_tried(run, &d);
	note(run,
	     &(struct psym_note){ .kind = PSYM_NOTE_WARNING, .mapping_id = m->id, .desc = &d });
	if (run->o->explain && !run->o->quiet) {
		struct psym_explain_ev ev = { .kind = PSYM_EXPLAIN_DESC,
					      .mapping_id = m->id,
					      .desc = &d };

		explain_ev(run, &ev);
	}
}

/*
 * The locations of one mapping through its resolver. With a prepare step
 * (DWARF), they are resolved in address order: consecutive lookups then
 * fall in the same compile unit, function and line rows, which stay in the
 * CPU caches, and the units they need are decoded up front on all cores.
 */
/*
 * The address the resolver takes for location li (at address), false when
 * it is not to be resolved (it has Lines, or lies outside what the
 * resolver places). Computed twice (for prepare, from the sorted
 * addresses; then for the lookup, from the location it writes) rather
 * than kept: for a million locations that is 8 MB less at the run's peak.
 */
static bool loc_vaddr(const struct run *run, struct psym_resolver *res,
		      const struct psym_mapinfo *mi, uint32_t li, uint64_t address, uint64_t *vaddr)
{
	if ((!run->o->force && psym_lean_has_lines(run->lp, li)) ||
	    psym_resolver_to_vaddr(res, mi, address, vaddr) != 0)
		return false;
	/* --adjust-callers: a return address is looked up as the call. */
	if (run->caller_only && *vaddr > 0 && run->caller_only[li])
		(*vaddr)--;
	return true;
}

static int resolve_locations(struct run *run, size_t mi, pb_mapping *m, struct psym_resolver *res,
			     uint64_t obj, uint32_t *locs, size_t nlocs, size_t *donep,
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
	uint64_t *want = NULL;
	size_t done = 0, nwant = 0;
	int ret = 0;

	psym_funcmemo_next_object(run->memo, obj);
	fr = malloc(sizeof(*fr));
	want = malloc((nlocs ? nlocs : 1) * sizeof(*want));
	if (!fr || !want) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory while symbolizing");
		goto out;
	}
	/* want[i]: location i's address, then (in place, nwant <= i) the vaddrs. */
	if (res->ops->prepare)
		sort_by_address(run->lp, locs, nlocs, want);
	else
		for (size_t i = 0; i < nlocs; i++)
			want[i] = psym_lean_location_address(run->lp, locs[i]);
	for (size_t i = 0; i < nlocs; i++)
		if (loc_vaddr(run, res, &mi_, locs[i], want[i], &want[nwant]))
			nwant++;
	ret = psym_resolver_prepare(res, want, nwant, e);
	free(want);
	want = NULL;
	if (ret)
		goto out;
	run->done_in_mapping = 0;
	for (size_t i = 0; i < nlocs; i++) {
		struct psym_lookup_ctx ctx = { .map = &mi_, .pid = o->pid, .run = run->serial };
		uint64_t vaddr;

		/* In address order the locations are scattered: ask early for the one written later. */
		if (i + 16 < nlocs)
			psym_lean_prefetch(run->lp, locs[i + 16]);
		if (!loc_vaddr(run, res, &mi_, locs[i],
			       psym_lean_location_address(run->lp, locs[i]), &vaddr))
			continue;
		if ((i & 1023) == 0)
			progress(run, mi, run->p->pb->n_mapping);
		if (!ctx.pid && res->ops->needs_pid) {
			ctx.pid = run->loc_pid[locs[i]];
			/* No sample names it: the resolver may still place it. */
			ctx.pids = run->pids;
			ctx.npids = run->npids;
		}
		ret = psym_resolver_lookup(res, &ctx, vaddr, fr, why);
		if (ret == PSYM_NOENT) {
			ret = 0;
			continue;
		}
		if (ret) {
			ret = psym_err_set(e, ret, "mapping %" PRIu64 ": %s", m->id,
					   why->code ? psym_reason_text(why) : psym_strerror(ret));
			goto out;
		}
		/* --force: add_frames replaces what was there */
		ret = add_frames(run, locs[i], fr->f, fr->n, fr->stable);
		if (ret) {
			ret = psym_err_set(e, ret, "out of memory while symbolizing");
			goto out;
		}
		psym_builder_mapping_resolved(run->b, m, fr->f[0].file, fr->f[0].line, fr->n > 1);
		done++;
		run->done_in_mapping = done;
	}
out:
	*donep = done;
	free(fr);
	free(want);
	return ret;
}

static int symbolize_mapping(struct run *run, size_t mi, pb_mapping *m, uint32_t *locs,
			     size_t nlocs, struct psym_err *e)
{
	const struct psym_symbolize_opts *o = run->o;
	const char *name = psym_profile_str(run->p, m->filename);
	const char *bid = psym_profile_str(run->p, m->build_id);
	struct psym_reason why = { 0 };
	struct psym_regentry *x = NULL;
	struct psym_resolver *res;
	struct objref ref = { .run = run, .x = run->plan[mi] };
	size_t todo = 0, kept = 0, done = 0;
	enum psym_map_class cls;
	int ret;

	for (size_t i = 0; i < nlocs; i++) {
		if (!o->force && psym_lean_has_lines(run->lp, locs[i]))
			kept++;
		else
			todo++;
	}
	run->r->locations += nlocs;
	run->r->kept += kept;
	if (todo == 0) {
		mapsum(run, m, name, NULL, NULL,
		       &(struct psym_mapsum){ .cls = PSYM_MAP_FILE, .kept = kept });
		return 0;
	}
	cls = ref.x->cls;
	if (o->explain && !o->quiet && cls == PSYM_MAP_FILE) {
		struct psym_explain_ev ev = {
			.kind = PSYM_EXPLAIN_MAPPING,
			.mapping_id = m->id,
			.name = name,
			.build_id = bid,
		};

		explain_ev(run, &ev);
	}
	ret = psym_registry_get(cls == PSYM_MAP_FILE ? run->files : run->own, ref.x->key,
				open_object, &ref, &x, e);
	if (ret)
		return ret;
	res = psym_regentry_resolver(x);
	if (res) {
		/* This opening of the object, in which of the run's two registries. */
		uint64_t obj = psym_regentry_serial(x) << 1 | (cls == PSYM_MAP_FILE);

		ret = resolve_locations(run, mi, m, res, obj, locs, nlocs, &done, &why, e);
	} else {
		psym_regentry_reason(x, &why);
	}
	/* Not the host's file: the path was the container's. */
	if (!res && cls == PSYM_MAP_FILE && run->ns_pid[mi] &&
	    (why.code == PSYM_R_NOT_FOUND || why.code == PSYM_R_BUILD_ID_MISMATCH)) {
		char d[sizeof(why.detail)];

		snprintf(d, sizeof(d), "%s", psym_reason_text(&why));
		snprintf(why.detail, sizeof(why.detail),
			 "%.600s; the process ran in another mount namespace (a container): "
			 "its files are under /proc/%d/root on the host; use --binary-path or "
			 "--sysroot, or psym archive on the host",
			 d, run->ns_pid[mi]);
	}
	progress_clear(run);
	if (ret && res && o->explain) {
		/* Stopped by an error: what its lookups tried still comes before it. */
		struct psym_resdesc d = { .flags = PSYM_RESDESC_KEEP_WARNING |
						   PSYM_RESDESC_NO_NOTE };

		psym_resolver_describe(res, &d);
		say_tried(run, &d);
	}
	if (!ret) {
		struct psym_mapsum c = { .cls = cls,
					 .done = done,
					 .todo = todo,
					 .kept = kept,
					 .unverified = res && psym_located_unverified(ref.x) };

		run->r->resolved += done;
		if (cls == PSYM_MAP_FILE)
			run->r->unresolved_file += todo - done;
		else
			run->r->unresolved_other += todo - done;
		run->r->unverified += c.unverified;
		summary(run, m, name, res, &why, &c);
	}
	psym_regentry_release(x);
	return ret;
}

/* --explain: an object of the plan (plan.h), once, as located. */
static void explain_object(void *ud, size_t k, const struct psym_located *x)
{
	struct run *run = ud;

	if (run->o->quiet) { /* the candidates still, as tried */
		for (size_t i = 0; i < x->ntried; i++)
			explain_cb(run, x->tried[i].path, x->tried[i].verdict);
		return;
	}
	explain_ev(run, &(struct psym_explain_ev){ .kind = PSYM_EXPLAIN_OBJECT,
						   .mapping_id = run->p->pb->mapping[k]->id,
						   .obj = x });
}

/*
 * The plan: every mapping with locations to resolve is classified once
 * into a typed key of the located-object table (binaries in the batch's
 * table when shared); then every key is located in one pass, before any
 * is resolved (plan.h).
 */
static int plan(struct run *run, struct psym_err *e)
{
	const struct psym_symbolize_opts *o = run->o;
	pb_profile *pb = run->p->pb;
	char clean[4096];
	int ret;

	run->plan = calloc(pb->n_mapping + 1, sizeof(*run->plan));
	if (!run->plan)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t k = 0; k < pb->n_mapping; k++) {
		const char *name = psym_profile_str(run->p, pb->mapping[k]->filename);
		enum psym_map_class cls = psym_objkey_classify(name, clean, sizeof(clean));
		size_t todo = 0;

		for (size_t i = 0; i < run->fill[k]; i++)
			if (o->force ||
			    !psym_lean_has_lines(run->lp, run->order[run->first[k] + i]))
				todo++;
		if (!todo)
			continue;
		ret = psym_objtab_add(cls == PSYM_MAP_FILE ? run->files_tab : run->own_tab, cls,
				      clean, psym_profile_str(run->p, pb->mapping[k]->build_id),
				      (long)k == run->main_mapping ? o->main_binary : NULL,
				      &run->plan[k], e);
		if (ret)
			return ret;
	}
	return psym_plan_locate(&(struct psym_plan){ .obj = run->plan,
						     .n = pb->n_mapping,
						     .files_tab = run->files_tab,
						     .own_tab = run->own_tab,
						     .files_lo = run->file_bopts->locate,
						     .own_lo = &run->lo,
						     .pids = o->pid ? &o->pid : run->pids,
						     .npids = o->pid ? 1 : run->npids,
						     .explain = o->explain ? explain_object : NULL,
						     .ud = run },
				e);
}

/* The jitdumps the recording mapped, from the profile's comments. */
static int recorded_jitdumps(struct run *run, struct psym_err *e)
{
	const pb_profile *pb = run->p->pb;
	struct psym_jitdump_rec r;

	for (size_t i = 0; i < pb->n_comment; i++) {
		if (!psym_jitdump_comment_parse(psym_profile_str(run->p, pb->comment[i]), &r))
			continue;
		if (!run->jitdumps && !(run->jitdumps = calloc(pb->n_comment, sizeof(r))))
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		run->jitdumps[run->njitdumps++] = r;
	}
	return 0;
}

/* The run's locate options, binary options, registries and tables. */
static int setup(struct run *run, struct psym_err *e)
{
	const struct psym_symbolize_opts *o = run->o;
	struct psym_hostid rec;
	int ret;

	psym_symbolize_locate_opts(o, &run->lo);
	run->skipped = (struct psym_skipped){ .fn = skipped_cb, .ud = run };
	/* The kernel release whose vmlinux and modules are looked for (hostid.h's rule). */
	psym_hostid_profile_release(run->p, run->release, sizeof(run->release));
	run->lo.release = run->release[0] ? run->release : NULL;
	psym_hostid_profile_kernel_build_id(run->p, run->kbid, sizeof(run->kbid));
	run->lo.kernel_build_id = run->kbid[0] ? run->kbid : NULL;
	/* This machine's perf maps stand in for missing side files only for
	 * a profile recorded here (hostid.h). */
	if (!psym_hostid_profile_is_local(run->p, &rec, run->foreign, sizeof(run->foreign)) &&
	    o->perf_map_dirs_default)
		run->lo.n_perf_map_dirs = 0;
	/* The side dir's kallsyms copies of other boots are refused. */
	snprintf(run->boot_id, sizeof(run->boot_id), "%s", rec.boot_id);
	run->lo.boot_id = run->boot_id;
	run->bopts = (struct psym_binary_opts){
		.inlines = !o->no_inlines,
		.locate = &run->lo,
		.limits = &o->limits,
		.cache_dir = o->cache_dir,
		.index_store = o->index_store,
		.kallsyms_cache = o->shared ? psym_bincache_kallsyms(o->shared) : NULL,
	};
	run->file_bopts = o->shared ? psym_bincache_bopts(o->shared) : &run->bopts;
	run->serial = next_run_serial();
	run->own = psym_registry_new(0);
	run->own_tab = psym_objtab_new(0);
	if (!run->own || !run->own_tab)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	psym_registry_set_max_open(run->own, o->limits.open_objects);
	psym_objtab_set_max_held(run->own_tab, o->limits.open_objects);
	psym_objtab_keep_tried(run->own_tab, o->explain); /* only --explain says them */
	run->files = o->shared ? psym_bincache_registry(o->shared) : run->own;
	run->files_tab = o->shared ? psym_bincache_objtab(o->shared) : run->own_tab;
	run->memo = psym_funcmemo_new();
	ret = recorded_jitdumps(run, e);
	if (!ret)
		ret = psym_builder_new(run->p, &run->b, e);
	if (!ret && psym_builder_reserve(run->b, psym_lean_nlocations(run->lp)))
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	return ret;
}

/* What prepare_labels reads of each sample. */
struct labels_ctx {
	struct run *run;
	bool pids; /* the string table has "pid": labels are looked at */
	/* The string index of each of label_keys (-1: none); by_name: one is there twice. */
	int64_t key[2];
	bool by_name;
};

static const char *const label_keys[2] = { "pid", "mntns" };

/* Label key k is label_keys[w]: an index compared, not a string per label. */
static bool key_is(const struct labels_ctx *c, int64_t k, int w)
{
	return c->by_name ? !strcmp(psym_profile_str(c->run->p, k), label_keys[w]) : k == c->key[w];
}

static int sample_labels(void *ud, size_t i, const pb_sample *smp)
{
	struct labels_ctx *c = ud;
	struct run *run = c->run;
	int pid = 0;
	bool ns = false; /* psym-collect saw it in another mount namespace */

	(void)i;
	if (run->caller_only && smp->n_location_id) {
		long pos = psym_lean_location_pos(run->lp, smp->location_id[0]);

		if (pos >= 0)
			run->caller_only[pos] = false; /* a leaf: not a return address */
	}
	for (size_t j = 0; c->pids && j < smp->n_label; j++) {
		int64_t k = smp->label[j]->key;

		if (key_is(c, k, 0) && smp->label[j]->num > 0 && smp->label[j]->num < INT32_MAX)
			pid = (int)smp->label[j]->num;
		ns = ns || (key_is(c, k, 1) && smp->label[j]->num);
	}
	for (size_t j = 0; pid && j < smp->n_location_id; j++) {
		long pos = psym_lean_location_pos(run->lp, smp->location_id[j]);

		if (pos >= 0 && !run->loc_pid[pos])
			run->loc_pid[pos] = pid;
		if (pos >= 0 && ns) {
			long mp = psym_lean_location_mapping(run->lp, (size_t)pos);

			if (mp >= 0 && !run->ns_pid[mp])
				run->ns_pid[mp] = pid;
		}
	}
	if (pid && (!run->npids || run->pids[run->npids - 1] != pid))
		run->pids[run->npids++] = pid;
	return 0;
}

/* Where the string table has "pid" and "mntns" (labels_ctx). */
static void find_keys(const struct psym_profile *p, struct labels_ctx *c)
{
	c->key[0] = c->key[1] = -1;
	for (size_t i = 0; i < p->pb->n_string_table; i++)
		for (int w = 0; w < 2 && p->pb->string_table[i]; w++)
			if (!strcmp(p->pb->string_table[i], label_keys[w])) {
				c->by_name = c->by_name || c->key[w] >= 0;
				c->key[w] = c->key[w] >= 0 ? c->key[w] : (int64_t)i;
			}
	c->pids = c->key[0] >= 0;
}

/*
 * Prepare: the process of each location (pid labels), and callers. The
 * samples are read only when there is something to find in them.
 */
static int prepare_labels(struct run *run, struct psym_err *e)
{
	struct psym_lean *lp = run->lp;
	pb_profile *pb = run->p->pb;
	struct labels_ctx c = { .run = run };
	size_t w = 0, nloc = psym_lean_nlocations(lp);
	int ret;

	run->loc_pid = calloc(nloc + 1, sizeof(int));
	run->pids = calloc(psym_lean_nsamples(lp) + 1, sizeof(int));
	run->ns_pid = calloc(pb->n_mapping + 1, sizeof(int));
	if (!run->loc_pid || !run->pids || !run->ns_pid)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (run->o->adjust_callers) {
		/* Locations that are never a sample's leaf hold return addresses. */
		run->caller_only = malloc((nloc + 1) * sizeof(bool));
		if (!run->caller_only)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		memset(run->caller_only, true, (nloc + 1) * sizeof(bool));
	}
	/* A label key is a string: one the table lacks is in no sample (and a
	 * namespace is noted only with its sample's pid). */
	find_keys(run->p, &c);
	if (!c.pids && !run->caller_only)
		return 0;
	ret = psym_lean_foreach_sample(lp, sample_labels, &c, e);
	if (ret)
		return ret;
	/* The profile's processes, each once. */
	qsort(run->pids, run->npids, sizeof(int), cmp_int);
	for (size_t i = 0; i < run->npids; i++)
		if (!w || run->pids[w - 1] != run->pids[i])
			run->pids[w++] = run->pids[i];
	run->npids = w;
	return 0;
}

/* Prepare: locations bucketed by mapping position, profile order in each. */
static int prepare_buckets(struct run *run, struct psym_err *e)
{
	const struct psym_lean *lp = run->lp;
	pb_profile *pb = run->p->pb;
	size_t acc = 0, nloc = psym_lean_nlocations(lp);

	if (nloc > UINT32_MAX)
		return psym_err_set(e, PSYM_ELIMIT, "too many locations (%zu)", nloc);
	run->first = calloc(pb->n_mapping + 1, sizeof(*run->first));
	run->fill = calloc(pb->n_mapping + 1, sizeof(*run->fill));
	run->order = calloc(nloc + 1, sizeof(*run->order));
	if (!run->first || !run->fill || !run->order)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; i < nloc; i++) {
		long k = psym_lean_location_mapping(lp, i);

		if (k < 0 && psym_lean_has_lines(lp, i))
			run->nomap_kept++;
		else if (k < 0)
			run->nomap++;
		else
			run->fill[k]++;
	}
	for (size_t k = 0; k < pb->n_mapping; k++) {
		run->first[k] = acc;
		acc += run->fill[k];
		run->fill[k] = 0;
	}
	for (size_t i = 0; i < nloc; i++) {
		long k = psym_lean_location_mapping(lp, i);

		if (k >= 0)
			run->order[run->first[k] + run->fill[k]++] = (uint32_t)i;
	}
	return 0;
}

/* Resolve: every mapping through its planned object. */
static int resolve(struct run *run, struct psym_err *e)
{
	pb_profile *pb = run->p->pb;
	int ret = 0;

	for (size_t k = 0; k < pb->n_mapping && !ret; k++)
		ret = symbolize_mapping(run, k, pb->mapping[k], run->order + run->first[k],
					run->fill[k], e);
	if (!ret) {
		run->r->locations += run->nomap_kept;
		run->r->kept += run->nomap_kept;
	}
	if (!ret && run->nomap) {
		run->r->no_mapping = run->nomap;
		run->r->locations += run->nomap;
		run->r->unresolved_other += run->nomap;
	}
	return ret;
}

int psym_symbolize(struct psym_lean *lp, const struct psym_symbolize_opts *o,
		   struct psym_symbolize_result *r, struct psym_err *e)
{
	struct run run = {
		.lp = lp, .p = psym_lean_profile(lp), .o = o, .r = r, .main_mapping = -1
	};
	/*
	 * Index builds start at the end and when an object is closed for the
	 * open cap (registry.h): all are this run's, unless a batch shares the
	 * binaries (its other runs build too: the batch counts those).
	 */
	size_t built = psym_index_store_built(o->index_store);
	int ret;

	memset(r, 0, sizeof(*r));
	ret = setup(&run, e);
	if (!ret)
		ret = prepare_labels(&run, e);
	if (!ret)
		ret = prepare_buckets(&run, e);
	/* --main-binary names the file mapping with its build ID, or the first
	 * user-space file mapping (like pprof's) when the profile has none. */
	if (!ret && o->main_binary)
		ret = find_main_mapping(&run, &run.main_mapping, e);
	if (!ret)
		ret = plan(&run, e);
	if (!ret)
		ret = resolve(&run, e);
	progress_clear(&run);
	if (ret)
		psym_symbolize_result_free(r);
	{
		/* The run is over: the index build policy (resolve_index.c). */
		if (o->shared)
			built = psym_index_store_built(o->index_store);
		if (!ret)
			psym_registry_finish(run.own);
		psym_registry_free(run.own);
		if (!ret)
			r->indexes_built += psym_index_store_built(o->index_store) - built;
	}
	psym_objtab_free(run.own_tab);
	free(run.plan);
	free(run.caller_only);
	free(run.loc_pid);
	free(run.ns_pid);
	free(run.pids);
	free(run.jitdumps);
	free(run.first);
	free(run.fill);
	free(run.order);
	psym_funcmemo_free(run.memo);
	psym_builder_free(run.b);
	return ret;
}
