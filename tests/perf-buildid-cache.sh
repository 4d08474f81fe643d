#!/bin/sh
# Binaries from where perf keeps them (issue 50, item 4): the build-ID
# cache perf record fills (~/.debug, or $PERF_BUILDID_DIR for psym) and
# the tarball perf archive writes (perf.data.tar.bz2, given as --debug-pkg)
# stand in for a program that is gone: its binary and debug file by build
# ID, the kernel's kallsyms copy by the kernel's build ID.
# Oracles: llvm-symbolizer on a copy of the program kept aside, and the
# kallsyms copy itself (awk) for the kernel's names.
. "$top_srcdir/tests/lib.sh"
need gcc
. "$top_srcdir/tests/perfdata-lib.sh"
need llvm-symbolizer
need protoc
need bzip2
MK=$top_srcdir/tests/mkprofile.py

cat >prog.c <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}
__attribute__((noinline)) void middle(unsigned long n) { leaf(n); leaf(n / 2); }
int main(int argc, char **argv)
{
	middle(argc > 1 ? strtoul(argv[1], 0, 10) : 30000000);
	return 0;
}
C
gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -o prog prog.c || unbuildable "gcc cannot build prog"
cp prog prog.kept
mkdir home
# perf caches what the recording touched in HOME/.debug.
# (the cache is what this test is about: no -N here)
perf_rec 'HOME=$PWD/home perf record -q -e cpu-clock -o p.data ./prog >perf.out'
cache=$PWD/home/.debug
bid=$(readelf -n prog | awk '/Build ID:/ { print $3 }')
[ -f "$cache/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-)/elf" ] ||
	skip "perf record did not cache prog (its build-ID cache is off here)"
kbid=$(HOME=$PWD/home perf buildid-list -i p.data 2>/dev/null | awk '$2 == "[kernel.kallsyms]" { print $1 }')
ks=$cache/[kernel.kallsyms]/$kbid/kallsyms
HOME=$PWD/home perf archive p.data >archive.out 2>&1 && [ -f p.data.tar.bz2 ] ||
	fail "perf archive wrote no tarball: $(tail -2 archive.out)"
rm -f prog

# pick FIELD KALLSYMS: three text symbols of the copy that no other symbol
# shares an address with (an alias would make the name a choice), spread
# over the table: field 1 (the address) or 3 (the name).
pick() {
	awk -v f="$1" 'NR == FNR { c[$1]++; next }
		$2 ~ /^[tT]$/ && $1 != "0000000000000000" && c[$1] == 1 && $3 !~ /^__pi_/ {
			n++; if (n % 997 == 3 && k < 3) { print $f; k++ } }' "$2" "$2"
}
# The program's functions, and three kernel text symbols of the cached copy.
m=$(nm prog.kept | awk '$3 == "middle" { print $1 }')
l=$(nm prog.kept | awk '$3 == "leaf" { print $1 }')
{
	echo "mapping 400000 500000 0 $PWD/prog $bid"
	[ -f "$ks" ] && awk '$2 ~ /^[tT]$/ && $1 != "0000000000000000" { a[n++] = $1 } END {
		printf "mapping %s ffffffffffffffff 0 [kernel.kallsyms] '"$kbid"'\n", a[0] }' "$ks"
	printf '%x %x\n' $((0x$l + 4)) $((0x$m + 8))
	[ -f "$ks" ] && pick 1 "$ks"
} >stacks
: >maps.empty
python3 "$MK" maps.empty stacks >raw.txtpb && encode_txtpb raw.txtpb raw.pb
# What each address is, by oracle: llvm-symbolizer on the kept copy, the
# kallsyms copy's own lines for the kernel.
{
	for a in $((0x$l + 4)) $((0x$m + 8)); do
		llvm-symbolizer --obj=prog.kept "$(printf '0x%x' $a)" | head -1
	done
	[ -f "$ks" ] && pick 3 "$ks"
} >want

# names FLAGS...: the functions symbolize gives, in location order.
names() {
	rm -f out.pb
	"$PSYM" symbolize --offline -q "$@" raw.pb -o out.pb >/dev/null 2>err || { cat err; return 1; }
	"$PSYM" show --json out.pb | python3 -c '
import json, sys
p = json.load(sys.stdin)
fn = {f["id"]: f["name"] for f in p["functions"]}
for loc in p["locations"]:
    lines = loc["lines"]
    print(fn.get(lines[0]["function_id"], "??") if lines else "??")'
}
PERF_BUILDID_DIR=$cache names >got.cache && diff -u want got.cache >d1 &&
	pass "perf's build-ID cache (PERF_BUILDID_DIR): program and kernel named as the oracles name them" ||
	fail "perf's build-ID cache: $(cat d1)"
PERF_BUILDID_DIR=$PWD/none names --debug-pkg p.data.tar.bz2 >got.pkg && diff -u want got.pkg >d2 &&
	pass "perf archive's tarball as --debug-pkg: the same names" ||
	fail "perf archive tarball: $(cat d2)"
PERF_BUILDID_DIR=$PWD/none names >got.none
grep -qv '??' got.none && fail "without the cache nothing should be named: $(cat got.none)" ||
	pass "without perf's cache the program is not found (the test can fail)"
# A bzip2 file that is no tarball: one line naming it.
echo hello | bzip2 >junk.tar.bz2
PERF_BUILDID_DIR=$PWD/none "$PSYM" symbolize --offline -q --debug-pkg junk.tar.bz2 raw.pb -o out2.pb 2>err && rc=0 || rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q "junk.tar.bz2" err &&
	pass "a bzip2 file that is not a tarball: one line, exit 2" || fail "junk.tar.bz2: exit $rc: $(cat err)"
finish
