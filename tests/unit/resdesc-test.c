/* SPDX-License-Identifier: MIT */
/*
 * The words of a description (resdesc.h) from hand-made item lists
 * (resolver.h): the summary, --explain and warning lines every command
 * prints, for each role; the split candidates' verdicts; and the bound on
 * the list (items past PSYM_RESDESC_MAX_ITEMS are dropped and counted, the
 * words come from those kept).
 */
#include "config.h"

#include <string.h>

#include "objtab.h"
#include "resdesc.h"
#include "tap.h"

static char sum[4096], more[4096], warn[4096];

static void words(const struct psym_resdesc *d)
{
	psym_resdesc_summary(d, sum, sizeof(sum));
	psym_resdesc_explain(d, more, sizeof(more));
	psym_resdesc_warning(d, warn, sizeof(warn));
}

static void add(struct psym_resdesc *d, struct psym_resitem it)
{
	ok(psym_resdesc_add(d, &it), "item of role %d added", (int)it.role);
}

static void file_lines(void)
{
	struct psym_resdesc d = { 0 };
	struct psym_reason why = { .code = PSYM_R_DWO_NOT_FOUND };
	struct psym_reason alt = { 0 };

	add(&d, (struct psym_resitem){ .role = PSYM_RES_BINARY, .path = "/b" });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_DWARF, .path = "/b", .n = 3, .total = 10 });
	words(&d);
	is_str(sum, "from '/b', with lines", "lines in the binary");
	is_str(more, "DWARF: 3 of 10 compile units decoded so far", "explain: units");
	is_str(warn, "", "no warning");

	d.n = 0;
	psym_reason_set(&alt, PSYM_R_NOT_FOUND, "alt 'x' not found");
	add(&d, (struct psym_resitem){ .role = PSYM_RES_BINARY, .path = "/b" });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_DWARF, .path = "/d", .n = 1, .total = 2 });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_ALT, .why = &alt });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_SPLIT, .n = 2, .total = 5, .why = &why });
	words(&d);
	is_str(sum,
	       "from '/b', lines from '/d'; alt 'x' not found; split DWARF: 2 of 5 units used "
	       "without their split unit (no inline frames): split DWARF .dwo not found",
	       "debug file, alternate, split units missing (the reason's name)");
	d.item[1].path = "/b";
	words(&d);
	is_str(sum,
	       "from '/b', with lines; alt 'x' not found; split DWARF: 2 of 5 units used "
	       "without their split unit (no inline frames): split DWARF .dwo not found",
	       "own lines with an alternate missing");
}

static void file_no_lines(void)
{
	struct psym_resdesc d = { 0 };

	add(&d, (struct psym_resitem){ .role = PSYM_RES_BINARY, .path = "/b" });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_DWARF, .note = "no .debug_info" });
	words(&d);
	is_str(sum, "from '/b', no lines: no .debug_info", "why no lines");
	is_str(more, "", "nothing to explain");
	d.item[1].note = NULL;
	words(&d);
	is_str(sum, "from '/b', no lines: no DWARF", "no note: no DWARF");

	d.n = 0;
	add(&d, (struct psym_resitem){ .role = PSYM_RES_BINARY,
				       .path = "/d.debug",
				       .flags = PSYM_RESITEM_DEBUG_ONLY });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_DWARF, .path = "/d.debug", .total = 4 });
	words(&d);
	is_str(sum, "from '/d.debug' (a debug file standing in for the binary), with lines",
	       "debug-only summary");
	is_str(more,
	       "'/d.debug' is a debug file standing in for the binary: its segments' file "
	       "offsets recovered from their addresses and alignment, symbols from its "
	       ".symtab\n    DWARF: 0 of 4 compile units decoded so far",
	       "debug-only explain, two lines");
}

static void sources(void)
{
	struct psym_resdesc d = { 0 };

	add(&d, (struct psym_resitem){ .role = PSYM_RES_BINARY, .path = "/b" });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_DWARF });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_SOURCE,
				       .path = "/b.gsym",
				       .note = "lines from the GSYM file '/b.gsym'" });
	words(&d);
	is_str(sum, "from '/b', lines from the GSYM file '/b.gsym'", "GSYM answers");
	d.item[1].path = "/b";
	d.item[1].total = d.item[1].n = 7;
	words(&d);
	is_str(more,
	       "DWARF: 7 of 7 compile units decoded so far\n    lines from the GSYM file "
	       "'/b.gsym' where the DWARF has no function",
	       "a source beside the DWARF");

	d.n = 0;
	add(&d, (struct psym_resitem){ .role = PSYM_RES_BINARY, .path = "/go" });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_DWARF });
	add(&d, (struct psym_resitem){
			.role = PSYM_RES_SOURCE,
			.note = "symbols from .gopclntab (Go 1.18-1.19 layout, no inline "
				"frames: no moduledata)",
			.flags = PSYM_RESITEM_NO_INLINES });
	words(&d);
	is_str(sum,
	       "from '/go', symbols from .gopclntab (Go 1.18-1.19 layout, no inline frames: no "
	       "moduledata)",
	       "Go's table without inline trees");
	/* Said once in every run, not only to --explain. */
	is_str(warn,
	       "'/go': symbols from .gopclntab (Go 1.18-1.19 layout, no inline frames: no "
	       "moduledata): inlined calls are missing from its answers",
	       "Go's table without inline trees: a warning");
	psym_resdesc_addr_warnings(&d, warn, sizeof(warn));
	is_str(warn,
	       "'/go': symbols from .gopclntab (Go 1.18-1.19 layout, no inline frames: no "
	       "moduledata): inlined calls are missing from its answers",
	       "Go's table without inline trees: psym addr's warning");
	d.item[2].flags = 0;
	d.item[2].note = "symbols from .gopclntab (Go 1.18-1.19 layout)";
	words(&d);
	is_str(sum, "from '/go', symbols from .gopclntab (Go 1.18-1.19 layout)",
	       "Go's table with inline trees");
	is_str(warn, "", "Go's table with inline trees: no warning");
}

static void cache_and_index(void)
{
	struct psym_resdesc d = { 0 };

	add(&d, (struct psym_resitem){
			.role = PSYM_RES_CACHE, .path = "/c/x.cache", .flags = PSYM_RESITEM_USED });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_BINARY, .path = "/b" });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_DWARF, .path = "/b" });
	words(&d);
	is_str(sum, "from '/b', from the symbol cache", "every answer from the cache");
	d.item[0].flags = PSYM_RESITEM_DAMAGED;
	d.item[0].note = "bad magic";
	words(&d);
	is_str(sum, "from '/b', with lines", "a damaged cache did not answer");
	is_str(warn, "symbol cache '/c/x.cache' ignored (bad magic): symbolized from '/b'",
	       "the cache's warning");

	d.n = 0;
	add(&d, (struct psym_resitem){ .role = PSYM_RES_INDEX,
				       .flags = PSYM_RESITEM_USED,
				       .path = "/i/ab.idx",
				       .of = "/b.debug",
				       .build_id = "ab",
				       .size = 123 });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_INDEX,
				       .flags = PSYM_RESITEM_DAMAGED,
				       .note = "index 'z' bad" });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_BINARY, .path = "/b" });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_DWARF, .note = "cannot read" });
	words(&d);
	is_str(sum, "from '/b', from the index '/i/ab.idx' (answers of '/b.debug')",
	       "index answers");
	is_str(more,
	       "answers from the index '/i/ab.idx' (build ID ab, 123 bytes, made from "
	       "'/b.debug'); no DWARF read",
	       "index explained");
	is_str(warn, "index 'z' bad: symbolized from '/b' instead", "the index's warning");
	psym_resdesc_addr_warnings(&d, warn, sizeof(warn));
	is_str(warn, "index 'z' bad: answered from the debug information\ncannot read",
	       "addr's two warnings, one a line");
	is_str(psym_resdesc_path(&d), "/b", "the binary's path");
}

static void kernel_and_jit(void)
{
	struct psym_resdesc d = { 0 };
	struct psym_reason why = { .code = PSYM_R_NO_KALLSYMS };

	add(&d, (struct psym_resitem){ .role = PSYM_RES_VMLINUX, .path = "/v" });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_KALLSYMS, .path = "/k" });
	words(&d);
	is_str(sum, "from '/v' and '/k'", "vmlinux and kallsyms");
	is_str(more, "", "the kernel: nothing more");
	ok(psym_resdesc_path(&d) == NULL, "no binary path for the kernel");
	d.n = 1;
	words(&d);
	is_str(sum, "from '/v'", "vmlinux alone");
	d.n = 0;
	add(&d, (struct psym_resitem){ .role = PSYM_RES_KALLSYMS, .why = &why });
	words(&d);
	is_str(sum, "no kernel symbols", "neither: the reason");

	d.n = 0;
	add(&d, (struct psym_resitem){
			.role = PSYM_RES_PERFMAP, .path = "/tmp/perf-1.map", .total = 2 });
	add(&d, (struct psym_resitem){
			.role = PSYM_RES_PROCESS, .flags = PSYM_RESITEM_ONLY, .n = 3, .pid = 7 });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_PROCESS, .n = 4, .pid = 9 });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_UNPLACED, .n = 5, .note = "two maps" });
	words(&d);
	is_str(sum, "from '/tmp/perf-1.map' and others", "perf maps");
	is_str(more,
	       "3 location(s) no sample names looked up in pid 7, the profile's only process\n"
	       "    4 location(s) no sample names looked up in the only process whose perf maps "
	       "cover them (pid 9 the last)\n    5 location(s) left unresolved: two maps",
	       "JIT placements");
	d.n = 0;
	add(&d, (struct psym_resitem){ .role = PSYM_RES_PERFMAP });
	words(&d);
	is_str(sum, "no perf map", "no perf map");
	is_str(more, "", "nothing placed");
}

/* The kernel's and JIT's files tried: kallsyms (parsed before, a subset), a module, a perf map. */
static void kernel_tried(void)
{
	struct psym_objtab_try t[] = {
		{ .path = "/k", .verdict = "", .used = true, .role = PSYM_TRY_KALLSYMS },
		{ .path = "/k",
		  .verdict = "",
		  .used = true,
		  .role = PSYM_TRY_KALLSYMS,
		  .flags = PSYM_TRY_PARSED_BEFORE },
		{ .path = "/k",
		  .verdict = "",
		  .used = true,
		  .role = PSYM_TRY_KALLSYMS,
		  .flags = PSYM_TRY_SUBSET },
		{ .path = "/m.ko", .verdict = "", .used = true, .role = PSYM_TRY_KMOD },
		{ .path = "/m.ko", .verdict = "p.deb", .used = true, .role = PSYM_TRY_KMOD },
		{ .path = "/perf-1.map", .verdict = "", .used = true, .role = PSYM_TRY_PERFMAP },
		{ .path = "/perf-2.map", .verdict = "not found", .role = PSYM_TRY_PERFMAP },
	};
	const char *want[] = {
		"kernel symbols used",
		"kernel symbols used (parsed before for the same boot and content)",
		"kernel symbols used (the profile's subset: other addresses get no name)",
		"kernel module used",
		"kernel module used (from package 'p.deb')",
		"perf map used",
		"not found",
	};
	struct psym_resdesc d = { 0 };
	char verdict[256];
	const char *path;

	add(&d, (struct psym_resitem){ .role = PSYM_RES_TRIED, .tried = t, .ntried = 7 });
	for (size_t i = 0; i < 7; i++) {
		psym_resdesc_tried(&d, i, &path, verdict, sizeof(verdict));
		is_str(verdict, want[i], "kernel and JIT words (%zu)", i);
	}
}

/* The files tried, in order: each role's words when used, a refusal its reason's. */
static void tried(void)
{
	struct psym_objtab_try t[] = {
		{ .path = "/a.dwo", .verdict = "not found", .role = PSYM_TRY_DWO },
		{ .path = "/b.dwo", .verdict = "", .used = true, .role = PSYM_TRY_DWO },
		{ .path = "/p.dwp", .verdict = "", .used = true, .role = PSYM_TRY_DWP },
		{ .path = "/dbg", .verdict = "rejected: build IDs differ" },
		{ .path = "/alt", .verdict = "", .used = true, .role = PSYM_TRY_ALT },
		{ .path = "/b", .verdict = "", .used = true, .role = PSYM_TRY_MINIDEBUG },
		{ .path = "/g",
		  .verdict = "GSYM file used (no columns, start lines or discriminators)",
		  .used = true,
		  .role = PSYM_TRY_SOURCE },
		{ .path = "/b",
		  .verdict = "symbols from .gopclntab (Go 1.20+ layout, no inline frames: no "
			     "inline trees found)",
		  .used = true,
		  .role = PSYM_TRY_SOURCE,
		  .flags = PSYM_TRY_NO_INLINES },
		{ .path = "/b",
		  .verdict = "symbols from .gopclntab (Go 1.16-1.17 layout)",
		  .used = true,
		  .role = PSYM_TRY_SOURCE },
		{ .path = "/b", .verdict = "bad line table", .role = PSYM_TRY_DWARF },
	};
	struct psym_resdesc d = { 0 };
	char verdict[256];
	const char *path;

	add(&d, (struct psym_resitem){ .role = PSYM_RES_BINARY, .path = "/b" });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_DWARF, .path = "/b", .total = 1 });
	is_int(psym_resdesc_ntried(&d), 0, "no tried item: nothing tried");
	add(&d,
	    (struct psym_resitem){ .role = PSYM_RES_TRIED, .tried = t, .ntried = 10, .lost = 2 });
	is_int(psym_resdesc_ntried(&d), 10, "ten tried");
	psym_resdesc_tried(&d, 0, &path, verdict, sizeof(verdict));
	is_str(path, "/a.dwo", "first path");
	is_str(verdict, "not found", "a refusal is its reason");
	psym_resdesc_tried(&d, 1, &path, verdict, sizeof(verdict));
	is_str(verdict, "split unit used (dwo id matches)", "a .dwo used");
	psym_resdesc_tried(&d, 2, &path, verdict, sizeof(verdict));
	is_str(verdict, "split DWARF package used", "a .dwp used");
	psym_resdesc_tried(&d, 3, &path, verdict, sizeof(verdict));
	is_str(verdict, "rejected: build IDs differ", "a search's candidate: its verdict");
	psym_resdesc_tried(&d, 4, &path, verdict, sizeof(verdict));
	is_str(verdict, "alternate DWARF file used", "the alternate file used");
	psym_resdesc_tried(&d, 5, &path, verdict, sizeof(verdict));
	is_str(verdict, "symbols from .gnu_debugdata (MiniDebugInfo)", "MiniDebugInfo used");
	psym_resdesc_tried(&d, 6, &path, verdict, sizeof(verdict));
	is_str(verdict, "GSYM file used (no columns, start lines or discriminators)", "GSYM used");
	psym_resdesc_tried(&d, 7, &path, verdict, sizeof(verdict));
	is_str(verdict,
	       "symbols from .gopclntab (Go 1.20+ layout, no inline frames: no inline trees "
	       "found)",
	       ".gopclntab used, no inline trees");
	psym_resdesc_tried(&d, 8, &path, verdict, sizeof(verdict));
	is_str(verdict, "symbols from .gopclntab (Go 1.16-1.17 layout)", ".gopclntab used");
	psym_resdesc_tried(&d, 9, &path, verdict, sizeof(verdict));
	is_str(verdict, "bad line table", "unreadable DWARF: its reason");
	psym_resdesc_tried(&d, 10, &path, verdict, sizeof(verdict));
	is_str(path, "", "past the end: empty");
	kernel_tried();
	is_str(verdict, "", "past the end: no verdict");
	psym_resdesc_tried(&d, 7, &path, verdict, 12);
	is_str(verdict, "symbols fro", "the verdict cut to its buffer");
	words(&d);
	is_str(sum, "from '/b', with lines", "no units missing: no split words");
	is_str(more,
	       "DWARF: 0 of 1 compile units decoded so far\n    2 more files tried than the "
	       "located-object table keeps (not listed)",
	       "files past the table's cap are counted");
}

static void bound(void)
{
	struct psym_resdesc d = { 0 };
	char small[12];

	add(&d, (struct psym_resitem){ .role = PSYM_RES_BINARY, .path = "/b" });
	add(&d, (struct psym_resitem){ .role = PSYM_RES_DWARF, .path = "/b" });
	for (size_t i = 2; i < PSYM_RESDESC_MAX_ITEMS; i++)
		psym_resdesc_add(&d, &(struct psym_resitem){ .role = PSYM_RES_ALT, .note = "a" });
	is_int(d.n, PSYM_RESDESC_MAX_ITEMS, "the list is full");
	ok(!psym_resdesc_add(&d, &(struct psym_resitem){ .role = PSYM_RES_CACHE,
							 .flags = PSYM_RESITEM_USED }),
	   "an item past the bound is refused");
	ok(!psym_resdesc_add(&d, &(struct psym_resitem){ .role = PSYM_RES_CACHE }), "and the next");
	is_int(d.n, PSYM_RESDESC_MAX_ITEMS, "the list did not grow");
	is_int(d.dropped, 2, "the dropped items are counted");
	words(&d);
	is_str(sum, "from '/b', with lines; a", "the words come from the items kept");
	psym_resdesc_summary(&d, small, sizeof(small));
	is_str(small, "from '/b', ", "a small buffer is cut, terminated");
	psym_resdesc_summary(&d, small, 0);
	ok(1, "a zero-size buffer is left alone");
}

int main(void)
{
	file_lines();
	file_no_lines();
	sources();
	cache_and_index();
	kernel_and_jit();
	tried();
	bound();
	printf("1..%d\n", tap_n);
	return tap_failed != 0;
}
