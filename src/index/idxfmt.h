/* SPDX-License-Identifier: MIT */
/* The on-disk layout of an index file (index.h), shared by its writer and reader. */
#ifndef PSYM_IDXFMT_H
#define PSYM_IDXFMT_H

#include <stdint.h>

#define IDX_MAGIC "PSYMIDX\n"
#define IDX_HDR_SIZE 1024
#define IDX_CHUNK_SHIFT 16    /* 64 KiB checksum chunks */
#define IDX_MAX_RUNS 256      /* runs per group */
#define IDX_MAX_NODES 1024    /* nodes per group */
#define IDX_FLAG_ADDR64 0x100 /* ADDRS holds u64 (else u32) */

enum idx_sec {
	SEC_FUNCS,
	SEC_STRS,
	SEC_FILES,
	SEC_ADDRS,
	SEC_OFFS,
	SEC_CRCS,
	SEC_N
};

/* Run flags (first byte of each run). */
enum {
	RUN_NODE = 1,	/* innermost node changes */
	RUN_FILE = 2,	/* file changes */
	RUN_COLUMN = 4, /* a column follows */
	RUN_DISC = 8,	/* a discriminator follows */
	RUN_EMPTY = 16, /* nothing known in this run */
};

struct idx_hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint32_t flags, chunk_shift;
	uint64_t file_size;
	uint64_t base; /* ADDRS hold group start - base */
	uint64_t ngroups, nfiles;
	struct {
		uint64_t off, len;
	} sec[SEC_N];
	char build_id[96];
	char variant[64];
	char source[512];
	uint64_t built; /* seconds since the epoch */
	uint8_t pad[IDX_HDR_SIZE - 8 - 4 * 4 - 8 * 4 - 16 * SEC_N - 96 - 64 - 512 - 8 - 8];
	uint32_t crcs_crc; /* CRC32 of the CRCS section */
	uint32_t hdr_crc;  /* CRC32 of the header up to here */
};

_Static_assert(sizeof(struct idx_hdr) == IDX_HDR_SIZE, "index header size");

#endif
