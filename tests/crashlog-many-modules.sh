#!/bin/sh
# psym addr --filter on a 10 MB log naming 200,000 distinct modules (none
# of them there) plus frames of a real binary: finishes well within the
# generous timeout (a linear scan of the modules seen so far per line took
# about 100 s), passes every line it cannot resolve through byte for byte,
# and names the real frames as addr2line does; and within the memory
# budget of bench/RELIABILITY.md, 100 bytes of RSS per byte of input, and
# tighter, 25 (about 17 measured; it took 1.43 GB, 150 per byte, when
# every module's table and registry entries held 1 KiB reasons, six in a
# table entry).
. "$top_srcdir/tests/lib.sh"
need gcc
need addr2line
need python3
cat >m.c <<'C'
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + 2; }
int main(int argc, char **argv) { (void)argv; return mid(argc); }
C
gcc -g -O1 -o m m.c || { fail "gcc"; finish; exit; }
leaf=$(nm m | awk '$3 == "leaf" { print $1 }')
mid=$(nm m | awk '$3 == "mid" { print $1 }')
python3 - "$PWD/m" "$leaf" "$mid" >log.txt <<'PY'
import sys
real, leaf, mid = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16)
print("%s+0x%x" % (real, leaf))
for i in range(200000):
    print("    frame in /nonexistent/lib%06d/libmod%06d.so+0x%x" % (i, i, 0x1000 + i))
    if i % 50000 == 0:
        print("%s+0x%x" % (real, mid))
print("%s+0x%x" % (real, leaf))
PY
echo "log: $(wc -c <log.txt) bytes, $(wc -l <log.txt) lines"
san=no
ldd "$top_builddir/.libs/psym" "$PSYM" 2>/dev/null | grep -q -e libasan -e libubsan && san=yes
tm=""
[ -x /usr/bin/time ] && tm="/usr/bin/time -f %M -o tm"
rc=0
# shellcheck disable=SC2086
timeout 60 $tm "$PSYM" addr --filter <log.txt >out.txt 2>err.txt || rc=$?
if [ $rc = 124 ]; then
	fail "psym addr --filter did not finish in 60 s"
else
	check "exit 0 (rc $rc: $(head -c 200 err.txt))" test $rc = 0
fi
grep -v "^$PWD/m+" log.txt >a
grep -v "^$PWD/m+" out.txt >b
check "200,000 unresolvable module lines passed through unchanged" cmp -s a b
check "one output line per input line" test "$(wc -l <out.txt)" = "$(wc -l <log.txt)"
want_leaf=$(addr2line -f -e m "0x$leaf" | head -1)
want_mid=$(addr2line -f -e m "0x$mid" | head -1)
check "leaf frame named as addr2line does ($want_leaf), first and last line" \
	test "$(grep -c "^$PWD/m+0x[0-9a-f]* \[$want_leaf .*m.c:" out.txt)" = 2
check "mid frames named as addr2line does ($want_mid), 4 times" \
	test "$(grep -c "^$PWD/m+0x[0-9a-f]* \[$want_mid .*m.c:" out.txt)" = 4
if [ -z "$tm" ] || [ "$san" = yes ]; then
	echo "# max RSS not checked (no /usr/bin/time, or a sanitizer build)"
else
	kb=$(tail -n1 tm)
	budget=$(($(wc -c <log.txt) * 25 / 1024))
	case $kb in '' | *[!0-9]*) kb=0 ;; esac
	if [ "$kb" -gt 0 ] && [ "$kb" -le "$budget" ]; then
		pass "max RSS ${kb} KB within the budget of ${budget} KB (25 bytes per byte of input)"
	else
		fail "max RSS ${kb} KB over the budget of ${budget} KB (25 bytes per byte of input)"
	fi
fi
finish
