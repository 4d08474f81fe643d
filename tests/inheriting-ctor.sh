#!/bin/sh
# One name for one frame whichever way the debug information is packaged
# (issue 39 item 4): an inlined inheriting constructor (using Base::Base)
# has the linkage name ...CI4<base>..., which libiberty demangles after the
# base class (Derived<long>::Base(long, int), std::__detail::
# _RegexTranslator<...>::_RegexTranslatorBase); LLVM's demangler,
# llvm-symbolizer and gdb name it after its own class. A program with such
# constructors (its own, and std::regex's with icase) built plain, with
# split DWARF (.dwo) and with dwz: every instruction of .text compared with
# llvm-symbolizer on the plain build (the code is the same in all three),
# whole chains with mangled names (LLVM 14 leaves some of this program's
# names mangled when it demangles); then the demangled inheriting
# constructors, which must carry their class's name in all three.
# tests/unit/demangle-test checks the names against llvm-cxxfilt's.
. "$top_srcdir/tests/lib.sh"
need g++
need dwz
need objdump
need python3
need llvm-symbolizer "Debian llvm"
CMP=$top_srcdir/tests/compare-symbolizer.py

cat >t.cc <<'C'
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
template <typename T> struct Base {
	T v;
	Base(T x, int k) : v(x * k) { if (x > 100) std::abort(); }
};
template <typename T> struct Derived : Base<T> {
	using Base<T>::Base;
	T extra = 7;
	T get() const { return this->v + extra; }
};
int main(int argc, char **argv)
{
	Derived<long> d(argc, 3);
	std::regex re("ab+c", std::regex::icase | std::regex::collate);
	std::string s = argc > 1 ? argv[1] : "xABBCy";
	std::printf("%ld %d\n", d.get(), (int)std::regex_search(s, re));
	return 0;
}
C
g++ -O1 -g t.cc -o plain || { fail "cannot build the program"; finish; exit; }
g++ -O1 -g -gsplit-dwarf t.cc -o split
cp plain dwzd && cp plain dwzd2 && dwz -m common.dwz dwzd dwzd2 2>dwz.err ||
	{ fail "dwz failed: $(head -2 dwz.err)"; finish; exit; }
check "an inheriting constructor was built" sh -c "readelf --debug-dump=info plain | grep -q 'ECI[1-5]'"
objdump -d --no-show-raw-insn -j .text plain | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >addrs
llvm-symbolizer --inlines --no-demangle --output-style=JSON --obj=plain <addrs >llvm.json
for v in plain split dwzd; do
	"$PSYM" addr --json --no-demangle -e "$v" <addrs >psym.$v 2>err.$v ||
		{ fail "$v: psym addr failed: $(head -2 err.$v)"; continue; }
	"$PSYM" addr --json -e "$v" <addrs >names.$v 2>/dev/null
	if python3 "$CMP" psym.$v llvm.json 100 >cmp.$v; then
		pass "$v: $(head -1 cmp.$v)"
	else
		fail "$v: $(head -1 cmp.$v)"
		head -12 cmp.$v
	fi
	check "$v: the inheriting constructors are named after their class" \
		sh -c "grep -q 'Derived<long>::Derived(long, int)' names.$v &&
			grep -Eq '_RegexTranslator<[^\"]*>::_RegexTranslator\(' names.$v &&
			! grep -Eq 'Derived<long>::Base\(|_RegexTranslator<[^\"]*>::_RegexTranslatorBase\(' names.$v"
done
finish
