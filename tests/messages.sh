#!/bin/sh
# Messages that never mislead (issue 29 items 4 and 5, issue 26 item 9):
# - a report's hint on raw addresses says "psym symbolize" only for a profile
#   no symbolizer has been through (its mappings' has_functions flags); on a
#   symbolized one it names the file and what would help instead;
# - symbolize -q in batch mode still names each failing input;
# - addr --filter counts each unresolved frame once and keeps a lone #1;
# - addr, addr --filter and addr --build-id take --explain and -v.
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need protoc
MK=$top_srcdir/tests/mkprofile.py

cat >a.c <<'C'
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * i; return s; }
int main(int argc, char **argv) { (void)argv; return alpha(argc) & 1; }
C
gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -o a a.c
alpha=$(nm a | awk '$3 == "alpha" { print $1 }')
: >maps.empty
# 1 sample in a, 3 in a library that is nowhere on this machine.
{
	echo "mapping 400000 500000 0 $PWD/a"
	echo "mapping 7f0000000000 7f0000100000 0 /nonexistent/libgone.so.1"
	printf '%x\n' $((0x$alpha + 4))
	echo "7f0000000100 count=3"
} >stacks
python3 "$MK" maps.empty stacks >raw.txtpb && encode_txtpb raw.txtpb raw.pb

# 1. The hint. Unsymbolized: run psym symbolize.
"$PSYM" top raw.pb >/dev/null 2>hint1.err
cat hint1.err
check "unsymbolized profile: the hint names psym symbolize" grep -q "'psym symbolize raw.pb -o OUT'" hint1.err
"$PSYM" symbolize -q --offline raw.pb -o sym.pb
check "symbolize set has_functions on the mapping it resolved" sh -c \
	"\"$PSYM\" show --json sym.pb | grep -q '\"has_functions\":true'"
for cmd in top folded "flame -o sym.svg"; do
	"$PSYM" $cmd sym.pb >/dev/null 2>hint2.err
	check "$cmd, symbolized profile: one line, not 'run psym symbolize' again" sh -c \
		"test \$(wc -l <hint2.err) = 1 && grep -q 'changes nothing' hint2.err"
	check "$cmd, symbolized profile: names the file holding the raw code" \
		grep -q "most of it in '/nonexistent/libgone.so.1'" hint2.err
	check "$cmd, symbolized profile: points to debug packages, --debug-pkg, debuginfod" \
		sh -c "grep -q 'debug package' hint2.err && grep -q -- '--debug-pkg' hint2.err && grep -q DEBUGINFOD_URLS hint2.err"
done
cat hint2.err

# 2. symbolize -q in batch mode: errors are never silenced.
cp raw.pb good.pb
printf 'not a profile\n' >broken.pb
for args in "-q good.pb broken.pb -o out1" "-q -j 2 good.pb broken.pb -o out2"; do
	rc=0
	# shellcheck disable=SC2086
	"$PSYM" symbolize --offline $args 2>q.err || rc=$?
	check "symbolize $args: exit 2 ($rc)" [ "$rc" = 2 ]
	check "symbolize $args: the failing input named on stderr" grep -q "broken.pb" q.err
	check "symbolize $args: no summary or progress" sh -c "! grep -q 'profiles written' q.err"
done
mkdir -p dir && cp good.pb broken.pb dir/
rc=0
"$PSYM" symbolize -q --offline dir -o out3 2>q.err || rc=$?
check "symbolize -q DIR: exit 2, the failing input named" sh -c "[ $rc = 2 ] && grep -q broken.pb q.err"

# 3. addr --filter: a lone unresolved frame is counted once and keeps its number.
printf '    #1 0x4011 (/nonexistent/lib.so+0x1011) (BuildId: 0011223344556677)\n' >lone.txt
"$PSYM" addr --filter --offline <lone.txt >lone.out 2>lone.err
check "filter: a lone unresolved #1 is written unchanged" cmp -s lone.txt lone.out
check "filter: 1 frame left unresolved, not 2" grep -q "^psym: 1 frame left unresolved" lone.err
# A resolved frame with inline frames shifts the numbers of those after it.
cat >inl.c <<'C'
volatile int g = 3;
static inline __attribute__((always_inline)) int sq(int x)
{
	return x * g + 1;
}
__attribute__((noinline)) int beta(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(s ^ i); return s; }
int main(int argc, char **argv) { (void)argv; return beta(argc) & 1; }
C
gcc -g -O2 -o inl inl.c
# An address of beta that llvm-symbolizer gives two frames for (sq inlined).
pc=$(python3 - <<'PY'
import subprocess
nm = subprocess.run(["nm", "-S", "inl"], capture_output=True, text=True).stdout
for l in nm.split("\n"):
    w = l.split()
    if len(w) == 4 and w[3] == "beta":
        start, size = int(w[0], 16), int(w[1], 16)
for a in range(start, start + size):
    out = subprocess.run(["llvm-symbolizer", "--inlines", "-e", "inl", hex(a)],
                         capture_output=True, text=True).stdout.strip().split("\n")
    if len(out) == 4 and out[0] == "sq":
        print(hex(a + 1)); break
PY
)
if [ -n "$pc" ]; then
	main=$(nm inl | awk '$3 == "main" { print $1 }')
	printf '    #0 0x10 (%s/inl+0x%s)\n    #1 0x20 (%s/inl+%s)\n    #2 0x30 (/nonexistent/x.so+0x10)\n' \
		"$PWD" "$main" "$PWD" "$pc" >inl.txt
	"$PSYM" addr --filter --offline <inl.txt >inl.out 2>inl.err
	cat inl.out inl.err
	check "filter: the inline frame adds a number (#1 sq, #2 beta)" sh -c \
		"grep -q '#1 0x20 in sq ' inl.out && grep -q '#2 0x20 in beta ' inl.out"
	check "filter: the unresolved frame after it is renumbered #3" grep -q '#3 0x30 (/nonexistent/x.so+0x10)' inl.out
	check "filter: #0 main" grep -q '#0 0x10 in main ' inl.out
	check "filter: one frame unresolved" grep -q "^psym: 1 frame left unresolved" inl.err
else
	fail "no address of beta with sq inlined (llvm-symbolizer)"
fi

# 4. addr --explain / -v.
"$PSYM" addr --explain -e a "$alpha" >ex.out 2>ex.err
cat ex.err
check "addr --explain: the candidates tried" grep -q "tried 'a': used" ex.err
check "addr --explain: which file gave the answers, with lines" grep -q "^psym: binary 'a': from 'a', with lines" ex.err
check "addr --explain: the count" grep -q "^psym: 1/1 addresses resolved" ex.err
check "addr --explain: answers unchanged" sh -c "[ \"\$(cat ex.out)\" = \"\$(\"$PSYM\" addr -e a $alpha)\" ]"
"$PSYM" addr -v -e a "$alpha" zz >/dev/null 2>v.err
check "addr -v: count, with the non-address" grep -q "^psym: 1/2 addresses resolved (the others are not hex addresses)" v.err
check "addr -v: no candidate list" sh -c "! grep -q tried v.err"
bid=$(readelf -n a | sed -n 's/.*Build ID: //p')
mkdir -p dd/.build-id/$(echo "$bid" | cut -c1-2)
cp a "dd/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
"$PSYM" addr --explain --offline --build-id "$bid" --debug-dir dd "$alpha" >bid.out 2>bid.err
cat bid.err
check "addr --build-id --explain: the build-id candidates" grep -q "tried '.*dd/.build-id/.*\.debug': used" bid.err
check "addr --build-id --explain: answer alpha" grep -qx alpha bid.out
printf '    #0 0x1 (%s/a+0x%x)\n    #1 0x2 (/nonexistent/x.so+0x10)\n' "$PWD" $((0x$alpha + 4)) |
	"$PSYM" addr --filter --explain --offline >fex.out 2>fex.err
cat fex.err
check "filter --explain: a header and candidates per module" sh -c \
	"grep -q \"^psym: module '$PWD/a':\" fex.err && grep -q \"tried '/nonexistent/x.so': not found\" fex.err"
check "filter --explain: what each module gave" sh -c \
	"grep -q \"^psym: module '$PWD/a': from .*, with lines\" fex.err && grep -q \"^psym: module '/nonexistent/x.so': .*not found\" fex.err"
check "filter -v: the counts" grep -q "^psym: 1 frame filled in, 1 left unresolved" fex.err
finish
