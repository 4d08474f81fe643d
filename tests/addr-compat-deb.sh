#!/bin/sh
# psym run as addr2line, byte for byte with GNU addr2line, beyond the
# programs addr-compat.sh builds (issue 54 item 7): the debug build of
# libstdc++ that Debian's libstdc++6-12-dbg ships (libstdc++.so.6.0.30 with
# its DWARF 5: hundreds of units, COMDAT functions whose lines are in many
# of them, C and C++ units, padding between -ffunction-sections functions).
# Every byte of its .text under each option set; an address whose answer
# differs must be one GNU answers otherwise when asked alone, where psym
# agrees with it (compare-addr2line-bytes.py). Downloaded at test time with
# apt-get download; skipped when the archive cannot be reached.
. "$top_srcdir/tests/lib.sh"
need apt-get
need dpkg-deb
need addr2line
need readelf
need python3
[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] || skip "the package is amd64's"
case $(addr2line --version | head -1) in
*" 2.40"*) ;;
*) skip "the rules followed are GNU addr2line 2.40's: $(addr2line --version | head -1)" ;;
esac

timeout 300 apt-get download libstdc++6-12-dbg >apt.log 2>&1 ||
	skip "cannot download libstdc++6-12-dbg: $(tail -1 apt.log)"
deb=$(ls libstdc++6-12-dbg_*.deb) || skip "no package downloaded"
dpkg-deb -x "$deb" x
so=$(ls x/usr/lib/x86_64-linux-gnu/debug/libstdc++.so.6.*[0-9]) ||
	skip "$deb has no debug libstdc++.so.6 (another layout?)"
ln -s "$PSYM" addr2line
readelf -SW "$so" | python3 -c '
import sys
for l in sys.stdin:
    if " .text " in l:
        f = l.split("]")[1].split()
        a, n = int(f[2], 16), int(f[4], 16)
        for x in range(a, a + n):
            print("0x%x" % x)' >addrs
check "its .text has many bytes ($(wc -l <addrs))" [ "$(wc -l <addrs)" -gt 500000 ]
for opts in "-f -i -C" "-f -C" "-a -f -i -C -p" "-i" "-f -i" "" "-a -p -s"; do
	# shellcheck disable=SC2086
	python3 "$top_srcdir/tests/compare-addr2line-bytes.py" ./addr2line "$so" addrs $opts >cmp.out
	rc=$?
	check "every byte of $(basename "$so")'s .text as addr2line ${opts:-(no options)}: $(head -1 cmp.out)" \
		[ "$rc" = 0 ]
	tail -n +2 cmp.out | head -6
done
finish
