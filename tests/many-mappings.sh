#!/bin/sh
# Memory for many mappings (issue 38 item 11): psym symbolize of a 4 MB
# profile with 200,000 mappings, each its own missing file with its own
# build ID, plus a real binary among them, stays within the budget of
# bench/RELIABILITY.md (at most 100 bytes of RSS per byte of input), and
# tighter, 80 (about 65 measured): it took 1.77 GB (423 bytes per byte)
# when every mapping's located-object entry, registry entry and summary
# held 1 KiB reasons (six in an entry), and 358 MB (88) with the
# candidates tried kept without --explain and hash tables of 32-byte slots
# kept half full. The real binary's frames are still named as addr2line
# names them.
. "$top_srcdir/tests/lib.sh"
need gcc
need addr2line
need python3
need protoc
[ -x /usr/bin/time ] || skip "/usr/bin/time is not installed"
san=no
ldd "$top_builddir/.libs/psym" "$PSYM" 2>/dev/null | grep -q -e libasan -e libubsan && san=yes

cat >m.c <<'C'
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + 2; }
int main(int argc, char **argv) { (void)argv; return mid(argc); }
C
gcc -g -O1 -no-pie -o m m.c || { fail "gcc"; finish; exit; }
leaf=$(nm m | awk '$3 == "leaf" { print $1 }')
mid=$(nm m | awk '$3 == "mid" { print $1 }')
n=200000
[ "$san" = yes ] && n=50000
printf '%s\n%s\n' "$leaf" "$mid" |
	python3 "$top_srcdir/tests/genmany.py" profile "$n" p.pb.gz "$PWD/m" ||
	{ fail "genmany.py"; finish; exit; }
bytes=$(wc -c <p.pb.gz)
echo "# profile: $bytes bytes, $n + 1 mappings"
rc=0
/usr/bin/time -f '%M %U %S' -o tm "$PSYM" symbolize --offline p.pb.gz -o out.pb.gz \
	>log 2>&1 || rc=$?
kb=$(tail -n1 tm | cut -d' ' -f1)
case $kb in '' | *[!0-9]*) kb=0 ;; esac
echo "# symbolize: exit $rc, $(tail -n1 tm) (max RSS KB, user s, sys s)"
check "symbolize exit 0 ($(tail -n 2 log | head -c 300))" test "$rc" = 0
check "the summary counts every mapping" grep -q "psym: $((n + 1)) mappings: 1 fully resolved, 0 in part, $n not at all" log
budget=$((bytes * 80 / 1024))
if [ "$san" = yes ]; then
	echo "# sanitizer build: ${kb} KB not checked (ASan's shadow memory)"
elif [ "$kb" -gt 0 ] && [ "$kb" -le "$budget" ]; then
	pass "max RSS ${kb} KB within the budget of ${budget} KB (80 bytes per byte of input)"
else
	fail "max RSS ${kb} KB over the budget of ${budget} KB (80 bytes per byte of input)"
fi
decode_pb out.pb.gz >out.txt || fail "protoc --decode of the output"
for a in "$leaf" "$mid"; do
	want=$(addr2line -f -e m "0x$a" | head -1)
	check "0x$a named $want, as addr2line names it" grep -q "string_table: \"$want\"" out.txt
done
check "every mapping is in the output" test "$(grep -c '^mapping {' out.txt)" = $((n + 1))
finish
