/* SPDX-License-Identifier: MIT */
/* The dynamic linker's link map, read from a process image (linkmap.h). */
#include "config.h"

#include <elf.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linkmap.h"
#include "bytes.h"

#define PHNUM_MAX 256

static void __attribute__((format(printf, 2, 3))) say(struct psym_linkmap *lm, const char *fmt, ...)
{
	va_list ap;

	if (lm->why[0])
		return; /* the first place it stopped is the news */
	va_start(ap, fmt);
	vsnprintf(lm->why, sizeof(lm->why), fmt, ap);
	va_end(ap);
}

static void __attribute__((format(printf, 2, 3)))
say_name(struct psym_linkmap *lm, const char *fmt, ...)
{
	va_list ap;

	if (lm->name_why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(lm->name_why, sizeof(lm->name_why), fmt, ap);
	va_end(ap);
}

/* DT_DEBUG's value in the dynamic section at dyn: 0 when none. */
static uint64_t find_debug(psym_mem_read_fn rd, const void *ctx, struct psym_mem_abi abi,
			   uint64_t dyn, uint64_t dynsz, struct psym_linkmap *lm)
{
	size_t p = abi.is64 ? 8 : 4, ent = 2 * p;
	uint64_t count = dynsz ? dynsz / ent : PSYM_LINKMAP_DYN_MAX;
	unsigned char buf[16 * 64];

	if (count > PSYM_LINKMAP_DYN_MAX)
		count = PSYM_LINKMAP_DYN_MAX;
	for (uint64_t i = 0; i < count;) {
		size_t want = (size_t)(count - i < 64 ? count - i : 64) * ent;
		size_t got = rd(ctx, dyn + i * ent, buf, want);

		if (got < ent) {
			say(lm, "the dynamic section at 0x%" PRIx64 " is not in the core",
			    dyn + i * ent);
			return 0;
		}
		for (size_t k = 0; k + ent <= got; k += ent, i++) {
			uint64_t tag = psym_get_uint(buf + k, p, abi.msb);

			if (tag == DT_NULL) {
				say(lm, "the dynamic section at 0x%" PRIx64 " has no DT_DEBUG",
				    dyn);
				return 0;
			}
			if (tag == DT_DEBUG) {
				uint64_t v = psym_get_uint(buf + k + p, p, abi.msb);

				if (!v)
					say(lm, "DT_DEBUG is 0: the dynamic linker had not run");
				return v;
			}
		}
		if (got < want) {
			say(lm, "the dynamic section at 0x%" PRIx64 " is cut off at 0x%" PRIx64,
			    dyn, dyn + i * ent);
			return 0;
		}
	}
	say(lm, "no DT_DEBUG in the %" PRIu64 " entries of the dynamic section at 0x%" PRIx64,
	    count, dyn);
	return 0;
}

/* l_name of entry i, copied (owned); "" when not readable, said in why. */
static char *read_name(psym_mem_read_fn rd, const void *ctx, uint64_t at, size_t i, size_t *total,
		       struct psym_linkmap *lm)
{
	char buf[PSYM_LINKMAP_NAME_MAX];
	size_t got = at ? rd(ctx, at, buf, sizeof(buf)) : 0;
	const char *nul = got ? memchr(buf, '\0', got) : NULL;
	size_t len = nul ? (size_t)(nul - buf) : 0;
	char *s;

	if (at && !got)
		say_name(lm, "the name of link map entry %zu (at 0x%" PRIx64 ") is not in the core",
			 i, at);
	else if (at && !nul)
		say_name(lm, "the name of link map entry %zu (at 0x%" PRIx64 ") %s", i, at,
			 got < sizeof(buf) ? "runs off the core's memory"
					   : "is longer than 4096 bytes");
	if (len && *total + len > PSYM_LINKMAP_NAMES_MAX) {
		say_name(lm, "link map names past %zu bytes in all", PSYM_LINKMAP_NAMES_MAX);
		len = 0;
	}
	*total += len;
	s = malloc(len + 1);
	if (s) {
		memcpy(s, buf, len);
		s[len] = '\0';
	}
	return s;
}

static int walk(psym_mem_read_fn rd, const void *ctx, struct psym_mem_abi abi, uint64_t cur,
		struct psym_linkmap *lm)
{
	size_t p = abi.is64 ? 8 : 4, cap = 0, names = 0;
	unsigned char lk[5 * 8];

	while (cur) {
		struct psym_linkmap_entry *x;

		for (size_t k = 0; k < lm->n; k++)
			if (lm->v[k].addr == cur) {
				say(lm, "the link map loops: entry %zu links back to entry %zu",
				    lm->n - 1, k);
				return 0;
			}
		if (lm->n == PSYM_LINKMAP_MAX) {
			say(lm, "more than %d link map entries: the rest are not read",
			    PSYM_LINKMAP_MAX);
			return 0;
		}
		if (rd(ctx, cur, lk, 5 * p) < 5 * p) {
			say(lm, "link map entry %zu at 0x%" PRIx64 " is not in the core", lm->n,
			    cur);
			return 0;
		}
		if (lm->n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			void *nv = realloc(lm->v, ncap * sizeof(*lm->v));

			if (!nv)
				return PSYM_ENOMEM;
			lm->v = nv;
			cap = ncap;
		}
		x = &lm->v[lm->n];
		x->addr = cur;
		x->l_addr = psym_get_uint(lk, p, abi.msb);
		x->l_ld = psym_get_uint(lk + 2 * p, p, abi.msb);
		x->l_name = psym_get_uint(lk + p, p, abi.msb);
		x->name = read_name(rd, ctx, x->l_name, lm->n, &names, lm);
		if (!x->name)
			return PSYM_ENOMEM;
		lm->n++;
		cur = psym_get_uint(lk + 3 * p, p, abi.msb);
	}
	return 0;
}

int psym_linkmap_read(psym_mem_read_fn rd, const void *ctx, struct psym_mem_abi abi, uint64_t dyn,
		      uint64_t dynsz, struct psym_linkmap *lm)
{
	size_t p = abi.is64 ? 8 : 4;
	unsigned char rdbg[16];
	uint64_t r;

	memset(lm, 0, sizeof(*lm));
	lm->read = true;
	r = find_debug(rd, ctx, abi, dyn, dynsz, lm);
	if (!r)
		return PSYM_NOENT;
	lm->r_debug = r;
	/* struct r_debug: int r_version, then (aligned) struct link_map *r_map. */
	if (rd(ctx, r, rdbg, 2 * p) < 2 * p) {
		say(lm, "r_debug (DT_DEBUG) at 0x%" PRIx64 " is not in the core", r);
		return 0;
	}
	if (!psym_get_uint(rdbg, 4, abi.msb)) {
		say(lm, "r_debug at 0x%" PRIx64 " has r_version 0: not set up", r);
		return 0;
	}
	return walk(rd, ctx, abi, psym_get_uint(rdbg + p, p, abi.msb), lm);
}

void psym_linkmap_free(struct psym_linkmap *lm)
{
	if (!lm)
		return;
	for (size_t i = 0; i < lm->n; i++)
		free(lm->v[i].name);
	free(lm->v);
	memset(lm, 0, sizeof(*lm));
}

int psym_linkmap_dynamic_mem(psym_mem_read_fn rd, const void *ctx, struct psym_mem_abi abi,
			     uint64_t phdr, uint64_t phnum, uint64_t *bias, uint64_t *dyn,
			     uint64_t *dynsz)
{
	size_t sz = abi.is64 ? 56 : 32;
	unsigned char ph[56 * PHNUM_MAX];
	bool have_phdr = false, have_dyn = false;
	uint64_t pv = 0, dv = 0, dm = 0;
	size_t got;

	if (!phdr || !phnum)
		return PSYM_NOENT;
	if (phnum > PHNUM_MAX)
		phnum = PHNUM_MAX;
	got = rd(ctx, phdr, ph, (size_t)phnum * sz);
	for (size_t i = 0; i + sz <= got; i += sz) {
		uint32_t type = (uint32_t)psym_get_uint(ph + i, 4, abi.msb);
		/* p_vaddr and p_memsz: at 16 and 40 (64-bit), 8 and 20 (32-bit). */
		uint64_t va = abi.is64 ? psym_get_uint(ph + i + 16, 8, abi.msb)
				       : psym_get_uint(ph + i + 8, 4, abi.msb);
		uint64_t ms = abi.is64 ? psym_get_uint(ph + i + 40, 8, abi.msb)
				       : psym_get_uint(ph + i + 20, 4, abi.msb);

		if (type == PT_PHDR && !have_phdr) {
			have_phdr = true;
			pv = va;
		} else if (type == PT_DYNAMIC && !have_dyn) {
			have_dyn = true;
			dv = va;
			dm = ms;
		}
	}
	if (!have_phdr || !have_dyn)
		return PSYM_NOENT;
	*bias = phdr - pv;
	*dyn = dv + *bias;
	*dynsz = dm;
	return 0;
}

int psym_elf_dyninfo(const struct psym_elf *elf, struct psym_elf_dyninfo *out)
{
	Elf *e = psym_elf_libelf(elf);
	bool have_dyn = false;
	GElf_Ehdr eh;
	size_t phnum;
	const void *interp;
	size_t ilen;

	memset(out, 0, sizeof(*out));
	if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &phnum) != 0)
		return PSYM_NOENT;
	out->entry = eh.e_entry;
	out->abi.is64 = eh.e_ident[EI_CLASS] == ELFCLASS64;
	out->abi.msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	if (phnum > PHNUM_MAX)
		phnum = PHNUM_MAX;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph))
			continue;
		if (ph.p_type == PT_DYNAMIC && !have_dyn) {
			have_dyn = true;
			out->dyn = ph.p_vaddr;
			out->dynsz = ph.p_memsz;
		} else if (ph.p_type == PT_PHDR) {
			out->phdr_vaddr = ph.p_vaddr;
		} else if (ph.p_type == PT_LOAD && !out->phdr_vaddr && eh.e_phoff >= ph.p_offset &&
			   eh.e_phoff - ph.p_offset < ph.p_filesz) {
			out->phdr_vaddr = ph.p_vaddr + (eh.e_phoff - ph.p_offset);
		}
	}
	if (psym_elf_section(elf, ".interp", &interp, &ilen) == 0 && ilen &&
	    ilen <= sizeof(out->interp) && memchr(interp, '\0', ilen))
		memcpy(out->interp, interp, ilen);
	return have_dyn ? 0 : PSYM_NOENT;
}
