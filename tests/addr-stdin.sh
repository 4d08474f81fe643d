#!/bin/sh
# psym addr answers every address exactly once, in order: an input line is
# read whole (a 300-byte line was read in 256-byte pieces and answered
# twice), an address that does not parse is answered ?? / ??:0 as
# addr2line answers it (it used to be dropped, exit 0) and psym exits 1,
# a line over the 1 MiB cap is answered ?? with the cap named. Oracle:
# binutils addr2line on the same input (where its own 100-byte reads do not
# split lines).
. "$top_srcdir/tests/lib.sh"
need gcc
need addr2line
need python3
cat >bt.c <<'C'
#include <stdio.h>
__attribute__((noinline)) int f1(int x) { return x * 3 + 1; }
__attribute__((noinline)) int f2(int x) { return f1(x) + 2; }
int main(int argc, char **argv) { (void)argv; printf("%d\n", f2(argc)); return 0; }
C
gcc -g -O0 -o bt bt.c || { fail "gcc"; finish; exit; }
f1=0x$(nm bt | awk '$3 == "f1" { print $1 }')
f2=0x$(nm bt | awk '$3 == "f2" { print $1 }')
# file:line without directories or discriminators: the part both print alike.
norm() { sed -e 's|^.*/||' -e 's| (discriminator [0-9]*)||' "$1"; }

# Short lines with bad addresses, a blank line, trailing words: the answers
# equal addr2line's line for line.
printf '%s\nzzz\n\n  %s trailing words\n0xgg\n%s\n' "$f1" "$f2" "$f1" >in1
rc=0
"$PSYM" addr -e bt <in1 >got1 2>err1 || rc=$?
addr2line -f -e bt <in1 >a2l1
norm got1 >g; norm a2l1 >a
check "bad addresses and a blank line: answers equal addr2line's ($(wc -l <a) lines)" cmp -s g a ||
	diff a g
check "exit 1 when an input line is not an address" test $rc = 1
check "each bad line said once on stderr, with its line number (a blank line is no error)" \
	sh -c "[ \$(wc -l <err1) = 2 ] && grep -q 'line 2: .zzz.: not a hex address' err1 && grep -q 'line 5: .0xgg.' err1"
# The same on the command line (the task's example).
rc=0
"$PSYM" addr -e bt zzz "$f1" >got2 2>err2 || rc=$?
addr2line -f -e bt zzz "$f1" >a2l2
norm got2 >g; norm a2l2 >a
check "arguments: psym addr -e bt zzz $f1 answers as addr2line" cmp -s g a || diff a g
check "arguments: exit 1, one line on stderr" sh -c "[ $rc = 1 ] && [ \$(wc -l <err2) = 1 ]"
# Good input only: exit 0, nothing on stderr but the debug-info note.
expect_exit 0 "all addresses good: exit 0" sh -c "printf '%s\n%s\n' $f1 $f2 | \"$PSYM\" addr -e bt >/dev/null"

# Long lines: 300 bytes (leading zeros, trailing blanks) and 200 KB of
# trailing words are still one address each. addr2line itself reads
# 100-byte pieces, so it is the oracle for the short form of each address.
python3 - "$f1" "$f2" >in3 <<'PY'
import sys
f1, f2 = sys.argv[1], sys.argv[2]
print("0x" + "0" * 300 + f1[2:])
print(f2 + " " + "x" * 200000)
print(f1 + " " * 1000)
PY
printf '%s\n%s\n%s\n' "$f1" "$f2" "$f1" >in3.short
"$PSYM" addr -e bt <in3 >got3 2>/dev/null
addr2line -f -e bt <in3.short >a2l3
norm got3 >g; norm a2l3 >a
check "long lines: one answer each, as addr2line for the short form" cmp -s g a || diff a g
# A line over the cap: ??, the cap named, and the next line still answered.
python3 - "$f1" "$f2" >in4 <<'PY'
import sys
print(sys.argv[1])
print("1" * (2 << 20))
print(sys.argv[2])
PY
rc=0
"$PSYM" addr -e bt <in4 >got4 2>err4 || rc=$?
printf '%s\nzzz\n%s\n' "$f1" "$f2" | addr2line -f -e bt >a2l4
norm got4 >g; norm a2l4 >a
check "a 2 MiB line: answered ?? once, the lines around it answered" cmp -s g a || diff a g
check "a 2 MiB line: exit 1, the 1 MiB cap named" \
	sh -c "[ $rc = 1 ] && grep -q 'line 2: longer than 1048576 bytes' err4"
# A file's addresses are answered in address order, 32768 at a time, and
# written in input order (cli/addr_order.c): 70000 lines in random order
# across three chunks, bad lines and blank lines among them, from a file,
# a pipe and the arguments, each answered as addr2line answers them, the
# bad lines said on stderr in input order.
python3 - "$f1" "$f2" >in6 <<'PY'
import random, sys
f1, f2 = int(sys.argv[1], 16), int(sys.argv[2], 16)
r = random.Random(6)
for i in range(70000):
    k = r.randrange(50)
    print("zz%d" % i if k == 0 else "" if k == 1 else hex(r.choice((f1, f2)) + r.randrange(16)))
PY
addr2line -f -e bt <in6 | norm /dev/stdin >a
"$PSYM" addr -e bt <in6 >got6 2>err6 || true
norm got6 >g
check "70000 lines from a file: answers in input order, as addr2line's" cmp -s g a ||
	diff a g | head
check "70000 lines from a file: the bad lines said in input order" \
	sh -c "grep -o 'line [0-9]*' err6 | cut -d' ' -f2 >l6 && sort -n -c l6 && [ \$(wc -l <l6) = \$(grep -c '^zz' in6) ]"
cat in6 | "$PSYM" addr -e bt 2>/dev/null | norm /dev/stdin >g
check "70000 lines from a pipe: answers in input order, as addr2line's" cmp -s g a
grep -v '^$' in6 | head -3000 >in7
addr2line -f -e bt $(cat in7) | norm /dev/stdin >a
"$PSYM" addr -e bt $(cat in7) 2>/dev/null | norm /dev/stdin >g
check "3000 arguments: answers in their order, as addr2line's" cmp -s g a
# JSON: one object per input line too.
printf '%s\nzzz\n\n%s\n' "$f1" "$f2" | "$PSYM" addr --json -e bt >got5 2>/dev/null
check "--json: one object per input line, bad ones with an Error" \
	sh -c "[ \$(wc -l <got5) = 4 ] && [ \$(grep -c '\"Error\"' got5) = 2 ] && sed -n 1p got5 | grep -q '\"f1\"'"
finish
