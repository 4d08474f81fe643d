/* SPDX-License-Identifier: MIT */
/* Reading Go's .gopclntab (gopclntab.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elffile.h"
#include "gopclntab.h"
#include "bytes.h"

enum layout {
	GO12,  /* 0xfffffffb: Go 1.2-1.15 */
	GO116, /* 0xfffffffa: Go 1.16-1.17 */
	GO118, /* 0xfffffff0: Go 1.18-1.19 */
	GO120  /* 0xfffffff1: Go 1.20 and later */
};

#define MAX_FUNCS (16u << 20)  /* no Go binary has more functions */
#define MAX_PCSTEPS (1u << 24) /* steps of one pc-value table */
#define MAX_INLTREE (1u << 24) /* entries of one inline tree */
#define PCDATA_INLTREEINDEX 2  /* Go 1.13 and later */
/*
 * Go 1.16 and later; Go 1.13-1.15 had FUNCDATA_RegPointerMaps before it
 * (4), Go 1.9-1.12 another numbering, and older Go no inline trees.
 */
#define FUNCDATA_INLTREE 3
#define FUNCDATA_INLTREE_GO113 4
#define MD_WORDS 64 /* moduledata words searched for epclntab */

/* A region of the table: [off, end) */
struct region {
	size_t off, end;
};

struct psym_gopclntab {
	char *name;
	const uint8_t *p;
	size_t len;
	uint64_t vaddr;
	enum layout layout;
	bool msb;
	unsigned ptr, minlc;
	uint64_t nfunc;
	struct region functab, funcs, names, cutab, filetab, pctab;
	uint64_t text_start, gofunc;
	struct psym_gosec *img;
	size_t nimg;
	uint32_t nfiletab; /* GO12: entries of the global file table */
	/* Inline trees read: the funcdata that holds them (not in Go 1.12 or older) */
	bool inl;
	unsigned funcdata_inl;
	const char *noinl_why; /* why no inline trees, when none (static text) */
};

/* One function's record, read and checked. */
struct func {
	uint64_t entry, end;
	size_t off; /* the record's offset in the table */
	int32_t nameoff;
	uint32_t pcfile, pcln, npcdata, cuoff, nfuncdata;
	int32_t start_line;
	size_t fixed; /* size of the fixed part */
};

static uint64_t get(const struct psym_gopclntab *t, const uint8_t *p, unsigned n)
{
	return psym_get_uint(p, n, t->msb);
}

/* n bytes at off of the table, or NULL when they are not all inside r. */
static const uint8_t *at(const struct psym_gopclntab *t, const struct region *r, uint64_t off,
			 unsigned n)
{
	if (off > r->end - r->off || r->end - r->off - off < n)
		return NULL;
	return t->p + r->off + off;
}

static bool rd(const struct psym_gopclntab *t, const struct region *r, uint64_t off, unsigned n,
	       uint64_t *v)
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
static const uint8_t *img_at(const struct psym_gopclntab *t, uint64_t vaddr, size_t n)
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
static int magic(const uint8_t *p, bool *msb)
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

static int header(struct psym_gopclntab *t, struct psym_err *e)
{
	const struct region all = { 0, t->len };
	int l;
	uint64_t nfunc, esz, fileoff, nfiles;

	if (t->len < 16 || (l = magic(t->p, &t->msb)) < 0)
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
	uint64_t lo = 0, hi = t->nfunc, e;

	if (!entry_of(t, t->nfunc, &e) || pc >= e || !entry_of(t, 0, &e) || pc < e)
		return -1;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (!entry_of(t, mid, &e))
			return -1;
		if (e <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return (int64_t)lo;
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

static bool uvarint(const struct psym_gopclntab *t, size_t *pos, uint32_t *v)
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

/* Visits each step of a table: [pc, next) has value val. */
typedef bool (*step_fn)(void *ud, uint64_t pc, uint64_t next, int32_t val);

/*
 * Walks the table at off (from the pctab) for f, calling fn per step until
 * it returns false. 0, PSYM_NOENT (no table), or PSYM_EBADINPUT.
 */
static int pcwalk(const struct psym_gopclntab *t, const struct func *f, uint32_t off, step_fn fn,
		  void *ud)
{
	size_t pos;
	uint64_t pc = f->entry;
	int32_t val = -1;
	uint32_t uv, pcd;

	if (!off)
		return PSYM_NOENT;
	if (off >= t->pctab.end - t->pctab.off)
		return PSYM_EBADINPUT;
	pos = t->pctab.off + off;
	for (uint32_t i = 0; i < MAX_PCSTEPS; i++) {
		uint64_t next;

		if (!uvarint(t, &pos, &uv))
			return PSYM_EBADINPUT;
		if (uv == 0 && i)
			return 0;
		val += (int32_t)((uv & 1) ? ~(uv >> 1) : (uv >> 1));
		if (!uvarint(t, &pos, &pcd))
			return PSYM_EBADINPUT;
		next = pc + (uint64_t)pcd * t->minlc;
		/*
		 * Inside the function, never back; a step of no length is
		 * real (Go's s390x assembler writes them) and cannot loop, as
		 * each step reads on.
		 */
		if (next < pc || next > f->end)
			return PSYM_EBADINPUT;
		if (!fn(ud, pc, next, val))
			return 0;
		pc = next;
	}
	return PSYM_EBADINPUT;
}

struct find {
	uint64_t target;
	int32_t val;
	bool found;
};

static bool find_step(void *ud, uint64_t pc, uint64_t next, int32_t val)
{
	struct find *q = ud;

	(void)pc;
	if (q->target < next) {
		q->val = val;
		q->found = true;
		return false;
	}
	return true;
}

/* The value of the table at pc: 0 (*val set; -1 when none), or PSYM_EBADINPUT. */
static int pcvalue(const struct psym_gopclntab *t, const struct func *f, uint32_t off, uint64_t pc,
		   int32_t *val)
{
	struct find q = { .target = pc };
	int ret = pcwalk(t, f, off, find_step, &q);

	*val = q.found ? q.val : -1;
	return ret == PSYM_NOENT ? 0 : ret;
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

	if (ix < 0 || (uint32_t)ix >= MAX_INLTREE || !(q = img_at(t, tree + (uint64_t)ix * sz, sz)))
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
static int position(const struct psym_gopclntab *t, const struct func *f, uint64_t pc,
		    struct psym_frame *fr)
{
	int32_t file, line;
	int ret = pcvalue(t, f, f->pcfile, pc, &file);

	if (!ret)
		ret = pcvalue(t, f, f->pcln, pc, &line);
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
	int64_t i = find_func(t, vaddr);
	struct func f;
	uint64_t tree = 0, pc = vaddr, seen[PSYM_MAX_FRAMES];
	int32_t ix = -1;
	size_t k = 0;
	int ret;

	*n = 0;
	if (i < 0 || !max)
		return 0;
	if (!read_func(t, (uint64_t)i, &f))
		return damaged(e, t, vaddr, "damaged function record");
	if (t->inl && f.npcdata > PCDATA_INLTREEINDEX &&
	    pcvalue(t, &f, pcdata(t, &f, PCDATA_INLTREEINDEX), pc, &ix))
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
		if (pcvalue(t, &f, pcdata(t, &f, PCDATA_INLTREEINDEX), pc, &ix))
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
	ret = header(t, e);
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

/* ---- finding the table in an ELF file --------------------------------------- */

/* The image: every allocated section with contents in the file. */
static int image(struct psym_elf *elf, struct psym_gosec **out, size_t *n)
{
	size_t ns = psym_elf_nsections(elf), k = 0;
	struct psym_gosec *v = calloc(ns ? ns : 1, sizeof(*v));
	struct psym_elf_scn s;

	if (!v)
		return PSYM_ENOMEM;
	for (size_t i = 1; i < ns; i++)
		if (psym_elf_scn(elf, i, &s) == 0 && s.addr && !s.compressed)
			v[k++] = (struct psym_gosec){ s.addr, s.data, s.len };
	*out = v;
	*n = k;
	return 0;
}

/*
 * gofunc of the moduledata at q (n pointer-size words). Go 1.18-1.19 keep
 * it in word 38, 1.20-1.25 in word 40. Go 1.26 moved the funcdata into
 * .gopclntab and put epclntab, the table's end, right after gofunc (word
 * 41); Go 1.27 moved both by three words with the same table magic. So a
 * table that ends where a word of the moduledata says, with the word
 * before it pointing inside the table, has gofunc there; else the fixed
 * word of its layout.
 */
static uint64_t gofunc_of(const struct psym_gopclntab *t, const uint8_t *q, size_t n)
{
	unsigned p = t->ptr;
	size_t fixed = t->layout == GO118 ? 38 : 40;

	for (size_t k = 39; k < n && k < MD_WORDS; k++) {
		uint64_t g = get(t, q + (k - 1) * p, p);

		if (get(t, q + k * p, p) == t->vaddr + t->len && g > t->vaddr &&
		    g < t->vaddr + t->len)
			return g;
	}
	return fixed < n ? get(t, q + fixed * p, p) : 0;
}

/*
 * Go 1.18+: runtime.firstmoduledata, which starts with a pointer to the
 * header and the function-name table's slice: gofunc (and text: Go 1.26
 * and later leave the header's textStart 0) from it. Go 1.26 and later
 * give it its own section, .go.module; before, it is in a data section.
 */
static void moduledata(struct psym_gopclntab *t, struct psym_elf *elf)
{
	size_t ns = psym_elf_nsections(elf), need = 41 * (size_t)t->ptr;
	unsigned p = t->ptr, text_at = 22;
	struct psym_elf_scn s;

	t->noinl_why = "no moduledata found";
	for (size_t i = 1; i < ns; i++) {
		if (psym_elf_scn(elf, i, &s) || !s.addr || s.compressed ||
		    (!strstr(s.name, "data") && strcmp(s.name, ".go.module") != 0))
			continue;
		for (size_t o = 0; s.len >= need && o <= s.len - need; o += p) {
			const uint8_t *q = (const uint8_t *)s.data + o;

			if (get(t, q, p) != t->vaddr || get(t, q + p, p) != t->vaddr + t->names.off)
				continue;
			t->gofunc = gofunc_of(t, q, (s.len - o) / p);
			t->noinl_why = NULL;
			if (!img_at(t, t->gofunc, 1)) {
				t->gofunc = 0;
				t->noinl_why = "the moduledata's go:func.* address is outside the "
					       "image (a moduledata layout not known)";
			}
			if (!t->text_start)
				t->text_start = get(t, q + (size_t)text_at * p, p);
			return;
		}
	}
}

/* A header at the start of a section's bytes that parses. */
static bool plausible(const uint8_t *q, size_t len)
{
	bool msb;

	return len >= 64 && magic(q, &msb) >= 0 && !q[4] && !q[5] &&
	       (q[6] == 1 || q[6] == 2 || q[6] == 4) && (q[7] == 4 || q[7] == 8);
}

/* The table: by section name, by symbol, or by scanning a Go binary's sections. */
static int locate(struct psym_elf *elf, struct psym_gopclntab_src *src, bool *go)
{
	static const char *const syms[] = { "runtime.pcheader", "runtime.pclntab" };
	size_t ns = psym_elf_nsections(elf);
	struct psym_elf_scn s;
	const void *d;
	size_t len;
	uint64_t a;

	for (size_t i = 1; i < ns; i++) {
		if (psym_elf_scn(elf, i, &s) == 0 && strcmp(s.name, ".gopclntab") == 0) {
			src->tab = s.data;
			src->len = s.len;
			src->vaddr = s.addr;
			return 0;
		}
	}
	/*
	 * Section name dropped: only in a file that says it is Go (a C
	 * binary's symbols are not loaded here, before its debug files').
	 */
	if (psym_elf_section(elf, ".go.buildinfo", &d, &len) != 0 &&
	    psym_elf_section(elf, ".note.go.buildid", &d, &len) != 0)
		return PSYM_NOENT;
	*go = true;
	for (size_t k = 0; k < 2; k++) {
		if (psym_elf_find_symbol(elf, syms[k], &a) != 0)
			continue;
		for (size_t i = 0; i < src->nimg; i++) {
			const struct psym_gosec *g = &src->img[i];

			if (a >= g->vaddr && a - g->vaddr < g->len &&
			    plausible(g->data + (a - g->vaddr), g->len - (a - g->vaddr))) {
				src->tab = g->data + (a - g->vaddr);
				src->len = g->len - (a - g->vaddr);
				src->vaddr = a;
				return 0;
			}
		}
	}
	for (size_t i = 0; i < src->nimg; i++) {
		const struct psym_gosec *g = &src->img[i];

		for (size_t o = 0; o + 64 <= g->len; o += 8) {
			struct psym_gopclntab probe = { .name = (char *)"",
							.p = g->data + o,
							.len = g->len - o };

			/* A header that parses whole, not bytes that look like a magic. */
			if (plausible(g->data + o, g->len - o) && header(&probe, NULL) == 0) {
				src->tab = g->data + o;
				src->len = g->len - o;
				src->vaddr = g->vaddr + o;
				return 0;
			}
		}
	}
	return PSYM_NOENT;
}

int psym_gopclntab_open_elf(struct psym_elf *elf, struct psym_gopclntab **out, struct psym_err *e)
{
	struct psym_gopclntab_src src = { 0 };
	struct psym_gosec *img = NULL;
	uint64_t text = 0;
	bool go = false;
	int ret;

	*out = NULL;
	if (image(elf, &img, &src.nimg))
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	src.img = img;
	/* Go 1.13 and later write .go.buildinfo: without it, an older numbering (gopclntab.h). */
	src.go112 = psym_elf_section(elf, ".go.buildinfo", &(const void *){ NULL },
				     &(size_t){ 0 }) != 0;
	if (locate(elf, &src, &go) != 0) {
		free(img);
		if (!go)
			return PSYM_NOENT; /* not a Go binary: nothing to say */
		return psym_err_set(e, PSYM_NOENT, "%s: a Go binary, but no .gopclntab found",
				    psym_elf_path(elf));
	}
	ret = psym_gopclntab_open_mem(&src, psym_elf_path(elf), out, e);
	free(img);
	if (ret)
		return ret;
	if ((*out)->layout >= GO118) {
		moduledata(*out, elf);
		if (!(*out)->text_start && psym_elf_section_addr(elf, ".text", 0, &text) == 0)
			(*out)->text_start = text;
	}
	return 0;
}
