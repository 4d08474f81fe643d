/* SPDX-License-Identifier: MIT */
/*
 * psym_demangle() takes a short way for names that cannot be legacy Rust
 * (C++ at once): its answers must be libiberty's full search's
 * (cplus_demangle with DMGL_AUTO) for every kind of name, the edge cases of
 * the legacy Rust shape and the names of the libraries on this machine.
 */
#include "config.h"

#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "tap.h"

/* An inheriting constructor's name (CI1, CI2, gcc's CI4): not libiberty's. */
static int inheriting(const char *name)
{
	for (const char *p = name; (p = strstr(p, "CI")); p += 2)
		if (p[2] >= '1' && p[2] <= '5')
			return 1;
	return 0;
}

/* psym_demangle(name) is libiberty's full answer; counts a difference. */
static size_t differs(const char *name)
{
	char *a = psym_demangle(name);
	char *b = name[0] == '_' && (name[1] == 'Z' || name[1] == 'R')
			  ? cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO)
			  : NULL;
	size_t d = (a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0);

	if (d)
		printf("# %s: %s, libiberty %s\n", name, a ? a : "(none)", b ? b : "(none)");
	free(a);
	free(b);
	return d;
}

int main(void)
{
	static const char *const edge[] = {
		"_ZN3foo3barE",
		"_ZN3foo17hxxxxxxxxxxxxxxxxE",
		"_ZN3foo17h0123456789abcdefE",
		"_ZN3foo17h0123456789abcdeE",
		"_ZN4core3fmt9Arguments6new_v117h0123456789abcdefE",
		"_ZN17h0123456789abcdefE",
		"_ZNK3foo3barEv17h0123456789abcdefE",
		"_ZN3std2io5stdio6_print17h5a1d4b3c2e1f0a9bE",
		"_RNvCs1234_7mycrate3foo",
		"_RNvNtCs1234_7mycrate3bar3baz",
		"_Z3fooi",
		"_ZZ4mainE1x",
		"_ZN3foo3barEv",
		"_ZNSt6vectorIiSaIiEE9push_backERKi",
		"_ZSt4cout",
		"_Z",
		"_ZN",
		"_R",
		"main",
		"",
	};
	size_t n = 0, bad = 0;
	char line[4096];
	FILE *fp;

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		bad += differs(edge[i]);
	is_int(bad, 0, "the edge cases of the legacy Rust shape: libiberty's answers");
	/*
	 * Inheriting constructors are named after their own class, as
	 * llvm-cxxfilt names them (libiberty: after the base class).
	 */
	{
		static const char *const ci[][2] = {
			{ "_ZN7DerivedIlECI24BaseIlEEli", "Derived<long>::Derived(long, int)" },
			{ "_ZN7DerivedIlECI44BaseIlEEli", "Derived<long>::Derived(long, int)" },
			{ "_ZNSt8__detail16_RegexTranslatorIcLb0ELb0EECI2NS_20_"
			  "RegexTranslatorBaseIcLb0ELb0EEEERKSt6localeb",
			  "std::__detail::_RegexTranslator<char, false, false>::_RegexTranslator(std::"
			  "locale const&, bool)" },
			{ "_ZN1N1DCI2NS_1BEEi", "N::D::D(int)" },
			/* Not an inheriting constructor: an identifier holding "CI1". */
			{ "_ZN3CI13fooEv", "CI1::foo()" },
		};

		for (size_t i = 0; i < sizeof(ci) / sizeof(ci[0]); i++) {
			char *a = psym_demangle(ci[i][0]);

			ok(a && strcmp(a, ci[i][1]) == 0, "%s: %s", ci[i][0], a ? a : "(none)");
			free(a);
		}
	}
	/* Real names: the C++ runtime's, and whatever else nm finds in it. */
	fp = popen("nm -D --defined-only /usr/lib/x86_64-linux-gnu/libstdc++.so.6 2>/dev/null; "
		   "nm -D --defined-only /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1 2>/dev/null",
		   "r");
	bad = 0;
	while (fp && fgets(line, sizeof(line), fp)) {
		char *name = strrchr(line, ' ');

		line[strcspn(line, "\n")] = 0;
		name = name ? name + 1 : line;
		if (inheriting(name))
			continue; /* named after its class: checked above */
		bad += differs(name);
		n++;
	}
	if (fp)
		pclose(fp);
	ok(n > 1000, "names read from the installed libraries (%zu)", n);
	ok(bad == 0, "%zu names of the installed C++ libraries: libiberty's answers (%zu differ)",
	   n, bad);
	return tap_failed != 0;
}
