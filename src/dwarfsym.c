/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <dwarf.h>
#include <libdwarf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "dwarfsym.h"
#include "elffile.h"
#include "fileio.h"

#define MAX_FRAMES 256
#define MAX_ORIGIN_HOPS 16
#define NONE UINT32_MAX

struct erange {
	uint64_t lo, hi;
};

/* A subprogram or inlined subroutine that has code. */
struct entry {
	const char *name, *linkage;
	int64_t decl_line;
	uint64_t call_file;
	int64_t call_line, call_column;
	uint32_t parent, first_child, next_sibling;
	uint32_t range_first, range_count;
};

struct top {
	uint64_t lo, hi;
	uint32_t entry;
};

struct row {
	uint64_t addr;
	uint32_t line, column, file;
	bool end;
};

struct cu {
	Dwarf_Off die_off;
	uint16_t version;
	bool decoded, failed;
	const char *comp_dir;
	struct entry *entries;
	size_t nentries, capentries;
	struct erange *ranges;
	size_t nranges, capranges;
	struct top *tops;
	size_t ntops;
	struct row *rows;
	size_t nrows;
	const char **files;
	size_t nfiles;
};

struct curange {
	uint64_t lo, hi;
	uint32_t cu;
};

struct origin {
	Dwarf_Off off;
	const char *name, *linkage;
	int64_t decl_line;
};

struct psym_dwarf {
	Dwarf_Debug dbg;
	int fd;
	char *path;
	struct psym_dwarf_opts o;
	struct cu *cus;
	size_t ncus, ndecoded;
	struct curange *curanges;
	size_t ncuranges;
	struct origin *origins; /* hash: DIE offset -> resolved names */
	size_t norigins, caporigins;
	struct psym_arena strings;
	struct psym_frame frames[MAX_FRAMES];
};

static void drop_error(Dwarf_Debug dbg, Dwarf_Error *err)
{
	if (*err) {
		dwarf_dealloc_error(dbg, *err);
		*err = NULL;
	}
}

/* ---- attributes ------------------------------------------------------------ */

static bool attr_udata(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at, Dwarf_Unsigned *out)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	bool ok = false;

	if (dwarf_attr(die, at, &a, &err) == DW_DLV_OK) {
		if (dwarf_formudata(a, out, &err) == DW_DLV_OK) {
			ok = true;
		} else {
			Dwarf_Signed s;

			drop_error(dbg, &err);
			if (dwarf_formsdata(a, &s, &err) == DW_DLV_OK && s >= 0) {
				*out = (Dwarf_Unsigned)s;
				ok = true;
			}
		}
		dwarf_dealloc_attribute(a);
	}
	drop_error(dbg, &err);
	return ok;
}

static const char *attr_string(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	char *s = NULL;

	if (dwarf_attr(die, at, &a, &err) == DW_DLV_OK) {
		if (dwarf_formstring(a, &s, &err) != DW_DLV_OK)
			s = NULL;
		dwarf_dealloc_attribute(a);
	}
	drop_error(dbg, &err);
	return s;
}

static bool attr_ref(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half at, Dwarf_Off *off)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	bool ok = false;

	if (dwarf_attr(die, at, &a, &err) == DW_DLV_OK) {
		ok = dwarf_global_formref(a, off, &err) == DW_DLV_OK;
		dwarf_dealloc_attribute(a);
	}
	drop_error(dbg, &err);
	return ok;
}

/* ---- ranges ------------------------------------------------------------------ */

typedef int (*range_fn)(void *ud, uint64_t lo, uint64_t hi);

/*
 * Call fn for each address range of die: low_pc/high_pc, or DW_AT_ranges
 * (DWARF 4 .debug_ranges with base address `base`, DWARF 5 rnglists).
 * Returns the number of ranges, or -1 on a hard error from fn.
 */
static int die_ranges(Dwarf_Debug dbg, Dwarf_Die die, uint64_t base, range_fn fn, void *ud)
{
	Dwarf_Error err = NULL;
	Dwarf_Addr lo, hi;
	Dwarf_Half form;
	enum Dwarf_Form_Class cls;
	Dwarf_Attribute a = NULL;
	int n = 0;

	if (dwarf_lowpc(die, &lo, &err) == DW_DLV_OK &&
	    dwarf_highpc_b(die, &hi, &form, &cls, &err) == DW_DLV_OK) {
		if (cls == DW_FORM_CLASS_CONSTANT)
			hi = lo + hi;
		if (hi > lo && lo != 0) {
			if (fn(ud, lo, hi))
				return -1;
			n++;
		}
		drop_error(dbg, &err);
		return n;
	}
	/* A CU with low_pc (its base address) and DW_AT_ranges falls through. */
	drop_error(dbg, &err);
	if (dwarf_attr(die, DW_AT_ranges, &a, &err) != DW_DLV_OK) {
		drop_error(dbg, &err);
		return 0;
	}
	if (dwarf_whatform(a, &form, &err) != DW_DLV_OK)
		goto out;
	if (form == DW_FORM_rnglistx || form == DW_FORM_sec_offset) {
		Dwarf_Half version = 0, offsize = 0;
		Dwarf_Unsigned val = 0, count = 0, goff = 0;
		Dwarf_Rnglists_Head head = NULL;
		int res;

		dwarf_get_version_of_die(die, &version, &offsize);
		if (version < 5 && form == DW_FORM_sec_offset)
			goto dwarf4;
		if (form == DW_FORM_rnglistx)
			res = dwarf_formudata(a, &val, &err);
		else
			res = dwarf_global_formref(a, &val, &err);
		if (res != DW_DLV_OK)
			goto out;
		if (dwarf_rnglists_get_rle_head(a, form, val, &head, &count, &goff, &err) !=
		    DW_DLV_OK)
			goto out;
		for (Dwarf_Unsigned i = 0; i < count; i++) {
			unsigned len = 0, code = 0;
			Dwarf_Unsigned r1, r2, c1 = 0, c2 = 0;
			Dwarf_Bool unavailable = 0;

			if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &r1, &r2,
							      &unavailable, &c1, &c2, &err) !=
			    DW_DLV_OK) {
				drop_error(dbg, &err);
				break;
			}
			if (code == DW_RLE_end_of_list)
				break;
			if (code == DW_RLE_base_address || code == DW_RLE_base_addressx ||
			    unavailable)
				continue;
			if (c2 > c1 && c1 != 0) {
				if (fn(ud, c1, c2)) {
					dwarf_dealloc_rnglists_head(head);
					n = -1;
					goto out;
				}
				n++;
			}
		}
		dwarf_dealloc_rnglists_head(head);
		goto out;
	}
dwarf4: {
		Dwarf_Off off = 0, real = 0;
		Dwarf_Ranges *r = NULL;
		Dwarf_Signed cnt = 0;
		Dwarf_Unsigned bytes = 0;

		if (dwarf_global_formref(a, &off, &err) != DW_DLV_OK) {
			drop_error(dbg, &err);
			if (dwarf_formudata(a, &off, &err) != DW_DLV_OK)
				goto out;
		}
		if (dwarf_get_ranges_b(dbg, off, die, &real, &r, &cnt, &bytes, &err) != DW_DLV_OK)
			goto out;
		for (Dwarf_Signed i = 0; i < cnt; i++) {
			if (r[i].dwr_type == DW_RANGES_END)
				break;
			if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
				base = r[i].dwr_addr2;
				continue;
			}
			lo = r[i].dwr_addr1 + base;
			hi = r[i].dwr_addr2 + base;
			if (hi > lo && lo != 0) {
				if (fn(ud, lo, hi)) {
					n = -1;
					break;
				}
				n++;
			}
		}
		dwarf_ranges_dealloc(dbg, r, cnt);
	}
out:
	drop_error(dbg, &err);
	if (a)
		dwarf_dealloc_attribute(a);
	return n;
}

/* ---- open: the CU range table ---------------------------------------------- */

struct cu_ctx {
	struct psym_dwarf *d;
	uint32_t cu;
	size_t cap;
};

static int add_curange(void *ud, uint64_t lo, uint64_t hi)
{
	struct cu_ctx *c = ud;
	struct psym_dwarf *d = c->d;

	if (d->ncuranges == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 256;
		struct curange *n = realloc(d->curanges, ncap * sizeof(*n));

		if (!n)
			return -1;
		d->curanges = n;
		c->cap = ncap;
	}
	d->curanges[d->ncuranges++] = (struct curange){ lo, hi, c->cu };
	return 0;
}

static int cmp_curange(const void *a, const void *b)
{
	const struct curange *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->cu < y->cu ? -1 : x->cu > y->cu;
}

static int index_cus(struct psym_dwarf *d, struct psym_err *e)
{
	struct cu_ctx ctx = { .d = d };
	size_t capcus = 0;
	Dwarf_Error err = NULL;

	for (;;) {
		Dwarf_Unsigned hdrlen, abbrev_off, next_off, typeoff;
		Dwarf_Half version, addrsz, lensz, extsz, cutype;
		Dwarf_Sig8 sig;
		Dwarf_Die cu_die = NULL;
		Dwarf_Off off;
		Dwarf_Addr base = 0;
		int res;

		res = dwarf_next_cu_header_d(d->dbg, 1, &hdrlen, &version, &abbrev_off, &addrsz,
					     &lensz, &extsz, &sig, &typeoff, &next_off, &cutype,
					     &err);
		if (res == DW_DLV_NO_ENTRY)
			break;
		if (res != DW_DLV_OK) {
			drop_error(d->dbg, &err);
			return psym_err_set(e, PSYM_EBADDWARF, "'%s': corrupt compile unit header",
					    d->path);
		}
		if (dwarf_siblingof_b(d->dbg, NULL, 1, &cu_die, &err) != DW_DLV_OK) {
			drop_error(d->dbg, &err);
			continue;
		}
		if (cutype == DW_UT_type || cutype == DW_UT_split_type ||
		    dwarf_dieoffset(cu_die, &off, &err) != DW_DLV_OK) {
			drop_error(d->dbg, &err);
			dwarf_dealloc_die(cu_die);
			continue;
		}
		if (d->ncus == capcus) {
			size_t ncap = capcus ? capcus * 2 : 64;
			struct cu *n = realloc(d->cus, ncap * sizeof(*n));

			if (!n) {
				dwarf_dealloc_die(cu_die);
				return psym_err_set(e, PSYM_ENOMEM, "out of memory");
			}
			d->cus = n;
			capcus = ncap;
		}
		memset(&d->cus[d->ncus], 0, sizeof(d->cus[0]));
		d->cus[d->ncus].die_off = off;
		d->cus[d->ncus].version = version;
		if (dwarf_lowpc(cu_die, &base, &err) != DW_DLV_OK)
			base = 0;
		drop_error(d->dbg, &err);
		ctx.cu = (uint32_t)d->ncus;
		if (die_ranges(d->dbg, cu_die, base, add_curange, &ctx) < 0) {
			dwarf_dealloc_die(cu_die);
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		}
		d->ncus++;
		dwarf_dealloc_die(cu_die);
		if (d->ncus >= UINT32_MAX - 1)
			return psym_err_set(e, PSYM_ELIMIT, "'%s': too many compile units", d->path);
	}
	if (d->ncuranges)
		qsort(d->curanges, d->ncuranges, sizeof(*d->curanges), cmp_curange);
	return 0;
}

/*
 * libdwarf 20210528 double-frees on some corrupt .debug_rnglists (found by
 * libFuzzer, inside dwarf_next_cu_header_d): check the unit headers of an
 * uncompressed .debug_rnglists ourselves first and refuse what is not sane.
 */
static bool rnglists_sane(const char *path, struct psym_err *e)
{
	struct psym_elf *elf = NULL;
	const unsigned char *p;
	const void *data;
	size_t len, off = 0;
	bool ok = true;

	/* A file our ELF reader refuses (truncated, lying headers) is not read. */
	if (psym_elf_open(path, NULL, &elf, e) != 0)
		return false;
	if (psym_elf_section(elf, ".debug_rnglists", &data, &len) != 0 ||
	    psym_elf_section_compressed(elf, ".debug_rnglists"))
		goto out;
	p = data;
	while (ok && off < len) {
		uint64_t unit;
		size_t hdr = 4, offsz = 4;
		uint32_t u32, count;
		uint16_t version;

		if (len - off < 12) {
			ok = false;
			break;
		}
		memcpy(&u32, p + off, 4);
		unit = u32;
		if (u32 == 0xffffffffu) {
			if (len - off < 20) {
				ok = false;
				break;
			}
			memcpy(&unit, p + off + 4, 8);
			hdr = 12;
			offsz = 8;
		}
		if (unit < 8 || unit > len - off - hdr) {
			ok = false;
			break;
		}
		memcpy(&version, p + off + hdr, 2);
		memcpy(&count, p + off + hdr + 4, 4);
		if (version != 5 || (p[off + hdr + 2] != 4 && p[off + hdr + 2] != 8) ||
		    p[off + hdr + 3] != 0 || (uint64_t)count * offsz > unit - 8)
			ok = false;
		off += hdr + (size_t)unit;
	}
out:
	psym_elf_close(elf);
	return ok;
}

int psym_dwarf_open(const char *path, const struct psym_dwarf_opts *o,
		    struct psym_dwarf **out, struct psym_err *e)
{
	struct psym_dwarf *d = calloc(1, sizeof(*d));
	Dwarf_Error err = NULL;
	int ret, res;

	if (!d)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	/*
	 * Every libdwarf allocation here is paired with its dealloc, so its
	 * (costly) record of all allocations is not needed.
	 */
	dwarf_set_de_alloc_flag(0);
	d->fd = -1;
	d->o.inlines = o ? o->inlines : true;
	d->o.max_depth = o && o->max_depth ? o->max_depth : 512;
	d->o.max_entries = o && o->max_entries ? o->max_entries : (size_t)16 << 20;
	d->o.max_rows = o && o->max_rows ? o->max_rows : (size_t)64 << 20;
	psym_arena_init(&d->strings, (size_t)4 << 30);
	d->path = strdup(path);
	if (!d->path) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto fail;
	}
	d->fd = psym_open_regular(path, e);
	if (d->fd < 0) {
		ret = d->fd;
		d->fd = -1;
		goto fail;
	}
	if (!rnglists_sane(path, e)) {
		ret = e->code ? e->code :
				psym_err_set(e, PSYM_EBADDWARF, "'%s': corrupt .debug_rnglists", path);
		goto fail;
	}
	res = dwarf_init_b(d->fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &d->dbg, &err);
	if (res == DW_DLV_NO_ENTRY) {
		ret = PSYM_NOENT;
		goto fail;
	}
	if (res != DW_DLV_OK) {
		ret = psym_err_set(e, PSYM_EBADDWARF, "'%s': cannot read DWARF: %s", path,
				   err ? dwarf_errmsg(err) : "unknown error");
		if (err)
			dwarf_dealloc_error(NULL, err);
		d->dbg = NULL;
		goto fail;
	}
	ret = index_cus(d, e);
	if (ret)
		goto fail;
	if (d->ncuranges == 0) {
		ret = PSYM_NOENT;
		goto fail;
	}
	*out = d;
	return 0;
fail:
	psym_dwarf_close(d);
	return ret;
}

static void cu_free(struct cu *c)
{
	free(c->entries);
	free(c->ranges);
	free(c->tops);
	free(c->rows);
	free(c->files);
}

void psym_dwarf_close(struct psym_dwarf *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->ncus; i++)
		cu_free(&d->cus[i]);
	free(d->cus);
	free(d->curanges);
	free(d->origins);
	if (d->dbg)
		dwarf_finish(d->dbg, NULL);
	if (d->fd >= 0)
		close(d->fd);
	psym_arena_free(&d->strings);
	free(d->path);
	free(d);
}

size_t psym_dwarf_ncus(const struct psym_dwarf *d)
{
	return d->ncus;
}

size_t psym_dwarf_ncus_decoded(const struct psym_dwarf *d)
{
	return d->ndecoded;
}

/* ---- names through abstract_origin / specification, cached ------------------ */

static uint64_t hash_off(Dwarf_Off off)
{
	uint64_t h = off * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 31);
}

static struct origin *origin_find(struct psym_dwarf *d, Dwarf_Off off)
{
	if (!d->caporigins)
		return NULL;
	for (size_t i = hash_off(off) & (d->caporigins - 1); d->origins[i].off;
	     i = (i + 1) & (d->caporigins - 1))
		if (d->origins[i].off == off)
			return &d->origins[i];
	return NULL;
}

static void origin_put(struct psym_dwarf *d, const struct origin *o)
{
	if ((d->norigins + 1) * 2 > d->caporigins) {
		size_t ncap = d->caporigins ? d->caporigins * 2 : 4096;
		struct origin *n = calloc(ncap, sizeof(*n));

		if (!n)
			return; /* the cache is an optimization only */
		for (size_t i = 0; i < d->caporigins; i++) {
			size_t j;

			if (!d->origins[i].off)
				continue;
			for (j = hash_off(d->origins[i].off) & (ncap - 1); n[j].off;
			     j = (j + 1) & (ncap - 1))
				;
			n[j] = d->origins[i];
		}
		free(d->origins);
		d->origins = n;
		d->caporigins = ncap;
	}
	{
		size_t j;

		for (j = hash_off(o->off) & (d->caporigins - 1); d->origins[j].off;
		     j = (j + 1) & (d->caporigins - 1))
			;
		d->origins[j] = *o;
		d->norigins++;
	}
}

/*
 * Fill name, linkage name and decl_line of a function DIE, following
 * DW_AT_abstract_origin and DW_AT_specification (bounded hops).
 */
static void resolve_names_depth(struct psym_dwarf *d, Dwarf_Die die, struct entry *en,
				int depth)
{
	Dwarf_Die cur = die, owned = NULL;
	Dwarf_Error err = NULL;

	en->name = NULL;
	en->linkage = NULL;
	en->decl_line = 0;
	for (int hop = 0; hop + depth < MAX_ORIGIN_HOPS; hop++) {
		Dwarf_Unsigned u;
		Dwarf_Off ref;
		Dwarf_Die next = NULL;
		struct origin *cached;

		if (!en->name)
			en->name = attr_string(d->dbg, cur, DW_AT_name);
		if (!en->linkage) {
			en->linkage = attr_string(d->dbg, cur, DW_AT_linkage_name);
			if (!en->linkage)
				en->linkage = attr_string(d->dbg, cur, DW_AT_MIPS_linkage_name);
		}
		if (!en->decl_line && attr_udata(d->dbg, cur, DW_AT_decl_line, &u))
			en->decl_line = (int64_t)u;
		if (en->name && en->linkage && en->decl_line)
			break;
		if (!attr_ref(d->dbg, cur, DW_AT_abstract_origin, &ref) &&
		    !attr_ref(d->dbg, cur, DW_AT_specification, &ref))
			break;
		cached = origin_find(d, ref);
		if (cached) {
			if (!en->name)
				en->name = cached->name;
			if (!en->linkage)
				en->linkage = cached->linkage;
			if (!en->decl_line)
				en->decl_line = cached->decl_line;
			break;
		}
		if (dwarf_offdie_b(d->dbg, ref, 1, &next, &err) != DW_DLV_OK) {
			drop_error(d->dbg, &err);
			break;
		}
		if (owned)
			dwarf_dealloc_die(owned);
		owned = cur = next;
		if (hop == 0) {
			/* Cache what the origin itself resolves to (its own chain). */
			struct entry sub;

			resolve_names_depth(d, next, &sub, depth + 1);
			origin_put(d, &(struct origin){ ref, sub.name, sub.linkage,
							 sub.decl_line });
			if (!en->name)
				en->name = sub.name;
			if (!en->linkage)
				en->linkage = sub.linkage;
			if (!en->decl_line)
				en->decl_line = sub.decl_line;
			break;
		}
	}
	if (owned)
		dwarf_dealloc_die(owned);
}

/* The recursion through origins is bounded with the hops: cycles end. */
static void resolve_names(struct psym_dwarf *d, Dwarf_Die die, struct entry *en)
{
	resolve_names_depth(d, die, en, 0);
}

/* ---- decoding one CU --------------------------------------------------------- */

struct range_ctx {
	struct cu *c;
};

static int add_erange(void *ud, uint64_t lo, uint64_t hi)
{
	struct cu *c = ud;

	if (c->nranges == c->capranges) {
		size_t ncap = c->capranges ? c->capranges * 2 : 256;
		struct erange *n = realloc(c->ranges, ncap * sizeof(*n));

		if (!n)
			return -1;
		c->ranges = n;
		c->capranges = ncap;
	}
	c->ranges[c->nranges++] = (struct erange){ lo, hi };
	return 0;
}

static int cmp_top(const void *a, const void *b)
{
	const struct top *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* An end of sequence sorts before a row starting at the same address. */
	return (int)y->end - (int)x->end;
}

static const char *join_dir(struct psym_dwarf *d, const char *dir, const char *name)
{
	size_t dl = dir ? strlen(dir) : 0;

	if (!name)
		return NULL;
	/* libdwarf joins the include directory; a relative comp_dir is already in. */
	if (name[0] == '/' || !dir || !*dir ||
	    (strncmp(name, dir, dl) == 0 && (name[dl] == '/' || name[dl] == '\0')))
		return psym_arena_strdup(&d->strings, name);
	return psym_arena_printf(&d->strings, "%s/%s", dir, name);
}

static int decode_lines(struct psym_dwarf *d, struct cu *c, Dwarf_Die cu_die, struct psym_err *e)
{
	Dwarf_Unsigned version = 0;
	Dwarf_Small count = 0;
	Dwarf_Line_Context ctx = NULL;
	Dwarf_Line *lines = NULL;
	Dwarf_Signed nlines = 0, nfiles = 0;
	Dwarf_Error err = NULL;
	char **srcfiles = NULL;
	int ret = 0;

	if (dwarf_srcfiles(cu_die, &srcfiles, &nfiles, &err) == DW_DLV_OK) {
		c->files = calloc((size_t)nfiles + 1, sizeof(*c->files));
		for (Dwarf_Signed i = 0; c->files && i < nfiles; i++)
			c->files[i] = join_dir(d, c->comp_dir, srcfiles[i]);
		c->nfiles = c->files ? (size_t)nfiles : 0;
		for (Dwarf_Signed i = 0; i < nfiles; i++)
			dwarf_dealloc(d->dbg, srcfiles[i], DW_DLA_STRING);
		dwarf_dealloc(d->dbg, srcfiles, DW_DLA_LIST);
	}
	drop_error(d->dbg, &err);
	if (dwarf_srclines_b(cu_die, &version, &count, &ctx, &err) != DW_DLV_OK) {
		drop_error(d->dbg, &err);
		return 0;
	}
	if (dwarf_srclines_from_linecontext(ctx, &lines, &nlines, &err) != DW_DLV_OK) {
		drop_error(d->dbg, &err);
		goto out;
	}
	if ((size_t)nlines > d->o.max_rows) {
		ret = psym_err_set(e, PSYM_ELIMIT, "'%s': line table with %lld rows",
				   d->path, (long long)nlines);
		goto out;
	}
	c->rows = calloc((size_t)nlines + 1, sizeof(*c->rows));
	if (!c->rows) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	for (Dwarf_Signed i = 0; i < nlines; i++) {
		Dwarf_Addr addr;
		Dwarf_Unsigned lineno = 0, fileno = 0;
		Dwarf_Signed col = 0;
		Dwarf_Bool end = 0;
		struct row *r = &c->rows[c->nrows];

		if (dwarf_lineaddr(lines[i], &addr, &err) != DW_DLV_OK) {
			drop_error(d->dbg, &err);
			continue;
		}
		dwarf_lineno(lines[i], &lineno, &err);
		drop_error(d->dbg, &err);
		dwarf_lineoff_b(lines[i], (Dwarf_Unsigned *)&col, &err);
		drop_error(d->dbg, &err);
		dwarf_line_srcfileno(lines[i], &fileno, &err);
		drop_error(d->dbg, &err);
		dwarf_lineendsequence(lines[i], &end, &err);
		drop_error(d->dbg, &err);
		if (end) {
			/*
			 * libdwarf 20210528 reports rows flagged epilogue_begin as
			 * end_sequence too (seen in rustc and clang output); a real
			 * end of sequence does not carry epilogue_begin.
			 */
			Dwarf_Bool pe = 0, eb = 0;
			Dwarf_Unsigned isa = 0, disc = 0;

			if (dwarf_prologue_end_etc(lines[i], &pe, &eb, &isa, &disc, &err) ==
				    DW_DLV_OK &&
			    eb)
				end = 0;
			drop_error(d->dbg, &err);
		}
		r->addr = addr;
		r->line = lineno > UINT32_MAX ? 0 : (uint32_t)lineno;
		r->column = col < 0 || col > UINT32_MAX ? 0 : (uint32_t)col;
		r->file = fileno > UINT32_MAX ? UINT32_MAX : (uint32_t)fileno;
		r->end = end;
		c->nrows++;
	}
	qsort(c->rows, c->nrows, sizeof(*c->rows), cmp_row);
out:
	dwarf_srclines_dealloc_b(ctx);
	return ret;
}

/* File name for a DWARF file index (1-based before DWARF 5, 0-based since). */
static const char *cu_file(const struct cu *c, uint64_t idx)
{
	if (c->version < 5) {
		if (idx == 0)
			return NULL;
		idx--;
	}
	return idx < c->nfiles ? c->files[idx] : NULL;
}

static int new_entry(struct psym_dwarf *d, struct cu *c, uint32_t parent, uint32_t *out,
		     struct psym_err *e)
{
	struct entry *en;

	if (c->nentries >= d->o.max_entries)
		return psym_err_set(e, PSYM_ELIMIT, "'%s': more than %zu functions in one CU",
				    d->path, d->o.max_entries);
	if (c->nentries == c->capentries) {
		size_t ncap = c->capentries ? c->capentries * 2 : 256;
		struct entry *n = realloc(c->entries, ncap * sizeof(*n));

		if (!n)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		c->entries = n;
		c->capentries = ncap;
	}
	en = &c->entries[c->nentries];
	memset(en, 0, sizeof(*en));
	en->parent = parent;
	en->first_child = NONE;
	en->next_sibling = NONE;
	if (parent != NONE) {
		/* Children are prepended; their order does not matter for lookup. */
		en->next_sibling = c->entries[parent].first_child;
		c->entries[parent].first_child = (uint32_t)c->nentries;
	}
	*out = (uint32_t)c->nentries++;
	return 0;
}

struct stack_item {
	Dwarf_Die die;
	uint32_t entry; /* nearest function entry at or above this DIE */
};

static int decode_cu(struct psym_dwarf *d, struct cu *c, struct psym_err *e)
{
	Dwarf_Error err = NULL;
	Dwarf_Die cu_die = NULL, die = NULL;
	struct stack_item *stack = NULL;
	size_t depth = 0, ntop = 0;
	Dwarf_Addr base = 0;
	int ret = 0;

	c->decoded = true;
	d->ndecoded++;
	if (dwarf_offdie_b(d->dbg, c->die_off, 1, &cu_die, &err) != DW_DLV_OK) {
		drop_error(d->dbg, &err);
		c->failed = true;
		return psym_err_set(e, PSYM_EBADDWARF, "'%s': cannot read compile unit at 0x%llx",
				    d->path, (unsigned long long)c->die_off);
	}
	c->comp_dir = attr_string(d->dbg, cu_die, DW_AT_comp_dir);
	if (dwarf_lowpc(cu_die, &base, &err) != DW_DLV_OK)
		base = 0;
	drop_error(d->dbg, &err);
	ret = decode_lines(d, c, cu_die, e);
	if (ret)
		goto out;
	stack = calloc(d->o.max_depth + 1, sizeof(*stack));
	if (!stack) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	if (dwarf_child(cu_die, &die, &err) != DW_DLV_OK) {
		drop_error(d->dbg, &err);
		die = NULL;
	}
	while (die) {
		Dwarf_Half tag = 0;
		uint32_t parent = depth ? stack[depth - 1].entry : NONE, mine = parent;
		Dwarf_Die child = NULL;

		if (dwarf_tag(die, &tag, &err) != DW_DLV_OK)
			drop_error(d->dbg, &err);
		if (tag == DW_TAG_subprogram ||
		    (tag == DW_TAG_inlined_subroutine && d->o.inlines)) {
			size_t first = c->nranges;
			int nr = die_ranges(d->dbg, die, base, add_erange, c);

			if (nr < 0) {
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
				goto out;
			}
			if (nr > 0 && (tag == DW_TAG_subprogram ? 1 : parent != NONE)) {
				struct entry *en;
				Dwarf_Unsigned u;

				/* A subprogram nested in another is its own top level. */
				ret = new_entry(d, c, tag == DW_TAG_subprogram ? NONE : parent,
						&mine, e);
				if (ret)
					goto out;
				en = &c->entries[mine];
				en->range_first = (uint32_t)first;
				en->range_count = (uint32_t)nr;
				resolve_names(d, die, en);
				if (attr_udata(d->dbg, die, DW_AT_call_file, &u))
					en->call_file = u;
				if (attr_udata(d->dbg, die, DW_AT_call_line, &u))
					en->call_line = (int64_t)u;
				if (attr_udata(d->dbg, die, DW_AT_call_column, &u))
					en->call_column = (int64_t)u;
				if (tag == DW_TAG_subprogram)
					ntop += (size_t)nr;
			} else {
				c->nranges = first;
			}
		}
		/*
		 * Descend only where code can be: functions, inlined calls, lexical
		 * blocks, namespaces and modules (member functions with code are
		 * defined outside their class, through DW_AT_specification).
		 * Types, variables, parameters and call sites are skipped whole.
		 */
		if (depth < d->o.max_depth &&
		    (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
		     tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
		     tag == DW_TAG_module || tag == DW_TAG_try_block || tag == DW_TAG_catch_block) &&
		    dwarf_child(die, &child, &err) == DW_DLV_OK) {
			stack[depth].die = die;
			stack[depth].entry = mine;
			depth++;
			die = child;
			continue;
		}
		drop_error(d->dbg, &err);
		for (;;) {
			Dwarf_Die sib = NULL;
			int res = dwarf_siblingof_b(d->dbg, die, 1, &sib, &err);

			drop_error(d->dbg, &err);
			dwarf_dealloc_die(die);
			if (res == DW_DLV_OK) {
				die = sib;
				break;
			}
			if (depth == 0) {
				die = NULL;
				break;
			}
			die = stack[--depth].die;
		}
	}
	/* Top-level lookup table: every range of every subprogram. */
	c->tops = calloc(ntop + 1, sizeof(*c->tops));
	if (!c->tops) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->nentries; i++) {
		struct entry *en = &c->entries[i];

		if (en->parent != NONE)
			continue;
		for (uint32_t k = 0; k < en->range_count && c->ntops < ntop; k++)
			c->tops[c->ntops++] = (struct top){ c->ranges[en->range_first + k].lo,
							    c->ranges[en->range_first + k].hi,
							    (uint32_t)i };
	}
	qsort(c->tops, c->ntops, sizeof(*c->tops), cmp_top);
out:
	while (depth > 0)
		dwarf_dealloc_die(stack[--depth].die);
	free(stack);
	dwarf_dealloc_die(cu_die);
	if (ret)
		c->failed = true;
	return ret;
}

/* ---- lookup --------------------------------------------------------------------- */

static bool entry_has(const struct cu *c, const struct entry *en, uint64_t a)
{
	for (uint32_t k = 0; k < en->range_count; k++) {
		const struct erange *r = &c->ranges[en->range_first + k];

		if (a >= r->lo && a < r->hi)
			return true;
	}
	return false;
}

static const struct row *find_row(const struct cu *c, uint64_t a)
{
	size_t lo = 0, hi = c->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->rows[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || c->rows[lo - 1].end)
		return NULL;
	return &c->rows[lo - 1];
}

static uint32_t find_top(const struct cu *c, uint64_t a)
{
	size_t lo = 0, hi = c->ntops;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->tops[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Nested or overlapping top-level ranges: the closest start wins. */
	for (size_t k = 0; k < 32 && lo > k; k++) {
		const struct top *t = &c->tops[lo - 1 - k];

		if (a < t->hi)
			return t->entry;
	}
	return NONE;
}

static struct cu *find_cu(struct psym_dwarf *d, uint64_t a, size_t *skip)
{
	size_t lo = 0, hi = d->ncuranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->curanges[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = *skip; k < 16 && lo > k; k++) {
		const struct curange *r = &d->curanges[lo - 1 - k];

		if (a < r->hi) {
			*skip = k + 1;
			return &d->cus[r->cu];
		}
	}
	return NULL;
}

int psym_dwarf_lookup(struct psym_dwarf *d, uint64_t a, const struct psym_frame **frames,
		      size_t *np, struct psym_err *e)
{
	uint32_t chain[MAX_FRAMES];
	size_t skip = 0, depth = 0, n = 0;
	const struct row *row = NULL;
	struct cu *c = NULL;
	uint32_t top = NONE;

	/* Overlapping CU ranges happen (e.g. with LTO): take the first that knows a. */
	for (;;) {
		struct cu *cand = find_cu(d, a, &skip);

		if (!cand)
			break;
		if (!cand->decoded) {
			int ret = decode_cu(d, cand, e);

			if (ret == PSYM_ENOMEM)
				return ret;
		}
		if (cand->failed)
			continue;
		top = find_top(cand, a);
		row = find_row(cand, a);
		if (top != NONE || row) {
			c = cand;
			break;
		}
	}
	if (!c)
		return PSYM_NOENT;
	if (top != NONE) {
		uint32_t cur = top;

		chain[depth++] = cur;
		while (depth < MAX_FRAMES) {
			uint32_t ch = c->entries[cur].first_child, next = NONE;

			for (; ch != NONE; ch = c->entries[ch].next_sibling)
				if (entry_has(c, &c->entries[ch], a)) {
					next = ch;
					break;
				}
			if (next == NONE)
				break;
			chain[depth++] = cur = next;
		}
	}
	if (depth == 0) {
		/* Lines but no function DIE: the caller names it from the symbols. */
		d->frames[0] = (struct psym_frame){
			.name = NULL, .file = cu_file(c, row->file), .line = row->line,
			.column = row->column,
		};
		*frames = d->frames;
		*np = 1;
		return 0;
	}
	/* Innermost first. */
	for (size_t i = depth; i-- > 0;) {
		const struct entry *en = &c->entries[chain[i]];
		struct psym_frame *f = &d->frames[n++];

		f->name = en->name ? en->name : en->linkage;
		f->linkage_name = en->linkage;
		f->start_line = en->decl_line;
		if (i == depth - 1) {
			f->file = row ? cu_file(c, row->file) : NULL;
			f->line = row ? row->line : 0;
			f->column = row ? row->column : 0;
		} else {
			const struct entry *callee = &c->entries[chain[i + 1]];

			f->file = cu_file(c, callee->call_file);
			f->line = callee->call_line;
			f->column = callee->call_column;
		}
	}
	*frames = d->frames;
	*np = n;
	return 0;
}
