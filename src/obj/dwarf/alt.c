/* SPDX-License-Identifier: MIT */
/*
 * Alternate (dwz) and supplementary DWARF files: finding their name and
 * build ID in the main file, opening their sections beside the main
 * file's, and the units DW_TAG_imported_unit names.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alt.h"
#include "array.h"
#include "buildid.h"
#include "die.h"
#include "lifecycle.h"
#include "unit.h"

/* Bytes to lowercase hex into out; false when they do not fit or are too few. */
static bool to_hex(const uint8_t *p, size_t n, char *out, size_t outsz)
{
	static const char digits[] = "0123456789abcdef";

	if (n < 1 || n > 64 || 2 * n + 1 > outsz)
		return false;
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
	return true;
}

/* A path we would look at: not empty, no control characters, fits. */
static bool copy_path(const char *s, size_t n, char *out, size_t outsz)
{
	if (n == 0 || n >= outsz)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

int psym_dwarf_altlink(const struct psym_elf *elf, char *path, size_t pathsz, char *build_id,
		       size_t bidsz, struct psym_err *e)
{
	const void *data;
	size_t len;
	const char *what;

	if (psym_elf_section(elf, ".gnu_debugaltlink", &data, &len) == 0) {
		const uint8_t *p = data, *z = memchr(p, 0, len);

		what = ".gnu_debugaltlink";
		if (!z || !copy_path(data, (size_t)(z - p), path, pathsz) ||
		    !to_hex(z + 1, len - (size_t)(z + 1 - p), build_id, bidsz))
			goto bad;
		return 0;
	}
	if (psym_elf_section(elf, ".debug_sup", &data, &len) == 0) {
		struct psym_debug_sup s;

		what = ".debug_sup";
		if (psym_debug_sup_parse(data, len, psym_elf_is_msb(elf), &s) != 0)
			goto bad;
		if (s.is_supplementary)
			return PSYM_NOENT; /* the supplementary file itself */
		if (!copy_path(s.name, strlen(s.name), path, pathsz) ||
		    !to_hex(s.checksum, s.checksum_len, build_id, bidsz))
			goto bad;
		return 0;
	}
	return PSYM_NOENT;
bad:
	return psym_err_set(e, PSYM_EBADDWARF, "'%s': malformed %s", psym_elf_path(elf), what);
}

int psym_dwarf_set_alt(struct psym_dwarf *d, const struct psym_elf *elf, struct psym_err *e)
{
	struct psym_dwarf_opts o = d->o;
	struct psym_dwarf *a = NULL;
	uint64_t used = 0;
	int ret;

	if (d->alt)
		return psym_err_set(e, PSYM_EINTERNAL, "'%s': alternate file given twice", d->path);
	/* One memory cap for both files: the alternate file gets what is left. */
	for (int i = 0; i < S_N; i++)
		if (d->sec[i].owned)
			used += d->sec[i].len;
	if (o.max_memory) {
		if (used >= o.max_memory)
			return psym_err_set(e, PSYM_ELIMIT,
					    "'%s': no memory left under the cap (--max-memory) "
					    "for the alternate file '%s'",
					    d->path, psym_elf_path(elf));
		o.max_memory -= used;
	}
	ret = dw_open(elf, &o, false, &a, e);
	if (ret == PSYM_NOENT)
		return psym_err_set(e, PSYM_EBADDWARF, "'%s': the alternate file has no DWARF",
				    psym_elf_path(elf));
	if (ret)
		return ret;
	d->alt = a;
	return 0;
}

bool dw_imported_add(struct imported *s, const struct cu *u)
{
	const struct cu **n;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == u)
			return false;
	n = psym_array_grow(s->v, &s->cap, s->n + 1, sizeof(*n), MAX_IMPORTS);
	if (!n)
		return false; /* over the cap, or no memory: the import is left out */
	s->v = n;
	s->v[s->n++] = u;
	return true;
}

void dw_imported_free(struct imported *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

/* The unit whose top DIE is at off. */
static struct cu *unit_with_die(struct psym_dwarf *d, uint64_t off)
{
	struct cu *u = dw_unit_of_offset(d, off);

	return u && u->die_off == off ? u : NULL;
}

struct cu *dw_import_target(struct psym_dwarf *d, struct psym_dwarf *src, const struct cu *u,
			    struct cur *c, const struct unitfmt *uf, const struct abbrev *a,
			    struct psym_dwarf **in)
{
	const struct attrspec *as = a->nattr ? &u->ab->attrs[a->attr0] : NULL;
	uint64_t ref = NOREF;
	struct psym_dwarf *to;

	for (uint32_t i = 0; i < a->nattr; i++) {
		struct fval v;
		bool ok;

		if (!read_form(c, uf, as[i].form, as[i].implicit, &v))
			return NULL;
		if (as[i].name == AT_import) {
			ref = ref_abs(u, &v, &ok);
			if (!ok)
				ref = NOREF;
		}
	}
	if (ref == NOREF)
		return NULL;
	/* In the alternate file, every reference is to the alternate file. */
	to = src != d || (ref & DW_ALT_REF) ? d->alt : d;
	if (!to)
		return NULL;
	*in = to;
	return unit_with_die(to, ref & ~DW_ALT_REF);
}
