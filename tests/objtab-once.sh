#!/bin/sh
# The located-object table locates each file once (issue 30): a binary's
# separate debug file is searched for once per object, also when the open
# cap (--limit open-objects=1) closes its resolver between the profiles of
# a batch and it is opened again (then the file the table recorded is
# opened, with no new search); the answers equal llvm-symbolizer's on the
# unstripped programs. The search is counted with strace: the first
# candidate (the debug dir's .build-id tree) is missing, so every search
# touches it; the debug file sits beside the binary (.gnu_debuglink).
. "$top_srcdir/tests/lib.sh"
need gcc
need objcopy
need python3
need protoc
need strace
need llvm-symbolizer
MK=$top_srcdir/tests/mkprofile.py

cat >a.c <<'C'
static inline __attribute__((always_inline)) int sq(int x) { return x * x + 1; }
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
__attribute__((noinline)) int beta(int n) { return alpha(n) * 3 + sq(n); }
int main(int argc, char **argv) { (void)argv; return beta(argc) & 1; }
#ifdef OTHER
int other(int n) { return alpha(n + 1); } /* another build ID */
#endif
C
gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -o a a.c &&
	gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -DOTHER -o b a.c ||
	{ fail "fixtures"; finish; exit 1; }
mkdir -p bin dd/.build-id
for x in a b; do
	objcopy --only-keep-debug $x bin/$x.debug &&
		objcopy --strip-all --add-gnu-debuglink=bin/$x.debug $x bin/$x ||
		{ fail "stripping $x"; finish; exit 1; }
done
: >maps.empty
# Profiles alternating between the two stripped binaries.
for i in 1 2 3 4; do
	exe=b
	[ $((i % 2)) = 1 ] && exe=a
	{
		echo "mapping 400000 500000 0 $T/bin/$exe"
		nm $exe | awk '$2 == "T" || $2 == "t" { print $1 }'
	} >stacks.$i
	python3 "$MK" maps.empty stacks.$i >p$i.txtpb && encode_txtpb p$i.txtpb p$i.pb ||
		{ fail "profile $i"; finish; exit 1; }
done
bid=$(readelf -n bin/a | sed -n 's/.*Build ID: //p')
tree="dd/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"

# psym under strace: LeakSanitizer cannot run under ptrace (in the
# sanitizer build it aborted psym at its exit), so it is off for these two.
traced() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=openat,newfstatat,stat,access -o "$@"
}
# One profile alone: how often one search touches the missing tree candidate.
traced one.trace "$PSYM" symbolize -q --no-cache --offline --debug-dir dd p1.pb -o one.pb 2>one.log ||
	fail "symbolize under strace failed: $(cat one.log)"
n1=$(grep -c "$tree" one.trace)
check "one profile: the debug file's search tried the tree candidate ($n1 times)" [ "$n1" -gt 0 ]

# Four profiles, one object open at a time: a and b are closed and opened
# again in turn, the debug file of each found by one search.
traced batch.trace "$PSYM" symbolize -q -j 1 --no-cache --offline --limit open-objects=1 \
	--debug-dir dd p1.pb p2.pb p3.pb p4.pb -o out 2>batch.log ||
	fail "batch under strace failed: $(cat batch.log)"
cat batch.log
n=$(grep -c "$tree" batch.trace)
check "reopened under the open cap: a's debug file searched for once ($n against $n1)" [ "$n" = "$n1" ]
check "a's debug file opened again for the third profile" \
	sh -c "[ \$(grep -c 'bin/a.debug\", O_RDONLY' batch.trace) -gt \$(grep -c 'bin/a.debug\", O_RDONLY' one.trace) ]"
check "answers for a equal llvm-symbolizer's (first profile)" llvm_agree out/p1.pb a
check "answers for a equal llvm-symbolizer's (after reopening)" llvm_agree out/p3.pb a
check "answers for b equal llvm-symbolizer's (after reopening)" llvm_agree out/p4.pb b
batch1=$(decode_pb out/p1.pb)
single1=$(decode_pb one.pb)
check "the batch's answers equal the single run's" [ -n "$single1" -a "$batch1" = "$single1" ]
finish
