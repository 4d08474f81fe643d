#!/bin/sh
# Functions outside their unit's own address range (issue 39 item 1): gcc
# -gdwarf-2 -gstrict-dwarf gives a unit a low_pc/high_pc covering its .text
# part only; functions in .text.other (a section attribute), .text.startup
# (main at -O2), .text.unlikely (-freorder-blocks-and-partition cold parts)
# and -ffunction-sections' .text.NAME are found through .debug_aranges.
# Programs built here with each of -gdwarf-2, -3, -4, -5 and -gdwarf-2
# -gstrict-dwarf, at -O0 and -O2, with and without -ffunction-sections,
# two units each; psym addr is compared with llvm-symbolizer --inlines on
# every instruction of .text (no sampling), whole chains with their start
# lines and addresses: all must agree. Then the issue's own example, and
# eu-addr2line on the functions outside the units' ranges.
# rec.c's recursion, inlined into itself at -O2, gives (DWARF 2 having no
# DW_AT_ranges) an inlined call without code, low_pc == high_pc, holding
# the inlined calls that have the code: llvm-symbolizer keeps it as a
# frame of their chains, and names the outermost frame's file, which a
# DWARF 2 call site does not give, from the symbol's STT_FILE.
. "$top_srcdir/tests/lib.sh"
need gcc
need llvm-symbolizer "Debian llvm"
need objdump
need python3
CMP=$top_srcdir/tests/compare-symbolizer.py

cat >main.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int other(int x);
int parted(int x);
int rec_entry(int x);
static inline int leaf(int x) { return x * 3 + (x >> 2); }
__attribute__((section(".text.other"))) int moved(int x)
{
	return leaf(x) + 1;
}
__attribute__((noinline)) int plain(int x)
{
	return leaf(x ^ 5) - 2;
}
int main(int argc, char **argv)
{
	int s = moved(argc) + plain(argc) + other(argc) + parted(argc) + rec_entry(argc);

	if (argc > 5)
		s += atoi(argv[1]);
	printf("%d\n", s);
	return 0;
}
C
cat >cold.c <<'C'
#include <stdio.h>
__attribute__((noinline)) int other(int x)
{
	int s = 0;

	for (int i = 0; i < x * 100; i++)
		s += i * x;
	return s;
}
__attribute__((cold, noinline)) void report(const char *what, int x)
{
	fprintf(stderr, "%s %d\n", what, x);
}
/* An unlikely branch gcc moves to .text.unlikely (a "parted.cold" part). */
__attribute__((noinline)) int parted(int x)
{
	int s = 0;

	for (int i = 0; i < x; i++) {
		if (__builtin_expect(i * x > 100000, 0)) {
			report("too big", i * x);
			s -= x * i + 3;
			continue;
		}
		s += i * 7 + other(i);
	}
	return s;
}
C

cat >rec.c <<'C'
static unsigned steps(unsigned n)
{
	if (n < 2)
		return n;
	return steps(n - 1) * 3 + steps(n - 2);
}
int rec_entry(int x)
{
	return (int)steps((unsigned)x + 20);
}
C

n_outside=0
# fixture NAME CFLAGS...: build, then compare on every instruction of .text.
fixture() {
	name=$1
	shift
	if ! gcc "$@" main.c cold.c rec.c -o "$name" 2>build.err; then
		unbuildable "$name" "$(head -c 200 build.err | tr '\n' ' ')"
		return
	fi
	objdump -d --no-show-raw-insn -j .text "$name" |
		sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >addrs.$name
	"$PSYM" addr --json --no-demangle -e "$name" <addrs.$name >psym.$name 2>err.$name ||
		{ fail "$name: psym addr failed: $(head -3 err.$name)"; return; }
	llvm-symbolizer --inlines --no-demangle --output-style=JSON --obj="$name" \
		<addrs.$name >llvm.$name
	if python3 "$CMP" --start psym.$name llvm.$name 100 >cmp.$name; then
		pass "$name: $(head -1 cmp.$name)"
	else
		fail "$name: $(head -1 cmp.$name)"
		head -30 cmp.$name
	fi
	# Count the fixtures where some function does lie outside its unit's
	# own low_pc/high_pc (else the case this test is about was not built).
	python3 - "$name" >>outside <<'PY' || true
import re, subprocess, sys
out = subprocess.run(["readelf", "--debug-dump=info", sys.argv[1]],
                     capture_output=True, text=True).stdout
unit = None
for blk in re.split(r"\n(?= <\d+><)", out):
    m = re.search(r"DW_AT_low_pc\s*:\s*(0x[0-9a-f]+)", blk)
    h = re.search(r"DW_AT_high_pc\s*:\s*(0x[0-9a-f]+|\d+)", blk)
    if "DW_TAG_compile_unit" in blk:
        unit = None
        if m and h:
            lo, hi = int(m.group(1), 16), int(h.group(1), 0)
            unit = (lo, hi if hi > lo else lo + hi)
    elif "DW_TAG_subprogram" in blk and m and unit:
        if not unit[0] <= int(m.group(1), 16) < unit[1]:
            n = re.search(r"DW_AT_name\s*:\s*(?:\(.*?\):\s*)?(\S+)", blk)
            print(sys.argv[1], n.group(1) if n else "?", m.group(1))
PY
}

for opt in -O0 -O2; do
	for fs in "" -ffunction-sections; do
		o=${opt#-}${fs:+-fs}
		fixture "dwarf2-$o" -gdwarf-2 $opt $fs -freorder-blocks-and-partition
		fixture "dwarf3-$o" -gdwarf-3 $opt $fs -freorder-blocks-and-partition
		fixture "dwarf4-$o" -gdwarf-4 $opt $fs -freorder-blocks-and-partition
		fixture "dwarf5-$o" -gdwarf-5 $opt $fs -freorder-blocks-and-partition
		fixture "strict2-$o" -gdwarf-2 -gstrict-dwarf $opt $fs \
			-freorder-blocks-and-partition
	done
done
if [ -s outside ]; then
	pass "functions outside their unit's own range were built ($(wc -l <outside))"
else
	fail "no function lies outside its unit's own range: the case was not built"
fi
check "a cold part was built" sh -c "nm strict2-O2 | grep -q 'parted\\.cold'"
# An inlined call without code (low_pc == high_pc) in the strict DWARF 2 -O2 build.
check "an inlined call without code was built" sh -c "llvm-dwarfdump --debug-info strict2-O2 |
	awk '/DW_TAG_inlined_subroutine/ {i = 1; lo = \"\"; next} /DW_TAG/ {i = 0}
	     i && /DW_AT_low_pc/ {lo = \$2} i && /DW_AT_high_pc/ && \$2 == lo {f = 1} END {exit !f}'"

# The issue's example, and eu-addr2line as a second oracle on the
# functions outside their units' ranges.
printf '__attribute__((section(".text.other"))) int f(int x)\n{\n\treturn x * 3;\n}\nint main(void)\n{\n\treturn f(1);\n}\n' >t.c
gcc -O0 -gdwarf-2 -gstrict-dwarf t.c -o t
a=0x$(nm t | awk '$3=="f"{print $1}')
"$PSYM" addr -e t "$a" >got 2>&1
printf 'f\n%s/t.c:2\n' "$T" >want
if diff -u want got; then pass "issue example: f at t.c:2"; else fail "issue example"; fi
if command -v eu-addr2line >/dev/null; then
	sort -u outside | while read -r bin fn addr; do
		[ "$fn" = "?" ] && continue
		# Lines only: the name of a cold part is the symbol's
		# (parted.cold) for psym as for llvm-symbolizer, checked above;
		# eu-addr2line gives its DIE's (__second_sect_of_parted).
		e=$(eu-addr2line -e "$bin" "$addr" | sed 's/:[0-9]*$//')
		p=$("$PSYM" addr -e "$bin" "$addr" | sed -n 2p)
		[ "$e" = "$p" ] || echo "$bin $addr: psym '$p' eu-addr2line '$e'"
	done >eu.diff
	if [ -s eu.diff ]; then
		fail "eu-addr2line disagrees on functions outside their unit's range"
		head -10 eu.diff
	else
		pass "eu-addr2line agrees on the lines of $(sort -u outside | wc -l) functions outside their unit's range"
	fi
fi

# Item 5: DWARF whose one unit covers only code the linker discarded (its
# function at address 0, outside every code section; no .debug_aranges,
# as clang writes none) is said to be there, with its unit, not "no debug
# information found"; nor is DWARF describing data only.
printf 'int unused(int x)\n{\n\treturn x * 2;\n}\n' >un.c
printf 'int table[4] = { 1, 2, 3, 4 };\n' >data.c
printf 'int main(void)\n{\n\treturn 0;\n}\n' >mm.c
gcc -g -O1 -ffunction-sections -c un.c -o un1.o && objcopy -R .debug_aranges un1.o un.o &&
	gcc -g -c data.c && gcc -g0 -c mm.c && gcc -Wl,--gc-sections mm.o un.o -o gone &&
	gcc mm.o data.o -o dataonly
m=0x$(nm gone | awk '$3=="main"{print $1}')
"$PSYM" addr -e gone "$m" 0x0 >out.gone 2>err.gone
if grep -q "'gone': DWARF found, but no unit covers code: unit 'un.c' has only addresses outside every code section" err.gone &&
	! grep -q 'no debug information found' err.gone; then
	pass "discarded code: the unit is named, its addresses outside every code section"
else
	fail "discarded code: $(cat err.gone)"
fi
"$PSYM" addr -e dataonly "$m" >out.data 2>err.data
if grep -q "'dataonly': DWARF found, but no unit covers code: unit 'data.c' describes no code" err.data; then
	pass "data-only DWARF is said to be there"
else
	fail "data-only DWARF: $(cat err.data)"
fi
finish
