/* SPDX-License-Identifier: MIT */
/*
 * Each resolver kind behind the one interface: file (this very test
 * program, an ELF with symbols), kernel (a kallsyms copy), JIT (a perf map
 * of one process): address translation, lookups, and the reason given
 * when there is nothing to answer with.
 */
#include "config.h"

#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "psym-int.h"
#include "tap.h"

static char dir[64];

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

__attribute__((noinline)) int resolve_test_marker(int x)
{
	return x * 3 + 1;
}

static void file_resolver(void)
{
	struct psym_reader_limits lim;
	struct psym_binary_opts bo = { .inlines = true };
	const struct psym_elf_load *loads;
	struct psym_resolver *r = NULL;
	struct psym_lookup_ctx ctx = { 0 };
	struct psym_reason why = { 0 };
	struct psym_frames *fr = malloc(sizeof(*fr));
	struct psym_elf *elf = NULL;
	struct psym_err e = { 0 };
	struct psym_mapinfo m = { 0 };
	uint64_t sym, vaddr, base = 0x7f1234000000ULL;
	size_t nl;
	char desc[512];
	struct psym_resdesc d = { 0 };

	psym_reader_limits_default(&lim);
	bo.limits = &lim;
	ok(psym_elf_open("/proc/self/exe", &lim.elf, &elf, &e) == 0, "file: open this program");
	ok(psym_elf_find_symbol(elf, "resolve_test_marker", &sym) == 0, "file: marker symbol");
	nl = psym_elf_loads(elf, &loads);
	ok(psym_file_resolver_new(elf, &bo, "file", &r, &e) == 0, "file: resolver made");
	/* The executable segment mapped at base, as a profile would say it. */
	for (size_t i = 0; i < nl; i++) {
		if (!(loads[i].flags & PF_X))
			continue;
		m.start = base + (loads[i].vaddr & ~0xfffULL);
		m.limit = m.start + loads[i].memsz + 0x1000;
		m.file_offset = loads[i].offset & ~0xfffULL;
		break;
	}
	ok(psym_resolver_to_vaddr(r, &m, base + sym, &vaddr) == 0 && vaddr == sym,
	   "file: runtime address -> ELF virtual address (got 0x%" PRIx64 ", want 0x%" PRIx64 ")",
	   vaddr, sym);
	ok(psym_resolver_to_vaddr(r, &m, m.limit + 0x100000, &vaddr) != 0,
	   "file: an address outside the mapping has no virtual address");
	ok(psym_resolver_lookup(r, &ctx, sym, fr, &why) == 0 && fr->n >= 1, "file: lookup");
	is_str(fr->f[fr->n - 1].name, "resolve_test_marker", "file: the function's name");
	ok(fr->stable, "file: strings stable for the resolver's life");
	ok(psym_resolver_lookup(r, &ctx, 0x10, fr, &why) == PSYM_NOENT, "file: nothing at 0x10");
	is_int((int)why.code, PSYM_R_NO_SYMBOL, "file: reason: no symbol");
	psym_resolver_describe(r, &d);
	psym_resdesc_summary(&d, desc, sizeof(desc));
	ok(strstr(desc, "from '/proc/self/exe'") != NULL, "file: describe names the file (%s)",
	   desc);
	psym_resolver_free(r);
	free(fr);
}

/* The kernel resolver of a located kernel entry, as the plan makes it. */
static int kernel_new(const struct psym_locate_opts *lo, const struct psym_binary_opts *bo,
		      const struct psym_reader_limits *lim, struct psym_objtab **t,
		      struct psym_resolver **r, struct psym_err *e)
{
	struct psym_located *x;
	int ret;

	*t = psym_objtab_new(0);
	if (!*t)
		return PSYM_ENOMEM;
	ret = psym_objtab_add(*t, PSYM_MAP_KERNEL, "", "", NULL, &x, e);
	if (!ret)
		ret = psym_objtab_locate(*t, lo, e);
	return ret ? ret : psym_kernel_resolver_new(*t, x, lo, bo, lim, NULL, r, e);
}

static void kernel_resolver(void)
{
	struct psym_objtab *t = NULL;
	struct psym_locate_opts lo = { 0 };
	struct psym_binary_opts bo = { .inlines = true, .locate = &lo };
	struct psym_resolver *r = NULL;
	struct psym_mapinfo m = { .start = 0xffffffff81000000ULL, .limit = 0xffffffffff000000ULL };
	struct psym_lookup_ctx ctx = { .map = &m };
	struct psym_reason why = { 0 };
	struct psym_frames *fr = malloc(sizeof(*fr));
	struct psym_err e = { 0 };
	struct psym_reader_limits lim;
	char path[128];
	uint64_t v;

	psym_reader_limits_default(&lim);
	/* No kallsyms, no vmlinux: the reason says what to give. */
	ok(kernel_new(&lo, &bo, &lim, &t, &r, &e) == 0, "kernel: made");
	ok(psym_resolver_lookup(r, &ctx, 0xffffffff81000100ULL, fr, &why) == PSYM_NOENT,
	   "kernel: nothing to answer with");
	is_int((int)why.code, PSYM_R_NO_KALLSYMS, "kernel: reason: no kallsyms");
	ok(strstr(why.detail, "--kallsyms") != NULL, "kernel: reason names --kallsyms");
	psym_resolver_free(r);
	psym_objtab_free(t);

	write_file("kallsyms", "ffffffff81000000 T _text\nffffffff81000100 T do_work\n"
			       "ffffffff81000200 t helper\nffffffff81000300 T _etext\n");
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	lo.kallsyms = path;
	ok(kernel_new(&lo, &bo, &lim, &t, &r, &e) == 0, "kernel: with kallsyms");
	ok(psym_resolver_to_vaddr(r, &m, 0xffffffff81000123ULL, &v) == 0 &&
		   v == 0xffffffff81000123ULL,
	   "kernel: addresses are looked up as they ran");
	ok(psym_resolver_lookup(r, &ctx, 0xffffffff81000123ULL, fr, &why) == 0 && fr->n == 1,
	   "kernel: lookup");
	is_str(fr->f[0].name, "do_work", "kernel: symbol covering the address");
	ok(psym_resolver_lookup(r, &ctx, 0xffffffff81000234ULL, fr, &why) == 0,
	   "kernel: local symbol");
	is_str(fr->f[0].name, "helper", "kernel: local symbol name");
	psym_resolver_free(r);
	psym_objtab_free(t);
	free(fr);
}

static void jit_resolver(void)
{
	const char *dirs[] = { dir };
	struct psym_locate_opts lo = { .perf_map_dirs = dirs, .n_perf_map_dirs = 1 };
	struct psym_perfmap_limits pl = { 0 };
	struct psym_resolver *r = NULL;
	struct psym_lookup_ctx ctx = { .pid = 4242 };
	struct psym_reason why = { 0 };
	struct psym_frames *fr = malloc(sizeof(*fr));
	struct psym_err e = { 0 };
	struct psym_objtab *t = psym_objtab_new(0);
	struct psym_located *x = NULL;
	const int pids[] = { 4242 };

	write_file("perf-4242.map", "7f0000001000 100 LazyCompile:*fib\n7f0000002000 80 Stub\n");
	/* The plan locates the profile's processes' maps (4243 only when asked). */
	ok(t && psym_objtab_add(t, PSYM_MAP_ANON, "", "", NULL, &x, &e) == 0 &&
		   psym_objtab_locate_perf_maps(t, x, &lo, pids, 1, &e) == 0,
	   "jit: perf maps located");
	ok(x->nperfmaps == 2 && !x->perfmaps[1].path && x->perfmaps[0].path &&
		   strstr(x->perfmaps[0].path, "perf-4242.map"),
	   "jit: the entry records the map found, then the pid as located");
	ok(psym_jit_resolver_new(t, x, &lo, &pl, NULL, 0, 0, NULL, 0, NULL, &r, &e) == 0,
	   "jit: made");
	ok(psym_resolver_lookup(r, &ctx, 0x7f0000001050ULL, fr, &why) == 0 && fr->n == 1,
	   "jit: lookup in the sample's process");
	is_str(fr->f[0].name, "LazyCompile:*fib", "jit: name from the perf map");
	ctx.pid = 4243;
	ok(psym_resolver_lookup(r, &ctx, 0x7f0000001050ULL, fr, &why) == PSYM_NOENT,
	   "jit: another process has no map");
	is_int((int)why.code, PSYM_R_NO_PERF_MAP, "jit: reason: no perf map");
	ok(strstr(why.detail, "4243") != NULL, "jit: reason names the pid");
	ctx.pid = 4242;
	ok(psym_resolver_lookup(r, &ctx, 0x7f0000003000ULL, fr, &why) == PSYM_NOENT,
	   "jit: an address no entry covers");
	psym_resolver_free(r);
	psym_objtab_free(t);
	free(fr);
}

/* A jitdump of pid with one JIT_CODE_LOAD of name at addr (size 0x100), in dir. */
static void write_jitdump(const char *name, uint32_t pid, uint64_t addr, const char *fn)
{
	unsigned char b[256] = { 0 };
	uint32_t magic = 0x4A695444, u32;
	uint64_t u64;
	size_t n = strlen(fn) + 1, rec = 16 + 40 + n;
	char path[128];
	FILE *f;

	memcpy(b, &magic, 4);
	u32 = 1;
	memcpy(b + 4, &u32, 4); /* version */
	u32 = 40;
	memcpy(b + 8, &u32, 4); /* header size */
	memcpy(b + 20, &pid, 4);
	u32 = 0; /* JIT_CODE_LOAD */
	memcpy(b + 40, &u32, 4);
	u32 = (uint32_t)rec;
	memcpy(b + 44, &u32, 4);
	memcpy(b + 56, &pid, 4);  /* pid */
	memcpy(b + 60, &pid, 4);  /* tid */
	memcpy(b + 64, &addr, 8); /* vma */
	memcpy(b + 72, &addr, 8); /* code_addr */
	u64 = 0x100;
	memcpy(b + 80, &u64, 8); /* code_size */
	memcpy(b + 96, fn, n);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	fwrite(b, 1, 40 + rec, f);
	fclose(f);
}

/* The jitdump a perf.data recording mapped: read only while it is that file. */
static void jit_recorded(void)
{
	struct psym_locate_opts lo = { 0 };
	struct psym_perfmap_limits pl = { 0 };
	struct psym_resolver *r = NULL;
	struct psym_lookup_ctx ctx = { .pid = 4300 };
	struct psym_reason why = { 0 };
	struct psym_frames *fr = malloc(sizeof(*fr));
	struct psym_err e = { 0 };
	struct psym_objtab *t = psym_objtab_new(0);
	struct psym_located *x = NULL;
	struct psym_jitdump_rec recs[2];
	char path[128], other[128], line[300];
	struct stat st;

	write_jitdump("jit-4300.dump", 4300, 0x7f0000005000ULL, "JS:*work /app/w.js:1:1");
	write_jitdump("jit-4301.dump", 4300, 0x7f0000005000ULL, "JS:*wrong");
	snprintf(path, sizeof(path), "%s/jit-4300.dump", dir);
	snprintf(other, sizeof(other), "%s/jit-4301.dump", dir);
	stat(path, &st);
	recs[0] = (struct psym_jitdump_rec){ .pid = 4300,
					     .has_inode = true,
					     .maj = major(st.st_dev),
					     .min = minor(st.st_dev),
					     .ino = st.st_ino,
					     .path = path };
	/* The comment a perf.data profile carries, and back. */
	ok(psym_jitdump_comment(&recs[0], line, sizeof(line)) &&
		   psym_jitdump_comment_parse(line, &recs[1]) && recs[1].ino == recs[0].ino &&
		   !strcmp(recs[1].path, path),
	   "jitdump comment: written and parsed back");
	ok(!psym_jitdump_comment_parse("perf-jitdump:1 - /etc/passwd", &recs[1]),
	   "jitdump comment: a path not named jit-PID.dump is not taken");
	ok(psym_objtab_add(t, PSYM_MAP_ANON, "", "", NULL, &x, &e) == 0 &&
		   psym_jit_resolver_new(t, x, &lo, &pl, NULL, 0, 0, recs, 1, NULL, &r, &e) == 0,
	   "jit: made with a recorded jitdump");
	ok(psym_resolver_lookup(r, &ctx, 0x7f0000005010ULL, fr, &why) == 0 && fr->n == 1 &&
		   !strcmp(fr->f[0].name, "JS:*work /app/w.js:1:1"),
	   "jit: named from the jitdump the recording mapped");
	psym_resolver_free(r);
	/* Another inode at the recorded path: refused, and said. */
	recs[0].ino++;
	ok(psym_jit_resolver_new(t, x, &lo, &pl, NULL, 0, 0, recs, 1, NULL, &r, &e) == 0 &&
		   psym_resolver_lookup(r, &ctx, 0x7f0000005010ULL, fr, &why) == PSYM_NOENT,
	   "jit: another file at the recorded path is not read");
	ok(strstr(why.detail, "not the file the recording mapped") != NULL,
	   "jit: the reason says the file is not the recorded one");
	psym_resolver_free(r);
	/* A dump whose header names another pid than its name. */
	recs[0] = (struct psym_jitdump_rec){ .pid = 4300, .path = other };
	ok(psym_jit_resolver_new(t, x, &lo, &pl, NULL, 0, 0, recs, 1, NULL, &r, &e) == 0 &&
		   psym_resolver_lookup(r, &ctx, 0x7f0000005010ULL, fr, &why) == PSYM_NOENT &&
		   strstr(why.detail, "jitdump of pid 4300"),
	   "jit: a dump whose header contradicts its name is not read");
	psym_resolver_free(r);
	psym_objtab_free(t);
	free(fr);
	unlink(path);
	unlink(other);
}

int main(void)
{
	char path[160];

	snprintf(dir, sizeof(dir), "/tmp/psym-resolve-test.XXXXXX");
	if (!mkdtemp(dir))
		return 99;
	if (resolve_test_marker(1) != 4)
		return 99;
	file_resolver();
	kernel_resolver();
	jit_resolver();
	jit_recorded();
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/perf-4242.map", dir);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
