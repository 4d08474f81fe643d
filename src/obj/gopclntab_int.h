/* SPDX-License-Identifier: MIT */
/*
 * The .gopclntab reader's own parts (gopclntab.h), shared by its two
 * files: gopclntab.c reads the table, gopclntab_elf.c finds it and the
 * moduledata in an ELF file. Not for other modules.
 */
#ifndef PSYM_GOPCLNTAB_INT_H
#define PSYM_GOPCLNTAB_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "bytes.h"
#include "error.h"
#include "gopclntab.h"

enum layout {
	GO12,  /* 0xfffffffb: Go 1.2-1.15 */
	GO116, /* 0xfffffffa: Go 1.16-1.17 */
	GO118, /* 0xfffffff0: Go 1.18-1.19 */
	GO120  /* 0xfffffff1: Go 1.20 and later */
};

#define MAX_FUNCS (16u << 20)  /* no Go binary has more functions */
#define MAX_PCSTEPS (1u << 24) /* steps of one pc-value table */
#define MAX_INLTREE (1u << 24) /* entries of one inline tree */
#define PCDATA_INLTREEINDEX 2  /* Go 1.13 and later */
/*
 * Go 1.16 and later; Go 1.13-1.15 had FUNCDATA_RegPointerMaps before it
 * (4), Go 1.9-1.12 another numbering, and older Go no inline trees.
 */
#define FUNCDATA_INLTREE 3
#define FUNCDATA_INLTREE_GO113 4
#define MD_WORDS 64 /* moduledata words searched for epclntab */

/* A region of the table: [off, end) */
struct region {
	size_t off, end;
};

/* One function's record, read and checked. */
struct func {
	uint64_t entry, end;
	size_t off; /* the record's offset in the table */
	int32_t nameoff;
	uint32_t pcfile, pcln, npcdata, cuoff, nfuncdata;
	int32_t start_line;
	size_t fixed; /* size of the fixed part */
};

struct psym_gopclntab {
	char *name;
	const uint8_t *p;
	size_t len;
	uint64_t vaddr;
	enum layout layout;
	bool msb;
	unsigned ptr, minlc;
	uint64_t nfunc;
	struct region functab, funcs, names, cutab, filetab, pctab;
	uint64_t text_start, gofunc;
	struct psym_gosec *img;
	size_t nimg;
	uint32_t nfiletab; /* GO12: entries of the global file table */
	/* Inline trees read: the funcdata that holds them (not in Go 1.12 or older) */
	bool inl;
	unsigned funcdata_inl;
	const char *noinl_why; /* why no inline trees, when none (static text) */
	struct dec *dec;       /* the last function's tables, decoded */
	uint64_t prev;	       /* entry of the function of the lookup before */
	bool again;	       /* this lookup's function is prev's: decode it */
	bool again_ok;	       /* last, last_i: that function, read */
	int64_t last_i;
	struct func last;
};

static inline uint64_t get(const struct psym_gopclntab *t, const uint8_t *p, unsigned n)
{
	/* The common case, a little-endian table on a little-endian host: loads. */
	if (!t->msb && !PSYM_HOST_MSB && (n == 4 || n == 8)) {
		uint32_t v4;
		uint64_t v8;

		if (n == 4) {
			memcpy(&v4, p, 4);
			return v4;
		}
		memcpy(&v8, p, 8);
		return v8;
	}
	return psym_get_uint(p, n, t->msb);
}

/* n bytes of the image at vaddr, or NULL. */
const uint8_t *psym_gopclntab_img_at(const struct psym_gopclntab *t, uint64_t vaddr, size_t n);
/* The magic in either byte order: the layout, or -1. */
int psym_gopclntab_magic(const uint8_t *p, bool *msb);
/* Reads and checks the header of t->p[t->len]: 0 or PSYM_EBADINPUT (e may be NULL). */
int psym_gopclntab_header(struct psym_gopclntab *t, struct psym_err *e);

#endif
