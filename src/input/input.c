/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "input.h"
#include "looks.h"

/* The readers, one file each (in_*.c). */
extern const struct psym_input_kind psym_input_legacy, psym_input_pprof, psym_input_otlp,
	psym_input_perf;

/*
 * The table: tried in order, the first whose sniff says "mine" reads the
 * file. Magic bytes first; pprof's protobuf, which has none, last.
 */
static const struct psym_input_kind *const kinds[] = {
	&psym_input_legacy,
	&psym_input_perf,
	&psym_input_otlp,
	&psym_input_pprof,
};

const struct psym_input_kind *const *psym_input_kinds(size_t *n)
{
	*n = sizeof(kinds) / sizeof(kinds[0]);
	return kinds;
}

const struct psym_input_kind *psym_input_kind_named(const char *name)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i]->name, name))
			return kinds[i];
	return NULL;
}

void psym_input_free(struct psym_input *in)
{
	if (!in)
		return;
	if (in->kind && in->kind->free_state && (in->state || in->stacks_ud))
		in->kind->free_state(in->state, in->stacks_ud);
	psym_profile_free(in->profile);
	psym_lean_free(in->lean);
	if (in->fd >= 0)
		close(in->fd);
	free(in->buf);
	free(in->name);
	free(in);
}

struct psym_profile *psym_input_take_profile(struct psym_input *in)
{
	struct psym_profile *p = in->profile;

	in->profile = NULL;
	return p;
}

struct psym_lean *psym_input_take_lean(struct psym_input *in)
{
	struct psym_lean *lp = in->lean;

	in->lean = NULL;
	return lp;
}

/* Which kind reads msg: the first to say "mine", or NULL with e set. */
static const struct psym_input_kind *sniff(const unsigned char *msg, size_t len, bool was_gzip,
					   const char *name, struct psym_err *e)
{
	const char *what;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i]->sniff(msg, len))
			return kinds[i];
	what = psym_input_looks_like(msg, len);
	psym_err_set(e, PSYM_EBADINPUT, "'%s': not a profile psym reads: %s%s", name,
		     was_gzip ? "gzip of " : "", what ? what : "unknown content");
	return NULL;
}

/* The profile read made lean when flags ask for it. */
static int to_lean(struct psym_input *in, unsigned flags, const struct psym_limits *lim,
		   struct psym_err *e)
{
	int ret;

	if ((flags & PSYM_INPUT_LEAN) && !in->lean && in->profile) {
		ret = psym_lean_from_profile(in->profile, lim, &in->lean, e);
		if (ret)
			return ret;
		psym_profile_free(in->profile);
		in->profile = NULL;
	}
	return 0;
}

/*
 * Read in->buf (owned by in, gzip not yet undone) with the kind that
 * takes it; the profile is converted to lean when flags ask for it.
 */
static int read_owned(struct psym_input *in, unsigned flags, const struct psym_limits *lim,
		      struct psym_err *e)
{
	bool was_gzip = false;
	int ret;

	if (in->len == 0)
		return psym_err_set(e, PSYM_EBADPROTO, "'%s': empty file", in->name);
	if (psym_is_gzip(in->buf, in->len)) {
		unsigned char *raw = NULL;
		size_t rawlen = 0;

		ret = psym_gunzip(in->buf, in->len, lim->max_profile, in->name, &raw, &rawlen, e);
		if (ret)
			return ret;
		free(in->buf);
		in->buf = raw;
		in->len = rawlen;
		was_gzip = true;
	}
	in->kind = sniff(in->buf, in->len, was_gzip, in->name, e);
	if (!in->kind)
		return e->code;
	ret = in->kind->read(in->buf, in->len, was_gzip, flags, lim, in, e);
	return ret ? ret : to_lean(in, flags, lim, e);
}

static int input_new(const char *name, struct psym_input **out, struct psym_err *e)
{
	struct psym_input *in = calloc(1, sizeof(*in));

	*out = NULL;
	if (!in || !(in->name = strdup(name))) {
		free(in);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	in->fd = -1;
	*out = in;
	return 0;
}

/* Bytes sniffed of a file read by descriptor. */
#define HEAD_SIZE 65536

/*
 * path, when it is a regular file that is not gzip and a kind with
 * read_fd takes its first bytes: read by that kind by descriptor. 1: not
 * so (read it whole); else what the kind returned.
 */
static int read_by_fd(const char *path, struct psym_input *in, unsigned flags,
		      const struct psym_limits *lim, struct psym_err *e)
{
	unsigned char *head = NULL;
	struct psym_err ignored = { 0 };
	struct stat st;
	ssize_t n = 0;
	int fd, ret = 1;

	/*
	 * Not a FIFO opened and closed here: that would drop what its writer
	 * put in it (psym_open_input opens it once, blocking).
	 */
	if (!strcmp(path, "-") || stat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (fd = psym_open_regular(path, &ignored)) < 0)
		return 1; /* the whole-file read says what is wrong */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    !(head = malloc(HEAD_SIZE)))
		goto out;
	do
		n = pread(fd, head, HEAD_SIZE, 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0 || psym_is_gzip(head, (size_t)n))
		goto out;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !in->kind; i++)
		if (kinds[i]->sniff(head, (size_t)n))
			in->kind = kinds[i];
	if (!in->kind || !in->kind->read_fd) {
		in->kind = NULL;
		goto out;
	}
	in->fd = fd;
	fd = -1;
	ret = in->kind->read_fd(in->fd, (uint64_t)st.st_size, head, (size_t)n, flags, lim, in, e);
	if (ret == 1) {
		close(in->fd);
		in->fd = -1;
		in->kind = NULL;
	} else if (!ret) {
		ret = to_lean(in, flags, lim, e);
	}
out:
	if (fd >= 0)
		close(fd);
	free(head);
	return ret;
}

static int finish(struct psym_input *in, int ret, struct psym_input **out)
{
	if (ret) {
		psym_input_free(in);
		return ret;
	}
	*out = in;
	return 0;
}

int psym_input_read(const char *path, unsigned flags, const struct psym_limits *limp,
		    struct psym_input **out, struct psym_err *e)
{
	struct psym_limits lim = psym_limits_or_default(limp);
	struct psym_input *in;
	int ret;

	ret = input_new(strcmp(path, "-") ? path : "<stdin>", &in, e);
	if (ret)
		return ret;
	ret = read_by_fd(path, in, flags, &lim, e);
	if (ret != 1)
		return finish(in, ret, out);
	ret = psym_read_input_cap(path, lim.max_input, "--max-input-size N", &in->buf, &in->len, e);
	if (!ret)
		ret = read_owned(in, flags, &lim, e);
	return finish(in, ret, out);
}

int psym_input_parse(const unsigned char *buf, size_t len, const char *name, unsigned flags,
		     const struct psym_limits *limp, struct psym_input **out, struct psym_err *e)
{
	struct psym_limits lim = psym_limits_or_default(limp);
	struct psym_input *in;
	int ret;

	ret = input_new(name, &in, e);
	if (ret)
		return ret;
	in->buf = malloc(len ? len : 1);
	if (!in->buf)
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	else {
		memcpy(in->buf, buf, len);
		in->len = len;
		ret = read_owned(in, flags, &lim, e);
	}
	return finish(in, ret, out);
}

int psym_input_read_profile(const char *path, const struct psym_limits *lim,
			    struct psym_profile **out, struct psym_err *e)
{
	struct psym_input *in = NULL;
	int ret = psym_input_read(path, 0, lim, &in, e);

	*out = ret ? NULL : psym_input_take_profile(in);
	if (!ret && in->partial.code)
		*e = in->partial;
	psym_input_free(in);
	return ret;
}

int psym_profile_load(const char *path, const struct psym_limits *lim, struct psym_profile **out,
		      struct psym_err *e)
{
	struct psym_err partial = { 0 };
	int ret = psym_input_read_profile(path, lim, out, &partial);

	if (ret) {
		*e = partial;
		return ret;
	}
	ret = psym_profile_validate(*out, e);
	if (ret) {
		psym_err_prefix(e, "'%s': invalid profile", strcmp(path, "-") ? path : "<stdin>");
		psym_profile_free(*out);
		*out = NULL;
		return ret;
	}
	if (partial.code)
		*e = partial;
	return 0;
}
