#!/bin/sh
# DWARF 5 supplementary files (dwz -5 -m): the debug files name their
# common file in .debug_sup (its name and a checksum) instead of
# .gnu_debugaltlink, and the supplementary file has no build-ID note: its
# own .debug_sup (is_supplementary = 1) carries the same checksum, which is
# how it is found in a .build-id tree and checked. Two g++ programs sharing
# templates (their abstract instances move to the common file), stripped,
# their debug files and the supplementary file in a .build-id tree: every
# instruction's whole inline chain from psym addr against llvm-symbolizer
# on the program before dwz; no warning; psym index takes it (its answers
# are complete); psym archive packs the supplementary file; a common file
# of another dwz run at the right path is refused for its checksum.
. "$top_srcdir/tests/lib.sh"
need g++
need dwz
need objcopy
need objdump
need readelf
need python3
need protoc
need zstd
need llvm-symbolizer "Debian llvm"
CMP=$top_srcdir/tests/compare-symbolizer.py

cat >prog.cc <<'C'
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>
static inline unsigned mix(unsigned h, unsigned x) { return (h ^ x) * 16777619u + (h >> 7); }
template <typename T> static T twice(T x) { return x + x; }
struct Counter {
	std::map<std::string, int> counts;
	void add(const std::string &w) { counts[w] += (int)(mix(w.size(), 3) & 7); }
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
	return 0;
}
C
for v in 1 2 3; do
	g++ -O2 -g -DVARIANT=$v -o p$v prog.cc || { fail "cannot build with g++"; exit 1; }
	objcopy --only-keep-debug p$v p$v.debug
	objcopy --strip-all p$v p$v.s
done
dwz --help 2>&1 | grep -q -- '--dwarf-5' || skip "this dwz cannot write DWARF 5 supplementary files (-5)"
# dwz rewrites its inputs: the second run's copies first.
cp p3.debug q3.debug && cp p2.debug q2.debug
dwz -5 -m sup.debug p1.debug p2.debug 2>dwz.err || { fail "dwz -5 failed: $(head -3 dwz.err)"; exit 1; }
# Another dwz run: a common file of the same name with another checksum.
dwz -5 -m other.debug q2.debug q3.debug 2>/dev/null || { fail "dwz -5 (second) failed"; exit 1; }

# The checksum, read from the debug file's .debug_sup by Python (DWARF 5
# section 7.3.6: version, is_supplementary, name, ULEB length, bytes).
sup_id() {
	objcopy --dump-section .debug_sup=sup.bin "$1" "$1.tmp" && rm -f "$1.tmp"
	python3 - sup.bin <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
assert b[0] | b[1] << 8 == 5, "version"
i = b.index(0, 3) + 1
n = s = 0
while True:
    n |= (b[i] & 0x7f) << s
    s += 7
    i += 1
    if not b[i - 1] & 0x80:
        break
print(b[i:i + n].hex())
PY
}
id=$(sup_id p1.debug)
check "the debug file names its supplementary file in .debug_sup (checksum $id)" \
	[ -n "$id" ]
check "the supplementary file has no build-ID note" sh -c "! readelf -n sup.debug 2>/dev/null | grep -q 'Build ID'"
readelf --debug-dump=info p1.debug >info.txt 2>/dev/null
check "the debug file imports units of the supplementary file" grep -q "DW_TAG_imported_unit" info.txt

tree() { # tree DIR FILE ID: FILE at DIR/.build-id/NN/REST.debug
	mkdir -p "$1/.build-id/$(echo "$3" | cut -c1-2)"
	cp "$2" "$1/.build-id/$(echo "$3" | cut -c1-2)/$(echo "$3" | cut -c3-).debug"
}
b1=$(readelf -n p1 | sed -n 's/.*Build ID: //p')
tree dd p1.debug "$b1"
tree dd sup.debug "$id"

objdump -d --no-show-raw-insn -j .text p1 | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >all
"$PSYM" addr --offline --json --no-demangle -e p1.s --debug-dir "$T/dd" <all >psym.json 2>err ||
	fail "psym addr failed: $(head -3 err)"
llvm-symbolizer --inlines --no-demangle --output-style=JSON --obj=p1 <all >llvm.json
if python3 "$CMP" --start psym.json llvm.json 99.9 >cmp.txt; then
	pass "every instruction ($(wc -l <all)) of the stripped program: $(head -1 cmp.txt)"
else
	fail "against llvm-symbolizer: $(head -5 cmp.txt)"
fi
check "no warning: the supplementary file was found and used" sh -c "! grep -q . err"
"$PSYM" addr --offline -v --explain -e p1.s --debug-dir "$T/dd" 0x0 >/dev/null 2>explain.txt
check "--explain: the supplementary file is used, its build ID (the checksum) matching" \
	grep -q "$(echo "$id" | cut -c3-).debug': used (build ID matches)" explain.txt

"$PSYM" index --index-store S --debug-dir "$T/dd" p1.s >idx.out 2>idx.err
check "psym index builds from it (its answers are complete): $(head -1 idx.err)" \
	grep -q "^$b1 " idx.out

# psym archive: the debug file and, by the checksum, its supplementary file.
cat >p.txtpb <<EOF2
sample_type { type: 1 unit: 2 }
sample { location_id: 1 value: 1 }
mapping { id: 1 memory_start: 4096 memory_limit: 65536 file_offset: 4096 filename: 3 build_id: 4 }
location { id: 1 mapping_id: 1 address: 4400 }
string_table: ""
string_table: "samples"
string_table: "count"
string_table: "$T/p1.s"
string_table: "$b1"
EOF2
encode_txtpb p.txtpb p.pb
"$PSYM" archive --debug-dir "$T/dd" p.pb -o p.tar.zst 2>arch.log || fail "psym archive failed: $(cat arch.log)"
zstd -q -dc p.tar.zst | tar tf - >members 2>/dev/null
check "psym archive packs the supplementary file" \
	grep -qx ".build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" members

# Another run's common file at this checksum's path: refused, said why.
rm -rf dd2
tree dd2 p1.debug "$b1"
tree dd2 other.debug "$id"
"$PSYM" addr --offline -e p1.s --debug-dir "$T/dd2" <all >bad.txt 2>bad.err
check "a supplementary file of another checksum is refused, with a reason" \
	grep -q "build ID mismatch" bad.err
[ "$n_fail" = 0 ]
