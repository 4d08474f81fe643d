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

/*
 * psym_demangle_as in each of pprof's modes: the answers go tool pprof
 * -symbolize=demangle=MODE gives for these system names (1.19's pprof;
 * tests/names-pprof.sh compares whole programs with pprof itself).
 * NULL: the name stays the system name.
 */
static void modes(void)
{
	static const char *const c[][4] = {
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector::push_back",
		  "std::vector<int, std::allocator<int> >::push_back",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		{ "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc", "std::operator<<",
		  "std::operator<< <std::char_traits<char> >",
		  "std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
		  "<std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, "
		  "char const*)" },
		{ "_Z4workRSt6vectorIiSaIiEEi.cold", "work", "work",
		  "work(std::vector<int, std::allocator<int> >&, int)" },
		{ "_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()",
		  "main::{lambda(int)#1}::operator()",
		  "main::{lambda(int)#1}::operator()(int) const" },
		{ "_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo",
		  "(anonymous namespace)::foo", "(anonymous namespace)::foo()" },
		/* Not mangled: pprof's heuristic. */
		{ "foo::bar<int>(x)", "foo::bar", "foo::bar<int>", NULL },
		{ "broken<(x>", "broken", NULL, NULL },
		{ "Ljava/lang/Object;.<init>", NULL, NULL, NULL },
		{ "main", NULL, NULL, NULL },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		for (int m = 0; m < 3; m++) {
			char *a = psym_demangle_as(c[i][0], (enum psym_demangle_mode)m);

			ok(c[i][m + 1] ? a && !strcmp(a, c[i][m + 1]) : !a, "mode %d: %s: %s", m,
			   c[i][0], a ? a : "(itself)");
			free(a);
		}
		ok(!psym_demangle_as(c[i][0], PSYM_DEMANGLE_NONE), "none: %s stays", c[i][0]);
	}
	ok(psym_demangle_mode_parse("default") == PSYM_DEMANGLE_SIMPLE &&
		   psym_demangle_mode_parse("templates") == PSYM_DEMANGLE_TEMPLATES &&
		   psym_demangle_mode_parse("full") == PSYM_DEMANGLE_FULL &&
		   psym_demangle_mode_parse("none") == PSYM_DEMANGLE_NONE &&
		   psym_demangle_mode_parse("simple") < 0,
	   "mode names");
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
	modes();
	ok(n > 1000, "names read from the installed libraries (%zu)", n);
	ok(bad == 0, "%zu names of the installed C++ libraries: libiberty's answers (%zu differ)",
	   n, bad);
	return tap_failed != 0;
}
