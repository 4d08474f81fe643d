#!/bin/sh
# Java legacy profiles (issue 43 section 5): the Java CPU, heapz and
# contentionz profiles go tool pprof reads, psym reads too, with their
# functions, files and lines. Inputs: pprof's own test files, from Debian's
# golang-github-google-pprof-dev (fetched here, not kept in the tree).
# Oracles: (1) pprof's profile package, built from that package's source,
# prints psym's profile exactly as pprof's expected dump of the Java file
# (testdata/java.*.string: every sample, zero ones too, every location,
# function, file and line); (2) go tool pprof -raw is the same for the
# Java file and psym's profile; (3) psym top / traces / tree / peek print
# what go tool pprof -top / -traces / -tree / -peek print on the Java file.
. "$top_srcdir/tests/lib.sh"
need go "golang-go: go tool pprof"
pkg=golang-github-google-pprof-dev
D=$(pprof_testdata 2>pprof.why) || skip "pprof's test data: $(cat pprof.why)"
gocode=${D%/src/github.com/google/pprof/profile/testdata}
[ -f "$D/java.cpu" ] || skip "$pkg has no profile/testdata/java.cpu"

# pdump FILE: pprof's profile package's String() of FILE (a legacy file or a
# pprof proto): the form of pprof's .string files.
mkdir -p gopath/src/pdump
cat >gopath/src/pdump/main.go <<'GO'
package main

import (
	"fmt"
	"os"

	"github.com/google/pprof/profile"
)

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	p, err := profile.Parse(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Print(p.String())
}
GO
if ! (cd gopath/src/pdump && GO111MODULE=off GOPATH="$T/gopath:$gocode" GOCACHE="$T/gocache" \
	GOFLAGS= timeout 600 go build -o "$T/pdump" .) >gobuild.log 2>&1; then
	fail "building pprof's profile package from $pkg: $(tail -3 gobuild.log)"
	finish
fi

for f in java.cpu java.heap java.contention; do
	rc=0
	"$PSYM" check "$D/$f" >/dev/null 2>"$f.err" || rc=$?
	check "$f: psym check reads it (exit $rc) $(cat "$f.err")" [ "$rc" = 0 ]
	if ! "$PSYM" symbolize -q --offline --no-cache "$D/$f" -o "$f.pb" 2>"$f.err"; then
		fail "$f: psym symbolize failed: $(cat "$f.err")"
		continue
	fi
	# (1) pprof's own expected dump.
	./pdump "$f.pb" >"$f.dump" 2>&1
	check "$f: pprof's profile package reads psym's profile as $f.string ($(grep -c . "$D/$f.string") lines)" \
		cmp -s "$D/$f.string" "$f.dump"
	diff "$D/$f.string" "$f.dump" | head -5
	# (2) go tool pprof -raw.
	go tool pprof -raw "$D/$f" >"$f.want" 2>/dev/null
	go tool pprof -raw "$f.pb" >"$f.got" 2>/dev/null
	check "$f: go tool pprof -raw: psym's profile = the Java file ($(grep -c . "$f.want") lines)" \
		sh -c "[ -s $f.want ] && cmp -s $f.want $f.got"
	diff "$f.want" "$f.got" | head -5
	# (3) the reports, on the Java file itself.
	for view in top traces tree "peek com.example.function0"; do
		set -- $view
		"$PSYM" "$@" "$D/$f" >"$f.$1.psym" 2>&1
		go tool pprof -"$1" ${2:+"$2"} -symbolize=none "$D/$f" >"$f.$1.go" 2>/dev/null
		check "$f: psym $1 = go tool pprof -$1 -symbolize=none ($(grep -c . "$f.$1.go") lines)" \
			sh -c "[ -s $f.$1.go ] && cmp -s $f.$1.go $f.$1.psym"
		diff "$f.$1.go" "$f.$1.psym" | head -5
	done
done
# Symbolizing keeps the Java names and says so: nothing "left as addresses".
"$PSYM" symbolize --offline --no-cache "$D/java.heap" -o heap2.pb 2>sum.err
check "psym symbolize: the Java heap's 119 locations are kept, not left as addresses" \
	sh -c "grep -q '119/119 locations symbolized (119 kept' sum.err && ! grep -q 'no mapping' sum.err"
cat sum.err
# The Java names reach the reports: a function and its file:line.
"$PSYM" traces "$D/java.contention" >tr 2>&1
check "contention traces name com.example.function03 at source.java:3" \
	grep -q "com.example.function03" tr
"$PSYM" top --lines "$D/java.cpu" >tl 2>&1
check "psym top --lines shows a Java file:line (source.java:6)" grep -q "source.java:6" tl

# Edge cases of the symbol section (hand-made, the fuzz seeds): pprof's
# package prints psym's profile as it prints the Java file.
printf -- '--- contentionz 1 ---\nformat = java\nresolution = microseconds\nsampling period = 010\n' >edge
printf '  3 2 @ 0x00000001 0x00000002 0x00000001\n  1 011 @ 0x00000003 0x0000000a 0x00000004\n  5 1 @\n\n' >>edge
printf ' 0x00000001 a.B.run (B.java:12)\n 0x00000002 a.B.main (B.java:-1)\n' >>edge
printf ' 0x00000003 a.C.run (/usr/lib/jvm/lib/libjvm.so)\n 0x00000004 Interpreter generated stub/JIT\n' >>edge
printf ' 0x00000001 a.B.run (Other.java:13)\n 0x0000000A  two  spaces  (a (b:c):7)\n 0x00000005 GC' >>edge
"$PSYM" symbolize -q --offline --no-cache edge -o edge.pb 2>edge.err
./pdump edge >edge.want 2>&1
./pdump edge.pb >edge.got 2>&1
check "edge cases (duplicate symbol lines, paths, stubs, negative lines, octal): same profile" \
	sh -c "grep -q STUB edge.want && cmp -s edge.want edge.got"
diff edge.want edge.got | head -5
finish
