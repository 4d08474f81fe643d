/* SPDX-License-Identifier: MIT */
/* psym stack: cores unwound into one profile, symbolized (stack.h). */
#include "config.h"

#include <elf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "array.h"
#include "builder.h"
#include "cfi.h"
#include "cfiset.h"
#include "crashsig.h"
#include "hashtab.h"
#include "lean.h"
#include "linkmap.h"
#include "objtab.h"
#include "space.h"
#include "stack.h"
#include "search.h"

#define DEFAULT_MAX_FRAMES 256
#define DEFAULT_MAX_STACK ((size_t)8 << 20)
#define FIRST_WINDOW ((size_t)64 << 10)
#define MAX_FILES 65536
#define MAX_VDSO_IMAGE ((size_t)1 << 20)
#define MAX_GUARD_GAP ((uint64_t)1 << 20) /* stack_guard_gap: 256 pages */
#define MAX_VDSO_IMAGES 64

/* A vDSO image read from a core's memory, kept for the run by its build ID. */
struct vdso_image {
	char build_id[PSYM_BUILD_ID_HEX_MAX];
	char name[300];
	void *bytes;
	size_t len;
};

struct core_run {
	const struct psym_stack_opts *o;
	struct psym_locate_opts lo;
	struct psym_cfi_limits cfil;
	struct psym_objtab *objs;
	struct psym_cfiset cfis;	/* the objects' CFI, once for every core */
	struct psym_hashtab map_by_key; /* mappings made, by "start limit offset id path" */
	struct psym_builder *b;
	struct psym_profile *p;
	struct psym_unwind_budget budget;
	struct vdso_image vdso[MAX_VDSO_IMAGES]; /* the cores' vDSOs, one per build ID */
	struct psym_mem_image
		vdso_mem[MAX_VDSO_IMAGES]; /* the same, as lo and symbolize take them */
	size_t nvdso;
	char core_vdso[PSYM_BUILD_ID_HEX_MAX]; /* the core's vDSO's build ID ("": none) */
	uint64_t *pcs, *locs;
	uint8_t *stack;
	size_t stack_cap;
	struct psym_err *e;
};

/*
 * The object of class cls keyed key with build ID bid, located and opened
 * once for every core that maps it (objtab.h); *out NULL: not found, or
 * past the table's cap (unwound by frame pointers there).
 */
static int locate_obj(struct core_run *r, enum psym_map_class cls, const char *key, const char *bid,
		      struct psym_elf **out)
{
	struct psym_located *x;
	int ret;

	*out = NULL;
	ret = psym_objtab_add(r->objs, cls, key, bid, NULL, &x, r->e);
	if (ret == PSYM_ELIMIT)
		return 0;
	if (!ret)
		ret = psym_objtab_locate_one(r->objs, x, &r->lo, r->e);
	if (ret)
		return ret;
	*out = psym_objtab_elf(x);
	return 0;
}

/* The file of a mapping; NULL: not found. */
static int find_obj(struct core_run *r, const struct psym_core_file *f, struct psym_elf **out)
{
	char clean[4096];
	enum psym_map_class cls = psym_objkey_classify(f->path, clean, sizeof(clean));

	*out = NULL;
	if (cls != PSYM_MAP_FILE)
		return 0;
	return locate_obj(r, cls, clean, f->build_id, out);
}

/* The mapped file holding addr, or NULL. */
static const struct psym_core_file *file_at(const struct psym_core *c, uint64_t addr)
{
	for (size_t i = 0; i < c->nfiles; i++)
		if (addr >= c->files[i].start && addr < c->files[i].end)
			return &c->files[i];
	return NULL;
}

/*
 * The file elf loaded at bias, one mapped file per PT_LOAD from its page
 * on, as the dynamic linker maps them; past the core's file cap the rest
 * are left out (their frames unnamed).
 */
static int map_by_loads(struct psym_core *c, struct psym_elf *elf, uint64_t bias, const char *path,
			const char *bid)
{
	const struct psym_elf_load *ld;
	size_t n = psym_elf_loads(elf, &ld);

	for (size_t i = 0; i < n; i++) {
		uint64_t pad = ld[i].vaddr & 0xfff, start, end;
		int ret;

		if (ld[i].offset < pad || (ld[i].offset & 0xfff) != pad)
			pad = 0;
		start = bias + ld[i].vaddr - pad;
		end = bias + ld[i].vaddr + ld[i].memsz;
		if (!ld[i].memsz || end <= start)
			continue;
		ret = psym_core_add_file(c, start, end, ld[i].offset - pad, ld[i].flags & PF_X,
					 path, bid);
		if (ret == PSYM_ELIMIT)
			return 0;
		if (ret)
			return ret;
	}
	return 0;
}

/* What the link map gave a core without NT_FILE, for --explain. */
struct libs {
	size_t mapped, missed, unnamed;
	bool base;	/* the dynamic linker mapped at AT_BASE */
	char miss[200]; /* the first library not found: its name and build ID */
};

/*
 * A shared object of the link map (or the dynamic linker at AT_BASE) that
 * the core's files do not cover: located by its path as the linker opened
 * it (--sysroot, --binary-path), checked by the build ID its first page
 * in the core has when the core has that page, mapped at its load bias.
 */
static int map_object(struct core_run *r, struct psym_core *c, const char *name, uint64_t bias,
		      struct libs *l)
{
	char bid[PSYM_BUILD_ID_HEX_MAX], clean[4096];
	struct psym_elf *elf;
	int ret;

	if (psym_objkey_classify(name, clean, sizeof(clean)) != PSYM_MAP_FILE)
		return 0;
	psym_core_build_id_at(c, bias, bid);
	ret = locate_obj(r, PSYM_MAP_FILE, clean, bid, &elf);
	if (ret)
		return ret;
	if (!elf) {
		if (!l->missed++)
			snprintf(l->miss, sizeof(l->miss), "'%.120s'%s%.40s%s", clean,
				 bid[0] ? " (build ID " : "", bid, bid[0] ? ")" : "");
		return 0;
	}
	l->mapped++;
	return map_by_loads(c, elf, bias, clean, bid);
}

/* Where a core without NT_FILE had its shared libraries from, for --explain. */
static void libs_said(const struct psym_core *c, const struct libs *l, struct psym_stack_core *sc)
{
	const struct psym_linkmap *lm = &c->links;
	char miss[260] = "";

	if (c->has_ntfile)
		return;
	if (l->missed)
		snprintf(miss, sizeof(miss), "; not found: %s%s", l->miss,
			 l->missed > 1 ? " and others" : "");
	if (lm->n)
		snprintf(sc->libs, sizeof(sc->libs),
			 "the link map (r_debug at 0x%" PRIx64
			 ") has %zu objects, %zu mapped from their files%s%s%s",
			 lm->r_debug, lm->n, l->mapped, lm->why[0] ? "; " : "", lm->why, miss);
	else
		snprintf(sc->libs, sizeof(sc->libs), "no link map: %s%s%s",
			 lm->read ? lm->why
				  : "the executable's dynamic section is not in the core, "
				    "and its file was not found",
			 l->base ? "; the dynamic linker mapped at AT_BASE" : "", miss);
}

/*
 * The shared libraries of a core whose files do not name them (QEMU's
 * cores have no NT_FILE), from the dynamic linker's link map in its
 * memory. The core reads the map itself when the executable's program
 * headers are dumped; else its dynamic section is where the executable's
 * file puts it, moved by the load bias AT_ENTRY gives. Then the dynamic
 * linker itself at AT_BASE (PT_INTERP names it) if the map had not.
 */
static int link_map_files(struct core_run *r, struct psym_core *c, struct psym_stack_core *sc)
{
	const struct psym_core_file *xf = c->entry ? file_at(c, c->entry) : NULL;
	const struct psym_core_load *vl = c->vdso ? psym_core_load_at(c, c->vdso) : NULL;
	struct psym_elf_dyninfo di = { 0 };
	struct psym_elf *exe = NULL;
	struct libs l = { 0 };
	int ret = xf ? find_obj(r, xf, &exe) : 0;

	if (ret)
		return ret;
	if (exe && psym_elf_dyninfo(exe, &di) == 0 && !c->links.read) {
		uint64_t bias = c->entry - di.entry;

		if (psym_core_read_link_map(c, di.dyn + bias, di.dynsz) == PSYM_ENOMEM)
			return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
	}
	for (size_t i = 0, n = c->links.n; i < n; i++) {
		const struct psym_linkmap_entry *x = &c->links.v[i];
		const char *name = x->name;

		/* Files the core names, the vDSO. */
		if (file_at(c, x->l_ld) ||
		    (vl && x->l_ld >= vl->vaddr && x->l_ld - vl->vaddr < vl->memsz))
			continue;
		/* The dynamic linker's name is the executable's PT_INTERP. */
		if (!name[0] && x->l_addr == c->base && c->base)
			name = di.interp;
		if (!name[0] && x->l_name && i > 0)
			l.unnamed++;
		ret = name[0] ? map_object(r, c, name, x->l_addr, &l) : 0;
		if (ret)
			return ret;
	}
	if (l.unnamed && !c->has_ntfile)
		snprintf(sc->partial, sizeof(sc->partial), "link map: %s%s", c->links.name_why,
			 l.unnamed > 1 ? " (and others)" : "");
	if (c->base && di.interp[0] && !file_at(c, c->base)) {
		size_t before = l.mapped;

		ret = map_object(r, c, di.interp, c->base, &l);
		l.base = l.mapped > before;
	}
	libs_said(c, &l, sc);
	return ret;
}

/* The profile's mapping for [start, limit), made once per distinct one. */
static uint64_t mapping_id(struct core_run *r, uint64_t start, uint64_t limit, uint64_t offset,
			   const char *path, const char *build_id)
{
	char key[5000];
	pb_mapping *m;
	void *v;
	int n = snprintf(key, sizeof(key), "%" PRIx64 " %" PRIx64 " %" PRIx64 " %s %s", start,
			 limit, offset, build_id, path);

	if (n < 0 || (size_t)n >= sizeof(key))
		n = sizeof(key) - 1;
	if (psym_hashtab_get(&r->map_by_key, key, (size_t)n, &v) == 0)
		return (uint64_t)(uintptr_t)v;
	m = psym_builder_mapping(r->b, start, limit, offset, path, build_id);
	if (!m)
		return 0;
	if (psym_hashtab_put(&r->map_by_key, key, (size_t)n, (void *)(uintptr_t)m->id, r->e))
		return 0;
	return m->id;
}

/* The registers of a thread as the unwinder numbers them (DWARF). */
static void thread_regs(const struct psym_core *c, const struct psym_core_thread *t,
			struct psym_unwind_regs *u)
{
	/* x86-64 DWARF 0..16 (rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip) in user_regs_struct. */
	static const unsigned x86[17] = {
		10, 12, 11, 5, 13, 14, 4, 19, 9, 8, 7, 6, 3, 2, 1, 0, 16
	};

	memset(u, 0, sizeof(*u));
	u->machine = c->machine;
	if (c->machine == EM_AARCH64) {
		for (unsigned i = 0; i <= PSYM_A64_PC && i < t->nregs; i++)
			u->r[i] = t->regs[i];
		u->valid = ((uint64_t)1 << (PSYM_A64_PC + 1)) - 1;
		return;
	}
	for (unsigned i = 0; i < 17; i++)
		u->r[i] = t->regs[x86[i]];
	u->valid = ((uint64_t)1 << 17) - 1;
}

/*
 * Where a thread's stack copy starts: at its stack pointer, or, when the
 * core has no memory there (a stack overflow: the frame was being made
 * in the guard gap below the stack), at the first segment above it within
 * the kernel's largest guard gap, so the callers' frames are still read.
 */
static uint64_t stack_base(const struct psym_core *c, uint64_t sp)
{
	size_t lo;

	if (psym_core_load_at(c, sp))
		return sp;
	lo = PSYM_LOWER_BOUND(0, c->nloads, i, c->loads[i].vaddr > sp);
	if (lo < c->nloads && c->loads[lo].vaddr - sp <= MAX_GUARD_GAP && c->loads[lo].avail)
		return c->loads[lo].vaddr;
	return sp;
}

/* Unwind one thread over the core's memory, reading more of its stack while that helps. */
static void unwind_thread(struct core_run *r, const struct psym_core *c,
			  const struct psym_unwind_regs *u, struct psym_space *space,
			  struct psym_unwind_result *res)
{
	const struct psym_unwind_arch *a = psym_unwind_arch_of(c->machine);
	size_t max_stack = r->o->max_stack ? r->o->max_stack : DEFAULT_MAX_STACK;
	size_t max = r->o->max_frames ? r->o->max_frames : DEFAULT_MAX_FRAMES;
	uint64_t sp = stack_base(c, u->r[a->sp]);
	size_t want = FIRST_WINDOW;

	for (;;) {
		struct psym_unwind_stack stk = { sp, r->stack, 0 };

		if (want > max_stack)
			want = max_stack;
		if (want > r->stack_cap) {
			uint8_t *nb = realloc(r->stack, want);

			if (nb) {
				r->stack = nb;
				r->stack_cap = want;
			} else {
				want = r->stack_cap;
			}
		}
		stk.bytes = r->stack;
		stk.len = psym_core_read(c, sp, r->stack, want);
		psym_unwind_budgeted(u, &stk, psym_space_find, space, r->pcs, max, &r->budget, res);
		/* More of the stack helps only when the core had more than was read. */
		if (res->stop != PSYM_UNWIND_OUT_OF_STACK || stk.len < want || want >= max_stack)
			return;
		want *= 4;
	}
}

/*
 * Why the frame at pc had no CFI, in words that say what would help: its
 * file was not found, or only its debug file was (which has no .eh_frame:
 * a debug file keeps .debug_frame at most), or the file has no FDE there.
 */
static void no_cfi_why(struct core_run *r, const struct psym_core *c, uint64_t pc, char *out,
		       size_t n)
{
	const struct psym_core_file *f = file_at(c, pc);
	struct psym_err le = { 0 }, *saved = r->e;
	struct psym_elf *elf = NULL;
	int ret;

	if (!f) {
		snprintf(out, n, "no CFI: 0x%" PRIx64 " is in no file the core maps", pc);
		return;
	}
	r->e = &le; /* found already, or said by --explain: nothing to add */
	ret = find_obj(r, f, &elf);
	r->e = saved;
	if (ret || !elf)
		snprintf(out, n,
			 "no CFI for %.200s: the file was not found%s%.40s%s; give --binary-path "
			 "or --sysroot",
			 f->path, f->build_id[0] ? " (build ID " : "", f->build_id,
			 f->build_id[0] ? ")" : "");
	else if (psym_elf_is_debug_only(elf))
		snprintf(out, n,
			 "no CFI for %.200s: the binary was not found, its debug file has no "
			 ".eh_frame; give --binary-path",
			 f->path);
	else
		snprintf(out, n, "no CFI for %.200s at 0x%" PRIx64 " and no usable frame pointer",
			 f->path, pc);
}

/* Where and why a thread's unwinding stopped early, for --explain and the text. */
static void stop_why(struct core_run *r, const struct psym_core *c, uint64_t sp,
		     const struct psym_unwind_result *res, struct psym_stack_thread *t)
{
	uint64_t pc = res->n ? r->pcs[res->n - 1] : 0;
	const struct psym_core_load *l = psym_core_load_at(c, sp);
	size_t at = res->n ? res->n - 1 : 0;
	char cfi[360];

	t->why[0] = t->guess_why[0] = '\0';
	t->guessed = res->guessed < res->n ? res->guessed : 0;
	if (t->guessed) {
		no_cfi_why(r, c, r->pcs[t->guessed - 1], cfi, sizeof(cfi));
		snprintf(t->guess_why, sizeof(t->guess_why),
			 "frames marked [guessed] were found through the frame pointer: %.340s",
			 cfi);
	}
	if (res->stop == PSYM_UNWIND_END)
		return;
	if (res->no_cfi && res->stop != PSYM_UNWIND_DEPTH && res->stop != PSYM_UNWIND_BUDGET) {
		/* Whatever the frame pointer then led to, the missing CFI is the cause. */
		no_cfi_why(r, c, pc, cfi, sizeof(cfi));
		snprintf(t->why, sizeof(t->why), "after frame #%zu at 0x%" PRIx64 ": %s", at, pc,
			 cfi);
	} else if (res->stop == PSYM_UNWIND_OUT_OF_STACK && (!l || l->vaddr + l->avail <= sp))
		snprintf(t->why, sizeof(t->why),
			 "after frame #%zu at 0x%" PRIx64 ": the stack at 0x%" PRIx64
			 " (the stack pointer) is not in the core",
			 at, pc, sp);
	else if (res->stop == PSYM_UNWIND_OUT_OF_STACK)
		snprintf(t->why, sizeof(t->why),
			 "after frame #%zu at 0x%" PRIx64 ": stack memory past 0x%" PRIx64
			 " is not in the core",
			 at, pc, l->vaddr + l->avail);
	else if (res->stop == PSYM_UNWIND_DEPTH)
		snprintf(t->why, sizeof(t->why),
			 "after frame #%zu at 0x%" PRIx64 ": the frame cap (--max-frames %zu)", at,
			 pc, r->o->max_frames ? r->o->max_frames : DEFAULT_MAX_FRAMES);
	else
		snprintf(t->why, sizeof(t->why), "after frame #%zu at 0x%" PRIx64 ": %s%s%.120s",
			 at, pc, psym_unwind_stop_name(res->stop), res->why[0] ? ": " : "",
			 res->why);
}

/*
 * The core's vDSO (AT_SYSINFO_EHDR, its pages dumped in the core) as an
 * image the run keeps by build ID, so that the located-object table finds
 * it as it finds a profile's vDSO (psym_locate_vdso): r->core_vdso is its
 * build ID, or "" when the core has none readable (then [vdso] frames are
 * unwound by frame pointers and named as far as --vdso allows).
 */
static int read_vdso(struct core_run *r, const struct psym_core *c)
{
	const struct psym_core_load *l = c->vdso ? psym_core_load_at(c, c->vdso) : NULL;
	struct psym_err le = { 0 };
	struct psym_elf *elf = NULL;
	struct vdso_image *v;
	const char *bid;
	uint8_t *img;
	size_t want, len;

	r->core_vdso[0] = '\0';
	if (!l)
		return 0;
	want = l->vaddr + l->memsz - c->vdso;
	if (want > MAX_VDSO_IMAGE)
		want = MAX_VDSO_IMAGE;
	img = malloc(want ? want : 1);
	if (!img)
		return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
	len = psym_core_read(c, c->vdso, img, want);
	if (psym_elf_open_mem(img, len, false, "[vdso]", r->lo.elf_limits, &elf, &le) ||
	    !(bid = psym_elf_build_id(elf)) || strlen(bid) >= sizeof(v->build_id))
		goto out;
	snprintf(r->core_vdso, sizeof(r->core_vdso), "%s", bid);
	for (size_t i = 0; i < r->nvdso; i++)
		if (!strcmp(r->vdso[i].build_id, bid))
			goto out;
	if (r->nvdso == MAX_VDSO_IMAGES)
		goto out; /* named by --vdso alone past the cap */
	v = &r->vdso[r->nvdso];
	snprintf(v->build_id, sizeof(v->build_id), "%s", bid);
	snprintf(v->name, sizeof(v->name), "%.250s:[vdso]", c->name);
	v->bytes = img;
	v->len = len;
	img = NULL;
	r->vdso_mem[r->nvdso] = (struct psym_mem_image){ v->build_id, v->bytes, v->len, v->name };
	r->lo.n_vdso_images = ++r->nvdso;
out:
	psym_elf_close(elf);
	free(img);
	return 0;
}

/* The located vDSO of the core (read_vdso), NULL when none. */
static int find_vdso(struct core_run *r, struct psym_elf **out)
{
	*out = NULL;
	if (!r->core_vdso[0])
		return 0;
	return locate_obj(r, PSYM_MAP_VDSO, "", r->core_vdso, out);
}

static int add_thread(struct core_run *r, const struct psym_core *c, struct psym_space *space,
		      size_t ti, struct psym_stack_thread *t)
{
	const struct psym_core_thread *ct = &c->threads[ti];
	struct psym_unwind_regs u;
	struct psym_unwind_result res;
	int64_t one = 1;
	pb_sample *s;
	size_t nloc = 0;

	thread_regs(c, ct, &u);
	t->tid = ct->tid;
	t->signal = ct->signal;
	t->crashed = ti == 0 && c->signal != 0;
	unwind_thread(r, c, &u, space, &res);
	t->nframes = res.n;
	t->stop = res.stop;
	stop_why(r, c, u.r[psym_unwind_arch_of(c->machine)->sp], &res, t);
	for (size_t i = 0; i < res.n; i++) {
		uint64_t mid = 0;

		for (size_t f = 0; f < c->nfiles; f++) {
			const struct psym_core_file *cf = &c->files[f];

			if (cf->exec && r->pcs[i] >= cf->start && r->pcs[i] < cf->end) {
				mid = mapping_id(r, cf->start, cf->end, cf->offset, cf->path,
						 cf->build_id);
				break;
			}
		}
		if (!mid && c->vdso && psym_core_load_at(c, c->vdso) && r->pcs[i] >= c->vdso) {
			const struct psym_core_load *l = psym_core_load_at(c, c->vdso);

			if (r->pcs[i] - l->vaddr < l->memsz)
				mid = mapping_id(r, l->vaddr, l->vaddr + l->memsz, 0, "[vdso]",
						 r->core_vdso);
		}
		r->locs[nloc] = psym_builder_location(r->b, mid, r->pcs[i]);
		if (!r->locs[nloc])
			return psym_err_set(r->e, psym_builder_error(r->b), "'%s': %s", c->name,
					    psym_strerror(psym_builder_error(r->b)));
		nloc++;
	}
	s = psym_builder_sample(r->b, r->locs, nloc, &one, 1);
	if (!s || psym_builder_label_str(r->b, s, "core", c->name) ||
	    psym_builder_label_num(r->b, s, "pid", c->pid, NULL) ||
	    psym_builder_label_num(r->b, s, "tid", ct->tid, NULL) ||
	    psym_builder_label_num(r->b, s, "signal", ct->signal, NULL) ||
	    psym_builder_label_str(r->b, s, "crashed", t->crashed ? "true" : "false") ||
	    psym_builder_label_str(r->b, s, "comm", c->comm))
		return psym_err_set(r->e, psym_builder_error(r->b), "'%s': %s", c->name,
				    psym_strerror(psym_builder_error(r->b)));
	t->sample = r->p->pb->n_sample - 1;
	return 0;
}

/* One core: read, its files located, every thread unwound into a sample. */
static int add_core(struct core_run *r, const char *path, struct psym_stack_core *sc)
{
	struct psym_err ce = { 0 };
	struct psym_core *c = NULL;
	struct psym_space *space = NULL;
	struct psym_elf *elf_vdso;
	int ret;

	sc->name = strdup(path);
	if (!sc->name)
		return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
	ret = psym_core_open(path, &r->o->core, &c, &ce);
	if (ret) {
		if (ret == PSYM_ENOMEM)
			return psym_err_set(r->e, ret, "%s", ce.msg);
		sc->error = strdup(ce.msg[0] ? ce.msg : psym_strerror(ret));
		return sc->error ? 0 : psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
	}
	sc->pid = c->pid;
	memcpy(sc->comm, c->comm, sizeof(sc->comm));
	sc->signal = c->signal;
	sc->fault_addr = c->fault_addr;
	sc->has_fault_addr = c->has_fault_addr;
	sc->machine = c->machine;
	memcpy(sc->partial, c->partial, sizeof(sc->partial));
	for (size_t i = 0; i < c->nfiles && !sc->executable; i++)
		if (c->entry >= c->files[i].start && c->entry < c->files[i].end)
			sc->executable = strdup(c->files[i].path);
	/* The executable's mappings first: pprof's mapping 1 is the main binary. */
	for (size_t i = 0; sc->executable && i < c->nfiles; i++)
		if (c->files[i].exec && !strcmp(c->files[i].path, sc->executable) &&
		    !mapping_id(r, c->files[i].start, c->files[i].end, c->files[i].offset,
				c->files[i].path, c->files[i].build_id)) {
			ret = psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
			goto out;
		}
	ret = link_map_files(r, c, sc);
	if (ret)
		goto out;
	if (c->partial[0])
		memcpy(sc->partial, c->partial, sizeof(sc->partial));
	ret = psym_space_new(&r->cfil, &space, r->e);
	if (ret)
		goto out;
	psym_space_set_cfi_source(space, psym_cfiset_get, &r->cfis);
	for (size_t i = 0; i < c->nfiles; i++) {
		struct psym_elf *elf;

		if (!c->files[i].exec)
			continue;
		ret = find_obj(r, &c->files[i], &elf);
		if (ret)
			goto out;
		if (elf) {
			ret = psym_space_add(space, c->files[i].start, c->files[i].end,
					     c->files[i].offset, elf, NULL, r->e);
			if (ret)
				goto out;
		}
	}
	ret = read_vdso(r, c);
	if (!ret)
		ret = find_vdso(r, &elf_vdso);
	if (!ret && elf_vdso) {
		const struct psym_core_load *l = psym_core_load_at(c, c->vdso);

		ret = psym_space_add(space, l->vaddr, l->vaddr + l->memsz, c->vdso - l->vaddr,
				     elf_vdso, NULL, r->e);
	}
	if (ret)
		goto out;
	sc->threads = calloc(c->nthreads, sizeof(*sc->threads));
	if (!sc->threads) {
		ret = psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->nthreads; i++) {
		ret = add_thread(r, c, space, i, &sc->threads[i]);
		if (ret)
			goto out;
		sc->nthreads++;
	}
out:
	psym_space_free(space);
	psym_core_free(c);
	return ret;
}

/* The names of the first n frames of a sample (inline frames too), joined. */
enum frame_kind {
	FRAME_OWN,
	FRAME_MACHINERY,
	FRAME_UNNAMED
};

/*
 * Frame k of a sample (innermost first, inline frames before their
 * caller): crash-reporting machinery (crashsig.h), unnamed, or the rest.
 */
static enum frame_kind frame_kind(const struct psym_profile *p, const pb_sample *s, size_t k)
{
	for (size_t i = 0; i < s->n_location_id; i++) {
		const pb_location *l = psym_profile_location(p, s->location_id[i]);
		size_t nl = l && l->n_line ? l->n_line : 1;
		const pb_function *f;
		const char *name;

		if (k >= nl) {
			k -= nl;
			continue;
		}
		if (!l || !l->n_line)
			return FRAME_UNNAMED;
		f = psym_profile_function(p, l->line[k]->function_id);
		name = f ? psym_profile_str(p, f->name) : NULL;
		if (!name || !*name)
			return FRAME_UNNAMED;
		return psym_crashsig_skip(name) ? FRAME_MACHINERY : FRAME_OWN;
	}
	return FRAME_OWN;
}

/*
 * Frames at the top a signature skips: the leading run of machinery, with
 * the unnamed frames inside it (a runtime's internals without symbols:
 * libstdc++'s terminate handler under std::terminate), up to its last
 * machinery frame; none when every frame would go.
 */
static size_t frames_skipped(const struct psym_profile *p, const pb_sample *s, size_t total)
{
	size_t skip = 0;

	for (size_t k = 0; k < total; k++) {
		enum frame_kind fk = frame_kind(p, s, k);

		if (fk == FRAME_OWN)
			break;
		if (fk == FRAME_MACHINERY)
			skip = k + 1;
	}
	return skip == total ? 0 : skip;
}

/*
 * The first n frames of a sample joined by ';', from the first frame that
 * is not crash-reporting machinery (all of them when every frame is).
 */
static void signature_of(const struct psym_profile *p, const pb_sample *s, unsigned n, char *out,
			 size_t outsz)
{
	size_t len = 0, skip = 0, total = 0;
	unsigned k = 0;

	out[0] = '\0';
	for (size_t i = 0; i < s->n_location_id; i++) {
		const pb_location *l = psym_profile_location(p, s->location_id[i]);

		total += l && l->n_line ? l->n_line : 1;
	}
	skip = frames_skipped(p, s, total);
	for (size_t i = 0; i < s->n_location_id && k < n; i++) {
		const pb_location *l = psym_profile_location(p, s->location_id[i]);
		size_t nl = l && l->n_line ? l->n_line : 1;

		if (skip >= nl) {
			skip -= nl;
			continue;
		}
		for (size_t j = skip; l && j < l->n_line && k < n; j++, k++) {
			const pb_function *f = psym_profile_function(p, l->line[j]->function_id);
			const char *name = f ? psym_profile_str(p, f->name) : NULL;
			int w = snprintf(out + len, outsz - len, "%s%s", k ? ";" : "",
					 name && *name ? name : "??");

			if (w < 0 || (size_t)w >= outsz - len)
				return;
			len += (size_t)w;
		}
		skip = 0;
		if (l && !l->n_line) {
			int w = snprintf(out + len, outsz - len, "%s0x%" PRIx64, k ? ";" : "",
					 l->address);

			if (w < 0 || (size_t)w >= outsz - len)
				return;
			len += (size_t)w;
			k++;
		}
	}
}

static int add_signatures(struct psym_stack_result *res, unsigned n, struct psym_err *e)
{
	struct psym_builder *b = NULL;
	char sig[2048];
	int ret = psym_builder_new(res->profile, &b, e);

	for (size_t i = 0; !ret && i < res->ncores; i++) {
		const struct psym_stack_core *sc = &res->cores[i];

		if (!sc->nthreads)
			continue;
		signature_of(res->profile, res->profile->pb->sample[sc->threads[0].sample], n, sig,
			     sizeof(sig));
		for (size_t t = 0; !ret && t < sc->nthreads; t++)
			if (psym_builder_label_str(b,
						   res->profile->pb->sample[sc->threads[t].sample],
						   "signature", sig))
				ret = psym_err_set(e, psym_builder_error(b), "%s",
						   psym_strerror(psym_builder_error(b)));
	}
	psym_builder_free(b);
	return ret;
}

/* The unwound profile symbolized, as a complete profile in res. */
static int symbolize(struct psym_profile *p, const struct core_run *r,
		     const struct psym_limits *lim, struct psym_stack_result *res,
		     struct psym_err *e)
{
	/* The cores' vDSO images found as a profile's [vdso] is (psym_locate_vdso). */
	struct psym_symbolize_opts so = *r->o->so;
	struct psym_locate_opts lo = *so.locate;
	struct psym_lean *lp = NULL;
	int ret = psym_lean_from_profile(p, lim, &lp, e);

	lo.vdso_images = r->vdso_mem;
	lo.n_vdso_images = r->nvdso;
	lo.foreign_paths = true; /* a core's paths are the crashed host's */
	so.locate = &lo;
	if (!ret)
		ret = psym_lean_validate(lp, e);
	if (!ret)
		ret = psym_symbolize(lp, &so, &res->sym, e);
	if (!ret)
		ret = psym_lean_to_profile(lp, lim, &res->profile, e);
	psym_lean_free(lp);
	return ret;
}

/*
 * Each location's address in its file as psym addr -e and addr2line take
 * it (the ELF virtual address: file offset -> its PT_LOAD -> vaddr), from
 * the located file's segments; UINT64_MAX where the file was not found.
 */
static int module_addresses(struct core_run *r, struct psym_stack_result *res)
{
	const struct psym_profile *p = res->profile;
	const pb_profile *pb = p->pb;
	struct psym_err le = { 0 }, *saved = r->e;
	int ret = 0;

	res->module_addr = malloc((pb->n_location ? pb->n_location : 1) * sizeof(uint64_t));
	if (!res->module_addr)
		return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
	r->e = &le; /* a file not found was said already: no address, no error */
	for (size_t i = 0; i < pb->n_location; i++) {
		const pb_location *l = pb->location[i];
		const pb_mapping *m = psym_profile_mapping(p, l->mapping_id);
		char clean[4096];
		struct psym_elf *elf = NULL;
		enum psym_map_class cls;

		res->module_addr[i] = UINT64_MAX;
		if (!m)
			continue;
		cls = psym_objkey_classify(psym_profile_str(p, m->filename), clean, sizeof(clean));
		if (cls == PSYM_MAP_FILE)
			ret = locate_obj(r, cls, clean, psym_profile_str(p, m->build_id), &elf);
		else if (cls == PSYM_MAP_VDSO)
			ret = locate_obj(r, cls, "", psym_profile_str(p, m->build_id), &elf);
		if (ret == PSYM_ENOMEM)
			break;
		ret = 0;
		if (elf && psym_elf_normalize(elf, m->memory_start, m->memory_limit, m->file_offset,
					      l->address, &res->module_addr[i]))
			res->module_addr[i] = UINT64_MAX;
	}
	r->e = saved;
	return ret ? psym_err_set(r->e, ret, "out of memory") : 0;
}

static int run_init(struct core_run *r, const struct psym_stack_opts *o, struct psym_err *e)
{
	size_t max = o->max_frames ? o->max_frames : DEFAULT_MAX_FRAMES;

	r->o = o;
	r->e = e;
	psym_symbolize_locate_opts(o->so, &r->lo);
	r->lo.vdso_images = r->vdso_mem;
	r->lo.foreign_paths = true; /* a core's paths are the crashed host's */
	r->cfil.max_fdes = o->so->limits.cfi_fdes;
	r->cfil.max_steps = o->so->limits.cfi_steps;
	r->budget.sample_steps = o->so->limits.unwind_sample_steps;
	r->budget.run_steps = o->so->limits.unwind_steps;
	psym_cfiset_init(&r->cfis, &r->cfil);
	psym_hashtab_init(&r->map_by_key, 0);
	r->pcs = calloc(max, sizeof(*r->pcs));
	r->locs = calloc(max, sizeof(*r->locs));
	r->objs = psym_objtab_new(MAX_FILES);
	if (r->objs)
		psym_objtab_set_max_held(r->objs, MAX_FILES);
	if (!r->pcs || !r->locs || !r->objs)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	return 0;
}

static void run_free(struct core_run *r)
{
	psym_cfiset_free(&r->cfis);
	psym_hashtab_free(&r->map_by_key);
	psym_builder_free(r->b);
	psym_objtab_free(r->objs);
	free(r->pcs);
	free(r->locs);
	free(r->stack);
	for (size_t i = 0; i < r->nvdso; i++)
		free(r->vdso[i].bytes);
}

int psym_stack_run(const char *const *paths, size_t n, const struct psym_stack_opts *o,
		   const struct psym_limits *lim, struct psym_stack_result *res, struct psym_err *e)
{
	struct core_run r = { 0 };
	int ret;

	memset(res, 0, sizeof(*res));
	res->cores = calloc(n ? n : 1, sizeof(*res->cores));
	if (!res->cores)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	ret = run_init(&r, o, e);
	if (!ret)
		ret = psym_profile_new(lim, &r.p, e);
	if (!ret)
		ret = psym_builder_new(r.p, &r.b, e);
	if (ret)
		goto out;
	if (psym_builder_sample_type(r.b, "threads", "count") ||
	    psym_builder_comment(r.b, "psym stack: one sample per thread of each core, callers "
				      "are recorded as return address - 1")) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct psym_stack_core *sc = &res->cores[res->ncores++];

		ret = add_core(&r, paths[i], sc);
		if (ret)
			goto out;
		if (sc->error)
			res->failed++;
		else if (sc->partial[0])
			res->partial++;
		else
			for (size_t t = 0; t < sc->nthreads; t++)
				/* The frame cap is what was asked for: said, not partial. */
				if (sc->threads[t].stop != PSYM_UNWIND_END &&
				    sc->threads[t].stop != PSYM_UNWIND_DEPTH) {
					res->partial++;
					break;
				}
	}
	psym_builder_free(r.b);
	r.b = NULL;
	if (n == res->failed)
		goto out;
	ret = symbolize(r.p, &r, lim, res, e);
	if (!ret)
		ret = module_addresses(&r, res);
	if (!ret && o->signature)
		ret = add_signatures(res, o->signature, e);
out:
	run_free(&r);
	psym_profile_free(r.p);
	return ret;
}

void psym_stack_result_free(struct psym_stack_result *r)
{
	for (size_t i = 0; i < r->ncores; i++) {
		free(r->cores[i].name);
		free(r->cores[i].error);
		free(r->cores[i].executable);
		free(r->cores[i].threads);
	}
	free(r->cores);
	psym_profile_free(r->profile);
	free(r->module_addr);
	psym_symbolize_result_free(&r->sym);
	memset(r, 0, sizeof(*r));
}
