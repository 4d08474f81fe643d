#!/bin/sh
# elfutils' --debuginfo-path rule (issue 29 item 7): for a debuglink, each
# debug dir joined with trailing components of the binary's own directory
# (DEBUGDIR/bin/prog.debug for /some/root/bin/prog). The layout of elfutils'
# run-addr2line-alt-debugpath.sh (binary and debug file under separate
# roots, split with eu-strip -f), then deeper and other layouts, built here
# from source; every instruction of the program's functions answered by
# psym addr --debug-dir equals eu-addr2line --debuginfo-path's answer.
. "$top_srcdir/tests/lib.sh"
need g++
need eu-strip "elfutils"
need eu-addr2line "elfutils"
need python3

cat >x.cpp <<'C'
volatile int v;
static inline __attribute__((always_inline)) void foobar() { v = v * 3 + 1; v = v ^ 7; }
static inline __attribute__((always_inline)) void fubar() { v = v * 5 + 2; v = v ^ 9; }
__attribute__((noinline)) void bar() { foobar(); v++; }
__attribute__((noinline)) void baz() { fubar(); v--; }
__attribute__((noinline)) void foo() { foobar(); fubar(); }
__attribute__((noinline)) void fu() { v = 1; fubar(); foobar(); }
int main() { foo(); fu(); bar(); baz(); return v & 1; }
C
g++ -O2 -g -o prog x.cpp || { fail "cannot build with g++"; finish; exit 1; }
# Every instruction of bar, baz, foo, fu and main.
objdump -d --no-show-raw-insn -j .text prog | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >insns
nm -S prog | python3 -c '
import sys
f = [(int(w[0], 16), int(w[1], 16)) for w in (l.split() for l in sys.stdin)
     if len(w) == 4 and w[3] in ("_Z3barv", "_Z3bazv", "_Z3foov", "_Z2fuv", "main")]
for l in open("insns"):
    a = int(l, 16)
    if any(s <= a < s + n for s, n in f): print(l.strip())' >addrs
n=$(wc -l <addrs)

# layout NAME BINDIR DEBUGFILE: the stripped binary in BINDIR, its debug file
# at DEBUGFILE (both under $T); psym and eu-addr2line asked with debug dir dd.
layout() {
	name=$1
	rm -rf root dd && mkdir -p "$2" "$(dirname "$3")"
	eu-strip -f "$T/$3" -o "$T/$2/prog" prog || { fail "$name: eu-strip failed"; return; }
	eu-addr2line --pretty-print -a -f -i -e "$T/$2/prog" --debuginfo-path="$T/dd" <addrs >eu.$name
	"$PSYM" addr --offline -p -a --columns --no-demangle -e "$T/$2/prog" --debug-dir "$T/dd" \
		<addrs >psym.$name 2>err.$name
	# eu-addr2line prints no discriminators.
	sed 's/ (discriminator [0-9]*)$//' psym.$name >psym.$name.cmp
	named=$(grep -c ' at /' eu.$name)
	check "$name: eu-addr2line finds the debug file ($named lines with a file)" [ "$named" -gt 0 ]
	check "$name: psym addr = eu-addr2line --debuginfo-path on $n instructions" \
		cmp -s psym.$name.cmp eu.$name
	diff psym.$name.cmp eu.$name | head -6
}
# 1. run-addr2line-alt-debugpath.sh's own layout: DEBUGDIR/bin/prog.debug.
layout elfutils root/bindir/bin dd/bin/prog.debug
# 2. A deeper directory: the longest tail that exists (app/bin).
layout two-components root/opt/app/bin dd/app/bin/prog.debug
# 3. The shortest tail only (bin) under a deeper directory.
layout last-component root/opt/app/bin dd/bin/prog.debug
# 4. The whole directory under the debug dir (the rule psym had before).
layout whole-dir root/opt/app/bin "dd$T/root/opt/app/bin/prog.debug"
# 5. The debug dir itself (flat).
layout flat root/opt/app/bin dd/prog.debug
# 6. Tails of a directory with a symlink in it: its real path's tails.
rm -rf root dd real && mkdir -p real/x/bin root dd/x/bin
ln -s "$T/real/x" root/link
eu-strip -f "$T/dd/x/bin/prog.debug" -o "$T/real/x/bin/prog" prog
eu-addr2line --pretty-print -a -f -i -e "$T/root/link/bin/prog" --debuginfo-path="$T/dd" <addrs >eu.symlink
"$PSYM" addr --offline -p -a --columns --no-demangle -e "$T/root/link/bin/prog" --debug-dir "$T/dd" \
	<addrs 2>err.symlink | sed 's/ (discriminator [0-9]*)$//' >psym.symlink
check "symlinked dir: psym addr = eu-addr2line ($(grep -c ' at /' eu.symlink) lines with a file)" \
	sh -c "cmp -s psym.symlink eu.symlink && grep -q ' at /' eu.symlink"
diff psym.symlink eu.symlink | head -6

# --explain names the rule's candidates, longest tail first.
rm -rf root dd && mkdir -p root/opt/app/bin dd/bin
eu-strip -f "$T/dd/bin/prog.debug" -o "$T/root/opt/app/bin/prog" prog
"$PSYM" addr --offline --explain -e "$T/root/opt/app/bin/prog" --debug-dir "$T/dd" \
	"$(head -1 addrs)" >/dev/null 2>explain.err
cat explain.err
check "--explain: DEBUGDIR/app/bin tried before DEBUGDIR/bin" python3 -c "
t = open('explain.err').read()
a, b = t.find('$T/dd/app/bin/prog.debug'), t.find('$T/dd/bin/prog.debug')
assert 0 <= a < b, (a, b)"
finish
