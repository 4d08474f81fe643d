#!/bin/sh
# Split DWARF (-gsplit-dwarf): the skeleton units in the binary keep lines
# and ranges, the DIEs (functions, inlined calls) are in .dwo files or a
# .dwp package. psym must read them: .dwo beside the binary (where the
# compiler wrote them), moved elsewhere (--dwo-dir), packed into a .dwp
# (llvm-dwp, GNU dwp; BINARY.dwp and --dwp), for DWARF 4 (GNU extension)
# and DWARF 5, from g++ and clang++. Every instruction's whole inline chain
# (mangled names, files, lines) is compared with llvm-symbolizer --inlines
# on the .dwo layout: at least 99.9% must agree, the rest is listed (see
# compare-split.py for llvm-symbolizer's own misreadings, told apart with a
# non-split twin of the program). psym symbolize takes --dwo-dir and --dwp
# as addr does, and is compared the same way. A missing .dwo and a .dwo with another
# dwo id are reasons in the summary and --explain, and the addresses keep
# their lines and symbol names.
. "$top_srcdir/tests/lib.sh"
need g++
need llvm-symbolizer "Debian llvm"
need objdump
need objcopy
need protoc
CMP=$top_srcdir/tests/compare-split.py
. "$top_srcdir/tests/index-lib.sh"

cat >util.h <<'C'
#include <functional>
#include <string>
#include <vector>
template <typename T, typename F> static inline T fold(const std::vector<T> &v, F f)
{
	T acc{};
	for (const T &x : v)
		acc = f(acc, x);
	return acc;
}
std::vector<int> lengths(const std::vector<std::string> &w);
std::string shout(const std::string &s);
long score(const std::vector<int> &v, std::function<long(int)> weight);
C
cat >main.cc <<'C'
#include <algorithm>
#include <cstdio>
#include <map>
#include "util.h"
int main(int argc, char **argv)
{
	std::vector<std::string> words(argv + 1, argv + argc);
	std::sort(words.begin(), words.end(), [](const std::string &a, const std::string &b) {
		return a.size() < b.size() || (a.size() == b.size() && a < b);
	});
	std::map<std::string, int> seen;
	for (auto &w : words)
		seen[shout(w)]++;
	auto lens = lengths(words);
	long s = score(lens, [&](int x) { return (long)x * (long)seen.size(); });
	std::printf("%ld %d\n", s, fold(lens, [](int a, int x) { return a + x * 3; }));
	return 0;
}
C
cat >words.cc <<'C'
#include <algorithm>
#include <cctype>
#include <iterator>
#include "util.h"
std::vector<int> lengths(const std::vector<std::string> &w)
{
	std::vector<int> out;
	std::transform(w.begin(), w.end(), std::back_inserter(out),
		       [](const std::string &s) { return (int)s.size(); });
	return out;
}
std::string shout(const std::string &s)
{
	std::string r = s;
	std::transform(r.begin(), r.end(), r.begin(), [](unsigned char c) { return std::toupper(c); });
	return r + "!";
}
C
cat >score.cc <<'C'
#include <algorithm>
#include <numeric>
#include "util.h"
template <typename It> static long weigh(It b, It e, const std::function<long(int)> &w)
{
	return std::accumulate(b, e, 0L, [&](long a, int x) { return a + w(x); });
}
long score(const std::vector<int> &v, std::function<long(int)> weight)
{
	std::vector<int> c(v);
	std::stable_sort(c.begin(), c.end());
	return weigh(c.begin(), c.end(), weight) + fold(c, [](int a, int x) { return a ^ x; });
}
C
SRCS="main words score"

# build DIR CXX DWARF: DIR/prog with .dwo files, and DIR/twin without split DWARF.
build() {
	mkdir -p "$1"
	for s in $SRCS; do
		(cd "$1" && $2 -O2 -g -gdwarf-$3 -gsplit-dwarf -c -o $s.o ../$s.cc &&
			$2 -O2 -g -gdwarf-$3 -c -o $s.twin.o ../$s.cc) || return 1
	done
	(cd "$1" && $2 -o prog main.o words.o score.o && $2 -o twin main.twin.o words.twin.o score.twin.o)
}

# oracle DIR: every instruction of .text, and llvm-symbolizer's answers (the .dwo layout).
oracle() {
	objdump -d --no-show-raw-insn -j .text "$1/prog" |
		sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >"$1/all"
	llvm-symbolizer --inlines --no-demangle --output-style=JSON --obj="$1/prog" \
		<"$1/all" >"$1/llvm"
	objcopy -O binary --only-section=.text "$1/prog" "$1/text.prog"
	objcopy -O binary --only-section=.text "$1/twin" "$1/text.twin"
	if cmp -s "$1/text.prog" "$1/text.twin"; then
		llvm-symbolizer --inlines --no-demangle --output-style=JSON --obj="$1/twin" \
			<"$1/all" >"$1/llvm.twin"
	else
		echo "note: $1: the non-split twin's code differs"
		echo - >"$1/llvm.twin"
	fi
}

# compare DIR LABEL BINARY [psym options]: psym on BINARY against the oracle of DIR.
compare() {
	dir=$1 label=$2 bin=$3
	shift 3
	twin=$dir/llvm.twin
	[ "$(cat "$twin")" = "-" ] && twin=-
	"$PSYM" addr --json --no-demangle "$@" -e "$bin" <"$dir/all" >"$dir/psym.$label" \
		2>"$dir/err.$label" ||
		{ fail "$dir $label: psym addr failed: $(head -3 "$dir/err.$label")"; return; }
	if python3 "$CMP" "$dir/psym.$label" "$dir/llvm" "$twin" 99.9 >"$dir/cmp.$label"; then
		pass "$dir $label ($(wc -l <"$dir/all") instructions): $(head -1 "$dir/cmp.$label")"
	else
		fail "$dir $label ($(wc -l <"$dir/all") instructions): $(head -1 "$dir/cmp.$label")"
	fi
	tail -n +2 "$dir/cmp.$label" | head -40
}

# compare_sym DIR LABEL BINARY [psym options]: as compare, but through
# psym symbolize: a profile with one location per instruction of BINARY
# (mapped at a PIE's usual base), its Lines turned back into one answer per
# address in the oracle's order.
compare_sym() {
	dir=$1 label=$2 bin=$3
	shift 3
	twin=$dir/llvm.twin
	[ "$(cat "$twin")" = "-" ] && twin=-
	base=$(printf '%d' 0x555555554000)
	printf '555555554000-%x r-xp 00000000 08:01 1 %s\n' \
		$((base + $(stat -c %s "$bin") + 4096)) "$bin" >"$dir/maps.$label"
	python3 -c "
import sys
for l in open(sys.argv[1]): print('%x' % ($base + int(l, 16)))" "$dir/all" >"$dir/stacks.$label"
	python3 "$top_srcdir/tests/mkprofile.py" "$dir/maps.$label" "$dir/stacks.$label" \
		>"$dir/prof.$label.txtpb" && encode_txtpb "$dir/prof.$label.txtpb" "$dir/prof.$label.pb" &&
		"$PSYM" symbolize -q "$@" "$dir/prof.$label.pb" -o "$dir/sym.$label.pb.gz" \
			2>"$dir/err.$label" &&
		"$PSYM" show --json "$dir/sym.$label.pb.gz" >"$dir/show.$label.json" ||
		{ fail "$dir $label: psym symbolize failed: $(head -3 "$dir/err.$label")"; return; }
	python3 - "$dir/show.$label.json" "$dir/all" "$base" >"$dir/psym.$label" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
base = int(sys.argv[3])
fn = {f["id"]: f for f in d["functions"]}
by = {}
for loc in d["locations"]:
    by[loc["address"] - base] = [{"FunctionName": fn[x["function_id"]]["system_name"],
                                  "FileName": fn[x["function_id"]]["filename"],
                                  "Line": x["line"]} for x in loc.get("lines", [])]
for l in open(sys.argv[2]):
    a = int(l, 16)
    print(json.dumps({"Address": "0x%x" % a, "Symbol": by.get(a, [])}))
PY
	if python3 "$CMP" "$dir/psym.$label" "$dir/llvm" "$twin" 99.9 >"$dir/cmp.$label"; then
		pass "$dir $label ($(wc -l <"$dir/all") locations): $(head -1 "$dir/cmp.$label")"
	else
		fail "$dir $label ($(wc -l <"$dir/all") locations): $(head -1 "$dir/cmp.$label")"
	fi
	tail -n +2 "$dir/cmp.$label" | head -40
}

# inlined DIR LABEL: how many addresses psym answered with inline frames.
inlined() {
	python3 -c "
import json, sys
n = sum(1 for l in open(sys.argv[1]) if l.strip() and len(json.loads(l).get('Symbol', [])) > 1)
print(n)" "$1/psym.$2"
}

# layouts DIR: the .dwo files in place, moved (--dwo-dir), and packed in a .dwp.
layouts() {
	d=$1
	compare "$d" beside "$d/prog"
	# The per-build-ID index (issue 25): the same answers without the DWARF.
	index_compare "$d/prog" "$d/all"
	n_beside=$(inlined "$d" beside)
	check "$d: the split units give inline frames ($n_beside addresses)" [ "$n_beside" -gt 100 ]
	# A .dwp package (packed from the .dwo layout), beside the binary and
	# named with --dwp; later the .dwo files are gone.
	packed=
	for tool in llvm-dwp dwp; do
		command -v $tool >/dev/null || continue
		mkdir -p "$d.$tool/a" "$d.$tool/b"
		cp "$d/prog" "$d.$tool/a/prog"
		cp "$d/prog" "$d.$tool/b/prog"
		if (cd "$d" && timeout 20 $tool -e prog -o "../$d.$tool/a/prog.dwp") >"$d.$tool.err" 2>&1; then
			packed="$packed $tool"
		else
			# GNU dwp (binutils 2.40) crashes on DWARF 5, llvm-dwp 14 loops
			# on g++ 12 DWARF 5 .dwo files: bounded by timeout.
			echo "note: $tool cannot pack $d: $(head -1 "$d.$tool.err")"
		fi
	done
	# Moved to another machine: the binary in one place, the .dwo files in another.
	mkdir -p "$d.moved/bin" "$d.moved/objs/sub"
	cp "$d/prog" "$d.moved/bin/"
	cp "$d"/*.dwo "$d.moved/objs/sub/"
	mv "$d" "$d.away"
	compare "$d.away" moved "$d.moved/bin/prog" --dwo-dir "$d.moved/objs/nothing" \
		--dwo-dir "$d.moved/objs/sub"
	"$PSYM" addr --json --no-demangle -e "$d.moved/bin/prog" <"$d.away/all" >"$d.away/psym.lost"
	check "$d: without --dwo-dir the moved build loses its inline frames" \
		[ "$(inlined "$d.away" lost)" -lt "$((n_beside / 10))" ]
	# symbolize takes the same discovery options as addr.
	compare_sym "$d.away" sym-moved "$PWD/$d.moved/bin/prog" --dwo-dir "$d.moved/objs/nothing" \
		--dwo-dir "$d.moved/objs/sub"
	check "$d: symbolize --dwo-dir gives the inline frames" \
		[ "$(inlined "$d.away" sym-moved)" -ge "$n_beside" ]
	for tool in $packed; do
		compare "$d.away" "$tool-beside" "$d.$tool/a/prog"
		compare "$d.away" "$tool-named" "$d.$tool/b/prog" --dwp "$d.$tool/a/prog.dwp"
		compare_sym "$d.away" "sym-$tool-named" "$PWD/$d.$tool/b/prog" \
			--dwp "$d.$tool/a/prog.dwp"
		check "$d: symbolize --dwp ($tool) gives the inline frames" \
			[ "$(inlined "$d.away" "sym-$tool-named")" -ge "$n_beside" ]
	done
	mv "$d.away" "$d"
}

for cxx in g++ clang++; do
	command -v $cxx >/dev/null || continue
	for v in 4 5; do
		d=${cxx%%+*}-v$v
		build $d $cxx $v || { fail "cannot build $d with $cxx -gdwarf-$v -gsplit-dwarf"; continue; }
		oracle $d
		layouts $d
	done
done

# ---- a missing .dwo and a .dwo with another dwo id: reasons, not crashes -----
d=g-v5
mkdir -p bad && cp $d/prog bad/prog
# words.dwo: from another build of the same file (another dwo id).
(cd bad && g++ -O1 -g -gdwarf-5 -gsplit-dwarf -c -o words.o ../words.cc) && rm -f bad/words.o
# score.dwo: missing. main.dwo: the right one.
cp $d/main.dwo bad/
rm -f bad/score.dwo
mv $d $d.away
start=$(printf '%d' 0x555555554000)
size=$(stat -c %s bad/prog)
printf '555555554000-%x r-xp 00000000 08:01 1 %s\n' $((start + size + 4096)) "$PWD/bad/prog" >bad.maps
python3 -c "
import sys
for l in open('$d.away/all'): print('%x' % ($start + int(l, 16)))" >bad.stacks
python3 "$top_srcdir/tests/mkprofile.py" bad.maps bad.stacks >bad.txtpb
encode_txtpb bad.txtpb bad.pb
expect_exit 0 "symbolize with a missing and a mismatched .dwo" \
	"$PSYM" symbolize --explain bad.pb -o bad.sym.pb.gz 2>bad.log
check "summary: the units without their split unit are counted" \
	grep -q "split DWARF: 2 of 3 units used without their split unit" bad.log
check "summary: the mismatched dwo id is the reason" grep -q "words.dwo': rejected: dwo id" bad.log
check "--explain: the missing .dwo's candidates are listed" grep -q "score.dwo.*not found" bad.log ||
	cat bad.log
check "--explain: the right .dwo is used" grep -q "main.dwo.*split unit used" bad.log
"$PSYM" addr --json --no-demangle -e bad/prog <$d.away/all >bad.json
check "the units without their .dwo keep lines and symbol names" python3 -c "
import json
lines = [json.loads(l) for l in open('bad.json') if l.strip()]
named = [l for l in lines if l['Symbol'] and l['Symbol'][-1]['FunctionName'] not in ('', '??') and l['Symbol'][-1]['Line']]
assert len(named) * 10 >= len(lines) * 9, (len(named), len(lines))
assert any('_Z5shout' in l['Symbol'][-1]['FunctionName'] for l in lines)
"
mv $d.away $d

# A program using <regex> (issue 29 item 10: an inlined
# _RegexTranslator<...>::_RegexTranslator constructor once named after its
# base _RegexTranslatorBase), g++ DWARF 5 split: as is, and with
# -fdebug-types-section, whose .dwo holds one .debug_info.dwo section per
# type unit (COMDAT) and the compile unit in yet another: every
# instruction's inline chain (mangled names) against llvm-symbolizer.
cat >rx.cc <<'C'
#include <cstdio>
#include <regex>
#include <string>
int main(int argc, char **argv)
{
	std::regex re(argc > 2 ? argv[2] : "(a+)(b*)", std::regex::icase | std::regex::ECMAScript);
	std::string s(argc > 1 ? argv[1] : argv[0]);
	std::smatch m;
	bool found = std::regex_search(s, m, re);
	std::printf("%d %s\n", (int)found, std::regex_replace(s, re, "<$1>").c_str());
	return 0;
}
C
for v in plain types; do
	extra=""
	[ $v = types ] && extra=-fdebug-types-section
	mkdir -p rx-$v
	if ! (cd rx-$v && g++ -O2 -g -gdwarf-5 -gsplit-dwarf $extra -c -o rx.o ../rx.cc && g++ -o rx rx.o); then
		unbuildable "rx-$v" "g++ -gsplit-dwarf $extra failed"
		continue
	fi
	objdump -d --no-show-raw-insn -j .text rx-$v/rx | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >rx-$v/all
	llvm-symbolizer --inlines --no-demangle --output-style=JSON --obj=rx-$v/rx <rx-$v/all >rx-$v/llvm
	"$PSYM" addr --json --no-demangle -e rx-$v/rx <rx-$v/all >rx-$v/psym 2>rx-$v/err
	python3 "$top_srcdir/tests/compare-symbolizer.py" --start rx-$v/psym rx-$v/llvm 99.9 >rx-$v/cmp
	check "<regex>, split DWARF 5 ($v, $(wc -l <rx-$v/all) instructions): $(head -1 rx-$v/cmp)" \
		python3 "$top_srcdir/tests/compare-symbolizer.py" --start rx-$v/psym rx-$v/llvm 99.9
	tail -n +2 rx-$v/cmp | head -20
	n=$(grep -c 'C[12]E' rx-$v/llvm)
	check "<regex> $v: constructor frames inlined ($n answers) named as llvm-symbolizer names them" \
		sh -c "[ $n -gt 0 ] && ! grep -q '_RegexTranslatorBase' rx-$v/cmp"
	check "<regex> $v: the .dwo's units read (no 'without their split unit')" \
		sh -c "! grep -q 'without their split unit' rx-$v/err"
done
finish
