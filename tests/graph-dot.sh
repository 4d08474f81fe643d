#!/bin/sh
# psym graph against go tool pprof -dot on the same profiles, byte for
# byte: generated symbolized ones (inline frames, recursion, unsymbolized
# code, units; system-wide ones with comm/pid/tid labels and a "bytes"
# numeric label, drawn as pprof's label boxes), a C program built here
# with inline functions and symbolized by psym, and a Go program's CPU
# profile (with pprof labels) and heap profile (its "bytes" labels), each
# with pprof's trimming options, granularities, filters, sample indexes
# and -tagroot. Then --format svg and png through Graphviz's dot when it
# is installed, and the one-line error when it is not.
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

# pprof sorts the calls by weight, then by their ends' names: calls that tie
# on all three (two nodes of one name: nameless functions of different
# binaries or start lines, as --files makes them) come in Go's map order,
# and two runs of pprof differ. The edge lines of such a run (same value,
# same names, inline or residual or not) are sorted before comparing;
# nothing else is touched.
cat >norm.py <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
tie = re.compile(r'^N\d+ -> N\d+ \[label="([^"]*)".* tooltip="((?:[^"\\]|\\.)*)"')
out, run, key = [], [], None
for l in lines:
    m = tie.match(l)
    k = (m.group(1).split("\\n")[0], m.group(2).replace("...", "->")) if m else None
    if k is None or k != key:
        out += sorted(run)
        run = []
    key = k
    if k is None:
        out.append(l)
    else:
        run.append(l)
out += sorted(run)
sys.stdout.write("\n".join(out))
PY

# same PROFILE PSYM-OPTION...: psym graph against go tool pprof -dot with
# the same options in pprof's spelling.
same() {
	prof=$1
	shift
	ga=$(printf '%s\n' "$@" | sed 's/^--sample-index/-sample_index/; s/^--diff-base/-diff_base/;
		s/^--/-/' | tr '\n' ' ')
	"$PSYM" graph "$@" "$prof" >v.a 2>v.err
	echo $? >v.rc
	go tool pprof -dot -symbolize=none $ga "$prof" >v.b 2>/dev/null
	python3 norm.py v.a >v.an
	python3 norm.py v.b >v.bn
	if [ "$(cat v.rc)" = 0 ] && [ -s v.a ] && cmp -s v.an v.bn; then
		pass "graph $* = go tool pprof -dot -symbolize=none $ga ($prof)"
	else
		fail "graph $* = go tool pprof -dot -symbolize=none $ga ($prof)"
		diff v.an v.bn | head -8
		head -3 v.err
	fi
}

# ---- generated profiles: pprof's defaults (-nodecount=80
# -nodefraction=0.005 -edgefraction=0.001) unless given ----
for p in g1.pb g2.pb sys1.pb sys2.pb u1.pb u2.pb; do
	same $p
	same $p --lines
	same $p --files
	same $p --addresses
	same $p --sample-index=0
	same $p --nodecount=0 --nodefraction=0 --edgefraction=0
done
for p in g1.pb sys1.pb u1.pb; do
	same $p --nodecount=5
	same $p --nodefraction=0.05
	same $p --edgefraction=0.02
	same $p --nodefraction=0.1 --nodecount=3
	same $p --nodecount=12 --edgefraction=0.01
done
for p in sys1.pb sys2.pb; do
	same $p --focus=nginx
	same $p --ignore=libc
	same $p --hide=kernel --nodecount=10
	same $p --tagfocus=pid=1001 --lines
	same $p '--show=nginx|libc' --nodefraction=0.01
	same $p --tagroot=comm
	same $p --tagleaf=comm,pid --nodecount=20
done
same g1.pb --focus=fn_1 --hide=fn_2
same sys1.pb --diff-base=sys2.pb
same sys1.pb --diff-base=sys2.pb --normalize
same sys1.pb --base=sys2.pb
same sys1.pb --tagignore=comm=nginx --filefunctions
same g2.pb --diff-base=g1.pb --lines
"$PSYM" graph sys1.pb >s.dot
check "graph draws the comm labels as boxes under their nodes, as pprof" \
	grep -q '^N1_0 \[label = "comm:[^"]*" id="N1_0" fontsize=8 shape=box3d' s.dot
check "graph draws the bytes values as boxes too" grep -q 'shape=box3d tooltip=[^]]*]$' s.dot
check "graph marks inline calls" grep -q '\\n (inline)"' s.dot
"$PSYM" graph --nodefraction=0.05 --edgefraction=0.02 sys1.pb >s2.dot
check "graph's legend says what was dropped" sh -c \
	"grep -q 'Dropped [0-9]* nodes (cum <= ' s2.dot && grep -q 'Dropped [0-9]* edges (freq <= ' s2.dot"

# ---- names: pprof's ShortenFunctionName (Go paths and module versions,
# Java, C++ namespaces, templates, destructors) and its line breaks at
# "::" and ".", escapes for DOT; mangled names demangled first ----
cat >names <<'N'
github.com/foo/bar/v2.(*Server).Handle
github.com/foo/bar/v10/pkg.Func
github.com/foo/bar/v1/pkg.Func
example.com/x/v3/y.z
gopkg.in/yaml.v3.unmarshal
k8s.io/client-go/tools/cache.(*Reflector).ListAndWatch.func1
main.(*Map[...]).Get
pkg.Fn[...].func1
runtime.mallocgc
com.example.Foo.bar
com.example.Foo$Inner.run$1
org.pkg.Klass.<init>
org.pkg.Klass.<clinit>
java.lang.Thread.run(Thread.java:750)
(anonymous namespace)::Worker::run
std::vector<int, std::allocator<int> >::push_back
ns::inner::Class::~Class
ns::_Impl::method<int>
ns::__Impl::method<a<b>, c>::x
a::b::c
Foo::bar(int) const
operator new(unsigned long)
name "with" quotes\and\backslash
v8::internal::Heap::CollectGarbage
__libc_start_main
_ZN3foo3barEv
_ZNSt6vectorIiSaIiEE9push_backERKi
a/b/
a/b/c
-x/y.z
N
if command -v g++ >/dev/null && command -v nm >/dev/null; then
	# A seventh of libstdc++'s exported C++ names.
	nm -D --defined-only "$(g++ -print-file-name=libstdc++.so.6)" 2>/dev/null |
		awk '$3 ~ /^_Z/ { sub(/@.*/, "", $3); print $3 }' | sort -u | awk 'NR % 7 == 0' |
		head -400 >>names
fi
python3 "$top_srcdir/tests/gennames.py" names >n.txtpb && encode_txtpb n.txtpb n.pb
same n.pb
same n.pb --nodecount=0 --nodefraction=0 --edgefraction=0
for m in templates full; do
	"$PSYM" graph --demangle=$m --nodecount=0 n.pb >v.a
	go tool pprof -dot -symbolize=demangle=$m -nodecount=0 n.pb >v.b 2>/dev/null
	check "graph --demangle=$m = go tool pprof -dot -symbolize=demangle=$m ($(wc -l <names) names)" \
		cmp v.a v.b
done

# ---- a label per sample (a span ID): a label box per function and span,
# as pprof keeps them; past psym's cap (4,194,304 pairs) a one-line error ----
cat >genspans.py <<'PY'
import sys
n, depth = int(sys.argv[1]), 40
strings, index = [""], {"": 0}
def s(x):
    if x not in index:
        index[x] = len(strings)
        strings.append(x)
    return index[x]
out = ['sample_type { type: %d unit: %d }' % (s("samples"), s("count")),
       'mapping { id: 1 memory_start: 4096 memory_limit: 268435456 filename: %d }' % s("/bin/spans")]
for d in range(depth):
    out.append('function { id: %d name: %d system_name: %d }' % (d + 1, s("fn_%d" % d), s("fn_%d" % d)))
    out.append('location { id: %d mapping_id: 1 address: %d line { function_id: %d line: 1 } }'
               % (d + 1, 4096 + 16 * d, d + 1))
for i in range(n):
    stack = ", ".join(str(depth - k) for k in range(depth - i % 7))
    out.append('sample { location_id: [%s] value: [%d] label { key: %d str: %d } }'
               % (stack, 1 + i % 5, s("span"), s("s%06d" % i)))
out += ['string_table: "%s"' % x for x in strings]
print("\n".join(out))
PY
python3 genspans.py 20000 >sp.txtpb && encode_txtpb sp.txtpb sp.pb
same sp.pb
same sp.pb --nodefraction=0
python3 genspans.py 120000 >spbig.txtpb && encode_txtpb spbig.txtpb spbig.pb
expect_exit 2 "120,000 spans of 34-40 frames: over the cap, refused" "$PSYM" graph spbig.pb
"$PSYM" graph spbig.pb 2>spbig.err >/dev/null
check "the refusal is one line naming the label boxes" sh -c \
	"[ \$(wc -l <spbig.err) = 1 ] && grep -q 'too many for the graph.s label boxes' spbig.err"

# ---- a C program with inline functions, symbolized by psym ----
if command -v gcc >/dev/null && command -v objdump >/dev/null; then
	cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static inline unsigned mix(unsigned h, unsigned x) { return (h ^ x) * 16777619u + (h >> 7); }
static inline unsigned hash(const char *s) { unsigned h = 2166136261u; for (; *s; s++) h = mix(h, (unsigned char)*s); return h; }
__attribute__((noinline)) unsigned leaf_a(const char *s) { return hash(s) % 97; }
__attribute__((noinline)) unsigned leaf_b(unsigned v) { return mix(v, v >> 3) % 89; }
__attribute__((noinline)) unsigned middle(const char *s, int n) { unsigned t = 0; for (int i = 0; i < n; i++) t += leaf_a(s) + leaf_b((unsigned)i); return t; }
__attribute__((noinline)) unsigned other(int n) { unsigned t = 0; for (int i = 0; i < n; i++) t += leaf_b((unsigned)i * 7u); return t; }
int main(int argc, char **argv) { printf("%u %u\n", middle(argv[0], argc * 100), other(argc * 50)); return 0; }
C
	gcc -O2 -g -no-pie -o prog prog.c
	printf '00400000-00500000 r-xp 00000000 08:01 1 %s\n' "$T/prog" >prog.maps
	# Stacks from the program's own calls: each path from main through its
	# call sites (return addresses), ending at an instruction of the callee,
	# a count from the address so that the graph has weights of all sizes.
	objdump -d --no-show-raw-insn prog >prog.dis
	python3 - prog.dis >prog.stacks <<'PY'
import re, sys
fn, insns, calls = None, {}, {}
prev = None
for l in open(sys.argv[1]):
    m = re.match(r'^([0-9a-f]+) <([^>]+)>:', l)
    if m:
        fn = m.group(2); insns[fn] = []; calls[fn] = []; prev = None
        continue
    m = re.match(r'^ *([0-9a-f]+):\s+(\S+)\s*(.*)', l)
    if not m or fn is None:
        continue
    a = int(m.group(1), 16)
    if prev is not None:
        calls[fn].append((prev, a))
        prev = None
    insns[fn].append(a)
    c = re.search(r'call\s+[0-9a-f]+ <([^>+]+)>', l)
    if c and c.group(1) in insns or (c and c.group(1) in ("leaf_a", "leaf_b", "middle", "other")):
        prev = c.group(1)
ours = ("main", "middle", "other", "leaf_a", "leaf_b")
def walk(f, stack):
    for a in insns.get(f, []):
        n = (a * 2654435761 >> 7) % 23 + 1
        print(" ".join("0x%x" % x for x in [a] + stack) + " count=%d" % n)
    for callee, ret in calls.get(f, []):
        if callee in ours and len(stack) < 4:
            walk(callee, [ret] + stack)
walk("main", [])
PY
	python3 "$top_srcdir/tests/mkprofile.py" prog.maps prog.stacks >prog.txtpb &&
		encode_txtpb prog.txtpb prog.raw.pb &&
		"$PSYM" symbolize --offline prog.raw.pb -o prog.pb 2>sym.err
	if [ -s prog.pb ]; then
		same prog.pb
		same prog.pb --lines
		same prog.pb --nodecount=4
		same prog.pb --hide=mix
		same prog.pb --focus=leaf_b --edgefraction=0.05
		"$PSYM" graph prog.pb >c.dot
		check "the C program's graph shows its inline function" grep -q 'label="hash\\n' c.dot
	else
		fail "the C program's profile: $(head -2 sym.err)"
	fi
else
	echo "# no gcc or objdump: the C program's graph is not compared"
fi

# ---- a Go program: CPU profile with pprof labels, heap profile ----
mkdir -p gop
cat >gop/main.go <<'GO'
package main

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

var sink [][]byte

//go:noinline
func spinA(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

//go:noinline
func spinB(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s ^= i << 3
	}
	return s + spinA(n/4)
}

func busy(d time.Duration, f func(int) int) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		f(100000)
	}
}

//go:noinline
func alloc(n, size int) {
	for i := 0; i < n; i++ {
		sink = append(sink, make([]byte, size))
	}
}

func main() {
	runtime.MemProfileRate = 1
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	pprof.Do(context.Background(), pprof.Labels("worker", "a"), func(context.Context) {
		busy(400*time.Millisecond, spinA)
	})
	pprof.Do(context.Background(), pprof.Labels("worker", "b"), func(context.Context) {
		busy(400*time.Millisecond, spinB)
	})
	busy(200*time.Millisecond, spinB)
	pprof.StopCPUProfile()
	f.Close()
	for i, size := range []int{16, 100, 1000, 4096, 10000, 65536, 300000} {
		alloc(10+i, size)
	}
	h, _ := os.Create(os.Args[2])
	pprof.WriteHeapProfile(h)
	h.Close()
}
GO
if (cd gop && GO111MODULE=off go run main.go ../cpu.pb ../heap.pb) >go.log 2>&1; then
	same cpu.pb
	same cpu.pb --lines
	same cpu.pb --nodecount=6
	same cpu.pb --tagfocus=worker=b
	same cpu.pb --tagroot=worker
	same cpu.pb --focus=spinB --hide=runtime
	same cpu.pb --ignore=spinA --nodefraction=0.02
	same cpu.pb --sample-index=0
	same heap.pb
	same heap.pb --sample-index=alloc_space
	same heap.pb --sample-index=1 --nodecount=10
	same heap.pb --focus=alloc --lines
	# Untrimmed, a node has more than four sizes: pprof folds them into
	# four "min..max" boxes.
	same heap.pb --nodefraction=0
	same heap.pb --nodefraction=0 --sample-index=alloc_objects
	"$PSYM" graph --nodefraction=0 --sample-index=alloc_objects heap.pb >h.dot
	check "graph folds many sizes into ranges, as pprof" grep -q 'label = "[^"]*\.\.[^"]*" id="NN' h.dot
else
	fail "the Go program's profiles: $(head -3 go.log)"
fi

# ---- SVG and PNG through Graphviz's dot ----
if command -v dot >/dev/null; then
	"$PSYM" graph -o g.svg sys1.pb
	check "graph -o g.svg writes an SVG that parses as XML" \
		python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' g.svg
	# Each node's first label line (its function) is a text of the SVG.
	sed -n 's/^N[0-9]* \[label="\([^\\"]*\)\\n.*/\1/p' s.dot >names
	n_missing=0
	while read -r name; do
		grep -qF ">$name</text>" g.svg || n_missing=$((n_missing + 1))
	done <names
	check "the SVG shows every function of the DOT ($(wc -l <names) nodes)" \
		sh -c "[ $n_missing = 0 ] && [ $(wc -l <names) -gt 10 ] && grep -q '<svg' g.svg"
	"$PSYM" graph --format svg sys1.pb >g2.svg
	check "--format svg to stdout: the same SVG" cmp g.svg g2.svg
	"$PSYM" graph --format=png -o g.out sys1.pb
	check "--format png writes a PNG" sh -c "head -c 8 g.out | od -An -c | grep -q 'P   N   G'"
else
	echo "# no Graphviz dot: SVG and PNG are not drawn"
fi
# Without dot: one line, exit 3, nothing left behind.
mkdir -p nodot
ln -sf "$(command -v sh)" nodot/sh
PATH=$T/nodot "$PSYM" graph -o none.svg sys1.pb 2>nodot.err
echo $? >nodot.rc
check "no dot: exit 3 with one line saying so" sh -c \
	"[ \$(cat nodot.rc) = 3 ] && [ \$(wc -l <nodot.err) = 1 ] && grep -q \"'dot' not found\" nodot.err"
check "no dot: no output file" test ! -e none.svg
expect_exit 2 "an unknown --format is refused" "$PSYM" graph --format=pdf sys1.pb
expect_exit 2 "--format is graph's only" "$PSYM" tree --format=svg sys1.pb
"$PSYM" graph -o g.dot sys1.pb
"$PSYM" graph sys1.pb >g2.dot
check "-o FILE.dot writes DOT, as stdout" cmp g.dot g2.dot
finish
