/* SPDX-License-Identifier: MIT */
/*
 * The locator's candidate paths, rule by rule, as pure functions: no file
 * is opened. (The verifier is exercised by the shell tests on real files.)
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "locate.h"
#include "tap.h"

#define MAXC 64

struct got {
	char path[MAXC][512];
	enum psym_cand_rule rule[MAXC];
	size_t n, stop_at; /* stop_at: 1-based candidate to stop at, 0: never */
};

static bool collect(void *ud, const char *path, enum psym_cand_rule rule)
{
	struct got *g = ud;

	if (g->n < MAXC) {
		snprintf(g->path[g->n], sizeof(g->path[0]), "%s", path);
		g->rule[g->n] = rule;
	}
	g->n++;
	return g->stop_at && g->n == g->stop_at;
}

static void want(const struct got *g, size_t i, const char *path, enum psym_cand_rule rule,
		 const char *what)
{
	is_str(i < g->n ? g->path[i] : NULL, path, "%s: candidate %zu path", what, i);
	is_int(i < g->n ? (int)g->rule[i] : -1, (int)rule, "%s: candidate %zu rule", what, i);
}

static const char *search[] = { "/s1", "/s2" }, *debug[] = { "/d1", "/usr/lib/debug" };

/* What every case starts from: two search dirs and two debug dirs. */
static struct psym_locate_opts base_opts(void)
{
	return (struct psym_locate_opts){
		.search = search, .n_search = 2, .debug_dirs = debug, .n_debug_dirs = 2
	};
}

/* Binary: pprof's conventions, the sysroot, a named file. */
static void binary_candidates(void)
{
	struct psym_locate_opts o = base_opts();
	struct psym_objkey k = { .path = "/usr/lib/libx.so.1", .build_id = "ABCDEF0123" };
	struct got g = { 0 };
	bool stopped;

	/* Binary: pprof's conventions per search dir, then the sysroot. */
	psym_locate_binary_candidates(&o, &k, collect, &g);
	is_int((int)g.n, 13, "binary: 6 per search dir + sysroot");
	want(&g, 0, "/s1/abcdef0123/libx.so.1", PSYM_CAND_BUILDID_BASE, "build ID lowercased");
	want(&g, 1, "/s1/abcdef0123", PSYM_CAND_BUILDID_DIR, "build-ID directory");
	want(&g, 2, "/s1/abcdef0123", PSYM_CAND_BUILDID, "build-ID file");
	want(&g, 3, "/s1/usr/lib/libx.so.1/abcdef0123", PSYM_CAND_PATH_BUILDID, "path/build ID");
	want(&g, 4, "/s1/libx.so.1", PSYM_CAND_BASENAME, "basename");
	want(&g, 5, "/s1/usr/lib/libx.so.1", PSYM_CAND_PATH, "path");
	want(&g, 6, "/s2/abcdef0123/libx.so.1", PSYM_CAND_BUILDID_BASE, "second dir");
	want(&g, 12, "/usr/lib/libx.so.1", PSYM_CAND_SYSROOT, "own path last");

	/* Stops where the callback says. */
	memset(&g, 0, sizeof(g));
	g.stop_at = 3;
	stopped = psym_locate_binary_candidates(&o, &k, collect, &g);
	ok(stopped && g.n == 3, "enumeration stops when the callback returns true");

	/* A build ID that is not hex never becomes a path. */
	memset(&g, 0, sizeof(g));
	k.build_id = "../../etc";
	psym_locate_binary_candidates(&o, &k, collect, &g);
	is_int((int)g.n, 5, "non-hex build ID: only basename and path rules");
	for (size_t i = 0; i < g.n && i < MAXC; i++)
		ok(!strstr(g.path[i], "etc/") || g.rule[i] != PSYM_CAND_BUILDID,
		   "no build-ID rule from a non-hex build ID (%zu)", i);

	/* '..' in a profile's path never leaves the sysroot. */
	memset(&g, 0, sizeof(g));
	o.n_search = 0;
	o.sysroot = "/root";
	k.path = "/../../../etc/../etc/passwd";
	k.build_id = NULL;
	psym_locate_binary_candidates(&o, &k, collect, &g);
	is_int((int)g.n, 1, "sysroot: one candidate");
	want(&g, 0, "/root/etc/passwd", PSYM_CAND_SYSROOT, "'..' stays under the sysroot");

	/* A relative path (crash log's ./prog) with no sysroot: as given. */
	memset(&g, 0, sizeof(g));
	o.sysroot = NULL;
	k.path = "./prog";
	psym_locate_binary_candidates(&o, &k, collect, &g);
	want(&g, 0, "./prog", PSYM_CAND_SYSROOT, "relative path as given");

	/* A file the user named is the only candidate. */
	memset(&g, 0, sizeof(g));
	o.n_search = 2;
	k.named = "/tmp/mine";
	psym_locate_binary_candidates(&o, &k, collect, &g);
	is_int((int)g.n, 1, "named: the only candidate");
	want(&g, 0, "/tmp/mine", PSYM_CAND_NAMED, "named file");
}

/* Debug file: build-ID trees, the debuglink rules, a debuglink that is a path. */
static void debug_candidates(void)
{
	struct psym_locate_opts o = base_opts();
	struct psym_debug_key dk = { 0 };
	struct got g = { 0 };

	/* Debug file: build-ID trees, then the debuglink rules. */
	dk.build_id = "0A1b2c";
	dk.binary_dir = "bin";
	dk.binary_dir_abs = "/work/bin";
	dk.debuglink = "libx.so.1.debug";
	psym_locate_debug_candidates(&o, &dk, collect, &g);
	is_int((int)g.n, 12, "debug: 2 trees and perf's layout + 2 beside + 3 per debug dir");
	want(&g, 0, "/d1/.build-id/0a/1b2c.debug", PSYM_CAND_TREE_DEBUG, "tree, lowercased");
	want(&g, 1, "/d1/.build-id/0a/1b2c/debug", PSYM_CAND_PERF_DEBUG, "perf's build-ID cache");
	want(&g, 2, "/usr/lib/debug/.build-id/0a/1b2c.debug", PSYM_CAND_TREE_DEBUG, "second tree");
	want(&g, 3, "/usr/lib/debug/.build-id/0a/1b2c/debug", PSYM_CAND_PERF_DEBUG, "second, perf");
	want(&g, 4, "bin/libx.so.1.debug", PSYM_CAND_LINK_BESIDE, "beside the binary");
	want(&g, 5, "bin/.debug/libx.so.1.debug", PSYM_CAND_LINK_DOTDEBUG, "in .debug/");
	want(&g, 6, "/d1/work/bin/libx.so.1.debug", PSYM_CAND_LINK_DEBUGDIR, "debug dir + abs dir");
	want(&g, 7, "/d1/bin/libx.so.1.debug", PSYM_CAND_LINK_TAIL, "debug dir + dir's tail");
	want(&g, 8, "/d1/libx.so.1.debug", PSYM_CAND_LINK_FLAT, "flat debug dir");
	want(&g, 10, "/usr/lib/debug/bin/libx.so.1.debug", PSYM_CAND_LINK_TAIL, "tail, last dir");
	want(&g, 11, "/usr/lib/debug/libx.so.1.debug", PSYM_CAND_LINK_FLAT, "flat, last dir");

	/* A debuglink that is a path is never followed. */
	memset(&g, 0, sizeof(g));
	dk.build_id = NULL;
	dk.debuglink = "../../etc/passwd";
	psym_locate_debug_candidates(&o, &dk, collect, &g);
	is_int((int)g.n, 0, "debuglink with a slash: no candidate");
	dk.debuglink = "..";
	psym_locate_debug_candidates(&o, &dk, collect, &g);
	is_int((int)g.n, 0, "debuglink '..': no candidate");

	/* No debuglink, a build ID: elfutils' BASENAME.debug after the trees. */
	memset(&g, 0, sizeof(g));
	dk.build_id = "0a1b2c";
	dk.debuglink = NULL;
	dk.binary_base = "libx.so.1";
	psym_locate_debug_candidates(&o, &dk, collect, &g);
	is_int((int)g.n, 8, "no debuglink: 4 tree files + 2 beside + 1 per debug dir");
	want(&g, 4, "bin/libx.so.1.debug", PSYM_CAND_NAME_DEBUG, "BASENAME.debug beside");
	want(&g, 5, "bin/.debug/libx.so.1.debug", PSYM_CAND_NAME_DEBUG, "in .debug/");
	want(&g, 6, "/d1/work/bin/libx.so.1.debug", PSYM_CAND_NAME_DEBUG, "debug dir + abs dir");
	/* Without a build ID nothing could check such a file: not offered. */
	memset(&g, 0, sizeof(g));
	dk.build_id = NULL;
	psym_locate_debug_candidates(&o, &dk, collect, &g);
	is_int((int)g.n, 0, "no debuglink, no build ID: no candidate");
	dk.build_id = "0a1b2c";
	dk.binary_base = "..";
	memset(&g, 0, sizeof(g));
	psym_locate_debug_candidates(&o, &dk, collect, &g);
	is_int((int)g.n, 4, "a base name '..' is not used (the trees only)");
}

static void link_tails(void)
{
	struct got g = { 0 };

	/* elfutils' trailing components, longest first, as a pure function. */
	psym_locate_link_tails("/dd", "/some/root//bin/", "prog.debug", collect, &g);
	is_int((int)g.n, 2, "tails of /some/root//bin/: root/bin and bin");
	want(&g, 0, "/dd/root//bin//prog.debug", PSYM_CAND_LINK_TAIL, "longest tail first");
	want(&g, 1, "/dd/bin//prog.debug", PSYM_CAND_LINK_TAIL, "shortest tail last");
	memset(&g, 0, sizeof(g));
	psym_locate_link_tails("/dd", "/bin", "prog.debug", collect, &g);
	is_int((int)g.n, 0, "a top-level dir has no proper tail (DEBUGDIR/bin is the full rule)");
	psym_locate_link_tails("/dd", "rel/bin", "prog.debug", collect, &g);
	is_int((int)g.n, 0, "a relative dir: none (elfutils: absolute only)");
	psym_locate_link_tails("/dd", "/a/b/c", "../x", collect, &g);
	is_int((int)g.n, 0, "a debuglink with a slash: none");
	memset(&g, 0, sizeof(g));
	g.stop_at = 1;
	ok(psym_locate_link_tails("/dd", "/a/b/c", "x.debug", collect, &g) && g.n == 1,
	   "tails: stops when the callback says");
}

/* dwz alternate file: recorded path, re-rooted under each debug dir, build-ID trees. */
static void alt_candidates(void)
{
	struct psym_locate_opts o = base_opts();
	struct got g = { 0 };
	struct psym_alt_key ak = { .path = "/usr/lib/debug/.dwz/x86_64-linux-gnu/liblua.debug",
				   .build_id = "AB12cd",
				   .debug_dir = "/d1/.build-id/0a" };

	memset(&g, 0, sizeof(g));
	psym_locate_alt_candidates(&o, &ak, collect, &g);
	is_int((int)g.n, 4, "alt: recorded + 1 re-rooted (the other is recorded) + 2 trees");
	want(&g, 0, "/usr/lib/debug/.dwz/x86_64-linux-gnu/liblua.debug", PSYM_CAND_ALT_RECORDED,
	     "alt: recorded path");
	want(&g, 1, "/d1/.dwz/x86_64-linux-gnu/liblua.debug", PSYM_CAND_ALT_DEBUGDIR,
	     "alt: re-rooted under a debug dir (an extracted --debug-pkg tree)");
	want(&g, 2, "/d1/.build-id/ab/12cd.debug", PSYM_CAND_ALT_TREE, "alt: tree, lowercased");
	want(&g, 3, "/usr/lib/debug/.build-id/ab/12cd.debug", PSYM_CAND_ALT_TREE,
	     "alt: second tree");

	/* Fedora's relative link, from the debug file's directory. */
	memset(&g, 0, sizeof(g));
	ak.path = "../../.dwz/lua-5.4.debug";
	ak.debug_dir = "/usr/lib/debug/usr/lib64";
	psym_locate_alt_candidates(&o, &ak, collect, &g);
	want(&g, 0, "/usr/lib/debug/.dwz/lua-5.4.debug", PSYM_CAND_ALT_RECORDED,
	     "alt: relative to the debug file's directory");
	want(&g, 1, "/d1/.dwz/lua-5.4.debug", PSYM_CAND_ALT_DEBUGDIR,
	     "alt: relative, then re-rooted");

	/* Beside the debug file (dwz -M common.debug), in no debug dir. */
	memset(&g, 0, sizeof(g));
	ak.path = "common.debug";
	ak.debug_dir = "/work/out";
	psym_locate_alt_candidates(&o, &ak, collect, &g);
	want(&g, 0, "/work/out/common.debug", PSYM_CAND_ALT_RECORDED, "alt: beside");
	is_int((int)g.n, 3, "alt: beside + 2 trees");

	/* Hostile: nothing outside the debug dirs and the debug file's dir. */
	memset(&g, 0, sizeof(g));
	ak.path = "../../../../../../etc/passwd";
	psym_locate_alt_candidates(&o, &ak, collect, &g);
	is_int((int)g.n, 2, "alt: '..' out of everything: only the trees");
	want(&g, 0, "/d1/.build-id/ab/12cd.debug", PSYM_CAND_ALT_TREE, "alt: escape");
	memset(&g, 0, sizeof(g));
	ak.path = "/dev/zero";
	psym_locate_alt_candidates(&o, &ak, collect, &g);
	is_int((int)g.n, 2, "alt: /dev/zero is never a candidate");
	memset(&g, 0, sizeof(g));
	ak.path = "/usr/lib/debug/../../../etc/shadow";
	psym_locate_alt_candidates(&o, &ak, collect, &g);
	is_int((int)g.n, 2, "alt: '..' out of /usr/lib/debug: normalized first");
	memset(&g, 0, sizeof(g));
	ak.path = "/usr/lib/debugger/x";
	psym_locate_alt_candidates(&o, &ak, collect, &g);
	is_int((int)g.n, 2, "alt: a sibling of /usr/lib/debug is not under it");
	memset(&g, 0, sizeof(g));
	ak.path = "rel.debug";
	ak.debug_dir = NULL;
	ak.build_id = "../x";
	psym_locate_alt_candidates(&o, &ak, collect, &g);
	is_int((int)g.n, 0, "alt: relative to nothing, no hex build ID: no candidate");
}

/* Split DWARF: the .dwo as the compiler named it, beside the binary, --dwo-dir. */
static void dwo_candidates(void)
{
	struct psym_locate_opts o = base_opts();
	const char *dwo_dirs[] = { "/moved" };
	struct got g = { 0 };
	struct psym_dwo_key wk = {
		.binary_path = "/opt/app/bin/prog",
		.comp_dir = "/build/obj",
		.dwo_name = "sub/a.dwo",
	};

	o.dwo_dirs = dwo_dirs;
	o.n_dwo_dirs = 1;
	psym_locate_dwo_candidates(&o, &wk, collect, &g);
	is_int((int)g.n, 6, "dwo: as named + 2 beside + 3 per dwo dir");
	want(&g, 0, "/build/obj/sub/a.dwo", PSYM_CAND_DWO_AS_NAMED, "comp_dir/dwo_name");
	want(&g, 1, "/opt/app/bin/sub/a.dwo", PSYM_CAND_DWO_BESIDE, "beside, as named");
	want(&g, 2, "/opt/app/bin/a.dwo", PSYM_CAND_DWO_BESIDE, "beside, basename");
	want(&g, 3, "/moved/sub/a.dwo", PSYM_CAND_DWO_DIR, "dwo dir, as named");
	want(&g, 4, "/moved/build/obj/sub/a.dwo", PSYM_CAND_DWO_DIR, "dwo dir, comp_dir");
	want(&g, 5, "/moved/a.dwo", PSYM_CAND_DWO_DIR, "dwo dir, basename");

	/* An absolute dwo_name: itself first; under a dwo dir like a sysroot. */
	memset(&g, 0, sizeof(g));
	wk.dwo_name = "/abs/b.dwo";
	psym_locate_dwo_candidates(&o, &wk, collect, &g);
	is_int((int)g.n, 4, "absolute dwo: itself + basename beside + 2 per dwo dir");
	want(&g, 0, "/abs/b.dwo", PSYM_CAND_DWO_AS_NAMED, "absolute dwo_name");
	want(&g, 1, "/opt/app/bin/b.dwo", PSYM_CAND_DWO_BESIDE, "absolute: basename beside");
	want(&g, 2, "/moved/abs/b.dwo", PSYM_CAND_DWO_DIR, "absolute: under the dwo dir");

	/* ".." never leaves the binary's directory or a dwo dir. */
	memset(&g, 0, sizeof(g));
	wk.comp_dir = NULL;
	wk.dwo_name = "../../etc/x";
	psym_locate_dwo_candidates(&o, &wk, collect, &g);
	is_int((int)g.n, 4, "dwo with '..': beside + basename, dwo dir + basename");
	want(&g, 0, "/opt/app/bin/etc/x", PSYM_CAND_DWO_BESIDE, "'..' stays in BINDIR");
	want(&g, 2, "/moved/etc/x", PSYM_CAND_DWO_DIR, "'..' stays in the dwo dir");
	memset(&g, 0, sizeof(g));
	wk.dwo_name = "..";
	psym_locate_dwo_candidates(&o, &wk, collect, &g);
	is_int((int)g.n, 0, "dwo_name '..' without comp_dir: no candidate");
	memset(&g, 0, sizeof(g));
	wk.dwo_name = "";
	psym_locate_dwo_candidates(&o, &wk, collect, &g);
	is_int((int)g.n, 0, "empty dwo_name: no candidate");
}

/* .dwp: --dwp, BINARY.dwp, DEBUGDIR/BASENAME.dwp. */
static void dwp_candidates(void)
{
	struct psym_locate_opts o = base_opts();
	struct got g = { 0 };

	o.dwp = "/pk/prog.dwp";
	psym_locate_dwp_candidates(&o, "/opt/app/bin/prog", collect, &g);
	is_int((int)g.n, 4, "dwp: named + beside + 1 per debug dir");
	want(&g, 0, "/pk/prog.dwp", PSYM_CAND_DWP_NAMED, "--dwp");
	want(&g, 1, "/opt/app/bin/prog.dwp", PSYM_CAND_DWP_BESIDE, "BINARY.dwp");
	want(&g, 2, "/d1/prog.dwp", PSYM_CAND_DWP_DEBUGDIR, "debug dir by name");
}

/* The build-ID rule: same digits in any case. */
static void build_id_equal(void)
{
	ok(psym_build_id_equal("ABcd01", "abCD01"), "build IDs compare without case");
	ok(!psym_build_id_equal("abcd01", "abcd0"), "a prefix is not equal");
	ok(!psym_build_id_equal("abcd01", NULL), "NULL is never equal");
}

int main(void)
{
	binary_candidates();
	debug_candidates();
	link_tails();
	alt_candidates();
	dwo_candidates();
	dwp_candidates();
	build_id_equal();
	return tap_done();
}
