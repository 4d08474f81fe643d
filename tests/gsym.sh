#!/bin/sh
# GSYM files as a symbol source (issue 25): psym addr --gsym FILE answers
# every instruction of a C++ program (<regex>: deep inline chains) with the
# function, the inline chain and file:line that llvm-gsymutil --addresses
# gives from the same file; a GSYM found by its UUID (the build ID) in a
# debug dir's .build-id tree answers for a binary without DWARF; one with
# another UUID there is not used; a damaged one is said in one warning.
. "$top_srcdir/tests/lib.sh"
need g++
need objcopy
need objdump
need python3
GS=$(command -v llvm-gsymutil-14 || command -v llvm-gsymutil || true)
[ -n "$GS" ] || skip "llvm-gsymutil is not installed (Debian llvm-14)"

sed -n '/^cat >lambdas.cc/,/^C$/p' "$top_srcdir/tests/dwarf-lambdas.sh" | sed '1d;$d' >prog.cc
g++ -O2 -g -o prog prog.cc || { fail "cannot build"; exit 1; }
"$GS" --convert prog -o prog.gsym >convert.log 2>&1 || { fail "llvm-gsymutil --convert failed"; exit 1; }
bid=$(readelf -n prog | sed -n 's/.*Build ID: //p')
objdump -d --no-show-raw-insn -j .text prog | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >insns
objcopy --strip-debug prog prog.nodebug
sed 's/$/ prog.gsym/' insns | "$GS" --addresses-from-stdin >llvm.txt 2>&1
"$PSYM" addr --json --no-demangle --gsym prog.gsym -e prog.nodebug <insns >psym.json 2>psym.err

# compare: per address, the frames (name, file:line) innermost first.
cat >cmp.py <<'PY'
import json, re, sys
llvm = {}
cur = None
for l in open(sys.argv[1]):
    m = re.match(r"^(0x[0-9a-f]+): (.*)$", l.rstrip("\n"))
    if m:
        cur = int(m.group(1), 16)
        llvm[cur] = []
        rest = m.group(2)
    elif l.startswith(" ") and cur is not None:
        rest = l.strip()
    else:
        cur = None
        continue
    if rest.startswith("error:"):
        continue
    m = re.match(r"^(.+?)(?: \+ \d+)?(?: @ (.+):(\d+))?(?: \[inlined\])?$", rest)
    name, f, line = m.group(1), m.group(2) or "??", int(m.group(3) or 0)
    llvm[cur].append((name, f, line))
agree = total = 0
bad = []
for l in open(sys.argv[2]):
    o = json.loads(l)
    a = int(o["Address"], 16)
    # llvm-symbolizer's JSON: an unknown name or file is "".
    mine = [(s["FunctionName"], s["FileName"] or "??", s["Line"]) for s in o["Symbol"]
            if s["FunctionName"] not in ("??", "")]
    total += 1
    if mine == llvm.get(a, []):
        agree += 1
    elif len(bad) < 10:
        bad.append("%x: psym %s llvm %s" % (a, mine, llvm.get(a)))
print("agreement: %d/%d addresses" % (agree, total))
for b in bad:
    print(b)
sys.exit(0 if agree == total and total > int(sys.argv[3] if len(sys.argv) > 3 else 1000) else 1)
PY
if python3 cmp.py llvm.txt psym.json >cmp.txt; then
	pass "--gsym: every instruction as llvm-gsymutil: $(head -1 cmp.txt)"
else
	fail "--gsym vs llvm-gsymutil: $(cat cmp.txt)"
fi
check "--gsym: inline chains are there" sh -c "grep -c '\"FunctionName\".*\"FunctionName\"' psym.json | grep -qv '^0$'"
check "--gsym: no warning" [ ! -s psym.err ]

# The GSYM file alone, no binary beside it (issue 49: a source that needs
# no ELF file is a peer): the same answers as with the binary, llvm-gsymutil's.
"$PSYM" addr --json --no-demangle --gsym prog.gsym <insns >alone.json 2>alone.err
if python3 cmp.py llvm.txt alone.json >alone.cmp; then
	pass "--gsym alone: every instruction as llvm-gsymutil: $(head -1 alone.cmp)"
else
	fail "--gsym alone vs llvm-gsymutil: $(cat alone.cmp)"
fi
check "--gsym alone: no warning ($(cat alone.err))" [ ! -s alone.err ]
"$PSYM" addr -v --gsym prog.gsym "$(head -1 insns)" >/dev/null 2>alone.v
check "--gsym alone -v: says the GSYM file answered ($(cat alone.v))" \
	grep -q "lines from the GSYM file 'prog.gsym'" alone.v

# Found by its UUID in a debug dir's .build-id tree.
mkdir -p "dd/.build-id/$(echo "$bid" | cut -c1-2)"
cp prog.gsym "dd/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).gsym"
"$PSYM" addr --json --no-demangle --offline --debug-dir dd -e prog.nodebug <insns >found.json 2>found.err
check "a GSYM found by build ID answers the same" cmp -s found.json psym.json
# Another program's GSYM under this build ID: not used.
g++ -O1 -g -o other prog.cc && "$GS" --convert other -o other.gsym >/dev/null 2>&1
cp other.gsym "dd/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).gsym"
"$PSYM" addr --json --no-demangle --offline --debug-dir dd -e prog.nodebug <insns >other.json 2>other.err
check "a GSYM with another UUID is not used" sh -c "! grep -q regex other.json || ! cmp -s other.json psym.json"
# Damaged: truncated inside the tables.
head -c 100 prog.gsym >bad.gsym
"$PSYM" addr --no-demangle --gsym bad.gsym -e prog.nodebug <insns >bad.txt 2>bad.err
check "a truncated GSYM: one warning naming it ($(cat bad.err))" \
	sh -c "[ \$(wc -l <bad.err) = 1 ] && grep -q 'bad.gsym' bad.err"
"$PSYM" addr --gsym bad.gsym 0x1000 >/dev/null 2>alone.bad
check "--gsym alone, damaged: exit 2 and one line naming it ($(cat alone.bad))" \
	sh -c "'$PSYM' addr --gsym bad.gsym 0x1000 >/dev/null 2>&1; [ \$? = 2 ] && [ \$(wc -l <alone.bad) = 1 ] && grep -q 'bad.gsym' alone.bad"

# A GSYM file named with --gsym answers even when the store has an index
# for the build ID (issue 38 item 5: the index answered, "work" for
# "gsym_only_name", once any run had built one). named.gsym is made from a
# build of the same code whose function has another name, so its answers
# differ from the DWARF's (and the index's) by the name alone.
cat >p.c <<'C'
__attribute__((noinline)) int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * n; return s; }
int main(int argc, char **argv) { (void)argv; return work(argc) & 1; }
C
gcc -O1 -g -o p p.c && gcc -O1 -g -Dwork=gsym_only_name -o named p.c &&
	"$GS" --convert named -o named.gsym >/dev/null 2>&1 || { fail "cannot build the named GSYM"; exit 1; }
objdump -d --no-show-raw-insn -j .text p | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >p.insns
sed 's/$/ named.gsym/' p.insns | "$GS" --addresses-from-stdin >named.llvm 2>&1
"$PSYM" index --index-store store p >index.log 2>&1
check "an index of p in the store" sh -c "ls store/*/*.psymidx >/dev/null 2>&1"
"$PSYM" addr --json --no-demangle --index-store store --gsym named.gsym -e p <p.insns >named.json 2>named.err
if python3 cmp.py named.llvm named.json 50 >named.cmp; then
	pass "--gsym over an index: every instruction as llvm-gsymutil from the named file: $(head -1 named.cmp)"
else
	fail "--gsym over an index vs llvm-gsymutil: $(cat named.cmp)"
fi
check "--gsym over an index: gsym_only_name answers" grep -q gsym_only_name named.json
"$PSYM" addr --explain --index-store store --gsym named.gsym -e p "$(head -1 p.insns)" >/dev/null 2>explain.txt
cat explain.txt
check "--explain says the GSYM file answered" grep -q "lines from the GSYM file 'named.gsym'" explain.txt
check "--explain says the index was not asked, and why" grep -q "not asked: the GSYM file named with --gsym answers" explain.txt
check "--explain does not claim the index answered" sh -c "! grep -q 'index used\|answers from the index' explain.txt"
[ "$n_fail" = 0 ]
