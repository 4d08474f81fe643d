#!/bin/sh
# Symbols looked up through windows (src/obj/elfsyms.c): the first
# lookups of a symbol table read only the symbols near the address, up to
# four windows a table, then the table is read whole. Either way the
# answer must be the whole table's. A program of 600 code symbols (sized
# functions, aliases at their starts, local labels, untyped labels,
# padding no symbol covers) and 300 data symbols (sized objects, untyped
# labels, gaps), no DWARF: every byte of .text and .data answered
#  - in runs of 40 and of 300 addresses (each run's lookups in windows,
#    the longer ones up to their ends), and
#  - all in one run (windows first, then the whole table),
# the names as llvm-symbolizer gives them (code addresses; DATA for data
# ones), the 4 bytes past .text too.
. "$top_srcdir/tests/lib.sh"
need as
need ld
need readelf
need llvm-symbolizer
need python3

python3 - >w.s <<'PY'
import random
r = random.Random(7)
out = ['\t.text', '\t.globl _start', '\t.type _start, @function', '_start:', '\tret',
       '\t.size _start, . - _start']
for i in range(600):
    k, n = r.randrange(10), r.randrange(1, 9)
    if k < 5:  # a sized function; an alias at its start, or a local label
        out += ['\t.globl f%d' % i, '\t.type f%d, @function' % i]
        if k == 0:
            out += ['\t.globl a%d' % i, '\t.type a%d, @function' % i, 'a%d:' % i]
        if k == 1:
            out += ['l%d:' % i]
        out += ['f%d:' % i] + ['\tnop'] * n + ['\t.size f%d, . - f%d' % (i, i)]
        if k == 0:
            out += ['\t.size a%d, . - a%d' % (i, i)]
    elif k < 7:  # an untyped label: names the code up to the next symbol
        out += ['\t.globl n%d' % i, 'n%d:' % i] + ['\tnop'] * n
    elif k < 8:  # a local sized function
        out += ['\t.type s%d, @function' % i, 's%d:' % i] + ['\tnop'] * n + \
               ['\t.size s%d, . - s%d' % (i, i)]
    else:  # padding after a sized function
        out += ['\t.globl p%d' % i, '\t.type p%d, @function' % i, 'p%d:' % i, '\tnop',
                '\t.size p%d, . - p%d' % (i, i)] + ['\tnop'] * n
out += ['\t.data']
for i in range(300):
    k, n = r.randrange(4), r.randrange(1, 9)
    if k < 2:
        out += ['\t.globl d%d' % i, '\t.type d%d, @object' % i, 'd%d:' % i, '\t.zero %d' % n,
                '\t.size d%d, %d' % (i, n)]
    elif k < 3:
        out += ['\t.globl e%d' % i, 'e%d:' % i, '\t.zero %d' % n]
    else:
        out += ['\t.globl g%d' % i, '\t.type g%d, @object' % i, 'g%d:' % i, '\t.zero 1',
                '\t.size g%d, 1' % i, '\t.zero %d' % n]
print('\n'.join(out))
PY
as -o w.o w.s && ld -o w w.o || unbuildable w "as/ld failed"

# bytes SECTION EXTRA: every address of SECTION and EXTRA more, one a line
bytes() {
	readelf -SW w | sed 's/^ *\[ *[0-9]*\] *//' | python3 -c '
import sys
for l in sys.stdin:
    p = l.split()
    if len(p) > 4 and p[0] == sys.argv[1]:
        a, n = int(p[2], 16), int(p[4], 16)
        for i in range(n + int(sys.argv[2])):
            print(hex(a + i))' "$1" "$2"
}
bytes .text 4 >text.addrs
bytes .data 1 >data.addrs
[ -s text.addrs ] && [ -s data.addrs ] || unbuildable w "no .text or .data in readelf -S"

# names ADDRS: psym's names (first word of each answer) in runs of 40 and
# of 300 (past the first window's end), then in one run
names() {
	for k in 40 300; do
		split -l $k "$1" run.
		for r in run.*; do
			# shellcheck disable=SC2046
			"$PSYM" addr -e w $(cat "$r") 2>/dev/null
		done | paste - - | awk '{ print $1 }' >"$1.runs$k"
		rm -f run.*
	done
	# shellcheck disable=SC2046
	"$PSYM" addr -e w $(cat "$1") 2>/dev/null | paste - - | awk '{ print $1 }' >"$1.one"
}
names text.addrs
names data.addrs
# shellcheck disable=SC2046
llvm-symbolizer -e w $(cat text.addrs) | paste - - - | awk '{ print $1 }' >text.llvm
sed 's/^/DATA /' data.addrs | llvm-symbolizer -e w | paste - - - | awk '{ print $1 }' >data.llvm

n=$(wc -l <text.addrs)
check "code: $n addresses in runs of 40 (windows) named as llvm-symbolizer names them" \
	cmp -s text.addrs.runs40 text.llvm
check "code: $n addresses in runs of 300 (windows to their ends) as llvm-symbolizer" \
	cmp -s text.addrs.runs300 text.llvm
check "code: $n addresses in one run (windows, then the whole table) as llvm-symbolizer" \
	cmp -s text.addrs.one text.llvm
n=$(wc -l <data.addrs)
check "data: $n addresses in runs of 40 (windows) as llvm-symbolizer's DATA" \
	cmp -s data.addrs.runs40 data.llvm
check "data: $n addresses in runs of 300 as llvm-symbolizer's DATA" \
	cmp -s data.addrs.runs300 data.llvm
check "data: $n addresses in one run as llvm-symbolizer's DATA" cmp -s data.addrs.one data.llvm
# Not vacuous: the fixture has every kind, and names beyond the first window.
check "the answers name aliases, labels, locals, padding and data of every kind" \
	sh -c "grep -q '^a' text.llvm && grep -q '^n' text.llvm && grep -q '^s' text.llvm &&
		grep -q '^??' text.llvm && grep -q '^e' data.llvm && grep -q '^g' data.llvm &&
		[ \$(sort -u text.llvm | wc -l) -gt 400 ]"
finish
