/* SPDX-License-Identifier: MIT */
/* perf.data's reader inside: the header's side (perfdata.c) and the record loop's (perfdata_rec.c). */
#ifndef PSYM_PERFDATA_INT_H
#define PSYM_PERFDATA_INT_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#include "perfdata.h"

/* The bytes of perf_event_attr read (PERF_ATTR_SIZE_VER8); more are skipped. */
#define PSYM_PERF_ATTR_KNOWN 144

struct perf_id {
	uint64_t id;
	uint32_t attr;
};

/* What the reader keeps of an event beside its public psym_perf_attr. */
struct perf_attr_x {
	uint64_t regs_intr;
	char *name; /* EVENT_DESC's (owned) */
	char defname[48];
};

struct psym_perfdata {
	/*
	 * The file: in memory (buf, borrowed), or by descriptor (fd >= 0,
	 * borrowed: read with pread, its header in hdr, what the feature
	 * sections hold kept in blobs). len: its size when opened.
	 */
	const uint8_t *buf;
	size_t len;
	int fd;
	uint8_t hdr[104];
	uint8_t **blobs;
	size_t nblobs, capblobs;
	uint64_t held; /* bytes in blobs (buf: 0) */
	char *name;
	bool pipe;
	/* The records: [data_off, data_end); the header claimed data_claim bytes. */
	uint64_t data_off, data_end, data_claim;
	struct psym_perf_attr *attrs;
	struct perf_attr_x *attrx;
	size_t nattrs, capattrs, capattrx;
	struct perf_id *ids; /* sorted by id after open */
	size_t nids, capids;
	struct psym_perf_build_id *bids;
	size_t nbids, capbids;
	char *cmdline;
	struct psym_perf_info info;
	/* A sample's id at this offset of its body (-1: none); the trailer's size. */
	int sample_id_pos;
	unsigned trailer_size;
	/* Bytes the time-order queue may hold (psym_perfdata_set_queue_cap). */
	size_t queue_cap;
	struct psym_perfdata_stats st;
};

static inline uint64_t psym_perf_rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

static inline uint32_t psym_perf_rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

/*
 * Bytes after the record at p (size bytes) that belong to it: AUXTRACE's
 * data, pipe mode's tracing data. UINT64_MAX when more than avail.
 */
uint64_t psym_perf_record_extra(const uint8_t *p, uint16_t size, uint64_t avail);

/*
 * Read n bytes at off of the file open at d->fd into buf: 0, or a
 * negative code with e naming the file (one that has shrunk since it was
 * opened: PSYM_EBADINPUT, "changed while being read").
 */
int psym_perf_pread(const struct psym_perfdata *d, void *buf, size_t n, uint64_t off,
		    struct psym_err *e);

#endif
