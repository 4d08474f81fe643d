/* SPDX-License-Identifier: MIT */
/* Binaries named one at a time: located once, opened once (modset.h). */
#include "config.h"

#include <stdlib.h>

#include "modset.h"
#include "registry.h"
#include "resolvers.h"

struct psym_modset {
	const struct psym_binary_opts *bo;
	struct psym_objtab *objs;   /* modules by path and build ID, located once */
	struct psym_registry *mods; /* ... and opened once */
};

struct psym_modset *psym_modset_new(const struct psym_binary_opts *bo, size_t max)
{
	struct psym_modset *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->bo = bo;
	s->objs = psym_objtab_new(max);
	s->mods = psym_registry_new(max);
	if (!s->objs || !s->mods) {
		psym_modset_free(s);
		return NULL;
	}
	if (bo->limits)
		psym_registry_set_max_open(s->mods, bo->limits->open_objects);
	return s;
}

int psym_modset_find(struct psym_modset *s, const char *path, const char *build_id,
		     const char *named, struct psym_located **x, bool *first, struct psym_err *e)
{
	int ret = psym_objtab_add(s->objs, PSYM_MAP_FILE, path, build_id, named, x, e);

	*first = false;
	if (ret || (*x)->located)
		return ret;
	*first = true;
	/* Without places to look, only the path as named. */
	return psym_objtab_locate_one(s->objs, *x, s->bo->locate, e);
}

struct opening {
	struct psym_modset *s;
	struct psym_located *x;
	bool called;
};

static int open_module(void *ud, struct psym_resolver **out, struct psym_reason *why,
		       struct psym_err *e)
{
	struct opening *o = ud;
	const struct psym_binary_opts *bo = o->s->bo;

	o->called = true;
	return psym_file_resolver_open(o->s->objs, o->x, bo->locate ? bo->locate->elf_limits : NULL,
				       bo, "file", out, why, e);
}

int psym_modset_open(struct psym_modset *s, struct psym_located *x, struct psym_resolver **r,
		     bool *opened, struct psym_reason *why, struct psym_err *e)
{
	struct opening o = { .s = s, .x = x };
	struct psym_regentry *g;
	int ret;

	*r = NULL;
	ret = psym_registry_get(s->mods, x->key, open_module, &o, &g, e);
	if (opened)
		*opened = o.called;
	if (ret)
		return ret;
	*r = psym_regentry_resolver(g);
	if (!*r)
		psym_regentry_reason(g, why);
	/* One thread: the entry need not stay locked while it is used. */
	psym_regentry_release(g);
	return *r ? 0 : PSYM_NOENT;
}

size_t psym_modset_answer(struct psym_resolver *r, const char *section, uint64_t addr,
			  uint64_t *vaddr, struct psym_frames *fr)
{
	struct psym_elf *elf = r ? psym_resolver_elf(r) : NULL;
	struct psym_lookup_ctx ctx = { 0 };
	/* Unused, set on a miss: not zeroed whole (1 KiB a lookup was 13% from the index). */
	struct psym_reason why;
	const struct psym_sym *sym;
	uint64_t va = addr;

	why.code = PSYM_R_NONE;
	why.rank = 0;
	why.detail[0] = '\0';
	fr->n = 0;
	if (vaddr)
		*vaddr = addr;
	/* A section offset (an object's addresses are): its place in psym's layout. */
	if (elf && (section || psym_elf_is_rel(elf)) &&
	    psym_elf_section_addr(elf, section, addr, &va) != 0)
		return 0;
	if (vaddr)
		*vaddr = va;
	if (r && psym_resolver_lookup(r, &ctx, va, fr, &why) != 0)
		fr->n = 0;
	if (fr->n || !elf || !(sym = psym_elf_data_symbol(elf, va)))
		return fr->n;
	fr->f[0] = (struct psym_frame){
		.name = sym->name,
		.linkage_name = sym->linkage,
		.file = sym->file, /* a local symbol's STT_FILE */
		.start_address = sym->addr,
		.has_start_address = true,
	};
	fr->n = 1;
	return 1;
}

void psym_modset_finish(struct psym_modset *s)
{
	if (s)
		psym_registry_finish(s->mods);
}

void psym_modset_free(struct psym_modset *s)
{
	if (!s)
		return;
	psym_registry_free(s->mods);
	psym_objtab_free(s->objs);
	free(s);
}
