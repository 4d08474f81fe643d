#!/bin/sh
# Symbolizing from a separate debug file alone, the binaries gone (a dev box,
# a CI job that keeps only .debug artifacts). objcopy --only-keep-debug files
# (as Debian's and Fedora's are made) keep the PT_LOADs' addresses but not
# the binary's file offsets: a GNU ld PIE, a non-PIE, their shared library,
# and an lld-linked program and library (lld packs the file: p_offset !=
# p_vaddr) from live processes. Found by build ID in a --debug-dir tree, in
# a --debug-pkg .deb and from a real debuginfod server that has only the
# debug files. Oracle: llvm-symbolizer on the unstripped binaries, for
# every location (function, file, line, inline frames); psym's answers
# with the binaries present must be the same too.
# Also end to end: a stripped library whose debug file lies flat in a
# --debug-dir under its .gnu_debuglink name gets lines, and a file there
# whose CRC is not the debuglink's is rejected with the reason.
. "$top_srcdir/tests/lib.sh"
need gcc
need objcopy
need python3
need protoc
need llvm-symbolizer "Debian llvm"
MK=$top_srcdir/tests/mkprofile.py

cat >lib.c <<'C'
static inline int sq(int x) { return x * x + (x >> 3); }
static inline int twice(int x) { return sq(x) + sq(x + 1); }
__attribute__((noinline)) int lib_work(int n) { int s = 0; for (int i = 0; i < n; i++) s += twice(i) ^ s; return s; }
C
cat >prog.c <<'C'
#include <stdio.h>
#include <unistd.h>
int lib_work(int);
static inline long leaf(long x) { return x * 3 + (x >> 2); }
static inline long mid(long x) { return leaf(x) + leaf(x ^ 5); }
__attribute__((noinline)) static long hidden_static(long n) { long s = 0; for (long i = 0; i < n; i++) s += mid(i); return s; }
__attribute__((noinline)) long hot(long n) { return hidden_static(n) + lib_work((int)n); }
int main(void) { printf("ready %ld\n", hot(10)); fflush(stdout); sleep(30); return 0; }
C

# build VARIANT CC LDFLAGS PROGFLAGS: full/V/{prog,libdo.so} unstripped,
# run/V/ the same stripped (debug sections gone, a .gnu_debuglink added),
# dbg/V/*.debug made by objcopy --only-keep-debug.
build() {
	v=$1 cc=$2 ld=$3 pf=$4
	mkdir -p full/$v run/$v dbg/$v
	$cc -O2 -g -fPIC -shared $ld -Wl,--build-id -o full/$v/libdo.so lib.c &&
		$cc -O2 -g $pf $ld -Wl,--build-id -o full/$v/prog prog.c -Lfull/$v -ldo \
			-Wl,-rpath,"$T/run/$v" || return 1
	for f in prog libdo.so; do
		objcopy --only-keep-debug full/$v/$f dbg/$v/$f.debug || return 1
		objcopy --strip-debug --add-gnu-debuglink=dbg/$v/$f.debug full/$v/$f run/$v/$f || return 1
	done
}
variants=""
build pie gcc "" "-fPIE -pie" && variants="$variants pie" || unbuildable pie "gcc -pie failed"
build nopie gcc "" "-fno-PIE -no-pie" && variants="$variants nopie" || unbuildable nopie "gcc -no-pie failed"
if command -v clang >/dev/null && command -v ld.lld >/dev/null; then
	build lld clang -fuse-ld=lld "-fPIE -pie" && variants="$variants lld" ||
		unbuildable lld "clang -fuse-ld=lld failed"
else
	unbuildable lld "clang or ld.lld not installed"
fi
[ -n "$variants" ] || skip "no variant could be built"
# The premise: these debug files lost the binary's layout. lld's text
# segment is where lld's file offsets differ from its addresses.
check "objcopy --only-keep-debug: the code segment has no file contents" sh -c \
	"readelf -lW dbg/pie/prog.debug 2>/dev/null | awk '\$1 == \"LOAD\" && / R E / && \$5 != \"0x000000\" {b=1} END {exit b}'"
case $variants in *lld*)
	check "lld: a segment's file offset differs from its address" sh -c \
		"readelf -lW full/lld/prog | awk '\$1 == \"LOAD\" {print \$2, \$3}' |
		python3 -c 'import sys; sys.exit(not any(int(a, 16) != int(b, 16) for a, b in map(str.split, sys.stdin)))'"
esac

# Live processes of the stripped binaries; one profile samples them all.
: >all.maps
for v in $variants; do
	./run/$v/prog >live-$v.out &
	pid=$!
	i=0; while ! grep -q ready live-$v.out 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	cat /proc/$pid/maps >>all.maps
	kill $pid; wait $pid 2>/dev/null
done
# Every instruction of our functions, placed by the full binaries' own
# program headers (readelf) in the live mappings: addrs.tsv holds
# "runtime-address full-binary vaddr".
python3 - "$T" $variants <<'PY' >stacks.txt
import re, subprocess, sys
T, variants = sys.argv[1], sys.argv[2:]
maps = []
for l in open("all.maps"):
    w = l.split()
    if len(w) >= 6 and "x" in w[1]:
        s, e = (int(x, 16) for x in w[0].split("-"))
        maps.append((s, e, int(w[2], 16), w[5]))
def loads(path):
    out = []
    for l in subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout.splitlines():
        w = l.split()
        if w and w[0] == "LOAD":
            out.append((int(w[1], 16), int(w[2], 16), int(w[4], 16)))
    return out
want = {"prog": ("main", "hot", "hidden_static"), "libdo.so": ("lib_work",)}
tsv = open("addrs.tsv", "w")
for v in variants:
    for obj, funcs in want.items():
        full, live = "full/%s/%s" % (v, obj), "%s/run/%s/%s" % (T, v, obj)
        dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", full], capture_output=True, text=True).stdout
        cur = None
        for l in dis.splitlines():
            m = re.match(r"^[0-9a-f]+ <(.*)>:$", l)
            if m:
                cur = m.group(1)
                continue
            m = re.match(r"^ *([0-9a-f]+):\s", l)
            if not m or cur not in funcs:
                continue
            va = int(m.group(1), 16)
            fo = next(o + va - a for o, a, n in loads(full) if a <= va < a + n)
            rt = [s + fo - off for s, e, off, p in maps if p == live and off <= fo < off + e - s]
            assert len(rt) == 1, (v, obj, hex(va), rt)
            print("%x" % rt[0])
            tsv.write("%x %s %x\n" % (rt[0], full, va))
PY
[ -s addrs.tsv ] || fail "no addresses from the live processes"
python3 "$MK" all.maps stacks.txt >prof.txtpb && encode_txtpb prof.txtpb prof.pb
# The oracle: llvm-symbolizer on each unstripped binary, frames per address.
python3 - <<'PY'
import json, subprocess
rows = [l.split() for l in open("addrs.tsv")]
out = open("ref.tsv", "w")
for obj in sorted({r[1] for r in rows}):
    mine = [r for r in rows if r[1] == obj]
    res = subprocess.run(["llvm-symbolizer", "--inlines", "--output-style=JSON", "--obj=" + obj],
                         input="".join("0x%s\n" % r[2] for r in mine), capture_output=True,
                         text=True).stdout.splitlines()
    assert len(res) == len(mine)
    for r, j in zip(mine, res):
        fr = [(s["FunctionName"], s["FileName"].rsplit("/", 1)[-1], s["Line"]) for s in json.loads(j)["Symbol"]]
        if fr in ([("", "", 0)], [("??", "??", 0)]):
            fr = []  # unknown (padding after a function): nothing to say
        out.write("%s %s\n" % (r[0], json.dumps(fr)))
PY

# frames OUT.pb > TSV: "address [frames]" per sampled address, as psym wrote them.
frames() {
	"$PSYM" show --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = {x["id"]: x for x in d["functions"]}
locs = {"%x" % l["address"]: l for l in d["locations"]}
for l in open("addrs.tsv"):
    a = l.split()[0]
    fr = [(f[x["function_id"]]["name"], f[x["function_id"]]["filename"].rsplit("/", 1)[-1], x["line"])
          for x in locs[a]["lines"]]
    print(a, json.dumps(fr))'
}
# agree TSV [ONLY]: every address (of objects matching ONLY) as llvm-symbolizer says.
agree() {
	python3 - "$1" "${2:-}" <<'PY'
import sys
only = sys.argv[2]
obj = {l.split()[0]: l.split()[1] for l in open("addrs.tsv")}
ref = dict(l.rstrip("\n").split(" ", 1) for l in open("ref.tsv"))
got = dict(l.rstrip("\n").split(" ", 1) for l in open(sys.argv[1]))
n = bad = 0
for a in ref:
    if only not in obj[a]:
        continue
    n += 1
    if got.get(a) != ref[a]:
        bad += 1
        if bad < 4: print(a, obj[a], "got", got.get(a), "want", ref[a])
print(n, "addresses,", bad, "differ from llvm-symbolizer")
sys.exit(1 if bad or not n else 0)
PY
}

# A .build-id tree of the debug files.
for v in $variants; do
	for f in prog libdo.so; do
		bid=$(readelf -n full/$v/$f | sed -n 's/.*Build ID: //p')
		mkdir -p tree/.build-id/${bid%"${bid#??}"}
		cp dbg/$v/$f.debug tree/.build-id/${bid%"${bid#??}"}/${bid#??}.debug
	done
done

# 0. Binaries present (stripped), debug files in the tree.
"$PSYM" symbolize --no-cache --offline --debug-dir "$T/tree" prof.pb -o present.pb 2>present.log
frames present.pb >present.tsv
check "binaries present: every location equals llvm-symbolizer's" agree present.tsv

# 1. The binaries gone: the debug files stand in, found by build ID.
mv run run.gone
"$PSYM" symbolize --no-cache --offline --explain --debug-dir "$T/tree" prof.pb -o tree.pb 2>tree.log
frames tree.pb >tree.tsv
for v in $variants; do
	check "binaries gone, .build-id tree, $v program: equals llvm-symbolizer's" agree tree.tsv full/$v/prog
	check "binaries gone, .build-id tree, $v library: equals llvm-symbolizer's" agree tree.tsv full/$v/libdo.so
done
check "binaries gone: the same answers as with the binaries present" cmp present.tsv tree.tsv
check "inline frames came back" grep -q '\[\["sq"' tree.tsv
check "--explain: the debug file is used in place of the binary" \
	grep -q "\.debug': used in place of the binary: a debug file" tree.log
check "the mapping's line says the debug file stood in" \
	grep -q "run/pie/prog': .* (a debug file standing in for the binary), with lines" tree.log

# 2. The debug files in a Debian -dbgsym package (--debug-pkg).
if command -v dpkg-deb >/dev/null; then
	mkdir -p pkg/DEBIAN pkg/usr/lib/debug
	cp -r tree/.build-id pkg/usr/lib/debug/
	printf 'Package: do-dbgsym\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' >pkg/DEBIAN/control
	dpkg-deb --root-owner-group --build pkg do-dbgsym.deb >/dev/null
	"$PSYM" symbolize --no-cache --offline --debug-pkg do-dbgsym.deb prof.pb -o pkg.pb 2>pkg.log
	frames pkg.pb >pkg.tsv
	check "binaries gone, --debug-pkg: every location equals llvm-symbolizer's" agree pkg.tsv
else
	unbuildable "--debug-pkg case" "dpkg-deb not installed"
fi

# 3. A real debuginfod server that has only the debug files.
if command -v debuginfod >/dev/null; then
	mkdir -p served
	for v in $variants; do cp dbg/$v/prog.debug served/$v-prog.debug; cp dbg/$v/libdo.so.debug served/$v-libdo.debug; done
	bid=$(readelf -n full/pie/prog | sed -n 's/.*Build ID: //p')
	if start_debuginfod served "$bid"; then
		check "debuginfod serves no executable for the build ID" python3 -c "
import urllib.request, urllib.error, sys
try: urllib.request.urlopen('$url/buildid/$bid/executable', timeout=5).read()
except urllib.error.HTTPError as e: sys.exit(0 if e.code == 404 else 1)
sys.exit(1)"
		DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/dcache "$PSYM" symbolize --no-cache \
			--debuginfod-timeout 20 prof.pb -o dfd.pb 2>dfd.log
		frames dfd.pb >dfd.tsv
		check "binaries gone, debuginfod debuginfo only: every location equals llvm-symbolizer's" agree dfd.tsv
		kill $server; wait $server 2>/dev/null
	else
		fail "debuginfod did not index in time"
	fi
else
	unbuildable "debuginfod case" "debuginfod not installed"
fi
mv run.gone run

# 4. A flat --debug-dir: DIR/<.gnu_debuglink name> of a stripped library.
mkdir -p flat
cp dbg/pie/libdo.so.debug flat/
"$PSYM" symbolize --no-cache --offline --explain --debug-dir "$T/flat" prof.pb -o flat.pb 2>flat.log
frames flat.pb >flat.tsv
check "flat debug dir, debuglink name: the library's lines equal llvm-symbolizer's" agree flat.tsv full/pie/libdo.so
check "flat debug dir: found under its debuglink name" grep -q "flat/libdo.so.debug': used" flat.log
# Without build IDs the CRC is what vouches for a debuglink file.
gcc -O2 -g -fPIC -shared -Wl,--build-id=none -o nb-full.so lib.c
objcopy --only-keep-debug nb-full.so libnb.so.debug
mkdir -p nb flatnb
objcopy --strip-debug --add-gnu-debuglink=libnb.so.debug nb-full.so nb/libnb.so
va=$(nm nb-full.so | awk '$3 == "lib_work" {print $1}')
# A mapping of the library's text as ld.so makes it (file offset = vaddr here).
python3 - "$T/nb/libnb.so" "$va" <<'PY' >nb.stacks
import sys
va = int(sys.argv[2], 16)
base = 0x7f5500000000
print("mapping %x %x %x %s" % (base + 0x1000, base + 0x2000, 0x1000, sys.argv[1]))
print("%x" % (base + va + 4))
PY
python3 "$MK" /dev/null nb.stacks >nb.txtpb && encode_txtpb nb.txtpb nb.pb
want=$(printf '0x%x\n' $((0x$va + 4)) | llvm-symbolizer --obj=nb-full.so | sed -n 2p | sed 's|.*/||; s/:[0-9]*$//')
cp libnb.so.debug flatnb/libnb.so.debug && printf 'x' >>flatnb/libnb.so.debug
"$PSYM" symbolize --no-cache --offline --explain --debug-dir "$T/flatnb" nb.pb -o nb1.pb 2>nb1.log
check "flat debug dir, wrong CRC: rejected with the reason" \
	grep -q "flatnb/libnb.so.debug': rejected: CRC [0-9a-f]*, debuglink says" nb1.log
check "flat debug dir, wrong CRC: no line from the rejected file" sh -c "! '$PSYM' show nb1.pb | grep -q 'lib\.c:'"
cp libnb.so.debug flatnb/libnb.so.debug
"$PSYM" symbolize --no-cache --offline --explain --debug-dir "$T/flatnb" nb.pb -o nb2.pb 2>nb2.log
check "flat debug dir, right CRC: used" grep -q "flatnb/libnb.so.debug': used (debuglink CRC matches)" nb2.log
check "flat debug dir, right CRC: the line llvm-symbolizer gives ($want)" sh -c "'$PSYM' show nb2.pb | grep -q '$want'"
finish
