/* SPDX-License-Identifier: MIT */
/*
 * Kernel modules in debug packages (obj/debkmod): which members are module
 * files of which release, which wants name them, the cache index's module
 * lines (keys written, hostile lines refused), and the package a debug
 * dir was extracted from (locate's psym_locate_debug_pkg, for --explain).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "debkmod.h"
#include "locate.h"
#include "tap.h"

int main(void)
{
	struct psym_deb_kmod pmod = { "pmod", "6.1.0-test", NULL };
	struct psym_deb_kmod any = { "nf-tables", NULL, "00ab" };
	const char *dirs[] = { "/d", "/c/debs/x.deb-1-2/usr/lib/debug", "/usr/lib/debug" };
	const char *pkgs[] = { NULL, "x.deb", NULL };
	struct psym_locate_opts o = { .debug_dirs = dirs, .n_debug_dirs = 3 };
	char rel[256], key[512];
	const char *base = NULL;
	size_t off = 0;

	ok(psym_debkmod_member("usr/lib/debug/lib/modules/6.1.0-test/kernel/fs/pmod.ko.xz", rel,
			       sizeof(rel), &base),
	   "a .ko.xz below lib/modules/RELEASE is a module member");
	is_str(rel, "6.1.0-test", "its release");
	is_str(base, "pmod.ko.xz", "its file name");
	ok(psym_debkmod_matches(&pmod, rel, base), "the want of its name and release names it");
	ok(!psym_debkmod_matches(&pmod, "6.1.0-other", base), "another release: not named");
	ok(psym_debkmod_member("usr/lib/debug/lib/modules/6.1/kernel/net/nf_tables.ko", rel,
			       sizeof(rel), &base) &&
		   psym_debkmod_matches(&any, rel, base),
	   "'-' and '_' alike; a want without release names every release");
	ok(!psym_debkmod_member("usr/lib/debug/lib/modules/6.1/vmlinux", rel, sizeof(rel), &base),
	   "vmlinux is no module member");
	ok(!psym_debkmod_member("usr/lib/debug/lib/modules/pmod.ko", rel, sizeof(rel), &base),
	   "a module file without a release directory is not one");
	ok(!psym_debkmod_member("usr/lib/debug/boot/pmod.ko", rel, sizeof(rel), &base),
	   "outside lib/modules: not one");

	ok(psym_debkmod_key(&pmod, key, sizeof(key)), "key of a want");
	is_str(key, "ko 6.1.0-test pmod -", "release, name, no build ID");
	ok(psym_debkmod_key(&any, key, sizeof(key)), "key of a want of any release");
	is_str(key, "ko * nf_tables 00ab", "'*', the name with '_', the build ID");
	ok(!psym_debkmod_key(&(struct psym_deb_kmod){ "a b", "r", NULL }, key, sizeof(key)),
	   "a name with a space has no key");
	ok(psym_debkmod_parse("ko * nf_tables 00ab -", &off) && off == 20,
	   "index line without a kept file");
	ok(psym_debkmod_parse("ko r pmod - usr/lib/debug/lib/modules/r/kernel/pmod.ko", &off),
	   "index line with the kept member");
	ok(!psym_debkmod_parse("ko r pmod - ../../etc/passwd", &off), "a path outside: refused");
	ok(!psym_debkmod_parse("ko r pmod - usr/lib/debug/lib/modules/r/../../../x", &off),
	   "a path with '..': refused");
	ok(!psym_debkmod_parse("ko r pmod", &off), "too few fields: refused");
	ok(!psym_debkmod_parse("ko  pmod - -", &off), "an empty field: refused");

	ok(psym_locate_debug_pkg(&o, "/c/debs/x.deb-1-2/usr/lib/debug/lib/modules/r/p.ko") == NULL,
	   "no packages known: none");
	o.debug_dir_pkgs = pkgs;
	is_str(psym_locate_debug_pkg(&o, "/c/debs/x.deb-1-2/usr/lib/debug/lib/modules/r/p.ko"),
	       "x.deb", "a file in an extracted tree: its package");
	ok(psym_locate_debug_pkg(&o, "/d/lib/modules/r/p.ko") == NULL, "a --debug-dir: none");
	ok(psym_locate_debug_pkg(&o, "/c/debs/x.deb-1-2/usr/lib/debugX/p.ko") == NULL,
	   "a sibling whose name starts the same: none");
	return tap_done();
}
