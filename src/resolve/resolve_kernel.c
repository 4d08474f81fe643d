/* SPDX-License-Identifier: MIT */
/*
 * The kernel resolver: a vmlinux with DWARF first (lines, inline frames),
 * relocated by the KASLR slide, else the kallsyms copy.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmods.h"
#include "kallsyms.h"
#include "sidenames.h"
#include "objtab.h"
#include "resolvers.h"

struct kernel_resolver {
	struct psym_resolver base;
	struct psym_resolver *vmlinux; /* a file resolver (cached like any file), NULL: none */
	char *vmlinux_path;
	uint64_t vmlinux_text; /* its link-time _text */
	struct psym_reason vmlinux_why;
	const struct psym_kallsyms *ks; /* NULL: none */
	struct psym_kallsyms *own_ks;	/* ks when this resolver parsed it alone */
	struct psym_kallsyms *dyn;	/* the profile's kallsyms.dyn beside a shared copy */
	struct psym_reason ks_why;
	char ks_path[4200];
	bool modules;
	struct psym_kmods *kmods; /* module frames' lines; NULL without kallsyms */
	/* Its entry, where the files tried are recorded for --explain (objtab.h). */
	struct psym_objtab *t;
	struct psym_located *x;
};

static struct kernel_resolver *from(struct psym_resolver *r)
{
	return (struct kernel_resolver *)r;
}

static int kernel_to_vaddr(struct psym_resolver *r, const struct psym_mapinfo *m, uint64_t addr,
			   uint64_t *vaddr)
{
	(void)r;
	(void)m;
	*vaddr = addr; /* kernel addresses are looked up as they ran */
	return 0;
}

/*
 * Where the profiled kernel's _text was at run time (KASLR): from the
 * kallsyms copy, else from the kernel mapping (perf and psym-collect put
 * _text at memory_start, perf's "[kernel.kallsyms]_text" may carry it in
 * file_offset). 0 when unknown.
 */
static uint64_t runtime_text(const struct kernel_resolver *k, const struct psym_mapinfo *m)
{
	if (k->ks && psym_kallsyms_text_addr(k->ks))
		return psym_kallsyms_text_addr(k->ks);
	if (!m)
		return 0;
	if (m->file_offset >= 0xffff000000000000ULL)
		return m->file_offset;
	/* psym-collect's fallback start when it could not read _text. */
	if (m->start == 0xffff800000000000ULL)
		return 0;
	return m->start;
}

/* The shared copy and the profile's own dynamic lines: the nearer symbol below addr. */
static int ks_lookup(const struct kernel_resolver *k, uint64_t addr, struct psym_frame *f)
{
	struct psym_frame df;
	uint64_t s = 0, ds = 0;
	int ret = psym_kallsyms_lookup_start(k->ks, addr, f, &s);

	if (k->dyn && psym_kallsyms_lookup_start(k->dyn, addr, &df, &ds) == 0 &&
	    (ret != 0 || ds > s)) {
		*f = df;
		ret = 0;
	}
	return ret;
}

static int kernel_lookup(struct psym_resolver *r, const struct psym_lookup_ctx *ctx, uint64_t addr,
			 struct psym_frames *out, struct psym_reason *why)
{
	struct kernel_resolver *k = from(r);
	uint64_t rt = k->vmlinux ? runtime_text(k, ctx->map) : 0;

	if (k->vmlinux && rt) {
		int ret = psym_resolver_lookup(k->vmlinux, ctx, addr - rt + k->vmlinux_text, out,
					       why);

		if (ret != PSYM_NOENT)
			return ret;
	}
	if (!k->ks) {
		if (k->vmlinux && !rt)
			psym_reason_set(why, PSYM_R_KASLR_UNKNOWN,
					"runtime _text unknown (KASLR): give --kallsyms");
		else if (!k->vmlinux && !k->modules)
			psym_reason_set(why, PSYM_R_NO_KALLSYMS, "%s; %s",
					psym_reason_text(&k->ks_why),
					psym_reason_text(&k->vmlinux_why));
		else
			*why = k->ks_why;
		return PSYM_NOENT;
	}
	if (ks_lookup(k, addr, &out->f[0]) != 0) {
		psym_reason_set(why, PSYM_R_NO_SYMBOL, NULL);
		return PSYM_NOENT;
	}
	out->n = 1;
	/* A module's function ("[ext4]"): its .ko's lines and inline frames. */
	if (out->f[0].file && out->f[0].file[0] == '[') {
		char mod[256];
		size_t len = strlen(out->f[0].file);
		size_t n;

		if (len > 2 && len - 2 < sizeof(mod) && out->f[0].file[len - 1] == ']') {
			memcpy(mod, out->f[0].file + 1, len - 2);
			mod[len - 2] = '\0';
			n = psym_kmods_resolve(k->kmods, mod, addr, out->f, PSYM_MAX_FRAMES);
			if (n) {
				for (size_t i = 0; i < n; i++)
					if (!out->f[i].name)
						out->f[i].name = "";
				out->n = n;
			} else {
				psym_kallsyms_lookup(k->ks, addr, &out->f[0]);
			}
		}
	}
	return 0;
}

/* The kernel's files: vmlinux and kallsyms, or why neither was found. */
static void kernel_describe(struct psym_resolver *r, struct psym_resdesc *d)
{
	struct kernel_resolver *k = from(r);

	if (k->vmlinux) {
		struct psym_resdesc v = { .flags = PSYM_RESDESC_NO_NOTE |
						   PSYM_RESDESC_KEEP_WARNING };

		psym_resdesc_add(d, &(struct psym_resitem){ .role = PSYM_RES_VMLINUX,
							    .path = k->vmlinux_path });
		/*
		 * The files tried for the entry (its kallsyms, modules, and what
		 * vmlinux's lookups tried: split DWARF of a kernel built so), which
		 * vmlinux's describe hands out: the same entry.
		 */
		psym_resolver_describe(k->vmlinux, &v);
		for (size_t i = 0; i < v.n; i++)
			if (v.item[i].role == PSYM_RES_TRIED)
				psym_resdesc_add(d, &v.item[i]);
	} else {
		struct psym_resitem tried = { .role = PSYM_RES_TRIED };

		psym_objtab_news(k->t, k->x, &tried.tried, &tried.ntried, &tried.lost);
		if (tried.ntried || tried.lost)
			psym_resdesc_add(d, &tried);
	}
	if (k->ks || !k->vmlinux)
		psym_resdesc_add(d, &(struct psym_resitem){ .role = PSYM_RES_KALLSYMS,
							    .flags = k->ks ? PSYM_RESITEM_USED : 0,
							    .path = k->ks ? k->ks_path : NULL,
							    .why = k->ks ? NULL : &k->ks_why });
}

static void kernel_destroy(struct psym_resolver *r)
{
	struct kernel_resolver *k = from(r);

	psym_resolver_free(k->vmlinux);
	free(k->vmlinux_path);
	psym_kmods_free(k->kmods);
	psym_kallsyms_free(k->own_ks);
	psym_kallsyms_free(k->dyn);
	free(k);
}

/* The run is over: vmlinux's resolver saves its answers and runs its policy. */
static void kernel_finish(struct psym_resolver *r)
{
	psym_resolver_finish(from(r)->vmlinux);
}

static const struct psym_resolver_ops kernel_ops = {
	.kind = "kernel",
	.to_vaddr = kernel_to_vaddr,
	.lookup = kernel_lookup,
	.describe = kernel_describe,
	.finish = kernel_finish,
	.destroy = kernel_destroy,
};

/*
 * k->ks_path's table: a content-addressed copy (kallsyms-BOOT-SHA.zst) has
 * its content checked against its name, and with a batch's cache is
 * parsed once for every run of that boot; any other is this run's own.
 */
static int open_kallsyms(struct kernel_resolver *k, struct psym_kallsyms_cache *c,
			 const struct psym_reader_limits *lim, bool *parsed, struct psym_err *e)
{
	const char *base = strrchr(k->ks_path, '/');
	char boot[40], sha[65];
	bool named = psym_side_kallsyms_id(base ? base + 1 : k->ks_path, boot, sha);
	int ret;

	*parsed = true;
	if (named && c) {
		ret = psym_kallsyms_cache_get(c, boot, sha, k->ks_path, lim->kallsyms_symbols,
					      lim->kallsyms_bytes, &k->ks, parsed, e);
		if (ret != PSYM_NOENT)
			return ret;
	}
	ret = psym_kallsyms_open_sha(k->ks_path, named ? sha : NULL, lim->kallsyms_symbols,
				     lim->kallsyms_bytes, &k->own_ks, e);
	k->ks = k->own_ks;
	return ret;
}

/* A kernel symbol file not used, and why, for --explain. */
static void ks_refused(const struct kernel_resolver *k, const char *path, const struct psym_err *e)
{
	struct psym_reason why = { 0 };

	psym_reason_set(&why, PSYM_R_BAD_FILE, "%s", e->msg);
	psym_objtab_tried(k->t, k->x, PSYM_TRY_KALLSYMS, path, &why);
}

/* Beside a shared copy, the profile's lines that change while the kernel runs. */
static void open_dyn(struct kernel_resolver *k, const struct psym_reader_limits *lim)
{
	const char *base = strrchr(k->ks_path, '/');
	char boot[40], sha[65], path[4300], dir[4200];
	struct psym_err le = { 0 };
	const char *why;

	if (!base || !psym_side_kallsyms_id(base + 1, boot, sha) ||
	    (size_t)snprintf(path, sizeof(path), "%.*s/" PSYM_SIDE_KALLSYMS_DYN,
			     (int)(base - k->ks_path), k->ks_path) >= sizeof(path))
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(base - k->ks_path), k->ks_path);
	if (psym_side_file_refused(dir, path, &why)) {
		psym_err_set(&le, PSYM_EBADINPUT, "'%s': refused: %s", path, why);
		ks_refused(k, path, &le);
		return;
	}
	if (psym_kallsyms_open(path, lim->kallsyms_symbols, lim->kallsyms_bytes, &k->dyn, &le))
		ks_refused(k, path, &le);
}

int psym_kernel_resolver_new(struct psym_objtab *t, struct psym_located *x,
			     const struct psym_locate_opts *lo, const struct psym_binary_opts *bo,
			     const struct psym_reader_limits *lim, const struct psym_skipped *sk,
			     struct psym_resolver **out, struct psym_err *e)
{
	struct kernel_resolver *k = calloc(1, sizeof(*k));
	struct psym_err le = { 0 };
	int ret = 0;

	if (!k)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	k->base.ops = &kernel_ops;
	k->modules = x->cls == PSYM_MAP_KMODULE;
	k->t = t;
	k->x = x;
	if (!k->modules) {
		/* The vmlinux the plan located (its DWARF through the same entry). */
		ret = psym_file_resolver_open(t, x, &lim->elf, bo, "file", &k->vmlinux,
					      &k->vmlinux_why, &le);
		if (ret < 0) {
			/* Not opened (again): kallsyms answers, as without one. */
			psym_reason_set(&k->vmlinux_why, PSYM_R_BAD_FILE, "%s", le.msg);
			k->vmlinux = NULL;
		} else if (ret == 0) {
			k->vmlinux_text = x->text;
			k->vmlinux_path = strdup(x->file);
			if (!k->vmlinux_path) {
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
				goto fail;
			}
		}
		ret = 0;
	}
	if (psym_objtab_kallsyms(t, x, k->ks_path, sizeof(k->ks_path), &k->ks_why) == 0) {
		bool parsed = true;

		if (open_kallsyms(k, bo->kallsyms_cache, lim, &parsed, &le) != 0) {
			psym_reason_set(&k->ks_why, PSYM_R_BAD_FILE, "%s", le.msg);
			ks_refused(k, k->ks_path, &le);
			k->ks = NULL;
		} else {
			if (parsed && psym_kallsyms_malformed(k->ks) && sk && sk->fn)
				sk->fn(sk->ud, k->ks_path, psym_kallsyms_malformed(k->ks), false);
			psym_objtab_used(t, x, PSYM_TRY_KALLSYMS, k->ks_path, NULL,
					 !parsed			  ? PSYM_TRY_PARSED_BEFORE
					 : psym_kallsyms_is_subset(k->ks) ? PSYM_TRY_SUBSET
									  : 0);
			open_dyn(k, lim);
			ret = psym_kmods_new(t, x, lo, bo, k->ks, &k->kmods, e);
			if (ret)
				goto fail;
		}
	}
	*out = &k->base;
	return 0;
fail:
	kernel_destroy(&k->base);
	return ret;
}
