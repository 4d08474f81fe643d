#!/bin/sh
# A .dwp whose .debug_cu_index gives every unit the whole .debug_info.dwo
# (a lying index) must not make memory grow as units squared: each unit's
# view indexed all units (2,500 units: 1.97 GB against 105 MB honest).
# Views of equal contributions are shared, and contributions that add up
# to more than the section are refused. Built at test time: 600 split-DWARF
# units (gcc -gsplit-dwarf -gdwarf-4, GNU dwp); the honest package is the
# oracle for memory, llvm-symbolizer for the answers of the honest one.
. "$top_srcdir/tests/lib.sh"
need gcc
need dwp binutils
need python3
need llvm-symbolizer
N=600
mkdir src
i=0
while [ $i -lt $N ]; do
	printf 'int __attribute__((noinline)) fn%d(int x) { return x * %d + %d; }\n' $i $((i + 3)) $i >src/u$i.c
	i=$((i + 1))
done
{
	i=0
	while [ $i -lt $N ]; do echo "int fn$i(int);"; i=$((i + 1)); done
	echo "int main(int c, char **v) { (void)v; int s = 0;"
	i=0
	while [ $i -lt $N ]; do echo "s += fn$i(c);"; i=$((i + 1)); done
	echo "return s & 1; }"
} >src/main.c
(cd src && ls ./*.c | xargs -P 2 -n 50 gcc -g -gdwarf-4 -gsplit-dwarf -O1 -c) ||
	{ fail "compile"; finish; exit 1; }
gcc -o prog src/*.o && (cd src && dwp -e ../prog -o ../prog.dwp 2>/dev/null) || (dwp -e prog -o prog.dwp) ||
	{ fail "link or dwp"; finish; exit 1; }
rm -f src/*.dwo
python3 - prog.dwp lying.dwp <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
sh = lambda i: shoff + i * shentsize
stro = struct.unpack_from("<Q", b, sh(shstrndx) + 0x18)[0]
def name(i):
    n = struct.unpack_from("<I", b, sh(i))[0]
    return bytes(b[stro + n:b.index(0, stro + n)]).decode()
sec = {name(i): struct.unpack_from("<QQ", b, sh(i) + 0x18) for i in range(shnum)}
ix, _ = sec[".debug_cu_index"]
info_len = sec[".debug_info.dwo"][1]
ver, ncols, nunits, nslots = struct.unpack_from("<4I", b, ix)
cols = struct.unpack_from("<%dI" % ncols, b, ix + 16 + nslots * 12)
c = cols.index(1)  # DW_SECT_INFO
offs = ix + 16 + nslots * 12 + ncols * 4
sizes = offs + nunits * ncols * 4
for u in range(nunits):
    struct.pack_into("<I", b, offs + (u * ncols + c) * 4, 0)
    struct.pack_into("<I", b, sizes + (u * ncols + c) * 4, info_len)
open(sys.argv[2], "wb").write(b)
print("# %d units, .debug_info.dwo %d bytes" % (nunits, info_len))
PY
nm prog | awk '$3 ~ /^fn[0-9]+$/ { print "0x" $1 }' >addrs
# run NAME DWP: psym addr over every function; max RSS in $kb.
run() {
	rc=0
	/usr/bin/time -f "%M" -o "$1.rss" timeout 120 "$PSYM" addr -e prog --dwp "$2" $(cat addrs) \
		>"$1.out" 2>"$1.err" || rc=$?
	kb=$(tail -n1 "$1.rss")
	case $kb in *[!0-9]*|"") kb=0 ;; esac
	echo "# $1: exit $rc, $kb KB"
}
run honest prog.dwp
honest=$kb
[ "$rc" = 0 ] && grep -q "u17.c:1" honest.out && pass "honest package: lines from the split units" ||
	fail "honest: exit $rc: $(head -c 300 honest.err)"
llvm-symbolizer --obj=prog $(cat addrs) >llvm.out 2>/dev/null
if [ "$(grep -c '^fn' honest.out)" = "$(grep -c '^fn' llvm.out)" ]; then
	pass "honest package: every function named, as llvm-symbolizer does"
else
	fail "honest package: $(grep -c '^fn' honest.out) names, llvm-symbolizer $(grep -c '^fn' llvm.out)"
fi
run lying lying.dwp
if [ "$rc" = 0 ] && [ "$kb" -lt $((honest * 3 + 20480)) ]; then
	pass "lying index: $kb KB against $honest KB honest"
else
	fail "lying index: exit $rc, $kb KB against $honest KB honest: $(head -c 300 lying.err)"
fi
grep -q '^fn' lying.out && pass "lying index: names still from the symbol table" ||
	fail "lying index: no names"
finish
