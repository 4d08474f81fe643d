/* SPDX-License-Identifier: MIT */
/* Writing an index file (index.h): runs grouped, nodes and strings shared. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libdeflate.h>

#include "bytes.h"
#include "fileio.h"
#include "hashtab.h"
#include "idxfmt.h"
#include "index.h"

struct buf {
	uint8_t *p;
	size_t n, cap;
};

struct node {
	uint32_t parent; /* 0: root, else index + 1 */
	uint32_t name, linkage;
	int64_t start_line;
	uint32_t start_file; /* file id, 0: none */
	bool has_start;
	uint64_t start_address;
	/* the parent frame's location: the call site of this one */
	uint32_t pfile, pdisc;
	int64_t pline, pcol;
};

/* Pointer -> id, in front of the hash by contents (resolvers hand out one pointer per string). */
struct ptrcache {
	struct {
		const char *p;
		uint32_t id;
	} * s;
	size_t cap, n;
};

struct psym_index_writer {
	struct psym_index_meta m;
	char *build_id, *variant, *source;
	struct buf strs, funcs, run; /* run: the open group's encoded runs */
	struct psym_hashtab str_ids, file_ids;
	struct ptrcache str_pc, file_pc;
	uint32_t *files; /* string id per file */
	size_t nfiles, capfiles;
	uint64_t *starts, *offs;
	size_t ngroups, capgroups;
	/* the open group */
	bool open;
	uint64_t gstart, last_addr;
	struct node *nodes;
	size_t nnodes, nruns;
	uint32_t st_node, st_file;
	int64_t st_line;
	uint32_t chain[PSYM_MAX_FRAMES]; /* node per depth (root first) of the last run */
	size_t chain_n;
	const char *root_name, *root_linkage;
	/* the previous answer, to merge equal neighbours */
	struct psym_frame prev[PSYM_MAX_FRAMES];
	size_t nprev;
	bool have_prev;
	size_t total_runs;
};

static int grow(struct buf *b, size_t more)
{
	if (b->n + more <= b->cap)
		return 0;
	size_t ncap = b->cap ? b->cap : 4096;

	while (ncap < b->n + more)
		ncap *= 2;
	uint8_t *np = realloc(b->p, ncap);

	if (!np)
		return PSYM_ENOMEM;
	b->p = np;
	b->cap = ncap;
	return 0;
}

static int put_bytes(struct buf *b, const void *p, size_t n)
{
	if (grow(b, n))
		return PSYM_ENOMEM;
	memcpy(b->p + b->n, p, n);
	b->n += n;
	return 0;
}

static int put_uleb(struct buf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n] = v & 0x7f;
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	return put_bytes(b, t, n);
}

static int put_sleb(struct buf *b, int64_t v)
{
	uint8_t t[10];
	size_t n = 0;
	bool more = true;

	while (more) {
		uint8_t byte = v & 0x7f;

		v >>= 7; /* arithmetic shift on the compilers psym supports */
		if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)))
			more = false;
		else
			byte |= 0x80;
		t[n++] = byte;
	}
	return put_bytes(b, t, n);
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_frame(const struct psym_frame *a, const struct psym_frame *b)
{
	return same_str(a->name, b->name) && same_str(a->linkage_name, b->linkage_name) &&
	       same_str(a->file, b->file) && a->line == b->line && a->column == b->column &&
	       a->start_line == b->start_line && a->discriminator == b->discriminator &&
	       same_str(a->start_file, b->start_file) &&
	       a->has_start_address == b->has_start_address && a->start_address == b->start_address;
}

static uint32_t *pc_find(struct ptrcache *c, const char *p)
{
	size_t i = (size_t)(((uintptr_t)p * 0x9e3779b97f4a7c15ULL) >> 17) & (c->cap - 1);

	while (c->s[i].p && c->s[i].p != p)
		i = (i + 1) & (c->cap - 1);
	return &c->s[i].id;
}

static int pc_put(struct ptrcache *c, const char *p, uint32_t id)
{
	if ((c->n + 1) * 2 > c->cap) {
		struct ptrcache nc = { .cap = c->cap ? c->cap * 2 : 4096 };

		nc.s = calloc(nc.cap, sizeof(*nc.s));
		if (!nc.s)
			return PSYM_ENOMEM;
		for (size_t i = 0; i < c->cap; i++)
			if (c->s[i].p) {
				size_t j =
					(size_t)(((uintptr_t)c->s[i].p * 0x9e3779b97f4a7c15ULL) >>
						 17) &
					(nc.cap - 1);

				while (nc.s[j].p)
					j = (j + 1) & (nc.cap - 1);
				nc.s[j] = c->s[i];
			}
		nc.n = c->n;
		free(c->s);
		*c = nc;
	}
	size_t i = (size_t)(((uintptr_t)p * 0x9e3779b97f4a7c15ULL) >> 17) & (c->cap - 1);

	while (c->s[i].p && c->s[i].p != p)
		i = (i + 1) & (c->cap - 1);
	if (!c->s[i].p)
		c->n++;
	c->s[i].p = p;
	c->s[i].id = id;
	return 0;
}

/* String id: 0 for NULL, else its offset in STRS + 1. */
static int str_id(struct psym_index_writer *w, const char *s, uint32_t *id, struct psym_err *e)
{
	void *v;

	if (!s) {
		*id = 0;
		return 0;
	}
	if (w->str_pc.cap) {
		uint32_t *c = pc_find(&w->str_pc, s);

		if (*c) {
			*id = *c;
			return 0;
		}
	}
	size_t len = strlen(s);

	if (psym_hashtab_get(&w->str_ids, s, len, &v) == 0) {
		*id = (uint32_t)(uintptr_t)v;
	} else {
		if (w->strs.n + len + 1 >= UINT32_MAX)
			return psym_err_set(e, PSYM_ELIMIT, "index strings exceed 4 GiB");
		*id = (uint32_t)w->strs.n + 1;
		if (put_bytes(&w->strs, s, len + 1) ||
		    psym_hashtab_put(&w->str_ids, s, len, (void *)(uintptr_t)*id, e))
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	if (pc_put(&w->str_pc, s, *id))
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	return 0;
}

/* File id: 0 for none, else its index in FILES + 1. */
static int file_id(struct psym_index_writer *w, const char *s, uint32_t *id, struct psym_err *e)
{
	uint32_t sid;
	void *v;
	int ret;

	if (!s) {
		*id = 0;
		return 0;
	}
	if (w->file_pc.cap) {
		uint32_t *c = pc_find(&w->file_pc, s);

		if (*c) {
			*id = *c;
			return 0;
		}
	}
	if (psym_hashtab_get(&w->file_ids, s, strlen(s), &v) == 0) {
		*id = (uint32_t)(uintptr_t)v;
	} else {
		ret = str_id(w, s, &sid, e);
		if (ret)
			return ret;
		if (w->nfiles == w->capfiles) {
			size_t ncap = w->capfiles ? w->capfiles * 2 : 1024;
			uint32_t *nf = realloc(w->files, ncap * sizeof(*nf));

			if (!nf)
				return psym_err_set(e, PSYM_ENOMEM, "out of memory");
			w->files = nf;
			w->capfiles = ncap;
		}
		w->files[w->nfiles++] = sid;
		*id = (uint32_t)w->nfiles;
		if (psym_hashtab_put(&w->file_ids, s, strlen(s), (void *)(uintptr_t)*id, e))
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	if (pc_put(&w->file_pc, s, *id))
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	return 0;
}

int psym_index_writer_new(const struct psym_index_meta *m, struct psym_index_writer **out,
			  struct psym_err *e)
{
	struct psym_index_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	w->build_id = strdup(m->build_id ? m->build_id : "");
	w->variant = strdup(m->variant ? m->variant : "");
	w->source = strdup(m->source ? m->source : "");
	w->nodes = malloc(IDX_MAX_NODES * sizeof(*w->nodes));
	if (!w->build_id || !w->variant || !w->source || !w->nodes) {
		psym_index_writer_free(w);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	w->m = *m;
	psym_hashtab_init(&w->str_ids, 0);
	psym_hashtab_init(&w->file_ids, 0);
	*out = w;
	return 0;
}

void psym_index_writer_free(struct psym_index_writer *w)
{
	if (!w)
		return;
	free(w->build_id);
	free(w->variant);
	free(w->source);
	free(w->strs.p);
	free(w->funcs.p);
	free(w->run.p);
	psym_hashtab_free(&w->str_ids);
	psym_hashtab_free(&w->file_ids);
	free(w->str_pc.s);
	free(w->file_pc.s);
	free(w->files);
	free(w->starts);
	free(w->offs);
	free(w->nodes);
	free(w);
}

void psym_index_writer_stats(const struct psym_index_writer *w, size_t *runs, size_t *groups)
{
	*runs = w->total_runs;
	*groups = w->ngroups;
}

/* The open group's record into FUNCS, ending at end. */
static int close_group(struct psym_index_writer *w, uint64_t end, struct psym_err *e)
{
	struct buf *f = &w->funcs;
	int ret = 0;

	if (!w->open)
		return 0;
	w->open = false;
	if (w->ngroups == w->capgroups) {
		size_t ncap = w->capgroups ? w->capgroups * 2 : 4096;
		uint64_t *ns = realloc(w->starts, ncap * sizeof(*ns));

		if (ns)
			w->starts = ns;
		uint64_t *no = ns ? realloc(w->offs, ncap * sizeof(*no)) : NULL;

		if (!no)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		w->offs = no;
		w->capgroups = ncap;
	}
	w->starts[w->ngroups] = w->gstart;
	w->offs[w->ngroups] = f->n;
	w->ngroups++;
	ret |= put_uleb(f, end - w->gstart);
	ret |= put_uleb(f, w->nnodes);
	for (size_t i = 0; i < w->nnodes; i++) {
		const struct node *nd = &w->nodes[i];

		ret |= put_uleb(f, nd->parent);
		ret |= put_uleb(f, nd->name);
		ret |= put_uleb(f, nd->linkage);
		ret |= put_sleb(f, nd->start_line);
		ret |= put_uleb(f, nd->start_file);
		ret |= put_uleb(f, nd->has_start);
		if (nd->has_start)
			ret |= put_sleb(f, (int64_t)(nd->start_address - w->gstart));
		if (nd->parent) {
			ret |= put_uleb(f, nd->pfile);
			ret |= put_sleb(f, nd->pline);
			ret |= put_sleb(f, nd->pcol);
			ret |= put_uleb(f, nd->pdisc);
		}
	}
	ret |= put_uleb(f, w->nruns);
	ret |= put_bytes(f, w->run.p, w->run.n);
	if (ret)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	return 0;
}

static void open_group(struct psym_index_writer *w, uint64_t addr, const struct psym_frame *root)
{
	w->open = true;
	w->gstart = w->last_addr = addr;
	w->nnodes = w->nruns = 0;
	w->run.n = 0;
	w->st_node = 0;
	w->st_file = 0;
	w->st_line = 0;
	w->chain_n = 0;
	w->root_name = root->name;
	w->root_linkage = root->linkage_name;
}

static bool same_node(const struct node *a, const struct node *b)
{
	return a->parent == b->parent && a->name == b->name && a->linkage == b->linkage &&
	       a->start_line == b->start_line && a->pfile == b->pfile && a->pline == b->pline &&
	       a->pcol == b->pcol && a->pdisc == b->pdisc && a->start_file == b->start_file &&
	       a->has_start == b->has_start && a->start_address == b->start_address;
}

/* The node of frame k of f (root: k = n - 1) under parent, found or added. */
static int node_for(struct psym_index_writer *w, const struct psym_frame *f, size_t n, size_t k,
		    uint32_t parent, uint32_t *out, struct psym_err *e)
{
	struct node nd = { .parent = parent,
			   .start_line = f[k].start_line,
			   .has_start = f[k].has_start_address,
			   .start_address = f[k].has_start_address ? f[k].start_address : 0 };
	size_t depth = n - 1 - k;
	int ret;

	ret = file_id(w, f[k].start_file, &nd.start_file, e);
	if (!ret)
		ret = str_id(w, f[k].name, &nd.name, e);
	if (!ret)
		ret = str_id(w, f[k].linkage_name, &nd.linkage, e);
	if (!ret && parent) {
		ret = file_id(w, f[k + 1].file, &nd.pfile, e);
		nd.pline = f[k + 1].line;
		nd.pcol = f[k + 1].column;
		nd.pdisc = f[k + 1].discriminator;
	}
	if (ret)
		return ret;
	/* Most runs share the previous run's chain. */
	if (depth < w->chain_n && same_node(&w->nodes[w->chain[depth]], &nd)) {
		*out = w->chain[depth];
		return 0;
	}
	for (size_t i = w->nnodes; i-- > 0;)
		if (same_node(&w->nodes[i], &nd)) {
			*out = (uint32_t)i;
			return 0;
		}
	if (w->nnodes >= IDX_MAX_NODES)
		return psym_err_set(e, PSYM_EINTERNAL, "index group node overflow");
	w->nodes[w->nnodes] = nd;
	*out = (uint32_t)w->nnodes++;
	return 0;
}

static int add_run(struct psym_index_writer *w, uint64_t addr, const struct psym_frame *f, size_t n,
		   struct psym_err *e)
{
	uint32_t node = 0, parent = 0, fid;
	uint8_t flags = 0;
	int ret = 0;

	for (size_t k = n; k-- > 0;) {
		ret = node_for(w, f, n, k, parent, &node, e);
		if (ret)
			return ret;
		w->chain[n - 1 - k] = node;
		parent = node + 1;
	}
	w->chain_n = n;
	ret = file_id(w, f[0].file, &fid, e);
	if (ret)
		return ret;
	if (node != w->st_node || w->nruns == 0)
		flags |= RUN_NODE;
	if (fid != w->st_file)
		flags |= RUN_FILE;
	if (f[0].column)
		flags |= RUN_COLUMN;
	if (f[0].discriminator)
		flags |= RUN_DISC;
	ret |= put_bytes(&w->run, &flags, 1);
	ret |= put_uleb(&w->run, addr - w->last_addr);
	if (flags & RUN_NODE)
		ret |= put_uleb(&w->run, node);
	if (flags & RUN_FILE)
		ret |= put_uleb(&w->run, fid);
	ret |= put_sleb(&w->run, (int64_t)((uint64_t)f[0].line - (uint64_t)w->st_line));
	if (flags & RUN_COLUMN)
		ret |= put_sleb(&w->run, f[0].column);
	if (flags & RUN_DISC)
		ret |= put_uleb(&w->run, f[0].discriminator);
	if (ret)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	w->st_node = node;
	w->st_file = fid;
	w->st_line = f[0].line;
	w->last_addr = addr;
	w->nruns++;
	w->total_runs++;
	return 0;
}

int psym_index_writer_add(struct psym_index_writer *w, uint64_t addr, const struct psym_frame *f,
			  size_t n, struct psym_err *e)
{
	int ret;

	if (n > PSYM_MAX_FRAMES)
		n = PSYM_MAX_FRAMES;
	if (w->have_prev && n == w->nprev) {
		size_t i = 0;

		while (i < n && same_frame(&f[i], &w->prev[i]))
			i++;
		if (i == n)
			return 0;
	}
	if (w->have_prev && addr <= w->last_addr && w->open)
		return psym_err_set(e, PSYM_EINTERNAL, "index runs out of order");
	if (w->open && (n == 0 || w->nruns >= IDX_MAX_RUNS || w->nnodes + n > IDX_MAX_NODES ||
			!same_str(f[n - 1].name, w->root_name) ||
			!same_str(f[n - 1].linkage_name, w->root_linkage))) {
		ret = close_group(w, addr, e);
		if (ret)
			return ret;
	}
	if (n) {
		if (!w->open)
			open_group(w, addr, &f[n - 1]);
		ret = add_run(w, addr, f, n, e);
		if (ret)
			return ret;
	}
	memcpy(w->prev, f, n * sizeof(*f));
	w->nprev = n;
	w->have_prev = true;
	return 0;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	psym_put_uint(p, 4, false, v);
}

static void put_le64(uint8_t *p, uint64_t v)
{
	psym_put_uint(p, 8, false, v);
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

int psym_index_writer_finish(struct psym_index_writer *w, uint64_t end, const char *path,
			     uint64_t *size, struct psym_err *e)
{
	struct idx_hdr h = { 0 };
	struct psym_out out = { 0 };
	uint64_t base = w->ngroups ? w->starts[0] : 0, span;
	size_t lens[SEC_N], off = IDX_HDR_SIZE, body_end, nchunks, addr_w;
	uint8_t *img = NULL;
	int ret;

	if (*(const uint8_t *)&(uint16_t){ 1 } != 1)
		return psym_err_set(e, PSYM_EUNSUPPORTED,
				    "index files are written on little-endian "
				    "hosts only");
	ret = close_group(w, end, e);
	if (ret)
		return ret;
	if (w->funcs.n >= UINT32_MAX)
		return psym_err_set(e, PSYM_ELIMIT, "index function records exceed 4 GiB");
	span = w->ngroups ? w->starts[w->ngroups - 1] - base : 0;
	addr_w = span > UINT32_MAX ? 8 : 4;
	lens[SEC_FUNCS] = w->funcs.n;
	lens[SEC_STRS] = w->strs.n;
	lens[SEC_FILES] = w->nfiles * 4;
	lens[SEC_ADDRS] = w->ngroups * addr_w;
	lens[SEC_OFFS] = w->ngroups * 4;
	for (int s = 0; s < SEC_CRCS; s++) {
		h.sec[s].off = off;
		h.sec[s].len = lens[s];
		off = align8(off + lens[s]);
	}
	body_end = off;
	nchunks =
		((body_end - IDX_HDR_SIZE) + ((size_t)1 << IDX_CHUNK_SHIFT) - 1) >> IDX_CHUNK_SHIFT;
	h.sec[SEC_CRCS].off = off;
	h.sec[SEC_CRCS].len = nchunks * 4;
	off += nchunks * 4;
	if (off > PSYM_INDEX_MAX_FILE)
		return psym_err_set(e, PSYM_ELIMIT, "index of %zu bytes exceeds the cap of %llu",
				    off, (unsigned long long)PSYM_INDEX_MAX_FILE);
	img = calloc(1, off);
	if (!img)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	memcpy(img + h.sec[SEC_FUNCS].off, w->funcs.p, w->funcs.n);
	memcpy(img + h.sec[SEC_STRS].off, w->strs.p, w->strs.n);
	for (size_t i = 0; i < w->nfiles; i++)
		put_le32(img + h.sec[SEC_FILES].off + 4 * i, w->files[i]);
	for (size_t i = 0; i < w->ngroups; i++) {
		uint8_t *a = img + h.sec[SEC_ADDRS].off + addr_w * i;

		if (addr_w == 8)
			put_le64(a, w->starts[i] - base);
		else
			put_le32(a, (uint32_t)(w->starts[i] - base));
		put_le32(img + h.sec[SEC_OFFS].off + 4 * i, (uint32_t)w->offs[i]);
	}
	for (size_t c = 0; c < nchunks; c++) {
		size_t lo = IDX_HDR_SIZE + (c << IDX_CHUNK_SHIFT);
		size_t hi = lo + ((size_t)1 << IDX_CHUNK_SHIFT);

		if (hi > body_end)
			hi = body_end;
		put_le32(img + h.sec[SEC_CRCS].off + 4 * c, libdeflate_crc32(0, img + lo, hi - lo));
	}
	memcpy(h.magic, IDX_MAGIC, 8);
	h.version = PSYM_INDEX_VERSION;
	h.hdr_size = IDX_HDR_SIZE;
	h.flags = w->m.flags | (addr_w == 8 ? IDX_FLAG_ADDR64 : 0);
	h.chunk_shift = IDX_CHUNK_SHIFT;
	h.file_size = off;
	h.base = base;
	h.ngroups = w->ngroups;
	h.nfiles = w->nfiles;
	snprintf(h.build_id, sizeof(h.build_id), "%s", w->build_id);
	snprintf(h.variant, sizeof(h.variant), "%s", w->variant);
	snprintf(h.source, sizeof(h.source), "%s", w->source);
	h.built = (uint64_t)time(NULL);
	h.crcs_crc = libdeflate_crc32(0, img + h.sec[SEC_CRCS].off, h.sec[SEC_CRCS].len);
	h.hdr_crc = libdeflate_crc32(0, &h, offsetof(struct idx_hdr, hdr_crc));
	memcpy(img, &h, sizeof(h)); /* the header as laid out: little-endian hosts (above) */
	ret = psym_out_open(&out, path, e);
	if (ret)
		goto out;
	if (fwrite(img, 1, off, out.fp) != off) {
		ret = psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", path, "short write");
		psym_out_abort(&out);
		goto out;
	}
	ret = psym_out_commit(&out, e);
	if (!ret && size)
		*size = off;
out:
	free(img);
	return ret;
}
