#!/bin/sh
# Debug info found elsewhere, end to end through psym symbolize: a stripped
# binary with its debug file in a .build-id tree and through
# .gnu_debuglink (a wrong-CRC file rejected); a real debuginfod server
# with the local binaries deleted (lines and inlines come back), then
# stopped (a reason per mapping within the timeout); libc with Debian's
# libc6-dbg against llvm-symbolizer; MiniDebugInfo.
. "$top_srcdir/tests/lib.sh"
need gcc
need objcopy
need python3
need protoc
need llvm-symbolizer "Debian llvm"
MK=$top_srcdir/tests/mkprofile.py

cat >prog.c <<'C'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
static inline long leaf(long x) { return x * 3 + (x >> 2); }
static inline long mid(long x) { return leaf(x) + leaf(x ^ 5); }
__attribute__((noinline)) static long hidden_static(long n) { long s = 0; for (long i = 0; i < n; i++) s += mid(i); return s; }
__attribute__((noinline)) long hot(long n) { return hidden_static(n) + (long)strlen("x"); }
int main(void) { printf("ready %ld\n", hot(10)); fflush(stdout); sleep(30); return 0; }
C
gcc -O2 -g -fPIE -pie -Wl,--build-id -o prog.full prog.c
bid=$(readelf -n prog.full | sed -n 's/.*Build ID: //p')
objcopy --only-keep-debug prog.full prog.debug
mkdir -p run
objcopy --strip-debug --strip-unneeded --add-gnu-debuglink=prog.debug prog.full run/prog

# A live process of the stripped binary; its profile samples hot code.
./run/prog >live.out &
pid=$!
i=0; while ! grep -q ready live.out 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
cp /proc/$pid/maps live.maps
base=$(awk -v p="$T/run/prog" '$6 == p && $3 == "00000000" {split($1, a, "-"); print a[1]; exit}' live.maps)
libc=$(awk '/libc\.so\.6$/ {print $6; exit}' live.maps)
libcbase=$(awk '/libc\.so\.6$/ && $3 == "00000000" {split($1, a, "-"); print a[1]; exit}' live.maps)
kill $pid; wait $pid 2>/dev/null
objdump -d --no-show-raw-insn prog.full | awk '/<(hot|hidden_static)>:/{f=1; next} f && /^$/{f=0} f' |
	sed -n 's/^ *\([0-9a-f]*\):.*/\1/p' >va.txt
# Some libc functions too (libc6-dbg provides their debug file by build ID).
nm -D --defined-only "$libc" | awk '{sub(/@.*/, "", $3)} $2 ~ /[Tt]/ && $3 ~ /^(malloc|free|printf|qsort|fopen|getenv)$/ {print $1}' |
	sed 's/^0*//' >libcva.txt
python3 -c "
b, lb = int('$base', 16), int('$libcbase', 16)
for l in open('va.txt'): print('%x' % (b + int(l, 16)))
for l in open('libcva.txt'): print('%x' % (lb + int(l, 16) + 8))" >stacks.txt
python3 "$MK" live.maps stacks.txt >prof.txtpb && encode_txtpb prof.txtpb prof.pb
sed 's/^/0x/' va.txt | llvm-symbolizer --inlines --output-style=JSON --obj=prog.full >ref.json

# compare OUT.pb.gz: every location of prog equals llvm-symbolizer on prog.full.
compare() {
	"$PSYM" show --json "$1" >got.json
	python3 - "$base" <<'PY'
import json, sys
base = int(sys.argv[1], 16)
d = json.load(open("got.json"))
f = {x["id"]: x for x in d["functions"]}
ref = [json.loads(l) for l in open("ref.json")]
va = [int(l, 16) for l in open("va.txt")]
locs = {l["address"] - base: l for l in d["locations"]}
bad = 0
for a, r in zip(va, ref):
    l = locs[a]
    ours = [(f[x["function_id"]]["name"], f[x["function_id"]]["filename"].rsplit("/", 1)[-1], x["line"]) for x in l["lines"]]
    theirs = [(s["FunctionName"], s["FileName"].rsplit("/", 1)[-1], s["Line"]) for s in r["Symbol"]]
    if ours != theirs:
        bad += 1
        if bad < 4: print(hex(a), ours, theirs)
print(len(va), "addresses,", bad, "differ")
sys.exit(1 if bad or not va else 0)
PY
}

# 1. Separate debug file through a .build-id tree in --debug-dir.
mkdir -p dbg/.build-id/$(echo $bid | cut -c1-2)
cp prog.debug dbg/.build-id/$(echo $bid | cut -c1-2)/$(echo $bid | cut -c3-).debug
mv prog.debug away.debug
"$PSYM" symbolize --offline --debug-dir "$T/dbg" prof.pb -o a.pb.gz 2>a.log
check "build-id tree: lines and inlines equal llvm-symbolizer's on the unstripped binary" compare a.pb.gz
check "build-id tree: the summary names the debug file" grep -q "lines from '$T/dbg/.build-id/" a.log

# 1b. The same debug file inside a Debian -dbgsym package (--debug-pkg).
if command -v dpkg-deb >/dev/null; then
	d2=$(echo $bid | cut -c1-2)
	mkdir -p pkg/DEBIAN pkg/usr/lib/debug/.build-id/$d2
	cp away.debug pkg/usr/lib/debug/.build-id/$d2/$(echo $bid | cut -c3-).debug
	printf 'Package: prog-dbgsym\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: t\n' >pkg/DEBIAN/control
	dpkg-deb --root-owner-group --build pkg prog-dbgsym.deb >/dev/null
	XDG_CACHE_HOME=$T/cache "$PSYM" symbolize --offline --debug-pkg prog-dbgsym.deb prof.pb -o p.pb.gz 2>p.log
	check "--debug-pkg: lines and inlines equal llvm-symbolizer's" compare p.pb.gz
	check "--debug-pkg: extracted into the cache" test -d "$T/cache/psym/debs"
fi

# 2. .gnu_debuglink next to the binary (CRC checked), and a wrong one rejected.
cp away.debug run/prog.debug
"$PSYM" symbolize --offline prof.pb -o b.pb.gz 2>b.log
check "debuglink: lines and inlines equal llvm-symbolizer's" compare b.pb.gz
gcc -O0 -g -Wl,--build-id=none -o other prog.c && objcopy --only-keep-debug other run/prog.debug
"$PSYM" symbolize --offline --explain prof.pb -o c.pb.gz 2>c.log
# The binary has a build ID and this file has none: rejected before its CRC
# is even read (a file without the build ID is used only when named).
check "debuglink: a debug file without the binary's build ID is rejected" \
	grep -q "run/prog.debug': rejected: the file has no build ID" c.log
check "debuglink: no file or line from the rejected file" sh -c "! '$PSYM' show c.pb.gz | grep -q 'prog\.c'"
rm run/prog.debug

# 3. libc through Debian's libc6-dbg (build-ID tree in /usr/lib/debug).
if [ -d /usr/lib/debug/.build-id ] && dpkg -s libc6-dbg >/dev/null 2>&1; then
	"$PSYM" show --json a.pb.gz >libc.json
	python3 - "$libcbase" "$libc" <<'PY' && pass "libc6-dbg: libc names and lines equal llvm-symbolizer's" || fail "libc6-dbg: differs from llvm-symbolizer"
import json, subprocess, sys
lb, libc = int(sys.argv[1], 16), sys.argv[2]
d = json.load(open("libc.json"))
f = {x["id"]: x for x in d["functions"]}
va = [int(l, 16) + 8 for l in open("libcva.txt")]
out = subprocess.run(["llvm-symbolizer", "--inlines", "--output-style=JSON",
                      "--debug-file-directory=/usr/lib/debug", "--obj=" + libc] + [hex(a) for a in va],
                     capture_output=True, text=True).stdout
# With addresses as arguments llvm-symbolizer prints one JSON array.
out = [json.dumps(x) for x in json.loads(out)] if out.lstrip().startswith("[") else out.splitlines()
locs = {l["address"] - lb: l for l in d["locations"]}
# Aliases: names nm gives for one address (free, cfree, __libc_free) are all
# right for the physical function; tools pick different ones.
alias = {}
dbg = subprocess.run(["sh", "-c", "ls /usr/lib/debug/.build-id/*/$(readelf -n %s | sed -n 's/.*Build ID: ..//p').debug" % libc],
                     capture_output=True, text=True).stdout.strip()
for l in subprocess.run(["nm", "--defined-only", dbg or libc], capture_output=True, text=True).stdout.splitlines():
    w = l.split()
    if len(w) == 3:
        alias.setdefault(w[2].split("@")[0], set()).add(int(w[0], 16))
def same(a, b):
    return a == b or bool(alias.get(a, set()) & alias.get(b, set()))
bad = 0
for a, line in zip(va, out):
    r = json.loads(line)
    ours = [(f[x["function_id"]]["name"], x["line"]) for x in locs[a]["lines"]]
    theirs = [(s["FunctionName"], s["Line"]) for s in r["Symbol"]]
    if not ours and theirs in ([("", 0)], [("??", 0)]):
        continue  # unknown to both
    if (len(ours) != len(theirs) or any(o[1] != t[1] or not same(o[0], t[0]) for o, t in zip(ours, theirs))
            or not any(x["line"] for x in locs[a]["lines"])):
        bad += 1; print(hex(a), ours, theirs)
print(len(va), "libc addresses,", bad, "differ")
sys.exit(1 if bad or not va else 0)
PY
else
	echo "note: libc6-dbg not installed: libc check skipped"
fi

# 4. debuginfod: a real server on loopback; the local binaries deleted.
if command -v debuginfod >/dev/null; then
	mkdir -p served && cp prog.full served/prog
	start_debuginfod served "$bid" || fail "debuginfod did not index in time"
	mv run/prog run-prog.bak
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/dcache "$PSYM" symbolize --debuginfod-timeout 5 \
		prof.pb -o d.pb.gz 2>d.log
	check "debuginfod, binary deleted: lines and inlines equal llvm-symbolizer's" compare d.pb.gz
	kill $server; wait $server 2>/dev/null
	start=$(date +%s)
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/dcache2 "$PSYM" symbolize --debuginfod-timeout 3 \
		prof.pb -o e.pb.gz 2>e.log
	took=$(( $(date +%s) - start ))
	check "debuginfod down: finishes, not hung (${took}s for a 3 s timeout)" [ "$took" -lt 60 ]
	check "debuginfod down: a reason for the mapping" grep -q "run/prog': 0/.*debuginfod" e.log
	DEBUGINFOD_URLS=$url "$PSYM" symbolize --offline prof.pb -o f.pb.gz 2>f.log
	check "--offline: debuginfod not asked" sh -c "! grep -q 'debuginfod:' f.log || grep -q offline f.log"
	mv run-prog.bak run/prog
else
	echo "note: debuginfod server not installed: debuginfod checks skipped"
fi

# 5. MiniDebugInfo: a fully stripped binary with .gnu_debugdata.
objcopy --only-keep-debug prog.full mini.full
objcopy --strip-debug --remove-section=.gdb_index --remove-section=.comment mini.full mini.sym
xz -zkc mini.sym >mini.xz
strip --strip-all -o run/prog prog.full
objcopy --add-section .gnu_debugdata=mini.xz run/prog
"$PSYM" symbolize --offline prof.pb -o m.pb.gz 2>m.log
"$PSYM" show m.pb.gz >m.txt
check "MiniDebugInfo: the static function's name comes back" grep -q "hidden_static" m.txt
finish
