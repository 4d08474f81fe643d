/* SPDX-License-Identifier: MIT */
/* What the commands share: messages, exit codes, limits, lists, paths. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

const char *progname = "psym";

/* One line, as every error of psym's: what is wrong, then where help is. */
void die_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see '%s %s--help')\n", progname, cmd ? cmd : "");
	exit(PSYM_EXIT_BADINPUT);
}

void die_bad_option(const char *cmd, char **argv, const char *shortopts)
{
	char msg[200];

	/* getopt's own messages are off (opterr = 0, main.c): this is the one line. */
	psym_bad_option_text(msg, sizeof(msg), argv, shortopts);
	die_usage(cmd, "%s", msg);
}

int report(const struct psym_err *e, int code)
{
	/* A write error because standard output's reader went away: finish_stdout's, silent. */
	if (code == PSYM_EIO && stdout_state() > 0)
		return PSYM_EXIT_OK;
	fprintf(stderr, "%s: %s\n", progname, e->msg[0] ? e->msg : psym_strerror(code));
	return psym_exit_code(code);
}

/*
 * Flush standard output: 0 when everything was written, 1 when it failed
 * because its reader went away (EPIPE: `psym folded f | head -1`), -1 on
 * any other write error (errno says which). A reader that went away is no
 * error for a filter: the command stops and exits 0 without a message,
 * like coreutils. SIGPIPE is ignored (so that an interrupted writer can
 * still clean up), hence the look at errno and, in case errno went stale,
 * at the pipe itself.
 */
int stdout_state(void)
{
	struct pollfd pfd = { .fd = STDOUT_FILENO };
	int err;

	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	err = errno;
	if (err == EPIPE || (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR)))
		return 1;
	errno = err;
	return -1;
}

/*
 * The one end of every command (main.c), whatever it wrote to standard
 * output and how: the output flushed; a reader that went away is exit 0 and
 * no message, whatever the command returned (it may have seen the write
 * fail); another write error is one message and exit 3, unless the command
 * ended with a system error it said already. Commands leave standard
 * output's errors to this.
 */
static bool partial_input;

void input_partial(const char *msg)
{
	fprintf(stderr, "%s: %s: the records before it were read\n", progname, msg);
	partial_input = true;
}

int finish_stdout(int code)
{
	int c = stdout_state();

	if (c > 0)
		return PSYM_EXIT_OK;
	if (c < 0 && code != PSYM_EXIT_SYSTEM) {
		fprintf(stderr, "%s: cannot write to standard output: %s\n", progname,
			strerror(errno));
		return PSYM_EXIT_SYSTEM;
	}
	return code == PSYM_EXIT_OK && partial_input ? PSYM_EXIT_PARTIAL : code;
}

/* Parse a byte size with optional K/M/G suffix (powers of 1024). */
bool parse_size(const char *s, size_t *out)
{
	unsigned long long v;

	if (!psym_parse_size(s, &v) || v > SIZE_MAX)
		return false;
	*out = (size_t)v;
	return true;
}

bool limit_option(int c, const char *arg, struct psym_limits *lim, const char *cmd)
{
	size_t *dst;

	switch (c) {
	case OPT_MAX_INPUT: dst = &lim->max_input; break;
	case OPT_MAX_PROFILE: dst = &lim->max_profile; break;
	case OPT_MAX_MEMORY: dst = &lim->max_memory; break;
	default: return false;
	}
	if (!parse_size(arg, dst))
		die_usage(cmd, "invalid size '%s'", arg);
	return true;
}

/* Read and validate; prints the error and returns an exit code on failure. */
int load(const char *path, const struct psym_limits *lim, struct psym_profile **p)
{
	struct psym_err e = { 0 };
	int ret = psym_profile_load(path, lim, p, &e);

	if (ret)
		return report(&e, ret);
	if (e.code)
		input_partial(e.msg); /* read in part: said, and exit 1 at the end */
	return 0;
}

struct psym_session *session_new(void)
{
	struct psym_session *s = psym_session_new();

	if (!s) {
		fprintf(stderr, "%s: out of memory\n", progname);
		exit(PSYM_EXIT_SYSTEM);
	}
	return s;
}

bool session_option(struct psym_session *s, const struct option *opts, int c, const char *arg,
		    const char *cmd)
{
	struct psym_err e = { 0 };
	int ret;

	for (; opts->name; opts++) {
		if (opts->flag || opts->val != c)
			continue;
		if (!strcmp(opts->name, "limit") && arg && !strcmp(arg, "help")) {
			psym_session_print_limits(s, stdout);
			exit(PSYM_EXIT_OK);
		}
		ret = psym_session_set(s, opts->name, arg, &e);
		if (ret == PSYM_NOENT)
			return false;
		if (ret == PSYM_EUSAGE)
			die_usage(cmd, "%s", e.msg);
		if (ret)
			exit(report(&e, ret));
		return true;
	}
	return false;
}

struct psym_out *volatile active_out;

bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void on_signal(int sig)
{
	struct psym_out *o = active_out;

	if (o && o->tmp)
		unlink(o->tmp);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Append one string to *list, taking ownership of it (freed if it cannot be kept). */
void add_owned(char *s, const char ***list, size_t *n)
{
	const char **nl = s ? realloc(*list, (*n + 1) * sizeof(**list)) : NULL;

	if (!nl) {
		free(s);
		return;
	}
	*list = nl;
	(*list)[(*n)++] = s;
}

/* Append one strdup'd string (URLs and file names may contain ':'). */
void add_one(const char *arg, const char ***list, size_t *n)
{
	add_owned(strdup(arg), list, n);
}

/* A whole decimal number in [lo, hi], or a usage error naming what it is. */
long parse_long_arg(const char *cmd, const char *arg, long lo, long hi, const char *what)
{
	struct psym_err e = { 0 };
	long v;

	if (psym_parse_whole(arg, lo, hi, what, &v, &e))
		die_usage(cmd, "%s", e.msg);
	return v;
}

void free_list(const char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)list[i]);
	free(list);
}
