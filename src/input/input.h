/* SPDX-License-Identifier: MIT */
/*
 * The front door: every kind of input psym reads is one reader in one
 * table (input.c), told apart by its bytes, as pprof's Parse tries the
 * proto and then its list of legacy parsers. A reader says "mine" by
 * content (magic bytes first, then content) and turns the file into what
 * every command works on: a profile with samples, locations and mappings,
 * plus what the driver needs beside it (stack copies to unwind first;
 * state to write the same format back). The caller never knows which
 * reader answered; a file no reader takes gets one line saying what it
 * looks like ("an ELF core file", "gzip of an ELF file", ...).
 *
 * A new kind of input is one file (in_KIND.c) with its psym_input_kind,
 * and one line in input.c's table (doc/DESIGN.md, "A new input").
 *
 * Layer 3: readers may use the pprof builder, the collector's profile
 * builder (collect/collectprof.h) and the unwinder's record types.
 */
#ifndef PSYM_INPUT_H
#define PSYM_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lean.h"
#include "pprof.h"
#include "ustacks.h"

struct psym_input_kind;

/*
 * Delivers an input's stack copies (perf's --call-graph dwarf samples,
 * psym-collect's ustacks.gz) to ops, in file order, as psym_ustacks_read()
 * does: PROCESS records before the samples they cover. Returns 0, fn's
 * nonzero return, or a negative code with e set.
 */
typedef int (*psym_input_stacks_fn)(void *ud, const struct psym_ustacks_reader_ops *ops,
				    void *ops_ud, struct psym_err *e);

/* What one input file became. Freed with psym_input_free(). */
struct psym_input {
	const struct psym_input_kind *kind; /* the reader that took it */
	char *name;			    /* the file as named in messages ("<stdin>") */
	/*
	 * The profile (owned). With PSYM_INPUT_LEAN, lean is set instead
	 * (pprof is read lean; other kinds are converted); not validated.
	 */
	struct psym_profile *profile;
	struct psym_lean *lean;
	/*
	 * Stack copies to unwind before symbolizing, or NULL. The profile
	 * then carries PSYM_USTACKS_COMMENT (unwindprof.h) and the samples
	 * the copies replace.
	 */
	psym_input_stacks_fn stacks;
	void *stacks_ud; /* the reader's; freed with state */
	/* The reader's own (kind->free_state frees it with stacks_ud). */
	void *state;
	/*
	 * The file was read in part: a reader that meets a bad record after
	 * good ones returns 0 with this set (the one line naming the file and
	 * the first bad record's offset) and the profile of what came before:
	 * nothing read is lost, and the drivers say it and exit 1.
	 */
	struct psym_err partial;
	/*
	 * The file's bytes (a private copy, never a mapping), gzip undone:
	 * input.c's. Or, for a kind that read it by descriptor (read_fd),
	 * buf NULL and fd the file, open until psym_input_free (else -1).
	 */
	unsigned char *buf;
	size_t len;
	int fd;
};

enum {
	PSYM_INPUT_LEAN = 1 << 0, /* pprof read lean (symbolize), others converted */
};

struct psym_input_kind {
	const char *name; /* "pprof", "legacy", "perf.data", "otlp": messages, --explain, results */
	/*
	 * Whether buf is this kind's: the first len bytes (at most the whole
	 * file, gzip undone). By content only; no allocation.
	 */
	bool (*sniff)(const unsigned char *buf, size_t len);
	/*
	 * Read buf[len] (the whole file, gzip undone, read-only, alive until
	 * psym_input_free) into in->profile (and in->stacks, in->state);
	 * in->name names the file in messages. was_gzip: the file was gzip.
	 * 0, or a negative code with e naming the file and the first bad
	 * record. flags: PSYM_INPUT_*; a reader may set in->lean itself.
	 */
	int (*read)(const unsigned char *buf, size_t len, bool was_gzip, unsigned flags,
		    const struct psym_limits *lim, struct psym_input *in, struct psym_err *e);
	/*
	 * Optional: the same from a regular file that is not gzip, open at fd
	 * (size bytes; borrowed: open until psym_input_free), whose first
	 * hlen bytes head this kind's sniff took, read without holding the
	 * file whole (pread; never a mapping). 1: not this way (the file is
	 * then read whole and given to read).
	 */
	int (*read_fd)(int fd, uint64_t size, const unsigned char *head, size_t hlen,
		       unsigned flags, const struct psym_limits *lim, struct psym_input *in,
		       struct psym_err *e);
	/*
	 * Optional: write p (this input's profile, symbolized) to fp in this
	 * kind's own format, keeping what the reader kept in in->state. NULL:
	 * the kind is written as pprof.
	 */
	int (*write)(const struct psym_input *in, const struct psym_profile *p, FILE *fp,
		     const char *name, struct psym_err *e);
	void (*free_state)(void *state, void *stacks_ud);
};

/* The kinds, in the order they are tried; the last is pprof's protobuf. */
const struct psym_input_kind *const *psym_input_kinds(size_t *n);

/* The kind named name ("pprof", "otlp", ...), or NULL. */
const struct psym_input_kind *psym_input_kind_named(const char *name);

/*
 * Read path ("-": stdin, pipes) as whatever it is, within lim->max_input
 * bytes (--max-input-size); gzip is undone within lim->max_profile. The
 * bytes are a private copy, never a mapping of the file (one that is
 * truncated while read would kill psym with SIGBUS). A regular file of a
 * kind with read_fd (perf.data) is read by descriptor instead, not held
 * whole and so not under --max-input-size. A file no reader
 * takes: PSYM_EBADINPUT naming the file and what it looks like. *out is
 * the caller's (psym_input_free).
 */
int psym_input_read(const char *path, unsigned flags, const struct psym_limits *lim,
		    struct psym_input **out, struct psym_err *e);

/* The same from bytes in memory (copied when needed: buf is the caller's). */
int psym_input_parse(const unsigned char *buf, size_t len, const char *name, unsigned flags,
		     const struct psym_limits *lim, struct psym_input **out, struct psym_err *e);

/*
 * psym_input_read() for a caller that wants the profile alone (reports,
 * merge, show): *out is the caller's, not validated. Stack copies an
 * input carries are not unwound here (symbolize does that). A file read
 * in part gives 0 with e->code set (in->partial's line): warn, go on.
 */
int psym_input_read_profile(const char *path, const struct psym_limits *lim,
			    struct psym_profile **out, struct psym_err *e);

/*
 * Take the profile, or with PSYM_INPUT_LEAN the lean profile, out of in:
 * the caller then owns it (not validated).
 */
struct psym_profile *psym_input_take_profile(struct psym_input *in);
struct psym_lean *psym_input_take_lean(struct psym_input *in);

void psym_input_free(struct psym_input *in);

#endif
