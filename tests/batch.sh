#!/bin/sh
# psym symbolize -j N IN... -o OUTDIR: many profiles in one run. Each output
# must equal what a single run writes for that input (itself checked against
# oracles elsewhere) and be readable by go tool pprof; a bad input is
# reported in one line and skipped, the others written; a directory of
# profiles is taken whole; each binary is opened once for all profiles
# (counted with strace); clashing output names are refused up front.
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need protoc
MK=$top_srcdir/tests/mkprofile.py

cat >a.c <<'C'
static inline __attribute__((always_inline)) int sq(int x) { return x * x + 1; }
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
__attribute__((noinline)) int beta(int n) { return alpha(n) * 3 + sq(n); }
int main(int argc, char **argv) { (void)argv; return beta(argc) & 1; }
C
gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -o a a.c
gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -DOTHER -o b a.c
: >maps.empty
# Profiles over both binaries, different address sets, as a collector would write.
for i in 1 2 3 4 5 6; do
	python3 - "$i" >stacks.$i <<'PY'
import random, subprocess, sys
r = random.Random(int(sys.argv[1]))
out = subprocess.run(["nm", "a"], capture_output=True, text=True).stdout
funcs = [int(l.split()[0], 16) for l in out.splitlines() if l.split()[1:2] in (["T"], ["t"])]
exe = "a" if int(sys.argv[1]) % 2 else "b"
print("mapping 400000 500000 0 %s" % (__import__("os").path.abspath(exe)))
for _ in range(40):
    f = r.choice(funcs)
    print("%x" % (f + r.randrange(0, 24)))
PY
	python3 "$MK" maps.empty stacks.$i >p$i.txtpb && encode_txtpb p$i.txtpb p$i.pb
done
mkdir -p in
cp p1.pb p2.pb p3.pb in/
printf 'not a profile\n' >in/zz-broken.pb
rc=0
"$PSYM" symbolize -j 2 --offline in p4.pb p5.pb p6.pb -o out 2>batch.log || rc=$?
cat batch.log
check "one bad input: exit 2 ($rc)" [ "$rc" = 2 ]
check "the bad input named in one line" sh -c "grep -c 'zz-broken.pb' batch.log | grep -qx 1"
check "the other six written" sh -c '[ "$(ls out | wc -l)" = 6 ] && [ ! -e out/zz-broken.pb ]'
check "summary line" grep -q "6/7 profiles written, 1 failed" batch.log
same=0
for i in 1 2 3 4 5 6; do
	"$PSYM" symbolize -q --offline p$i.pb -o single$i.pb
	if [ "$(decode_pb out/p$i.pb)" = "$(decode_pb single$i.pb)" ] && [ -n "$(decode_pb single$i.pb)" ]; then
		same=$((same + 1))
	fi
done
check "every batch output equals the single run's ($same/6)" [ "$same" = 6 ]
check "inline frames present" sh -c "\"$PSYM\" show out/p1.pb | grep -q '(inlined)'"
check "batch outputs equal llvm-symbolizer's (binary a)" llvm_agree out/p1.pb a
check "batch outputs equal llvm-symbolizer's (binary b)" llvm_agree out/p2.pb b
if command -v go >/dev/null; then
	check "go tool pprof reads a batch output" sh -c "go tool pprof -top out/p2.pb 2>/dev/null | grep -q alpha"
fi
if command -v strace >/dev/null; then
	rm -rf out2
	strace -f -e trace=openat -o trace.txt "$PSYM" symbolize -q -j 2 --offline p1.pb p3.pb p5.pb -o out2 2>/dev/null
	n=$(grep -c "/a\", O_RDONLY" trace.txt)
	strace -f -e trace=openat -o trace1.txt "$PSYM" symbolize -q --offline p1.pb -o one.pb 2>/dev/null
	n1=$(grep -c "/a\", O_RDONLY" trace1.txt)
	check "binary 'a' opened once for three profiles ($n opens, one profile alone: $n1)" [ "$n" = "$n1" ]
fi
# A large profile (800000 samples, over 4 MiB encoded) is compressed in
# pieces of 4 MiB as it is packed: the file is several gzip members that
# real readers take whole.
awk 'NR == 1 {print; next} {for (i = 0; i < 20000; i++) print}' stacks.1 >stacks.big
python3 "$MK" maps.empty stacks.big >big.txtpb && encode_txtpb big.txtpb big.pb
"$PSYM" symbolize -q --offline big.pb -o big.sym.pb.gz
members=$(python3 -c "
import sys, zlib
d = open('big.sym.pb.gz', 'rb').read(); n = 0
while d:
    z = zlib.decompressobj(31); z.decompress(d); d = z.unused_data; n += 1
print(n)")
check "large output written as $members gzip members" [ "$members" -ge 2 ]
nsamples=$(decode_pb big.sym.pb.gz | grep -c '^sample {')
check "protoc reads all 800000 samples of it ($nsamples)" [ "$nsamples" = 800000 ]
check "large output equals llvm-symbolizer's" llvm_agree big.sym.pb.gz a
if command -v go >/dev/null; then
	check "go tool pprof counts every sample of it" sh -c \
		"go tool pprof -top big.sym.pb.gz 2>/dev/null | grep -q 'of 800000 total'"
fi
rc=0
mkdir -p dup && cp p1.pb dup/
"$PSYM" symbolize -q p1.pb dup/p1.pb -o out3 2>dup.log || rc=$?
check "two inputs with one output name refused (exit $rc)" sh -c "[ $rc = 2 ] && grep -q 'would both be written' dup.log && [ ! -e out3/p1.pb ]"
rc=0
"$PSYM" symbolize p1.pb p2.pb 2>noout.log || rc=$?
check "several inputs need -o OUTDIR" sh -c "[ $rc = 2 ] && grep -q OUTDIR noout.log"
finish
