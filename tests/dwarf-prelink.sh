#!/bin/sh
# A prelinked library's debug file keeps the addresses from before
# prelinking: psym shifts its DWARF and symbols by the difference of the
# two layouts (issue 39 item 3). With section headers, the first code
# section both have by name; without them (prelink then strip of the
# section headers), their lowest PT_LOAD addresses. Inputs: elfutils'
# testfile52-32 set (testdata/README.md, the cases of elfutils'
# run-prelink-addr-test.sh): one build ID linked at 0, prelinked to
# 0x41000000, and prelinked to 0x42000000 with no section headers, whose
# .debug is found by build ID. Oracle: eu-addr2line on every instruction
# of the code, and the issue's own case (foo, testfile52-32.c:2).
. "$top_srcdir/tests/lib.sh"
need eu-addr2line "elfutils"
need objdump
need python3
CMPEU=$top_srcdir/tests/compare-eu-addr2line.py
D=$top_srcdir/testdata/elfutils
bid=20f5b915a3c80ca75746a837dfe77b8dbf7b8280
mkdir -p dbg/.build-id/20
cp "$D/testfile52-32.so.debug" "dbg/.build-id/20/${bid#20}.debug"
for f in testfile52-32.so testfile52-32.prelink.so testfile52-32.noshdrs.so; do
	cp "$D/$f" .
done

# Every instruction of the code sections of the file at 0 (objdump needs
# the section headers), moved by SHIFT. Not .plt: without section headers
# eu-addr2line extends the zero-size _init over the PLT stubs that follow
# it (with them, it answers ?? there, as psym does in both files).
objdump -d --no-show-raw-insn -j .init -j .text -j .fini testfile52-32.so |
	sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/\1/p' >insns
[ -s insns ] || { fail "no instruction found in testfile52-32.so"; finish; exit; }

# compare NAME FILE SHIFT: psym addr -a against eu-addr2line -a -f -i.
compare() {
	name=$1 file=$2 shift=$3
	while read -r a; do printf '0x%x\n' $((0x$a + shift)); done <insns >addrs.$name
	# psym names the file of a function without lines from its symbol
	# (crtstuff.c:?), eu-addr2line does not (??:0).
	"$PSYM" addr -a -i --debug-dir "$PWD/dbg" -e "$file" <addrs.$name >out.$name 2>err.$name ||
		{ fail "$name: psym addr failed: $(head -3 err.$name)"; return; }
	sed 's/^[^ ]*:?$/??:0/' out.$name >psym.$name
	eu-addr2line -a -f -i --debuginfo-path="$PWD/dbg" -e "$file" <addrs.$name >eu.$name 2>/dev/null
	if python3 "$CMPEU" psym.$name eu.$name 100 >cmp.$name; then
		pass "$name: eu-addr2line agrees ($(head -1 cmp.$name))"
	else
		fail "$name: eu-addr2line disagrees ($(head -1 cmp.$name))"
		head -20 cmp.$name
	fi
}
compare linked-at-0 testfile52-32.so 0
# prelink moved .text by 0x41000020 in this one (sections were added).
compare prelinked testfile52-32.prelink.so $((0x41000020))
compare noshdrs testfile52-32.noshdrs.so $((0x42000000))

# The case: foo at 0x40e of the file at 0.
"$PSYM" addr --debug-dir "$PWD/dbg" -e testfile52-32.noshdrs.so 0x4200040e >got 2>err
printf 'foo\n/home/jistone/src/elfutils/tests/testfile52-32.c:2\n' >want
if diff -u want got; then
	pass "noshdrs: 0x4200040e is foo at testfile52-32.c:2"
else
	fail "noshdrs: 0x4200040e"
	cat err
fi

# No section headers, so no .gnu_debuglink to read, and no build-ID tree:
# the debug file only as FILE.debug beside it. elfutils looks for
# BASENAME.debug when a file has no debuglink (the build ID decides);
# eu-addr2line answers foo there, psym said ?? (elfutils' suite, found by
# bench/peer-elfutils.sh).
mkdir -p beside
cp testfile52-32.noshdrs.so beside/
cp "$D/testfile52-32.so.debug" beside/testfile52-32.noshdrs.so.debug
"$PSYM" addr --no-cache --no-index --debug-dir "$PWD/nodebug" -e beside/testfile52-32.noshdrs.so 0x4200040e >got 2>err
eu-addr2line -f -e beside/testfile52-32.noshdrs.so 0x4200040e \
	>eu 2>/dev/null
if diff -u want got && diff -u want eu >/dev/null; then
	pass "noshdrs, FILE.debug beside it: foo at testfile52-32.c:2, as eu-addr2line"
else
	fail "noshdrs, FILE.debug beside it (eu-addr2line: $(tr '\n' ' ' <eu))"
	cat err
fi
# Another build's debug file at that name is refused by its build ID.
cp "$top_srcdir/testdata/elfutils/testfile52-32.so" beside/testfile52-32.noshdrs.so.debug 2>/dev/null
printf 'int main(void) { return 0; }\n' >other.c
if cc -g -Wl,--build-id -o other other.c 2>/dev/null; then
	cp other beside/testfile52-32.noshdrs.so.debug
	"$PSYM" addr --no-cache --no-index --explain --debug-dir "$PWD/nodebug" -e beside/testfile52-32.noshdrs.so \
		0x4200040e >got2 2>err2
	if grep -q 'testfile52-32.noshdrs.so.debug.*build ID mismatch' err2 got2 &&
		! grep -q 'testfile52-32.c' got2; then
		pass "noshdrs: another build's FILE.debug is refused by its build ID"
	else
		fail "noshdrs: another build's FILE.debug was not refused"
		cat got2 err2
	fi
fi
finish
