#!/bin/sh
# Files of the wrong kind in a directory index store never block psym: a
# FIFO at STORE/builds.log (opened for appending without O_NONBLOCK, it hung
# `psym index` and every background builder for good), at an index's path
# (the new index was written into it: the same hang) and at a GSYM file's
# path. Each is left as it is; the index is built (builds.log), or not
# replaced, with one line naming the path (index); the answers are
# llvm-symbolizer's. timeout(1) is only a safety net, so that a
# regression fails instead of hanging the suite.
. "$top_srcdir/tests/lib.sh"
need gcc
need strip
need timeout
need llvm-symbolizer
TO=300

cat >prog.c <<'C'
__attribute__((noinline)) int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * 3; return s; }
int main(int argc, char **argv) { (void)argv; return work(argc) & 1; }
C
gcc -g -O1 -o prog prog.c || { fail "cannot build"; exit 1; }
strip -o prog.stripped prog
bid=$(readelf -n prog | sed -n 's/.*Build ID: //p')
nn=$(echo "$bid" | cut -c1-2)
a=0x$(nm prog | awk '$3 == "work" { print $1 }')
want=$(llvm-symbolizer --obj=prog "$a" | head -1)
want_stripped=$(llvm-symbolizer --obj=prog.stripped "$a" | head -1)

# The index's name in a store (its variant depends on this psym's build).
"$PSYM" index --index-store S0 prog >/dev/null 2>&1 || { fail "psym index"; exit 1; }
name=$(basename "$(ls S0/"$nn"/*.psymidx)")

# ---- builds.log
mkdir -p S
mkfifo S/builds.log
rc=0
timeout $TO "$PSYM" index --index-store S prog >b.out 2>b.err || rc=$?
if [ $rc = 0 ] && [ -f "S/$nn/$name" ] && [ -p S/builds.log ]; then
	pass "FIFO at builds.log: the index is built, the FIFO left alone"
else
	fail "FIFO at builds.log: exit $rc (124: hung), $(cat b.err)"
fi
check "...and the index answers: $want" sh -c \
	"[ \"\$('$PSYM' addr --index-store S --no-index-build -e prog '$a' | head -1)\" = '$want' ]"

# ---- an index's path
rm -rf S && mkdir -p S/"$nn"
mkfifo S/"$nn/$name"
rc=0
timeout $TO "$PSYM" index --index-store S prog >i.out 2>i.err || rc=$?
if [ $rc != 0 ] && [ $rc != 124 ] && [ -p "S/$nn/$name" ] &&
	grep -q "'S/$nn/$name' is not a regular file" i.err && [ "$(wc -l <i.err)" = 1 ]; then
	pass "FIFO at the index's path: not replaced, one line: $(cat i.err)"
else
	fail "FIFO at the index's path: exit $rc (124: hung), $(cat i.err)"
fi
check "...and no building marker is left" [ ! -e "S/$nn/${name%.psymidx}.building" ]
rc=0
timeout $TO "$PSYM" addr --index-store S -e prog "$a" >ai.out 2>ai.err || rc=$?
if [ $rc = 0 ] && [ "$(head -1 ai.out)" = "$want" ] && grep -q "not a regular file" ai.err; then
	pass "FIFO at the index's path: addr answers from the DWARF ($want), says why"
else
	fail "FIFO at the index's path: addr exit $rc, $(cat ai.out ai.err)"
fi

# ---- a GSYM file's path
rm -rf S && mkdir -p S/"$nn"
mkfifo S/"$nn/$bid.gsym"
rc=0
timeout $TO "$PSYM" addr --offline --index-store S --no-index-build -e prog.stripped "$a" \
	>g.out 2>g.err || rc=$?
if [ $rc = 0 ] && [ "$(head -1 g.out)" = "$want_stripped" ] && grep -q "$bid.gsym.*not a regular file" g.err; then
	pass "FIFO at the GSYM path: '$want_stripped' as llvm-symbolizer, says why: $(cat g.err)"
else
	fail "FIFO at the GSYM path: exit $rc (124: hung), $(cat g.out g.err)"
fi
finish
