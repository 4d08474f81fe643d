/* SPDX-License-Identifier: MIT */
/*
 * Kernel modules: the locator's module trees (pure), finding a module's
 * file in a tree by name ('-' and '_' alike, compressed names), and
 * psym-collect's record (BPF-collector/kmodules.c) written from a made-up
 * /sys/module and read back by psym (kmod.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kmod.h"
#include "kmodules.h"
#include "locate.h"
#include "tap.h"

struct got {
	char path[8][512];
	enum psym_cand_rule rule[8];
	size_t n;
};

static bool collect(void *ud, const char *path, enum psym_cand_rule rule)
{
	struct got *g = ud;

	if (g->n < 8) {
		snprintf(g->path[g->n], sizeof(g->path[0]), "%s", path);
		g->rule[g->n] = rule;
	}
	g->n++;
	return false;
}

static void put(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(data, 1, len, f);
		fclose(f);
	}
}

static void mkdirs(const char *root, const char *rel)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

int main(void)
{
	const char *mods[] = { "/m1", "m2" }, *debug[] = { "/d1", "/usr/lib/debug" };
	struct psym_locate_opts o = { .modules_dirs = mods,
				      .n_modules_dirs = 2,
				      .debug_dirs = debug,
				      .n_debug_dirs = 2,
				      .sysroot = "/sr",
				      .release = "6.1.0-18-amd64" };
	struct got g = { 0 };
	char tmp[] = "/tmp/psym-kmod-XXXXXX", path[1024], found[1024], bid[130];
	unsigned char note[12 + 4 + 20];
	uint64_t text = 1;
	struct psym_err e = { 0 };
	unsigned char *rec = NULL;
	size_t reclen = 0;
	FILE *f;

	psym_locate_module_roots(&o, collect, &g);
	is_int((int)g.n, 5, "module trees: 2 dirs, 2 debug dirs, the sysroot");
	is_str(g.path[0], "/m1", "--modules-dir first");
	is_str(g.path[2], "/d1/lib/modules/6.1.0-18-amd64", "DEBUGDIR/lib/modules/RELEASE");
	is_int((int)g.rule[3], PSYM_CAND_MODULE_DEBUGDIR, "rule of a debug dir");
	is_str(g.path[4], "/sr/lib/modules/6.1.0-18-amd64", "SYSROOT/lib/modules/RELEASE");
	g.n = 0;
	o.release = "../../etc";
	psym_locate_module_roots(&o, collect, &g);
	is_int((int)g.n, 2, "a release that is a path: only --modules-dir");

	if (!mkdtemp(tmp))
		return 1;
	/* A tree as /lib/modules/RELEASE has it. */
	mkdirs(tmp, "lib/kernel/sound/pci/hda");
	snprintf(path, sizeof(path), "%s/lib/kernel/sound/pci/hda/snd-hda-intel.ko.zst", tmp);
	put(path, "x", 1);
	snprintf(path, sizeof(path), "%s/lib", tmp);
	ok(psym_kmod_find(path, "snd_hda_intel", found, sizeof(found)) == 0 &&
		   strstr(found, "snd-hda-intel.ko.zst"),
	   "kallsyms' snd_hda_intel is snd-hda-intel.ko.zst");
	ok(psym_kmod_find(path, "snd_hda", found, sizeof(found)) == PSYM_NOENT,
	   "a prefix of a name is not the module");
	ok(psym_kmod_find(path, "../x", found, sizeof(found)) == PSYM_NOENT, "no paths as names");
	ok(psym_kmod_name_is("a/ext4.ko.xz") && psym_kmod_name_is("ext4.ko.debug") &&
		   !psym_kmod_name_is("ext4.o") && !psym_kmod_name_is(".ko"),
	   "module file names");

	/* /sys/module: one module with code and a build ID, one built in. */
	mkdirs(tmp, "sys/module/ext4/sections");
	mkdirs(tmp, "sys/module/ext4/notes");
	mkdirs(tmp, "sys/module/printk/parameters");
	snprintf(path, sizeof(path), "%s/sys/module/ext4/sections/.text", tmp);
	put(path, "0xffffffffc0a3b000\n", 19);
	memcpy(note,
	       (const unsigned char[]){ 4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0 },
	       16);
	for (int i = 0; i < 20; i++)
		note[16 + i] = (unsigned char)(0xa0 + i);
	snprintf(path, sizeof(path), "%s/sys/module/ext4/notes/.note.gnu.build-id", tmp);
	put(path, note, sizeof(note));
	mkdirs(tmp, "side");
	snprintf(path, sizeof(path), "%s/side", tmp);
	is_int(psym_collect_modules(tmp, path, &e), 0, "record written: %s", e.msg);
	snprintf(path, sizeof(path), "%s/side/modules", tmp);
	f = fopen(path, "rb");
	if (f) {
		rec = malloc(4096);
		reclen = rec ? fread(rec, 1, 4096, f) : 0;
		fclose(f);
	}
	ok(rec && psym_kmod_record_find((char *)rec, reclen, "ext4", bid, sizeof(bid), &text) == 0,
	   "ext4 is in the record");
	is_str(bid, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3", "its build ID from the note");
	ok(text == 0xffffffffc0a3b000ULL, "its .text address");
	ok(psym_kmod_record_find((char *)rec, reclen, "printk", bid, sizeof(bid), &text) ==
		   PSYM_NOENT,
	   "a built-in module (no sections) is not recorded");
	ok(psym_kmod_record_find("ext4 zz 0\next 00ff 1\n", 20, "ext", bid, sizeof(bid), &text) ==
			   0 &&
		   !strcmp(bid, "00ff"),
	   "record lines: names matched whole, hex build IDs only");
	free(rec);
	{
		char cmd[1100];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			return 1;
	}
	return tap_done();
}
