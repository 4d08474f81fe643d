/* SPDX-License-Identifier: MIT */
/* perf.data: the header, the attributes and the feature sections. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array.h"
#include "perfdata.h"
#include "perfdata_int.h"

#define MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */
#define MAGIC1 0x454c494646524550ULL /* "PERFFILE" */
#define FILE_HEADER_SIZE 104
#define PIPE_HEADER_SIZE 16
#define ATTR_SIZE_VER0 64
#define MAX_ATTRS 65536
#define MAX_IDS ((size_t)1 << 22)
#define MAX_BUILD_IDS ((size_t)1 << 20)
#define MAX_STRING 65536
/*
 * Header-side sections read by descriptor are read whole and kept: at most
 * this many bytes together; a feature that would pass it is skipped.
 */
#define MAX_SECTION ((uint64_t)64 << 20)

/* Feature bits of the header (HEADER_*). */
enum {
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_LAST = 256,
};

bool psym_perfdata_sniff(const void *buf, size_t len)
{
	uint64_t m;

	if (len < 8)
		return false;
	m = psym_perf_rd64(buf);
	return m == MAGIC2 || m == __builtin_bswap64(MAGIC2);
}

int psym_perf_pread(const struct psym_perfdata *d, void *buf, size_t n, uint64_t off,
		    struct psym_err *e)
{
	uint8_t *p = buf;

	while (n) {
		ssize_t k = pread(d->fd, p, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return psym_err_set(e, errno == ENOMEM ? PSYM_ENOMEM : PSYM_EIO,
					    "cannot read '%s': %s", d->name, strerror(errno));
		if (k == 0)
			return psym_err_set(e, PSYM_EBADINPUT,
					    "'%s': changed while being read (it ends before offset "
					    "%llu now, it had %zu bytes)",
					    d->name, (unsigned long long)off + n, d->len);
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/*
 * Bytes [off, off + n) of the file, checked against d->len by the caller:
 * in place, or (by descriptor) read into memory kept until the reader is
 * freed (the feature strings point into it).
 */
static int bytes_at(struct psym_perfdata *d, uint64_t off, uint64_t n, const uint8_t **out,
		    struct psym_err *e)
{
	uint8_t **bl, *b;
	int ret;

	if (d->fd < 0) {
		*out = d->buf + off;
		return 0;
	}
	if (n > MAX_SECTION - d->held)
		return psym_err_set(e, PSYM_ELIMIT,
				    "'%s': header section of %llu bytes at offset %llu: past the "
				    "cap of %llu bytes held",
				    d->name, (unsigned long long)n, (unsigned long long)off,
				    (unsigned long long)MAX_SECTION);
	bl = psym_array_grow(d->blobs, &d->capblobs, d->nblobs + 1, sizeof(*bl), 0);
	if (!bl)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	d->blobs = bl;
	b = malloc(n ? n : 1);
	if (!b)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	ret = psym_perf_pread(d, b, (size_t)n, off, e);
	if (ret) {
		free(b);
		return ret;
	}
	d->blobs[d->nblobs++] = b;
	d->held += n;
	*out = b;
	return 0;
}

/* The last section bytes_at read, when it is no longer needed. */
static void drop_last(struct psym_perfdata *d, uint64_t n)
{
	if (d->fd >= 0 && d->nblobs) {
		free(d->blobs[--d->nblobs]);
		d->held -= n;
	}
}

void psym_perf_event_name(uint32_t type, uint64_t config, char *out, size_t n)
{
	static const char *const hw[] = { "cycles",
					  "instructions",
					  "cache-references",
					  "cache-misses",
					  "branches",
					  "branch-misses",
					  "bus-cycles",
					  "stalled-cycles-frontend",
					  "stalled-cycles-backend",
					  "ref-cycles" };
	static const char *const sw[] = {
		"cpu-clock",	    "task-clock",   "page-faults",  "context-switches",
		"cpu-migrations",   "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy",	    "bpf-output",   "cgroup-switches"
	};

	if (type == 0 && config < sizeof(hw) / sizeof(hw[0]))
		snprintf(out, n, "%s", hw[config]);
	else if (type == 1 && config < sizeof(sw) / sizeof(sw[0]))
		snprintf(out, n, "%s", sw[config]);
	else
		snprintf(out, n, "raw-%u-%#llx", type, (unsigned long long)config);
}

/* A string of a feature: u32 len, then len bytes (NUL padded). NULL when malformed. */
static const char *feat_string(const uint8_t **p, const uint8_t *end)
{
	uint32_t n;
	const char *s;

	if (end - *p < 4)
		return NULL;
	n = psym_perf_rd32(*p);
	if (n > (size_t)(end - *p) - 4 || n > MAX_STRING || n == 0)
		return NULL;
	s = (const char *)*p + 4;
	if (!memchr(s, 0, n))
		return NULL;
	*p += 4 + n;
	return s;
}

/* Read one attribute (attr.size bytes at p, at most avail) into the next slot. */
static int add_attr(struct psym_perfdata *d, const uint8_t *p, size_t avail, size_t *used,
		    struct psym_err *e)
{
	struct psym_perf_attr *a;
	struct perf_attr_x *x;
	uint32_t size;
	uint8_t raw[PSYM_PERF_ATTR_KNOWN] = { 0 };

	if (avail < 8)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': event attribute truncated", d->name);
	size = psym_perf_rd32(p + 4);
	if (size == 0)
		size = ATTR_SIZE_VER0;
	if (size < ATTR_SIZE_VER0 || size > avail)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "'%s': event attribute size %u (its room is %zu bytes)",
				    d->name, size, avail);
	if (d->nattrs >= MAX_ATTRS)
		return psym_err_set(e, PSYM_ELIMIT, "'%s': more than %d events", d->name,
				    MAX_ATTRS);
	a = psym_array_grow(d->attrs, &d->capattrs, d->nattrs + 1, sizeof(*a), MAX_ATTRS);
	x = a ? psym_array_grow(d->attrx, &d->capattrx, d->nattrs + 1, sizeof(*x), MAX_ATTRS)
	      : NULL;
	if (a)
		d->attrs = a;
	if (!a || !x)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	d->attrx = x;
	/* Fields past the struct the file knows read as zero, unknown ones are skipped. */
	memcpy(raw, p, size < sizeof(raw) ? size : sizeof(raw));
	a = &d->attrs[d->nattrs];
	x = &d->attrx[d->nattrs];
	memset(a, 0, sizeof(*a));
	memset(x, 0, sizeof(*x));
	a->type = psym_perf_rd32(raw);
	a->config = psym_perf_rd64(raw + 8);
	a->period = psym_perf_rd64(raw + 16);
	a->sample_type = psym_perf_rd64(raw + 24);
	a->read_format = psym_perf_rd64(raw + 32);
	a->freq = (psym_perf_rd64(raw + 40) >> 10) & 1;
	a->sample_id_all = (psym_perf_rd64(raw + 40) >> 18) & 1;
	a->branch_sample_type = psym_perf_rd64(raw + 72);
	a->sample_regs_user = psym_perf_rd64(raw + 80);
	a->sample_stack_user = psym_perf_rd32(raw + 88);
	x->regs_intr = psym_perf_rd64(raw + 96);
	psym_perf_event_name(a->type, a->config, x->defname, sizeof(x->defname));
	d->nattrs++;
	*used = size;
	return 0;
}

/*
 * Where records say which event they belong to, from the first event (perf
 * requires all events to agree): a sample's id at a fixed offset of its
 * body, a non-sample record's trailer of sample_id_all fields at its end.
 */
static void layout(struct psym_perfdata *d)
{
	uint64_t t = d->attrs[0].sample_type;

	d->sample_id_pos = -1;
	if (t & PSYM_PERF_SAMPLE_IDENTIFIER)
		d->sample_id_pos = 0;
	else if (t & PSYM_PERF_SAMPLE_ID)
		d->sample_id_pos =
			8 * (!!(t & PSYM_PERF_SAMPLE_IP) + !!(t & PSYM_PERF_SAMPLE_TID) +
			     !!(t & PSYM_PERF_SAMPLE_TIME) + !!(t & PSYM_PERF_SAMPLE_ADDR));
	d->trailer_size = 0;
	if (d->attrs[0].sample_id_all)
		d->trailer_size =
			8 * (!!(t & PSYM_PERF_SAMPLE_TID) + !!(t & PSYM_PERF_SAMPLE_TIME) +
			     !!(t & PSYM_PERF_SAMPLE_ID) + !!(t & PSYM_PERF_SAMPLE_STREAM_ID) +
			     !!(t & PSYM_PERF_SAMPLE_CPU) + !!(t & PSYM_PERF_SAMPLE_IDENTIFIER));
}

static int add_id(struct psym_perfdata *d, uint64_t id, size_t attr, struct psym_err *e)
{
	struct perf_id *p = psym_array_grow(d->ids, &d->capids, d->nids + 1, sizeof(*p), MAX_IDS);

	if (!p)
		return psym_err_set(e, d->nids >= MAX_IDS ? PSYM_ELIMIT : PSYM_ENOMEM,
				    "'%s': too many event ids", d->name);
	d->ids = p;
	d->ids[d->nids++] = (struct perf_id){ id, (uint32_t)attr };
	return 0;
}

/* The ids of the attribute just added: n u64s at p. */
static int add_ids(struct psym_perfdata *d, const uint8_t *p, size_t n, struct psym_err *e)
{
	for (size_t i = 0; i < n; i++) {
		int ret = add_id(d, psym_perf_rd64(p + 8 * i), d->nattrs - 1, e);

		if (ret)
			return ret;
	}
	return 0;
}

/* One build_id_event (the feature's entries, pipe mode's records): header, pid, id, name. */
static int add_build_id(struct psym_perfdata *d, const uint8_t *p, size_t size)
{
	struct psym_perf_build_id *b;
	uint16_t misc = (uint16_t)(psym_perf_rd32(p + 4) & 0xffff);
	size_t len = PSYM_PERF_BUILD_ID_MAX;

	if (size < 36 || !memchr(p + 36, 0, size - 36))
		return -1;
	b = psym_array_grow(d->bids, &d->capbids, d->nbids + 1, sizeof(*b), MAX_BUILD_IDS);
	if (!b)
		return -1;
	d->bids = b;
	b = &d->bids[d->nbids++];
	/* PERF_RECORD_MISC_BUILD_ID_SIZE: the size is in the byte after the id. */
	if ((misc & (1 << 15)) && p[12 + PSYM_PERF_BUILD_ID_MAX] <= PSYM_PERF_BUILD_ID_MAX)
		len = p[12 + PSYM_PERF_BUILD_ID_MAX];
	b->pid = (int32_t)psym_perf_rd32(p + 8);
	b->misc = misc;
	memcpy(b->id, p + 12, PSYM_PERF_BUILD_ID_MAX);
	b->len = len;
	b->filename = (const char *)p + 36;
	return 0;
}

static void feat_build_ids(struct psym_perfdata *d, const uint8_t *p, const uint8_t *end)
{
	while (end - p >= 8) {
		uint16_t size = (uint16_t)(psym_perf_rd32(p + 4) >> 16);

		if (size < 8 || size > end - p || add_build_id(d, p, size))
			return;
		p += size;
	}
}

static void feat_cmdline(struct psym_perfdata *d, const uint8_t *p, const uint8_t *end)
{
	uint32_t nr;
	size_t len = 0;

	if (end - p < 4)
		return;
	nr = psym_perf_rd32(p);
	p += 4;
	free(d->cmdline);
	/* Each string takes more bytes of the section than it and its space. */
	d->cmdline = calloc(1, (size_t)(end - p) + 1);
	for (uint32_t i = 0; d->cmdline && i < nr; i++) {
		const char *s = feat_string(&p, end);
		size_t n;

		if (!s)
			break;
		n = strlen(s);
		if (len)
			d->cmdline[len++] = ' ';
		memcpy(d->cmdline + len, s, n);
		len += n;
	}
	if (d->cmdline)
		d->cmdline[len] = 0;
}

/* EVENT_DESC: u32 nr, u32 attr_size, then per event: attr, u32 nr_ids, name, ids. */
static void feat_event_desc(struct psym_perfdata *d, const uint8_t *p, const uint8_t *end)
{
	uint32_t nr, asz;

	if (end - p < 8)
		return;
	nr = psym_perf_rd32(p);
	asz = psym_perf_rd32(p + 4);
	p += 8;
	for (uint32_t i = 0; i < nr && i < MAX_ATTRS; i++) {
		uint32_t nids;
		const char *name;
		uint64_t id0 = 0;
		size_t k = i;

		if (asz > (size_t)(end - p) || (size_t)(end - p) - asz < 4)
			return;
		p += asz;
		nids = psym_perf_rd32(p);
		p += 4;
		name = feat_string(&p, end);
		if (!name || nids > (size_t)(end - p) / 8)
			return;
		if (nids)
			id0 = psym_perf_rd64(p);
		p += 8 * (size_t)nids;
		/* The attribute with that id, else the one in the same place. */
		for (size_t j = 0; nids && j < d->nids; j++)
			if (d->ids[j].id == id0)
				k = d->ids[j].attr;
		if (k < d->nattrs && !d->attrx[k].name) {
			d->attrx[k].name = strdup(name);
		}
	}
}

/* One feature's content (file mode's section, pipe mode's HEADER_FEATURE record). */
static void feature(struct psym_perfdata *d, unsigned feat, const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n, *q = p;
	const char *s;

	switch (feat) {
	case FEAT_BUILD_ID: feat_build_ids(d, p, end); break;
	case FEAT_HOSTNAME:
	case FEAT_OSRELEASE:
	case FEAT_VERSION:
	case FEAT_ARCH:
		s = feat_string(&q, end);
		if (s && feat == FEAT_HOSTNAME)
			d->info.hostname = s;
		else if (s && feat == FEAT_OSRELEASE)
			d->info.osrelease = s;
		else if (s && feat == FEAT_VERSION)
			d->info.version = s;
		else if (s)
			d->info.arch = s;
		break;
	case FEAT_NRCPUS:
		if (n >= 8) {
			d->info.nr_cpus_avail = psym_perf_rd32(p);
			d->info.nr_cpus_online = psym_perf_rd32(p + 4);
		}
		break;
	case FEAT_CMDLINE: feat_cmdline(d, p, end); break;
	case FEAT_EVENT_DESC: feat_event_desc(d, p, end); break;
	default: break;
	}
}

/* The attributes section: entries of attr_size bytes, attr then its ids' section. */
static int read_attrs(struct psym_perfdata *d, uint64_t attr_size, uint64_t off, uint64_t size,
		      struct psym_err *e)
{
	const uint8_t *base;
	uint64_t n;
	int ret;

	if (attr_size < ATTR_SIZE_VER0 + 16 || attr_size > 65536)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': header: attr_size %llu", d->name,
				    (unsigned long long)attr_size);
	if (off > d->len || size > d->len - off)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "'%s': header: attributes section [%llu, +%llu) past the end "
				    "of the file (%zu bytes)",
				    d->name, (unsigned long long)off, (unsigned long long)size,
				    d->len);
	n = size / attr_size;
	if (n == 0 || n > MAX_ATTRS)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': header: %llu events", d->name,
				    (unsigned long long)n);
	ret = bytes_at(d, off, n * attr_size, &base, e);
	if (ret)
		return ret;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *p = base + i * attr_size, *ids;
		size_t used;
		uint64_t ioff, isz;

		ret = add_attr(d, p, attr_size - 16, &used, e);
		if (ret)
			return ret;
		ioff = psym_perf_rd64(p + attr_size - 16);
		isz = psym_perf_rd64(p + attr_size - 8);
		if (ioff > d->len || isz > d->len - ioff || isz % 8)
			return psym_err_set(e, PSYM_EBADINPUT,
					    "'%s': event %llu: ids [%llu, +%llu) past the end of "
					    "the file",
					    d->name, (unsigned long long)i,
					    (unsigned long long)ioff, (unsigned long long)isz);
		ret = bytes_at(d, ioff, isz, &ids, e);
		if (ret)
			return ret;
		ret = add_ids(d, ids, isz / 8, e);
		drop_last(d, isz);
		if (ret)
			return ret;
	}
	drop_last(d, n * attr_size); /* what the attributes said is copied */
	return 0;
}

static bool known_feature(unsigned f)
{
	return (f >= FEAT_BUILD_ID && f <= FEAT_NRCPUS) || f == FEAT_CMDLINE ||
	       f == FEAT_EVENT_DESC;
}

/* The feature sections: their table at at (16 bytes per bit set), those psym reads. */
static int read_features(struct psym_perfdata *d, const uint8_t *bits, uint64_t at,
			 struct psym_err *e)
{
	const uint8_t *tab, *p;
	uint64_t nf = 0, k = 0;
	int ret;

	for (unsigned f = 0; f < FEAT_LAST; f++)
		nf += (bits[f / 8] >> (f % 8)) & 1;
	if (at > d->len)
		return 0; /* a truncated file: the data's error says it */
	if (nf > (d->len - at) / 16)
		nf = (d->len - at) / 16;
	ret = bytes_at(d, at, 16 * nf, &tab, e);
	for (unsigned f = 0; !ret && f < FEAT_LAST && k < nf; f++) {
		uint64_t off, size;

		if (!(bits[f / 8] & (1u << (f % 8))))
			continue;
		off = psym_perf_rd64(tab + 16 * k);
		size = psym_perf_rd64(tab + 16 * k + 8);
		k++;
		if (!known_feature(f) || off > d->len || size > d->len - off ||
		    size > MAX_SECTION - d->held)
			continue;
		ret = bytes_at(d, off, size, &p, e);
		if (!ret)
			feature(d, f, p, size);
	}
	return ret;
}

static int open_file(struct psym_perfdata *d, struct psym_err *e)
{
	const uint8_t *h = d->fd >= 0 ? d->hdr : d->buf;
	uint64_t hsize = psym_perf_rd64(h + 8), doff, dsize;
	int ret;

	if (d->len < FILE_HEADER_SIZE || hsize < FILE_HEADER_SIZE)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "'%s': header of %llu bytes, file of %zu: not a perf.data "
				    "file header",
				    d->name, (unsigned long long)hsize, d->len);
	ret = read_attrs(d, psym_perf_rd64(h + 16), psym_perf_rd64(h + 24), psym_perf_rd64(h + 32),
			 e);
	if (ret)
		return ret;
	doff = psym_perf_rd64(h + 40);
	dsize = psym_perf_rd64(h + 48);
	if (doff < FILE_HEADER_SIZE || doff > d->len)
		return psym_err_set(e, PSYM_EBADINPUT,
				    "'%s': header: data section at offset %llu, file of %zu bytes",
				    d->name, (unsigned long long)doff, d->len);
	d->data_off = doff;
	d->data_claim = dsize;
	d->data_end = dsize > d->len - doff ? d->len : doff + dsize;
	if (dsize <= d->len - doff)
		return read_features(d, h + 72, doff + dsize, e);
	return 0;
}

/* Bytes after a record that belong to it (AUXTRACE's data, pipe TRACING_DATA's). */
uint64_t psym_perf_record_extra(const uint8_t *p, uint16_t size, uint64_t avail)
{
	uint32_t type = psym_perf_rd32(p);
	uint64_t n = 0;

	if (type == 71 && size >= 16) /* AUXTRACE: u64 size of the data that follows */
		n = psym_perf_rd64(p + 8);
	else if (type == 66 && size >= 12) /* HEADER_TRACING_DATA, pipe mode */
		n = ((uint64_t)psym_perf_rd32(p + 8) + 7) & ~(uint64_t)7;
	return n > avail ? UINT64_MAX : n;
}

/* Pipe mode: the header records before the data they describe, read in a first pass. */
static int open_pipe(struct psym_perfdata *d, struct psym_err *e)
{
	uint64_t off = PIPE_HEADER_SIZE;

	d->pipe = true;
	d->data_off = off;
	d->data_end = d->len;
	d->data_claim = d->len - off;
	while (d->len - off >= 8) {
		const uint8_t *p = d->buf + off;
		uint32_t type = psym_perf_rd32(p);
		uint16_t size = (uint16_t)(psym_perf_rd32(p + 4) >> 16);
		uint64_t skip;

		if (size < 8 || size > d->len - off)
			break;	  /* the run names it */
		if (type == 64) { /* HEADER_ATTR: attr, then its ids */
			size_t used;
			int ret = add_attr(d, p + 8, size - 8u, &used, e);

			if (ret)
				return ret;
			ret = add_ids(d, p + 8 + used, (size - 8 - used) / 8, e);
			if (ret)
				return ret;
		} else if (type == 80 && size >= 16) { /* HEADER_FEATURE */
			uint64_t f = psym_perf_rd64(p + 8);

			if (f < FEAT_LAST)
				feature(d, (unsigned)f, p + 16, size - 16u);
		} else if (type == 67) { /* HEADER_BUILD_ID */
			add_build_id(d, p, size);
		} else if (type == 78 && size > 24 && psym_perf_rd64(p + 8) == 2) {
			/* EVENT_UPDATE of a name */
			uint64_t id = psym_perf_rd64(p + 16);

			for (size_t j = 0; j < d->nids; j++)
				if (d->ids[j].id == id && !d->attrx[d->ids[j].attr].name &&
				    memchr(p + 24, 0, size - 24u))
					d->attrx[d->ids[j].attr].name =
						strdup((const char *)p + 24);
		}
		skip = psym_perf_record_extra(p, size, d->len - off - size);
		if (skip == UINT64_MAX)
			break;
		off += size + skip;
	}
	if (!d->nattrs)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': pipe-mode perf.data with no events",
				    d->name);
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct perf_id *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Whether the file whose first 16 bytes are h is perf.data psym reads: 0, or an error naming it. */
static int check_magic(const uint8_t *h, size_t len, const char *name, struct psym_err *e)
{
	uint64_t magic;

	if (len < PIPE_HEADER_SIZE)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': too short for perf.data (%zu bytes)",
				    name, len);
	magic = psym_perf_rd64(h);
	if (magic == __builtin_bswap64(MAGIC2))
		return psym_err_set(e, PSYM_EUNSUPPORTED,
				    "'%s': perf.data recorded big-endian (byte-swapped): not "
				    "supported",
				    name);
	if (magic == MAGIC1)
		return psym_err_set(e, PSYM_EUNSUPPORTED,
				    "'%s': perf.data version 1 (PERFFILE): not supported", name);
	if (magic != MAGIC2)
		return psym_err_set(e, PSYM_EBADINPUT, "'%s': not perf.data (no PERFILE2 magic)",
				    name);
	return 0;
}

static int perf_new(const char *name, size_t len, struct psym_perfdata **out, struct psym_err *e)
{
	struct psym_perfdata *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d || !(d->name = strdup(name))) {
		free(d);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	d->fd = -1;
	d->len = len;
	d->info.hostname = d->info.osrelease = d->info.arch = d->info.version = d->info.cmdline =
		"";
	*out = d;
	return 0;
}

/* The header read (pipe mode: its records), the reader made ready. */
static int perf_open(struct psym_perfdata *d, const uint8_t *h, struct psym_err *e)
{
	int ret;

	if (psym_perf_rd64(h + 8) == PIPE_HEADER_SIZE)
		ret = d->fd >= 0 ? psym_err_set(e, PSYM_EUNSUPPORTED,
						"'%s': pipe-mode perf.data read by descriptor",
						d->name)
				 : open_pipe(d, e);
	else
		ret = open_file(d, e);
	if (ret)
		return ret;
	if (d->nids)
		qsort(d->ids, d->nids, sizeof(*d->ids), cmp_id);
	for (size_t i = 0; i < d->nattrs; i++)
		d->attrs[i].name = d->attrx[i].name ? d->attrx[i].name : d->attrx[i].defname;
	if (d->cmdline)
		d->info.cmdline = d->cmdline;
	layout(d);
	return 0;
}

int psym_perfdata_open(const void *buf, size_t len, const char *name, struct psym_perfdata **out,
		       struct psym_err *e)
{
	struct psym_perfdata *d;
	int ret = check_magic(buf, len, name, e);

	*out = NULL;
	if (!ret)
		ret = perf_new(name, len, &d, e);
	if (ret)
		return ret;
	d->buf = buf;
	ret = perf_open(d, buf, e);
	if (ret) {
		psym_perfdata_free(d);
		return ret;
	}
	*out = d;
	return 0;
}

bool psym_perfdata_is_pipe(const void *buf, size_t len)
{
	return len >= PIPE_HEADER_SIZE &&
	       psym_perf_rd64((const uint8_t *)buf + 8) == PIPE_HEADER_SIZE;
}

int psym_perfdata_open_fd(int fd, uint64_t size, const char *name, struct psym_perfdata **out,
			  struct psym_err *e)
{
	struct psym_perfdata *d;
	int ret;

	*out = NULL;
	if (size > SIZE_MAX)
		return psym_err_set(e, PSYM_ELIMIT, "'%s': too large to read", name);
	ret = perf_new(name, (size_t)size, &d, e);
	if (ret)
		return ret;
	d->fd = fd;
	ret = psym_perf_pread(d, d->hdr, size < sizeof(d->hdr) ? (size_t)size : sizeof(d->hdr), 0,
			      e);
	if (!ret)
		ret = check_magic(d->hdr, d->len, name, e);
	if (!ret)
		ret = perf_open(d, d->hdr, e);
	if (ret) {
		psym_perfdata_free(d);
		return ret;
	}
	*out = d;
	return 0;
}

void psym_perfdata_free(struct psym_perfdata *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nattrs; i++)
		free(d->attrx[i].name);
	free(d->attrs);
	free(d->attrx);
	free(d->ids);
	free(d->bids);
	free(d->cmdline);
	for (size_t i = 0; i < d->nblobs; i++)
		free(d->blobs[i]);
	free(d->blobs);
	free(d->name);
	free(d);
}

const struct psym_perf_info *psym_perfdata_info(const struct psym_perfdata *d)
{
	return &d->info;
}

const struct psym_perf_attr *psym_perfdata_attrs(const struct psym_perfdata *d, size_t *n)
{
	*n = d->nattrs;
	return d->attrs;
}

const struct psym_perf_build_id *psym_perfdata_build_ids(const struct psym_perfdata *d, size_t *n)
{
	*n = d->nbids;
	return d->bids;
}

const char *psym_perfdata_name(const struct psym_perfdata *d)
{
	return d->name;
}

void psym_perfdata_set_queue_cap(struct psym_perfdata *d, size_t bytes)
{
	d->queue_cap = bytes;
}

void psym_perfdata_stats(const struct psym_perfdata *d, struct psym_perfdata_stats *s)
{
	*s = d->st;
}
