/* SPDX-License-Identifier: MIT */
/*
 * The lean profile (lean.h). Reading walks the Profile message's top-level
 * fields once: samples are kept as spans of the decoded input, each
 * unpacked once to check it decodes; locations become records (the
 * common shape, id / mapping_id / address and nothing else, is read here;
 * any other goes through protobuf-c and, when it carries more, is kept as
 * a message); every other field is copied out and unpacked as one Profile
 * message by protobuf-c. Whatever this walk does not take as it is (a
 * field 2 or 4 that is not length-delimited, a tag past 32 bits, a
 * message that fails to unpack or has a field numbered 0, a count past
 * the memory cap) sends the whole input through psym_profile_parse(), so
 * a bad input is refused with exactly its message, and an odd but valid
 * one is still read, through the message and back.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "builder.h"
#include "fileio.h"
#include "hashtab.h"
#include "lean.h"
#include "profread.h"
#include "legacy.h"
#include "pprofpack.h"

#define RECENT_BITS 12 /* chains remembered for sharing */

struct psym_lean_loc {
	uint64_t id, address;
	uint64_t lines;	 /* offset of its Line bytes in the pool, or (full) its index in full[] */
	int32_t mapping; /* position in p->pb->mapping; -1: mapping_id 0 */
	uint32_t nbytes; /* of its Line bytes; LEAN_FULL: kept as a message */
};

#define LEAN_FULL 0x80000000u

struct psym_lean_span {
	size_t off, len; /* a sample's bytes (its message, without tag and length) in raw */
};

struct psym_lean {
	struct psym_profile *p; /* all but samples and locations; its location_ix: loc's ids */
	unsigned char *raw;	/* the samples' bytes, which sample[] points into */
	size_t nraw;
	struct psym_lean_span *sample;
	size_t nsample;
	struct psym_lean_loc *loc;
	size_t nloc;
	pb_location **full; /* kept as messages (in p's arena) */
	size_t nfull, capfull;
	uint8_t *pool; /* the Line bytes of symbolized locations */
	size_t npool, cappool;
	uint64_t *recent;	   /* a few chains by hash: (offset << 16 | bytes) + 1, 0 empty */
	struct psym_arena scratch; /* one sample at a time */
	size_t memory, max_memory; /* malloc'd here, against the profile's cap */
};

/* Location i kept as a message, or NULL. */
static inline pb_location *lean_full(const struct psym_lean *lp, size_t i)
{
	return lp->loc[i].nbytes & LEAN_FULL ? lp->full[lp->loc[i].lines] : NULL;
}

static int lean_alloc(const struct psym_limits *lim, struct psym_lean **out, struct psym_err *e)
{
	struct psym_lean *lp = calloc(1, sizeof(*lp));

	if (!lp || !(lp->p = calloc(1, sizeof(*lp->p)))) {
		free(lp);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	psym_arena_init(&lp->p->arena, lim->max_memory);
	psym_arena_init(&lp->scratch, lim->max_memory);
	lp->max_memory = lim->max_memory;
	*out = lp;
	return 0;
}

void psym_lean_free(struct psym_lean *lp)
{
	if (!lp)
		return;
	psym_profile_free(lp->p);
	psym_arena_free(&lp->scratch);
	free(lp->raw);
	free(lp->sample);
	free(lp->loc);
	free(lp->full);
	free(lp->pool);
	free(lp->recent);
	free(lp);
}

/*
 * *arr grown to hold need elements (psym_array_grow: doubling; exact: need
 * and no more), within the profile's memory cap. 0, PSYM_ELIMIT or
 * PSYM_ENOMEM.
 */
static int grow_to(struct psym_lean *lp, void **arr, size_t *cap, size_t need, size_t elem,
		   bool exact)
{
	size_t old = *cap, max = old + (lp->max_memory - lp->memory) / elem;
	void *na;

	if (need <= old)
		return 0;
	if (exact && need < max)
		max = need;
	if (need > max)
		return PSYM_ELIMIT;
	na = psym_array_grow(*arr, cap, need, elem, max);
	if (!na)
		return PSYM_ENOMEM;
	lp->memory += (*cap - old) * elem;
	*arr = na;
	return 0;
}

static int grow(struct psym_lean *lp, void **arr, size_t *cap, size_t need, size_t elem)
{
	return grow_to(lp, arr, cap, need, elem, false);
}

/* A base-128 varint of at most max bytes; false when cut short or longer. */
static inline bool get_varint(const uint8_t **pp, const uint8_t *end, unsigned max, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x = 0;

	for (unsigned i = 0; i < max && p < end; i++) {
		uint8_t b = *p++;

		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*pp = p;
			*v = x;
			return true;
		}
	}
	return false;
}

/*
 * The common location: fields 1-3 as varints (of 9 bytes at most, so no
 * bit is lost), each at most once. False: anything else.
 */
static bool plain_location(const uint8_t *p, const uint8_t *end, uint64_t *id, uint64_t *mid,
			   uint64_t *addr)
{
	unsigned seen = 0;

	*id = *mid = *addr = 0;
	while (p < end) {
		uint8_t tag = *p++;
		unsigned f = tag >> 3;
		uint64_t v;

		if ((tag & 7) != 0 || f < 1 || f > 3 || (seen & (1u << f)) ||
		    !get_varint(&p, end, 9, &v))
			return false;
		seen |= 1u << f;
		if (f == 1)
			*id = v;
		else if (f == 2)
			*mid = v;
		else
			*addr = v;
	}
	return true;
}

/* A location that is not plain, through protobuf-c. False: take the slow road. */
static bool add_full(struct psym_lean *lp, struct psym_lean_loc *l, const uint8_t *msg, size_t len)
{
	pb_location *m = perftools__profiles__location__unpack(&lp->p->arena.pbc, len, msg);

	if (!m || psym_pb_has_field0(&m->base))
		return false;
	for (size_t j = 0; j < m->n_line; j++)
		if (psym_pb_has_field0(&m->line[j]->base))
			return false;
	l->id = m->id;
	l->address = m->address;
	l->lines = m->mapping_id; /* until validated (see lean_validate) */
	if (!m->n_line && !m->is_folded && !m->base.n_unknown_fields)
		return true; /* plain after all, only written oddly */
	if (grow(lp, (void **)&lp->full, &lp->capfull, lp->nfull + 1, sizeof(*lp->full)))
		return false;
	lp->full[lp->nfull] = m;
	l->lines = lp->nfull++;
	l->nbytes = LEAN_FULL;
	return true;
}

/* One sample checked to decode, as protobuf-c would in the whole message. */
static bool sample_decodes(struct psym_lean *lp, const uint8_t *msg, size_t len)
{
	pb_sample *s = perftools__profiles__sample__unpack(&lp->scratch.pbc, len, msg);
	bool ok = s && !psym_pb_has_field0(&s->base);

	for (size_t j = 0; ok && j < s->n_label; j++)
		ok = !psym_pb_has_field0(&s->label[j]->base);
	psym_arena_reset(&lp->scratch);
	return ok;
}

/*
 * One top-level field at *pp: its number, wire type and (length-delimited)
 * payload length; *pp moves past it. False: not one protobuf-c reads here
 * (a tag past 32 bits, a group, cut short).
 */
static bool next_field(const uint8_t **pp, const uint8_t *end, unsigned *f, unsigned *wt,
		       uint64_t *len)
{
	const uint8_t *p = *pp;
	uint64_t tag;

	*len = 0;
	if (!get_varint(&p, end, 5, &tag) || tag > UINT32_MAX)
		return false;
	*f = (unsigned)(tag >> 3);
	*wt = (unsigned)(tag & 7);
	switch (*wt) {
	case 0:
		if (!get_varint(&p, end, 10, len))
			return false;
		*len = 0;
		break;
	case 1:
		if (end - p < 8)
			return false;
		p += 8;
		break;
	case 2:
		if (!get_varint(&p, end, 10, len) || *len > (uint64_t)(end - p))
			return false;
		p += *len;
		break;
	case 5:
		if (end - p < 4)
			return false;
		p += 4;
		break;
	default: return false; /* groups: protobuf-c refuses them */
	}
	*pp = p;
	return true;
}

/*
 * The samples' bytes moved to a buffer of their own, the rest of the
 * input freed: a million locations' bytes are three quarters of it.
 */
static bool keep_samples(struct psym_lean *lp, size_t bytes)
{
	unsigned char *b = malloc(bytes ? bytes : 1);
	size_t at = 0;

	if (!b)
		return false;
	for (size_t i = 0; i < lp->nsample; i++) {
		memcpy(b + at, lp->raw + lp->sample[i].off, lp->sample[i].len);
		lp->sample[i].off = at;
		at += lp->sample[i].len;
	}
	free(lp->raw);
	lp->raw = b;
	lp->nraw = bytes;
	return true;
}

/*
 * The walk (see the top of the file) over lp->raw. False: the input is to
 * be read the usual way. own: lp->raw is protobuf-c's packing of a
 * profile in memory, whose samples decode (unpacking each to check had
 * been a tenth of symbolizing a perf.data).
 */
static bool walk(struct psym_lean *lp, bool own)
{
	const uint8_t *p = lp->raw, *end = lp->raw + lp->nraw;
	uint8_t *rest = NULL;
	size_t nrest = 0, caprest = 0, capsample = 0, caploc = 0, nsample = 0, nloc = 0;
	size_t sbytes = 0;
	bool ok = false;
	unsigned f, wt;
	uint64_t len;

	/* Count first: the arrays are made once, to size. */
	while (p < end) {
		if (!next_field(&p, end, &f, &wt, &len) || ((f == 2 || f == 4) && wt != 2))
			return false;
		nsample += f == 2;
		sbytes += f == 2 ? len : 0;
		nloc += f == 4;
	}
	if (grow_to(lp, (void **)&lp->sample, &capsample, nsample, sizeof(*lp->sample), true) ||
	    grow_to(lp, (void **)&lp->loc, &caploc, nloc, sizeof(*lp->loc), true))
		return false;
	for (p = lp->raw; p < end;) {
		const uint8_t *start = p;

		if (!next_field(&p, end, &f, &wt, &len)) /* it was read whole above */
			goto out;
		if (f == 2) {
			if (!own && !sample_decodes(lp, p - len, len))
				goto out;
			lp->sample[lp->nsample++] =
				(struct psym_lean_span){ .off = (size_t)(p - len - lp->raw),
							 .len = len };
		} else if (f == 4) {
			struct psym_lean_loc *l;
			uint64_t mid;

			l = &lp->loc[lp->nloc++];
			*l = (struct psym_lean_loc){ .mapping = -1 };
			if (plain_location(p - len, p, &l->id, &mid, &l->address))
				l->lines = mid; /* until validated */
			else if (!add_full(lp, l, p - len, len))
				goto out;
		} else {
			size_t n = (size_t)(p - start);

			if (grow(lp, (void **)&rest, &caprest, nrest + n, 1))
				goto out;
			memcpy(rest + nrest, start, n);
			nrest += n;
		}
	}
	lp->p->pb = perftools__profiles__profile__unpack(&lp->p->arena.pbc, nrest,
							 rest ? rest : (const uint8_t *)"");
	ok = lp->p->pb && !lp->p->pb->n_sample && !lp->p->pb->n_location &&
	     !psym_profile_field0(lp->p->pb) && keep_samples(lp, sbytes);
out:
	lp->memory -= caprest;
	free(rest);
	return ok;
}

/* Read msg (decoded, owned: kept as lp->raw) as a lean profile, or the usual way. */
static int parse_owned(unsigned char *msg, size_t len, bool was_gzip, const char *name,
		       const struct psym_limits *lim, struct psym_lean **out, struct psym_err *e)
{
	struct psym_lean *lp = NULL;
	struct psym_profile *p = NULL;
	int ret;

	if (psym_legacy_detect(msg, len) == PSYM_LEGACY_NONE) {
		ret = lean_alloc(lim, &lp, e);
		if (ret) {
			free(msg);
			return ret;
		}
		lp->raw = msg;
		lp->nraw = len;
		lp->p->was_gzip = was_gzip;
		if (walk(lp, false)) {
			*out = lp;
			return 0;
		}
		lp->raw = NULL;
		psym_lean_free(lp);
		lp = NULL;
	}
	/*
	 * The usual way: its messages for a bad input, its profile for an odd
	 * one. msg is decoded already: gzip inside gzip is not a profile.
	 */
	if (psym_legacy_detect(msg, len) != PSYM_LEGACY_NONE)
		ret = psym_legacy_parse(msg, len, name, lim, &p, e);
	else
		ret = psym_profile_decode(msg, len, name, lim, was_gzip, &p, e);
	free(msg);
	if (ret)
		return ret;
	p->was_gzip = p->was_gzip || was_gzip;
	ret = psym_lean_from_profile(p, lim, out, e);
	psym_profile_free(p);
	return ret;
}

/* buf (owned: freed here, or kept as lp->raw) decoded as psym_profile_parse does. */
static int lean_decode(unsigned char *buf, size_t len, bool owned, const char *name,
		       const struct psym_limits *lim, struct psym_lean **out, struct psym_err *e)
{
	unsigned char *msg = NULL;
	size_t msglen = len;
	int ret;

	if (psym_is_gzip(buf, len)) {
		ret = psym_gunzip(buf, len, lim->max_profile, name, &msg, &msglen, e);
		if (owned)
			free(buf);
		return ret ? ret : parse_owned(msg, msglen, true, name, lim, out, e);
	}
	if (len > lim->max_profile) {
		if (owned)
			free(buf);
		return psym_err_set(e, PSYM_ELIMIT,
				    "'%s': profile larger than the limit of %zu bytes", name,
				    lim->max_profile);
	}
	if (!owned) {
		msg = malloc(len ? len : 1);
		if (!msg)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		buf = memcpy(msg, buf, len);
	}
	return parse_owned(buf, len, false, name, lim, out, e);
}

int psym_lean_adopt(unsigned char *msg, size_t len, bool was_gzip, const char *name,
		    const struct psym_limits *limp, struct psym_lean **out, struct psym_err *e)
{
	struct psym_limits lim = psym_limits_or_default(limp);

	return parse_owned(msg, len, was_gzip, name, &lim, out, e);
}

int psym_lean_parse(const unsigned char *buf, size_t len, const char *name,
		    const struct psym_limits *limp, struct psym_lean **out, struct psym_err *e)
{
	struct psym_limits lim = psym_limits_or_default(limp);

	return lean_decode((unsigned char *)buf, len, false, name, &lim, out, e);
}

int psym_lean_read(const char *path, const struct psym_limits *limp, struct psym_lean **out,
		   struct psym_err *e)
{
	struct psym_limits lim = psym_limits_or_default(limp);
	unsigned char *buf;
	size_t len;
	int ret;

	ret = psym_profile_slurp(path, &lim, &buf, &len, e);
	if (ret)
		return ret;
	return lean_decode(buf, len, true, strcmp(path, "-") ? path : "<stdin>", &lim, out, e);
}

int psym_lean_from_profile(const struct psym_profile *p, const struct psym_limits *limp,
			   struct psym_lean **out, struct psym_err *e)
{
	struct psym_limits lim = psym_limits_or_default(limp);
	struct psym_lean *lp = NULL;
	unsigned char *buf;
	size_t len;
	int ret;

	ret = psym_profile_encode(p, false, &buf, &len, e);
	if (ret)
		return ret;
	ret = lean_alloc(&lim, &lp, e);
	if (ret) {
		free(buf);
		return ret;
	}
	lp->raw = buf;
	lp->nraw = len;
	lp->p->was_gzip = p->was_gzip;
	/* psym's own encoding: the walk takes it whole unless memory runs out. */
	if (!walk(lp, true)) {
		psym_lean_free(lp);
		return psym_err_set(e, PSYM_ELIMIT,
				    "profile: needs more than the memory limit of %zu bytes",
				    lim.max_memory);
	}
	*out = lp;
	return 0;
}

long psym_lean_location_pos(const struct psym_lean *lp, uint64_t id)
{
	long i = psym_idindex_find(&lp->p->location_ix, id);

	return i < 0 || (size_t)i >= lp->nloc ? -1 : i;
}

struct psym_profile *psym_lean_profile(const struct psym_lean *lp)
{
	return lp->p;
}

size_t psym_lean_nsamples(const struct psym_lean *lp)
{
	return lp->nsample;
}

size_t psym_lean_nlocations(const struct psym_lean *lp)
{
	return lp->nloc;
}

uint64_t psym_lean_location_id(const struct psym_lean *lp, size_t i)
{
	return lp->loc[i].id;
}

uint64_t psym_lean_location_address(const struct psym_lean *lp, size_t i)
{
	return lp->loc[i].address;
}

long psym_lean_location_mapping(const struct psym_lean *lp, size_t i)
{
	return lp->loc[i].mapping;
}

bool psym_lean_has_lines(const struct psym_lean *lp, size_t i)
{
	const pb_location *f = lp->nfull ? lean_full(lp, i) : NULL;

	return f && f->n_line;
}

void psym_lean_prefetch(const struct psym_lean *lp, size_t i)
{
	__builtin_prefetch(&lp->loc[i], 1);
}

int psym_lean_foreach_sample(struct psym_lean *lp,
			     int (*fn)(void *ud, size_t i, const pb_sample *s), void *ud,
			     struct psym_err *e)
{
	int ret = 0;

	for (size_t i = 0; i < lp->nsample && !ret; i++) {
		const struct psym_lean_span *sp = &lp->sample[i];
		pb_sample *s = perftools__profiles__sample__unpack(&lp->scratch.pbc, sp->len,
								   lp->raw + sp->off);

		if (!s) /* it unpacked when read: only memory can fail now */
			return psym_err_set(e, psym_arena_error(&lp->scratch),
					    "out of memory reading sample %zu", i);
		ret = fn(ud, i, s);
		psym_arena_reset(&lp->scratch);
	}
	return ret;
}

struct vctx {
	struct psym_lean *lp;
	struct psym_err *e;
};

static int validate_sample(void *ud, size_t i, const pb_sample *s)
{
	struct vctx *v = ud;

	return psym_profile_validate_sample(v->lp->p, i, s, v->lp->nloc, v->e);
}

int psym_lean_validate(struct psym_lean *lp, struct psym_err *e)
{
	struct psym_profile *p = lp->p;
	struct vctx v = { lp, e };
	int ret;

	if ((ret = psym_profile_validate_head(p, lp->nsample, e)) ||
	    /* No locations: p's, of which there are none either. */
	    (ret = psym_profile_index_locs(p, lp->nloc ? &lp->loc[0].id : NULL, sizeof(*lp->loc),
					   lp->nloc, e)) ||
	    (ret = psym_profile_validate_objects(p, e)))
		return ret;
	for (size_t i = 0; i < lp->nloc; i++) {
		struct psym_lean_loc *l = &lp->loc[i];
		pb_location *full = lean_full(lp, i);
		uint64_t mid = full ? full->mapping_id : l->lines;

		ret = psym_profile_validate_location(p, i, mid, full ? full->line : NULL,
						     full ? full->n_line : 0, e);
		if (ret)
			return ret;
		l->mapping = mid ? (int32_t)psym_profile_mapping_pos(p, mid) : -1;
		if (!full)
			l->lines = 0;
	}
	return psym_lean_foreach_sample(lp, validate_sample, &v, e);
}

/*
 * A hash of a chain's bytes, for the recent-chains table: one slot per
 * hash, so chains an input makes collide only share less (no probe chains).
 */
static uint64_t chain_hash(const uint8_t *b, size_t n)
{
	return psym_hash_bytes(b, n, 0);
}

int psym_lean_set_lines(struct psym_lean *lp, struct psym_builder *b, size_t i,
			const struct psym_line_val *v, size_t n)
{
	uint8_t buf[PSYM_BUILDER_MAX_CHAIN * PSYM_PPROF_LINE_MAX];
	struct psym_lean_loc *l = &lp->loc[i];
	size_t len = 0, slot;
	uint64_t h;
	int ret;

	if (l->nbytes & LEAN_FULL)
		return psym_builder_set_line_chain(b, lean_full(lp, i), v, n);
	if (n > PSYM_BUILDER_MAX_CHAIN)
		return PSYM_ELIMIT;
	for (size_t k = 0; k < n; k++)
		len += psym_pprof_put_line(buf + len, v[k].function_id, v[k].line, v[k].column);
	l->lines = 0;
	l->nbytes = (uint32_t)len;
	if (!len)
		return 0;
	if (!lp->recent && !(lp->recent = calloc((size_t)1 << RECENT_BITS, sizeof(*lp->recent))))
		return PSYM_ENOMEM;
	h = chain_hash(buf, len);
	slot = (size_t)(h & (((size_t)1 << RECENT_BITS) - 1));
	if (lp->recent[slot]) {
		uint64_t off = (lp->recent[slot] - 1) >> 16;
		size_t rl = (size_t)((lp->recent[slot] - 1) & 0xffff);

		if (rl == len && !memcmp(lp->pool + off, buf, len)) {
			l->lines = off;
			return 0;
		}
	}
	/* Room for most runs at once, untouched until written: growing by
	 * copies was a tenth of a small run's page faults. */
	if (!lp->pool &&
	    grow_to(lp, (void **)&lp->pool, &lp->cappool, lp->nloc * 48 + 65536, 1, true))
		return PSYM_ENOMEM;
	ret = grow(lp, (void **)&lp->pool, &lp->cappool, lp->npool + len, 1);
	if (ret)
		return ret;
	memcpy(lp->pool + lp->npool, buf, len);
	l->lines = lp->npool;
	lp->npool += len;
	lp->recent[slot] = (l->lines << 16 | len) + 1;
	return 0;
}

/* The samples for the packer (pprofpack.h): the bytes they were read as. */
static int pack_samples(struct psym_pack_out *w, const void *arg)
{
	const struct psym_lean *lp = arg;

	for (size_t i = 0; i < lp->nsample; i++)
		if (psym_pack_put_sample_bytes(w, lp->raw + lp->sample[i].off, lp->sample[i].len))
			return -1;
	return 0;
}

/* The locations for the packer: records with their Line bytes, or messages. */
static int pack_locations(struct psym_pack_out *w, const void *arg)
{
	const struct psym_lean *lp = arg;
	pb_mapping *const *maps = lp->p->pb->mapping;

	for (size_t i = 0; i < lp->nloc; i++) {
		const struct psym_lean_loc *l = &lp->loc[i];
		const pb_location *full = lean_full(lp, i);
		int ret;

		/* Locations are written in profile order, their Lines were made in address order. */
		if (i + 8 < lp->nloc && lp->pool && !(lp->loc[i + 8].nbytes & LEAN_FULL))
			__builtin_prefetch(lp->pool + lp->loc[i + 8].lines);
		if (full)
			ret = psym_pack_put_location(w, full);
		else
			ret = psym_pack_put_location_lines(
				w, l->id, l->mapping >= 0 ? maps[l->mapping]->id : 0, l->address,
				l->nbytes ? lp->pool + l->lines : NULL, l->nbytes);
		if (ret)
			return ret;
	}
	return 0;
}

static struct psym_pack_parts pack_parts(const struct psym_lean *lp)
{
	return (struct psym_pack_parts){
		.pb = lp->p->pb, .samples = pack_samples, .locations = pack_locations, .arg = lp
	};
}

int psym_lean_write_fp(const struct psym_lean *lp, bool gzip, FILE *fp, const char *name,
		       struct psym_err *e)
{
	struct psym_pack_parts parts = pack_parts(lp);

	return psym_profile_stream_fp(psym_pprof_pack_parts_stream, &parts, gzip, fp, name, e);
}

int psym_lean_encode(const struct psym_lean *lp, unsigned char **buf, size_t *len,
		     struct psym_err *e)
{
	struct psym_pack_parts parts = pack_parts(lp);

	if (psym_pprof_pack_parts_alloc(&parts, buf, len))
		return psym_err_set(e, PSYM_ENOMEM, "out of memory encoding the profile");
	return 0;
}

int psym_lean_to_profile(const struct psym_lean *lp, const struct psym_limits *lim,
			 struct psym_profile **out, struct psym_err *e)
{
	unsigned char *buf;
	size_t len;
	int ret = psym_lean_encode(lp, &buf, &len, e);

	if (ret)
		return ret;
	ret = psym_profile_parse(buf, len, "profile", lim, out, e);
	free(buf);
	if (!ret) {
		(*out)->was_gzip = lp->p->was_gzip;
		ret = psym_profile_validate(*out, e);
		if (ret) {
			psym_profile_free(*out);
			*out = NULL;
		}
	}
	return ret;
}
