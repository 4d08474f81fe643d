#!/bin/sh
# psym addr and psym addr --filter give the same answer for the same
# address (issue 49): one library driver answers both (modset.h's
# psym_modset_answer): code, else the data object holding the address, and
# an object file's section offsets placed in psym's layout first.
# Oracle: llvm-symbolizer (CODE and DATA) on the same files.
. "$top_srcdir/tests/lib.sh"
need gcc
need llvm-symbolizer
need nm

cat >prog.c <<'C'
int counter = 3;
static long table[64] = { 1 };
const char banner[] = "hello";
__attribute__((noinline)) int work(int n)
{
	for (int i = 0; i < n; i++)
		table[i & 63] += i;
	return (int)table[n & 63] + counter;
}
int main(int argc, char **argv) { (void)argv; return work(argc) & 1; }
C
gcc -g -O1 -fno-pie -no-pie -o prog prog.c || unbuildable "gcc cannot build prog"
gcc -g -O1 -c -o prog.o prog.c || unbuildable "gcc cannot build prog.o"

# addr_name FILE ADDR: the function or data name psym addr gives.
addr_name() { "$PSYM" addr --no-cache --no-index -f -e "$1" "$2" 2>/dev/null | head -1; }
# filter_name FILE ADDR: the name addr --filter puts into a sanitizer frame.
filter_name() {
	printf '    #0 0x%s in ?? (%s+%s)\n' 1 "$1" "$2" |
		"$PSYM" addr --no-cache --no-index --filter 2>/dev/null |
		sed -n 's/^ *#0 0x[0-9a-f]* in \([^ ]*\).*/\1/p' | head -1
}

# The program: code and data addresses from nm, and one in no symbol.
for sym in work main counter table banner; do
	a=0x$(nm prog | awk -v s="$sym" '$3 == s { print $1 }')
	kind=CODE
	case $sym in counter | table | banner) kind=DATA ;; esac
	want=$(llvm-symbolizer --obj=prog "$kind $a" | head -1)
	x=$(addr_name prog "$a")
	y=$(filter_name "$PWD/prog" "$a")
	if [ "$x" = "$want" ] && [ "$y" = "$want" ]; then
		pass "prog $sym ($kind $a): addr, addr --filter and llvm-symbolizer say $want"
	else
		fail "prog $sym ($kind $a): addr '$x', addr --filter '$y', llvm-symbolizer '$want'"
	fi
done
# An object file: its addresses are offsets in its first executable section.
off=$(nm prog.o | awk '$3 == "main" { print $1 }')
want=$(llvm-symbolizer --obj=prog.o "0x$off" | head -1)
x=$(addr_name prog.o "0x$off")
y=$(filter_name "$PWD/prog.o" "0x$off")
[ "$x" = "$want" ] && [ "$y" = "$want" ] &&
	pass "prog.o main (section offset 0x$off): both say $want" ||
	fail "prog.o main: addr '$x', addr --filter '$y', llvm-symbolizer '$want'"
finish
