#!/bin/sh
# A real dwz'd Debian debug package: liblua5.4-0-dbg, whose debug file
# names its functions through /usr/lib/debug/.dwz/x86_64-linux-gnu/
# liblua5.4-0.debug (DW_FORM_GNU_ref_alt / strp_alt). psym addr
# --debug-pkg on every 10th instruction of liblua5.4's .text against
# eu-addr2line -f -i (which reads the alternate file, found through its
# build ID), frame by frame. Before psym read alternate files about 28% of
# these addresses had inline frames without names.
# Downloaded at test time with apt-get download; skipped when the archive
# cannot be reached. Known disagreements (listed): a few addresses past the
# end of a function's ranges where elfutils still gives its inline chain
# and llvm-symbolizer, like psym, gives the line alone.
. "$top_srcdir/tests/lib.sh"
need apt-get
need dpkg-deb
need eu-addr2line "Debian elfutils"
need objdump
need readelf
need python3
[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] || skip "the package is amd64's"

timeout 300 apt-get download liblua5.4-0 liblua5.4-0-dbg >apt.log 2>&1 ||
	skip "cannot download liblua5.4-0 / liblua5.4-0-dbg: $(tail -1 apt.log)"
lib=$(ls liblua5.4-0_*.deb) && dbg=$(ls liblua5.4-0-dbg_*.deb) || skip "no package downloaded"
dpkg-deb -x "$lib" lib && dpkg-deb -x "$dbg" dbg
so=$(ls lib/usr/lib/x86_64-linux-gnu/liblua5.4.so.0.0.0) || skip "no liblua5.4.so in $lib"
alt=$(ls dbg/usr/lib/debug/.dwz/x86_64-linux-gnu/liblua5.4-0.debug) ||
	skip "$dbg has no dwz file (not dwz'd any more?)"

# elfutils finds the alternate file by its build ID in a .build-id tree.
aid=$(readelf -n "$alt" | sed -n 's/.*Build ID: //p')
mkdir -p eu/.build-id/$(echo $aid | cut -c1-2)
ln -s "$T/$alt" eu/.build-id/$(echo $aid | cut -c1-2)/$(echo $aid | cut -c3-).debug

objdump -d --no-show-raw-insn -j .text "$so" |
	sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' | awk 'NR % 10 == 0' >addrs
"$PSYM" addr --offline -a --no-demangle -e "$so" --debug-pkg "$dbg" <addrs >psym.out 2>psym.err ||
	fail "psym addr failed: $(head -3 psym.err)"
check "no warning (the alternate file was found in the package)" test ! -s psym.err
eu-addr2line -a -f -i -e "$so" --debuginfo-path="$T/dbg/usr/lib/debug:$T/eu" <addrs >eu.out 2>eu.err
check "eu-addr2line read the alternate file (names for inlines)" \
	sh -c "[ \$(grep -c '^?? inlined' eu.out) -lt \$(($(wc -l <addrs) / 20)) ]"
if python3 "$top_srcdir/tests/compare-eu-addr2line.py" psym.out eu.out 99.5 >cmp; then
	pass "liblua5.4 ($(wc -l <addrs) addresses) against eu-addr2line: $(head -1 cmp)"
else
	fail "liblua5.4 ($(wc -l <addrs) addresses) against eu-addr2line: $(head -1 cmp)"
fi
tail -n +2 cmp | head -60
[ "$n_fail" = 0 ]
