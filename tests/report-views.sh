#!/bin/sh
# psym traces / peek / tree against go tool pprof -traces / -peek / -tree
# on the same profiles, byte for byte: generated symbolized ones (inline
# frames, recursion, unsymbolized code, several sample types with units),
# system-wide ones (several mappings, comm/pid/tid labels, a numeric label
# with a unit), each with the filters, granularities and sample types that
# the top tests use. Each psym report equals the pprof command line run
# here (README "Reports and pprof").
. "$top_srcdir/tests/lib.sh"
need go "Debian golang-go"
need protoc
need python3
export HOME=$T GOCACHE=$T/gocache

# g: genprofile.py, sys: gensystem.py, u: genunits.py; seeds 1 and 2.
for f in g1 g2 sys1 sys2 u1 u2; do
	gen=$(echo ${f%[0-9]} | sed 's/^g$/genprofile/; s/^sys$/gensystem/; s/^u$/genunits/')
	python3 "$top_srcdir/tests/$gen.py" ${f#${f%[0-9]}} >$f.txtpb && encode_txtpb $f.txtpb $f.pb
done

# same VIEW PROFILE PSYM-OPTION...: psym VIEW against go tool pprof -VIEW
# -symbolize=none with the same options in pprof's spelling.
same() {
	view=$1 prof=$2
	shift 2
	ga=$(printf '%s\n' "$@" | sed 's/^--sample-index/-sample_index/; s/^--diff-base/-diff_base/;
		s/^--nodefraction/-nodefraction/; s/^--edgefraction/-edgefraction/; s/^--/-/' | tr '\n' ' ')
	"$PSYM" $view "$@" "$prof" >v.a 2>v.err
	echo $? >v.rc
	go tool pprof -$view -symbolize=none $ga "$prof" >v.b 2>/dev/null
	if [ "$(cat v.rc)" = 0 ] && [ -s v.a ] && cmp -s v.a v.b; then
		pass "$view $* = go tool pprof -$view -symbolize=none $ga ($prof)"
	else
		fail "$view $* = go tool pprof -$view -symbolize=none $ga ($prof)"
		diff v.a v.b | head -8
		head -3 v.err
	fi
}

# ---- traces ----
for p in g1.pb g2.pb sys1.pb sys2.pb u1.pb u2.pb; do
	same traces $p
	same traces $p --lines
	same traces $p --files
	same traces $p --sample-index=0
done
for p in sys1.pb sys2.pb; do
	same traces $p --focus=nginx
	same traces $p --hide=kernel
	same traces $p '--show=nginx|libc'
	same traces $p --tagfocus=pid=1001
	same traces $p --tagfocus=bytes=1kb:
	same traces $p --ignore=libc --lines
done
same traces g1.pb --focus=fn_1 --hide=fn_2
same traces sys1.pb --diff-base=sys2.pb
"$PSYM" traces sys1.pb >t.txt
check "traces prints each sample's comm, pid and bytes labels" \
	sh -c "grep -q '^      comm:  ' t.txt && grep -q '^       pid:  ' t.txt && grep -q '^     bytes:  ' t.txt"
check "traces marks inlined frames" grep -q ' (inline)$' t.txt

# ---- tree: pprof's defaults (-nodecount=80 -nodefraction=0.005
# -edgefraction=0.001) unless given ----
for p in g1.pb g2.pb sys1.pb sys2.pb u1.pb u2.pb; do
	same tree $p
	same tree $p --lines
	same tree $p --cum --files
	same tree $p --sample-index=0
	same tree $p --nodecount=0 --nodefraction=0 --edgefraction=0
done
for p in g1.pb sys1.pb u1.pb; do
	same tree $p --nodecount=5
	same tree $p --nodefraction=0.05
	same tree $p --edgefraction=0.02
	same tree $p --nodefraction=0.1 --nodecount=3 --cum
done
for p in sys1.pb sys2.pb; do
	same tree $p --focus=nginx
	same tree $p --hide=kernel --nodecount=10
	same tree $p --tagfocus=pid=1001 --lines
	same tree $p '--show=nginx|libc' --nodefraction=0.01
done
check "tree says what it dropped, as pprof" \
	sh -c "'$PSYM' tree --nodefraction=0.05 sys1.pb | grep -q '^Dropped [0-9]* nodes (cum <= '"
# With a diff base, calls of equal |weight| and opposite signs tie in
# pprof's edge order, which pprof then leaves to Go's map order (two runs
# of pprof differ): compare with each caller and callee block sorted.
sort_blocks() {
	python3 -c '
import sys
out, blk = [], []
for l in open(sys.argv[1]):
    if l.endswith("|   " + l.split("|   ", 1)[-1]) and l.startswith(" " * 40):
        blk.append(l); continue
    out += sorted(blk) + [l]; blk = []
out += sorted(blk)
sys.stdout.write("".join(out))' "$1"
}
"$PSYM" tree --diff-base=sys2.pb sys1.pb >d.a
go tool pprof -tree -symbolize=none -diff_base=sys2.pb sys1.pb >d.b 2>/dev/null
sort_blocks d.a >d.a.s
sort_blocks d.b >d.b.s
check "tree --diff-base = pprof -tree -diff_base (tied calls' order aside)" cmp d.a.s d.b.s

# ---- top with pprof's trimming: --nodefraction 0.005 --edgefraction
# 0.001 is plain go tool pprof -top (psym top's default is 0 and 0, every
# function: go tool pprof -top -nodefraction=0 -edgefraction=0) ----
for p in g1.pb g2.pb sys1.pb sys2.pb u1.pb u2.pb; do
	"$PSYM" top --nodefraction=0.005 --edgefraction=0.001 $p >v.a
	go tool pprof -top -symbolize=none $p >v.b 2>/dev/null
	check "top --nodefraction=0.005 --edgefraction=0.001 = plain go tool pprof -top ($p)" cmp v.a v.b
	same top $p --nodefraction=0.05 --edgefraction=0
	same top $p --nodefraction=0 --edgefraction=0.01 --cum
	same top $p --nodefraction=0.005 --edgefraction=0.001 --lines
	same top $p --nodefraction=0.01 --edgefraction=0.001 --nodecount=7
done
for p in sys1.pb sys2.pb; do
	same top $p --nodefraction=0.02 --edgefraction=0.001 --focus=nginx
	same top $p --nodefraction=0.01 --edgefraction=0.005 --hide=kernel --files
done
check "top --nodefraction says how many nodes it dropped, as pprof" \
	sh -c "'$PSYM' top --nodefraction=0.05 sys1.pb | grep -q '^Dropped [0-9]* nodes (cum <= '"
expect_exit 2 "traces refuses --nodefraction (pprof -traces trims nothing)" \
	"$PSYM" traces --nodefraction=0.1 g1.pb
expect_exit 2 "folded refuses --edgefraction (whole stacks)" "$PSYM" folded --edgefraction=0.1 g1.pb

# ---- peek: nothing trimmed, as pprof -peek ----
# same_re VIEW REGEX PROFILE PSYM-OPTION...: psym VIEW against go tool
# pprof -VIEW REGEX (peek, list).
same_re() {
	view=$1 re=$2 prof=$3
	shift 3
	ga=$(printf '%s\n' "$@" | sed 's/^--source-path/-source_path/; s/^--trim-path/-trim_path/;
		s/^--sample-index/-sample_index/; s/^--/-/' | tr '\n' ' ')
	"$PSYM" $view "$@" "$re" "$prof" >v.a 2>v.err
	go tool pprof -$view "$re" -symbolize=none $ga "$prof" >v.b 2>/dev/null
	if [ -s v.a ] && cmp -s v.a v.b; then
		pass "$view $* '$re' = go tool pprof -$view '$re' -symbolize=none $ga ($prof)"
	else
		fail "$view $* '$re' = go tool pprof -$view '$re' -symbolize=none $ga ($prof)"
		diff v.a v.b | head -8
		head -3 v.err
	fi
}
for p in g1.pb g2.pb; do
	same_re peek fn_1 $p
	same_re peek 'fn_0[23] ' $p --lines
	same_re peek file_2 $p --files
	same_re peek . $p --cum
done
for p in sys1.pb sys2.pb; do
	same_re peek nginx $p
	same_re peek '^libc_' $p --cum
	same_re peek '(?i)K3' $p --sample-index=0
	same_re peek 'main|do_' $p --focus=nginx
	same_re peek 'parse' $p --hide=kernel --lines
done
same_re peek f1 u1.pb
same_re peek f1 u2.pb --lines
"$PSYM" peek nosuch g1.pb >v.a 2>v.err
echo $? >v.rc
check "peek: no match is an error (exit 2, one line, no output), as pprof" \
	sh -c "test \$(cat v.rc) = 2 && test ! -s v.a && test \$(wc -l <v.err) = 1 && grep -q 'no matches found for regexp: nosuch' v.err"
expect_exit 2 "peek refuses --nodecount (pprof -peek trims nothing)" "$PSYM" peek -n 3 fn g1.pb
expect_exit 2 "peek: a bad regular expression" "$PSYM" peek 'a(' g1.pb
expect_exit 2 "tree: --nodefraction out of range" "$PSYM" tree --nodefraction=2 g1.pb
expect_exit 2 "tree on a bad profile" "$PSYM" tree "$top_srcdir/testdata/bad/zero-id.pb"
# ---- list: a program built here, profiled at every instruction of three
# functions (one with an inlined function from a header), symbolized by
# psym; its sources then moved, to be found with --source-path and
# --trim-path as pprof's -source_path and -trim_path find them ----
if command -v gcc >/dev/null && command -v objdump >/dev/null; then
	mkdir -p build/proj src other/x
	cat >build/proj/util.h <<'C'
static inline int mix(int a, int b)
{
	int r = a * 31;
	r ^= b;
	return r + 7;
}
C
	cat >build/proj/main.c <<'C'
#include <stdio.h>
#include "util.h"

__attribute__((noinline)) int work(int n)
{
	int acc = 0;
	for (int i = 0; i < n; i++)
		acc = mix(acc, i);
	return acc;
}

__attribute__((noinline)) int other(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += i * i;
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%d\n", work(argc * 1000) + other(argc * 100));
	return 0;
}
C
	(cd build/proj && gcc -O2 -g -o prog "$T/build/proj/main.c")
	base=555555554000
	printf '%s-%x r-xp 00000000 08:01 1 %s\n' $base \
		$((0x$base + $(stat -c %s build/proj/prog) + 4096)) "$T/build/proj/prog" >maps
	python3 - build/proj/prog $base >stacks <<'PY'
import re, subprocess, sys
prog, base = sys.argv[1], int(sys.argv[2], 16)
out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", prog], capture_output=True, text=True).stdout
fn, insns = None, {}
for l in out.splitlines():
    m = re.match(r"^[0-9a-f]+ <(\w+)>:", l)
    if m:
        fn = m.group(1); continue
    m = re.match(r"^\s+([0-9a-f]+):", l)
    if m and fn in ("work", "other", "main"):
        insns.setdefault(fn, []).append(int(m.group(1), 16))
caller = insns["main"][len(insns["main"]) // 2]
for k, fn in enumerate(("work", "other", "main")):
    for i, a in enumerate(insns[fn]):
        st = [a] if fn == "main" else [a, caller]
        print(" ".join("%x" % (base + x) for x in st), "count=%d" % (1 + (i * 7 + k) % 5))
PY
	python3 "$top_srcdir/tests/mkprofile.py" maps stacks >prog.txtpb
	encode_txtpb prog.txtpb prog.pb
	"$PSYM" symbolize -q prog.pb -o prog.sym.pb.gz
	check "list: the profile has the inlined function" sh -c "'$PSYM' top prog.sym.pb.gz | grep -q ' mix (inline)$'"
	for re in work mix 'main|other' .; do
		same_re list $re prog.sym.pb.gz
		same_re list $re prog.sym.pb.gz --sample-index=0
	done
	check "list work: source lines with values, the inlined call's line with its cum" \
		sh -c "'$PSYM' list work prog.sym.pb.gz | grep -q '^ *\. *[0-9][0-9]* *8:		acc = mix(acc, i);$'"
	check "list: no missing file said when all are found" test ! -s v.err
	# The sources move away from where the binary was built.
	mv build/proj/main.c build/proj/util.h src/
	mkdir -p src/proj
	mv src/main.c src/util.h src/proj/
	same_re list work prog.sym.pb.gz
	check "list: a missing file is said on stderr, one line, naming it" \
		sh -c "test \$(wc -l <v.err) = 1 && grep -q \"source file '$T/build/proj/main.c' not found\" v.err"
	check "list: pprof's Error line on stdout for the missing file" grep -q '^ Error: ' v.a
	for re in work mix; do
		same_re list $re prog.sym.pb.gz --source-path="$T/src/proj"
		same_re list $re prog.sym.pb.gz --source-path="$T/src"
		same_re list $re prog.sym.pb.gz --trim-path="$T/build" --source-path="$T/src"
		same_re list $re prog.sym.pb.gz --trim-path="$T/build/" --source-path="$T/other/x:$T/src"
	done
	# pprof also looks in the parents of each -source_path directory;
	# psym reads only files inside --source-path (psym(1)).
	mkdir -p src/proj/deeper/dir
	"$PSYM" list work prog.sym.pb.gz --source-path="$T/src/proj/deeper/dir" \
		--trim-path="$T/build/proj" >v.a 2>/dev/null
	check "list --source-path: not looked for in the directory's parents" \
		sh -c "grep -qxF ' Error: could not find file main.c on path $T/src/proj/deeper/dir' v.a && ! grep -q 'acc = mix' v.a"
	"$PSYM" list --trim-path="$T/build" --source-path="$T/src" mix prog.sym.pb.gz >v.a 2>v.err
	check "list --trim-path --source-path: the moved header's lines, nothing said missing" \
		sh -c "grep -q '^ *[0-9.]* *[0-9.]* *3:	int r = a \* 31;$' v.a && test ! -s v.err"
	expect_exit 2 "list: no function matches" "$PSYM" list nosuch prog.sym.pb.gz
	expect_exit 2 "list: a bad regular expression" "$PSYM" list 'a(' prog.sym.pb.gz
else
	echo "note: gcc or objdump not installed: list checks skipped"
fi

expect_exit 2 "traces on a bad profile" "$PSYM" traces "$top_srcdir/testdata/bad/zero-id.pb"
finish
