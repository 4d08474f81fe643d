/* SPDX-License-Identifier: MIT */
/*
 * The .gopclntab reader over the synthetic tables of the fuzz corpus
 * (tests/fuzz/mkgopclntab.py): every layout, byte order and pointer size
 * gives the same frames, inline chain included; the damaged ones are
 * refused or give an error, never a crash. Real tables are checked against
 * llvm-symbolizer and go tool addr2line by tests/go-pclntab.sh.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "gopclntab.h"
#include "tap.h"

#define TEXT 0x401000u

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static uint8_t buf[8192];

/* Open a corpus file: 0, or the open's error. */
/* How a seed is opened: whole, or without what its inline trees need. */
enum tree {
	TREE,
	NO_TREE,
	GO112
};

static int open_seed_as(const char *name, enum tree how, struct psym_gopclntab **t,
			struct psym_gosec *img, struct psym_err *e)
{
	char path[4096];
	const char *top = getenv("top_srcdir");
	struct psym_gopclntab_src src = { 0 };
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/gopclntab/%s", top ? top : ".", name);
	f = fopen(path, "rb");
	if (!f)
		return psym_err_set(e, PSYM_EIO, "cannot open '%s'", path);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n < 32 || le64(buf) > n - 32)
		return psym_err_set(e, PSYM_EBADINPUT, "%s: short", path);
	src.tab = buf + 32;
	src.len = le64(buf);
	src.vaddr = le64(buf + 8);
	*img = (struct psym_gosec){ le64(buf + 16), buf + 32 + src.len, n - 32 - src.len };
	src.img = img;
	src.nimg = how == NO_TREE ? 0 : 1;
	src.gofunc = how == NO_TREE ? 0 : le64(buf + 24);
	src.go112 = how == GO112;
	return psym_gopclntab_open_mem(&src, name, t, e);
}

static int open_seed(const char *name, struct psym_gopclntab **t, struct psym_gosec *img,
		     struct psym_err *e)
{
	return open_seed_as(name, TREE, t, img, e);
}

/*
 * Without the inline trees (no go:func.* address, no image), inside an
 * inlined body: the outer function without the body's file:line; told
 * why. Go 1.12 and older keep the innermost file:line (their pcdata
 * numbering is not read), as go tool addr2line gives them.
 */
static void no_tree(const char *name, enum tree how)
{
	struct psym_gopclntab *t = NULL;
	struct psym_frame f[PSYM_MAX_FRAMES];
	struct psym_err e = { 0 };
	struct psym_gosec img;
	size_t n = 0;

	if (open_seed_as(name, how, &t, &img, &e) != 0) {
		ok(0, "%s: opens (%s)", name, e.msg);
		return;
	}
	ok(!psym_gopclntab_has_inlines(t) && psym_gopclntab_no_inlines_why(t),
	   "%s: no inline frames, and why (%s)", name, psym_gopclntab_no_inlines_why(t));
	is_int(psym_gopclntab_lookup(t, TEXT + 0x25, f, PSYM_MAX_FRAMES, &n, &e), 0, "%s: lookup",
	       name);
	if (how == GO112)
		ok(n == 1 && strcmp(f[0].name, "main.main") == 0 && f[0].line == 12,
		   "%s as Go 1.12: the outer function at the innermost line", name);
	else
		ok(n == 1 && strcmp(f[0].name, "main.main") == 0 && !f[0].file && f[0].line == 0,
		   "%s: the outer function, not the inlined body's line", name);
	psym_gopclntab_lookup(t, TEXT + 0x45, f, PSYM_MAX_FRAMES, &n, &e);
	ok(n == 1 && f[0].line == 11, "%s: no inlined body: its line", name);
	psym_gopclntab_close(t);
}

static void seed(const char *name, bool v120)
{
	struct psym_gopclntab *t = NULL;
	struct psym_frame f[PSYM_MAX_FRAMES];
	struct psym_err e = { 0 };
	struct psym_gosec img;
	size_t n = 0;
	char what[256];

	if (open_seed(name, &t, &img, &e) != 0) {
		ok(0, "%s: opens (%s)", name, e.msg);
		return;
	}
	is_int(psym_gopclntab_lookup(t, TEXT + 0x25, f, PSYM_MAX_FRAMES, &n, &e), 0, "%s: lookup",
	       name);
	snprintf(what, sizeof(what), "%zu %s:%lld %s:%lld %s:%lld %s", n, n > 0 ? f[0].name : "",
		 n > 0 ? (long long)f[0].line : 0, n > 1 ? f[1].name : "",
		 n > 1 ? (long long)f[1].line : 0, n > 2 ? f[2].name : "",
		 n > 2 ? (long long)f[2].line : 0, n > 2 && f[2].file ? f[2].file : "");
	is_str(what, "3 main.inner:12 main.add:10 main.main:10 /src/main.go", "%s: inline chain",
	       name);
	/* Again in the same function: from its tables decoded once, the same frames. */
	n = 0;
	is_int(psym_gopclntab_lookup(t, TEXT + 0x25, f, PSYM_MAX_FRAMES, &n, &e), 0,
	       "%s: lookup again", name);
	ok(n == 3 && strcmp(f[0].name, "main.inner") == 0 && f[0].line == 12 &&
		   strcmp(f[2].name, "main.main") == 0 && f[2].line == 10,
	   "%s: the same chain from the decoded tables", name);
	if (v120)
		ok(n > 2 && f[0].start_line == 6 && f[1].start_line == 5 && f[2].start_line == 9,
		   "%s: start lines", name);
	psym_gopclntab_lookup(t, TEXT + 0x45, f, PSYM_MAX_FRAMES, &n, &e);
	ok(n == 1 && strcmp(f[0].name, "main.(*T).inc") == 0 && f[0].file &&
		   strcmp(f[0].file, "/src/lib.go") == 0 && f[0].line == 11,
	   "%s: second function, second file", name);
	psym_gopclntab_lookup(t, TEXT + 0x80, f, PSYM_MAX_FRAMES, &n, &e);
	is_int((int)n, 0, "%s: past the last function, no answer", name);
	psym_gopclntab_close(t);
}

static void damaged(const char *name, bool opens, const char *msg)
{
	struct psym_gopclntab *t = NULL;
	struct psym_frame f[PSYM_MAX_FRAMES];
	struct psym_err e = { 0 };
	struct psym_gosec img;
	size_t n = 0;
	int ret = open_seed(name, &t, &img, &e);

	if (!opens) {
		ok(ret == PSYM_EBADINPUT && strstr(e.msg, msg), "%s: refused (%s)", name, e.msg);
		return;
	}
	is_int(ret, 0, "%s: opens", name);
	if (ret)
		return;
	for (int again = 0; again < 2; again++) {
		/* The second lookup in the function reads its decoded tables. */
		ret = psym_gopclntab_lookup(t, TEXT + 0x25, f, PSYM_MAX_FRAMES, &n, &e);
		ok(ret == PSYM_EBADINPUT && strstr(e.msg, msg) && strchr(e.msg, '\n') == NULL,
		   "%s: one-line error%s (%s)", name, again ? ", again" : "", e.msg);
	}
	psym_gopclntab_close(t);
}

int main(void)
{
	static const char *const v[] = { "12", "116", "118", "120" };
	static const char *const var[] = { "", "-be", "-p4", "-be-p4" };
	char name[64];

	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 4; j++) {
			snprintf(name, sizeof(name), "seed-go%s%s", v[i], var[j]);
			seed(name, i == 3);
		}
	}
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "seed-go%s", v[i]);
		no_tree(name, NO_TREE);
	}
	no_tree("seed-go12", GO112);
	damaged("bad-nfunc-go118", false, "function count larger than the table");
	damaged("bad-nfunc-go120", false, "function count larger than the table");
	damaged("bad-offsets-go118", false, "sub-table offsets");
	damaged("bad-offsets-go120", false, "sub-table offsets");
	damaged("bad-pastend-go118", true, "damaged inline table");
	damaged("bad-pastend-go120", true, "damaged inline table");
	damaged("bad-selfinl-go118", true, "inline tree loops");
	damaged("bad-selfinl-go120", true, "inline tree loops");
	return tap_done();
}
