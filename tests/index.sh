#!/bin/sh
# Per-build-ID indexes (issue 25), directory store: psym index prints the
# build ID (readelf's), the size and the seconds; every byte of the text
# answers the same from the index as from the DWARF (llvm-symbolizer
# agrees with both); truncated, bit-flipped, planted (another build ID),
# newer-version and untrusted indexes are ignored with one warning and the
# DWARF answers; concurrent builders leave one valid index; a stale
# .building marker is taken over; symbolize builds an index in the
# background on the policy (half the units read) and the next run answers
# from it alone, saying so; a batch builds for a binary two of its profiles
# used, once it is done, and counts it on its last results line.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/index-lib.sh"
need gcc
need objcopy
need objdump
need python3
need protoc
MK=$top_srcdir/tests/mkprofile.py

# A program with many functions, inlines and several units: its index
# spans several 64 KiB checksum chunks.
python3 - <<'PY'
for u in range(4):
    with open("u%d.c" % u, "w") as f:
        f.write("static inline __attribute__((always_inline)) int sq%d(int x) { return x * x + %d; }\n" % (u, u))
        f.write("static inline __attribute__((always_inline)) int tw%d(int x) { return sq%d(x) ^ sq%d(x + 1); }\n" % (u, u, u))
        for i in range(700):
            f.write("__attribute__((noinline)) int f%d_%d(int n) { int s = 0; for (int i = 0; i < n; i++) s += tw%d(i + %d) * (i & %d); return s; }\n" % (u, i, u, i, i + 1))
        f.write("int g%d(int n) { return %s; }\n" % (u, " + ".join("f%d_%d(n)" % (u, i) for i in range(0, 700, 7))))
with open("main.c", "w") as f:
    f.write("int g0(int), g1(int), g2(int), g3(int);\nint main(int c, char **v) { (void)v; return (g0(c) + g1(c) + g2(c) + g3(c)) & 1; }\n")
PY
gcc -O2 -g -o prog main.c u0.c u1.c u2.c u3.c || { fail "cannot build"; exit 1; }
bid=$(readelf -n prog | sed -n 's/.*Build ID: //p')
objdump -d --no-show-raw-insn -j .text prog | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >insns
# Every byte of the code sections and a little around them.
python3 - prog >bytes <<'PY'
import subprocess, sys
lo = hi = None
for l in subprocess.run(["readelf", "-SW", sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
    if "]" not in l:
        continue
    f = l.split("]", 1)[1].split()
    if len(f) > 6 and f[0] in (".init", ".plt", ".plt.got", ".text", ".fini"):
        a, s = int(f[2], 16), int(f[4], 16)
        lo = a if lo is None else min(lo, a)
        hi = a + s if hi is None else max(hi, a + s)
for a in range(max(lo - 256, 0), hi + 256):
    print(hex(a))
PY

"$PSYM" index --index-store S prog >idx.out 2>idx.err
check "psym index: one line: build ID, size, seconds" \
	grep -qE "^$bid [0-9]+ [0-9]+\.[0-9]+\$" idx.out
f=$(ls S/"$(echo "$bid" | cut -c1-2)"/"$bid".*.psymidx 2>/dev/null | head -n 1)
name=$(basename "${f:-none}")
check "the index is stored as BUILDID.VARIANT.fFORMAT.psymidx ($name)" \
	sh -c "echo '$name' | grep -qE '^$bid\.[a-z][0-9]+-[A-Za-z0-9.+_-]+\.f[0-9]+\.psymidx\$'"
check "the index is stored under its build ID" [ -f "$f" ]
# Another psym version's index of the same build ID (its name differs in
# the variant) sits beside it: never read, never replaced.
foreign=S/$(echo "$bid" | cut -c1-2)/$bid.i0-0.0.f1.psymidx
printf 'not this version' >"$foreign"
rm -f "$f"
check "psym index beside another version's index" "$PSYM" index --index-store S prog
check "...builds its own" [ -f "$f" ]
check "...and leaves the other version's as it was" [ "$(cat "$foreign")" = "not this version" ]
rm -f "$foreign"
check "the size printed is the file's" [ "$(cut -d' ' -f2 idx.out)" = "$(wc -c <"$f")" ]
check "no building marker is left behind" [ ! -e "${f%.psymidx}.building" ]
check "psym index --verify: ok" sh -c "\"$PSYM\" index --verify $f | grep -q 'ok: build ID $bid'"
check "the index spans several checksum chunks" [ "$(wc -c <"$f")" -gt 200000 ]

index_compare prog bytes
if command -v llvm-symbolizer >/dev/null; then
	"$PSYM" addr --json --index-store S -e prog.nodebug <insns >ix.json
	llvm-symbolizer --inlines --output-style=JSON --obj=prog <insns >llvm.json
	if python3 "$top_srcdir/tests/compare-symbolizer.py" --start ix.json llvm.json 99.9 >cmp.txt; then
		pass "index answers agree with llvm-symbolizer: $(head -1 cmp.txt)"
	else
		fail "index answers vs llvm-symbolizer: $(head -3 cmp.txt)"
	fi
fi
"$PSYM" addr --no-index -e prog <insns >dw.txt
# addr --filter (crash logs) answers from the index too.
a=$(sed -n 1000p insns)
printf '    #0 0x7f0000001000 (%s+%s)\n' "$PWD/prog.nodebug" "$a" >crash.txt
printf '    #0 0x7f0000001000 (%s+%s)\n' "$PWD/prog" "$a" >crash.dw.txt
"$PSYM" addr --filter --index-store S --no-index-build <crash.txt | sed 's/\.nodebug+/+/' >filter.ix
"$PSYM" addr --filter --no-index <crash.dw.txt >filter.dw
check "addr --filter: answers from the index = from the DWARF ($(wc -l <filter.dw) frames)" \
	sh -c "cmp -s filter.ix filter.dw && grep -q 'u[0-3].c:' filter.dw"

# damaged KIND FILE: the DWARF answers, with exactly one warning line.
damaged() {
	"$PSYM" addr --index-store D --no-index-build -e prog <insns >d.$1 2>d.$1.err
	if ! cmp -s d.$1 dw.txt; then
		fail "$1 index: answers differ from the DWARF's"
	elif [ "$(grep -c 'warning: .*index' d.$1.err)" != 1 ]; then
		fail "$1 index: want one warning line: $(cat d.$1.err)"
	elif ! grep -q "$2" d.$1.err; then
		fail "$1 index: warning without '$2': $(cat d.$1.err)"
	else
		pass "$1 index ignored, DWARF answers: $(cat d.$1.err)"
	fi
}
df=D/$(echo "$bid" | cut -c1-2)/$name
mkdir -p "$(dirname "$df")"
size=$(wc -c <"$f")
head -c $((size - 1000)) "$f" >"$df"
damaged truncated "truncated"
head -c 600 "$f" >"$df"
damaged truncated-header "truncated header"
flip() { # OFFSET: one bit of the index flipped there
	python3 -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[int(sys.argv[2])] ^= 0x10
open(sys.argv[3], 'wb').write(bytes(b))" "$f" "$1" "$df"
}
flip $((size / 2))
damaged bit-flipped-middle "checksum mismatch"
flip 40
damaged bit-flipped-header "checksum"
flip $((size - 3))
damaged bit-flipped-crc-table "checksum table"
# Another program's index planted under this build ID.
gcc -O1 -g -o other main.c u0.c u1.c u2.c u3.c -DOTHER
"$PSYM" index --index-store O other >/dev/null
cp O/*/*.psymidx "$df"
damaged planted "is for build ID"
# A newer format, with a good header checksum.
newer=$(($(sed -n 's/^#define PSYM_INDEX_VERSION //p' "$top_srcdir/src/index/index.h") + 1))
python3 - "$f" "$df" "$newer" <<'PY'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read())
b[8:12] = struct.pack("<I", int(sys.argv[3]))
b[1020:1024] = struct.pack("<I", zlib.crc32(bytes(b[:1020])))
open(sys.argv[2], "wb").write(bytes(b))
PY
damaged newer-version "version $newer"
cp "$f" "$df"
chmod g+w "$df"
damaged group-writable "not trusted"
chmod g-w "$df"
"$PSYM" addr --index-store D --no-index-build -e prog <insns >d.good 2>d.good.err
check "an intact copy is used again without a warning" sh -c "cmp -s d.good dw.txt && [ ! -s d.good.err ]"
mkdir -p W && chmod o+w W
expect_exit 2 "a store writable by others is refused" "$PSYM" addr --index-store W -e prog 0x1000
rm -rf W

# Concurrent builders of one build ID: one index, valid; the others say so or build too.
for i in 1 2 3; do
	"$PSYM" index --index-store C prog >c$i.out 2>c$i.err &
	eval "p$i=\$!"
done
ok=0
for i in 1 2 3; do
	eval "wait \$p$i" && ok=$((ok + 1))
done
cf=C/$(echo "$bid" | cut -c1-2)/$name
check "concurrent builders: at least one built it ($ok of 3; others: $(cat c*.err | head -2))" [ "$ok" -ge 1 ]
check "concurrent builders: the others said another process builds it" \
	sh -c "[ \$(cat c*.err | grep -c 'another process is building') = $((3 - ok)) ]"
check "concurrent builders: the index is valid" "$PSYM" index --verify "$cf"
check "concurrent builders: no temporary file left" sh -c "! ls -a C/* | grep -q tmp"
rm -f "$cf"
: >"${cf%.psymidx}.building"
expect_exit 1 "a fresh .building marker: not built twice" "$PSYM" index --index-store C prog
touch -d '2 hours ago' "${cf%.psymidx}.building"
check "a stale .building marker is taken over" "$PSYM" index --index-store C prog
check "...and removed" [ ! -e "${cf%.psymidx}.building" ]

# Not indexable: no DWARF, no build ID. One line naming the file, exit 1.
objcopy --strip-all prog bare
expect_exit 1 "no DWARF: not indexed" "$PSYM" index --index-store S --offline bare
check "no DWARF: one line naming the file" sh -c "\"$PSYM\" index --index-store S --offline bare 2>&1 >/dev/null | grep -c \"'bare'.*no DWARF\" | grep -qx 1"
gcc -O2 -g -Wl,--build-id=none -o nobid main.c u0.c u1.c u2.c u3.c
expect_exit 1 "no build ID: not indexed" "$PSYM" index --index-store S nobid

# Rust and Go programs (their own DWARF producers), when the toolchains are
# here. Go writes no GNU build ID unless asked (-B): indexes are keyed by it.
if command -v rustc >/dev/null 2>&1; then
	cat >r.rs <<'RS'
use std::collections::HashMap;
fn count(words: &[&str]) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for w in words { *m.entry(w.to_lowercase()).or_insert(0) += 1; }
    m
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let words: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    let m = count(&words);
    let mut v: Vec<_> = m.iter().collect();
    v.sort();
    println!("{:?}", v.iter().map(|(k, n)| format!("{}={}", k, n)).collect::<Vec<_>>());
}
RS
	if rustc -g -C opt-level=2 -o rprog r.rs 2>rustc.err; then
		objdump -d --no-show-raw-insn -j .text rprog |
			sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' | awk 'NR % 3 == 0' >rinsns
		index_compare rprog rinsns
	else
		echo "note: rustc cannot build here: $(head -2 rustc.err)"
	fi
fi
if command -v go >/dev/null 2>&1; then
	mkdir -p gop && cat >gop/main.go <<'GO'
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

func main() {
	m := map[string]int{}
	for _, a := range os.Args {
		m[strings.ToLower(a)]++
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println(keys)
}
GO
	if (cd gop && GOCACHE=$T/gocache GOPATH=$T/gopath GO111MODULE=off GOFLAGS=-mod=mod \
		go build -ldflags "-B 0x$(md5sum main.go | cut -c1-32)aaaaaaaa" -o ../gprog main.go) \
		2>go.err; then
		objdump -d --no-show-raw-insn -j .text gprog |
			sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' | awk 'NR % 5 == 0' >ginsns
		index_compare gprog ginsns
	else
		echo "note: go cannot build here: $(head -2 go.err)"
	fi
fi

# symbolize: the first run answers from the DWARF and starts a background
# build (it read all units); the next run answers from the index alone.
: >maps.empty
python3 - "$PWD/prog" insns >stacks <<'PY'
import random, sys
r = random.Random(7)
ins = [int(l, 16) for l in open(sys.argv[2])]
print("mapping 0 %x 0 %s" % (max(ins) + 0x1000, sys.argv[1]))
for a in r.sample(ins, 3000):
    print("%x" % a)
PY
python3 "$MK" maps.empty stacks >p.txtpb && encode_txtpb p.txtpb p.pb
"$PSYM" symbolize --offline --no-cache --no-index p.pb -o ref.pb 2>ref.log
"$PSYM" symbolize --offline --no-cache --index-store Y p.pb -o y1.pb 2>y1.log
check "symbolize without an index: same profile" cmp -s y1.pb ref.pb
check "symbolize: an index build started, said in the summary" grep -q "1 index build started in 'Y'" y1.log
yf=Y/$(echo "$bid" | cut -c1-2)/$name
for _ in $(seq 100); do
	[ -f "$yf" ] && break
	sleep 0.2
done
check "the background build wrote the index" "$PSYM" index --verify "$yf"
cp prog.nodebug prog.tmp && mv prog prog.full && mv prog.tmp prog
"$PSYM" symbolize --offline --no-cache --index-store Y --explain p.pb -o y2.pb 2>y2.log
check "second run, binary without DWARF: same profile, from the index" cmp -s y2.pb ref.pb
check "the summary names the index" grep -q "from the index '.*$name'" y2.log
check "--explain says the answers came from the index" grep -q "answers from the index" y2.log
"$PSYM" symbolize --offline --no-cache --no-index p.pb -o y3.pb 2>/dev/null
check "--no-index: the index is not used" sh -c "! cmp -s y3.pb ref.pb"
mv prog.full prog

# A batch whose profiles each use a little of a binary (one address of
# one of its 5 units: under the half-the-units rule), over a store that
# never saw it: two profiles of the batch using it are enough, and the
# build starts when the batch is done (on its own thread), counted on
# its last results line.
mkdir -p bq
for k in 1 2 3; do
	python3 - "$PWD/prog" insns "$k" >stacks.$k <<'PY'
import sys
ins = [int(l, 16) for l in open(sys.argv[2])]
print("mapping 0 %x 0 %s" % (max(ins) + 0x1000, sys.argv[1]))
print("%x" % ins[len(ins) // 2 + int(sys.argv[3])])
PY
	python3 "$MK" maps.empty stacks.$k >bq.txtpb && encode_txtpb bq.txtpb bq/p$k.pb
done
mkdir -p bqout
printf '%s\t%s\n' bq/p1.pb bqout/p1.pb bq/p2.pb bqout/p2.pb bq/p3.pb bqout/p3.pb >bq.manifest
"$PSYM" symbolize --offline --no-cache --index-store B --manifest bq.manifest --results bq.jsonl 2>bq.log ||
	fail "batch failed: $(cat bq.log)"
bf=B/$(echo "$bid" | cut -c1-2)/$name
for _ in $(seq 100); do
	[ -f "$bf" ] && break
	sleep 0.2
done
check "batch: a binary used a little by 3 profiles gets its index" "$PSYM" index --verify "$bf"
nb=$(python3 -c "
import json
print(sum(json.loads(l)['indexes_built'] for l in open('bq.jsonl')))")
check "batch: the results lines count the one build ($nb)" [ "$nb" = 1 ]
check "batch: 3 results lines" [ "$(wc -l <bq.jsonl)" = 3 ]
check "batch: the summary says the build started" grep -q "1 index build started in 'B'" bq.log
"$PSYM" symbolize --offline --no-cache --index-store Q1 bq/p1.pb -o one.pb 2>one.log
check "one profile using a little of it: no build (the half-the-units rule)" \
	sh -c "! grep -q 'index build' one.log && ! ls Q1/*/*.psymidx 2>/dev/null | grep -q ."
[ "$n_fail" = 0 ]
