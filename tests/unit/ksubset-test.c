/* SPDX-License-Identifier: MIT */
/*
 * kallsyms subset copies (obj/kallsyms.h): every address a subset answers
 * gets the full table's answer (aliases, modules, bounds, the 16 MiB
 * extent), the profile's addresses are all answered, any other gets none;
 * the format is read strictly, a lying or damaged copy is an error naming
 * the file in one line.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compress.h"
#include "kallsyms.h"
#include "tap.h"

/* A full table: aliases (core, module), a module, BPF, a hole past 16 MiB. */
static const char full_text[] = "0000000000000000 A fixed_percpu_data\n"
				"ffffffff81000000 T startup_64\n"
				"ffffffff81000000 T _text\n"
				"ffffffff81000040 T secondary_startup_64\n"
				"ffffffff81000100 t zeta\n"
				"ffffffff81000100 t alpha\n"
				"ffffffff81000100 W beta\n"
				"ffffffff81000180 d not_text\n"
				"ffffffff81000200 T schedule\n"
				"ffffffff81000300 T __schedule\n"
				"ffffffff81000400 t lonely\n"
				"ffffffff83000000 T far_away\n"
				"ffffffff83000080 T _etext\n"
				"ffffffffc0000000 t mod_init\t[m1]\n"
				"ffffffffc0000000 t core_alias\n"
				"ffffffffc0000040 t mod_work\t[m1]\n"
				"ffffffffc0000080 t mod_exit\t[m1]\n"
				"ffffffffc0001000 t other_fn\t[m2]\n"
				"ffffffffc0001040 t other_fn2\t[m2]\n"
				"ffffffffc0002000 t bpf_prog_1_x\t[bpf]\n"
				"ffffffffc0003000 t bpf_trampoline_9\t[__builtin__ftrace]\n";

static int same(const struct psym_frame *a, const struct psym_frame *b)
{
	return !strcmp(a->name, b->name) &&
	       ((!a->file && !b->file) || (a->file && b->file && !strcmp(a->file, b->file)));
}

/* Every address of [lo, hi) by step: the subset answers as full or not at all. */
static size_t sweep(const struct psym_kallsyms *full, const struct psym_kallsyms *sub, uint64_t lo,
		    uint64_t hi, uint64_t step, size_t *answered)
{
	size_t wrong = 0;

	for (uint64_t a = lo; a < hi; a += step) {
		struct psym_frame f, s;
		int rf = psym_kallsyms_lookup(full, a, &f), rs = psym_kallsyms_lookup(sub, a, &s);

		if (rs == 0 && (rf != 0 || !same(&f, &s))) {
			if (wrong++ < 5)
				printf("# 0x%llx: subset %s, full %s\n", (unsigned long long)a,
				       s.name, rf ? "-" : f.name);
		}
		*answered += rs == 0;
	}
	return wrong;
}

static int mod_count;
static void count_mod(void *ud, const char *name, uint64_t addr)
{
	(void)ud;
	(void)name;
	(void)addr;
	mod_count++;
}

static void exact(void)
{
	struct psym_kallsyms *full = NULL, *sub = NULL, *sub2 = NULL;
	struct psym_err e = { 0 };
	uint64_t want[] = { 0xffffffff81000010, 0xffffffff81000120, 0xffffffff81000200,
			    0xffffffff81000480, 0xffffffffc0000044, 0xffffffffc0002010,
			    0xffffffff83000040 };
	size_t n = sizeof(want) / sizeof(want[0]), answered = 0, len = 0, len2 = 0;
	char *text = NULL, *text2 = NULL;
	struct psym_frame f, s;

	ok(!psym_kallsyms_parse(full_text, sizeof(full_text) - 1, "full", &full, &e),
	   "the full table parses: %s", e.msg);
	ok(!psym_kallsyms_subset(full, want, n, &text, &len, &e), "a subset is made: %s", e.msg);
	ok(text && !psym_kallsyms_parse(text, len, "sub", &sub, &e), "it parses back: %s", e.msg);
	if (!sub)
		return;
	ok(psym_kallsyms_is_subset(sub) && !psym_kallsyms_is_subset(full), "read as a subset");
	is_int(psym_kallsyms_text_addr(sub), psym_kallsyms_text_addr(full), "_text kept");
	for (size_t i = 0; i < n; i++) {
		int rf = psym_kallsyms_lookup(full, want[i], &f);
		int rs = psym_kallsyms_lookup(sub, want[i], &s);

		ok(rs == rf && (rf || same(&f, &s)), "0x%llx: %s as the full table (%s)",
		   (unsigned long long)want[i], rs ? "-" : s.name, rf ? "-" : f.name);
	}
	is_int(sweep(full, sub, 0xffffffff80fffff0, 0xffffffff81001000, 4, &answered), 0,
	       "core text, every 4 bytes: no other answer than the full table's");
	is_int(sweep(full, sub, 0xffffffff81000000, 0xffffffff84000000, 0x1003, &answered), 0,
	       "past the 16 MiB extent too");
	is_int(sweep(full, sub, 0xffffffffbffffff0, 0xffffffffc0004000, 4, &answered), 0,
	       "modules, BPF, trampolines");
	ok(answered > 0, "%zu addresses answered", answered);
	ok(psym_kallsyms_lookup(sub, 0xffffffff81000300, &s) == PSYM_NOENT,
	   "__schedule (the bound after schedule) gets no name");
	ok(psym_kallsyms_lookup(sub, 0xffffffff81000050, &s) == PSYM_NOENT &&
		   psym_kallsyms_lookup(full, 0xffffffff81000050, &f) == 0,
	   "secondary_startup_64, left out, gets no name (the full table has %s)", f.name);
	ok(psym_kallsyms_lookup(sub, 0xffffffffc0000080, &s) == 0 && !strcmp(s.name, "mod_exit"),
	   "every symbol of a module the profile is in (mod_exit)");
	mod_count = 0;
	psym_kallsyms_each_of_module(sub, "m1", count_mod, NULL);
	is_int(mod_count, 2, "m1's symbols as the full table merges them (core_alias wins one)");
	mod_count = 0;
	psym_kallsyms_each_of_module(sub, "m2", count_mod, NULL);
	is_int(mod_count, 0, "m2, not in the profile, is left out");
	{
		uint64_t none[] = { 0x1000, 0xffffffff80000000 };
		char *t = NULL;
		size_t tl = 0;

		is_int(psym_kallsyms_subset(full, none, 2, &t, &tl, &e), PSYM_NOENT,
		       "addresses the table does not name: no subset (not an empty one)");
		ok(!t, "nothing returned");
	}
	/* A subset of the subset: the same lines. */
	ok(!psym_kallsyms_subset(sub, want, n, &text2, &len2, &e) && len2 == len &&
		   !memcmp(text, text2, len),
	   "a subset of the subset is the same copy");
	/* Compressed, as psym-collect writes it. */
	{
		unsigned char *z = NULL;
		size_t zlen = 0;

		ok(!psym_zstd((const unsigned char *)text, len, 3, &z, &zlen, &e) &&
			   !psym_kallsyms_parse_blob(z, zlen, "sub.zst", NULL, 0, 0, &sub2, &e) &&
			   psym_kallsyms_is_subset(sub2),
		   "zstd-compressed, it is read the same: %s", e.msg);
		free(z);
	}
	free(text);
	free(text2);
	psym_kallsyms_free(sub2);
	psym_kallsyms_free(sub);
	psym_kallsyms_free(full);
}

/* Copies that lie or are damaged: an error in one line naming the file. */
static void bad(void)
{
	static const struct {
		const char *what, *text;
	} cases[] = {
		{ "a header of another version", "psym-kallsyms-subset 2\n"
						 "ffffffff81000000 t a\nend\n" },
		{ "a header with garbage",
		  "psym-kallsyms-subset 1 x\nffffffff81000000 t a\nend\n" },
		{ "no end line (cut short)", "psym-kallsyms-subset 1\nffffffff81000000 t a\n"
					     "ffffffff81000010 -\n" },
		{ "unsorted", "psym-kallsyms-subset 1\nffffffff81000100 t b\n"
			      "ffffffff81000000 t a\nend\n" },
		{ "a symbol and a bound at one address (overlapping)",
		  "psym-kallsyms-subset 1\nffffffff81000000 t a\nffffffff81000000 -\nend\n" },
		{ "two symbols at one address", "psym-kallsyms-subset 1\nffffffff81000000 t a\n"
						"ffffffff81000000 t b\nend\n" },
		{ "a bound first", "psym-kallsyms-subset 1\nffffffff81000000 -\n"
				   "ffffffff81000010 t a\nend\n" },
		{ "two bounds in a row", "psym-kallsyms-subset 1\nffffffff81000000 t a\n"
					 "ffffffff81000010 -\nffffffff81000020 -\nend\n" },
		{ "_text after the symbols", "psym-kallsyms-subset 1\nffffffff81000000 t a\n"
					     "ffffffff81000000 = _text\nend\n" },
		{ "a line after end", "psym-kallsyms-subset 1\nffffffff81000000 t a\nend\n"
				      "ffffffff81000100 t b\n" },
		{ "a data symbol", "psym-kallsyms-subset 1\nffffffff81000000 d a\nend\n" },
		{ "a zero address", "psym-kallsyms-subset 1\n0 t a\nend\n" },
		{ "17 hex digits", "psym-kallsyms-subset 1\n1ffffffff81000000 t a\nend\n" },
		{ "a 0x prefix", "psym-kallsyms-subset 1\n0xffffffff81000000 t a\nend\n" },
		{ "a module without its bracket", "psym-kallsyms-subset 1\n"
						  "ffffffff81000000 t a\t[m1\nend\n" },
		{ "words after the name", "psym-kallsyms-subset 1\nffffffff81000000 t a b\nend\n" },
		{ "a blank line", "psym-kallsyms-subset 1\n\nffffffff81000000 t a\nend\n" },
		{ "a bound without the header", "ffffffff81000000 t a\nffffffff81000010 -\n" },
		{ "an end line without the header", "ffffffff81000000 t a\nend\n" },
		{ "only a header and end", "psym-kallsyms-subset 1\nend\n" },
	};
	char buf[3000];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct psym_kallsyms *k = NULL;
		struct psym_err e = { 0 };
		int ret = psym_kallsyms_parse(cases[i].text, strlen(cases[i].text), "bad.subset",
					      &k, &e);

		ok(ret == PSYM_EBADINPUT && strstr(e.msg, "'bad.subset'") && !strchr(e.msg, '\n'),
		   "%s: refused (%s)", cases[i].what, e.msg);
		psym_kallsyms_free(k);
	}
	/* A NUL byte, and a line past the parser's 1 KB. */
	{
		static const char nul[] = "psym-kallsyms-subset 1\nffffffff81000000 t a\0b\nend\n";
		struct psym_kallsyms *k = NULL;
		struct psym_err e = { 0 };

		ok(psym_kallsyms_parse(nul, sizeof(nul) - 1, "bad.subset", &k, &e) ==
			   PSYM_EBADINPUT,
		   "a NUL byte: refused (%s)", e.msg);
		psym_kallsyms_free(k);
		k = NULL;
		snprintf(buf, sizeof(buf),
			 "psym-kallsyms-subset 1\nffffffff81000000 t %02000d\nend\n", 0);
		ok(psym_kallsyms_parse(buf, strlen(buf), "bad.subset", &k, &e) == PSYM_EBADINPUT,
		   "a line too long: refused (%s)", e.msg);
		psym_kallsyms_free(k);
	}
}

int main(void)
{
	exact();
	bad();
	return tap_done();
}
