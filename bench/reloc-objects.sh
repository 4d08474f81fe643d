#!/bin/sh
# psym addr on a relocatable object (relocations applied to private copies
# of the debug sections) against llvm-symbolizer and binutils addr2line on
# the same object and addresses: a g++ -O2 -g translation unit with Boost
# string algorithms and std::regex (about 5 MB of .o), every instruction
# offset of its first code sections, default (first long-enough code
# section) mode. Prints seconds and peak RSS of each and psym's ratios.
# Usage: bench/reloc-objects.sh [PSYM]   (from a build directory)
set -e
PSYM=${1:-./psym}
LLVM=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
cat >"$T/big.cc" <<'CC'
#include <boost/algorithm/string.hpp>
#include <boost/lexical_cast.hpp>
#include <map>
#include <regex>
#include <string>
#include <vector>
std::vector<std::string> split_all(const std::string &s)
{
	std::vector<std::string> out;
	boost::split(out, s, boost::is_any_of(",;"));
	for (auto &x : out)
		boost::trim(x);
	return out;
}
int count_matches(const std::string &s, const std::string &re)
{
	std::regex r(re);
	auto b = std::sregex_iterator(s.begin(), s.end(), r);
	return (int)std::distance(b, std::sregex_iterator());
}
std::map<std::string, int> tally(const std::vector<std::string> &v)
{
	std::map<std::string, int> m;
	for (auto &x : v)
		m[boost::to_upper_copy(x)] += boost::lexical_cast<int>(x.size());
	return m;
}
CC
g++ -O2 -g -c "$T/big.cc" -o "$T/big.o"
objdump -d "$T/big.o" | sed -n 's/^ *\([0-9a-f]*\):\t.*/0x\1/p' | sort -u >"$T/addrs"
echo "object: $(stat -c %s "$T/big.o") bytes, $(wc -l <"$T/addrs") addresses"
run() {
	name=$1
	shift
	best=
	for i in 1 2 3; do
		/usr/bin/time -f "%e %M" -o "$T/t" "$@" <"$T/addrs" >/dev/null
		read -r s kb <"$T/t"
		if [ -z "$best" ] || [ "$(echo "$s < $best" | bc)" = 1 ]; then best=$s mem=$kb; fi
	done
	echo "$name $best $mem"
}
{
	run psym "$PSYM" addr --json --no-demangle -e "$T/big.o"
	run llvm-symbolizer "$LLVM" --obj="$T/big.o" --inlines --output-style=JSON --no-demangle
	run addr2line addr2line -f -i -a -e "$T/big.o"
} >"$T/res"
awk '{ t[$1] = $2; m[$1] = $3; printf "%-16s %6.2f s %8d KB\n", $1, $2, $3 }
END {
	printf "psym/llvm-symbolizer: time %.2f, memory %.2f\n", t["psym"] / t["llvm-symbolizer"], m["psym"] / m["llvm-symbolizer"]
	printf "psym/addr2line:       time %.2f, memory %.2f\n", t["psym"] / t["addr2line"], m["psym"] / m["addr2line"]
}' "$T/res"
