/* SPDX-License-Identifier: MIT */
/*
 * An answer source on its own (resolve_source.h): a file that maps
 * addresses to functions and lines without the binary it describes (a
 * GSYM file named alone), answering as a resolver. Its addresses are the
 * file's own (ELF virtual addresses of the binary it was made from).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary.h"
#include "objtab.h"
#include "resolve_source.h"
#include "source.h"

struct source_resolver {
	struct psym_resolver base;
	const struct psym_source_ops *ops;
	void *src;
	struct psym_binary_opts bo; /* what the source is opened with: nothing named */
	char note[1024];	    /* why it could not be opened */
	struct psym_objtab_try tried[4];
	size_t ntried;
};

static struct source_resolver *from(struct psym_resolver *r)
{
	return (struct source_resolver *)r;
}

static void record(struct source_resolver *s, bool used, enum psym_tryrole role, const char *path,
		   const char *verdict, unsigned flags)
{
	struct psym_objtab_try *t;

	if (s->ntried == sizeof(s->tried) / sizeof(s->tried[0]))
		return;
	t = &s->tried[s->ntried];
	*t = (struct psym_objtab_try){ .path = strdup(path),
				       .verdict = strdup(verdict ? verdict : ""),
				       .role = role,
				       .used = used,
				       .flags = flags };
	if (!t->path || !t->verdict) {
		free(t->path);
		free(t->verdict);
		return;
	}
	s->ntried++;
}

static void env_tried(void *ud, enum psym_tryrole role, const char *path,
		      const struct psym_reason *why)
{
	record(ud, false, role, path, psym_reason_text(why), 0);
}

static void env_used(void *ud, enum psym_tryrole role, const char *path, const char *detail,
		     unsigned flags)
{
	record(ud, true, role, path, detail, flags);
}

static void env_note(void *ud, const char *msg, bool replace)
{
	struct source_resolver *s = ud;

	if (replace || !s->note[0])
		snprintf(s->note, sizeof(s->note), "%s", msg);
}

static int src_to_vaddr(struct psym_resolver *r, const struct psym_mapinfo *m, uint64_t addr,
			uint64_t *vaddr)
{
	(void)r;
	(void)m;
	*vaddr = addr;
	return 0;
}

static int src_lookup(struct psym_resolver *r, const struct psym_lookup_ctx *ctx, uint64_t vaddr,
		      struct psym_frames *out, struct psym_reason *why)
{
	struct source_resolver *s = from(r);
	struct psym_err e = { 0 };

	(void)ctx;
	if (s->ops->lookup(s->src, vaddr, out->f, PSYM_MAX_FRAMES, &out->n, &e) != 0) {
		out->n = 0;
		psym_reason_set(why, PSYM_R_BAD_FILE, "%s", e.msg);
		return PSYM_NOENT;
	}
	return out->n ? 0 : PSYM_NOENT;
}

static void src_describe(struct psym_resolver *r, struct psym_resdesc *d)
{
	struct source_resolver *s = from(r);
	struct psym_resitem it = { 0 };

	s->ops->describe(s->src, &it);
	psym_resdesc_add(d, &(struct psym_resitem){ .role = PSYM_RES_BINARY, .path = it.path });
	psym_resdesc_add(d, &it);
	if (s->ntried)
		psym_resdesc_add(d, &(struct psym_resitem){ .role = PSYM_RES_TRIED,
							    .tried = s->tried,
							    .ntried = s->ntried });
}

static void src_destroy(struct psym_resolver *r)
{
	struct source_resolver *s = from(r);

	if (s->src)
		s->ops->close(s->src);
	for (size_t i = 0; i < s->ntried; i++) {
		free(s->tried[i].path);
		free(s->tried[i].verdict);
	}
	free(s);
}

static const struct psym_resolver_ops source_ops = {
	.kind = "source",
	.to_vaddr = src_to_vaddr,
	.lookup = src_lookup,
	.describe = src_describe,
	.destroy = src_destroy,
};

int psym_source_resolver_new(const char *option, const char *path, struct psym_resolver **out,
			     struct psym_err *e)
{
	const struct psym_source_ops *ops = psym_source_by_option(option);
	struct source_resolver *s;
	struct psym_source_env env;

	*out = NULL;
	if (!ops || !ops->open_named || !ops->alone)
		return psym_err_set(e, PSYM_EUSAGE, "--%s: this source needs the binary (-e FILE)",
				    option);
	s = calloc(1, sizeof(*s));
	if (!s)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	s->base.ops = &source_ops;
	s->ops = ops;
	env = (struct psym_source_env){
		.o = &s->bo, .tried = env_tried, .used = env_used, .note = env_note, .ud = s
	};
	if (ops->open_named(&env, path, &s->src) != 0) {
		if (s->note[0] && strstr(s->note, path))
			psym_err_set(e, PSYM_EBADINPUT, "%s", s->note);
		else
			psym_err_set(e, PSYM_EBADINPUT, "'%s': %s", path,
				     s->note[0] ? s->note : "cannot be read");
		src_destroy(&s->base);
		return PSYM_EBADINPUT;
	}
	*out = &s->base;
	return 0;
}
