/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "pprof.h"
#include "pprofpack.h"
#include "search.h"

void psym_limits_default(struct psym_limits *l)
{
	l->max_input = PSYM_DEFAULT_MAX_INPUT;
	l->max_profile = PSYM_DEFAULT_MAX_PROFILE;
	l->max_memory = PSYM_DEFAULT_MAX_MEMORY;
}

static int profile_alloc(const struct psym_limits *lim, struct psym_profile **out,
			 struct psym_err *e)
{
	struct psym_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	psym_arena_init(&p->arena, lim ? lim->max_memory : 0);
	*out = p;
	return 0;
}

int psym_profile_new(const struct psym_limits *lim, struct psym_profile **out, struct psym_err *e)
{
	struct psym_profile *p = NULL;
	int ret = profile_alloc(lim, &p, e);

	if (ret)
		return ret;
	p->pb = psym_arena_alloc(&p->arena, sizeof(*p->pb));
	if (p->pb) {
		perftools__profiles__profile__init(p->pb);
		p->pb->string_table = psym_arena_alloc(&p->arena, sizeof(char *));
	}
	if (!p->pb || !p->pb->string_table) {
		psym_profile_free(p);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	p->pb->string_table[0] = (char *)"";
	p->pb->n_string_table = 1;
	p->was_gzip = true;
	*out = p;
	return 0;
}

/*
 * protobuf-c keeps fields it does not know as unknown fields and writes
 * them back; one with field number 0 (reachable through a non-minimal tag
 * varint) would make psym write a file no reader accepts. Refuse it here.
 */
bool psym_pb_has_field0(const ProtobufCMessage *m)
{
	for (unsigned i = 0; i < m->n_unknown_fields; i++)
		if (m->unknown_fields[i].tag == 0)
			return true;
	return false;
}

const char *psym_profile_field0(const pb_profile *pb)
{
	if (psym_pb_has_field0(&pb->base))
		return "profile";
	if (pb->period_type && psym_pb_has_field0(&pb->period_type->base))
		return "period_type";
	for (size_t i = 0; i < pb->n_sample_type; i++)
		if (psym_pb_has_field0(&pb->sample_type[i]->base))
			return "sample_type";
	for (size_t i = 0; i < pb->n_sample; i++) {
		if (psym_pb_has_field0(&pb->sample[i]->base))
			return "sample";
		for (size_t j = 0; j < pb->sample[i]->n_label; j++)
			if (psym_pb_has_field0(&pb->sample[i]->label[j]->base))
				return "label";
	}
	for (size_t i = 0; i < pb->n_mapping; i++)
		if (psym_pb_has_field0(&pb->mapping[i]->base))
			return "mapping";
	for (size_t i = 0; i < pb->n_location; i++) {
		if (psym_pb_has_field0(&pb->location[i]->base))
			return "location";
		for (size_t j = 0; j < pb->location[i]->n_line; j++)
			if (psym_pb_has_field0(&pb->location[i]->line[j]->base))
				return "line";
	}
	for (size_t i = 0; i < pb->n_function; i++)
		if (psym_pb_has_field0(&pb->function[i]->base))
			return "function";
	return NULL;
}

int psym_profile_decode(const unsigned char *msg, size_t msglen, const char *name,
			const struct psym_limits *limp, bool was_gzip, struct psym_profile **out,
			struct psym_err *e)
{
	struct psym_limits lim = psym_limits_or_default(limp);
	struct psym_profile *p = NULL;
	int ret;

	ret = profile_alloc(&lim, &p, e);
	if (ret)
		return ret;
	p->was_gzip = was_gzip;
	p->pb = perftools__profiles__profile__unpack(&p->arena.pbc, msglen, msg);
	if (!p->pb) {
		if (p->arena.over_limit)
			ret = psym_err_set(
				e, PSYM_ELIMIT,
				"'%s': decoding needs more than the memory limit of %zu bytes",
				name, lim.max_memory);
		else if (p->arena.oom)
			ret = psym_err_set(e, PSYM_ENOMEM, "'%s': out of memory", name);
		else
			ret = psym_err_set(e, PSYM_EBADPROTO,
					   "'%s': not a pprof profile (protobuf decoding failed)",
					   name);
		goto fail;
	}
	{
		const char *where = psym_profile_field0(p->pb);

		if (where) {
			ret = psym_err_set(
				e, PSYM_EBADPROTO,
				"'%s': not a pprof profile (field number 0 in a %s message)", name,
				where);
			goto fail;
		}
	}
	*out = p;
	return 0;
fail:
	psym_profile_free(p);
	return ret;
}

void psym_profile_free(struct psym_profile *p)
{
	if (!p)
		return;
	psym_arena_free(&p->arena);
	free(p);
}

const char *psym_profile_str(const struct psym_profile *p, int64_t idx)
{
	if (idx < 0 || (uint64_t)idx >= p->pb->n_string_table || !p->pb->string_table[idx])
		return "";
	return p->pb->string_table[idx];
}

/* ---- id indexes ------------------------------------------------------- */

struct id_pos {
	uint64_t id;
	uint32_t pos;
};

static int cmp_id_pos(const void *a, const void *b)
{
	const struct id_pos *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The id of element i: messages (msgs set) or a plain array of records (base, stride). */
struct idsrc {
	void **msgs;
	const char *base;
	size_t off, stride;
};

static inline uint64_t id_at(const struct idsrc *s, size_t i)
{
	const char *m = s->msgs ? (const char *)s->msgs[i] : s->base + i * s->stride;

	return *(const uint64_t *)(const void *)(m + s->off);
}

/* Build an index over n elements' ids (src). what names the message kind for errors. */
static int idindex_build(struct psym_profile *p, struct psym_idindex *ix, const struct idsrc *src,
			 size_t n, const char *what, struct psym_err *e)
{
	struct id_pos *tmp;
	bool dense = true;
	int ret = 0;

	memset(ix, 0, sizeof(*ix));
	ix->n = n;
	if (n > UINT32_MAX)
		return psym_err_set(e, PSYM_ELIMIT, "too many %ss (%zu)", what, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t id = id_at(src, i);

		if (id == 0)
			return psym_err_set(e, PSYM_EBADPROFILE,
					    "%s[%zu]: id is 0 (ids must be nonzero)", what, i);
		if (id != i + 1)
			dense = false;
	}
	if (dense) {
		ix->dense = true;
		return 0;
	}
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		tmp[i].id = id_at(src, i);
		tmp[i].pos = (uint32_t)i;
	}
	qsort(tmp, n, sizeof(*tmp), cmp_id_pos);
	for (size_t i = 1; i < n; i++) {
		if (tmp[i].id == tmp[i - 1].id) {
			ret = psym_err_set(e, PSYM_EBADPROFILE,
					   "%s[%u]: id %" PRIu64 " is also used by %s[%u]", what,
					   tmp[i].pos, tmp[i].id, what, tmp[i - 1].pos);
			goto out;
		}
	}
	ix->ids = psym_arena_calloc(&p->arena, n, sizeof(*ix->ids));
	ix->pos = psym_arena_calloc(&p->arena, n, sizeof(*ix->pos));
	if (!ix->ids || !ix->pos) {
		ret = psym_err_set(e, psym_arena_error(&p->arena), "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		ix->ids[i] = tmp[i].id;
		ix->pos[i] = tmp[i].pos;
	}
out:
	free(tmp);
	return ret;
}

long psym_idindex_find(const struct psym_idindex *ix, uint64_t id)
{
	size_t lo;

	if (ix->dense)
		return (id >= 1 && id <= ix->n) ? (long)(id - 1) : -1;
	lo = PSYM_LOWER_BOUND(0, ix->n, i, ix->ids[i] >= id);
	if (lo < ix->n && ix->ids[lo] == id)
		return ix->pos[lo];
	return -1;
}

int psym_profile_index_locs(struct psym_profile *p, const void *loc_ids, size_t stride, size_t nloc,
			    struct psym_err *e)
{
	pb_profile *pb = p->pb;
	struct idsrc maps = { .msgs = (void **)pb->mapping, .off = offsetof(pb_mapping, id) };
	struct idsrc locs = { .msgs = (void **)pb->location, .off = offsetof(pb_location, id) };
	struct idsrc funcs = { .msgs = (void **)pb->function, .off = offsetof(pb_function, id) };
	int ret;

	if (loc_ids)
		locs = (struct idsrc){ .base = loc_ids, .stride = stride };
	else
		nloc = pb->n_location;
	ret = idindex_build(p, &p->mapping_ix, &maps, pb->n_mapping, "mapping", e);
	if (!ret)
		ret = idindex_build(p, &p->location_ix, &locs, nloc, "location", e);
	if (!ret)
		ret = idindex_build(p, &p->function_ix, &funcs, pb->n_function, "function", e);
	return ret;
}

int psym_profile_index(struct psym_profile *p, struct psym_err *e)
{
	return psym_profile_index_locs(p, NULL, 0, 0, e);
}

pb_mapping *psym_profile_mapping(const struct psym_profile *p, uint64_t id)
{
	long i = psym_idindex_find(&p->mapping_ix, id);

	return i < 0 || (size_t)i >= p->pb->n_mapping ? NULL : p->pb->mapping[i];
}

long psym_profile_mapping_pos(const struct psym_profile *p, uint64_t id)
{
	long i = psym_idindex_find(&p->mapping_ix, id);

	return i < 0 || (size_t)i >= p->pb->n_mapping ? -1 : i;
}

long psym_profile_location_pos(const struct psym_profile *p, uint64_t id)
{
	long i = psym_idindex_find(&p->location_ix, id);

	return i < 0 || (size_t)i >= p->pb->n_location ? -1 : i;
}

long psym_profile_function_pos(const struct psym_profile *p, uint64_t id)
{
	long i = psym_idindex_find(&p->function_ix, id);

	return i < 0 || (size_t)i >= p->pb->n_function ? -1 : i;
}

pb_location *psym_profile_location(const struct psym_profile *p, uint64_t id)
{
	long i = psym_idindex_find(&p->location_ix, id);

	return i < 0 || (size_t)i >= p->pb->n_location ? NULL : p->pb->location[i];
}

pb_function *psym_profile_function(const struct psym_profile *p, uint64_t id)
{
	long i = psym_idindex_find(&p->function_ix, id);

	return i < 0 || (size_t)i >= p->pb->n_function ? NULL : p->pb->function[i];
}

/* ---- validation --------------------------------------------------------- */

#define BAD(...) psym_err_set(e, PSYM_EBADPROFILE, __VA_ARGS__)

static int check_str(const struct psym_profile *p, int64_t idx, const char *where, size_t i,
		     const char *field, struct psym_err *e)
{
	if (idx < 0 || (uint64_t)idx >= p->pb->n_string_table) {
		if (i == SIZE_MAX)
			return BAD("%s: string index %" PRId64
				   " out of range (string_table has %zu entries)",
				   field, idx, p->pb->n_string_table);
		return BAD("%s[%zu].%s: string index %" PRId64
			   " out of range (string_table has %zu entries)",
			   where, i, field, idx, p->pb->n_string_table);
	}
	return 0;
}

int psym_profile_validate_head(const struct psym_profile *p, size_t nsample, struct psym_err *e)
{
	const pb_profile *pb = p->pb;
	int ret;

	if (pb->n_string_table == 0)
		return BAD("string_table is empty (string_table[0] must be \"\")");
	if (!pb->string_table[0] || pb->string_table[0][0] != '\0')
		return BAD("string_table[0] is not \"\"");
	if (pb->n_sample_type == 0 && nsample > 0)
		return BAD("sample_type: missing (samples have no value types)");
	for (size_t i = 0; i < pb->n_sample_type; i++) {
		if ((ret = check_str(p, pb->sample_type[i]->type, "sample_type", i, "type", e)) ||
		    (ret = check_str(p, pb->sample_type[i]->unit, "sample_type", i, "unit", e)))
			return ret;
	}
	if (pb->period_type) {
		if ((ret = check_str(p, pb->period_type->type, "", SIZE_MAX, "period_type.type",
				     e)) ||
		    (ret = check_str(p, pb->period_type->unit, "", SIZE_MAX, "period_type.unit",
				     e)))
			return ret;
	}
	if ((ret = check_str(p, pb->drop_frames, "", SIZE_MAX, "drop_frames", e)) ||
	    (ret = check_str(p, pb->keep_frames, "", SIZE_MAX, "keep_frames", e)) ||
	    (ret = check_str(p, pb->default_sample_type, "", SIZE_MAX, "default_sample_type", e)) ||
	    (ret = check_str(p, pb->doc_url, "", SIZE_MAX, "doc_url", e)))
		return ret;
	for (size_t i = 0; i < pb->n_comment; i++)
		if ((ret = check_str(p, pb->comment[i], "comment", i, "", e)))
			return ret;
	return 0;
}

int psym_profile_validate_objects(const struct psym_profile *p, struct psym_err *e)
{
	const pb_profile *pb = p->pb;
	int ret;

	for (size_t i = 0; i < pb->n_mapping; i++) {
		const pb_mapping *m = pb->mapping[i];

		if ((ret = check_str(p, m->filename, "mapping", i, "filename", e)) ||
		    (ret = check_str(p, m->build_id, "mapping", i, "build_id", e)))
			return ret;
	}
	for (size_t i = 0; i < pb->n_function; i++) {
		const pb_function *f = pb->function[i];

		if ((ret = check_str(p, f->name, "function", i, "name", e)) ||
		    (ret = check_str(p, f->system_name, "function", i, "system_name", e)) ||
		    (ret = check_str(p, f->filename, "function", i, "filename", e)))
			return ret;
	}
	return 0;
}

int psym_profile_validate_location(const struct psym_profile *p, size_t i, uint64_t mapping_id,
				   pb_line *const *line, size_t n_line, struct psym_err *e)
{
	if (mapping_id && !psym_profile_mapping(p, mapping_id))
		return BAD("location[%zu].mapping_id %" PRIu64 ": no mapping has this id", i,
			   mapping_id);
	for (size_t j = 0; j < n_line; j++) {
		uint64_t fid = line[j]->function_id;

		if (fid == 0)
			return BAD("location[%zu].line[%zu].function_id is 0", i, j);
		if (!psym_profile_function(p, fid))
			return BAD("location[%zu].line[%zu].function_id %" PRIu64
				   ": no function has this id",
				   i, j, fid);
	}
	return 0;
}

/*
 * Sample i's label j: its field's name is formatted only for the message
 * (per label of every sample, the formatting had been a fifth of reading
 * a perf.data).
 */
static int check_label(const struct psym_profile *p, size_t i, size_t j, const pb_label *lb,
		       struct psym_err *e)
{
	static const char *const names[] = { "key", "str", "num_unit" };
	const int64_t idx[] = { lb->key, lb->str, lb->num_unit };
	char field[64];

	for (size_t k = 0; k < 3; k++) {
		if (idx[k] >= 0 && (uint64_t)idx[k] < p->pb->n_string_table)
			continue;
		snprintf(field, sizeof(field), "label[%zu].%s", j, names[k]);
		return check_str(p, idx[k], "sample", i, field, e);
	}
	return 0;
}

int psym_profile_validate_sample(const struct psym_profile *p, size_t i, const pb_sample *s,
				 size_t nloc, struct psym_err *e)
{
	int ret;

	if (s->n_value != p->pb->n_sample_type)
		return BAD("sample[%zu]: has %zu values but there are %zu sample types", i,
			   s->n_value, p->pb->n_sample_type);
	for (size_t j = 0; j < s->n_location_id; j++) {
		long pos = psym_idindex_find(&p->location_ix, s->location_id[j]);

		if (pos < 0 || (size_t)pos >= nloc)
			return BAD("sample[%zu].location_id[%zu] %" PRIu64
				   ": no location has this id",
				   i, j, s->location_id[j]);
	}
	for (size_t j = 0; j < s->n_label; j++)
		if ((ret = check_label(p, i, j, s->label[j], e)))
			return ret;
	return 0;
}

int psym_profile_validate(struct psym_profile *p, struct psym_err *e)
{
	pb_profile *pb = p->pb;
	int ret;

	if ((ret = psym_profile_validate_head(p, pb->n_sample, e)) ||
	    (ret = psym_profile_index(p, e)) || (ret = psym_profile_validate_objects(p, e)))
		return ret;
	for (size_t i = 0; i < pb->n_location; i++) {
		const pb_location *l = pb->location[i];

		ret = psym_profile_validate_location(p, i, l->mapping_id, l->line, l->n_line, e);
		if (ret)
			return ret;
	}
	for (size_t i = 0; i < pb->n_sample; i++)
		if ((ret = psym_profile_validate_sample(p, i, pb->sample[i], pb->n_location, e)))
			return ret;
	return 0;
}

/* ---- writing ------------------------------------------------------------ */

/* Where packed pieces go: compressed or not, to fp or kept in buf. */
struct piece {
	bool gzip;
	unsigned char *buf;
	size_t len, cap;
	struct psym_err e;
	FILE *fp;	  /* set: written there as it is packed, not kept */
	const char *name; /* of fp, for errors */
};

/* Write what the piece holds to its file. */
static int drain(struct piece *pc, const uint8_t *buf, size_t len)
{
	if (len && fwrite(buf, 1, len, pc->fp) != len)
		return psym_err_set(&pc->e, PSYM_EIO, "cannot write '%s': %s", pc->name,
				    strerror(errno));
	return 0;
}

/*
 * Compressed output is packed in chunks of this size, each compressed as
 * its own gzip member as soon as it is full (every gzip reader joins the
 * members): the uncompressed encoding (64 MB for a million symbolized
 * locations) is never held whole. Where the cuts fall depends only on the
 * profile, never on the machine.
 */
#define GZIP_CHUNK ((size_t)4 << 20)

/* One packed piece: compressed (gzip), then written to fp or kept. */
static int put_piece(void *ctx, const uint8_t *buf, size_t len)
{
	struct piece *pc = ctx;
	int ret;

	if (!pc->gzip)
		return drain(pc, buf, len);
	ret = psym_gzip_append(buf, len, &pc->buf, &pc->len, &pc->cap, &pc->e);
	if (ret || !pc->fp)
		return ret;
	ret = drain(pc, pc->buf, pc->len);
	pc->len = 0;
	return ret;
}

/* pprofpack.h's stream of a whole profile message, as a psym_pack_fn. */
static int pack_profile(const void *arg, size_t chunk,
			int (*flush)(void *ctx, const uint8_t *buf, size_t len), void *ctx)
{
	return psym_pprof_pack_stream(arg, chunk, flush, ctx);
}

int psym_profile_encode(const struct psym_profile *p, bool gzip, unsigned char **bufp, size_t *lenp,
			struct psym_err *e)
{
	struct piece pc = { .gzip = true };
	uint8_t *raw;
	size_t len;

	if (!gzip) {
		if (psym_pprof_pack_alloc(p->pb, 0, &raw, &len))
			return psym_err_set(e, PSYM_ENOMEM, "out of memory encoding the profile");
		*bufp = raw;
		*lenp = len;
		return 0;
	}
	if (psym_pprof_pack_stream(p->pb, GZIP_CHUNK, put_piece, &pc)) {
		free(pc.buf);
		if (!pc.e.code)
			psym_err_set(&pc.e, PSYM_ENOMEM, "out of memory encoding the profile");
		*e = pc.e;
		return e->code;
	}
	*bufp = pc.buf;
	*lenp = pc.len;
	return 0;
}

int psym_profile_write_fp(const struct psym_profile *p, bool gzip, FILE *fp, const char *name,
			  struct psym_err *e)
{
	return psym_profile_stream_fp(pack_profile, p->pb, gzip, fp, name, e);
}

int psym_profile_write(const struct psym_profile *p, const char *path, bool gzip,
		       struct psym_err *e)
{
	struct psym_out o;
	int ret;

	ret = psym_out_open(&o, path, e);
	if (ret)
		return ret;
	ret = psym_profile_write_fp(p, gzip, o.fp, path, e);
	if (ret) {
		psym_out_abort(&o);
		return ret;
	}
	return psym_out_commit(&o, e);
}

/*
 * psym_profile_stream_fp: the packer hands each piece over (a copy, as
 * the packer reuses its buffer) to a pool of threads, one per core (at
 * most ZPOOL_MAX_THREADS), that compress pieces side by side, each into
 * its own gzip member, and write them in order: whoever finishes the piece
 * that is next in the file writes it and the ones after it that are
 * ready. The bytes are the same whatever the number of threads (the cuts
 * depend only on the profile). At most ZPOOL_SLOTS(threads) pieces are in
 * flight: memory stays a few pieces whatever the profile's size.
 */
#define ZPOOL_MAX_THREADS 4
#define ZPOOL_SLOTS(n) ((n) + 2)

enum zslot_state {
	ZS_FREE,
	ZS_PACKED,
	ZS_BUSY,
	ZS_READY
};

struct zslot {
	enum zslot_state state;
	uint64_t seq; /* the piece's place in the file */
	uint8_t *in;  /* the packed piece, inlen bytes */
	size_t inlen, incap;
	struct piece pc; /* its gzip member (pc.buf, pc.len) */
};

struct zpool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct zslot slot[ZPOOL_SLOTS(ZPOOL_MAX_THREADS)];
	size_t nslot;
	uint64_t next_seq;   /* of the next piece packed */
	uint64_t next_write; /* of the next piece to go to the file */
	bool writing;	     /* a thread is writing pieces out */
	bool done;	     /* the packer has handed over every piece */
	int ret;	     /* the first failure: everyone stops */
	struct psym_err e;   /* its message */
	struct piece out;    /* the file (fp, name) */
};

/* With mu held: the first failure wins; everyone is woken to stop. */
static void zpool_fail(struct zpool *z, int ret, const struct psym_err *e)
{
	if (!z->ret) {
		z->ret = ret;
		z->e = *e;
	}
	pthread_cond_broadcast(&z->cv);
}

/* With mu held: a packed piece to compress (the oldest), or NULL. */
static struct zslot *zpool_take(struct zpool *z)
{
	struct zslot *best = NULL;

	for (size_t i = 0; i < z->nslot; i++) {
		struct zslot *s = &z->slot[i];

		if (s->state == ZS_PACKED && (!best || s->seq < best->seq))
			best = s;
	}
	return best;
}

/* With mu held: the compressed piece next in the file, or NULL. */
static struct zslot *zpool_next_ready(struct zpool *z)
{
	for (size_t i = 0; i < z->nslot; i++)
		if (z->slot[i].state == ZS_READY && z->slot[i].seq == z->next_write)
			return &z->slot[i];
	return NULL;
}

/*
 * With mu held: write out, in order, every piece that is ready, unless
 * another thread is doing so (it will see these too). The lock is let go
 * while writing.
 */
static void zpool_write_ready(struct zpool *z)
{
	struct zslot *s;

	if (z->writing)
		return;
	z->writing = true;
	while (!z->ret && (s = zpool_next_ready(z))) {
		int ret;

		pthread_mutex_unlock(&z->mu);
		ret = drain(&z->out, s->pc.buf, s->pc.len);
		pthread_mutex_lock(&z->mu);
		if (ret) {
			zpool_fail(z, ret, &z->out.e);
			break;
		}
		s->pc.len = 0;
		s->state = ZS_FREE;
		z->next_write++;
		pthread_cond_broadcast(&z->cv);
	}
	z->writing = false;
}

static void *zpool_run(void *arg)
{
	struct zpool *z = arg;

	pthread_mutex_lock(&z->mu);
	for (;;) {
		struct zslot *s;
		int ret;

		while (!z->ret && !(s = zpool_take(z)) && !z->done)
			pthread_cond_wait(&z->cv, &z->mu);
		if (z->ret || !s)
			break;
		s->state = ZS_BUSY;
		pthread_mutex_unlock(&z->mu);
		ret = psym_gzip_append(s->in, s->inlen, &s->pc.buf, &s->pc.len, &s->pc.cap,
				       &s->pc.e);
		pthread_mutex_lock(&z->mu);
		if (ret) {
			zpool_fail(z, ret, &s->pc.e);
			break;
		}
		s->state = ZS_READY;
		zpool_write_ready(z);
	}
	pthread_mutex_unlock(&z->mu);
	return NULL;
}

/* The packer's flush: wait for a free slot, copy the piece into it. */
static int zpool_flush(void *ctx, const uint8_t *buf, size_t len)
{
	struct zpool *z = ctx;
	struct zslot *s = NULL;
	int ret;

	pthread_mutex_lock(&z->mu);
	for (;;) {
		if (z->ret)
			break;
		for (size_t i = 0; i < z->nslot && !s; i++)
			if (z->slot[i].state == ZS_FREE)
				s = &z->slot[i];
		if (s)
			break;
		pthread_cond_wait(&z->cv, &z->mu);
	}
	ret = z->ret;
	pthread_mutex_unlock(&z->mu);
	if (ret)
		return ret;
	/* The slot is the packer's until it is marked packed. */
	if (s->incap < len) {
		uint8_t *nb = realloc(s->in, len);

		if (!nb) {
			struct psym_err e = { 0 };

			psym_err_set(&e, PSYM_ENOMEM, "out of memory encoding the profile");
			pthread_mutex_lock(&z->mu);
			zpool_fail(z, e.code, &e);
			pthread_mutex_unlock(&z->mu);
			return e.code;
		}
		s->in = nb;
		s->incap = len;
	}
	memcpy(s->in, buf, len);
	s->inlen = len;
	pthread_mutex_lock(&z->mu);
	s->seq = z->next_seq++;
	s->state = ZS_PACKED;
	pthread_cond_broadcast(&z->cv);
	pthread_mutex_unlock(&z->mu);
	return 0;
}

/* Compressing threads for this machine: one per core, within the cap. */
static size_t zpool_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > ZPOOL_MAX_THREADS ? ZPOOL_MAX_THREADS : (size_t)n;
}

int psym_profile_stream_fp(psym_pack_fn pack, const void *arg, bool gzip, FILE *fp,
			   const char *name, struct psym_err *e)
{
	struct zpool z = { .out = { .gzip = gzip, .fp = fp, .name = name } };
	pthread_t th[ZPOOL_MAX_THREADS];
	size_t nth = 0, want = gzip ? zpool_threads() : 0;
	int ret;

	pthread_mutex_init(&z.mu, NULL);
	pthread_cond_init(&z.cv, NULL);
	z.nslot = ZPOOL_SLOTS(want);
	for (size_t i = 0; i < z.nslot; i++)
		z.slot[i].pc = (struct piece){ .gzip = true };
	while (nth < want && pthread_create(&th[nth], NULL, zpool_run, &z) == 0)
		nth++;
	if (nth == 0) {
		/* Raw output, or no thread to be had: in turn, as packed. */
		ret = pack(arg, GZIP_CHUNK, put_piece, &z.out);
		if (ret)
			z.e = z.out.e;
	} else {
		ret = pack(arg, GZIP_CHUNK, zpool_flush, &z);
		pthread_mutex_lock(&z.mu);
		z.done = true;
		pthread_cond_broadcast(&z.cv);
		pthread_mutex_unlock(&z.mu);
		for (size_t i = 0; i < nth; i++)
			pthread_join(th[i], NULL);
		/* Every piece was compressed; those a thread left unwritten go now. */
		pthread_mutex_lock(&z.mu);
		zpool_write_ready(&z);
		if (!z.ret && z.next_write != z.next_seq)
			psym_err_set(&z.e, z.ret = PSYM_EINTERNAL,
				     "'%s': %" PRIu64 " of %" PRIu64 " pieces written", name,
				     z.next_write, z.next_seq);
		pthread_mutex_unlock(&z.mu);
		if (!ret || z.ret)
			ret = z.ret;
	}
	if (ret == -1)
		ret = psym_err_set(&z.e, PSYM_ENOMEM, "out of memory encoding the profile");
	if (ret)
		*e = z.e;
	for (size_t i = 0; i < z.nslot; i++) {
		free(z.slot[i].in);
		free(z.slot[i].pc.buf);
	}
	free(z.out.buf);
	pthread_mutex_destroy(&z.mu);
	pthread_cond_destroy(&z.cv);
	return ret;
}
