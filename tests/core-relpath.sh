#!/bin/sh
# A relative path in a core's NT_FILE is the crashed host's, not a file
# of the current directory (issue 53 defect 5): with --sysroot left at /,
# psym stack refuses it (--explain says why) instead of reading ./relfile
# or ../relfile; with --sysroot DIR it is looked up under DIR, and an
# absolute path as before. The frame's function is checked against nm.
. "$top_srcdir/tests/lib.sh"
need gcc
need nm
need python3

printf 'int main(void) { return 0; }\n' >r.c
gcc -no-pie -O0 r.c -o relfile || skip "gcc cannot link -no-pie"
main=0x$(nm relfile | awk '$3 == "main" { print $1 }')
mkdir -p root sub
cp relfile root/relfile
for p in relfile ../relfile; do
	python3 "$top_srcdir/tests/mkcore.py" rel.core --path "$p" --rip "$main"
	(cd sub && cp ../relfile ../sub/relfile && "$PSYM" stack --explain ../rel.core >out.txt 2>err.txt)
	check "NT_FILE '$p': not read from the current directory (no 'main')" \
		sh -c "grep -q '^#0 .* ?? ($p)\$' sub/out.txt && ! grep -q ' main ' sub/out.txt"
	check "NT_FILE '$p': --explain says it is refused" \
		grep -q "tried '$p': refused: a relative path from another host" sub/err.txt
done
python3 "$top_srcdir/tests/mkcore.py" rel.core --path relfile --rip "$main"
"$PSYM" stack --sysroot "$PWD/root" rel.core >sr.txt 2>/dev/null
check "NT_FILE 'relfile' with --sysroot DIR: DIR/relfile, main as nm names it" \
	grep -q "^#0   $(printf '0x%016x' "$main") main (relfile)\$" sr.txt
python3 "$top_srcdir/tests/mkcore.py" abs.core --path "$PWD/relfile" --rip "$main"
"$PSYM" stack abs.core >abs.txt 2>/dev/null
check "an absolute NT_FILE path is read as before" grep -q " main ($PWD/relfile)\$" abs.txt
finish
