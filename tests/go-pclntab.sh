#!/bin/sh
# Go binaries without DWARF (issue 40): psym answers from .gopclntab.
# A program with goroutines, closures, generics, pointer-receiver methods
# and inlining is built with Debian's Go three ways: with DWARF, with
# -ldflags='-s -w', and as a PIE with -s -w (and its DWARF twin). For every
# instruction of .text, psym's answer on the stripped build is compared with
# llvm-symbolizer on the DWARF build (whole inline chains) and with go tool
# addr2line on the stripped build (outer function, file:line); go tool
# addr2line answers ? on a PIE, so there the DWARF twin is the only oracle.
# Then Debian's own stripped compiler, every instruction, against go tool
# addr2line.
# A hand-made profile of the stripped binaries (the PIE mapped at a random
# base) is symbolized and its locations checked against llvm-symbolizer.
. "$top_srcdir/tests/lib.sh"
need go "Debian golang-go"
need llvm-symbolizer
need objdump
need python3
need protoc

mkdir -p gop
cat >gop/main.go <<'GO'
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

type Acc struct {
	sum   int
	items []string
}

func (a *Acc) Add(v int) { a.sum += v }

func (a *Acc) AddName(s string) {
	a.items = append(a.items, strings.ToUpper(s))
}

func (a Acc) Total() int { return a.sum + len(a.items) }

type Number interface{ ~int | ~int64 | ~float64 }

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func Sum[T Number](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func sq(x int) int     { return x * x }
func inc(x int) int    { return x + 1 }
func twice(x int) int  { return inc(inc(x)) }
func deep(x int) int   { return twice(sq(x)) + inc(x) }
func deeper(x int) int { return deep(x) * deep(x+1) }

func worker(id int, in <-chan int, out chan<- int, wg *sync.WaitGroup) {
	defer wg.Done()
	acc := &Acc{}
	for v := range in {
		acc.Add(deeper(v))
		acc.AddName(fmt.Sprint(id))
	}
	out <- acc.Total()
}

func main() {
	in := make(chan int)
	out := make(chan int, 8)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go worker(i, in, out, &wg)
	}
	for i := 0; i < 1000; i++ {
		in <- i
	}
	close(in)
	wg.Wait()
	close(out)
	var totals []int
	for t := range out {
		totals = append(totals, t)
	}
	sort.Ints(totals)
	strs := Map(totals, func(t int) string { return fmt.Sprintf("%d", t) })
	fl := Map(totals, func(t int) float64 { return float64(t) / 2 })
	fmt.Println(strings.Join(strs, ","), Sum(totals), Sum(fl))
	if len(os.Args) > 1 {
		buf := make([]byte, 1)
		os.Stdin.Read(buf)
	}
}
GO
GOCACHE=$T/gocache GOPATH=$T/gopath GO111MODULE=off GOFLAGS=-mod=mod
export GOCACHE GOPATH GO111MODULE GOFLAGS
gobuild() {
	out=$1
	shift
	(cd gop && timeout 600 go build "$@" -o "../$out" main.go) 2>>go.err
}
gobuild dwarf && gobuild stripped -ldflags='-s -w' &&
	gobuild piedwarf -buildmode=pie && gobuild pie -buildmode=pie -ldflags='-s -w' ||
	skip "go cannot build here: $(head -2 go.err)"
check "the stripped builds have no DWARF and no .symtab" \
	sh -c '! readelf -S stripped pie | grep -q "\.debug_\|\.symtab"'

insns() {
	objdump -d --no-show-raw-insn -j .text "$1" | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p'
}
CMP=$top_srcdir/tests/compare-go.py

# every instruction: stripped vs the DWARF build and go tool addr2line
for pair in "stripped dwarf goa" "pie piedwarf -"; do
	set -- $pair
	insns "$1" >"$1.insns"
	insns "$2" | cmp -s - "$1.insns" || { fail "$1 and $2 have different code"; continue; }
	timeout 600 "$PSYM" addr --json -e "$1" <"$1.insns" >"$1.psym" 2>"$1.err"
	expect_exit 0 "$1: psym addr answers every instruction" sh -c "exit $?"
	llvm-symbolizer --output-style=JSON -e "$2" <"$1.insns" >"$1.llvm"
	g=-
	if [ "$3" = goa ]; then
		go tool addr2line "$1" <"$1.insns" >"$1.goa"
		g=$1.goa
	fi
	python3 "$CMP" "$1.psym" "$1.llvm" "$g" "$1.insns" >"$1.cmp"
	rc=$?
	cat "$1.cmp"
	expect_exit 0 "$1: >= 99.5% of inline chains, every function" sh -c "exit $rc"
done

# A real distro binary: Debian's stripped Go compiler (golang-go), every
# instruction of its .text against go tool addr2line.
GC=$(go env GOTOOLDIR 2>/dev/null)/compile
if [ -x "$GC" ] && ! readelf -S "$GC" | grep -q '\.debug_info'; then
	insns "$GC" >gc.insns
	timeout 900 "$PSYM" addr --json -e "$GC" <gc.insns >gc.psym 2>gc.err
	expect_exit 0 "Debian's compile: psym addr answers every instruction ($(wc -l <gc.insns))" \
		sh -c "exit $?"
	go tool addr2line "$GC" <gc.insns >gc.goa
	python3 "$CMP" gc.psym - gc.goa gc.insns >gc.cmp
	rc=$?
	cat gc.cmp
	expect_exit 0 "Debian's compile: every function and file:line as go tool addr2line's" \
		sh -c "exit $rc"
	rm -f gc.insns gc.psym gc.goa
else
	echo "note: no stripped compile in $(go env GOTOOLDIR 2>/dev/null): distro-binary check skipped"
fi

# --explain names the source and its layout
"$PSYM" addr --explain -e stripped 0x$(head -1 stripped.insns | cut -c3-) >/dev/null 2>explain.txt
check "--explain: symbols from .gopclntab (Go 1.18-1.19 layout)" \
	grep -q "symbols from .gopclntab (Go 1.18-1.19 layout)" explain.txt

# the section renamed (its name dropped): found by its header in a Go
# binary; removed: said so
a=$(grep -m1 . stripped.insns)
objcopy --rename-section .gopclntab=.zz stripped renamed
"$PSYM" addr -e renamed "$a" >renamed.out 2>&1
"$PSYM" addr -e stripped "$a" >want.out 2>&1
check "a renamed .gopclntab is found by its header" cmp -s renamed.out want.out
objcopy --remove-section .zz renamed removed
"$PSYM" addr -e removed "$a" >removed.out 2>removed.err
check "no table: 'a Go binary, but no .gopclntab found', in one line" \
	sh -c "[ \$(wc -l <removed.err) = 1 ] && grep -q 'removed: a Go binary, but no .gopclntab found' removed.err"

# a damaged table: a huge function count, a sub-table offset past the end.
# One warning naming the file and the problem, no answer, bounded memory.
off=$(readelf -SW stripped | sed -n 's/.*\] \.gopclntab  *[A-Z_]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
vlimit=1000000
if ldd "$PSYM" 2>/dev/null | grep -q -e libasan -e libubsan; then
	vlimit=unlimited # ASan reserves terabytes of address space
fi
if [ -n "$off" ]; then
	for bad in "nfunc 8 function count larger than the table" \
		"pctab 56 sub-table offsets out of order or past its end"; do
		set -- $bad
		cp stripped "bad-$1"
		printf '\377\377\377\177' | dd of="bad-$1" bs=1 seek=$((0x$off + $2)) conv=notrunc 2>/dev/null
		name=$1
		shift 2
		(ulimit -v $vlimit; timeout 300 "$PSYM" addr -e "bad-$name" 0x$(head -1 stripped.insns | cut -c3-)) \
			>"bad-$name.out" 2>"bad-$name.err"
		rc=$?
		check "damaged $name: no crash (exit $rc)" test "$rc" -lt 128
		check "damaged $name: one line naming the file and the problem" \
			sh -c "[ \$(wc -l <bad-$name.err) = 1 ] && grep -q \"bad-$name: .gopclntab: $*\" bad-$name.err"
		check "damaged $name: no answer" grep -qx '??' "bad-$name.out"
	done
else
	fail "no .gopclntab section in the stripped build"
fi

# a profile of the stripped binaries: the PIE at a random base
python3 - stripped.insns pie.insns "$PWD" >stacks <<'PY'
import random, sys
r = random.Random(40)
ins = [int(l, 16) for l in open(sys.argv[1])]
pins = [int(l, 16) for l in open(sys.argv[2])]
base, lo = 0x7f1234000000, 0x400000
print("mapping %x %x 0 %s/stripped" % (lo, max(ins) + 0x1000, sys.argv[3]))
print("mapping %x %x 0 %s/pie" % (base, base + max(pins) + 0x1000 - lo, sys.argv[3]))
for a in r.sample(ins, 2000):
    print("%x" % a)
for a in r.sample(pins, 2000):
    print("%x" % (base + a - lo))
PY
: >maps.empty
python3 "$top_srcdir/tests/mkprofile.py" maps.empty stacks >p.txtpb && encode_txtpb p.txtpb p.pb
timeout 600 "$PSYM" symbolize --offline --no-cache p.pb -o s.pb 2>sym.log
expect_exit 0 "symbolize: the profile of the stripped binaries" sh -c "exit $?"
decode_pb s.pb >s.txt
python3 - s.txt dwarf piedwarf "$CMP" <<'PY' >prof.cmp
import re, subprocess, sys
sys.argv, (txt, dwarf, piedwarf, cmp) = sys.argv[:1], sys.argv[1:]
exec(compile(open(cmp).read().split("\npsym = load(")[0], cmp, "exec"))
text = open(txt).read()
strings = [eval(s) if s != '""' else "" for s in re.findall(r'^string_table: (".*")$', text, re.M)]
def field(block, name):
    m = re.search(r"^  %s: (\d+)$" % name, block, re.M)
    return int(m.group(1)) if m else 0
funcs, maps, locs = {}, {}, []
for kind, block in re.findall(r"^(function|mapping|location) \{\n(.*?)^\}$", text, re.S | re.M):
    if kind == "function":
        funcs[field(block, "id")] = (strings[field(block, "name")],
                                     strings[field(block, "filename")])
    elif kind == "mapping":
        maps[field(block, "id")] = field(block, "memory_start")
    else:
        locs.append((field(block, "mapping_id"), field(block, "address"),
                     re.findall(r"function_id: (\d+)\s*line: (\d+)", block)))
locs = [(mid, a if maps[mid] == 0x400000 else a - maps[mid] + 0x400000,
         [(generic(funcs[int(f)][0]), funcs[int(f)][1], int(l)) for f, l in lines])
        for mid, a, lines in locs]
agree = known = 0
for binary, mid in ((dwarf, 1), (piedwarf, 2)):
    mine = [l for l in locs if l[0] == mid]
    out = subprocess.run(["llvm-symbolizer", "--output-style=JSON", "-e", binary],
                         input="\n".join("0x%x" % v for _, v, _ in mine), capture_output=True,
                         text=True).stdout.splitlines()
    for (_, v, lines), o in zip(mine, out):
        want = frames(json.loads(o), True)
        if not want:
            continue
        known += 1
        if want == lines:
            agree += 1
        else:
            print("0x%x: psym %s llvm %s" % (v, lines, want))
print("profile: %d locations, %d of %d with a DWARF function agree" % (len(locs), agree, known))
sys.exit(0 if len(locs) >= 3500 and known >= 3000 and agree * 1000 >= known * 995 else 1)
PY
rc=$?
tail -1 prof.cmp
expect_exit 0 "symbolize: locations agree with llvm-symbolizer on the DWARF builds" sh -c "exit $rc"
finish
