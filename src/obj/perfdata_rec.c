/* SPDX-License-Identifier: MIT */
/* perf.data: the record loop (samples laid out from sample_type as the kernel writes them). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "array.h"
#include "perfdata.h"
#include "perfdata_int.h"
#include "search.h"

/* Decompressed records are held in a window of this size (records are < 64 KiB). */
#define ZWINDOW ((size_t)1 << 20)
/* A file read by descriptor: its records through a window of this size. */
#define RWINDOW ((size_t)4 << 20)

enum {
	REC_COMPRESSED = 81,
	REC_COMPRESSED2 = 83,
	MISC_COMM_EXEC = 1 << 13,
	MISC_MMAP_DATA = 1 << 13,
	MISC_MMAP_BUILD_ID = 1 << 14,
	BRANCH_HW_INDEX = 1 << 17,
	BRANCH_COUNTERS = 1 << 19,
	READ_ENABLED = 1,
	READ_RUNNING = 2,
	READ_ID = 4,
	READ_GROUP = 8,
	READ_LOST = 16,
};

/* A record held back to be delivered in time order (a copy of its bytes). */
struct queued {
	uint64_t time, seq, off, zoff;
	uint8_t *bytes;
	uint32_t size;
};

struct run {
	struct psym_perfdata *d;
	const struct psym_perf_tool *t;
	void *ud;
	struct psym_err *e;
	ZSTD_DStream *zs;
	uint8_t *zbuf;
	size_t zlen;
	uint64_t zoff; /* the compressed record being read, or UINT64_MAX */
	/* By descriptor: file bytes [woff, woff + wlen) in win. */
	uint8_t *win;
	uint64_t woff;
	size_t wlen;
	uint64_t chain[PSYM_PERF_MAX_CALLCHAIN];
	uint64_t regs[64];
	/*
	 * perf's ordered events: records are queued and delivered sorted by
	 * time, at each FINISHED_ROUND up to the newest time of the round
	 * before (limit), as perf report and perf script read them.
	 */
	bool ordered;
	struct queued *q;
	size_t nq, capq, qbytes;
	uint64_t seq, limit, maxtime;
};

/* A bounded cursor over a record's body. */
struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t get64(struct cur *c)
{
	uint64_t v;

	if (c->bad || c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	v = psym_perf_rd64(c->p);
	c->p += 8;
	return v;
}

/* n bytes skipped (or borrowed: the start returned). */
static const uint8_t *take(struct cur *c, uint64_t n)
{
	const uint8_t *s = c->p;

	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return s;
}

static int bad(struct run *r, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct run *r, uint64_t off, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (r->zoff != UINT64_MAX)
		return psym_err_set(r->e, PSYM_EBADINPUT,
				    "'%s': record in the compressed record at offset %llu: %s",
				    r->d->name, (unsigned long long)r->zoff, what);
	return psym_err_set(r->e, PSYM_EBADINPUT, "'%s': record at offset %llu: %s", r->d->name,
			    (unsigned long long)off, what);
}

/* The event of id, or -1. */
static long attr_of(const struct psym_perfdata *d, uint64_t id)
{
	size_t k = PSYM_LOWER_BOUND(0, d->nids, i, d->ids[i].id >= id);

	return k < d->nids && d->ids[k].id == id ? (long)d->ids[k].attr : -1;
}

/* READ's values: skipped, their size checked. */
static void skip_read(struct cur *c, uint64_t rf)
{
	uint64_t per = 8 * (1 + !!(rf & READ_ID) + !!(rf & READ_LOST));

	if (rf & READ_GROUP) {
		uint64_t nr = get64(c);

		take(c, 8 * (!!(rf & READ_ENABLED) + !!(rf & READ_RUNNING)));
		if (nr > (uint64_t)(c->end - c->p) / per)
			c->bad = true;
		else
			take(c, nr * per);
	} else {
		take(c, per + 8 * (!!(rf & READ_ENABLED) + !!(rf & READ_RUNNING)));
	}
}

/* A u64 count then that many entries of size each; the entries. */
static const uint8_t *take_array(struct cur *c, uint64_t size, uint64_t *nr)
{
	*nr = get64(c);
	if (c->bad || *nr > (uint64_t)(c->end - c->p) / size) {
		c->bad = true;
		return NULL;
	}
	return take(c, *nr * size);
}

/* The fields after the callchain, in the kernel's order. */
static void sample_tail(struct run *r, const struct psym_perf_attr *a, uint64_t regs_intr,
			struct cur *c, struct psym_perf_sample *s)
{
	uint64_t t = a->sample_type, nr;
	const uint8_t *p;

	if (t & PSYM_PERF_SAMPLE_RAW) {
		if (c->end - c->p < 4) {
			c->bad = true;
			return;
		}
		s->raw_size = psym_perf_rd32(c->p);
		c->p += 4;
		s->raw = take(c, s->raw_size);
	}
	if (t & PSYM_PERF_SAMPLE_BRANCH_STACK) {
		nr = get64(c);
		if (a->branch_sample_type & BRANCH_HW_INDEX)
			get64(c);
		if (nr > (uint64_t)(c->end - c->p) / 24)
			c->bad = true;
		take(c, nr * 24);
		if (a->branch_sample_type & BRANCH_COUNTERS)
			take(c, nr * 8);
	}
	if (t & PSYM_PERF_SAMPLE_REGS_USER) {
		s->regs_abi = get64(c);
		if (s->regs_abi) {
			s->nregs = (size_t)__builtin_popcountll(a->sample_regs_user);
			p = take(c, 8 * s->nregs);
			for (size_t i = 0; p && i < s->nregs; i++)
				r->regs[i] = psym_perf_rd64(p + 8 * i);
			s->regs = r->regs;
		}
	}
	if (t & PSYM_PERF_SAMPLE_STACK_USER) {
		s->stack_size = get64(c);
		if (s->stack_size) {
			s->stack = take(c, s->stack_size);
			s->dyn_size = get64(c);
			if (s->dyn_size > s->stack_size)
				s->dyn_size = s->stack_size;
		}
	}
	take(c, 8 * (!!(t & PSYM_PERF_SAMPLE_WEIGHT) + !!(t & PSYM_PERF_SAMPLE_WEIGHT_STRUCT) +
		     !!(t & PSYM_PERF_SAMPLE_DATA_SRC) + !!(t & PSYM_PERF_SAMPLE_TRANSACTION)));
	if ((t & PSYM_PERF_SAMPLE_REGS_INTR) && get64(c))
		take(c, 8 * (uint64_t)__builtin_popcountll(regs_intr));
	take(c, 8 * (!!(t & PSYM_PERF_SAMPLE_PHYS_ADDR) + !!(t & PSYM_PERF_SAMPLE_CGROUP) +
		     !!(t & PSYM_PERF_SAMPLE_DATA_PAGE_SIZE) +
		     !!(t & PSYM_PERF_SAMPLE_CODE_PAGE_SIZE)));
	if (t & PSYM_PERF_SAMPLE_AUX) {
		nr = get64(c);
		take(c, nr);
	}
}

static int on_sample(struct run *r, uint16_t misc, const uint8_t *body, size_t n, uint64_t off)
{
	struct psym_perfdata *d = r->d;
	struct psym_perf_sample s = { 0 };
	struct cur c = { body, body + n, false };
	long ai = 0;
	uint64_t t, nr;
	const uint8_t *p;

	if (d->nattrs > 1 && d->sample_id_pos >= 0) {
		if (n < (size_t)d->sample_id_pos + 8)
			return bad(r, off, "sample of %zu bytes has no event id", n);
		ai = attr_of(d, psym_perf_rd64(body + d->sample_id_pos));
		if (ai < 0)
			return bad(r, off, "sample's event id %llu names no event",
				   (unsigned long long)psym_perf_rd64(body + d->sample_id_pos));
	}
	s.attr = &d->attrs[ai];
	s.attr_index = (size_t)ai;
	s.offset = off;
	s.misc = misc;
	t = s.attr->sample_type;
	s.period = s.attr->freq ? 1 : s.attr->period;
	if (t & PSYM_PERF_SAMPLE_IDENTIFIER)
		s.id = get64(&c);
	if (t & PSYM_PERF_SAMPLE_IP)
		s.ip = get64(&c);
	if ((t & PSYM_PERF_SAMPLE_TID) && (p = take(&c, 8))) {
		s.pid = psym_perf_rd32(p);
		s.tid = psym_perf_rd32(p + 4);
	}
	if (t & PSYM_PERF_SAMPLE_TIME)
		s.time = get64(&c);
	if (t & PSYM_PERF_SAMPLE_ADDR)
		s.addr = get64(&c);
	if (t & PSYM_PERF_SAMPLE_ID)
		s.id = get64(&c);
	if (t & PSYM_PERF_SAMPLE_STREAM_ID)
		s.stream_id = get64(&c);
	if ((t & PSYM_PERF_SAMPLE_CPU) && (p = take(&c, 8)))
		s.cpu = psym_perf_rd32(p);
	if (t & PSYM_PERF_SAMPLE_PERIOD)
		s.period = get64(&c);
	if (t & PSYM_PERF_SAMPLE_READ)
		skip_read(&c, s.attr->read_format);
	if ((t & PSYM_PERF_SAMPLE_CALLCHAIN) && (p = take_array(&c, 8, &nr))) {
		s.nr_callchain = nr < PSYM_PERF_MAX_CALLCHAIN ? nr : PSYM_PERF_MAX_CALLCHAIN;
		if (nr > PSYM_PERF_MAX_CALLCHAIN)
			d->st.callchains_cut++;
		for (size_t i = 0; i < s.nr_callchain; i++)
			r->chain[i] = psym_perf_rd64(p + 8 * i);
		s.callchain = r->chain;
	}
	sample_tail(r, s.attr, d->attrx[ai].regs_intr, &c, &s);
	if (c.bad)
		return bad(r, off, "sample's fields (sample_type %#llx) past its %zu bytes",
			   (unsigned long long)t, n + 8);
	d->st.samples++;
	return r->t->sample ? r->t->sample(r->ud, &s) : 0;
}

/*
 * The sample_id_all trailer of a non-sample record (body of n bytes):
 * parsed into sid, n shortened to the record's own fields.
 */
static void trailer(struct run *r, const uint8_t *body, size_t *n, struct psym_perf_id *sid)
{
	const struct psym_perfdata *d = r->d;
	uint64_t t = d->attrs[0].sample_type;
	struct cur c;

	memset(sid, 0, sizeof(*sid));
	if (!d->trailer_size || *n < d->trailer_size)
		return;
	*n -= d->trailer_size;
	c = (struct cur){ body + *n, body + *n + d->trailer_size, false };
	if (t & PSYM_PERF_SAMPLE_TID) {
		sid->pid = psym_perf_rd32(c.p);
		sid->tid = psym_perf_rd32(c.p + 4);
		c.p += 8;
	}
	if (t & PSYM_PERF_SAMPLE_TIME) {
		sid->time = get64(&c);
		sid->has_time = true;
	}
	if (t & PSYM_PERF_SAMPLE_ID)
		sid->id = get64(&c);
	if (t & PSYM_PERF_SAMPLE_STREAM_ID)
		get64(&c);
	if (t & PSYM_PERF_SAMPLE_CPU)
		sid->cpu = psym_perf_rd32(take(&c, 8));
	if (t & PSYM_PERF_SAMPLE_IDENTIFIER)
		sid->id = get64(&c);
}

/* A NUL-terminated string in body[0, n), or NULL. */
static const char *str_in(const uint8_t *body, size_t n)
{
	return memchr(body, 0, n) ? (const char *)body : NULL;
}

static int on_mmap(struct run *r, uint32_t type, uint16_t misc, const uint8_t *body, size_t n,
		   uint64_t off)
{
	struct psym_perf_mmap m = { 0 };
	size_t fixed = type == PSYM_PERF_RECORD_MMAP2 ? 64 : 32;

	trailer(r, body, &n, &m.sid);
	if (n < fixed + 1)
		return bad(r, off, "%s record of %zu bytes", type == 1 ? "MMAP" : "MMAP2", n + 8);
	m.offset = off;
	m.misc = misc;
	m.mmap2 = type == PSYM_PERF_RECORD_MMAP2;
	m.pid = psym_perf_rd32(body);
	m.tid = psym_perf_rd32(body + 4);
	m.start = psym_perf_rd64(body + 8);
	m.len = psym_perf_rd64(body + 16);
	m.pgoff = psym_perf_rd64(body + 24);
	m.exec = !(misc & MISC_MMAP_DATA);
	if (m.mmap2) {
		m.prot = psym_perf_rd32(body + 56);
		m.flags = psym_perf_rd32(body + 60);
		m.exec = (m.prot & 4) != 0; /* PROT_EXEC */
		if ((misc & MISC_MMAP_BUILD_ID) && body[32] <= PSYM_PERF_BUILD_ID_MAX) {
			m.build_id_len = body[32];
			memcpy(m.build_id, body + 36, m.build_id_len);
		} else if (!(misc & MISC_MMAP_BUILD_ID)) {
			m.has_inode = true;
			m.maj = psym_perf_rd32(body + 32);
			m.min = psym_perf_rd32(body + 36);
			m.ino = psym_perf_rd64(body + 40);
		}
	}
	m.filename = str_in(body + fixed, n - fixed);
	if (!m.filename)
		return bad(r, off, "mmap file name not terminated");
	return r->t->mmap ? r->t->mmap(r->ud, &m) : 0;
}

static int on_comm(struct run *r, uint16_t misc, const uint8_t *body, size_t n, uint64_t off)
{
	struct psym_perf_comm c = { 0 };

	trailer(r, body, &n, &c.sid);
	if (n < 9 || !(c.comm = str_in(body + 8, n - 8)))
		return bad(r, off, "COMM record of %zu bytes with no terminated name", n + 8);
	c.offset = off;
	c.pid = psym_perf_rd32(body);
	c.tid = psym_perf_rd32(body + 4);
	c.exec = (misc & MISC_COMM_EXEC) != 0;
	return r->t->comm ? r->t->comm(r->ud, &c) : 0;
}

static int on_task(struct run *r, uint32_t type, const uint8_t *body, size_t n, uint64_t off)
{
	struct psym_perf_task k = { 0 };

	trailer(r, body, &n, &k.sid);
	if (n < 24)
		return bad(r, off, "%s record of %zu bytes", type == 7 ? "FORK" : "EXIT", n + 8);
	k.offset = off;
	k.fork = type == PSYM_PERF_RECORD_FORK;
	k.pid = psym_perf_rd32(body);
	k.ppid = psym_perf_rd32(body + 4);
	k.tid = psym_perf_rd32(body + 8);
	k.ptid = psym_perf_rd32(body + 12);
	k.time = psym_perf_rd64(body + 16);
	return r->t->task ? r->t->task(r->ud, &k) : 0;
}

static int on_misc(struct run *r, uint32_t type, const uint8_t *body, size_t n, uint64_t off)
{
	struct psym_perf_misc m = { .offset = off, .type = type };
	size_t need = type == PSYM_PERF_RECORD_LOST_SAMPLES ? 8 : type == 2 ? 16 : 24;

	trailer(r, body, &n, &m.sid);
	if (n < need)
		return bad(r, off, "record of type %u of %zu bytes", type, n + 8);
	if (type == PSYM_PERF_RECORD_LOST) {
		m.id = psym_perf_rd64(body);
		m.lost = psym_perf_rd64(body + 8);
	} else if (type == PSYM_PERF_RECORD_LOST_SAMPLES) {
		m.lost = psym_perf_rd64(body);
	} else {
		m.time = psym_perf_rd64(body);
		m.id = psym_perf_rd64(body + 8);
	}
	r->d->st.lost += m.lost;
	return r->t->misc ? r->t->misc(r->ud, &m) : 0;
}

static int on_compressed(struct run *r, uint32_t type, const uint8_t *body, size_t n, uint64_t off);

/* One record of size bytes at p (its file offset off), now. */
static int deliver(struct run *r, const uint8_t *p, size_t size, uint64_t off)
{
	uint32_t type = psym_perf_rd32(p);
	uint16_t misc = (uint16_t)(psym_perf_rd32(p + 4) & 0xffff);
	const uint8_t *body = p + 8;
	size_t n = size - 8;

	r->d->st.records++;
	switch (type) {
	case PSYM_PERF_RECORD_SAMPLE: return on_sample(r, misc, body, n, off);
	case PSYM_PERF_RECORD_MMAP:
	case PSYM_PERF_RECORD_MMAP2: return on_mmap(r, type, misc, body, n, off);
	case PSYM_PERF_RECORD_COMM: return on_comm(r, misc, body, n, off);
	case PSYM_PERF_RECORD_FORK:
	case PSYM_PERF_RECORD_EXIT: return on_task(r, type, body, n, off);
	case PSYM_PERF_RECORD_LOST:
	case PSYM_PERF_RECORD_LOST_SAMPLES:
	case PSYM_PERF_RECORD_THROTTLE:
	case PSYM_PERF_RECORD_UNTHROTTLE: return on_misc(r, type, body, n, off);
	case PSYM_PERF_RECORD_FINISHED_ROUND:
		return r->t->finished_round ? r->t->finished_round(r->ud) : 0;
	case REC_COMPRESSED:
	case REC_COMPRESSED2:
		if (r->zoff != UINT64_MAX)
			return bad(r, off, "a compressed record inside a compressed one");
		return on_compressed(r, type, body, n, off);
	default:
		/* The others (and types not known yet) are skipped by their size. */
		if ((type > 21 && type < 64) || type > 83)
			r->d->st.unknown++;
		return 0;
	}
}

static int cmp_queued(const void *a, const void *b)
{
	const struct queued *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* What a queued record costs: its bytes, its entry and malloc's header. */
#define QUEUED_COST(size) ((size_t)(size) + sizeof(struct queued) + 16)

/* Deliver the queued records of time at most limit (all: UINT64_MAX), in time order. */
static int flush(struct run *r, uint64_t limit)
{
	uint64_t zoff = r->zoff;
	size_t k = 0, j;
	int ret = 0;

	if (!r->nq)
		return 0;
	qsort(r->q, r->nq, sizeof(*r->q), cmp_queued);
	for (; k < r->nq && r->q[k].time <= limit && !ret; k++) {
		r->zoff = r->q[k].zoff;
		ret = deliver(r, r->q[k].bytes, r->q[k].size, r->q[k].off);
		r->qbytes -= QUEUED_COST(r->q[k].size);
		free(r->q[k].bytes);
	}
	r->zoff = zoff;
	for (j = k; ret && j < r->nq; j++)
		free(r->q[j].bytes);
	if (ret) {
		r->nq = 0;
		r->qbytes = 0;
		return ret;
	}
	memmove(r->q, r->q + k, (r->nq - k) * sizeof(*r->q));
	r->nq -= k;
	return 0;
}

/* The time of a kernel record (ordered reading: all carry one). */
static uint64_t record_time(const struct run *r, const uint8_t *p, size_t size)
{
	uint64_t t = r->d->attrs[0].sample_type;
	size_t pos;

	if (psym_perf_rd32(p) == PSYM_PERF_RECORD_SAMPLE)
		pos = 8 + 8 * (!!(t & PSYM_PERF_SAMPLE_IDENTIFIER) + !!(t & PSYM_PERF_SAMPLE_IP) +
			       !!(t & PSYM_PERF_SAMPLE_TID));
	else
		pos = size - r->d->trailer_size + 8 * !!(t & PSYM_PERF_SAMPLE_TID);
	return size >= 8 + r->d->trailer_size && pos + 8 <= size ? psym_perf_rd64(p + pos) : 0;
}

/*
 * The queue past its cap (a round longer than the memory allows, or a
 * file that never ends one): as perf's ordered events do, the older half
 * is delivered now, in time order, and the newer half waits for its round.
 */
static int flush_half(struct run *r)
{
	qsort(r->q, r->nq, sizeof(*r->q), cmp_queued);
	return flush(r, r->q[r->nq / 2].time);
}

/* One record: delivered now, or queued to be delivered in time order. */
static int record(struct run *r, const uint8_t *p, size_t size, uint64_t off)
{
	uint32_t type = psym_perf_rd32(p);
	struct queued *q;
	int ret;

	if (type == PSYM_PERF_RECORD_FINISHED_ROUND && r->ordered) {
		ret = flush(r, r->limit);
		r->limit = r->maxtime;
		return ret ? ret : deliver(r, p, size, off);
	}
	if (!r->ordered || type >= 64)
		return deliver(r, p, size, off);
	if (r->nq && r->qbytes > (r->d->queue_cap ? r->d->queue_cap : PSYM_PERF_QUEUE_CAP) &&
	    (ret = flush_half(r)))
		return ret;
	q = psym_array_grow(r->q, &r->capq, r->nq + 1, sizeof(*q), 0);
	if (!q)
		return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
	r->q = q;
	q = &r->q[r->nq];
	q->bytes = malloc(size);
	if (!q->bytes)
		return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
	memcpy(q->bytes, p, size);
	q->size = (uint32_t)size;
	q->off = off;
	q->zoff = r->zoff;
	q->seq = r->seq++;
	q->time = record_time(r, p, size);
	if (q->time > r->maxtime)
		r->maxtime = q->time;
	r->qbytes += QUEUED_COST(size);
	r->nq++;
	return 0;
}

/* The complete records at the start of the window, the rest kept for the next part. */
static int window_records(struct run *r)
{
	size_t pos = 0;
	int ret = 0;

	while (r->zlen - pos >= 8) {
		uint16_t size = (uint16_t)(psym_perf_rd32(r->zbuf + pos + 4) >> 16);

		if (size < 8)
			return bad(r, 0, "record of %u bytes (less than its header)", size);
		if (size > r->zlen - pos)
			break;
		ret = record(r, r->zbuf + pos, size, r->zoff);
		if (ret)
			return ret;
		pos += size;
	}
	memmove(r->zbuf, r->zbuf + pos, r->zlen - pos);
	r->zlen -= pos;
	return 0;
}

/*
 * COMPRESSED (the rest of the record is zstd data) and COMPRESSED2 (a
 * u64 length first): one zstd stream runs across them and a record may be
 * split between two, so what is left over waits in the window.
 */
static int on_compressed(struct run *r, uint32_t type, const uint8_t *body, size_t n, uint64_t off)
{
	ZSTD_inBuffer in = { body, n, 0 };
	int ret;

	r->d->st.compressed++;
	if (type == REC_COMPRESSED2) {
		uint64_t len = n >= 8 ? psym_perf_rd64(body) : UINT64_MAX;

		if (len > n - 8)
			return bad(r, off, "COMPRESSED2 data of %llu bytes in a record of %zu",
				   (unsigned long long)len, n + 8);
		in = (ZSTD_inBuffer){ body + 8, len, 0 };
	}
	if (!r->zs) {
		r->zs = ZSTD_createDStream();
		r->zbuf = malloc(ZWINDOW);
		if (!r->zs || !r->zbuf)
			return psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
		ZSTD_DCtx_setParameter(r->zs, ZSTD_d_windowLogMax, 27);
	}
	r->zoff = off;
	for (;;) {
		ZSTD_outBuffer out = { r->zbuf, ZWINDOW, r->zlen };
		size_t z = ZSTD_decompressStream(r->zs, &out, &in);

		if (ZSTD_isError(z))
			return bad(r, off, "corrupt zstd data (%s)", ZSTD_getErrorName(z));
		r->zlen = out.pos;
		ret = window_records(r);
		if (ret)
			return ret;
		/* All input taken and the output not full: nothing more now. */
		if (in.pos == in.size && out.pos < out.size)
			break;
	}
	r->zoff = UINT64_MAX;
	return 0;
}

/*
 * The n bytes at file offset off (n <= RWINDOW, within the data): in
 * place, or in the window, refilled from off with what it held of them
 * kept. NULL with r->e set when the file cannot be read (or shrank).
 */
static const uint8_t *at(struct run *r, uint64_t off, size_t n)
{
	struct psym_perfdata *d = r->d;
	size_t keep = 0, want;

	if (d->fd < 0)
		return d->buf + off;
	if (off >= r->woff && off - r->woff <= r->wlen && n <= r->wlen - (off - r->woff))
		return r->win + (off - r->woff);
	if (!r->win && !(r->win = malloc(RWINDOW))) {
		psym_err_set(r->e, PSYM_ENOMEM, "out of memory");
		return NULL;
	}
	if (off >= r->woff && off - r->woff < r->wlen) {
		keep = r->wlen - (size_t)(off - r->woff);
		memmove(r->win, r->win + (off - r->woff), keep);
	}
	want = d->data_end - off < RWINDOW ? (size_t)(d->data_end - off) : RWINDOW;
	r->woff = off;
	r->wlen = 0;
	if (psym_perf_pread(d, r->win + keep, want - keep, off + keep, r->e))
		return NULL;
	r->wlen = want;
	return r->win;
}

/* A file read by descriptor whose size moved since it was opened: an error naming it. */
static int still_same(struct run *r)
{
	struct stat st;

	if (r->d->fd < 0 || fstat(r->d->fd, &st) < 0 || (uint64_t)st.st_size == r->d->len)
		return 0;
	return psym_err_set(r->e, PSYM_EBADINPUT,
			    "'%s': changed while being read (%zu bytes when opened, %llu now)",
			    r->d->name, r->d->len, (unsigned long long)st.st_size);
}

int psym_perfdata_run(struct psym_perfdata *d, const struct psym_perf_tool *tool, void *ud,
		      struct psym_err *e)
{
	struct run *r = calloc(1, sizeof(*r));
	uint64_t off = d->data_off;
	int ret = 0;

	if (!r)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	*r = (struct run){ .d = d, .t = tool, .ud = ud, .e = e, .zoff = UINT64_MAX };
	/* As perf: in time order when every record carries its time. */
	r->ordered = d->trailer_size && (d->attrs[0].sample_type & PSYM_PERF_SAMPLE_TIME);
	while (off < d->data_end) {
		const uint8_t *p;
		uint16_t size;
		uint64_t extra;

		if (d->data_end - off < 8) {
			ret = bad(r, off, "truncated record header (%llu bytes left)",
				  (unsigned long long)(d->data_end - off));
			break;
		}
		if (!(p = at(r, off, 8))) {
			ret = e->code;
			break;
		}
		size = (uint16_t)(psym_perf_rd32(p + 4) >> 16);
		if (size < 8) {
			ret = bad(r, off, "record of %u bytes (less than its header)", size);
			break;
		}
		if (size > d->data_end - off) {
			ret = bad(r, off, "record of %u bytes past the end of the data (%llu left)",
				  size, (unsigned long long)(d->data_end - off));
			break;
		}
		if (!(p = at(r, off, size))) {
			ret = e->code;
			break;
		}
		extra = psym_perf_record_extra(p, size, d->data_end - off - size);
		if (extra == UINT64_MAX) {
			ret = bad(r, off, "record's data past the end of the file");
			break;
		}
		/* Pipe mode's header records were read by psym_perfdata_open. */
		if (!d->pipe || psym_perf_rd32(p) < 64 || psym_perf_rd32(p) == 68 ||
		    psym_perf_rd32(p) == REC_COMPRESSED || psym_perf_rd32(p) == REC_COMPRESSED2)
			ret = record(r, p, size, off);
		if (ret)
			break;
		off += size + extra;
	}
	/* What was read before a bad record is delivered too; its error is the one told. */
	if (!ret || ret == PSYM_EBADINPUT) {
		struct psym_err first = *e;
		int fret = flush(r, UINT64_MAX);

		if (ret)
			*e = first;
		else
			ret = fret;
	}
	for (size_t i = 0; i < r->nq; i++)
		free(r->q[i].bytes);
	free(r->q);
	if (!ret && r->zlen)
		ret = bad(r, off, "%zu bytes of a record cut at the end of the compressed data",
			  r->zlen);
	/* A data section claimed past the file: that is the news, whatever was read there. */
	if ((!ret || ret == PSYM_EBADINPUT) && d->data_end - d->data_off < d->data_claim)
		ret = psym_err_set(e, PSYM_EBADINPUT,
				   "'%s': data section of %llu bytes at offset %llu is past the "
				   "end of the file (%zu bytes): truncated; records read to offset "
				   "%llu",
				   d->name, (unsigned long long)d->data_claim,
				   (unsigned long long)d->data_off, d->len,
				   (unsigned long long)off);
	if (!ret)
		ret = still_same(r);
	ZSTD_freeDStream(r->zs);
	free(r->zbuf);
	free(r->win);
	free(r);
	return ret;
}
