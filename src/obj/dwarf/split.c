/* SPDX-License-Identifier: MIT */
/*
 * Split DWARF (DWARF 5 skeleton / split_compile units, and the GNU DWARF 4
 * form: DW_AT_GNU_dwo_name, DW_AT_GNU_dwo_id, DW_AT_GNU_addr_base,
 * DW_AT_GNU_ranges_base).
 *
 * A skeleton unit in the binary keeps the line table and the unit's
 * ranges; its split unit, in a .dwo file or in the binary's .dwp package,
 * has the DIEs. Each file found is opened as a psym_dwarf of its own
 * (sections named .debug_*.dwo), whose .debug_addr and .debug_ranges are
 * the skeleton file's (borrowed): addresses come from the skeleton's
 * .debug_addr at its addr_base, DWARF 4 ranges from its .debug_ranges at
 * its GNU ranges base. A unit of a .dwp is a view of the package: its
 * sections are narrowed to the unit's contributions, as the package's
 * .debug_cu_index (version 2, GNU, or 5) lists them, so that it reads as
 * a .dwo would.
 *
 * Files are opened on the first decode of a skeleton that needs them,
 * each at most once, under one lock (decoding itself runs unlocked on the
 * prepare threads: each split unit is claimed by one skeleton). A file is
 * used only when it is a regular ELF file holding a unit with the
 * skeleton's dwo id: whatever path a hostile dwo_name leads to, nothing
 * else is read from it. A skeleton without its split unit keeps lines and
 * symbol names; the reason is kept for the report.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elffile.h"
#include "hashtab.h"
#include "inline.h"
#include "sections.h"
#include "split.h"
#include "unit.h"
#include "array.h"

#define MAX_DWP_COLS 16

struct dwofile {
	char *path;
	struct psym_elf *elf;
	struct psym_dwarf *dw; /* NULL: not usable (the reason was given when tried) */
	struct psym_reason why;
};

/*
 * A view of the package: the sections narrowed to one row's contributions.
 * Rows with the same contributions share one view (a lying index that
 * gives every unit the whole .debug_info.dwo would otherwise index all
 * units once per unit: N squared memory).
 */
struct view {
	uint64_t off[S_N], size[S_N]; /* the key in dwp.by_contrib */
	struct psym_dwarf *dw;
	int indexed; /* 0: not yet; 1: indexed; < 0: index_child's result */
};

struct dwp {
	struct psym_elf *elf;
	struct psym_dwarf *pk; /* the package's sections */
	uint32_t version, ncols, nunits, nslots;
	uint64_t off_idx, off_offs, off_sizes; /* in .debug_cu_index */
	int col[S_N];			       /* column of each section, -1: none */
	struct view **views;		       /* one per distinct contribution set */
	size_t nviews, capviews;
	struct psym_hashtab by_contrib; /* views by their off and size */
	uint64_t info_total;		/* .debug_info.dwo bytes of all views */
};

struct split {
	pthread_mutex_t mu; /* everything here, while preparing on threads */
	const struct psym_dwo_finder *f;
	bool dwp_tried;
	struct dwp *dwp;
	struct psym_reason dwp_why; /* a .dwp that could not be used */
	struct dwofile *files;
	size_t nfiles, capfiles;
	size_t nskel, nmissing;
	struct psym_reason why;
};

/* A candidate tried, and why it was refused (code, detail); PSYM_R_NONE: used. */
static void tried(const struct split *s, bool dwp, const char *path, enum psym_reason_code code,
		  const char *detail)
{
	struct psym_reason why = { .code = code };

	if (!s->f->tried)
		return;
	if (detail)
		snprintf(why.detail, sizeof(why.detail), "%s", detail);
	s->f->tried(s->f->ctx, dwp, path, code == PSYM_R_NONE ? NULL : &why);
}

/* A psym_dwarf for a .dwo or .dwp file, with the options of d; no sections yet. */
static struct psym_dwarf *child_new(const struct psym_dwarf *d, const struct psym_elf *elf)
{
	struct psym_dwarf *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->elf = elf;
	c->path = psym_elf_path(elf);
	c->swap = d->swap;
	c->o = d->o;
	c->o.split = NULL;
	c->dwo = true;
	psym_arena_init(&c->strings, (size_t)1 << 30);
	pthread_mutex_init(&c->strings_mu, NULL);
	return c;
}

/* Addresses and DWARF 4 ranges of split units are the skeleton file's. */
static void borrow_skeleton_sections(struct psym_dwarf *c, const struct psym_dwarf *d)
{
	static const enum sec shared[] = { S_ADDR, S_RANGES };

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		dw_section_free(&c->sec[shared[i]]);
		c->sec[shared[i]] =
			(struct section){ .p = d->sec[shared[i]].p, .len = d->sec[shared[i]].len };
	}
}

/* Index c's units; false (with why) when it has none usable. */
static int index_child(struct psym_dwarf *c, struct psym_reason *why, struct psym_err *e)
{
	struct psym_err le = { 0 };
	int ret = dw_index_cus(c, &le);

	if (ret == PSYM_ENOMEM)
		return psym_err_set(e, ret, "%s", le.msg);
	if (ret || c->ncus == 0) {
		psym_reason_offer(why, PSYM_R_BAD_FILE, 3, "'%s': %s", c->path,
				  ret ? le.msg : "no readable unit in .debug_info.dwo");
		return PSYM_NOENT;
	}
	return 0;
}

/* The unit of c with this dwo id that no other skeleton took, or NULL. */
static struct cu *unit_with_id(struct psym_dwarf *c, uint64_t id, uint64_t *other)
{
	for (size_t i = 0; i < c->ncus; i++) {
		struct cu *u = &c->cus[i];

		if (!u->has_dwo_id || !u->ab)
			continue;
		if (u->dwo_id == id && !u->claimed)
			return u;
		*other = u->dwo_id;
	}
	return NULL;
}

/* ---- .dwp packages ------------------------------------------------------- */

static void dwp_free(struct dwp *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nviews; i++) {
		psym_dwarf_close(p->views[i]->dw);
		free(p->views[i]);
	}
	free(p->views);
	psym_hashtab_free(&p->by_contrib);
	psym_dwarf_close(p->pk);
	psym_elf_close(p->elf);
	free(p);
}

/* Section of a .debug_cu_index column id (DW_SECT_*), or -1 when not used. */
static int sect_of(uint32_t version, uint32_t id)
{
	switch (id) {
	case 1: return S_INFO;
	case 3: return S_ABBREV;
	case 4: return S_LINE;
	case 6: return S_STR_OFF;
	case 8: return version >= 5 ? S_RNGLISTS : -1;
	default: return -1;
	}
}

/* The header and tables of .debug_cu_index, bounds-checked; false when corrupt. */
static bool dwp_parse(struct dwp *p, const char **what)
{
	const struct section *ix = &p->pk->sec[S_CU_INDEX];
	struct cur c = cur_at(ix->p, ix->len, 0, p->pk->swap);
	uint64_t need, off_cols;
	uint16_t v16 = rd_u16(&c);

	*what = "bad header";
	if (v16 == 5) {
		p->version = 5;
		rd_u16(&c); /* padding */
	} else {
		c = cur_at(ix->p, ix->len, 0, p->pk->swap);
		p->version = rd_u32(&c);
	}
	p->ncols = rd_u32(&c);
	p->nunits = rd_u32(&c);
	p->nslots = rd_u32(&c);
	if (!c.ok || (p->version != 2 && p->version != 5)) {
		*what = "unknown .debug_cu_index version";
		return false;
	}
	if (p->ncols == 0 || p->ncols > MAX_DWP_COLS || p->nunits > p->nslots ||
	    (p->nslots & (p->nslots - 1)) != 0) {
		*what = "bad section, unit or slot count";
		return false;
	}
	/* 16 + 12 per slot + 4 per column + 8 per unit and column: no overflow in 64 bits. */
	need = 16 + (uint64_t)p->nslots * 12 + (uint64_t)p->ncols * 4 +
	       (uint64_t)p->nunits * p->ncols * 8;
	if (need > ix->len) {
		*what = "tables larger than the section";
		return false;
	}
	p->off_idx = 16 + (uint64_t)p->nslots * 8;
	off_cols = p->off_idx + (uint64_t)p->nslots * 4;
	p->off_offs = off_cols + (uint64_t)p->ncols * 4;
	p->off_sizes = p->off_offs + (uint64_t)p->nunits * p->ncols * 4;
	for (int i = 0; i < S_N; i++)
		p->col[i] = -1;
	c = cur_at(ix->p, ix->len, off_cols, p->pk->swap);
	for (uint32_t k = 0; k < p->ncols; k++) {
		int s = sect_of(p->version, rd_u32(&c));

		if (s < 0)
			continue;
		if (p->col[s] >= 0) {
			*what = "a section listed twice";
			return false;
		}
		p->col[s] = (int)k;
	}
	if (!c.ok || p->col[S_INFO] < 0 || p->col[S_ABBREV] < 0) {
		*what = "no info or abbrev column";
		return false;
	}
	return true;
}

/* Row (1-based) of a dwo id in the hash table; 0 when absent or corrupt. */
static uint32_t dwp_row(const struct dwp *p, uint64_t id)
{
	const struct section *ix = &p->pk->sec[S_CU_INDEX];
	uint32_t mask = p->nslots - 1, h, step;

	if (!p->nslots)
		return 0;
	h = (uint32_t)id & mask;
	step = ((uint32_t)(id >> 32) & mask) | 1;
	for (uint32_t k = 0; k < p->nslots; k++, h = (h + step) & mask) {
		struct cur c = cur_at(ix->p, ix->len, 16 + (uint64_t)h * 8, p->pk->swap);
		uint64_t sig = rd_u64(&c);
		uint32_t row;

		c = cur_at(ix->p, ix->len, p->off_idx + (uint64_t)h * 4, p->pk->swap);
		row = rd_u32(&c);
		if (!c.ok || (row == 0 && sig == 0))
			return 0;
		if (sig == id)
			return row <= p->nunits ? row : 0;
	}
	return 0;
}

/*
 * The view of the package for one row: a psym_dwarf that reads as a .dwo,
 * shared by the rows with the same contributions. *out NULL with *what
 * when the row is unusable: a contribution outside its section, or views
 * whose .debug_info.dwo contributions add up to more than the section (an
 * honest package partitions it).
 */
static int dwp_view(struct psym_dwarf *d, struct dwp *p, uint32_t row, struct view **out,
		    const char **what, struct psym_err *e)
{
	const struct section *ix = &p->pk->sec[S_CU_INDEX];
	struct view key = { 0 }, *w;
	struct psym_dwarf *v;
	void *found;

	*out = NULL;
	for (int s = 0; s < S_N; s++) {
		uint64_t cell = (uint64_t)(row - 1) * p->ncols + (uint64_t)p->col[s];
		struct cur co, cs;

		if (s == S_STR || p->col[s] < 0)
			continue;
		co = cur_at(ix->p, ix->len, p->off_offs + cell * 4, p->pk->swap);
		cs = cur_at(ix->p, ix->len, p->off_sizes + cell * 4, p->pk->swap);
		key.off[s] = rd_u32(&co);
		key.size[s] = rd_u32(&cs);
		if (!co.ok || !cs.ok || key.off[s] > p->pk->sec[s].len ||
		    key.size[s] > p->pk->sec[s].len - key.off[s]) {
			*what = "a contribution outside its section";
			return 0;
		}
	}
	if (psym_hashtab_get(&p->by_contrib, &key, offsetof(struct view, dw), &found) == 0) {
		*out = found;
		return 0;
	}
	if (p->info_total + key.size[S_INFO] > p->pk->sec[S_INFO].len) {
		*what = "units whose .debug_info.dwo contributions overlap (more than the "
			"section together)";
		return 0;
	}
	{
		struct view **n =
			psym_array_grow(p->views, &p->capviews, p->nviews + 1, sizeof(*n), 0);

		if (!n)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		p->views = n;
	}
	w = malloc(sizeof(*w));
	v = w ? child_new(d, p->elf) : NULL;
	if (!v) {
		free(w);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	*w = key;
	w->dw = v;
	for (int s = 0; s < S_N; s++) {
		if (s == S_STR) {
			v->sec[s] =
				(struct section){ .p = p->pk->sec[s].p, .len = p->pk->sec[s].len };
			continue;
		}
		if (p->col[s] < 0)
			continue;
		v->sec[s] =
			(struct section){ .p = p->pk->sec[s].p ? p->pk->sec[s].p + w->off[s] : NULL,
					  .len = (size_t)w->size[s] };
	}
	borrow_skeleton_sections(v, d);
	if (psym_hashtab_put(&p->by_contrib, w, offsetof(struct view, dw), w, e) != 0) {
		psym_dwarf_close(v);
		free(w);
		return PSYM_ENOMEM;
	}
	p->info_total += w->size[S_INFO];
	p->views[p->nviews++] = w;
	*out = w;
	return 0;
}

/* Open the first .dwp candidate that is a package with a sane index. */
struct dwp_search {
	struct psym_dwarf *d;
	struct split *s;
	struct psym_err *e;
	int err;
};

static bool try_dwp(void *ud, const char *path)
{
	struct dwp_search *q = ud;
	struct split *s = q->s;
	struct psym_err le = { 0 };
	struct dwp *p;
	const char *what;
	int ret;

	if (access(path, F_OK) != 0) {
		tried(s, true, path, PSYM_R_NOT_FOUND, NULL);
		return false;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		q->err = psym_err_set(q->e, PSYM_ENOMEM, "out of memory");
		return true;
	}
	psym_hashtab_init(&p->by_contrib, 0);
	ret = psym_elf_open(path, s->f->elf_limits, &p->elf, &le);
	if (ret) {
		if (ret == PSYM_ENOMEM)
			q->err = psym_err_set(q->e, ret, "%s", le.msg);
		else if (ret == PSYM_ENOTREG)
			tried(s, true, path, PSYM_R_NOT_REGULAR, NULL);
		else
			tried(s, true, path, PSYM_R_BAD_FILE, le.msg);
		if (ret != PSYM_ENOMEM)
			psym_reason_offer(&s->dwp_why, PSYM_R_DWP_BAD, 2, "'%s': %s", path,
					  ret == PSYM_ENOTREG ? "not a regular file" : le.msg);
		free(p);
		return ret == PSYM_ENOMEM;
	}
	p->pk = child_new(q->d, p->elf);
	if (!p->pk) {
		q->err = psym_err_set(q->e, PSYM_ENOMEM, "out of memory");
		dwp_free(p);
		return true;
	}
	ret = dw_load_sections(p->pk, &le);
	if (ret == PSYM_ENOMEM) {
		q->err = psym_err_set(q->e, ret, "%s", le.msg);
		dwp_free(p);
		return true;
	}
	if (ret || !p->pk->sec[S_CU_INDEX].p) {
		what = ret ? le.msg : "no .debug_info.dwo and .debug_cu_index";
		goto bad;
	}
	if (!dwp_parse(p, &what))
		goto bad;
	tried(s, true, path, PSYM_R_NONE, NULL);
	s->dwp = p;
	return true;
bad:
	tried(s, true, path, PSYM_R_DWP_BAD, what);
	psym_reason_offer(&s->dwp_why, PSYM_R_DWP_BAD, 4, "'%s': %s", path, what);
	dwp_free(p);
	return false;
}

/* The split unit of c in the package, when it is there. */
static int from_dwp(struct psym_dwarf *d, struct split *s, struct cu *c, struct psym_dwarf **sd,
		    struct cu **sc, struct psym_reason *why, struct psym_err *e)
{
	struct dwp *p = s->dwp;
	struct view *v;
	const char *what = NULL;
	uint64_t other = 0;
	uint32_t row = dwp_row(p, c->dwo_id);
	int ret;

	if (!row)
		return 0;
	ret = dwp_view(d, p, row, &v, &what, e);
	if (ret)
		return ret;
	if (v) {
		/* A shared view is indexed once; its units are claimed one by one. */
		if (!v->indexed) {
			ret = index_child(v->dw, why, e);
			if (ret == PSYM_ENOMEM)
				return ret;
			v->indexed = ret ? ret : 1;
		} else if (v->indexed < 0) {
			what = "no readable unit in its contribution";
		}
		ret = v->indexed < 0 ? v->indexed : 0;
		if (!ret && (*sc = unit_with_id(v->dw, c->dwo_id, &other)) != NULL) {
			*sd = v->dw;
			return 0;
		}
		if (!ret)
			what = "the index entry holds another dwo id";
	}
	if (what)
		psym_reason_offer(why, PSYM_R_DWP_BAD, 4, "'%s': dwo id %016llx: %s",
				  psym_elf_path(p->elf), (unsigned long long)c->dwo_id, what);
	return 0;
}

/* ---- .dwo files ---------------------------------------------------------- */

struct dwo_search {
	struct psym_dwarf *d;
	struct split *s;
	struct cu *c;
	struct psym_reason *why;
	struct psym_dwarf *found_d;
	struct cu *found;
	size_t tried; /* candidates offered */
	struct psym_err *e;
	int err;
};

/* The file at path, opened and indexed once (usable or not). */
static struct dwofile *dwo_file(struct dwo_search *q, const char *path)
{
	struct split *s = q->s;
	struct dwofile *f;
	struct psym_err le = { 0 };
	int ret;

	for (size_t i = 0; i < s->nfiles; i++)
		if (strcmp(s->files[i].path, path) == 0)
			return &s->files[i];
	{
		struct dwofile *n =
			psym_array_grow(s->files, &s->capfiles, s->nfiles + 1, sizeof(*n), 0);

		if (!n)
			goto nomem;
		s->files = n;
	}
	f = &s->files[s->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		goto nomem;
	s->nfiles++;
	ret = psym_elf_open(path, s->f->elf_limits, &f->elf, &le);
	if (ret == PSYM_ENOMEM)
		goto nomem;
	if (ret) {
		if (ret == PSYM_ENOTREG)
			psym_reason_set(&f->why, PSYM_R_NOT_REGULAR, "'%s': not a regular file",
					path);
		else
			psym_reason_set(&f->why, PSYM_R_BAD_FILE, "%s", le.msg);
		f->elf = NULL;
		return f;
	}
	f->dw = child_new(q->d, f->elf);
	if (!f->dw)
		goto nomem;
	ret = dw_load_sections(f->dw, &le);
	if (ret == PSYM_ENOMEM)
		goto nomem;
	if (ret) {
		psym_reason_set(&f->why, PSYM_R_BAD_FILE, "'%s': %s", path,
				ret == PSYM_NOENT ? "no .debug_info.dwo" : le.msg);
		goto unusable;
	}
	borrow_skeleton_sections(f->dw, q->d);
	ret = index_child(f->dw, &f->why, q->e);
	if (ret == PSYM_ENOMEM) {
		q->err = ret;
		return NULL;
	}
	if (ret)
		goto unusable;
	return f;
unusable:
	psym_dwarf_close(f->dw);
	f->dw = NULL;
	return f;
nomem:
	q->err = psym_err_set(q->e, PSYM_ENOMEM, "out of memory");
	return NULL;
}

static bool try_dwo(void *ud, const char *path)
{
	struct dwo_search *q = ud;
	struct dwofile *f;
	uint64_t other = 0;
	char msg[200];

	q->tried++;
	/* Paths that are not there are not remembered: the list stays the files found. */
	if (access(path, F_OK) != 0) {
		tried(q->s, false, path, PSYM_R_NOT_FOUND, NULL);
		return false;
	}
	f = dwo_file(q, path);
	if (!f)
		return true;
	if (!f->dw) {
		psym_reason_offer(q->why, f->why.code, 3, "%s", psym_reason_text(&f->why));
		tried(q->s, false, path, f->why.code ? f->why.code : PSYM_R_BAD_FILE,
		      psym_reason_text(&f->why));
		return false;
	}
	q->found = unit_with_id(f->dw, q->c->dwo_id, &other);
	if (q->found) {
		q->found_d = f->dw;
		tried(q->s, false, path, PSYM_R_NONE, NULL);
		return true;
	}
	snprintf(msg, sizeof(msg), "rejected: dwo id %016llx, want %016llx",
		 (unsigned long long)other, (unsigned long long)q->c->dwo_id);
	tried(q->s, false, path, PSYM_R_DWO_MISMATCH, msg);
	psym_reason_offer(q->why, PSYM_R_DWO_MISMATCH, 5, "'%s': %s", path, msg);
	return false;
}

/* ---- the skeleton's split unit ------------------------------------------- */

/* Find (under s->mu) the split unit of c: 0 with *sc or not, or ENOMEM. */
static int find_split(struct psym_dwarf *d, struct split *s, struct cu *c, struct psym_dwarf **sd,
		      struct cu **sc, struct psym_reason *why, struct psym_err *e)
{
	size_t tried = 0;
	int ret;

	*sd = NULL;
	*sc = NULL;
	if (!s->dwp_tried && s->f->dwp) {
		struct dwp_search q = { .d = d, .s = s, .e = e };

		s->dwp_tried = true;
		s->f->dwp(s->f->ctx, try_dwp, &q);
		if (q.err)
			return q.err;
	}
	if (s->dwp) {
		ret = from_dwp(d, s, c, sd, sc, why, e);
		if (ret || *sc)
			goto out;
	}
	if (s->dwp_why.code != PSYM_R_NONE)
		psym_reason_offer(why, s->dwp_why.code, s->dwp_why.rank, "%s", s->dwp_why.detail);
	if (c->dwo_name && *c->dwo_name && s->f->dwo) {
		struct dwo_search q = { .d = d, .s = s, .c = c, .why = why, .e = e };

		s->f->dwo(s->f->ctx, c->comp_dir, c->dwo_name, try_dwo, &q);
		if (q.err)
			return q.err;
		*sd = q.found_d;
		*sc = q.found;
		tried = q.tried;
	}
	ret = 0;
out:
	if (*sc)
		(*sc)->claimed = true;
	else if (why->code == PSYM_R_NONE)
		psym_reason_set(
			why, PSYM_R_DWO_NOT_FOUND,
			"'%s' (dwo id %016llx): not found in %zu places (--explain lists them)",
			c->dwo_name ? c->dwo_name : "(no dwo name)", (unsigned long long)c->dwo_id,
			tried);
	return ret;
}

/* The offset table of a DWARF 5 str_offsets or rnglists contribution starts after its header. */
static uint64_t header_size(const struct section *sc, uint64_t size32, uint64_t size64, bool swap)
{
	struct cur c = cur_at(sc->p, sc->len, 0, swap);

	return rd_u32(&c) == 0xffffffffu ? size64 : size32;
}

int dw_split_decode(struct psym_dwarf *d, struct cu *c, struct psym_err *e)
{
	struct split *s = d->split;
	struct psym_reason why = { 0 };
	struct psym_dwarf *sd = NULL;
	struct cu *sc = NULL;
	int ret;

	if (!s)
		return dw_decode_dies(d, c, e);
	pthread_mutex_lock(&s->mu);
	s->nskel++;
	ret = find_split(d, s, c, &sd, &sc, &why, e);
	if (!ret && !sc) {
		s->nmissing++;
		psym_reason_offer(&s->why, why.code, why.rank, "%s", why.detail);
	}
	pthread_mutex_unlock(&s->mu);
	if (ret)
		return ret;
	if (!sc)
		return dw_decode_dies(d, c, e); /* the skeleton's own DIEs: lines only */
	/* The split unit reads with the skeleton's bases. */
	sc->addr_base = c->addr_base;
	sc->low_pc = c->low_pc;
	if (sc->version >= 5) {
		sc->str_off_base = header_size(&sd->sec[S_STR_OFF], 8, 16, sd->swap);
		sc->rng_base = header_size(&sd->sec[S_RNGLISTS], 12, 20, sd->swap);
		sc->has_rng_base = true;
	} else {
		sc->str_off_base = 0;
		sc->ranges_base = c->dwo_ranges_base;
	}
	sc->decoded = true;
	ret = dw_decode_dies(sd, sc, e);
	if (ret) {
		sc->failed = true;
		return ret;
	}
	c->split_d = sd;
	c->split_cu = sc;
	return 0;
}

/* ---- state ----------------------------------------------------------------- */

int dw_split_init(struct psym_dwarf *d, struct psym_err *e)
{
	bool any = false;

	if (!d->o.split)
		return 0;
	for (size_t i = 0; i < d->ncus && !any; i++)
		any = d->cus[i].skeleton;
	if (!any)
		return 0;
	d->split = calloc(1, sizeof(*d->split));
	if (!d->split)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	d->split->f = d->o.split;
	d->free_split = dw_split_free;
	pthread_mutex_init(&d->split->mu, NULL);
	return 0;
}

void dw_split_free(struct split *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		psym_dwarf_close(s->files[i].dw);
		psym_elf_close(s->files[i].elf);
		free(s->files[i].path);
	}
	free(s->files);
	dwp_free(s->dwp);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

size_t psym_dwarf_split_status(const struct psym_dwarf *d, size_t *skeletons,
			       struct psym_reason *why)
{
	struct split *s = d->split;
	size_t n = 0;

	if (why)
		memset(why, 0, sizeof(*why));
	if (skeletons)
		*skeletons = 0;
	if (!s)
		return 0;
	pthread_mutex_lock(&s->mu);
	if (skeletons)
		*skeletons = s->nskel;
	if (why)
		*why = s->why;
	n = s->nmissing;
	pthread_mutex_unlock(&s->mu);
	return n;
}
