#!/bin/sh
# A manifest line whose output is a symbolic link to another line's input
# used to overwrite that input: psym_out_open writes through an existing
# link, while the manifest's identity check took the link itself as the
# output, so "in/a.pb<TAB>link" (link -> in/b.pb) and "in/b.pb<TAB>out/b.pb"
# passed; line 1 replaced in/b.pb with its own output and line 2 then
# symbolized that (found by bench/mutate-stores, reader "manifest",
# exit 0, "2/2 profiles written"). Now the manifest is refused before any
# line runs (exit 2, naming both lines), in either order of the lines,
# and the inputs keep their bytes (cmp against copies made before).
# A link to a file no line reads is still written through (control).
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need readelf
need nm
need llvm-symbolizer

cat >v.c <<'C'
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * 7; return s; }
int main(int argc, char **argv) { (void)argv; return alpha(argc) & 1; }
C
gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -o bin v.c || { fail "cannot build"; exit 1; }
python3 "$top_srcdir/tests/genbatch.py" in 2 bin >/dev/null
cp -r in orig
mkdir out
ln -s "$T/in/p00001.pb" link
printf 'in/p00000.pb\tlink\nin/p00001.pb\tout/b.pb\n' >m1
printf 'in/p00001.pb\tout/b.pb\nin/p00000.pb\tlink\n' >m2
same_inputs() { cmp -s in/p00000.pb orig/p00000.pb && cmp -s in/p00001.pb orig/p00001.pb; }
linked_written() { [ -L link2 ] && [ -s target.pb ]; }
for m in m1 m2; do
	cp orig/* in/
	rm -f out/b.pb
	rc=0
	"$PSYM" symbolize -j 1 --offline --no-index-build --manifest $m 2>$m.log || rc=$?
	check "$m: refused, exit 2 ($rc)" [ "$rc" = 2 ]
	check "$m: the message names the link and the input" \
		grep -Eq "(input|output) '(in/p00001.pb|link)' is the (output|input) of line [12] \(as '(link|in/p00001.pb)'\)" $m.log
	check "$m: the inputs are unchanged" same_inputs
	check "$m: nothing written" [ ! -e out/b.pb ]
done
# Control: a link to a file of its own, written through (the target).
: >target.pb
ln -s "$T/target.pb" link2
printf 'in/p00000.pb\tlink2\n' >m3
"$PSYM" symbolize -j 1 --offline --no-index-build --manifest m3 2>m3.log
check "a link to another file is written through" linked_written
check "its output agrees with llvm-symbolizer" llvm_agree target.pb bin
finish
