/* SPDX-License-Identifier: MIT */
/* The located-object table (objtab.h) and the growing array (array.h). */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "objtab.h"
#include "tap.h"

static void test_array(void)
{
	int *a = NULL, *p;
	size_t cap = 0;

	p = psym_array_grow(a, &cap, 1, sizeof(*a), 0);
	ok(p && cap == 16, "first growth: 16 elements");
	a = p;
	p = psym_array_grow(a, &cap, 16, sizeof(*a), 0);
	ok(p == a && cap == 16, "room enough: unchanged");
	p = psym_array_grow(a, &cap, 17, sizeof(*a), 0);
	ok(p && cap == 32, "doubles");
	a = p;
	p = psym_array_grow(a, &cap, 100, sizeof(*a), 40);
	ok(!p && cap == 32, "past the cap: NULL, array unchanged");
	p = psym_array_grow(a, &cap, 40, sizeof(*a), 40);
	ok(p && cap == 40, "doubling stops at the cap");
	a = p;
	p = psym_array_grow(a, &cap, SIZE_MAX / 2, sizeof(*a), 0);
	ok(!p && cap == 40, "a count whose bytes overflow: NULL");
	free(a);
}

/* ---- files located through an entry, once ------------------------------ */

struct calls {
	char got[8][600]; /* "L path" (loader), "E path verdict" or "U path" (recorded) */
	size_t n;
	bool load_ok;
};

static bool loader(void *ud, const char *path, bool jitdump)
{
	struct calls *c = ud;

	(void)jitdump;
	if (c->n < 8)
		snprintf(c->got[c->n++], sizeof(c->got[0]), "L %s", strrchr(path, '/') - 2);
	return c->load_ok;
}

/* What the table recorded for --explain since the last look: "E path verdict" or "U path". */
static void news(struct psym_objtab *t, struct psym_located *x, struct calls *c)
{
	const struct psym_objtab_try *tr;
	size_t n, lost;

	psym_objtab_news(t, x, &tr, &n, &lost);
	for (size_t i = 0; i < n && c->n < 8; i++) {
		const char *p =
			strrchr(tr[i].path, '/') ? strrchr(tr[i].path, '/') - 2 : tr[i].path;

		if (tr[i].used)
			snprintf(c->got[c->n++], sizeof(c->got[0]), "U %s", p);
		else
			snprintf(c->got[c->n++], sizeof(c->got[0]), "E %s %s", p, tr[i].verdict);
	}
}

static void touch(const char *dir, const char *sub, const char *name)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	f = fopen(path, "w");
	if (f) {
		fputs("1000 10 f\n", f);
		fclose(f);
	}
}

static void test_perf_maps(void)
{
	char dir[] = "/tmp/psym-objtab-test.XXXXXX", d1[PATH_MAX], d2[PATH_MAX], cmd[PATH_MAX + 16];
	const char *dirs[] = { d1, d2 };
	struct calls c = { .load_ok = true };
	struct psym_locate_opts lo = { .perf_map_dirs = dirs, .n_perf_map_dirs = 2 };
	struct psym_objtab *t = psym_objtab_new(0);
	struct psym_located *x = NULL;
	struct psym_err e = { 0 };
	const int pids[] = { 10, 20 };

	if (!t || !mkdtemp(dir)) {
		ok(false, "perf maps: a temporary directory");
		psym_objtab_free(t);
		return;
	}
	snprintf(d1, sizeof(d1), "%s/d1", dir);
	snprintf(d2, sizeof(d2), "%s/d2", dir);
	mkdir(d1, 0700);
	mkdir(d2, 0700);
	touch(dir, "d2", "perf-10.map");
	touch(dir, "d1", "perf-20.map");
	touch(dir, "d2", "perf-20.map");
	ok(psym_objtab_add(t, PSYM_MAP_ANON, "", "", NULL, &x, &e) == 0 &&
		   psym_objtab_locate_perf_maps(t, x, &lo, pids, 2, &e) == 0,
	   "perf maps: the plan locates both processes");
	news(t, x, &c);
	is_int((int)c.n, 0, "perf maps: nothing recorded for --explain while locating");
	psym_objtab_perf_maps(t, x, &lo, 10, loader, &c);
	news(t, x, &c);
	ok(c.n == 3 && !strcmp(c.got[0], "L d2/perf-10.map") &&
		   !strcmp(c.got[1], "E d1/perf-10.map not found") &&
		   !strcmp(c.got[2], "U d2/perf-10.map"),
	   "pid 10: the missing one recorded in its place, then the one loaded, as used");
	c.n = 0;
	psym_objtab_perf_maps(t, x, &lo, 20, loader, &c);
	news(t, x, &c);
	ok(c.n == 2 && !strcmp(c.got[0], "L d1/perf-20.map") &&
		   !strcmp(c.got[1], "U d1/perf-20.map"),
	   "pid 20: the first that loads wins, nothing past it");
	c.n = 0;
	c.load_ok = false;
	psym_objtab_perf_maps(t, x, &lo, 20, loader, &c);
	news(t, x, &c);
	ok(c.n == 2 && !strcmp(c.got[1], "L d2/perf-20.map"),
	   "pid 20: one that does not load: the next is offered, none used");
	c.n = 0;
	psym_objtab_perf_maps(t, x, &lo, 5, loader, &c);
	news(t, x, &c);
	ok(c.n == 2 && !strcmp(c.got[0], "E d1/perf-5.map not found") &&
		   !strcmp(c.got[1], "E d2/perf-5.map not found"),
	   "pid 5, unknown to the plan: located when asked, into the entry");
	c.n = 0;
	c.load_ok = true;
	psym_objtab_perf_maps(t, x, &lo, 10, loader, &c);
	news(t, x, &c);
	ok(c.n == 3 && !strcmp(c.got[0], "L d2/perf-10.map"),
	   "pid 10 again after a smaller pid was added: the same records");
	psym_objtab_free(t);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		ok(false, "perf maps: temporary directory removed");
}

/* The debug file of a binary, searched for once: a second need is answered from the entry. */
static void test_debug_once(const char *exe)
{
	char dir[] = "/tmp/psym-objtab-test.XXXXXX";
	const char *dd[] = { dir };
	struct psym_locate_opts lo = { .debug_dirs = dd, .n_debug_dirs = 1 };
	struct psym_objtab *t = psym_objtab_new(0);
	struct psym_located *x = NULL;
	struct psym_elf *bin = NULL, *dbg = NULL;
	struct psym_reason why1 = { 0 }, why2 = { 0 };
	struct psym_err e = { 0 };
	int r1, r2;
	size_t n1;

	if (!t || !mkdtemp(dir) || psym_elf_open(exe, NULL, &bin, &e)) {
		ok(false, "debug once: setup");
		psym_objtab_free(t);
		return;
	}
	psym_objtab_add(t, PSYM_MAP_FILE, exe, NULL, NULL, &x, &e);
	r1 = psym_objtab_locate_debug(t, x, &lo, bin, &dbg, &why1, &e);
	psym_elf_close(dbg);
	dbg = NULL;
	n1 = x->later ? x->later->ntried : 0;
	ok(x->debug && x->debug->located && x->debug->status == r1 && x->debug->ntried == n1 &&
		   n1 > 0,
	   "debug once: the search's answer and every candidate recorded in the entry (and in "
	   "its later record, for --explain)");
	ok(x->later->tried[0].role == PSYM_TRY_CANDIDATE &&
		   !strcmp(x->later->tried[0].path, x->debug->tried[0].path),
	   "debug once: the later record has the same candidates, as a search's");
	r2 = psym_objtab_locate_debug(t, x, &lo, bin, &dbg, &why2, &e);
	ok(r2 == r1 && x->later->ntried == n1 && why2.code == why1.code,
	   "debug once: asked again, the entry answers, no candidate is tried");
	psym_elf_close(dbg);
	psym_elf_close(bin);
	psym_objtab_free(t);
	rmdir(dir);
}

/* Kernel modules: each one's search is kept under the kernel entry, the first one kept wins. */
static void test_kmod_once(void)
{
	struct psym_objtab *t = psym_objtab_new(0);
	struct psym_located *k = NULL;
	struct psym_locside s = { 0 };
	struct psym_reason why = { 0 };
	struct psym_err e = { 0 };
	char file[256];

	if (!t || psym_objtab_add(t, PSYM_MAP_KERNEL, "", NULL, NULL, &k, &e)) {
		ok(false, "kmod once: setup");
		psym_objtab_free(t);
		return;
	}
	ok(!psym_objtab_kmod_known(t, k, "ext4", file, sizeof(file), &why),
	   "kmod once: a module not searched yet is not known");
	psym_locside_push(&s, "/m/a/ext4.ko", "not a module with DWARF");
	psym_locside_push(&s, "/m/b/ext4.ko", "kernel module used");
	s.file = strdup("/m/b/ext4.ko");
	ok(psym_objtab_kmod_keep(t, k, "ext4", &s, &e) == 0 && !s.file && !s.ntried,
	   "kmod once: the search is kept, the caller's record emptied");
	ok(psym_objtab_kmod_known(t, k, "ext4", file, sizeof(file), &why) == 1 &&
		   !strcmp(file, "/m/b/ext4.ko"),
	   "kmod once: asked again, the entry gives the file used");
	ok(k->nkmods == 1 && k->kmods[0].side.ntried == 2 &&
		   !strcmp(k->kmods[0].side.tried[0].verdict, "not a module with DWARF"),
	   "kmod once: every candidate and its verdict recorded in the kernel entry");
	psym_locside_push(&s, "/m/c/ext4.ko", "kernel module used");
	s.file = strdup("/m/c/ext4.ko");
	psym_objtab_kmod_keep(t, k, "ext4", &s, &e);
	ok(psym_objtab_kmod_known(t, k, "ext4", file, sizeof(file), &why) == 1 &&
		   !strcmp(file, "/m/b/ext4.ko") && k->nkmods == 1 && !s.file,
	   "kmod once: a second search of the same module does not replace the first");
	s.status = PSYM_NOENT;
	psym_reason_set(&s.why, PSYM_R_NOT_FOUND, "no usable file for kernel module 'xfs'");
	psym_objtab_kmod_keep(t, k, "xfs", &s, &e);
	ok(psym_objtab_kmod_known(t, k, "xfs", file, sizeof(file), &why) == 1 && !file[0] &&
		   why.code == PSYM_R_NOT_FOUND,
	   "kmod once: a module not found is known, with its reason");
	ok(!psym_objtab_kmod_known(NULL, NULL, "xfs", file, sizeof(file), &why),
	   "kmod once: without a table nothing is known");
	psym_objtab_free(t);
}

/*
 * The files tried for an opened object are table data: recorded in the
 * entry's later record as (role, path, reason or used with a detail), in
 * order, handed out once each by psym_objtab_news, at most the table's cap
 * kept and the rest counted; nothing kept for a table that keeps no
 * candidates.
 */
static void test_news(void)
{
	struct psym_objtab *t = psym_objtab_new(0);
	struct psym_located *x = NULL;
	struct psym_reason miss = { .code = PSYM_R_NOT_FOUND };
	struct psym_reason bad = { .code = PSYM_R_DWO_MISMATCH };
	const struct psym_objtab_try *tr;
	struct psym_err e = { 0 };
	size_t n, lost, kept = 0;
	char path[64];

	if (!t || psym_objtab_add(t, PSYM_MAP_FILE, "/p", NULL, NULL, &x, &e)) {
		ok(false, "news: setup");
		psym_objtab_free(t);
		return;
	}
	psym_objtab_news(t, x, &tr, &n, &lost);
	ok(!tr && !n && !lost, "news: none before any is tried");
	snprintf(bad.detail, sizeof(bad.detail), "rejected: dwo id 1, want 2");
	psym_objtab_tried(t, x, PSYM_TRY_DWO, "/a.dwo", &miss);
	psym_objtab_tried(t, x, PSYM_TRY_DWO, "/b.dwo", &bad);
	psym_objtab_tried(t, x, PSYM_TRY_DWO, "/c.dwo", NULL);
	psym_objtab_tried(t, x, PSYM_TRY_DWP, "/p.dwp", NULL);
	psym_objtab_used(t, x, PSYM_TRY_SOURCE, "/p", "Go 1.20+", PSYM_TRY_NO_INLINES);
	psym_objtab_news(t, x, &tr, &n, &lost);
	ok(n == 5 && !lost && tr && !strcmp(tr[0].path, "/a.dwo") &&
		   !strcmp(tr[0].verdict, "not found") && !tr[0].used && tr[0].role == PSYM_TRY_DWO,
	   "news: a refusal, its reason's text");
	ok(n == 5 && !strcmp(tr[1].verdict, "rejected: dwo id 1, want 2") && !tr[1].used,
	   "news: a refusal with a detail");
	ok(n == 5 && tr[2].used && tr[2].role == PSYM_TRY_DWO && !*tr[2].verdict && tr[3].used &&
		   tr[3].role == PSYM_TRY_DWP,
	   "news: a .dwo and a .dwp used, no words of their own");
	ok(n == 5 && tr[4].used && !strcmp(tr[4].verdict, "Go 1.20+") &&
		   tr[4].flags == PSYM_TRY_NO_INLINES,
	   "news: a file used, with the detail and flags its words need");
	ok(x->later && x->later->ntried == 5, "news: kept in the entry's later record");
	psym_objtab_news(t, x, &tr, &n, &lost);
	ok(n == 0 && !lost, "news: each file handed out once");
	for (int i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "/d/%d.dwo", i);
		psym_objtab_tried(t, x, PSYM_TRY_DWO, path, &miss);
	}
	psym_objtab_news(t, x, &tr, &n, &lost);
	kept = x->later->ntried;
	ok(n == kept - 5 && n + lost == 300 && lost > 0 && !strcmp(tr[0].path, "/d/0.dwo"),
	   "news: past the cap the rest are counted, not kept (%zu kept, %zu lost)", n, lost);
	psym_objtab_tried(NULL, NULL, PSYM_TRY_DWO, "/x.dwo", NULL);
	psym_objtab_news(NULL, NULL, &tr, &n, &lost);
	ok(!tr && !n && !lost, "news: without a table, nothing");
	psym_objtab_free(t);
	t = psym_objtab_new(0);
	x = NULL;
	if (!t || psym_objtab_add(t, PSYM_MAP_FILE, "/q", NULL, NULL, &x, &e)) {
		ok(false, "news: setup");
		psym_objtab_free(t);
		return;
	}
	psym_objtab_keep_tried(t, false);
	psym_objtab_tried(t, x, PSYM_TRY_ALT, "/alt", NULL);
	psym_objtab_news(t, x, &tr, &n, &lost);
	ok(!n && !lost && !x->later, "news: a table that keeps no candidates keeps none");
	psym_objtab_free(t);
}

int main(void)
{
	struct psym_objtab *t = psym_objtab_new(0);
	struct psym_located *x, *y, *z, *v;
	struct psym_elf *self = NULL, *a = NULL, *b = NULL, *c = NULL;
	struct psym_locate_opts lo = { 0 };
	struct psym_reason why = { 0 };
	struct psym_err e = { 0 };
	char exe[PATH_MAX], clean[PATH_MAX], upper[PSYM_BUILD_ID_HEX_MAX] = "";
	bool used = false;

	test_array();
	test_kmod_once();
	test_news();
	is_int(psym_objkey_classify("[vdso]", clean, sizeof(clean)), PSYM_MAP_VDSO, "[vdso]");
	is_int(psym_objkey_classify("/usr/lib/x.so (deleted)", clean, sizeof(clean)), PSYM_MAP_FILE,
	       "a deleted file is a file");
	is_str(clean, "/usr/lib/x.so", "... named without ' (deleted)'");
	is_int(psym_objkey_classify("[heap]", clean, sizeof(clean)), PSYM_MAP_SPECIAL, "[heap]");

	/* This test's own executable: a file with a build ID. */
	if (!realpath("/proc/self/exe", exe) || psym_elf_open(exe, NULL, &self, &e) ||
	    !psym_elf_build_id(self)) {
		printf("1..0 # SKIP no build ID in %s\n", exe);
		return 77;
	}
	snprintf(upper, sizeof(upper), "%s", psym_elf_build_id(self));
	for (char *p = upper; *p; p++)
		*p = (char)toupper((unsigned char)*p);

	ok(t && psym_objtab_add(t, PSYM_MAP_FILE, exe, upper, NULL, &x, &e) == 0, "add a file");
	ok(psym_objtab_add(t, PSYM_MAP_FILE, exe, psym_elf_build_id(self), NULL, &y, &e) == 0 &&
		   x == y,
	   "its build ID in another case: the same object");
	ok(psym_objtab_add(t, PSYM_MAP_FILE, exe, "00112233445566778899", NULL, &z, &e) == 0 &&
		   z != x,
	   "another build ID: another object");
	ok(psym_objtab_add(t, PSYM_MAP_VDSO, "ignored", "", NULL, &v, &e) == 0 && !*v->path,
	   "the vDSO: no path in its key");
	is_int((int)psym_objtab_count(t), 3, "three objects, in the order added");
	ok(psym_objtab_at(t, 0) == x && psym_objtab_at(t, 1) == z && psym_objtab_at(t, 3) == NULL,
	   "walked in order");
	ok(!x->located, "not located before the pass");

	is_int(psym_objtab_locate(t, &lo, &e), 0, "the locate pass");
	ok(x->located && x->status == 0 && x->file && !strcmp(x->file, exe),
	   "the file with the build ID is found, and where it came from is kept");
	for (size_t i = 0; i < x->ntried; i++)
		used |= !strcmp(x->tried[i].path, exe) && strstr(x->tried[i].verdict, "used");
	ok(used, "its candidate and verdict are recorded");
	ok(z->located && z->status == PSYM_NOENT && !z->file && z->why.code != PSYM_R_NONE,
	   "another build ID: not found, with the reason");
	ok(z->ntried >= 1 && strstr(z->tried[0].verdict, "mismatch"),
	   "the refused candidate says why (%s)", z->ntried ? z->tried[0].verdict : "none");
	ok(v->located && v->status == PSYM_NOENT, "no vDSO image anywhere: not found");
	ok(!x->index, "no symbol index until the index module fills it");

	ok(psym_objtab_elf(x) != NULL, "the opened file is lent");
	is_int(psym_objtab_take_elf(t, x, NULL, &a, &why, &e), 0, "handed over");
	ok(psym_objtab_elf(x) == NULL, "... then no longer lent");
	is_int(psym_objtab_take_elf(t, x, NULL, &b, &why, &e), 0, "asked again: opened again");
	ok(a && b && a != b && !strcmp(psym_elf_path(b), exe), "... the same file");
	is_int(psym_objtab_take_elf(t, z, NULL, &c, &why, &e), PSYM_NOENT,
	       "a missing object: not found");
	ok(!c && why.code == z->why.code, "... with its reason");
	psym_elf_close(a);
	psym_elf_close(b);
	psym_objtab_free(t);

	/* At most one located file held: the second keeps only its path. */
	t = psym_objtab_new(0);
	psym_objtab_set_max_held(t, 1);
	a = b = NULL;
	ok(t && psym_objtab_add(t, PSYM_MAP_FILE, exe, upper, NULL, &x, &e) == 0 &&
		   psym_objtab_add(t, PSYM_MAP_FILE, exe, upper, exe, &y, &e) == 0 && x != y,
	   "the file named by the user is another key");
	is_int(psym_objtab_locate(t, &lo, &e), 0, "located");
	ok(psym_objtab_elf(x) && !psym_objtab_elf(y) && y->status == 0 && y->file,
	   "past the cap of held files: found, its file not held open");
	ok(psym_objtab_take_elf(t, y, NULL, &b, &why, &e) == 0 && b &&
		   !strcmp(psym_elf_path(b), exe),
	   "taken: opened again from where it was found");
	ok(psym_objtab_take_elf(t, x, NULL, &a, &why, &e) == 0 && a, "the held one handed over");
	psym_elf_close(a);
	psym_elf_close(b);
	psym_objtab_free(t);
	psym_elf_close(self);
	test_perf_maps();
	test_debug_once(exe);
	return tap_done();
}
