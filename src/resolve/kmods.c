/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "fileio.h"
#include "hashtab.h"
#include "hostid.h"
#include "kmod.h"
#include "kmods.h"
#include "mapping.h"
#include "sidenames.h"

/* Distinct modules looked for in one run (a kernel has a few hundred). */
#define MAX_MODULES 4096

struct kmod_entry {
	char *name;
	struct psym_binary *bin; /* NULL: not found or not usable */
};

struct psym_kmods {
	struct psym_objtab *t;	/* the table whose kernel entry x records each */
	struct psym_located *x; /* module's file (objtab.h); NULL, NULL: none */
	const struct psym_locate_opts *lo;
	struct psym_binary_opts bo; /* without the symbol cache: addresses move */
	const struct psym_kallsyms *ks;
	pthread_mutex_t mu;
	struct kmod_entry *v;
	size_t n, cap;
	unsigned char *rec; /* the side dir's modules record, or NULL */
	size_t reclen;
};

/* psym-collect's record of the modules (NAME BUILD-ID TEXT): a few hundred lines. */
#define MAX_RECORD ((size_t)4 << 20)

int psym_kmods_new(struct psym_objtab *t, struct psym_located *x, const struct psym_locate_opts *lo,
		   const struct psym_binary_opts *bo, const struct psym_kallsyms *ks,
		   struct psym_kmods **out, struct psym_err *e)
{
	struct psym_kmods *m = calloc(1, sizeof(*m));

	if (!m)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	m->t = t;
	m->x = x;
	m->lo = lo;
	m->bo = *bo;
	/*
	 * The symbol cache and the index store key a file by its build ID; a
	 * module's addresses are where this run's kernel loaded it (an index
	 * made here would answer psym addr's section offsets, or another
	 * run's load addresses, wrongly).
	 */
	m->bo.cache_dir = NULL;
	m->bo.index_store = NULL;
	m->ks = ks;
	if (lo->side_dir) {
		char path[4200];
		struct psym_err le = { 0 };
		const char *why;

		if ((size_t)snprintf(path, sizeof(path), "%s/" PSYM_SIDE_MODULES, lo->side_dir) >=
			    sizeof(path) ||
		    psym_side_file_refused(lo->side_dir, path, &why) ||
		    psym_read_file(path, MAX_RECORD, &m->rec, &m->reclen, &le) != 0)
			m->rec = NULL;
	}
	pthread_mutex_init(&m->mu, NULL);
	*out = m;
	return 0;
}

void psym_kmods_free(struct psym_kmods *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].name);
		psym_binary_free(m->v[i].bin);
	}
	free(m->v);
	free(m->rec);
	pthread_mutex_destroy(&m->mu);
	free(m);
}

struct find {
	struct psym_kmods *m;
	const char *module;
	const char *bid; /* recorded by psym-collect, or NULL */
	uint64_t text;	 /* .text's load address it recorded, 0: unknown */
	struct psym_binary *bin;
	struct psym_locate_opts lo; /* m->lo, its candidates recorded into side */
	struct psym_locside side;   /* what the search found, for the table */
	bool quiet;		    /* reopening the file the table recorded: no candidates */
	struct psym_cands cands;    /* the locator's, until recorded */
};

/* The module's kallsyms symbols, sorted by name (one kallsyms scan per module). */
struct kname {
	const char *name;
	uint64_t addr;
};

struct placer {
	struct kname *v;
	size_t n, cap;
	bool nomem;
};

static void collect(void *ud, const char *name, uint64_t addr)
{
	struct placer *p = ud;

	struct kname *v = psym_array_grow(p->v, &p->cap, p->n + 1, sizeof(*v), 0);

	if (!v) {
		p->nomem = true;
		return;
	}
	p->v = v;
	p->v[p->n++] = (struct kname){ name, addr };
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct kname *)a)->name, ((const struct kname *)b)->name);
}

static int addr_of(void *ud, const char *name, uint64_t *addr)
{
	const struct placer *p = ud;
	struct kname key = { name, 0 };
	const struct kname *hit;

	hit = p->n ? bsearch(&key, p->v, p->n, sizeof(*p->v), by_name) : NULL;
	if (!hit)
		return PSYM_NOENT;
	*addr = hit->addr;
	return 0;
}

/*
 * A candidate of the locator's search and its verdict: recorded in the
 * module's record, and for --explain in the kernel entry's (objtab.h).
 */
static void candidate(struct find *f, const char *path, const char *verdict)
{
	if (f->quiet)
		return;
	psym_locside_push(&f->side, path, verdict);
	psym_objtab_candidate(f->m->t, f->m->x, path, verdict);
}

/* A module file refused, and why. */
static void refused(struct find *f, const char *path, const char *why)
{
	struct psym_reason r = { 0 };

	if (f->quiet)
		return;
	psym_locside_push(&f->side, path, why);
	psym_reason_set(&r, PSYM_R_BAD_FILE, "%s", why);
	psym_objtab_tried(f->m->t, f->m->x, PSYM_TRY_KMOD, path, &r);
}

/* The module file used (pkg: the debug package it came from, or NULL). */
static void used(struct find *f, const char *path, const char *pkg)
{
	if (f->quiet)
		return;
	psym_locside_push(&f->side, path, ""); /* used: the words are the describer's */
	psym_objtab_used(f->m->t, f->m->x, PSYM_TRY_KMOD, path, pkg, 0);
}

/* The locator's candidates of the search so far, in their place (f->cands emptied). */
static void candidates(struct find *f)
{
	for (size_t i = 0; i < f->cands.n; i++)
		candidate(f, f->cands.v[i].path, f->cands.v[i].verdict);
	psym_cands_free(&f->cands);
}

/* Use an opened module file if it has DWARF, the recorded build ID, and can be placed. */
static bool use(struct find *f, struct psym_elf *elf, const char *path)
{
	struct placer pl = { 0 };
	struct psym_err le = { 0 };
	const char *own = psym_elf_build_id(elf);
	const char *no = NULL, *pkg;
	size_t placed = 0;

	if (!psym_elf_is_rel(elf) || !psym_elf_has_dwarf(elf))
		no = "not a module with DWARF";
	else if (f->bid && own && strcmp(own, f->bid) != 0)
		no = "its build ID is not the loaded module's";
	if (!no) {
		psym_kallsyms_each_of_module(f->m->ks, f->module, collect, &pl);
		if (pl.n)
			qsort(pl.v, pl.n, sizeof(*pl.v), by_name);
		placed = pl.nomem ? 0 : psym_kmod_place(elf, addr_of, &pl);
		free(pl.v);
		if (!placed && (!f->text || psym_elf_place(elf, ".text", f->text) != 0))
			no = "none of its functions is in kallsyms (and no recorded .text "
			     "address)";
	}
	if (no) {
		refused(f, path, no);
		psym_elf_close(elf);
		return false;
	}
	if (!f->side.file && !(f->side.file = strdup(path))) {
		psym_elf_close(elf);
		return false;
	}
	if (psym_binary_new(elf, &f->m->bo, &f->bin, &le) != 0) {
		refused(f, path, le.msg);
		free((char *)f->side.file);
		f->side.file = NULL;
		f->bin = NULL;
		return false;
	}
	psym_binary_set_log(f->bin, f->m->t, f->m->x);
	pkg = psym_locate_debug_pkg(f->m->lo, path);
	used(f, path, pkg);
	return true;
}

/* One tree: the module's file there. */
static bool try_root(void *ud, const char *root, enum psym_cand_rule rule)
{
	struct find *f = ud;
	struct psym_err le = { 0 };
	struct psym_elf *elf = NULL;
	char path[4096];

	(void)rule;
	candidates(f);
	if (psym_kmod_find(root, f->module, path, sizeof(path)) != 0)
		return false;
	if (psym_elf_open(path, f->m->lo->elf_limits, &elf, &le) != 0) {
		refused(f, path, le.msg);
		return false;
	}
	return use(f, elf, path);
}

/*
 * The module's file, searched: the module trees, then by the recorded
 * build ID (.build-id trees, debuginfod); the answer and every candidate
 * kept in the kernel entry.
 */
static void search(struct find *f)
{
	struct psym_err le = { 0 };

	f->lo = *f->m->lo;
	f->lo.cands = &f->cands;
	psym_locate_module_roots(&f->lo, try_root, f);
	candidates(f);
	if (!f->bin && f->bid) {
		struct psym_elf *elf = NULL;
		struct psym_reason why = { 0 };

		int ret = psym_locate_debug_file(&f->lo, f->bid, NULL, NULL, 0, &elf, &why, &le);

		candidates(f);
		if (ret == 0)
			use(f, elf, psym_elf_path(elf));
	}
	f->side.status = f->bin ? 0 : PSYM_NOENT;
	if (!f->bin)
		psym_reason_set(&f->side.why, PSYM_R_NOT_FOUND,
				"no usable file for kernel module '%s'", f->module);
	if (psym_objtab_kmod_keep(f->m->t, f->m->x, f->module, &f->side, &le) != 0)
		psym_locside_free(&f->side); /* not remembered: searched again next time */
}

static struct kmod_entry *entry(struct psym_kmods *m, const char *module)
{
	struct find f = { .m = m, .module = module };
	struct psym_reason why;
	struct kmod_entry *v;
	char bid[130], file[4096];
	uint64_t text;

	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->v[i].name, module) == 0)
			return &m->v[i];
	if (m->n == MAX_MODULES)
		return NULL;
	v = psym_array_grow(m->v, &m->cap, m->n + 1, sizeof(*v), 0);
	if (!v)
		return NULL;
	m->v = v;
	v = &m->v[m->n];
	v->name = strdup(module);
	if (!v->name)
		return NULL;
	if (m->rec && psym_kmod_record_find((const char *)m->rec, m->reclen, module, bid,
					    sizeof(bid), &text) == 0) {
		f.bid = bid;
		f.text = text;
	}
	if (psym_objtab_kmod_known(m->t, m->x, module, file, sizeof(file), &why)) {
		/* Searched before (an earlier run, or this resolver reopened): its file. */
		struct psym_elf *elf = NULL;
		struct psym_err le = { 0 };

		f.quiet = true;
		if (file[0] && psym_elf_open(file, m->lo->elf_limits, &elf, &le) == 0)
			use(&f, elf, file);
		free((char *)f.side.file);
	} else {
		search(&f);
	}
	v->bin = f.bin;
	m->n++;
	return v;
}

size_t psym_kmods_resolve(struct psym_kmods *m, const char *module, uint64_t addr,
			  struct psym_frame *frames, size_t max)
{
	struct kmod_entry *v;
	size_t n = 0;

	if (!m || !m->ks)
		return 0;
	pthread_mutex_lock(&m->mu);
	v = entry(m, module);
	if (v && v->bin)
		n = psym_binary_resolve(v->bin, addr, frames, max);
	pthread_mutex_unlock(&m->mu);
	return n;
}

/* ---- what a profile needs: the modules its kernel frames fall in ---------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int psym_kmods_profile_wants(const struct psym_profile *p, const char *side_dir,
			     const char *kallsyms, const struct psym_reader_limits *lim,
			     psym_kmods_want_fn fn, void *ud, struct psym_err *e)
{
	struct psym_locate_opts lo = { .side_dir = side_dir, .kallsyms = kallsyms };
	const pb_profile *pb = p->pb;
	char kpath[4200], release[65];
	struct psym_kallsyms *ks = NULL;
	struct psym_hashtab seen;
	struct psym_reason why;
	struct psym_err le = { 0 };
	unsigned char *rec = NULL;
	size_t reclen = 0, nk = 0;
	uint64_t *kids;
	int ret = 0;

	struct psym_hostid host;
	const char *base;
	char boot[40], sha[65];

	/* The kallsyms copy the kernel resolver would use, checked as it checks
	 * it (the profile's boot, the content's hash): without one, nothing is placed. */
	psym_hostid_profile_is_local(p, &host, NULL, 0);
	lo.boot_id = host.boot_id;
	if (psym_locate_kallsyms(&lo, NULL, kpath, sizeof(kpath), &why) != 0)
		return 0; /* the symbolizer says why */
	base = strrchr(kpath, '/');
	if (psym_kallsyms_open_sha(
		    kpath, psym_side_kallsyms_id(base ? base + 1 : kpath, boot, sha) ? sha : NULL,
		    lim->kallsyms_symbols, lim->kallsyms_bytes, &ks, &le) != 0)
		return 0;
	kids = calloc(pb->n_mapping + 1, sizeof(*kids));
	if (!kids) {
		psym_kallsyms_free(ks);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < pb->n_mapping; i++) {
		enum psym_map_class c = psym_mapping_classify(
			psym_profile_str(p, pb->mapping[i]->filename), NULL, 0, NULL);

		if (c == PSYM_MAP_KERNEL || c == PSYM_MAP_KMODULE)
			kids[nk++] = pb->mapping[i]->id;
	}
	if (!nk)
		goto out;
	qsort(kids, nk, sizeof(*kids), cmp_u64);
	if (side_dir) {
		char path[4200];
		const char *refused;

		if ((size_t)snprintf(path, sizeof(path), "%s/" PSYM_SIDE_MODULES, side_dir) >=
			    sizeof(path) ||
		    psym_side_file_refused(side_dir, path, &refused) ||
		    psym_read_file(path, MAX_RECORD, &rec, &reclen, &le) != 0)
			rec = NULL;
	}
	psym_hostid_profile_release(p, release, sizeof(release));
	psym_hashtab_init(&seen, MAX_MODULES);
	for (size_t i = 0; !ret && i < pb->n_location; i++) {
		const pb_location *l = pb->location[i];
		struct psym_frame f = { 0 };
		char mod[256], bid[130];
		const char *b = NULL;
		size_t len;
		uint64_t text;
		void *v;

		if (!bsearch(&l->mapping_id, kids, nk, sizeof(*kids), cmp_u64) ||
		    psym_kallsyms_lookup(ks, l->address, &f) != 0 || !f.file || f.file[0] != '[')
			continue;
		len = strlen(f.file);
		if (len < 3 || len - 2 >= sizeof(mod) || f.file[len - 1] != ']' ||
		    psym_hashtab_get(&seen, f.file, len, &v) == 0)
			continue;
		/* f.file lives as long as ks: the key is borrowed. */
		if (psym_hashtab_put(&seen, f.file, len, NULL, &le) != 0)
			break; /* past MAX_MODULES: the rest are not looked for either */
		memcpy(mod, f.file + 1, len - 2);
		mod[len - 2] = '\0';
		if (rec && psym_kmod_record_find((const char *)rec, reclen, mod, bid, sizeof(bid),
						 &text) == 0)
			b = bid;
		ret = fn(ud, mod, release[0] ? release : NULL, b);
	}
	psym_hashtab_free(&seen);
out:
	free(rec);
	free(kids);
	psym_kallsyms_free(ks);
	return ret;
}
