#!/bin/sh
# Symbol-table rules as the peers read them (issue 17, item 8), each on a
# fixture built here and checked against llvm-symbolizer or addr2line:
#  - untyped code labels (assembly) name the code after them, up to the next
#    symbol, and never past their section (llvm-symbolizer's own
#    symtab-notype.s test; past the section, addr2line's ??);
#  - a zero-size alias (a global label at a function's start) does not
#    rename the sized function or the DWARF function there;
#  - a binary without section headers whose symbols come from its debug
#    file gives its last zero-size symbol (_fini) no unbounded end;
#  - a debug file whose sections sit at other addresses than the binary's
#    (prelinked binaries) is shifted by the difference, symbols and lines;
#  - .debug_aranges gives the ranges of units that have none of their own
#    (gcc -gdwarf-2 -gstrict-dwarf with several text sections);
#  - an absolute symbol past the image (elfutils' testfile34) names only
#    its own address, not the gap up to the next section (addr2line's and
#    eu-addr2line's ??);
#  - psym addr prints line discriminators (addr2line, llvm-symbolizer JSON).
. "$top_srcdir/tests/lib.sh"
need gcc
need as
need ld
need llvm-symbolizer
need addr2line
need python3

# ---- untyped labels ----
cat >notype.s <<'S'
	.file "notype.s"
	.text
	.globl _start, g_notype, g_sized
_start:
	nop
	nop
g_notype:
	nop
	nop
	.size g_notype, . - g_notype
	nop
l_notype:
	nop
	nop
	.size l_notype, . - l_notype
	.type g_sized, @function
g_sized:
	nop
	nop
	nop
	nop
	.size g_sized, . - g_sized
	.type f2, @function
f2:
	nop
	nop
after_label:
	nop
	nop
	.size f2, . - f2
	.type f3, @function
f3:
	ret
l_notype_nosize:
	nop
	nop
	nop
S
as -o notype.o notype.s && ld -o notype notype.o || unbuildable notype "as/ld failed"
set -- $(readelf -SW notype | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1==".text"{print $3, $5}')
text=$((0x$1)) textend=$((0x$1 + 0x$2))
addrs=""
a=$text
while [ $a -lt $((textend + 6)) ]; do
	addrs="$addrs $(printf '0x%x' $a)"
	a=$((a + 1))
done
# shellcheck disable=SC2086
"$PSYM" addr -e notype $addrs 2>/dev/null | paste - - | awk '{print $1}' >notype.psym
# shellcheck disable=SC2086
llvm-symbolizer -e notype $addrs | paste - - - | awk '{print $1}' >notype.llvm
# shellcheck disable=SC2086
addr2line -f -e notype $addrs | paste - - | awk '{print $1}' >notype.a2l
i=0 bad=0
for a in $addrs; do
	i=$((i + 1))
	got=$(sed -n "${i}p" notype.psym)
	if [ $((a)) -lt $textend ]; then
		want=$(sed -n "${i}p" notype.llvm) oracle=llvm-symbolizer
	else
		want=$(sed -n "${i}p" notype.a2l) oracle=addr2line
	fi
	[ "$got" = "$want" ] || { bad=$((bad + 1)); echo "# $a: psym $got, $oracle $want"; }
done
check "untyped labels: $i addresses as llvm-symbolizer in .text, addr2line past it" [ "$bad" = 0 ]
check "a label inside a sized function names what follows it (as llvm-symbolizer)" \
	grep -qx after_label notype.psym

# ---- a zero-size alias at a function's start ----
cat >p.c <<'C'
#include <stdio.h>
__attribute__((noinline)) static int work(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x; return s; }
__attribute__((noinline)) int twice(int x) { return work(x) + work(x + 1); }
int main(int argc, char **argv) { (void)argv; printf("%d\n", twice(argc)); return 0; }
C
gcc -g -O1 -S -o z.s p.c || unbuildable z "gcc -S failed"
python3 - <<'PY'
s = open("z.s").read()
s = s.replace("work:\n", "work:\n\t.globl zlabel\nzlabel:\n\t.globl zfunc\n"
              "\t.type zfunc, @function\nzfunc:\n", 1)
open("z.s", "w").write(s)
PY
gcc -g -o z z.s || unbuildable z "gcc z.s failed"
cp z z.nodwarf && strip -g z.nodwarf
w=$(nm z | awk '$3=="work"{print "0x"$1}')
w4=$(printf '0x%x' $((w + 4)))
"$PSYM" addr -e z "$w" "$w4" >z.psym 2>/dev/null
llvm-symbolizer -e z "$w" "$w4" | awk 'NR%3==1' >z.llvm
check "zero-size aliases do not rename the DWARF function (as llvm-symbolizer)" \
	[ "$(sed -n 1p z.psym) $(sed -n 3p z.psym)" = "$(tr '\n' ' ' <z.llvm | sed 's/ $//')" ]
"$PSYM" addr -e z.nodwarf "$w" "$w4" >z.nd 2>/dev/null
check "zero-size global aliases do not beat the sized local function" \
	[ "$(sed -n 1p z.nd) $(sed -n 3p z.nd)" = "work work" ]

# ---- no section headers: symbols from the debug file, bounded ----
gcc -g -O1 -Wl,--build-id -o nsh p.c || unbuildable nsh "gcc failed"
objcopy --only-keep-debug nsh nsh.debug && strip nsh
python3 - <<'PY'
import struct
b = bytearray(open("nsh", "rb").read())
struct.pack_into("<Q", b, 0x28, 0)   # e_shoff
struct.pack_into("<H", b, 0x3c, 0)   # e_shnum
struct.pack_into("<H", b, 0x3e, 0)   # e_shstrndx
open("nsh", "wb").write(b)
PY
id=$(readelf -n nsh.debug | awk '/Build ID/{print $3}')
mkdir -p "bid/.build-id/$(echo "$id" | cut -c1-2)"
cp nsh.debug "bid/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
fini=$(nm nsh.debug | awk '$3=="_fini"{print "0x"$1}')
"$PSYM" addr -e nsh --debug-dir bid "$fini" 0x99999999 "$(printf '0x%x' $((fini + 3)))" >nsh.out 2>&1
check "no section headers: _fini from the debug file" [ "$(sed -n 1p nsh.out)" = _fini ]
check "no section headers: 0x99999999 is not _fini" [ "$(sed -n 3p nsh.out)" = "??" ]
check "no section headers: inside _fini's section" [ "$(sed -n 5p nsh.out)" = _fini ]

# ---- a debug file at other addresses (prelinked binary) ----
# Two links of one program at different bases, without build IDs (as
# prelink keeps them matching through the debuglink CRC): the debug file
# of the first serves the stripped second.
gcc -g -O1 -no-pie -fno-pie -Wl,--build-id=none -Wl,-Ttext-segment=0x400000 -o pa p.c &&
	gcc -g -O1 -no-pie -fno-pie -Wl,--build-id=none -Wl,-Ttext-segment=0x600000 -o pb p.c ||
	unbuildable prelink "gcc -Ttext-segment failed"
objcopy --only-keep-debug pa pa.debug
cp pb pb.stripped && strip pb.stripped && objcopy --add-gnu-debuglink=pa.debug pb.stripped
mkdir -p dd && cp pa.debug dd/
addrs=$(nm pb | awk '$3=="work"||$3=="twice"||$3=="main"{print "0x"$1}')
more=""
for a in $addrs; do more="$more $(printf '0x%x' $((a + 6)))"; done
# shellcheck disable=SC2086
"$PSYM" addr -e pb.stripped --debug-dir dd $addrs $more >pb.psym 2>/dev/null
# shellcheck disable=SC2086
llvm-symbolizer -e pb $addrs $more | awk 'NF' | sed 's/:[0-9]*$//' >pb.llvm
check "prelinked: names and lines from a debug file at other addresses (as llvm-symbolizer on the unstripped binary)" \
	cmp -s pb.psym pb.llvm
[ -s pb.psym ] && ! grep -q '??' pb.psym || fail "prelinked: unresolved frames"
# ---- .debug_aranges for units without ranges of their own ----
# gcc -gdwarf-2 -gstrict-dwarf gives a unit whose code spans several
# sections (cold, hot, startup, a named one) no low_pc/high_pc and no
# DW_AT_ranges: only .debug_aranges says which addresses it covers.
cat >ar.c <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline, cold)) void rare(int x) { fprintf(stderr, "rare %d\n", x); abort(); }
__attribute__((noinline, hot)) int hotf(int x) { if (x < 0) rare(x); return x * 3 + 1; }
__attribute__((noinline, section(".text.mine"))) int mine(int x) { return hotf(x) + 7; }
int main(int argc, char **argv) { (void)argv; printf("%d\n", mine(argc)); return 0; }
C
gcc -O2 -g -gdwarf-2 -gstrict-dwarf -o ar ar.c || unbuildable ar "gcc -gstrict-dwarf failed"
objdump -d --no-show-raw-insn -j .text ar | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >ar.addrs
"$PSYM" addr --json --no-demangle -e ar <ar.addrs >ar.psym 2>/dev/null
llvm-symbolizer --inlines --no-demangle --output-style=JSON --obj=ar <ar.addrs >ar.llvm
if python3 "$top_srcdir/tests/compare-symbolizer.py" ar.psym ar.llvm 100 >ar.cmp; then
	pass "strict DWARF 2, several text sections: $(head -1 ar.cmp)"
else
	fail "strict DWARF 2, several text sections: $(head -1 ar.cmp)"
	tail -n +2 ar.cmp | head -20
fi
# ---- an absolute symbol past the image ----
# elfutils' testfile34 (run-addrname-test.sh): _etext, absolute, at the
# end of .text, then a gap no section or segment holds up to .data. The
# gap is not the file's: eu-addr2line and addr2line answer ??, psym named
# it _etext (its data symbols stretched a zero-size entry to the next).
cat >abs.s <<'S'
	.text
	.globl _start, foo, bar
_start:
foo:	nop
bar:	nop
end_bar:
	.data
data1:	.long 1
data2:	.long 2
S
if as -o abs.o abs.s && ld -Ttext=0x401000 --defsym _etext=0x401002 -o abs abs.o; then
	gap="0x401010 0x401800 0x401fff"
	# shellcheck disable=SC2086
	"$PSYM" addr -e abs $gap 2>/dev/null | paste - - | awk '{print $1}' >abs.psym
	# shellcheck disable=SC2086
	addr2line -f -e abs $gap | paste - - | awk '{print $1}' >abs.a2l
	check "an absolute symbol past the image names no gap after it (as addr2line: $(tr '\n' ' ' <abs.a2l))" \
		cmp -s abs.psym abs.a2l
	if command -v eu-addr2line >/dev/null 2>&1; then
		# shellcheck disable=SC2086
		eu-addr2line -f -e abs $gap | paste - - | awk '{print $1}' >abs.eu
		check "... as eu-addr2line" cmp -s abs.psym abs.eu
	fi
	check "... and the absolute symbol's own address is still named" \
		[ "$("$PSYM" addr -e abs 0x402000 2>/dev/null | head -1)" = data1 ]
else
	unbuildable abs "as/ld --defsym failed"
fi

# ---- line discriminators in psym addr ----
# gcc -O2 gives rows of one line in several basic blocks discriminators;
# psym addr prints them as addr2line does ("FILE:LINE (discriminator N)")
# and in --json as llvm-symbolizer does ("Discriminator"), innermost frame.
cat >disc.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static int work(const int *v, int n) { int s = 0; for (int i = 0; i < n; i++) if (v[i] & 1) s += v[i] * 3; else s -= v[i]; return s; }
int main(int argc, char **argv) { int v[64]; for (int i = 0; i < 64; i++) v[i] = rand() % (argc + 7); printf("%d\n", work(v, 64) + (argc > 1 ? atoi(argv[1]) : 0)); return 0; }
C
gcc -O2 -g -o disc disc.c || unbuildable disc "gcc failed"
objdump -d --no-show-raw-insn -j .text disc | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >disc.addrs
"$PSYM" addr --json --no-demangle -e disc <disc.addrs >disc.psym 2>/dev/null
llvm-symbolizer --inlines --no-demangle --output-style=JSON --obj=disc <disc.addrs >disc.llvm
"$PSYM" addr --no-inlines -e disc <disc.addrs 2>/dev/null | awk 'NR % 2 == 0' >disc.ptxt
addr2line -e disc <disc.addrs >disc.a2l
python3 - <<'PY' >disc.cmp
import json
P = [json.loads(l) for l in open("disc.psym")]
L = [json.loads(l) for l in open("disc.llvm")]
d0 = lambda o: o["Symbol"][0].get("Discriminator", 0) if o["Symbol"] else 0
bad = [p["Address"] for p, l in zip(P, L) if d0(p) != d0(l)]
nz = sum(1 for l in L if d0(l))
print(len(P), len(L), nz, len(bad), " ".join(bad[:10]))
PY
set -- $(cat disc.cmp)
check "discriminators: the fixture has some ($3 of $1 instructions)" [ "${3:-0}" -gt 0 ]
check "discriminators: --json agrees with llvm-symbolizer on all $1 instructions (${4:-?} differ ${5:-})" \
	[ "$1" = "$2" ] && [ "${4:-1}" = 0 ]
# Where addr2line knows the line (it writes "??:?" or "FILE:?" where psym
# writes "??:0" or "FILE:0").
paste -d'|' disc.ptxt disc.a2l | awk -F'|' '$2 !~ /^\?\?/ && $2 !~ /:\?$/ && $1 != $2' >disc.diff
check "discriminators: text lines as addr2line prints them ($(grep -c discriminator disc.a2l) with one)" \
	[ ! -s disc.diff ] && grep -q discriminator disc.ptxt
finish
