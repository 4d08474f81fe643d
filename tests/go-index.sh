#!/bin/sh
# Go binaries without DWARF (issue 40) in the index and the answer cache:
# answers from .gopclntab are kept as DWARF answers are. A Go program built
# with -ldflags='-s -w' (non-PIE and PIE; the binaries have only a Go build
# ID) is answered cold, then by the index its first run built in the
# background (--index-store), and a profile of it is symbolized twice with
# the answer cache (XDG_CACHE_HOME). Each warm answer is checked against
# go tool addr2line on the stripped build (every tenth instruction) and,
# whole inline chains, against llvm-symbolizer on the DWARF build
# (compare-go.py), and equals the cold run's.
. "$top_srcdir/tests/lib.sh"
need go "Debian golang-go"
need llvm-symbolizer
need objdump
need python3
need protoc
CMP=$top_srcdir/tests/compare-go.py

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

type Acc struct{ sum int; items []string }

func (a *Acc) Add(v int)        { a.sum += v }
func (a *Acc) AddName(s string) { a.items = append(a.items, strings.ToUpper(s)) }

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func sq(x int) int    { return x * x }
func inc(x int) int   { return x + 1 }
func twice(x int) int { return inc(inc(x)) }
func deep(x int) int  { return twice(sq(x)) + inc(x) }

func main() {
	var wg sync.WaitGroup
	var mu sync.Mutex
	acc := &Acc{}
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			mu.Lock()
			acc.Add(deep(i))
			acc.AddName(fmt.Sprint(i))
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	sort.Strings(acc.items)
	fmt.Println(strings.Join(Map(acc.items, func(s string) string { return s + "!" }), ","),
		acc.sum, len(os.Args))
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
check "the stripped builds have only a Go build ID, no DWARF, no .symtab" \
	sh -c '! readelf -SnW stripped pie | grep -q "\.debug_\|\.symtab\|GNU_BUILD_ID" &&
		readelf -nW stripped | grep -q "GO BUILDID"'

tenth() {
	objdump -d --no-show-raw-insn -j .text "$1" |
		sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' | awk 'NR % 10 == 0'
}
# The index: a cold run (which builds the index in the background), then
# one the index answers alone.
for pair in "stripped dwarf" "pie piedwarf"; do
	set -- $pair
	tenth "$1" >"$1.insns"
	tenth "$2" | cmp -s - "$1.insns" || { fail "$1 and $2 have different code"; continue; }
	"$PSYM" addr --json --explain --index-store "S$1" -e "$1" <"$1.insns" >"$1.cold" \
		2>"$1.cold.err"
	expect_exit 0 "$1: cold run" sh -c "exit $?"
	check "$1: --explain of the cold run: symbols from .gopclntab (Go 1.18-1.19 layout)" \
		grep -q "'$1': symbols from .gopclntab (Go 1.18-1.19 layout)" "$1.cold.err"
	for _ in $(seq 150); do
		ls "S$1"/*/*.psymidx >/dev/null 2>&1 && break
		sleep 0.2
	done
	check "$1: the cold run built an index of the Go build ID's key in the background" \
		"$PSYM" index --verify "S$1"/67/676f*.psymidx
	"$PSYM" addr --json --explain --index-store "S$1" --no-index-build -e "$1" \
		<"$1.insns" >"$1.warm" 2>"$1.warm.err"
	expect_exit 0 "$1: warm run" sh -c "exit $?"
	check "$1: --explain of the second run: answers from the index" \
		grep -q "answers from the index '.*676f" "$1.warm.err"
	check "$1: the index's answers are the cold run's" cmp -s "$1.warm" "$1.cold"
	llvm-symbolizer --output-style=JSON -e "$2" <"$1.insns" >"$1.llvm"
	g=-
	if [ "$1" = stripped ]; then # go tool addr2line 1.19 answers ? on a PIE
		go tool addr2line "$1" <"$1.insns" >"$1.goa"
		g=$1.goa
	fi
	python3 "$CMP" "$1.warm" "$1.llvm" "$g" "$1.insns" >"$1.cmp"
	rc=$?
	sed "s/^/$1 from the index: /" "$1.cmp"
	expect_exit 0 "$1 from the index: as go tool addr2line and llvm-symbolizer on the DWARF build" \
		sh -c "exit $rc"
done

# The answer cache: a profile of both (the PIE at a random base) symbolized
# twice; the second run answers from the cache.
python3 - stripped.insns pie.insns "$PWD" >stacks <<'PY'
import sys
ins = [int(l, 16) for l in open(sys.argv[1])]
pins = [int(l, 16) for l in open(sys.argv[2])]
base, lo = 0x7f1234000000, 0x400000
print("mapping %x %x 0 %s/stripped" % (lo, max(ins) + 0x1000, sys.argv[3]))
print("mapping %x %x 0 %s/pie" % (base, base + max(pins) + 0x1000 - lo, sys.argv[3]))
for a in ins:
    print("%x" % a)
for a in pins:
    print("%x" % (base + a - lo))
PY
: >maps.empty
python3 "$top_srcdir/tests/mkprofile.py" maps.empty stacks >p.txtpb && encode_txtpb p.txtpb p.pb
mkdir -p xdg
for run in 1 2; do
	XDG_CACHE_HOME=$PWD/xdg timeout 600 "$PSYM" symbolize --offline --no-index --explain p.pb \
		-o "s$run.pb" 2>"sym$run.log"
	expect_exit 0 "symbolize, run $run" sh -c "exit $?"
done
check "the first run explains .gopclntab" \
	grep -q "symbols from .gopclntab (Go 1.18-1.19 layout)" sym1.log
check "the first run kept the answers in the cache" \
	sh -c 'ls xdg/psym/symbols/v*/676f*.psc | grep -c . | grep -qx 2'
check "the second run: both binaries from the symbol cache" \
	sh -c '[ "$(grep -c "from the symbol cache" sym2.log)" = 2 ]'
check "the second run: .gopclntab not read" sh -c '! grep -q "gopclntab" sym2.log'
check "the second run's profile is the first's" cmp -s s2.pb s1.pb
# The cached profile's locations as psym addr --json lines, per binary.
decode_pb s2.pb >s2.txt
python3 - s2.txt <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
strings = [eval(s) if s != '""' else "" for s in re.findall(r'^string_table: (".*")$', text, re.M)]
def field(block, name):
    m = re.search(r"^  %s: (\d+)$" % name, block, re.M)
    return int(m.group(1)) if m else 0
funcs, maps, locs, out = {}, {}, [], {}
for kind, block in re.findall(r"^(function|mapping|location) \{\n(.*?)^\}$", text, re.S | re.M):
    if kind == "function":
        funcs[field(block, "id")] = (strings[field(block, "name")],
                                     strings[field(block, "filename")])
    elif kind == "mapping":
        maps[field(block, "id")] = field(block, "memory_start")
    else:
        locs.append(block)
for block in locs:
    mid, a = field(block, "mapping_id"), field(block, "address")
    name = "stripped" if maps[mid] == 0x400000 else "pie"
    v = a if name == "stripped" else a - maps[mid] + 0x400000
    # (a line 0, padding between functions, is not written in the text form)
    sym = [{"FunctionName": funcs[int(f)][0], "FileName": funcs[int(f)][1], "Line": int(l or 0)}
           for f, l in re.findall(r"function_id: (\d+)(?:\s*line: (\d+))?", block)]
    out.setdefault(name, []).append({"Address": "0x%x" % v, "Symbol": sym})
for name, rows in out.items():
    with open(name + ".cached", "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
PY
for b in stripped pie; do
	g=-
	[ $b = stripped ] && g=$b.goa
	python3 "$CMP" "$b.cached" "$b.llvm" "$g" "$b.insns" >"$b.ccmp"
	rc=$?
	sed "s/^/$b from the cache: /" "$b.ccmp"
	expect_exit 0 "$b from the cache: as go tool addr2line and llvm-symbolizer on the DWARF build" \
		sh -c "exit $rc"
done
finish
