/* SPDX-License-Identifier: MIT */
/*
 * The line program: header and file tables (DWARF 2-4 and 5), then the
 * state machine, one sequence at a time; rows are capped per CU.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "form.h"
#include "line.h"
#include "array.h"
#include "search.h"

/* Join like llvm-symbolizer: absolute names stay, relative dirs go under comp_dir. */
static const char *join_path(struct psym_dwarf *d, const char *comp_dir, const char *dir,
			     const char *name)
{
	char *out;
	size_t cl, dl, nl;

	if (!name)
		return NULL;
	if (name[0] == '/')
		return name;
	if (!dir)
		dir = "";
	if (dir[0] == '/' || !comp_dir)
		comp_dir = "";
	cl = strlen(comp_dir);
	dl = strlen(dir);
	nl = strlen(name);
	pthread_mutex_lock(&d->strings_mu);
	out = psym_arena_alloc(&d->strings, cl + dl + nl + 3);
	pthread_mutex_unlock(&d->strings_mu);
	if (!out)
		return NULL;
	{
		char *p = out;

		memcpy(p, comp_dir, cl);
		p += cl;
		if (dl) {
			if (p > out && p[-1] != '/')
				*p++ = '/';
			memcpy(p, dir, dl);
			p += dl;
		}
		if (p > out && p[-1] != '/')
			*p++ = '/';
		memcpy(p, name, nl + 1);
	}
	return out;
}

/* One v5 directory or file entry: path and directory index. */
static bool read_entry_v5(struct psym_dwarf *d, struct cu *u, struct cur *c,
			  const struct unitfmt *uf, const uint64_t *fmt, size_t nfmt,
			  const char **path, uint64_t *dir)
{
	*path = NULL;
	*dir = 0;
	for (size_t k = 0; k < nfmt; k++) {
		struct fval v;
		struct strval s;

		if (!read_form(c, uf, (uint32_t)fmt[2 * k + 1], 0, &v))
			return false;
		if (fmt[2 * k] == LNCT_path) {
			set_str(&s, &v);
			*path = dw_resolve_str(d, u, &s);
		} else if (fmt[2 * k] == LNCT_directory_index && form_is_const(v.form)) {
			*dir = v.u;
		}
	}
	return true;
}

struct linestate {
	struct psym_dwarf *d;
	struct cu *u;
	struct row *rows;
	size_t n, cap;
	struct seq *seqs;
	size_t nseqs, capseqs;
	size_t seqstart;
	bool sorted; /* rows of the current sequence in address order so far */
	int err;
	/* Discriminators (d->o.discriminators): the current one, the nonzero ones. */
	uint32_t disc;
	struct disc *discs;
	size_t ndiscs, capdiscs;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* An end of sequence sorts before a row starting at the same address. */
	return (int)(y->column & ROW_END) - (int)(x->column & ROW_END);
}

static int cmp_disc(const void *a, const void *b)
{
	const struct disc *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->disc < y->disc ? -1 : x->disc > y->disc;
}

uint32_t dw_row_discriminator(const struct cu *c, const struct row *r)
{
	size_t lo = PSYM_LOWER_BOUND(0, c->ndiscs, i, c->discs[i].addr >= r->addr);

	return lo < c->ndiscs && c->discs[lo].addr == r->addr ? c->discs[lo].disc : 0;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct seq *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void end_seq(struct linestate *s)
{
	struct seq q = { .start = s->seqstart, .n = s->n - s->seqstart };

	if (q.n >= 2 && !s->sorted)
		qsort(s->rows + q.start, q.n, sizeof(*s->rows), cmp_row);
	s->sorted = true;
	if (q.n < 2 || s->rows[q.start].addr == s->rows[q.start + q.n - 1].addr) {
		s->n = q.start; /* covers nothing: dropped */
		s->seqstart = s->n;
		return;
	}
	s->seqstart = s->n;
	q.lo = s->rows[q.start].addr;
	q.hi = s->rows[q.start + q.n - 1].addr;
	if (!(s->rows[q.start + q.n - 1].column & ROW_END) && q.hi < UINT64_MAX)
		q.hi++; /* unterminated: its last row covers its own address */
	{
		struct seq *n = psym_array_grow(s->seqs, &s->capseqs, s->nseqs + 1, sizeof(*n), 0);

		if (!n) {
			s->err = PSYM_ENOMEM;
			return;
		}
		s->seqs = n;
	}
	s->seqs[s->nseqs++] = q;
}

static inline void emit_row(struct linestate *s, uint64_t addr, uint64_t line, uint64_t col,
			    uint64_t file, bool end)
{
	struct row *r;

	if (s->err)
		return;
	if (s->n == s->cap) {
		struct row *n;

		if (s->n >= s->d->o.max_rows) {
			s->err = PSYM_ELIMIT;
			return;
		}
		n = psym_array_grow(s->rows, &s->cap, s->n + 1, sizeof(*n), s->d->o.max_rows + 1);
		if (!n) {
			s->err = PSYM_ENOMEM;
			return;
		}
		s->rows = n;
	}
	r = &s->rows[s->n];
	r->addr = addr;
	r->line = line > UINT32_MAX ? 0 : (uint32_t)line;
	r->file = file >= UINT16_MAX ? UINT16_MAX : (uint16_t)file;
	r->column = (uint16_t)((col > ROW_COLMASK ? 0 : col) | (end ? ROW_END : 0));
	if (s->n > s->seqstart && addr < s->rows[s->n - 1].addr)
		s->sorted = false;
	s->n++;
	/* A row at the address of the row before replaces it (dw_find_row keeps the last). */
	if (s->ndiscs && s->n >= 2 && s->rows[s->n - 2].addr == addr &&
	    s->discs[s->ndiscs - 1].addr == addr)
		s->ndiscs--;
	if (s->disc && !end) {
		struct disc *nd =
			psym_array_grow(s->discs, &s->capdiscs, s->ndiscs + 1, sizeof(*nd), 0);

		if (!nd) {
			s->err = PSYM_ENOMEM;
			return;
		}
		s->discs = nd;
		s->discs[s->ndiscs++] = (struct disc){ addr, s->disc };
	}
	s->disc = 0; /* each row starts without one (DWARF 4, 6.2.5.3) */
	if (end)
		end_seq(s);
}

/* What the header of a line program says about running it. */
struct linehdr {
	struct unitfmt uf; /* version, address and offset size */
	uint8_t min_inst, max_ops, line_range, opcode_base;
	int8_t line_base;
	const uint8_t *std_len; /* operand counts of standard opcodes 1..opcode_base-1 */
};

/* Directories and files as the header lists them, before joining. */
struct filetab {
	const char **dirs, **files;
	uint64_t *file_dir;
	uint64_t ndirs, nfiles;
};

/*
 * The unit header and the fixed part of the program header: *hc is left
 * on the directory / file tables, *c on the first opcode. False when
 * there is no usable line program (not an error).
 */
static bool read_header(const struct cu *u, struct cur *c, struct cur *hc, struct linehdr *h)
{
	unsigned offsz;
	uint64_t ulen, hlen;
	uint16_t version;

	ulen = rd_unit_length(c, &offsz);
	if (!c->ok || ulen > cur_left(c))
		return false;
	c->end = c->p + ulen;
	version = rd_u16(c);
	if (version < 2 || version > 5)
		return false;
	h->uf = (struct unitfmt){ version, u->addr_size, (uint8_t)offsz };
	if (version >= 5) {
		h->uf.addr_size = rd_u8(c);
		rd_u8(c);
		if (h->uf.addr_size != 1 && h->uf.addr_size != 2 && h->uf.addr_size != 4 &&
		    h->uf.addr_size != 8)
			h->uf.addr_size = u->addr_size;
	}
	hlen = rd_off(c, offsz);
	if (!c->ok || hlen > cur_left(c))
		return false;
	*hc = *c;
	hc->end = c->p + hlen;
	c->p += hlen;
	h->min_inst = rd_u8(hc);
	h->max_ops = 1;
	if (version >= 4)
		h->max_ops = rd_u8(hc);
	if (h->max_ops == 0)
		h->max_ops = 1;
	rd_u8(hc); /* default_is_stmt */
	h->line_base = (int8_t)rd_u8(hc);
	h->line_range = rd_u8(hc);
	h->opcode_base = rd_u8(hc);
	h->std_len = hc->p;
	skip(hc, h->opcode_base ? h->opcode_base - 1u : 0);
	return hc->ok;
}

/* DWARF 2-4: include_directories and file_names, NUL-terminated lists. */
static int read_tables_v4(struct cur *hc, struct filetab *t)
{
	size_t cap = 0;

	for (;;) {
		const char *dir = rd_cstr(hc);

		if (!hc->ok || !*dir)
			break;
		{
			const char **n =
				psym_array_grow(t->dirs, &cap, t->ndirs + 1, sizeof(*n), 0);

			if (!n)
				return PSYM_ENOMEM;
			t->dirs = n;
		}
		t->dirs[t->ndirs++] = dir;
	}
	cap = 0;
	for (;;) {
		const char *name = rd_cstr(hc);
		uint64_t di;

		if (!hc->ok || !*name)
			break;
		di = rd_uleb(hc);
		rd_uleb(hc);
		rd_uleb(hc);
		if (t->nfiles == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			const char **n = realloc(t->files, ncap * sizeof(*n));
			uint64_t *nd;

			if (!n)
				return PSYM_ENOMEM;
			t->files = n;
			nd = realloc(t->file_dir, ncap * sizeof(*nd));
			if (!nd)
				return PSYM_ENOMEM;
			t->file_dir = nd;
			cap = ncap;
		}
		t->files[t->nfiles] = name;
		t->file_dir[t->nfiles++] = di;
	}
	return 0;
}

/* DWARF 5: directory then file entries, each described by a format list. */
static int read_tables_v5(struct psym_dwarf *d, struct cu *u, struct cur *hc,
			  const struct unitfmt *uf, struct filetab *t)
{
	for (int pass = 0; pass < 2; pass++) {
		uint8_t nfmt = rd_u8(hc);
		uint64_t fmt[2 * 255], count;
		const char **arr;
		uint64_t *dirx = NULL;

		for (unsigned k = 0; k < nfmt; k++) {
			fmt[2 * k] = rd_uleb(hc);
			fmt[2 * k + 1] = rd_uleb(hc);
		}
		count = rd_uleb(hc);
		if (nfmt == 0)
			count = 0;
		if (!hc->ok || count > MAX_LINE_FILES || (nfmt && count > cur_left(hc)))
			break;
		arr = calloc(count ? count : 1, sizeof(*arr));
		if (!arr)
			return PSYM_ENOMEM;
		if (pass == 1) {
			dirx = calloc(count ? count : 1, sizeof(*dirx));
			if (!dirx) {
				free(arr);
				return PSYM_ENOMEM;
			}
		}
		for (uint64_t k = 0; k < count && hc->ok; k++) {
			uint64_t di;

			if (!read_entry_v5(d, u, hc, uf, fmt, nfmt, &arr[k], &di))
				break;
			if (dirx)
				dirx[k] = di;
		}
		if (pass == 0) {
			t->dirs = arr;
			t->ndirs = count;
		} else {
			t->files = arr;
			t->file_dir = dirx;
			t->nfiles = count;
		}
	}
	return 0;
}

/* The CU's file names, joined once (comp_dir / directory / name). */
static int join_files(struct psym_dwarf *d, struct cu *u, uint16_t version, const struct filetab *t)
{
	u->files = calloc(t->nfiles + 1, sizeof(*u->files));
	if (!u->files)
		return PSYM_ENOMEM;
	u->nfiles = t->nfiles;
	u->line_version = version;
	for (uint64_t i = 0; i < t->nfiles; i++) {
		const char *dir = NULL;
		uint64_t di = t->file_dir[i];

		if (version >= 5)
			dir = di < t->ndirs ? t->dirs[di] : NULL;
		else if (di > 0)
			dir = di - 1 < t->ndirs ? t->dirs[di - 1] : NULL;
		u->files[i] = join_path(d, u->comp_dir, dir, t->files[i]);
	}
	return 0;
}

/* The state machine's address registers. */
struct pc {
	uint64_t addr;
	unsigned op_index;
};

/* Advance by adv operations (VLIW: op_index counts within an instruction). */
static inline void advance(struct pc *pc, const struct linehdr *h, uint64_t adv)
{
	if (h->max_ops == 1) {
		pc->addr += h->min_inst * adv;
	} else {
		pc->addr += h->min_inst * ((pc->op_index + adv) / h->max_ops);
		pc->op_index = (unsigned)((pc->op_index + adv) % h->max_ops);
	}
}

/*
 * Run one sequence, from the initial registers to DW_LNE_end_sequence:
 * true when one ended (another may follow), false at the end of the
 * program, on a bad opcode or an error in s.
 */
static bool run_sequence(struct linestate *s, struct cur *c, const struct linehdr *h)
{
	struct pc pc = { 0, 0 };
	uint64_t file = s->d->o.gnu_lines && h->uf.version >= 5 ? 0 : 1, line = 1, col = 0;

	for (;;) {
		uint8_t op;

		if (c->p >= c->end || s->err)
			return false;
		op = rd_u8(c);
		if (op >= h->opcode_base) { /* special opcode: advance address and line, emit */
			uint8_t adj = op - h->opcode_base;

			line += (int64_t)h->line_base + (h->line_range ? adj % h->line_range : 0);
			advance(&pc, h, h->line_range ? adj / h->line_range : 0);
			emit_row(s, pc.addr, line, col, file, false);
			continue;
		}
		switch (op) {
		case 0: { /* extended opcode */
			uint64_t len = rd_uleb(c);
			const uint8_t *next;
			uint8_t sub;

			if (!c->ok || len == 0 || len > cur_left(c))
				return false;
			next = c->p + len;
			sub = rd_u8(c);
			if (sub == 1) { /* end_sequence */
				emit_row(s, pc.addr, line, col, file, true);
				c->p = next;
				return true;
			} else if (sub == 2) { /* set_address */
				if (len - 1 >= 1 && len - 1 <= 8)
					pc.addr = rd_un(c, (unsigned)(len - 1));
				pc.op_index = 0;
			} else if (sub == 4 && s->d->o.discriminators) { /* set_discriminator */
				uint64_t v = rd_uleb(c);

				s->disc = v > UINT32_MAX ? 0 : (uint32_t)v;
			}
			c->p = next;
			break;
		}
		case 1: /* copy */ emit_row(s, pc.addr, line, col, file, false); break;
		case 2: /* advance_pc */ advance(&pc, h, rd_uleb(c)); break;
		case 3: /* advance_line */ line += (uint64_t)rd_sleb(c); break;
		case 4: /* set_file */ file = rd_uleb(c); break;
		case 5: /* set_column */ col = rd_uleb(c); break;
		case 6:
		case 7:
		case 10:
		case 11: break;
		case 8: /* const_add_pc */
			advance(&pc, h,
				h->line_range ? (255u - h->opcode_base) / h->line_range : 0);
			break;
		case 9: /* fixed_advance_pc */
			pc.addr += rd_u16(c);
			pc.op_index = 0;
			break;
		default: /* a standard opcode we do not use: skip its operands */
			for (unsigned k = 0; k < h->std_len[op - 1]; k++)
				rd_uleb(c);
			break;
		}
	}
}

int dw_decode_lines(struct psym_dwarf *d, struct cu *u, struct psym_err *e)
{
	struct cur c = sec_cur(d, S_LINE, u->stmt_list), hc;
	struct linestate s = { .d = d, .u = u, .sorted = true };
	struct filetab t = { 0 };
	struct linehdr h;
	int ret = 0;

	if (u->lines_done)
		return 0;
	u->lines_done = true;
	if (!u->has_stmt || !read_header(u, &c, &hc, &h))
		return 0;
	if (h.uf.version < 5)
		ret = read_tables_v4(&hc, &t);
	else
		ret = read_tables_v5(d, u, &hc, &h.uf, &t);
	if (!ret)
		ret = join_files(d, u, h.uf.version, &t);
	if (ret) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	while (c.ok && c.p < c.end && !s.err)
		if (!run_sequence(&s, &c, &h))
			break;
	if (s.n > s.seqstart && !s.err)
		end_seq(&s);
	if (s.err) {
		ret = s.err == PSYM_ELIMIT
			      ? psym_err_set(e, PSYM_ELIMIT,
					     "'%s': line table with more than %zu rows", d->path,
					     d->o.max_rows)
			      : psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	/* Rows stay where they are; the sequences are sorted by address. */
	if (s.nseqs > 1)
		qsort(s.seqs, s.nseqs, sizeof(*s.seqs), cmp_seq);
	if (s.ndiscs > 1)
		qsort(s.discs, s.ndiscs, sizeof(*s.discs), cmp_disc);
	u->discs = s.discs;
	u->ndiscs = s.ndiscs;
	s.discs = NULL;
	u->rows = s.rows;
	u->nrows = s.n;
	u->seqs = s.seqs;
	u->nseqs = s.nseqs;
	s.rows = NULL;
	s.seqs = NULL;
out:
	free(s.rows);
	free(s.seqs);
	free(s.discs);
	free(t.dirs);
	free(t.files);
	free(t.file_dir);
	return ret;
}

/* File name for a DWARF file index (1-based before DWARF 5, 0-based since). */
const char *dw_cu_file(const struct cu *c, uint64_t idx)
{
	/* Indexes count as the line table does (a dwz partial unit's may differ from its unit). */
	if ((c->line_version ? c->line_version : c->version) < 5) {
		if (idx == 0)
			return NULL;
		idx--;
	}
	return idx < c->nfiles ? c->files[idx] : NULL;
}

const struct row *dw_find_row(const struct cu *c, uint64_t a)
{
	size_t lo = PSYM_LOWER_BOUND(0, c->nseqs, i, c->seqs[i].lo > a);

	/* Overlapping sequences are rare; look at a few before giving up. */
	for (size_t k = 0; k < 16 && lo > k; k++) {
		const struct seq *q = &c->seqs[lo - 1 - k];
		size_t rlo;

		if (a >= q->hi)
			continue;
		rlo = PSYM_LOWER_BOUND(q->start, q->start + q->n, i, c->rows[i].addr > a);
		if (rlo == q->start || (c->rows[rlo - 1].column & ROW_END))
			return NULL;
		return &c->rows[rlo - 1];
	}
	return NULL;
}
