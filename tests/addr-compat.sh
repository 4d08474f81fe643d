#!/bin/sh
# psym addr speaks addr2line's and llvm-symbolizer's options (issue 29 item
# 6): -p/--pretty-print, -s/--basenames, -a, --functions[=none],
# --output-style=GNU|LLVM|JSON, --columns. Every .text instruction of a real
# C++ program (inline frames, discriminators) is asked of psym, addr2line
# and llvm-symbolizer with the same options; the outputs must be equal.
. "$top_srcdir/tests/lib.sh"
need g++
need addr2line
need llvm-symbolizer
need python3

cat >prog.cc <<'C'
#include <cstdio>
#include <vector>
volatile int g = 3;
static inline __attribute__((always_inline)) int sq(int x)
{
	return x * g + 1;
}
template <typename T> struct Acc {
	T total = 0;
	void add(T v) { total += sq(static_cast<int>(v)) + v / 3; }
};
__attribute__((noinline)) int work(const std::vector<int> &v)
{
	Acc<int> a;
	for (int x : v) a.add(x);
	for (int i = 0; i < 3; i++) a.add(i * g);
	return a.total;
}
int main(int argc, char **argv)
{
	std::vector<int> v(argc + 5, argc);
	std::printf("%d %s\n", work(v), argv[0]);
	return 0;
}
C
# No .cold parts: their outermost frame is the symbol's name (main.cold),
# which this test of the output options does not compare.
g++ -O2 -g -fno-reorder-blocks-and-partition -o prog prog.cc || { fail "cannot build with g++"; finish; exit 1; }
# The instructions inside a function symbol (padding between functions is
# answered from the symbol before it by addr2line, not by psym: a symbol
# lookup difference, not one of output format).
objdump -d --no-show-raw-insn -j .text prog | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >insns
nm -S prog | python3 -c '
import sys
funcs = []
for l in sys.stdin:
    w = l.split()
    if len(w) == 4 and w[2] in "tTwW":
        funcs.append((int(w[0], 16), int(w[1], 16)))
for l in open("insns"):
    a = int(l, 16)
    if any(s <= a < s + n for s, n in funcs):
        print(l.strip())' >all
# addr2line sometimes names an inline frame after its caller (binutils'
# lookup of nested inlined subroutines); where addr2line's function names
# differ from llvm-symbolizer's, the oracles disagree and the address is
# left out of the addr2line comparisons (counted).
addr2line -f -i -C -a -e prog <all >a2l.names
llvm-symbolizer -C --inlines -a -e prog <all >llvm.names
python3 - <<'PY' >all.gnu
def names(path, step):
    out = {}
    cur = None
    for l in open(path):
        l = l.rstrip("\n")
        if l.startswith("0x"):
            cur = int(l, 16); out[cur] = []; i = 0
        elif l:
            if i % 2 == 0: out[cur].append(l)
            i += 1
    return out
a, b = names("a2l.names", 2), names("llvm.names", 2)
for x in sorted(a):
    if a[x] == b.get(x):
        print("0x%x" % x)
PY
n=$(wc -l <all)
ng=$(wc -l <all.gnu)
echo "addr2line and llvm-symbolizer name the frames of $ng of $n addresses alike"
check "the oracles agree on most addresses ($ng of $n)" [ $((ng * 100)) -ge $((n * 90)) ]

# addr2line repeats the innermost frame's discriminator on each
# "(inlined by)" frame: a binutils quirk psym does not copy (the call site's
# line has no such discriminator); dropped from addr2line's output there.
a2l_norm() {
	python3 -c '
import re, sys
prev_loc = False
for l in sys.stdin:
    l = l.rstrip("\n")
    if l.startswith(" (inlined by) "):
        l = re.sub(r" \(discriminator \d+\)$", "", l)
    print(l)'
}
# Compared address by address (addr2line's answers also depend on the
# addresses asked before: both read the same input), on the addresses the
# oracles agree on; addr2line's discriminator on call-site frames dropped.
cat >gnu-cmp.py <<'PY'
import re, sys
def answers(path):
    out = {}
    cur = None
    for l in open(path):
        l = l.rstrip("\n")
        if l.startswith("0x"):
            cur = int(l.split(":")[0], 16)
            out[cur] = [l]
        else:
            out[cur].append(l)
    return out
ours, ref = answers(sys.argv[1]), answers(sys.argv[2])
agree = {int(l, 16) for l in open("all.gnu")}
pretty = sys.argv[3] == "pretty"
bad = n = 0
for a in sorted(agree):
    b = ref.get(a, [])
    if pretty:
        b = b[:1] + [re.sub(r" \(discriminator \d+\)$", "", x) for x in b[1:]]
    else:  # [addr, fn, loc, fn, loc...]: call-site locations are 4, 6, ...
        b = b[:3] + [re.sub(r" \(discriminator \d+\)$", "", x) for x in b[3:]]
    n += 1
    if ours.get(a) != b:
        bad += 1
        if bad < 4: print("  psym", ours.get(a), "\n  a2l ", b)
print("%d of %d differ" % (bad, n))
PY
for opts in "-a" "-a -p" "-a -s" "-a -p -s" "-a -p --functions=none"; do
	# shellcheck disable=SC2086
	"$PSYM" addr $opts -e prog <all >psym.out 2>psym.err
	a2lopts=$(echo "$opts" | sed 's/--functions=none//')
	case $opts in *--functions=none*) f="" ;; *) f=-f ;; esac
	# shellcheck disable=SC2086
	addr2line $f -i -C $a2lopts -e prog <all >a2l.out
	case $opts in *-p*) style=pretty ;; *) style=plain ;; esac
	python3 gnu-cmp.py psym.out a2l.out $style >cmp.out
	check "addr $opts = addr2line $f -i -C $a2lopts: $(tail -1 cmp.out)" grep -q '^0 of' cmp.out
	head -6 cmp.out | grep -v ' of '
done
# Mangled names: LLVM 14's demangler gives up on some names libiberty
# demangles (std::__fill_a1<int*, int>'s return type).
for opts in "" "-a" "-p" "-a -p -s" "--functions=none"; do
	# shellcheck disable=SC2086
	"$PSYM" addr --no-demangle --output-style=LLVM $opts -e prog <all >psym.out 2>/dev/null
	# shellcheck disable=SC2086
	llvm-symbolizer --no-demangle --inlines $opts -e prog <all >llvm.out
	check "addr --output-style=LLVM $opts = llvm-symbolizer $opts ($n addresses)" cmp -s psym.out llvm.out
	diff psym.out llvm.out | head -6
done
# --columns adds llvm-symbolizer's column to addr2line's format.
"$PSYM" addr --columns -e prog 0x$(nm -C prog | awk '$3 == "work(std::vector<int," { print $1 }') >col.out
check "--columns: FILE:LINE:COLUMN" grep -q '^/.*prog.cc:[0-9]*:[0-9]*' col.out

# JSON: what llvm-symbolizer --output-style=JSON writes, key for key, one
# object per input line (from standard input) or one array (arguments),
# every field of every frame: StartFileName (the function's decl file, as
# LLVM 14 reads DW_AT_decl_file) and StartAddress (an inlined call's own
# low_pc, none with ranges; the outermost frame's symbol start) included.
"$PSYM" addr --no-demangle --json -e prog <all >psym.json 2>/dev/null
llvm-symbolizer --no-demangle --inlines --output-style=JSON -e prog <all >llvm.json
cat >json-cmp.py <<'PY'
import json, sys
ours = [json.loads(l) for l in open(sys.argv[1])]
ref = [json.loads(l) for l in open(sys.argv[2])]
bad = [(a, b) for a, b in zip(ours, ref) if a != b]
keys = all(list(a.keys()) == list(b.keys()) and
           all(list(s.keys()) == list(t.keys()) for s, t in zip(a.get("Symbol", []), b.get("Symbol", [])))
           for a, b in zip(ours, ref))
starts = sum(1 for b in ref for s in b.get("Symbol", []) if s.get("StartFileName"))
print("%d of %d objects differ (%d frames with a StartFileName); keys in llvm's order: %s"
      % (len(bad), len(ref), starts, keys))
for a, b in bad[:3]:
    print(" psym", json.dumps(a)[:400], "\n llvm", json.dumps(b)[:400])
sys.exit(0 if not bad and keys and len(ours) == len(ref) else 1)
PY
python3 json-cmp.py psym.json llvm.json >json.cmp
check "--json = llvm-symbolizer --output-style=JSON: $(head -1 json.cmp)" \
	python3 json-cmp.py psym.json llvm.json
tail -n +2 json.cmp
set -- $(head -3 all)
"$PSYM" addr --no-demangle --json -e prog "$@" zz >psym.arr 2>/dev/null
llvm-symbolizer --no-demangle --inlines --output-style=JSON -e prog "$@" >llvm.arr
check "--json with arguments: one array, as llvm-symbolizer's" python3 -c "
import json
a, b = json.load(open('psym.arr')), json.load(open('llvm.arr'))
assert len(a) == 4 and 'Error' in a[3] and a[3]['ModuleName'] == 'prog', a[3]
for x, y in zip(a, b):
    assert x == y, (x, y)"
# A blank input line: an empty answer and on, exit 0 (addr2line answers
# address 0, llvm-symbolizer echoes the blank line).
w=0x$(nm prog | awk '$3 ~ /work/ { print $1; exit }')
printf '%s\n\n%s\n' "$w" "$w" >blank.in
"$PSYM" addr -a -f -e prog <blank.in >blank.psym 2>blank.err
rc=$?
addr2line -a -f -e prog <blank.in >blank.a2l
# The blank line's answer block, as addr2line gives it (the others may differ
# by psym's inline frames: compared above, with -i).
grep -A2 '^0x0000000000000000$' blank.a2l >blank.a2l.0
grep -A2 '^0x0000000000000000$' blank.psym >blank.psym.0
check "a blank line (GNU): answered as addr2line does ($(tr '\n' ' ' <blank.psym.0)), exit 0, no message (exit $rc: $(cat blank.err))" \
	sh -c '[ "$1" = 0 ] && [ ! -s blank.err ] && [ -s blank.a2l.0 ] && cmp -s blank.a2l.0 blank.psym.0 && [ "$(grep -c "^0x" blank.psym)" = 3 ]' sh "$rc"
"$PSYM" addr --output-style=LLVM -e prog <blank.in >blank.pl 2>/dev/null
llvm-symbolizer --obj=prog <blank.in >blank.ll
check "a blank line (LLVM): as llvm-symbolizer echoes it" cmp -s blank.pl blank.ll

# --compat=addr2line, and psym run under the name addr2line (a link): GNU
# addr2line's own defaults (function names only with -f, inline frames
# only with -i, else the innermost frame alone, demangled only with -C,
# the innermost line's discriminator repeated on every line), byte for
# byte. GNU addr2line names an inlined function without a linkage name
# after the symbol holding it, depending on the addresses asked before;
# those addresses (where its names differ from llvm-addr2line's) are
# left out, counted.
LA=$(command -v llvm-addr2line || command -v llvm-addr2line-14 || true)
ln -s "$PSYM" addr2line
cat >compat-cmp.py <<'PY'
import re, sys
def blocks(path):
    out, cur = {}, None
    for l in open(path):
        l = l.rstrip("\n")
        m = re.match(r"^0x([0-9a-f]+)(:|$)", l)
        if m:
            cur = int(m.group(1), 16); out[cur] = [l]
        elif cur is not None:
            out[cur].append(l)
    return out
def names(b, f, pretty):
    if not f: return []
    if pretty:
        return [re.sub(r"^ \(inlined by\) ", "", re.sub(r"^0x[0-9a-f]+: ", "", x)).split(" at ")[0] for x in b]
    return b[1::2]
f, pretty = sys.argv[4] == "f", sys.argv[5] == "p"
ours, gnu, llvm = blocks(sys.argv[1]), blocks(sys.argv[2]), blocks(sys.argv[3])
bad = n = 0
for a in sorted(gnu):
    if names(gnu[a], f, pretty) != names(llvm.get(a, []), f, pretty):
        continue
    n += 1
    if ours.get(a) != gnu[a]:
        bad += 1
        if bad < 4: print("  psym", ours.get(a), "\n  a2l ", gnu[a])
print("%d of %d differ (%d left out)" % (bad, n, len(gnu) - n))
sys.exit(0 if bad == 0 and n * 10 >= len(gnu) * 8 else 1)
PY
if [ -n "$LA" ]; then
	for opts in "-a" "-a -f" "-a -f -i" "-a -i" "-a -p" "-a -f -C -p" "-a -f -i -p -C" \
		"-a -f -i -C -s" "-a -f -i -p"; do
		# shellcheck disable=SC2086
		addr2line $opts -e prog <all >c.a2l
		# shellcheck disable=SC2086
		"$LA" $opts -e prog <all >c.la
		# shellcheck disable=SC2086
		./addr2line $opts -e prog <all >c.psym 2>c.err
		case $opts in *-f*) f=f ;; *) f=- ;; esac
		case $opts in *-p*) p=p ;; *) p=- ;; esac
		python3 compat-cmp.py c.psym c.a2l c.la $f $p >c.cmp
		check "psym run as addr2line $opts = addr2line $opts: $(head -1 c.cmp | grep ' of ' || tail -1 c.cmp)" \
			python3 compat-cmp.py c.psym c.a2l c.la $f $p
		grep -v ' of ' c.cmp | head -6
	done
	"$PSYM" addr --compat=addr2line -a -f -i -p -e prog <all >c.psym 2>c.err
	./addr2line -a -f -i -p -e prog <all >c.link
	check "psym addr --compat=addr2line = psym run as addr2line" cmp -s c.psym c.link
	check "... a repeated discriminator on '(inlined by)' lines, as addr2line's" \
		grep -q '(inlined by).*(discriminator' c.psym
	check "... not the default: psym addr -a -f gives inline frames" sh -c \
		"\"$PSYM\" addr -a -f -e prog <all | cmp -s - c.a2l; [ \$? = 1 ]"
else
	echo "SKIP part: no llvm-addr2line to tell addr2line's history-dependent names"
fi
cp prog a.out
set -- $(head -2 all.gnu)
./addr2line -f "$@" >c.psym 2>&1
addr2line -f "$@" >c.a2l 2>&1
check "as addr2line, a.out when no binary is named" cmp -s c.psym c.a2l

# Data: an address no code holds is named by the data object (or absolute
# symbol) holding it, as llvm-symbolizer names it (addr2line names the
# untyped symbol before it, data_start, where an object holds it): every
# byte of .data, .bss and .rodata, the name and JSON's StartAddress.
cat >data.c <<'C'
int a_variable = 5;
static int counts[16] = { 1 };
const char banner[] = "psym data symbols";
long zeroed[8];
static char flag;
__attribute__((weak)) int tunable = 7;
int main(void) { flag = 1; return a_variable + counts[3] + banner[2] + (int)zeroed[1] + tunable; }
C
gcc -g -O0 -o data data.c
# data_bytes FILE: every address of FILE's .rodata, .data.rel.ro, .data and .bss (readelf's).
data_bytes() {
	readelf -SW "$1" | python3 -c '
import sys, re
for l in sys.stdin:
    m = re.match(r"\s*\[\s*\d+\]\s+(\.rodata|\.data\.rel\.ro|\.data|\.bss)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", l)
    if m:
        a, n = int(m.group(2), 16), int(m.group(3), 16)
        for x in range(a, a + n):
            print("0x%x" % x)'
}
data_bytes data >dbytes
llvm-symbolizer --output-style=JSON -e data <dbytes >data.llvm
"$PSYM" addr --json -e data <dbytes >data.psym 2>/dev/null
check "data: every byte of .data, .bss and .rodata ($(wc -l <dbytes)) named as llvm-symbolizer names it" \
	python3 json-cmp.py data.psym data.llvm
check "... a_variable, counts, banner, zeroed and flag among the names" sh -c \
	'for n in a_variable counts banner zeroed flag tunable; do grep -q "\"FunctionName\":\"$n\"" data.psym || exit 1; done'
# The same on a real distro library: every byte of libc.so.6's .rodata,
# .data.rel.ro, .data and .bss. Where several symbols name one object
# (tzname and __tzname: same address, same size), llvm-symbolizer 14 takes
# the last in the symbol table and psym the global one; both are names of
# that object (readelf's), counted apart.
LIBC=$(ldd "$PSYM" 2>/dev/null | sed -n 's/.*libc\.so\.6 => \([^ ]*\) .*/\1/p')
if [ -n "$LIBC" ] && [ -f "$LIBC" ]; then
	data_bytes "$LIBC" >lbytes
	readelf -sW --dyn-syms "$LIBC" >lsyms
	llvm-symbolizer --output-style=JSON -e "$LIBC" <lbytes >libc.llvm
	"$PSYM" addr --json -e "$LIBC" <lbytes >libc.psym 2>/dev/null
	cat >alias-cmp.py <<'PY'
import json, re, sys
alias = {}
for l in open("lsyms"):
    w = l.split()
    if len(w) >= 8 and re.match(r"^[0-9a-f]+$", w[1]) and w[3] in ("OBJECT", "NOTYPE", "TLS", "COMMON"):
        alias.setdefault((int(w[1], 16), w[2]), set()).add(w[7].split("@")[0])
ours = [json.loads(l) for l in open(sys.argv[1])]
ref = [json.loads(l) for l in open(sys.argv[2])]
same = aliased = 0
bad = []
for a, b in zip(ours, ref):
    if a == b:
        same += 1
        continue
    x, y = a["Symbol"], b["Symbol"]
    if (len(x) == len(y) == 1 and x[0]["StartAddress"] == y[0]["StartAddress"] and
            any({x[0]["FunctionName"], y[0]["FunctionName"]} <= names
                for (start, _), names in alias.items() if "0x%x" % start == x[0]["StartAddress"])):
        aliased += 1
    else:
        bad.append((a, b))
named = sum(1 for b in ref if b["Symbol"][0]["FunctionName"])
print("%d of %d addresses as llvm-symbolizer, %d an alias of the same object, %d differ (%d named)"
      % (same, len(ref), aliased, len(bad), named))
for a, b in bad[:3]:
    print(" psym", json.dumps(a)[:300], "\n llvm", json.dumps(b)[:300])
sys.exit(0 if not bad and len(ours) == len(ref) and named > 1000 else 1)
PY
	python3 alias-cmp.py libc.psym libc.llvm >alias.out
	check "data: every byte of $LIBC's data sections: $(head -1 alias.out)" \
		python3 alias-cmp.py libc.psym libc.llvm
	tail -n +2 alias.out
else
	echo "SKIP part: no libc.so.6 found through ldd"
fi

# A call site's own discriminator (DW_AT_GNU_discriminator on the inlined
# call, as clang writes it with -fdebug-info-for-profiling): on its
# "(inlined by)" line and in JSON, as llvm-symbolizer gives it.
if command -v clang >/dev/null 2>&1; then
	cat >disc.c <<'C'
static inline __attribute__((always_inline)) int sq(int x) { return x * x + (x > 3 ? x : 1); }
__attribute__((noinline)) int g(int n) { int s = 0; for (int i = 0; i < n; i++) s += (i & 1) ? sq(i) : sq(i + 1) * 3; return s; }
int main(int c, char **v) { (void)v; return g(c + 5); }
C
	clang -g -O2 -fdebug-info-for-profiling -o disc disc.c
	objdump -d --no-show-raw-insn -j .text disc | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >disc.in
	llvm-symbolizer --output-style=JSON -e disc <disc.in >disc.llvm
	"$PSYM" addr --json -e disc <disc.in >disc.psym 2>/dev/null
	check "call-site discriminators: --json = llvm-symbolizer on every instruction ($(wc -l <disc.in))" \
		python3 json-cmp.py disc.psym disc.llvm
	check "... some call site has one" python3 -c "
import json
n = sum(1 for l in open('disc.llvm') for s in json.loads(l)['Symbol'][1:] if s['Discriminator'])
assert n > 0, n"
	llvm-symbolizer --output-style=GNU -i -f -p -e disc <disc.in >disc.lg
	"$PSYM" addr -p -e disc <disc.in >disc.pg 2>/dev/null
	# (Lines without a line number differ by style: addr2line's "FILE:?"
	# against llvm-symbolizer's "FILE:0"; call sites always have one.)
	grep '(inlined by)' disc.pg >disc.pgi
	grep '(inlined by)' disc.lg >disc.lgi
	check "... and on '(inlined by)' lines: -p as llvm-symbolizer --output-style=GNU -p ($(grep -c 'discriminator' disc.pgi) of $(wc -l <disc.pgi) with one)" \
		sh -c 'cmp -s disc.pgi disc.lgi && grep -q "discriminator" disc.pgi'
else
	echo "SKIP part: no clang for the call-site discriminator case"
fi

# -a on a 32-bit ELF: eight hex digits, as addr2line prints them.
cat >s32.c <<'C'
__attribute__((noinline)) int f32(int x) { return x * 3 + 1; }
void _start(void) { f32(2); for (;;) ; }
C
if gcc -m32 -g -O1 -nostdlib -static -fno-pie -no-pie -o s32 s32.c 2>s32.err; then
	a32=0x$(nm s32 | awk '$3 == "f32" { print $1 }')
	"$PSYM" addr -a -e s32 "$a32" | head -1 >w.psym
	addr2line -a -e s32 "$a32" | head -1 >w.a2l
	check "-a on a 32-bit ELF prints $(cat w.a2l) as addr2line does ($(cat w.psym))" cmp -s w.psym w.a2l
else
	echo "SKIP part: gcc -m32 cannot link here: $(head -1 s32.err)"
fi
# ==== addr2line byte for byte (issue 54 item 7) ====
# psym run as addr2line on EVERY byte of the .text of a -O2 C++ program
# using <regex> (padding between functions included) and of a -O2 C
# program (clones, inlines; built by gcc and by clang), against GNU
# addr2line, under each option set:
# the outputs must be identical. GNU's answer to an address can depend on
# the addresses asked before it (binutils names a function without a
# linkage name after its symbol the first time only; what it has read and
# cached by then), which psym follows as far as it knows it; any address
# still different is asked of both alone, and counted as a query-order
# difference only when both then agree (compare-addr2line-bytes.py); any
# other difference fails. The addresses are asked in order, then shuffled.
cat >rx.cc <<'C'
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>
int main(int argc, char **argv)
{
	std::vector<std::string> in(argv + 1, argv + argc);
	std::map<std::string, int> counts;
	std::regex re("([a-z]+)([0-9]*)", std::regex::icase);
	for (auto &s : in) {
		std::smatch m;
		if (std::regex_search(s, m, re))
			counts[m[1]]++;
	}
	for (auto &kv : counts)
		std::cout << kv.first << " " << kv.second << "\n";
	return 0;
}
C
cat >cl.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int tab[64];
static __attribute__((noinline)) int helper(int *p, int n, int unused)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += p[i] * 3;
	return s;
}
static inline int sq(int x) { return x * x + tab[x & 63]; }
static int cold_path(const char *m) { fprintf(stderr, "%s\n", m); abort(); }
int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += sq(i);
	if (n > 1000)
		cold_path("big");
	return s + helper(tab, n & 63, 5);
}
int main(int argc, char **argv)
{
	for (int i = 0; i < 64; i++)
		tab[i] = i ^ argc;
	printf("%d %zu\n", work(argc * 10), strlen(argv[0]));
	return 0;
}
C
# text_bytes FILE: every address of FILE's .text.
text_bytes() {
	readelf -SW "$1" | python3 -c '
import sys
for l in sys.stdin:
    if " .text " in l:
        f = l.split("]")[1].split()
        a, n = int(f[2], 16), int(f[4], 16)
        for x in range(a, a + n):
            print("0x%x" % x)'
}
if g++ -O2 -g -o rx rx.cc && gcc -O2 -g -o cl cl.c; then
	text_bytes rx >rx.addrs
	text_bytes cl >cl.addrs
	progs="rx:rx.addrs cl:cl.addrs rx:rx.shuf"
	# Stripped, its DWARF and symbols in a debug file found by its
	# .gnu_debuglink: GNU names padding by the debug file's symbols.
	if objcopy --only-keep-debug cl cl.debug && cp cl cls && strip --strip-all cls &&
		objcopy --add-gnu-debuglink=cl.debug cls; then
		progs="$progs cls:cl.addrs"
	else
		echo "SKIP part: objcopy cannot make a stripped copy with a debug link"
	fi
	# clang's DWARF 5 gives inlined calls DW_FORM_rnglistx ranges, which
	# binutils 2.40 does not read: GNU's chains are shorter there.
	if command -v clang >/dev/null 2>&1 && clang -O2 -g -o clc cl.c; then
		text_bytes clc >clc.addrs
		progs="$progs clc:clc.addrs"
	else
		echo "SKIP part: no clang for the clang-built C program"
	fi
	python3 -c '
import random, sys
a = open("rx.addrs").read().split()
random.Random(54).shuffle(a)
print("\n".join(a))' >rx.shuf
	for opts in "-f -i -C" "-f -C" "-a -f -i -C -p" "-i" "-f -i" "" "-f" "-a -p" "-a -f -i -C -s"; do
		for prog in $progs; do
			# shellcheck disable=SC2086
			python3 "$top_srcdir/tests/compare-addr2line-bytes.py" ./addr2line \
				"${prog%%:*}" "${prog#*:}" $opts >cmp.out
			rc=$?
			check "every byte of ${prog%%:*}'s .text (${prog#*:}, $(wc -l <"${prog#*:}")) as addr2line ${opts:-(no options)}: $(head -1 cmp.out)" \
				[ "$rc" = 0 ]
			tail -n +2 cmp.out | head -9
		done
	done
else
	unbuildable rx "g++ -O2 cannot build a <regex> program, or gcc -O2 a C one"
fi
finish
