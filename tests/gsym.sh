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
sys.exit(0 if agree == total and total > 1000 else 1)
PY
if python3 cmp.py llvm.txt psym.json >cmp.txt; then
	pass "--gsym: every instruction as llvm-gsymutil: $(head -1 cmp.txt)"
else
	fail "--gsym vs llvm-gsymutil: $(cat cmp.txt)"
fi
check "--gsym: inline chains are there" sh -c "grep -c '\"FunctionName\".*\"FunctionName\"' psym.json | grep -qv '^0$'"
check "--gsym: no warning" [ ! -s psym.err ]

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
[ "$n_fail" = 0 ]
