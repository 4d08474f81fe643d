#!/bin/sh
# The persistent symbol cache (--cache DIR): a second run answers from the
# cache without opening the debug file and writes the same profile; new
# addresses are merged in; a truncated, bit-flipped or foreign cache file is
# ignored and rewritten; answers of other options never mix; parallel psym
# processes sharing one cache leave it valid; --no-cache writes nothing.
. "$top_srcdir/tests/lib.sh"
need gcc
need objcopy
need python3
need protoc
MK=$top_srcdir/tests/mkprofile.py

cat >c.c <<'C'
static inline __attribute__((always_inline)) int sq(int x) { return x * x + 1; }
static inline __attribute__((always_inline)) int twice(int x) { return sq(x) + sq(x + 1); }
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += twice(i); return s; }
__attribute__((noinline)) int beta(int n) { return alpha(n) * 3 + sq(n); }
int main(int argc, char **argv) { (void)argv; return beta(argc) & 1; }
C
gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -o c c.c
bid=$(readelf -n c | sed -n 's/.*Build ID: //p')
mkdir -p dbg/.build-id/$(echo "$bid" | cut -c1-2)
objcopy --only-keep-debug c "dbg/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
cp c c.full
objcopy --strip-debug c
: >maps.empty
mkprof() { # NAME SEED COUNT: a profile of COUNT addresses of c's text
	python3 - "$2" "$3" "$PWD/c" >stacks.$1 <<'PY'
import random, subprocess, sys
r = random.Random(int(sys.argv[1]))
out = subprocess.run(["objdump", "-d", sys.argv[3]], capture_output=True, text=True).stdout
ins = sorted({int(l.split(":")[0], 16) for l in out.splitlines() if l.startswith("  4")})
print("mapping 400000 500000 0 %s" % sys.argv[3])
for a in r.sample(ins, min(int(sys.argv[2]), len(ins))):
    print("%x" % a)
PY
	python3 "$MK" maps.empty stacks.$1 >$1.txtpb && encode_txtpb $1.txtpb $1.pb
}
mkprof a 1 60
mkprof b 2 60
sym() { "$PSYM" symbolize --offline --debug-dir dbg "$@"; }

sym --no-cache a.pb -o ref-a.pb 2>/dev/null
check "--no-cache writes no cache" [ ! -d .cache/psym/symbols ]
sym --cache sc a.pb -o a1.pb 2>a1.log
v=$(sed -n 's/^#define PSYM_SYMCACHE_VERSION //p' "$top_srcdir/src/resolve/symcache.h")
check "first run writes the cache file (format $v)" [ -s "sc/v$v/$bid.psc" ]
check "first run output equals --no-cache's" cmp -s a1.pb ref-a.pb
if command -v strace >/dev/null; then
	strace -f -e trace=openat -o tr.txt "$PSYM" symbolize --offline --debug-dir dbg --cache sc a.pb -o a2.pb 2>a2.log
	check "second run does not open the debug file" sh -c "! grep -q '\\.debug\"' tr.txt"
else
	sym --cache sc a.pb -o a2.pb 2>a2.log
fi
check "second run: same profile" cmp -s a2.pb ref-a.pb
check "second run: said to come from the cache" grep -q "from the symbol cache" a2.log
check "inline frames kept through the cache" sh -c "\"$PSYM\" show a2.pb | grep -q '(inlined)'"
check "answers from the cache equal llvm-symbolizer's (inline chains, lines)" llvm_agree a2.pb c.full
# New addresses are merged in; then both profiles are answered whole.
sym --no-cache b.pb -o ref-b.pb 2>/dev/null
sym --cache sc b.pb -o b1.pb 2>/dev/null
check "partly cached profile: same as --no-cache" cmp -s b1.pb ref-b.pb
sym --cache sc a.pb -o a3.pb 2>a3.log
sym --cache sc b.pb -o b3.pb 2>b3.log
check "after merging, both answered from the cache" sh -c 'grep -q "from the symbol cache" a3.log && grep -q "from the symbol cache" b3.log'
check "merged answers equal llvm-symbolizer's" llvm_agree b3.pb c.full
# Damaged cache files: ignored, output still right, file rewritten whole.
f=sc/v$v/$bid.psc
size=$(wc -c <"$f")
head -c $((size / 2)) "$f" >t && mv t "$f"
sym --cache sc a.pb -o a4.pb 2>a4.log
check "truncated cache: ignored, right output" cmp -s a4.pb ref-a.pb
check "truncated cache: rewritten" sh -c "[ \$(wc -c <$f) -gt $((size / 2)) ]"
check "truncated cache: one warning line naming it" sh -c "[ \$(grep -c 'warning: symbol cache .*$bid.psc. ignored (truncated' a4.log) = 1 ]"
python3 - "$f" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) * 2 // 3] ^= 0x40
open(sys.argv[1], "wb").write(bytes(b))
PY
sym --cache sc a.pb -o a5.pb 2>a5.log
check "bit-flipped cache: checksum catches it, right output" cmp -s a5.pb ref-a.pb
printf 'garbage that is not a cache file at all, long enough to have a header..\n' >"$f"
sym --cache sc a.pb -o a6.pb 2>a6.log
check "foreign file in the cache: ignored, right output" cmp -s a6.pb ref-a.pb
check "bit-flipped and foreign cache files: a warning each" sh -c "grep -q 'symbol cache .* ignored (corrupt (checksum))' a5.log && grep -q 'symbol cache .* ignored' a6.log"
sym --cache sc --no-inlines a.pb -o a7.pb 2>a7.log
check "a cache of other options is no warning" sh -c "! grep -q warning a7.log"
# An address that resolves to nothing (padding between functions) is an
# answer too: cached, and the first answer of a fresh cache.
python3 - "$PWD/c.full" >stacks.z <<'PY'
import subprocess, sys
out = subprocess.run(["objdump", "-d", sys.argv[1]], capture_output=True, text=True).stdout
ins = sorted({int(l.split(":")[0], 16) for l in out.splitlines() if l.startswith("  4")})
syms = []  # (start, size or None): an unsized symbol reaches to the next one
for l in subprocess.run(["nm", "-S", "--defined-only", sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 4 and f[2] in "tTwW":
        syms.append((int(f[0], 16), int(f[1], 16)))
    elif len(f) == 3 and f[1] in "tTwW":
        syms.append((int(f[0], 16), None))
syms.sort()
def gap(a):
    before = [s for s in syms if s[0] <= a]
    return before and before[-1][1] is not None and a >= before[-1][0] + before[-1][1]
gaps = [a for a in ins if gap(a)]
print("mapping 400000 500000 0 %s" % sys.argv[1].replace(".full", ""))
if gaps:
    print("%x" % gaps[0])
PY
if [ "$(wc -l <stacks.z)" = 2 ]; then
	python3 "$MK" maps.empty stacks.z >z.txtpb && encode_txtpb z.txtpb z.pb
	sym --no-cache z.pb -o ref-z.pb 2>/dev/null
	sym --cache zc z.pb -o z1.pb 2>z1.log
	sym --cache zc z.pb -o z2.pb 2>z2.log
	# llvm-symbolizer agrees that nothing is there.
	llvm-symbolizer -e c.full "0x$(sed -n 2p stacks.z)" | head -1 >z.llvm
	check "unresolvable address first in a fresh cache: right output, twice" \
		sh -c 'grep -qx "??" z.llvm && cmp -s z1.pb ref-z.pb && cmp -s z2.pb ref-z.pb &&
			grep -q "0/1 locations" z2.log'
fi
# Other options: their answers are kept apart.
sym --no-cache --no-inlines a.pb -o ref-ni.pb 2>/dev/null
sym --cache sc --no-inlines a.pb -o ni.pb 2>/dev/null
check "--no-inlines does not take cached inline answers" cmp -s ni.pb ref-ni.pb
# Parallel writers: the file stays valid and nothing is left behind.
for i in 3 4 5 6 7 8; do mkprof p$i $i 40; done
for i in 3 4 5 6 7 8; do sym --cache pc p$i.pb -o po$i.pb 2>/dev/null & done
wait
check "parallel writers: no temporary files left" sh -c "! ls pc/v$v | grep -q tmp"
ok=0
for i in 3 4 5 6 7 8; do
	sym --no-cache p$i.pb -o pr$i.pb 2>/dev/null
	sym --cache pc p$i.pb -o pq$i.pb 2>/dev/null
	cmp -s po$i.pb pr$i.pb && cmp -s pq$i.pb pr$i.pb && ok=$((ok + 1))
done
check "parallel writers: every output right, before and after ($ok/6)" [ "$ok" = 6 ]
# A writer killed before its rename leaves KEY.psc.tmp.PID.XXXXXX: the next
# writer of that key removes it when PID is gone, not while it lives.
sh -c 'exit 0' &
dead=$!
wait "$dead"
sleep 300 &
live=$!
: >"pc/v$v/$bid.psc.tmp.$dead.AbCdEf"
: >"pc/v$v/$bid.psc.tmp.$live.AbCdEf"
rm "pc/v$v/$bid.psc"
sym --cache pc p3.pb -o pt.pb 2>/dev/null
check "stale cache temporary of a dead writer removed" test ! -e "pc/v$v/$bid.psc.tmp.$dead.AbCdEf"
check "cache temporary of a live writer kept" test -e "pc/v$v/$bid.psc.tmp.$live.AbCdEf"
kill "$live"
finish
