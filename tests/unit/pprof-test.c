/* SPDX-License-Identifier: MIT */
/*
 * Builder + writer + reader: a profile built here must read back with the
 * same content, deduplicated, and validate; limits must trip cleanly.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "psym-int.h"
#include "tap.h"

/*
 * A packer of pieces of uneven sizes (a few bytes to the full chunk, some
 * compressible, some not), so the compressing threads finish them out of
 * order; the file must still hold them in order. The bytes are kept in
 * want to compare.
 */
struct uneven {
	unsigned char *want;
	size_t len, pieces;
};

static int pack_uneven(const void *arg, size_t chunk,
		       int (*flush)(void *ctx, const uint8_t *buf, size_t len), void *ctx)
{
	const struct uneven *u = arg;
	size_t off = 0;

	for (size_t i = 0; i < u->pieces; i++) {
		size_t n = i % 5 == 0 ? chunk : i % 5 == 1 ? 7 : (chunk / 3) * (i % 3 + 1) / 2;
		int ret;

		if (n > u->len - off)
			n = u->len - off;
		ret = flush(ctx, u->want + off, n);
		if (ret)
			return ret;
		off += n;
	}
	return 0;
}

static void stream_pool_checks(void)
{
	struct uneven u = { .len = (size_t)48 << 20, .pieces = 40 };
	struct psym_err e = { 0 };
	uint32_t x = 12345;
	char path[] = "/tmp/psym-test.pprofXXXXXX";
	int fd = mkstemp(path);
	FILE *fp = fd >= 0 ? fdopen(fd, "w+") : NULL;
	unsigned char *file = NULL, *back = NULL;
	size_t total = 0, filelen = 0, backlen = 0;

	u.want = malloc(u.len);
	ok(u.want && fp, "scratch file and bytes");
	if (!u.want || !fp)
		goto out;
	for (size_t i = 0; i < u.len; i++) {
		x = x * 1103515245u + 12345u;
		/* Stretches of text and of noise: pieces compress at unlike speeds. */
		u.want[i] = (i >> 20) % 3 ? (unsigned char)"psym pprof "[i % 11]
					  : (unsigned char)(x >> 24);
	}
	for (size_t i = 0; i < u.pieces; i++) {
		size_t chunk = (size_t)4 << 20, n = i % 5 == 0	 ? chunk
						    : i % 5 == 1 ? 7
								 : (chunk / 3) * (i % 3 + 1) / 2;

		total += n < u.len - total ? n : u.len - total;
	}
	u.len = total;
	ok(psym_profile_stream_fp(pack_uneven, &u, true, fp, path, &e) == 0,
	   "stream %zu bytes (%s)", total, e.msg);
	fflush(fp);
	filelen = (size_t)ftell(fp);
	file = malloc(filelen ? filelen : 1);
	rewind(fp);
	ok(file && fread(file, 1, filelen, fp) == filelen, "read the file back");
	ok(file && psym_gunzip(file, filelen, (size_t)1 << 30, path, &back, &backlen, &e) == 0 &&
		   backlen == total && memcmp(back, u.want, total) == 0,
	   "gzip members from the threads inflate to the pieces in order");
	free(back);
	back = NULL;
	fclose(fp);
	fp = NULL;
	/* A file that cannot be written: an error naming it, no hang, nothing leaked. */
	fp = fopen("/dev/full", "w");
	if (fp) {
		setvbuf(fp, NULL, _IONBF, 0);
		e = (struct psym_err){ 0 };
		ok(psym_profile_stream_fp(pack_uneven, &u, true, fp, "/dev/full", &e) != 0 &&
			   strstr(e.msg, "/dev/full") != NULL,
		   "a write failure stops the pool with its message (%s)", e.msg);
	} else {
		ok(1, "no /dev/full here: write failure not checked");
	}
out:
	if (fp)
		fclose(fp);
	unlink(path);
	free(file);
	free(u.want);
}

/* What the checks share: a profile built here and the ids of what is in it. */
struct fixture {
	struct psym_profile *p;
	struct psym_builder *b;
	struct psym_limits lim;
	struct psym_err e;
	uint64_t f1, f3, l1, l3;
};

/* Strings, sample types, mappings, functions, locations, samples: interned and valid. */
static void build_checks(struct fixture *fx)
{
	struct psym_builder *b;
	struct psym_profile *p;
	uint64_t f2, l2;
	pb_mapping *m;
	pb_sample *s;
	int ret;

	psym_limits_default(&fx->lim);
	ok(psym_profile_new(&fx->lim, &fx->p, &fx->e) == 0, "new profile");
	ok(psym_builder_new(fx->p, &fx->b, &fx->e) == 0, "new builder");
	p = fx->p;
	b = fx->b;
	is_int(psym_builder_str(b, ""), 0, "empty string is index 0");
	is_int(psym_builder_str(b, "cpu"), 1, "first string");
	is_int(psym_builder_str(b, "cpu"), 1, "interned");
	ok(psym_builder_sample_type(b, "samples", "count") == 0, "sample type");
	ok(psym_builder_sample_type(b, "cpu", "nanoseconds") == 0, "sample type 2");
	m = psym_builder_mapping(b, 0x400000, 0x401000, 0, "/bin/x", "abcd");
	ok(m && m->id == 1, "mapping id 1");
	fx->f1 = psym_builder_function(b, "main", "main", "x.c", 3);
	f2 = psym_builder_function(b, "main", "main", "x.c", 3);
	fx->f3 = psym_builder_function(b, "main", "main", "y.c", 3);
	ok(fx->f1 && fx->f1 == f2, "functions deduplicated");
	ok(fx->f3 && fx->f3 != fx->f1, "different file, different function");
	fx->l1 = psym_builder_location(b, 1, 0x400100);
	l2 = psym_builder_location(b, 1, 0x400100);
	fx->l3 = psym_builder_location(b, 1, 0x400200);
	ok(fx->l1 && fx->l1 == l2 && fx->l3 != fx->l1,
	   "locations deduplicated per (mapping, address)");
	ok(psym_builder_add_line(b,
				 psym_profile_location(p, fx->l1) ? psym_profile_location(p, fx->l1)
								  : p->pb->location[0],
				 fx->f1, 10, 2) == 0,
	   "add line");
	{
		uint64_t locs[] = { fx->l1, fx->l3 };
		int64_t vals[] = { 3, 30000000 };

		s = psym_builder_sample(b, locs, 2, vals, 2);
	}
	ok(s != NULL, "sample");
	ok(psym_builder_label_num(b, s, "pid", 42, NULL) == 0, "num label");
	ok(psym_builder_label_str(b, s, "comm", "x") == 0, "str label");
	ok(psym_builder_comment(b, "hello") == 0, "comment");
	ret = psym_profile_validate(p, &fx->e);
	ok(ret == 0, "built profile validates (%s)", fx->e.msg);
}

/* Limits on a profile read: the size and memory caps are errors, not crashes. */
static void limit_checks(struct fixture *fx, const unsigned char *buf, size_t len)
{
	struct psym_limits small = fx->lim;
	struct psym_profile *r = NULL;
	unsigned char *raw;
	size_t rawlen;
	int ret;

	small.max_profile = 16;
	ret = psym_profile_parse(buf, len, "mem", &small, &r, &fx->e);
	is_int(ret, PSYM_ELIMIT, "decompressed size cap: %s", fx->e.msg);
	small = fx->lim;
	small.max_memory = 256;
	ret = psym_profile_parse(buf, len, "mem", &small, &r, &fx->e);
	is_int(ret, PSYM_ELIMIT, "memory cap: %s", fx->e.msg);
	ok(r == NULL, "no profile on failure");
	ok(psym_gunzip(buf, len, 1 << 20, "mem", &raw, &rawlen, &fx->e) == 0, "gunzip");
	is_int(psym_gunzip(buf, len / 2, 1 << 20, "mem", &raw, &rawlen, &fx->e), PSYM_EBADGZIP,
	       "truncated gzip detected: %s", fx->e.msg);
	free(raw);
}

/* The built profile written and read back; a builder over what was read. */
static void read_back_checks(struct fixture *fx)
{
	struct psym_profile *q = NULL;
	struct psym_builder *b2 = NULL;
	unsigned char *buf;
	size_t len;

	ok(psym_profile_encode(fx->p, true, &buf, &len, &fx->e) == 0, "encode gzip");
	ok(psym_is_gzip(buf, len), "gzip magic");
	ok(psym_profile_parse(buf, len, "mem", &fx->lim, &q, &fx->e) == 0, "parse back");
	ok(psym_profile_validate(q, &fx->e) == 0, "validates");
	is_int(q->pb->n_function, 2, "two functions");
	is_int(q->pb->n_location, 2, "two locations");
	is_str(psym_profile_str(q, q->pb->mapping[0]->build_id), "abcd", "build id");
	is_str(psym_profile_str(q, q->pb->comment[0]), "hello", "comment text");
	is_int(q->pb->location[0]->line[0]->line, 10, "line number");
	is_int(q->pb->location[0]->line[0]->column, 2, "column");
	is_str(psym_profile_str(q, 999), "", "out-of-range string is empty");

	/* A builder over a read profile reuses strings and functions. */
	ok(psym_builder_new(q, &b2, &fx->e) == 0, "builder over a read profile");
	is_int(psym_builder_str(b2, "cpu"), psym_builder_str(b2, "cpu"), "stable");
	ok(psym_builder_function(b2, "main", "main", "x.c", 3) == fx->f1,
	   "existing function found");
	ok(psym_builder_location(b2, 1, 0x400200) == fx->l3, "existing location found");
	psym_builder_free(b2);

	limit_checks(fx, buf, len);
	free(buf);
	psym_profile_free(q);
}

/*
 * Shared Line chains: equal chains are one array, a chain that differs
 * only inside keeps the outer Lines; replacing one location's chain
 * leaves the others alone; what is written reads back per location.
 */
static void line_chain_checks(struct fixture *fx)
{
	struct psym_builder *b = fx->b;
	struct psym_profile *p = fx->p;
	struct psym_line_val c1[3] = { { fx->f1, 10, 1 }, { fx->f3, 20, 2 }, { fx->f1, 30, 0 } };
	struct psym_line_val c2[3] = { { fx->f3, 11, 1 }, { fx->f3, 20, 2 }, { fx->f1, 30, 0 } };
	uint64_t id[4];
	pb_location *lc[4];
	struct psym_profile *r = NULL;
	bool got = true;
	unsigned char *buf;
	size_t len;

	for (int i = 0; i < 4; i++) {
		id[i] = psym_builder_location(b, 1, 0x400300 + 16 * (uint64_t)i);
		lc[i] = psym_profile_location(p, id[i]) ? psym_profile_location(p, id[i])
							: p->pb->location[p->pb->n_location - 1];
	}
	ok(psym_builder_set_line_chain(b, lc[0], c1, 3) == 0 &&
		   psym_builder_set_line_chain(b, lc[1], c2, 3) == 0 &&
		   psym_builder_set_line_chain(b, lc[2], c1, 3) == 0 &&
		   psym_builder_set_line_chain(b, lc[3], c2, 1) == 0,
	   "set line chains");
	ok(lc[0]->line == lc[2]->line && lc[0]->n_line == 3, "equal chains share one array");
	ok(lc[0]->line != lc[1]->line && lc[0]->line[1] == lc[1]->line[1] &&
		   lc[0]->line[2] == lc[1]->line[2] && lc[0]->line[0] != lc[1]->line[0],
	   "a chain differing inside shares the outer Lines");
	ok(lc[3]->n_line == 1 && lc[3]->line[0] == lc[1]->line[0], "a one-Line chain");
	ok(psym_builder_set_line_chain(b, lc[2], c2, 2) == 0 && lc[2]->n_line == 2 &&
		   lc[0]->n_line == 3 && lc[0]->line[0]->line == 10 && lc[0]->line[2]->line == 30,
	   "replacing a chain leaves the location that shared it alone");
	ok(psym_builder_set_line_chain(b, lc[1], NULL, 0) == 0 && lc[1]->n_line == 0,
	   "an empty chain");
	is_int(psym_builder_set_line_chain(b, lc[1], c1, PSYM_BUILDER_MAX_CHAIN + 1), PSYM_ELIMIT,
	       "too long a chain");
	ok(psym_profile_encode(p, true, &buf, &len, &fx->e) == 0 &&
		   psym_profile_parse(buf, len, "mem", &fx->lim, &r, &fx->e) == 0 &&
		   psym_profile_validate(r, &fx->e) == 0,
	   "written with shared chains, read back");
	for (int i = 0; r && i < 4; i++) {
		const pb_location *a = lc[i], *z = psym_profile_location(r, id[i]);

		got = got && z && z->n_line == a->n_line;
		for (size_t j = 0; got && j < a->n_line; j++)
			got = z->line[j]->function_id == a->line[j]->function_id &&
			      z->line[j]->line == a->line[j]->line &&
			      z->line[j]->column == a->line[j]->column;
	}
	ok(r && got, "each location reads back with its own Lines");
	psym_profile_free(r);
	free(buf);
}

/* nloc more locations, each with a Line and a sample of its own. */
static void add_locations(struct fixture *fx, size_t nloc)
{
	struct psym_builder *b = fx->b;
	struct psym_profile *p = fx->p;

	for (size_t i = 0; i < nloc; i++) {
		uint64_t loc = psym_builder_location(b, 1, 0x500000 + 4 * i);
		uint64_t fn =
			psym_builder_function(b, i % 3 ? "f" : "g", "sys", "z.c", (int64_t)(i % 7));
		int64_t v[2] = { (int64_t)i, 1 };

		if (!loc || !fn ||
		    psym_builder_add_line(b,
					  psym_profile_location(p, loc)
						  ? psym_profile_location(p, loc)
						  : p->pb->location[p->pb->n_location - 1],
					  fn, (int64_t)i, 0) != 0 ||
		    !psym_builder_sample(b, &loc, 1, v, 2))
			break;
	}
}

/*
 * Large profiles are encoded in two pieces on two threads: the bytes
 * must be exactly protobuf-c's encoding of the whole, and the two gzip
 * members must read back as one profile.
 */
static void split_encoding_checks(struct fixture *fx, bool big)
{
	struct psym_profile *p = fx->p;
	unsigned char *whole, *gz, *back, *buf;
	size_t gzlen, backlen, len, n;
	struct psym_profile *r = NULL;

	add_locations(fx, big ? 120001 : 40000);
	n = protobuf_c_message_get_packed_size(&p->pb->base);
	whole = malloc(n);
	ok(whole && protobuf_c_message_pack(&p->pb->base, whole) == n, "pack whole (%zu)",
	   (size_t)p->pb->n_location);
	ok(psym_profile_encode(p, false, &buf, &len, &fx->e) == 0, "encode raw");
	ok(len == n && memcmp(buf, whole, n) == 0,
	   "%zu locations: encoding equals protobuf-c's of the whole", (size_t)p->pb->n_location);
	ok(psym_profile_encode(p, true, &gz, &gzlen, &fx->e) == 0, "encode gzip");
	ok(psym_gunzip(gz, gzlen, (size_t)1 << 30, "mem", &back, &backlen, &fx->e) == 0 &&
		   backlen == n && memcmp(back, whole, n) == 0,
	   "gzip (one or two members) inflates to the same bytes");
	if (big) {
		size_t members = 0;

		for (size_t k = 0; k + 3 < gzlen; k++)
			members += gz[k] == 0x1f && gz[k + 1] == 0x8b && gz[k + 2] == 8 &&
				   gz[k + 3] == 0;
		ok(members >= 2, "a large profile is two gzip members (%zu headers seen)", members);
	}
	ok(psym_profile_parse(gz, gzlen, "mem", &fx->lim, &r, &fx->e) == 0 &&
		   r->pb->n_location == p->pb->n_location && r->pb->n_sample == p->pb->n_sample,
	   "parses back whole");
	psym_profile_free(r);
	free(back);
	free(gz);
	free(buf);
	free(whole);
}

int main(void)
{
	struct fixture fx = { 0 };

	build_checks(&fx);
	read_back_checks(&fx);
	line_chain_checks(&fx);
	split_encoding_checks(&fx, false);
	split_encoding_checks(&fx, true);
	stream_pool_checks();
	psym_builder_free(fx.b);
	psym_builder_free(NULL);
	psym_profile_free(fx.p);
	psym_profile_free(NULL);
	return tap_done();
}
