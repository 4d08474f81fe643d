/* SPDX-License-Identifier: MIT */
/* Reading Go's .gopclntab (gopclntab.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gopclntab.h"
#include "bytes.h"
#include "gopclntab_int.h"
#include "search.h"

/*
 * One function's file, line and inline-index tables, decoded once for all
 * the lookups in it (sorted addresses come one function after another):
 * step k covers pcs up to entry + end[k] with value val[k]. Decoded from
 * a function's second lookup in a row (a single one walks as far as it
 * needs, for addresses in no order); a table with more than MAX_DECODED
 * steps is walked per lookup.
 */
enum {
	T_FILE,
	T_LINE,
	T_INL,
	NTAB
};
#define MAX_DECODED (1u << 20)

struct dtab {
	uint32_t *end;
	int32_t *val;
	uint32_t n, cap;
	int state; /* 0; PSYM_EBADINPUT: damaged after step n; 1: not decoded */
};

struct dec {
	bool have;	/* entry and tab hold a function's */
	uint64_t entry; /* the function's */
	struct dtab tab[NTAB];
};

/* n bytes at off of the table, or NULL when they are not all inside r. */
static const uint8_t *at(const struct psym_gopclntab *t, const struct region *r, uint64_t off,
			 unsigned n)
{
	if (off > r->end - r->off || r->end - r->off - off < n)
		return NULL;
	return t->p + r->off + off;
}

static inline bool rd(const struct psym_gopclntab *t, const struct region *r, uint64_t off,
		      unsigned n, uint64_t *v)
{
	const uint8_t *q = at(t, r, off, n);

	if (!q)
		return false;
	*v = get(t, q, n);
	return true;
}

/* A NUL-terminated string at off of r, or NULL. */
static const char *str(const struct psym_gopclntab *t, const struct region *r, uint64_t off)
{
	const uint8_t *q = at(t, r, off, 1);

	if (!q || !memchr(q, 0, r->end - r->off - off))
		return NULL;
	return (const char *)q;
}

/* n bytes of the image at vaddr, or NULL. */
const uint8_t *psym_gopclntab_img_at(const struct psym_gopclntab *t, uint64_t vaddr, size_t n)
{
	for (size_t i = 0; i < t->nimg; i++) {
		const struct psym_gosec *s = &t->img[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr <= s->len &&
		    s->len - (vaddr - s->vaddr) >= n)
			return s->data + (vaddr - s->vaddr);
	}
	return NULL;
}

static const char *const layout_names[] = { "Go 1.2-1.15", "Go 1.16-1.17", "Go 1.18-1.19",
					    "Go 1.20+" };

const char *psym_gopclntab_layout(const struct psym_gopclntab *t)
{
	return layout_names[t->layout];
}

size_t psym_gopclntab_nfunc(const struct psym_gopclntab *t)
{
	return t->nfunc;
}

bool psym_gopclntab_has_inlines(const struct psym_gopclntab *t)
{
	return t->inl && (t->layout < GO118 ? t->nimg > 0 : t->gofunc != 0);
}

const char *psym_gopclntab_no_inlines_why(const struct psym_gopclntab *t)
{
	if (psym_gopclntab_has_inlines(t))
		return NULL;
	return t->noinl_why ? t->noinl_why : "no inline trees found";
}

/* ---- the header ----------------------------------------------------------- */

static int bad(struct psym_err *e, const char *name, const char *what)
{
	return psym_err_set(e, PSYM_EBADINPUT, "%s: .gopclntab: %s", name, what);
}

/* The magic in either byte order: the layout, or -1. */
int psym_gopclntab_magic(const uint8_t *p, bool *msb)
{
	static const uint32_t m[] = { 0xfffffffbu, 0xfffffffau, 0xfffffff0u, 0xfffffff1u };
	uint32_t le =
		(uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	uint32_t be =
		(uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;

	for (int i = 0; i < 4; i++) {
		if (le == m[i] || be == m[i]) {
			*msb = be == m[i];
			return i;
		}
	}
	return -1;
}

/* Go 1.16+: the header's offsets of the sub-tables, in their order. */
static int header_116(struct psym_gopclntab *t, struct psym_err *e)
{
	const struct region all = { 0, t->len };
	unsigned p = t->ptr, first = t->layout == GO116 ? 8 + 2 * p : 8 + 3 * p;
	uint64_t off[5];

	for (int i = 0; i < 5; i++)
		if (!rd(t, &all, first + (uint64_t)i * p, p, &off[i]))
			return bad(e, t->name, "header cut short");
	for (int i = 0; i < 5; i++)
		if (off[i] > t->len || (i && off[i] < off[i - 1]) || off[i] < first + 5 * p)
			return bad(e, t->name, "sub-table offsets out of order or past its end");
	t->names = (struct region){ off[0], off[1] };
	t->cutab = (struct region){ off[1], off[2] };
	t->filetab = (struct region){ off[2], off[3] };
	t->pctab = (struct region){ off[3], off[4] };
	t->funcs = (struct region){ off[4], t->len };
	t->functab = t->funcs;
	if (t->layout >= GO118 && !t->text_start &&
	    !rd(t, &all, 8 + 2 * (uint64_t)p, p, &t->text_start))
		return bad(e, t->name, "header cut short");
	return 0;
}

int psym_gopclntab_header(struct psym_gopclntab *t, struct psym_err *e)
{
	const struct region all = { 0, t->len };
	int l;
	uint64_t nfunc, esz, fileoff, nfiles;

	if (t->len < 16 || (l = psym_gopclntab_magic(t->p, &t->msb)) < 0)
		return bad(e, t->name, "no Go pclntab header");
	t->layout = (enum layout)l;
	t->minlc = t->p[6];
	t->ptr = t->p[7];
	if (t->p[4] || t->p[5] || (t->minlc != 1 && t->minlc != 2 && t->minlc != 4) ||
	    (t->ptr != 4 && t->ptr != 8))
		return bad(e, t->name, "bad header (pointer size or instruction size)");
	if (!rd(t, &all, 8, t->ptr, &nfunc))
		return bad(e, t->name, "header cut short");
	if (t->layout == GO12) {
		t->functab = (struct region){ 8 + t->ptr, t->len };
		t->funcs = t->names = t->pctab = t->filetab = all;
	} else {
		int ret = header_116(t, e);

		if (ret)
			return ret;
	}
	/* The function table has nfunc + 1 entries (the last: the end). */
	esz = t->layout >= GO118 ? 8 : 2 * t->ptr;
	if (nfunc == 0 || nfunc > MAX_FUNCS || (nfunc + 1) * esz > t->functab.end - t->functab.off)
		return bad(e, t->name, "function count larger than the table");
	t->nfunc = nfunc;
	if (t->layout == GO12) {
		if (!rd(t, &t->functab, (2 * nfunc + 1) * t->ptr, 4, &fileoff) ||
		    !rd(t, &all, fileoff, 4, &nfiles) || nfiles > (t->len - fileoff) / 4)
			return bad(e, t->name, "file table out of bounds");
		t->filetab = (struct region){ fileoff, fileoff + 4 * nfiles };
		t->nfiletab = (uint32_t)nfiles;
	}
	return 0;
}

/* ---- functions -------------------------------------------------------------- */

/* The entry address of function i (i <= nfunc: the end). */
static bool entry_of(const struct psym_gopclntab *t, uint64_t i, uint64_t *pc)
{
	uint64_t v;

	if (t->layout >= GO118) {
		if (!rd(t, &t->functab, i * 8, 4, &v))
			return false;
		*pc = t->text_start + v;
		return true;
	}
	return rd(t, &t->functab, i * 2 * t->ptr, t->ptr, pc);
}

static bool funcoff_of(const struct psym_gopclntab *t, uint64_t i, uint64_t *off)
{
	if (t->layout >= GO118)
		return rd(t, &t->functab, i * 8 + 4, 4, off);
	return rd(t, &t->functab, i * 2 * t->ptr + t->ptr, t->ptr, off);
}

/* The function holding pc: its index, or -1. */
static int64_t find_func(const struct psym_gopclntab *t, uint64_t pc)
{
	uint64_t lo, e;
	bool bad = false;

	if (!entry_of(t, t->nfunc, &e) || pc >= e || !entry_of(t, 0, &e) || pc < e)
		return -1;
	/* The first function after 0 starting past pc; a failed read ends the search. */
	lo = PSYM_LOWER_BOUND(1, t->nfunc, i, bad || (bad = !entry_of(t, i, &e)) || e > pc);
	return bad ? -1 : (int64_t)(lo - 1);
}

/* Function i's record. */
static bool read_func(const struct psym_gopclntab *t, uint64_t i, struct func *f)
{
	const struct region *r = &t->funcs;
	uint64_t off, v[6], base;
	unsigned p = t->layout >= GO118 ? 4 : t->ptr;

	memset(f, 0, sizeof(*f));
	if (!entry_of(t, i, &f->entry) || !entry_of(t, i + 1, &f->end) || f->end <= f->entry ||
	    !funcoff_of(t, i, &off))
		return false;
	/* Fields after the entry: nameoff, args, deferreturn, pcsp, pcfile, pcln, npcdata. */
	base = off + p;
	if (!rd(t, r, base, 4, &v[0]) || !rd(t, r, base + 16, 4, &v[1]) ||
	    !rd(t, r, base + 20, 4, &v[2]) || !rd(t, r, base + 24, 4, &v[3]))
		return false;
	f->off = r->off + off;
	f->nameoff = (int32_t)v[0];
	f->pcfile = (uint32_t)v[1];
	f->pcln = (uint32_t)v[2];
	f->npcdata = (uint32_t)v[3];
	switch (t->layout) {
	case GO12: /* funcID, 2 unused bytes, nfuncdata (Go 1.12+) */
		f->fixed = base + 32 - off;
		break;
	case GO116: /* cuOffset, funcID, flag, unused, nfuncdata */
	case GO118:
		f->fixed = base + 36 - off;
		if (!rd(t, r, base + 28, 4, &v[4]))
			return false;
		f->cuoff = (uint32_t)v[4];
		break;
	case GO120: /* cuOffset, startLine, funcID, flag, unused, nfuncdata */
		f->fixed = base + 40 - off;
		if (!rd(t, r, base + 28, 4, &v[4]) || !rd(t, r, base + 32, 4, &v[5]))
			return false;
		f->cuoff = (uint32_t)v[4];
		f->start_line = (int32_t)v[5];
		break;
	}
	if (!rd(t, r, off + f->fixed - 1, 1, &v[0]) || f->npcdata > 1024)
		return false;
	f->nfuncdata = (uint32_t)v[0];
	return true;
}

static const char *func_name(const struct psym_gopclntab *t, int32_t nameoff)
{
	const char *s = nameoff >= 0 ? str(t, &t->names, (uint64_t)nameoff) : NULL;

	return s ? s : "";
}

/* ---- pc-value tables -------------------------------------------------------- */

static bool uvarint_slow(const struct psym_gopclntab *t, size_t *pos, uint32_t *v);

static inline bool uvarint(const struct psym_gopclntab *t, size_t *pos, uint32_t *v)
{
	if (*pos < t->pctab.end && !(t->p[*pos] & 0x80)) {
		*v = t->p[(*pos)++]; /* most steps: one byte */
		return true;
	}
	return uvarint_slow(t, pos, v);
}

static bool uvarint_slow(const struct psym_gopclntab *t, size_t *pos, uint32_t *v)
{
	uint32_t x = 0;

	for (unsigned i = 0; i < 5; i++) {
		uint8_t b;

		if (*pos >= t->pctab.end)
			return false;
		b = t->p[(*pos)++];
		if (i == 4 && b > 0x0f)
			return false;
		x |= (uint32_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* A walk over one pc-value table of a function: [pc, next) has value val. */
struct pcstep {
	size_t pos;
	uint64_t pc, next;
	int32_t val;
	uint32_t i;
};

/* s at the table at off (from the pctab) of f: 0, PSYM_NOENT (no table), or PSYM_EBADINPUT. */
static inline int pcstep_start(const struct psym_gopclntab *t, const struct func *f, uint32_t off,
			       struct pcstep *s)
{
	if (!off)
		return PSYM_NOENT;
	if (off >= t->pctab.end - t->pctab.off)
		return PSYM_EBADINPUT;
	*s = (struct pcstep){ .pos = t->pctab.off + off, .next = f->entry, .val = -1 };
	return 0;
}

/*
 * The next step of s: 1 (its pc, next and val), 0 at the table's end, or
 * PSYM_EBADINPUT. Steps stay inside the function and never go back; a
 * step of no length is real (Go's s390x assembler writes them) and cannot
 * loop, as each step reads on. Inline: the lookups walk tables step by step.
 */
static inline int pcstep_next(const struct psym_gopclntab *t, const struct func *f,
			      struct pcstep *s)
{
	uint32_t uv, pcd;

	if (s->i >= MAX_PCSTEPS || !uvarint(t, &s->pos, &uv))
		return PSYM_EBADINPUT;
	if (uv == 0 && s->i)
		return 0;
	s->i++;
	s->val += (int32_t)((uv & 1) ? ~(uv >> 1) : (uv >> 1));
	if (!uvarint(t, &s->pos, &pcd))
		return PSYM_EBADINPUT;
	s->pc = s->next;
	s->next = s->pc + (uint64_t)pcd * t->minlc;
	if (s->next < s->pc || s->next > f->end)
		return PSYM_EBADINPUT;
	return 1;
}

/* Visits each step of a table: [pc, next) has value val. */
typedef bool (*step_fn)(void *ud, uint64_t pc, uint64_t next, int32_t val);

/*
 * Walks the table at off (from the pctab) for f, calling fn per step until
 * it returns false. 0, PSYM_NOENT (no table), or PSYM_EBADINPUT.
 */
static int pcwalk(const struct psym_gopclntab *t, const struct func *f, uint32_t off, step_fn fn,
		  void *ud)
{
	struct pcstep s;
	int ret = pcstep_start(t, f, off, &s);

	if (ret)
		return ret;
	while ((ret = pcstep_next(t, f, &s)) == 1)
		if (!fn(ud, s.pc, s.next, s.val))
			return 0;
	return ret;
}

/* The value of the table at pc: 0 (*val set; -1 when none), or PSYM_EBADINPUT. */
static int pcvalue(const struct psym_gopclntab *t, const struct func *f, uint32_t off, uint64_t pc,
		   int32_t *val)
{
	struct pcstep s;
	int ret = pcstep_start(t, f, off, &s);

	*val = -1;
	if (ret)
		return ret == PSYM_NOENT ? 0 : ret;
	while ((ret = pcstep_next(t, f, &s)) == 1)
		if (pc < s.next) {
			*val = s.val;
			return 0;
		}
	return ret;
}

static uint32_t pcdata(const struct psym_gopclntab *t, const struct func *f, uint32_t i);

/* One step onto d: false without memory for it. */
static bool dtab_push(struct dtab *d, uint32_t end, int32_t val)
{
	if (d->n == d->cap) {
		uint32_t cap = d->cap ? 2 * d->cap : 64;
		uint32_t *e = cap <= MAX_DECODED ? realloc(d->end, cap * sizeof(*e)) : NULL;
		int32_t *v = e ? realloc(d->val, cap * sizeof(*v)) : NULL;

		if (e)
			d->end = e;
		if (!v)
			return false;
		d->val = v;
		d->cap = cap;
	}
	d->end[d->n] = end;
	d->val[d->n++] = val;
	return true;
}

/* Table k of f (at off) into t->dec, or marked to be walked per lookup. */
static void decode(struct psym_gopclntab *t, const struct func *f, int k, uint32_t off)
{
	struct dtab *d = &t->dec->tab[k];
	struct pcstep s;
	int ret;

	d->n = 0;
	d->state = 0;
	if (f->end - f->entry > UINT32_MAX) {
		d->state = 1;
		return;
	}
	ret = pcstep_start(t, f, off, &s);
	if (ret) {
		d->state = ret == PSYM_NOENT ? 0 : PSYM_EBADINPUT;
		return;
	}
	while ((ret = pcstep_next(t, f, &s)) == 1)
		if (!dtab_push(d, (uint32_t)(s.next - f->entry), s.val)) {
			d->state = 1;
			return;
		}
	if (ret)
		d->state = PSYM_EBADINPUT;
}

/* The value of table k (at off) of f at pc, as pcvalue gives it. */
static int value(struct psym_gopclntab *t, const struct func *f, int k, uint32_t off, uint64_t pc,
		 int32_t *val)
{
	struct dtab *d;
	uint32_t lo, x = (uint32_t)(pc - f->entry);

	bool have = t->dec && t->dec->have && t->dec->entry == f->entry;

	if (!have && !t->again)
		return pcvalue(t, f, off, pc, val);
	if (!t->dec && !(t->dec = calloc(1, sizeof(*t->dec))))
		return pcvalue(t, f, off, pc, val);
	if (!have) {
		t->dec->have = true;
		t->dec->entry = f->entry;
		decode(t, f, T_FILE, f->pcfile);
		decode(t, f, T_LINE, f->pcln);
		decode(t, f, T_INL,
		       f->npcdata > PCDATA_INLTREEINDEX ? pcdata(t, f, PCDATA_INLTREEINDEX) : 0);
	}
	d = &t->dec->tab[k];
	if (d->state == 1 || pc < f->entry || pc >= f->end)
		return pcvalue(t, f, off, pc, val);
	/* The first step ending past x. */
	lo = (uint32_t)PSYM_LOWER_BOUND(0, d->n, i, d->end[i] > x);
	*val = lo < d->n ? d->val[lo] : -1;
	return lo < d->n ? 0 : d->state;
}

static const char *file_name(const struct psym_gopclntab *t, const struct func *f, int32_t v)
{
	uint64_t off;

	if (v < 0)
		return NULL;
	if (t->layout == GO12) {
		/* Entry 0 holds the count: files are numbered from 1. */
		if (v == 0 || (uint32_t)v >= t->nfiletab ||
		    !rd(t, &t->filetab, 4 * (uint64_t)v, 4, &off))
			return NULL;
		return str(t, &(struct region){ 0, t->len }, off);
	}
	if (!rd(t, &t->cutab, 4 * ((uint64_t)f->cuoff + (uint32_t)v), 4, &off) ||
	    off == 0xffffffffu)
		return NULL;
	return str(t, &t->filetab, off);
}

/* pcdata table i of f (0: none). */
static uint32_t pcdata(const struct psym_gopclntab *t, const struct func *f, uint32_t i)
{
	uint64_t v;
	const struct region all = { 0, t->len };

	if (i >= f->npcdata || !rd(t, &all, f->off + f->fixed + 4 * (uint64_t)i, 4, &v))
		return 0;
	return (uint32_t)v;
}

/* The address funcdata i of f points at, or 0. */
static uint64_t funcdata(const struct psym_gopclntab *t, const struct func *f, uint32_t i)
{
	const struct region all = { 0, t->len };
	uint64_t o = f->off + f->fixed + 4 * (uint64_t)f->npcdata, v;

	if (i >= f->nfuncdata)
		return 0;
	if (t->layout >= GO118) {
		if (!t->gofunc || !rd(t, &all, o + 4 * (uint64_t)i, 4, &v) || v == 0xffffffffu)
			return 0;
		return t->gofunc + v;
	}
	if (t->ptr == 8 && ((t->vaddr + o) & 4))
		o += 4;
	if (!rd(t, &all, o + (uint64_t)t->ptr * i, t->ptr, &v))
		return 0;
	return v;
}

/* ---- lookups ---------------------------------------------------------------- */

struct inl {
	int32_t nameoff, parent_pc, start_line;
};

/* Inline tree entry ix at tree. */
static bool inl_entry(const struct psym_gopclntab *t, uint64_t tree, int32_t ix, struct inl *c)
{
	unsigned sz = t->layout >= GO120 ? 16 : 20;
	const uint8_t *q;

	if (ix < 0 || (uint32_t)ix >= MAX_INLTREE ||
	    !(q = psym_gopclntab_img_at(t, tree + (uint64_t)ix * sz, sz)))
		return false;
	if (t->layout >= GO120) {
		/* funcID, 3 unused, nameOff, parentPc, startLine */
		c->nameoff = (int32_t)get(t, q + 4, 4);
		c->parent_pc = (int32_t)get(t, q + 8, 4);
		c->start_line = (int32_t)get(t, q + 12, 4);
	} else {
		/* parent(2), funcID, unused, file, line, func, parentPc */
		c->nameoff = (int32_t)get(t, q + 12, 4);
		c->parent_pc = (int32_t)get(t, q + 16, 4);
		c->start_line = 0;
	}
	return true;
}

/* File and line of f at pc into fr. */
static int position(struct psym_gopclntab *t, const struct func *f, uint64_t pc,
		    struct psym_frame *fr)
{
	int32_t file, line;
	int ret = value(t, f, T_FILE, f->pcfile, pc, &file);

	if (!ret)
		ret = value(t, f, T_LINE, f->pcln, pc, &line);
	if (ret)
		return ret;
	fr->file = file_name(t, f, file);
	fr->line = fr->file && line > 0 ? line : 0;
	return 0;
}

static int damaged(struct psym_err *e, const struct psym_gopclntab *t, uint64_t pc,
		   const char *what)
{
	return psym_err_set(e, PSYM_EBADINPUT, "%s: .gopclntab: %s at 0x%llx", t->name, what,
			    (unsigned long long)pc);
}

int psym_gopclntab_lookup(struct psym_gopclntab *t, uint64_t vaddr, struct psym_frame *fr,
			  size_t max, size_t *n, struct psym_err *e)
{
	/* The function of the lookup before, again (sorted addresses): not searched. */
	int64_t i = t->again_ok && vaddr >= t->last.entry && vaddr < t->last.end
			    ? t->last_i
			    : find_func(t, vaddr);
	struct func f;
	uint64_t tree = 0, pc = vaddr, seen[PSYM_MAX_FRAMES];
	int32_t ix = -1;
	size_t k = 0;
	int ret;

	*n = 0;
	if (i < 0 || !max)
		return 0;
	if (t->again_ok && i == t->last_i)
		f = t->last;
	else if (!read_func(t, (uint64_t)i, &f))
		return damaged(e, t, vaddr, "damaged function record");
	t->again = t->prev == f.entry;
	t->prev = f.entry;
	t->last = f;
	t->last_i = i;
	t->again_ok = true;
	if (t->inl && f.npcdata > PCDATA_INLTREEINDEX &&
	    value(t, &f, T_INL, pcdata(t, &f, PCDATA_INLTREEINDEX), pc, &ix))
		return damaged(e, t, vaddr, "damaged inline table");
	if (ix >= 0 &&
	    (!psym_gopclntab_has_inlines(t) || !(tree = funcdata(t, &f, t->funcdata_inl)))) {
		/*
		 * Inside an inlined body whose tree is not known: the pc
		 * tables' file:line are the body's, not the function's.
		 */
		fr[0] = (struct psym_frame){ .name = func_name(t, f.nameoff),
					     .start_line = f.start_line,
					     .start_address = f.entry,
					     .has_start_address = true };
		*n = 1;
		return 0;
	}
	while (tree && ix >= 0) {
		struct inl c;

		if (k + 1 >= max)
			break;
		if (!inl_entry(t, tree, ix, &c) || c.parent_pc < 0 ||
		    (uint64_t)c.parent_pc >= f.end - f.entry)
			return damaged(e, t, vaddr, "damaged inline tree");
		for (size_t j = 0; j < k; j++)
			if (seen[j] == f.entry + (uint64_t)c.parent_pc)
				return damaged(e, t, vaddr, "inline tree loops");
		fr[k] = (struct psym_frame){ .name = func_name(t, c.nameoff),
					     .start_line = c.start_line };
		if ((ret = position(t, &f, pc, &fr[k])))
			return damaged(e, t, vaddr, "damaged pc table");
		seen[k++] = pc = f.entry + (uint64_t)c.parent_pc;
		*n = k;
		if (value(t, &f, T_INL, pcdata(t, &f, PCDATA_INLTREEINDEX), pc, &ix))
			return damaged(e, t, vaddr, "damaged inline table");
	}
	fr[k] = (struct psym_frame){ .name = func_name(t, f.nameoff),
				     .start_line = f.start_line,
				     .start_address = f.entry,
				     .has_start_address = true };
	if (position(t, &f, pc, &fr[k]))
		return damaged(e, t, vaddr, "damaged pc table");
	*n = k + 1;
	return 0;
}

/* ---- boundaries --------------------------------------------------------------- */

struct bounds {
	uint64_t *v;
	size_t n, cap;
	bool nomem;
};

static bool add_bound(struct bounds *b, uint64_t pc)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 1024;
		uint64_t *nv = realloc(b->v, cap * sizeof(*nv));

		if (!nv) {
			b->nomem = true;
			return false;
		}
		b->v = nv;
		b->cap = cap;
	}
	b->v[b->n++] = pc;
	return true;
}

/* A step's start and its end: past a table's last step (padding) the answer changes too. */
static bool bound_step(void *ud, uint64_t pc, uint64_t next, int32_t val)
{
	(void)val;
	return add_bound(ud, pc) && add_bound(ud, next);
}

int psym_gopclntab_boundaries(struct psym_gopclntab *t, uint64_t **out, size_t *n,
			      struct psym_err *e)
{
	struct bounds b = { 0 };
	struct func f;

	for (uint64_t i = 0; i < t->nfunc && !b.nomem; i++) {
		if (!read_func(t, i, &f))
			continue;
		add_bound(&b, f.entry);
		add_bound(&b, f.end);
		pcwalk(t, &f, f.pcfile, bound_step, &b);
		pcwalk(t, &f, f.pcln, bound_step, &b);
		if (t->inl && f.npcdata > PCDATA_INLTREEINDEX)
			pcwalk(t, &f, pcdata(t, &f, PCDATA_INLTREEINDEX), bound_step, &b);
	}
	if (b.nomem) {
		free(b.v);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	*out = b.v;
	*n = b.n;
	return 0;
}

/* ---- opening ------------------------------------------------------------------ */

void psym_gopclntab_close(struct psym_gopclntab *t)
{
	if (!t)
		return;
	for (int k = 0; t->dec && k < NTAB; k++) {
		free(t->dec->tab[k].end);
		free(t->dec->tab[k].val);
	}
	free(t->dec);
	free(t->name);
	free(t->img);
	free(t);
}

int psym_gopclntab_open_mem(const struct psym_gopclntab_src *src, const char *name,
			    struct psym_gopclntab **out, struct psym_err *e)
{
	struct psym_gopclntab *t = calloc(1, sizeof(*t));
	int ret;

	*out = NULL;
	if (!t || !(t->name = strdup(name)))
		goto nomem;
	t->p = src->tab;
	t->len = src->len;
	t->vaddr = src->vaddr;
	t->text_start = src->text_start;
	t->gofunc = src->gofunc;
	if (src->nimg) {
		if (!(t->img = calloc(src->nimg, sizeof(*t->img))))
			goto nomem;
		memcpy(t->img, src->img, src->nimg * sizeof(*t->img));
		t->nimg = src->nimg;
	}
	ret = psym_gopclntab_header(t, e);
	if (ret) {
		psym_gopclntab_close(t);
		return ret;
	}
	t->funcdata_inl = t->layout == GO12 ? FUNCDATA_INLTREE_GO113 : FUNCDATA_INLTREE;
	/* Only the 1.2-1.15 layout is also written by Go 1.12 and older. */
	t->inl = !src->go112 || t->layout != GO12;
	if (!t->inl)
		t->noinl_why = "Go 1.12 or older (no .go.buildinfo): another funcdata numbering";
	else if (t->layout < GO118 && !t->nimg)
		t->noinl_why = "no image to read the inline trees from";
	else if (t->layout >= GO118 && !t->gofunc)
		t->noinl_why = "the go:func.* address is not known";
	*out = t;
	return 0;
nomem:
	psym_gopclntab_close(t);
	return psym_err_set(e, PSYM_ENOMEM, "out of memory");
}
