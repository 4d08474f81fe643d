/* SPDX-License-Identifier: MIT */
/* Mappings of a sampled process and the CFI of their files. */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "space.h"

#define MAX_MAPPINGS 65536

struct file_cfi {
	const struct psym_elf *elf;
	struct psym_cfi *cfi; /* NULL: none or unreadable */
	bool tried;
	/* AArch64's vDSO: where __kernel_rt_sigreturn is (sigret_tried, has_sigret). */
	bool sigret_tried, has_sigret;
	uint64_t sigret;
	bool shared; /* from the source: not ours to close */
};

struct map {
	uint64_t start, end, offset;
	size_t file, dfile; /* indexes in files; SIZE_MAX when none */
	uint64_t dbias;	    /* psym_elf_bias_from(elf, debug) */
};

struct psym_space {
	struct map *maps;
	size_t nmaps, capmaps;
	struct file_cfi *files;
	size_t nfiles, capfiles;
	size_t cfi_errors;
	struct psym_cfi_limits lim;
	psym_space_cfi_fn cfi_fn; /* NULL: each space opens its files' CFI */
	void *cfi_ud;
};

/*
 * Room for need elements of *arr (capacity *cap, doubling from 1, not from
 * psym_array_grow's 16): a run can hold a space per process, most with a
 * few mappings, so an empty tail of 15 is most of a space. NULL when out
 * of memory or past max.
 */
static void *grow(void *arr, size_t *cap, size_t need, size_t elem, size_t max)
{
	size_t n = *cap ? *cap : 1;
	void *p;

	if (need <= *cap)
		return arr;
	if (need > max)
		return NULL;
	while (n < need)
		n = n > max / 2 ? max : n * 2;
	p = realloc(arr, n * elem);
	if (p)
		*cap = n;
	return p;
}

int psym_space_new(const struct psym_cfi_limits *lim, struct psym_space **out, struct psym_err *e)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (lim)
		(*out)->lim = *lim;
	return 0;
}

void psym_space_free(struct psym_space *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++)
		if (!s->files[i].shared)
			psym_cfi_close(s->files[i].cfi);
	free(s->files);
	free(s->maps);
	free(s);
}

static int file_index(struct psym_space *s, const struct psym_elf *elf, size_t *idx,
		      struct psym_err *e)
{
	struct file_cfi *f;

	for (size_t i = 0; i < s->nfiles; i++) {
		if (s->files[i].elf == elf) {
			*idx = i;
			return 0;
		}
	}
	f = grow(s->files, &s->capfiles, s->nfiles + 1, sizeof(*f), 2 * MAX_MAPPINGS);
	if (!f)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	s->files = f;
	s->files[s->nfiles] = (struct file_cfi){ .elf = elf };
	*idx = s->nfiles++;
	return 0;
}

int psym_space_add(struct psym_space *s, uint64_t start, uint64_t end, uint64_t offset,
		   const struct psym_elf *elf, const struct psym_elf *debug, struct psym_err *e)
{
	struct map m = { start, end, offset, SIZE_MAX, SIZE_MAX, 0 }, *p;
	int r;

	if (start >= end)
		return psym_err_set(e, PSYM_EBADINPUT, "empty mapping");
	if (s->nmaps == MAX_MAPPINGS)
		return psym_err_set(e, PSYM_ELIMIT, "more than %d mappings", MAX_MAPPINGS);
	r = file_index(s, elf, &m.file, e);
	if (r < 0)
		return r;
	if (debug) {
		r = file_index(s, debug, &m.dfile, e);
		if (r < 0)
			return r;
		m.dbias = psym_elf_bias_from(elf, debug);
	}
	p = grow(s->maps, &s->capmaps, s->nmaps + 1, sizeof(*p), MAX_MAPPINGS);
	if (!p)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	s->maps = p;
	s->maps[s->nmaps++] = m;
	return 0;
}

static struct psym_cfi *file_cfi(struct psym_space *s, size_t i)
{
	struct file_cfi *f = &s->files[i];

	if (!f->tried) {
		struct psym_err e = { 0 };

		f->tried = true;
		if (s->cfi_fn) {
			f->cfi = s->cfi_fn(s->cfi_ud, f->elf, &f->has_sigret, &f->sigret);
			f->sigret_tried = true;
			f->shared = true;
		} else if (psym_cfi_open(f->elf, &s->lim, &f->cfi, &e) < 0) {
			s->cfi_errors++;
		}
	}
	return f->cfi;
}

/*
 * The kernel's AArch64 signal return trampoline (two instructions at the
 * vDSO's __kernel_rt_sigreturn; its CFI, where the vDSO has any, covers a
 * nop before it): vaddr is looked up as a return address - 1 too.
 */
static bool is_sigreturn(struct psym_space *s, size_t i, uint64_t vaddr)
{
	struct file_cfi *f = &s->files[i];

	file_cfi(s, i); /* with a source: the source's answer */
	if (!f->sigret_tried) {
		f->sigret_tried = true;
		/* Only the lazily loaded symbol table of elf changes. */
		f->has_sigret = psym_elf_machine(f->elf) == EM_AARCH64 &&
				psym_elf_find_symbol((struct psym_elf *)f->elf,
						     "__kernel_rt_sigreturn", &f->sigret) == 0;
	}
	return f->has_sigret && vaddr + 1 >= f->sigret && vaddr < f->sigret + 8;
}

int psym_space_find(void *space, uint64_t pc, struct psym_unwind_obj *obj)
{
	struct psym_space *s = space;

	for (size_t i = 0; i < s->nmaps; i++) {
		struct map *m = &s->maps[i];
		uint64_t vaddr;

		if (pc < m->start || pc >= m->end)
			continue;
		if (psym_elf_normalize(s->files[m->file].elf, m->start, m->end, m->offset, pc,
				       &vaddr) != 0)
			return PSYM_NOENT;
		memset(obj, 0, sizeof(*obj));
		obj->cfi[0] = file_cfi(s, m->file);
		obj->bias[0] = pc - vaddr;
		obj->sigreturn = is_sigreturn(s, m->file, vaddr);
		if (m->dfile != SIZE_MAX) {
			obj->cfi[1] = file_cfi(s, m->dfile);
			obj->bias[1] = pc - vaddr + m->dbias;
		}
		return 0;
	}
	return PSYM_NOENT;
}

void psym_space_set_cfi_source(struct psym_space *s, psym_space_cfi_fn fn, void *ud)
{
	s->cfi_fn = fn;
	s->cfi_ud = ud;
}
