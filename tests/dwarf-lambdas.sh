#!/bin/sh
# Functions defined in classes inside functions: the operator() of a
# lambda in templated code. g++ puts its concrete DW_TAG_subprogram in the
# closure's DW_TAG_structure_type, inside the enclosing function's DIE, and
# that DIE is often only the abstract instance of an inlined template
# (<regex> is full of them). The DIE walk must reach those functions, or
# their inline chains are lost (about 1% of the instructions of this
# program answered with one frame where llvm-symbolizer gives the chain).
# Every instruction's whole inline chain (mangled names, files, lines) is
# compared with llvm-symbolizer --inlines (also on a Boost program, with
# -flto and -fdebug-types-section): at least 99.9% must agree, and
# the disagreements are listed.
. "$top_srcdir/tests/lib.sh"
need g++
need llvm-symbolizer "Debian llvm"
need objdump
CMP=$top_srcdir/tests/compare-symbolizer.py
. "$top_srcdir/tests/index-lib.sh"

cat >lambdas.cc <<'C'
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <regex>
#include <string>
#include <vector>
template <typename T, typename F> static T fold(const std::vector<T> &v, F f)
{
	T acc{};
	std::for_each(v.begin(), v.end(), [&](const T &x) { acc = f(acc, x); });
	return acc;
}
template <typename T> struct Box {
	std::vector<T> items;
	template <typename P> size_t count_if(P p) const
	{
		return std::count_if(items.begin(), items.end(),
				     [&](const T &x) { return p(x) && x != T{}; });
	}
};
int main(int argc, char **argv)
{
	std::regex re("([a-z]+)([0-9]*)");
	std::vector<std::string> words;
	for (int i = 1; i < argc; i++) {
		std::smatch m;
		std::string s = argv[i];
		if (std::regex_search(s, m, re))
			words.push_back(m[1]);
	}
	std::vector<int> lens;
	std::transform(words.begin(), words.end(), std::back_inserter(lens),
		       [](const std::string &w) { return (int)w.size(); });
	Box<int> b{lens};
	std::printf("%d %zu %s\n", fold(lens, [](int a, int x) { return a + x * 3; }),
		    b.count_if([](int x) { return x > 2; }),
		    std::regex_replace(std::string(argv[0]), re, "<$1>").c_str());
	return 0;
}
C

# compare NAME: every instruction address of .text, psym against llvm-symbolizer.
compare() {
	name=$1
	objdump -d --no-show-raw-insn -j .text "$name" |
		sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >all.$name
	"$PSYM" addr --json --no-index --no-demangle -e "$name" <all.$name >psym.$name 2>err.$name ||
		{ fail "$name: psym addr failed: $(head -3 err.$name)"; return; }
	llvm-symbolizer --inlines --no-demangle --output-style=JSON --obj="$name" \
		<all.$name >llvm.$name
	if python3 "$CMP" --start psym.$name llvm.$name 99.9 >cmp.$name; then
		pass "$name ($(wc -l <all.$name) instructions): $(head -1 cmp.$name)"
	else
		fail "$name ($(wc -l <all.$name) instructions): $(head -1 cmp.$name)"
	fi
	# The disagreements, if any.
	tail -n +2 cmp.$name | head -40
	# The same answers from the per-build-ID index (issue 25).
	index_compare "$name" all.$name
}

g++ -O2 -g -o lambdas-gcc lambdas.cc || { fail "cannot build with g++"; exit 1; }
# The shape this is about: a subprogram with code in a structure type in a
# subprogram without code (llvm-dwarfdump shows the parents).
if command -v llvm-dwarfdump >/dev/null; then
	addr=$(nm lambdas-gcc | awk '$3 ~ /^_ZZN.*_M_apply.*UlvE_clEv$/ {print $1; exit}')
	if [ -n "$addr" ] && llvm-dwarfdump -p --lookup=0x$addr lambdas-gcc 2>/dev/null |
		grep DW_TAG_ | grep -A1 DW_TAG_structure_type | grep -q DW_TAG_subprogram; then
		pass "the fixture has a lambda's operator() inside a structure type"
	else
		echo "note: the lambda's operator() is not where g++ 12 puts it"
	fi
fi
compare lambdas-gcc
g++ -O2 -g -gdwarf-4 -o lambdas-gcc-dwarf4 lambdas.cc && compare lambdas-gcc-dwarf4
if command -v clang++ >/dev/null && clang++ -O2 -g -o lambdas-clang lambdas.cc 2>/dev/null; then
	compare lambdas-clang
	# With -fdebug-info-for-profiling clang writes discriminators, also on
	# inlined calls (DW_AT_GNU_discriminator): every frame's is compared.
	clang++ -O2 -g -fdebug-info-for-profiling -o lambdas-clang-prof lambdas.cc &&
		compare lambdas-clang-prof
	n=$(python3 -c "
import json
print(sum(1 for l in open('llvm.lambdas-clang-prof') for s in json.loads(l)['Symbol'][1:] if s['Discriminator']))")
	check "lambdas-clang-prof: call sites with a discriminator among them ($n frames)" [ "$n" -gt 0 ]
fi

# A heavier template program from Debian's header-only Boost (Spirit X3,
# Algorithm, Range adaptors: parsers, lambdas in member templates), with
# g++ -O2, -flto, and -fdebug-types-section (type units in .debug_types).
# libboost-dev comes from scripts/extra-packages.
if [ -d /usr/include/boost/spirit/home/x3 ]; then
	cat >boost.cc <<'C'
#include <boost/algorithm/string.hpp>
#include <boost/spirit/home/x3.hpp>
#include <boost/range/adaptors.hpp>
#include <boost/range/algorithm.hpp>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>
namespace x3 = boost::spirit::x3;
template <typename F> static std::vector<double> apply_all(const std::vector<double> &v, F f)
{
	std::vector<double> out;
	boost::transform(v, std::back_inserter(out), [&](double x) { return f(x) * 2; });
	return out;
}
static bool parse_numbers(const std::string &s, std::vector<double> &v)
{
	auto first = s.begin();
	bool ok = x3::phrase_parse(first, s.end(), x3::double_ % ',', x3::space, v);
	return ok && first == s.end();
}
struct Stats {
	std::map<std::string, int> counts;
	template <typename R> void add(const R &words)
	{
		boost::for_each(words, [this](const std::string &w) {
			auto lw = boost::algorithm::to_lower_copy(w);
			boost::algorithm::trim(lw);
			if (!lw.empty())
				counts[lw]++;
		});
	}
};
int main(int argc, char **argv)
{
	std::vector<double> v;
	std::string joined;
	for (int i = 1; i < argc; i++)
		joined += (i > 1 ? "," : "") + std::string(argv[i]);
	if (!parse_numbers(joined, v))
		v = { 1.5, 2.5, 3.5 };
	auto w = apply_all(v, [](double x) { return x * x + 1; });
	std::vector<std::string> words;
	boost::algorithm::split(words, std::string("Alpha beta  GAMMA alpha"), boost::is_any_of(" "));
	Stats st;
	st.add(words);
	auto big = w | boost::adaptors::filtered([](double x) { return x > 5; });
	double sum = 0;
	for (double x : big)
		sum += x;
	std::printf("%zu %f %zu\n", w.size(), sum, st.counts.size());
	return 0;
}
C
	g++ -O2 -g -o boost-gcc boost.cc && compare boost-gcc
	g++ -O2 -g -flto -o boost-lto boost.cc && compare boost-lto
	g++ -O2 -g -gdwarf-4 -fdebug-types-section -o boost-types boost.cc && compare boost-types
else
	fail "Boost headers missing (libboost-dev, scripts/extra-packages)"
fi
[ "$n_fail" = 0 ]
