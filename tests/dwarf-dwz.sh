#!/bin/sh
# dwz (Debian's dh_dwz): debug files whose DWARF moved into a common
# alternate file named by .gnu_debugaltlink; their inlined subroutines name
# their functions through DW_FORM_GNU_ref_alt / DW_FORM_GNU_strp_alt and
# their CUs import partial units (DW_TAG_imported_unit) of that file.
# Three programs (C with gcc, C++ with g++ and clang++, -O2 -g, inlining),
# their debug files in a .build-id tree, `dwz -m` into one common file
# recorded as /usr/lib/debug/.dwz/..., placed where that path is re-rooted
# under --debug-dir. Every instruction's whole inline chain (mangled names,
# files, lines) from psym addr on the stripped programs is compared with
# llvm-symbolizer on the programs before dwz: at least 99.9% must agree,
# the disagreements are listed. Then the alternate file missing, with the
# wrong build ID, behind a hostile link: a reason each, names fall back to
# the symbol table, nothing crashes.
. "$top_srcdir/tests/lib.sh"
need gcc
need g++
need dwz
need objcopy
need objdump
need readelf
need python3
need protoc
need llvm-symbolizer "Debian llvm"
CMP=$top_srcdir/tests/compare-symbolizer.py
MK=$top_srcdir/tests/mkprofile.py

# Inline functions shared by the programs: dwz moves what they have in common.
cat >common.h <<'C'
#include <stdlib.h>
#include <string.h>
static inline unsigned mix(unsigned h, unsigned x) { return (h ^ x) * 16777619u + (h >> 7); }
static inline unsigned hash_str(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = mix(h, (unsigned char)*s);
	return h;
}
static inline int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
C
cat >prog.c <<'C'
#include <stdio.h>
#include "common.h"
struct item { const char *name; int weight; };
static inline int score(const struct item *it) { return clamp((int)(hash_str(it->name) % 1000) - it->weight, 0, 500); }
static int cmp(const void *a, const void *b) { return score(a) - score(b); }
int main(int argc, char **argv)
{
	struct item *v = calloc((size_t)argc, sizeof(*v));
	for (int i = 0; i < argc; i++) { v[i].name = argv[i]; v[i].weight = (int)strlen(argv[i]) * 3; }
	qsort(v, (size_t)argc, sizeof(*v), cmp);
	for (int i = 0; i < argc; i++) printf("%s %d\n", v[i].name, score(&v[i]));
	free(v);
	return 0;
}
C
cat >prog.cc <<'C'
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>
extern "C" {
#include "common.h"
}
template <typename T> static T twice(T x) { return x + x; }
struct Counter {
	std::map<std::string, int> counts;
	void add(const std::string &w) { counts[w] += clamp((int)(hash_str(w.c_str()) & 7), 1, 5); }
};
int main(int argc, char **argv)
{
	Counter c;
	std::vector<int> lens;
	for (int i = 1; i < argc; i++) {
		std::string s = argv[i];
		c.add(s);
		lens.push_back(twice((int)s.size()));
	}
	std::sort(lens.begin(), lens.end(), [](int a, int b) { return mix(a, 1) < mix(b, 1); });
	for (auto &kv : c.counts)
		std::printf("%s %d\n", kv.first.c_str(), kv.second);
#ifdef VARIANT
	std::printf("variant %d\n", VARIANT);
#endif
	std::printf("%zu %s\n", lens.size(), std::to_string(lens.empty() ? 0 : lens[0]).c_str());
	return 0;
}
C
# Two g++ programs with the same templates: their abstract instances move
# to the alternate file (DW_AT_abstract_origin through DW_FORM_GNU_ref_alt).
progs="prog-c prog-gcc prog-gcc2"
gcc -O2 -g -o prog-c prog.c || { fail "cannot build with gcc"; exit 1; }
g++ -O2 -g -o prog-gcc prog.cc || { fail "cannot build with g++"; exit 1; }
g++ -O2 -g -DVARIANT=2 -o prog-gcc2 prog.cc || { fail "cannot build with g++"; exit 1; }
# dwz 0.15 (Debian 12) cannot read clang's DWARF 5 (.debug_addr): DWARF 4 then.
if command -v clang++ >/dev/null && clang++ -O2 -g -gdwarf-4 -o prog-clang prog.cc 2>/dev/null; then
	progs="$progs prog-clang"
fi

# Debug files in a build-ID tree, stripped programs with a debuglink.
mkdir -p dd run
for p in $progs; do
	objcopy --only-keep-debug $p $p.debug
	objcopy --strip-all --add-gnu-debuglink=$p.debug $p run/$p
done
ALT=/usr/lib/debug/.dwz/psym-test/common.debug
dwz -m common.debug -M $ALT $(for p in $progs; do echo $p.debug; done) 2>dwz.err ||
	{ fail "dwz failed: $(head -3 dwz.err)"; exit 1; }
for p in $progs; do
	bid=$(readelf -n $p | sed -n 's/.*Build ID: //p')
	mkdir -p dd/.build-id/$(echo $bid | cut -c1-2)
	cp $p.debug dd/.build-id/$(echo $bid | cut -c1-2)/$(echo $bid | cut -c3-).debug
done
mkdir -p dd/.dwz/psym-test
cp common.debug dd/.dwz/psym-test/common.debug

# The fixture is what this is about: alt forms and imported units.
readelf -wi prog-gcc.debug >info.txt 2>/dev/null
check "the dwz'd debug file names the alternate file" sh -c "readelf -p .gnu_debugaltlink prog-gcc.debug | grep -q psym-test/common.debug"
check "the dwz'd debug file uses DW_FORM_GNU_ref_alt" grep -q "DW_AT_abstract_origin: *<alt 0x" info.txt
check "the dwz'd debug file uses DW_FORM_GNU_strp_alt" grep -q "alt indirect string" info.txt
check "the dwz'd debug file imports partial units" grep -q "DW_TAG_imported_unit" info.txt

# compare NAME: every .text instruction of the stripped program with the
# dwz'd debug files, against llvm-symbolizer on the program before dwz.
compare() {
	name=$1
	shift
	objdump -d --no-show-raw-insn -j .text "$name" |
		sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >all.$name
	"$PSYM" addr --offline --json --no-demangle -e run/$name --debug-dir "$T/dd" "$@" \
		<all.$name >psym.$name 2>err.$name ||
		{ fail "$name: psym addr failed: $(head -3 err.$name)"; return; }
	llvm-symbolizer --inlines --no-demangle --output-style=JSON --obj="$name" \
		<all.$name >llvm.$name
	if python3 "$CMP" --start psym.$name llvm.$name 99.9 >cmp.$name; then
		pass "$name ($(wc -l <all.$name) instructions): $(head -1 cmp.$name)"
	else
		fail "$name ($(wc -l <all.$name) instructions): $(head -1 cmp.$name)"
	fi
	tail -n +2 cmp.$name | head -40
	check "$name: no warning with the alternate file there" test ! -s err.$name
}
for p in $progs; do
	compare $p
done
# The per-build-ID index (issue 25): the same answers without the DWARF.
. "$top_srcdir/tests/index-lib.sh"
for p in $progs; do
	IDX_OPTS="--offline --debug-dir $T/dd" index_compare run/$p all.$p
done

# outer NAME: the outermost frame (the symbol table's name) of every address
# equals llvm-symbolizer's, and no frame of psym's is named by garbage: a
# name is llvm-symbolizer's or a part of one (the DW_AT_name the main file
# still has, "add" of _ZN7Counter3addE...), or empty.
outer() {
	python3 - psym.$1 llvm.$1 <<'PY'
import json, sys
ours = [json.loads(l) for l in open(sys.argv[1])]
ref = [json.loads(l) for l in open(sys.argv[2])]
bad = 0
for o, r in zip(ours, ref):
    a, b = o.get("Symbol", []), r.get("Symbol", [])
    want = b[-1]["FunctionName"] if b else ""
    got = a[-1]["FunctionName"] if a else ""
    if got != want and not (want in ("", "??") and got in ("", "??")):
        bad += 1
    known = {s["FunctionName"] for s in b}
    for s in a:
        n = s["FunctionName"]
        if n not in ("", "??") and not any(n in k for k in known):
            bad += 1
sys.exit(1 if bad or len(ours) != len(ref) else 0)
PY
}

# The alternate file missing: a reason, names from the symbol table.
mv dd/.dwz/psym-test/common.debug common.away
"$PSYM" addr --offline --json --no-demangle -e run/prog-gcc --debug-dir "$T/dd" \
	<all.prog-gcc >psym.prog-gcc 2>err.missing
check "missing alternate file: psym addr warns with the reason" \
	grep -q "alternate file '$ALT' (build ID [0-9a-f]*): .*not found" err.missing
check "missing alternate file: outermost names from the symbol table, no garbage" outer prog-gcc

# Through psym symbolize --explain, and the summary (a non-PIE program:
# runtime addresses are its link-time addresses).
gcc -O2 -g -no-pie -o np prog.c && objcopy --only-keep-debug np np.debug &&
	objcopy --strip-all np run/np && objcopy --only-keep-debug prog-c np2.debug &&
	dwz -m np-common.debug -M $ALT np.debug np2.debug 2>dwz.err ||
	{ fail "non-PIE fixture: $(head -3 dwz.err)"; exit 1; }
nbid=$(readelf -n np | sed -n 's/.*Build ID: //p')
mkdir -p dd2/.build-id/$(echo $nbid | cut -c1-2) dd2/.dwz/psym-test
cp np.debug dd2/.build-id/$(echo $nbid | cut -c1-2)/$(echo $nbid | cut -c3-).debug
printf '00400000-00500000 r-xp 00000000 08:01 1 %s\n' "$T/run/np" >np.maps
objdump -d --no-show-raw-insn -j .text np | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >np.stacks
python3 "$MK" np.maps np.stacks >np.txtpb && encode_txtpb np.txtpb np.pb
"$PSYM" symbolize --offline --explain --debug-dir "$T/dd2" np.pb -o np.out.pb 2>np.log
check "symbolize --explain: the missing alternate file is said" \
	grep -q "alternate file '$ALT'.*not found" np.log

# The wrong build ID: another dwz common file at the recorded place.
cp common.debug dd2/.dwz/psym-test/common.debug
"$PSYM" symbolize --offline --explain --debug-dir "$T/dd2" np.pb -o np.out.pb 2>np.log2
check "symbolize --explain: an alternate file with another build ID is rejected" \
	grep -q "build ID mismatch" np.log2
check "symbolize: the summary says why (wrong build ID)" \
	grep -q "alternate file '$ALT'.*build ID mismatch" np.log2
cp np-common.debug dd2/.dwz/psym-test/common.debug
"$PSYM" symbolize --offline --explain --debug-dir "$T/dd2" np.pb -o np.out.pb 2>np.log3
check "symbolize --explain: the right alternate file is used" \
	grep -q "alternate DWARF file used" np.log3

# Hostile links. /dev/zero at the recorded place: only regular files are opened.
ln -sf /dev/zero dd/.dwz/psym-test/common.debug
timeout 60 "$PSYM" addr --offline --json --no-demangle -e run/prog-gcc --debug-dir "$T/dd" \
	<all.prog-gcc >psym.prog-gcc 2>err.zero
check "alternate file is /dev/zero: said, not read" grep -q "not a regular file" err.zero
check "alternate file is /dev/zero: outermost names from the symbol table" outer prog-gcc
rm dd/.dwz/psym-test/common.debug
# A link leading outside the debug dirs is not followed.
bid=$(readelf -n prog-gcc | sed -n 's/.*Build ID: //p')
dbg=dd/.build-id/$(echo $bid | cut -c1-2)/$(echo $bid | cut -c3-).debug
# .gnu_debugaltlink is the path, NUL, the build ID: new paths, the same build ID.
objcopy --dump-section .gnu_debugaltlink=link.bin $dbg
python3 - link.bin <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
bid = b[b.index(b"\0") + 1:]
open("link.escape", "wb").write(b"../../../../../../../../../../../../etc/passwd\0" + bid)
open("link.zero", "wb").write(b"/dev/zero\0" + bid)
open("link.nobid", "wb").write(b"/usr/lib/debug/.dwz/psym-test/common.debug\0")
PY
for l in escape zero nobid; do
	cp $dbg dbg.$l && objcopy --update-section .gnu_debugaltlink=link.$l dbg.$l
done
cp $dbg dbg.orig
cp dbg.escape $dbg
timeout 60 "$PSYM" addr --offline --json --no-demangle -e run/prog-gcc --debug-dir "$T/dd" \
	<all.prog-gcc >psym.prog-gcc 2>err.escape
check "alternate link outside the debug dirs: a reason" \
	grep -q "alternate file '../../.*/etc/passwd: not searched: outside the debug dirs" err.escape
check "alternate link outside the debug dirs: outermost names from the symbol table" outer prog-gcc
if command -v strace >/dev/null; then
	strace -f -e trace=open,openat -o trace.escape "$PSYM" addr --offline -e run/prog-gcc \
		--debug-dir "$T/dd" 0x$(nm prog-gcc | awk '$3 == "main" {print $1}') >/dev/null 2>&1
	check "alternate link outside the debug dirs: /etc/passwd never opened" \
		sh -c "! grep -q /etc/passwd trace.escape"
fi
cp dbg.zero $dbg
timeout 60 "$PSYM" addr --offline -e run/prog-gcc --debug-dir "$T/dd" <all.prog-gcc >/dev/null 2>err.zero2
check "alternate link to /dev/zero (outside): not opened, a reason" grep -q "alternate file '/dev/zero'.*not searched: outside" err.zero2
cp dbg.nobid $dbg
timeout 60 "$PSYM" addr --offline -e run/prog-gcc --debug-dir "$T/dd" <all.prog-gcc >/dev/null 2>err.nobid
check "alternate link without a build ID: malformed, said" grep -q "malformed .gnu_debugaltlink" err.nobid
cp dbg.orig $dbg
[ "$n_fail" = 0 ]
