/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <elf.h>
#include <stdlib.h>

#include "array.h"
#include "cfiset.h"

struct psym_cfiset_obj {
	const struct psym_elf *elf; /* the key */
	struct psym_cfi *cfi;	    /* NULL: none or unreadable */
	bool has_sigret;	    /* __kernel_rt_sigreturn, at sigret (space.h) */
	uint64_t sigret;
};

void psym_cfiset_init(struct psym_cfiset *s, const struct psym_cfi_limits *lim)
{
	*s = (struct psym_cfiset){ .lim = lim };
	psym_hashtab_init(&s->by_elf, 0);
}

struct psym_cfi *psym_cfiset_get(void *ud, const struct psym_elf *elf, bool *has_sigret,
				 uint64_t *sigret)
{
	struct psym_cfiset *s = ud;
	struct psym_err e = { 0 };
	struct psym_cfiset_obj *o, **q;
	void *v;

	*has_sigret = false;
	if (psym_hashtab_get(&s->by_elf, &elf, sizeof(elf), &v) == 0) {
		o = v;
		*has_sigret = o->has_sigret;
		*sigret = o->sigret;
		return o->cfi;
	}
	q = psym_array_grow(s->objs, &s->cap, s->n + 1, sizeof(*q), 0);
	if (!q)
		return NULL;
	s->objs = q;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->elf = elf;
	if (psym_cfi_open(elf, s->lim, &o->cfi, &e) < 0)
		o->cfi = NULL;
	/*
	 * A search of every symbol, once per object, not once per process;
	 * only AArch64 has the trampoline (arch.h): another machine's
	 * objects keep their symbol tables unread, 1.8 MB for one of
	 * 20,000 functions.
	 */
	o->has_sigret = psym_elf_machine(elf) == EM_AARCH64 &&
			psym_elf_find_symbol((struct psym_elf *)elf, "__kernel_rt_sigreturn",
					     &o->sigret) == 0;
	if (psym_hashtab_put(&s->by_elf, &o->elf, sizeof(o->elf), o, &e) != 0) {
		psym_cfi_close(o->cfi);
		free(o);
		return NULL;
	}
	s->objs[s->n++] = o;
	*has_sigret = o->has_sigret;
	*sigret = o->sigret;
	return o->cfi;
}

void psym_cfiset_free(struct psym_cfiset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		psym_cfi_close(s->objs[i]->cfi);
		free(s->objs[i]);
	}
	free(s->objs);
	psym_hashtab_free(&s->by_elf);
	*s = (struct psym_cfiset){ 0 };
}
