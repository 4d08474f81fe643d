#!/bin/sh
# The symbol cache is keyed by build ID, but files of one build ID can be
# placed differently (issue 39 item 2): each must get its own answers,
# whichever file filled the cache. A program linked at two bases with one
# build ID (lo, hi: the same layout shifted) and once with its code placed
# otherwise inside the file (sep), symbolized in turn through one cache,
# in two orders, twice: every location agrees with llvm-symbolizer on its
# own file. The cache keeps addresses relative to the layout, which is in
# its variant: hi is answered from the cache lo filled; sep's answers
# replace theirs (a file of another variant is rewritten).
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need protoc
need objdump
need llvm-symbolizer
MK=$top_srcdir/tests/mkprofile.py

cat >p.c <<'C'
static inline __attribute__((always_inline)) int sq(int x) { return x * x + 1; }
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i) * (i & 3); return s; }
__attribute__((noinline)) int beta(int n) { return alpha(n) * 3 + sq(n); }
__attribute__((noinline)) int gamma_(int n) { return beta(n) - alpha(n + 2); }
int main(int argc, char **argv) { (void)argv; return gamma_(argc) & 1; }
C
bid=0x5ca1ab1e00000000000000000000000000000002
ld_at() { # NAME BASE [LDFLAGS...]: p.c linked at BASE with the one build ID
	n=$1 base=$2
	shift 2
	gcc -O2 -g -fno-pie -no-pie -Wl,--build-id=$bid -Wl,-Ttext-segment=$base "$@" -o "$n" p.c
}
ld_at lo 0x400000 || skip "cannot link p.c at 0x400000"
ld_at hi 0x800000 || skip "cannot link p.c at 0x800000"
ld_at sep 0x400000 -Wl,--section-start=.text=0x401100 || skip "cannot link with .text at 0x401100"
: >maps.empty
# A profile of every instruction of each one's .text, and of the other
# two's instructions that lie in it too (the same address means other
# code there).
for b in lo hi sep; do
	objdump -d --no-show-raw-insn -j .text "$b" |
		sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/\1/p' >"$b.insns"
done
for b in lo hi sep; do
	base=$(readelf -lW "$b" | awk '$1 == "LOAD" { print $3; exit }')
	{
		printf 'mapping %x %x 0 %s\n' "$base" $((base + 0x100000)) "$PWD/$b"
		sort -u lo.insns hi.insns sep.insns | python3 -c 'import sys
own = [int(l, 16) for l in open(sys.argv[1])]
for l in sys.stdin:
    if min(own) <= int(l, 16) <= max(own):
        print(l.strip())' "$b.insns"
	} >"stacks.$b"
	python3 "$MK" maps.empty "stacks.$b" >"$b.txtpb" && encode_txtpb "$b.txtpb" "$b.pb" ||
		skip "cannot make the profile of $b"
done
for order in "lo sep hi" "hi lo sep"; do
	C=cache.$(echo "$order" | tr ' ' -)
	for round in 1 2; do
		for b in $order; do
			"$PSYM" symbolize --offline --cache "$C" "$b.pb" -o "$b.$round.pb" 2>"$b.err"
			check "$order, run $round: $b's locations agree with llvm-symbolizer" \
				llvm_agree "$b.$round.pb" "$b"
		done
	done
done
# lo and hi are one layout shifted: the cache lo filled answers hi.
"$PSYM" symbolize --offline --cache shared lo.pb -o lo.s.pb 2>/dev/null
"$PSYM" symbolize --offline --cache shared hi.pb -o hi.s.pb 2>hi.s.err
check "hi after lo: answered from the symbol cache lo filled" grep -q "from the symbol cache" hi.s.err
check "...as llvm-symbolizer answers on hi" llvm_agree hi.s.pb hi
finish
