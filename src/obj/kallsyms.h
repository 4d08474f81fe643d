/* SPDX-License-Identifier: MIT */
/*
 * Kernel symbols from a copy of /proc/kallsyms ("ADDR TYPE NAME [MODULE]"),
 * taken where the profile was collected. Text symbols only (t, T, w, W),
 * module symbols included; each extends to the next symbol. Streaming
 * parse with a fixed line buffer; entries capped. A copy whose addresses
 * are all zero (read without privileges) is an error, not an empty table.
 *
 * A subset copy (psym-collect's default, psym_kallsyms_subset) holds only
 * what a profile's addresses need, and says what it leaves out:
 *
 *   psym-kallsyms-subset 1          first line, exactly
 *   ffffffff81000000 = _text        at most one, before the symbols: KASLR base
 *   ffffffff810a1b20 t schedule     a symbol: it answers up to the next line
 *   ffffffff810a1c40 t foo\t[ext4]  a module's symbol
 *   ffffffff810a1d00 -              a bound: where the full table's next
 *                                   symbol starts; from here to the next line
 *                                   nothing is answered
 *   end                             last line, exactly (a cut copy is refused)
 *
 * Addresses (1 to 16 hex digits, nonzero) strictly increase; a bound
 * follows a symbol. Each symbol is the one the full table picks at its
 * address (aliases already decided), followed by a bound unless the full
 * table's next symbol is in the subset too: so an address the subset
 * answers gets the full table's answer, and any other gets none. Any
 * other line, an order or place broken, a line too long, a header of
 * another version, or a bound or "end" in a copy without the header is an
 * error naming the file, never a guess.
 */
#ifndef PSYM_KALLSYMS_H
#define PSYM_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "frame.h"

struct psym_kallsyms;

/*
 * max_symbols 0: the default (16 M); max_bytes 0: the default (256 MiB), a
 * bigger file is refused (PSYM_ELIMIT) before it is read, /proc/kallsyms
 * (no size) when it passes the cap.
 */
int psym_kallsyms_open(const char *path, size_t max_symbols, size_t max_bytes,
		       struct psym_kallsyms **out, struct psym_err *e);
/*
 * psym_kallsyms_open of a copy that may be compressed (zstd or gzip, by its
 * magic; max_bytes caps both the file and what it inflates to) and, when
 * sha is not NULL, whose (inflated) content must have that SHA-256 (64
 * lowercase hex digits): else PSYM_EBADINPUT, the table is not made.
 * psym_kallsyms_open is this with sha NULL.
 */
int psym_kallsyms_open_sha(const char *path, const char *sha, size_t max_symbols, size_t max_bytes,
			   struct psym_kallsyms **out, struct psym_err *e);
/*
 * The same from a copy in memory, raw[rawlen] (compressed or not); path
 * names it in messages. max_bytes 0: the default.
 */
int psym_kallsyms_parse_blob(const unsigned char *raw, size_t rawlen, const char *path,
			     const char *sha, size_t max_symbols, size_t max_bytes,
			     struct psym_kallsyms **out, struct psym_err *e);
int psym_kallsyms_parse(const char *text, size_t len, const char *name, struct psym_kallsyms **out,
			struct psym_err *e);
void psym_kallsyms_free(struct psym_kallsyms *k);

/*
 * Kernel function at addr: frame->name is the symbol; for a module symbol
 * frame->file is "[module]" (how perf names the object). 0 or PSYM_NOENT.
 * Strings live as long as k.
 */
int psym_kallsyms_lookup(const struct psym_kallsyms *k, uint64_t addr, struct psym_frame *frame);

/* psym_kallsyms_lookup, also giving the symbol's start address. */
int psym_kallsyms_lookup_start(const struct psym_kallsyms *k, uint64_t addr,
			       struct psym_frame *frame, uint64_t *start);

/*
 * Every symbol of kernel module module (no brackets), through fn, in one
 * scan: a module's few hundred symbols without a scan per name.
 */
void psym_kallsyms_each_of_module(const struct psym_kallsyms *k, const char *module,
				  void (*fn)(void *ud, const char *name, uint64_t addr), void *ud);

/*
 * The subset copy of k for the addresses addrs[n] (any order; a profile's
 * kernel locations, each with address - 1 for return addresses): the
 * symbol k picks for each, every symbol of the modules those are in (for
 * placing the modules' sections), each symbol's bound, and _text. Written
 * text into *out (malloc'd, *outlen bytes), checked by parsing it back.
 * k may be a subset itself. PSYM_NOENT when k names none of the addresses
 * (no copy is needed).
 */
int psym_kallsyms_subset(const struct psym_kallsyms *k, const uint64_t *addrs, size_t n, char **out,
			 size_t *outlen, struct psym_err *e);
/* k was read from a subset copy. */
bool psym_kallsyms_is_subset(const struct psym_kallsyms *k);

/* Address of _text (or _stext), 0 when absent: KASLR relocation base. */
uint64_t psym_kallsyms_text_addr(const struct psym_kallsyms *k);
/* Lines that are not "ADDR TYPE NAME [MODULE]" (skipped). */
size_t psym_kallsyms_malformed(const struct psym_kallsyms *k);

/*
 * Kernel symbol tables shared by the runs of a batch (thread-safe): keyed
 * by the boot ID a copy was taken on and its content's SHA-256, so a batch
 * over many profiles of one boot parses their kallsyms once, and a copy of
 * another boot or with other content never stands in.
 */
struct psym_kallsyms_cache;

struct psym_kallsyms_cache *psym_kallsyms_cache_new(void);
void psym_kallsyms_cache_free(struct psym_kallsyms_cache *c);

/*
 * The table of boot_id's copy at path whose content has SHA-256 sha: the
 * one parsed before for that key, else path opened as
 * psym_kallsyms_open_sha (its content checked against sha) and kept; a
 * copy that fails is not kept. *out is borrowed and lives as long as c;
 * *parsed says whether this call parsed it. PSYM_NOENT when c is full (the
 * caller opens its own).
 */
int psym_kallsyms_cache_get(struct psym_kallsyms_cache *c, const char *boot_id, const char *sha,
			    const char *path, size_t max_symbols, size_t max_bytes,
			    const struct psym_kallsyms **out, bool *parsed, struct psym_err *e);
/* Tables c has parsed so far. */
size_t psym_kallsyms_cache_parsed(struct psym_kallsyms_cache *c);

#endif
