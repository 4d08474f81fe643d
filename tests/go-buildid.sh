#!/bin/sh
# Go build IDs (issue 40): a Go binary built with -ldflags='-s -w' has no
# GNU build ID, only Go's own note (.note.go.buildid). A mapping of it
# records "go:" + the Go build ID (buildid.h), which psym checks as it
# checks GNU build IDs. The oracle for the ID is `go tool buildid`; for the
# symbol, `go tool addr2line`.
# (a) psym reads the ID go tool buildid prints: psym-collect records it for
#     a running program (when BPF works here), and the mismatch message
#     names it; (b) a hand-made profile carrying the right go: ID
#     symbolizes from the binary found by path, one carrying another
#     build's is refused with the GNU mismatch's message and exit statuses
#     (a C program with a wrong GNU build ID alongside); --main-binary
#     matches a Go binary by its Go build ID; (c) no go: ID (nor
#     any part of it) becomes a path in the answer cache, the index store or
#     a debug dir's .build-id tree; (d) damaged notes (a lying or huge
#     size, bytes that are not an ID's, a NUL inside) are refused as "no
#     build ID", never a crash.
. "$top_srcdir/tests/lib.sh"
need go "Debian golang-go"
need gcc
need readelf
need python3
need protoc

GOCACHE=$T/gocache GOPATH=$T/gopath GO111MODULE=off GOFLAGS=
HOME=$T
export GOCACHE GOPATH GO111MODULE GOFLAGS HOME
unset DEBUGINFOD_URLS

# spin SECONDS: busy for that long (for the collector), else returns.
mkdir -p g1 g2
cat >g1/main.go <<'GO'
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

//go:noinline
func burn(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

func main() {
	secs := 0
	if len(os.Args) > 1 {
		secs, _ = strconv.Atoi(os.Args[1])
	}
	end := time.Now().Add(time.Duration(secs) * time.Second)
	s := burn(1000)
	for time.Now().Before(end) {
		s += burn(1 << 20)
	}
	fmt.Println("VERSION-ONE", s)
}
GO
sed 's/VERSION-ONE/VERSION-TWO/' g1/main.go >g2/main.go
for v in g1 g2; do
	(cd $v && timeout 600 go build -ldflags='-s -w' -o ../$v.bin main.go) 2>>go.err ||
		{ cat go.err; fail "go build $v"; finish; exit; }
done
for v in g1 g2; do
	if readelf -n $v.bin | grep -q "Build ID:"; then
		# This Go's linker adds a GNU build ID: ask for none.
		(cd $v && go build -ldflags='-s -w -B none' -o ../$v.bin main.go) 2>>go.err
	fi
done
check "fixtures: no GNU build ID in the -s -w builds" \
	sh -c '! readelf -n g1.bin | grep -q "Build ID:" && ! readelf -n g2.bin | grep -q "Build ID:"'
check "fixtures: a Go build ID note in the -s -w builds" sh -c 'readelf -n g1.bin | grep -q "GO BUILDID"'
id1=$(go tool buildid g1.bin)
id2=$(go tool buildid g2.bin)
check "fixtures: the two builds' Go build IDs differ" test -n "$id1" -a -n "$id2" -a "$id1" != "$id2"

# A C program with a GNU build ID, for the GNU mismatch to compare with.
printf 'int main(void) { return 0; }\n' >c.c
gcc -O1 -fno-pie -no-pie -Wl,--build-id -o c.bin c.c

# prof OUT PATH BUILDID ADDR: one sample at ADDR in a non-PIE mapping of PATH.
prof() {
	cat >"$1.txtpb" <<EOF
sample_type { type: 1 unit: 2 }
sample { location_id: [1] value: 1 }
mapping { id: 1 memory_start: 4194304 memory_limit: 16777216 file_offset: 0 filename: 3 build_id: 4 }
location { id: 1 mapping_id: 1 address: $(($4)) }
string_table: ""
string_table: "samples"
string_table: "count"
string_table: "$2"
string_table: "$3"
EOF
	encode_txtpb "$1.txtpb" "$1.pb"
}
entry() { readelf -hW "$1" | sed -n 's/.*Entry point address: *//p'; }
e1=$(entry g1.bin)
want_fn=$(echo "$e1" | go tool addr2line g1.bin | head -1)
check "oracle: go tool addr2line names the entry point" test -n "$want_fn" -a "$want_fn" != "?"

mkdir -p cache dbg

# (e) psym addr --build-id go:ID checks the binary -e names; alone it is
# refused with what to do instead (nothing is keyed by a Go build ID).
out=$("$PSYM" addr --no-index -e g1.bin --build-id "go:$id1" "$e1" 2>addr-right.err | head -1)
check "addr -e --build-id go:ID (right): named as go tool addr2line names it" \
	test "$out" = "$want_fn"
"$PSYM" addr --no-index -e g1.bin --build-id "go:$id2" "$e1" >/dev/null 2>addr-wrong.err
expect_exit 2 "addr -e --build-id go:ID (wrong): refused" sh -c "exit $?"
check "addr --build-id go:ID (wrong): the mismatch message with both IDs" \
	grep -q "build ID mismatch: rejected: build ID go:$id1, want go:$id2" addr-wrong.err
"$PSYM" addr --build-id "go:$id1" "$e1" >/dev/null 2>addr-alone.err
expect_exit 2 "addr --build-id go:ID alone: a usage error" sh -c "exit $?"
check "addr --build-id go:ID alone: says to name the binary with -e" \
	grep -q "is a Go build ID: no store is keyed by one.*name the binary with -e FILE" \
	addr-alone.err
"$PSYM" addr -e g1.bin --build-id "go:a b" "$e1" >/dev/null 2>addr-bad.err
expect_exit 2 "addr --build-id 'go:a b' (not a Go build ID): a usage error" sh -c "exit $?"
check "addr --build-id 'go:a b': 'is not a build ID'" grep -q "is not a build ID" addr-bad.err
prof right "$T/g1.bin" "go:$id1" "$e1"
prof wrong "$T/g1.bin" "go:$id2" "$e1"
prof gnuwrong "$T/c.bin" "0000000000000000000000000000000000000000" "$(entry c.bin)"
SYM="$PSYM symbolize --offline --cache $T/cache --debug-dir $T/dbg"

# (b) the right Go build ID: the binary is used.
timeout 300 $SYM right.pb -o right.out.pb 2>right.log
expect_exit 0 "right go: ID: symbolize exits 0" sh -c "exit $?"
"$PSYM" show right.out.pb >right.show 2>&1
check "right go: ID: the entry point is named as go tool addr2line names it ($want_fn)" \
	grep -q " M=1 $want_fn " right.show
timeout 300 $SYM --explain right.pb -o right2.out.pb 2>right.explain
check "right go: ID: --explain says the build ID matches" \
	grep -q "tried '$T/g1.bin': used (build ID matches)" right.explain

# (a) + (b) another build's Go build ID: refused as a GNU mismatch is,
# naming the ID psym read, which is go tool buildid's.
timeout 300 $SYM wrong.pb -o wrong.out.pb 2>wrong.log
rc_go=$?
timeout 300 $SYM gnuwrong.pb -o gnuwrong.out.pb 2>gnuwrong.log
rc_gnu=$?
check "wrong go: ID: refused with the mismatch message naming go tool buildid's ID" \
	grep -q "$T/g1.bin: build ID mismatch: rejected: build ID go:$id1, want go:$id2" wrong.log
check "wrong GNU ID (control): the same message" grep -q "build ID mismatch: rejected: build ID" gnuwrong.log
check "wrong go: ID: exit status $rc_go as for the GNU mismatch ($rc_gnu)" test "$rc_go" = "$rc_gnu"
timeout 300 $SYM --strict -q wrong.pb -o wrong2.out.pb 2>/dev/null
rc_go=$?
timeout 300 $SYM --strict -q gnuwrong.pb -o gnuwrong2.out.pb 2>/dev/null
rc_gnu=$?
check "wrong go: ID, --strict: exit status $rc_go as for the GNU mismatch ($rc_gnu)" \
	test "$rc_go" = "$rc_gnu" -a "$rc_go" != 0
"$PSYM" show wrong.out.pb >wrong.show 2>&1
check "wrong go: ID: the location stays unsymbolized" sh -c "! grep -q ' M=1 $want_fn' wrong.show"

# --main-binary: a profile whose mapping's file is gone takes the Go binary
# of the same build, and refuses another build's (exit 2, naming both).
prof moved "/gone/g1.bin" "go:$id1" "$e1"
timeout 300 $SYM --main-binary g1.bin moved.pb -o moved.out.pb 2>moved.log
expect_exit 0 "--main-binary of the same Go build: exit 0" sh -c "exit $?"
"$PSYM" show moved.out.pb >moved.show 2>&1
check "--main-binary of the same Go build: the entry point is named" grep -q " M=1 $want_fn " moved.show
expect_exit 2 "--main-binary of another Go build is refused" \
	timeout 300 $SYM --main-binary g2.bin moved.pb -o moved2.out.pb 2>moved2.log
check "--main-binary of another Go build: both Go build IDs named" \
	grep -q "has build ID go:$id2, but no mapping of the profile has it.*has build ID go:$id1" moved2.log

# (c) no go: ID in a path: the cache (answers and index store) and the
# debug dir hold nothing named after it, while the run did answer.
find cache dbg >paths.txt
first=${id1%%/*}
check "cache and debug dir: no path names a go: ID or a part of one" \
	sh -c "! grep -q -e 'go:' -e '$first' -e '${id2%%/*}' paths.txt && grep -q ' M=1 $want_fn ' right.show"
check "debug dir: no .build-id tree made" test ! -e dbg/.build-id

# (a) psym-collect records go: + go tool buildid's ID for a running Go program.
C=${PSYM_COLLECT:-$top_builddir/psym-collect}
if [ ! -x "$C" ]; then
	unbuildable "psym-collect run" "psym-collect not built"
elif [ "$(id -u)" != 0 ]; then
	unbuildable "psym-collect run" "not root"
elif ! "$C" -d 1 -o probe.pb.gz --no-side-files 2>probe.err; then
	unbuildable "psym-collect run" "BPF unavailable: $(tail -1 probe.err)"
else
	./g1.bin 20 >/dev/null &
	gpid=$!
	timeout 120 "$C" -p $gpid -d 3 -o coll.pb.gz --no-side-files 2>coll.log
	rc=$?
	kill $gpid 2>/dev/null
	wait $gpid 2>/dev/null
	expect_exit 0 "psym-collect on the -s -w Go program" sh -c "exit $rc"
	"$PSYM" show coll.pb.gz >coll.show 2>&1
	check "psym-collect: the Go program's mapping carries go:$id1" \
		grep -q "$T/g1.bin build_id=go:$id1\$" coll.show
	# symbolized from the file found by path, checked by that ID
	timeout 300 $SYM --explain coll.pb.gz -o coll.out.pb 2>coll.explain
	check "psym-collect's profile: the binary is used (build ID matches)" \
		grep -q "tried '$T/g1.bin': used (build ID matches)" coll.explain
	# a program started after sampling: its mapping as the kernel reports it
	timeout 120 "$C" -o coll2.pb.gz --no-side-files -- ./g1.bin 3 >/dev/null 2>coll2.log
	expect_exit 0 "psym-collect -- the -s -w Go program" sh -c "exit $?"
	"$PSYM" show coll2.pb.gz >coll2.show 2>&1
	check "psym-collect -- COMMAND: the Go program's mapping carries go:$id1" \
		grep -q "g1.bin build_id=go:$id1\$" coll2.show
	# --stack-copy: the side file's process records carry the go: ID too,
	# and psym symbolize reads them (it refused the file as malformed).
	timeout 120 "$C" --stack-copy 8192 -o sc.pb.gz -- ./g1.bin 3 >/dev/null 2>sc.log
	expect_exit 0 "psym-collect --stack-copy -- the -s -w Go program" sh -c "exit $?"
	timeout 300 $SYM sc.pb.gz -o sc.out.pb 2>sc.err
	rc=$?
	expect_exit 0 "symbolize reads the stack copies of a Go program ($(head -1 sc.err))" \
		sh -c "exit $rc"
	"$PSYM" show sc.out.pb >sc.show 2>&1
	check "... and names its functions (main.spin)" grep -q 'main\.' sc.show
fi

# (f) psym archive packs a binary that has only a Go build ID (under the
# key made from it, .build-id/67/6f...), and --debug-pkg finds it again for
# a mapping whose path is gone, checked by the Go build ID.
cp g1.bin arch.bin
prof parch "$T/arch.bin" "go:$id1" "$e1"
"$PSYM" archive parch.pb -o arch.tar.zst 2>arch.log
expect_exit 0 "archive of a Go-only binary: exit 0" sh -c "exit $?"
check "archive: the Go binary is packed (1 binary, none without a build ID)" \
	grep -q "1 binaries and 0 debug files for 1 mappings (0 not found, 0 excluded, 0 without a build ID)" \
	arch.log
if command -v zstd >/dev/null 2>&1; then
	zstd -q -dc arch.tar.zst | tar -t >arch.members
	check "archive: one member, in the .build-id tree under the Go key" \
		sh -c '[ "$(grep -c . arch.members)" = 1 ] && grep -q "^.build-id/67/6f[0-9a-f]\{32\}$" arch.members'
fi
rm arch.bin
$SYM --no-cache --debug-pkg arch.tar.zst --explain parch.pb -o parch.out.pb 2>parch.log
expect_exit 0 "--debug-pkg ARCHIVE, the binary's path gone: exit 0" sh -c "exit $?"
check "--debug-pkg ARCHIVE: the entry point named as go tool addr2line names it ($want_fn)" \
	sh -c "\"$PSYM\" show parch.out.pb | grep -q \"$want_fn\""
check "--debug-pkg ARCHIVE: --explain says the build ID matches" \
	grep -q "\.build-id/67/6f.*used (build ID matches)" parch.log
# Another build's archive is not used for it.
cp g2.bin arch.bin
prof parch2 "$T/arch.bin" "go:$id2" "$e1"
"$PSYM" archive parch2.pb -o arch2.tar.zst 2>/dev/null
rm arch.bin
$SYM --no-cache --debug-pkg arch2.tar.zst parch.pb -o parch2.out.pb 2>parch2.log
check "--debug-pkg of another build's archive: not named" \
	sh -c "! \"$PSYM\" show parch2.out.pb | grep -q \"$want_fn\""

# A hand-made archive with another build under this build's key: not used.
if command -v zstd >/dev/null 2>&1 && [ -s arch.members ]; then
	mkdir -p forged/.build-id/67
	cp g2.bin "forged/$(cat arch.members)"
	(cd forged && tar -c .build-id) | zstd -q -o forged.tar.zst
	$SYM --no-cache --debug-pkg forged.tar.zst parch.pb -o forged.out.pb 2>forged.log
	check "--debug-pkg of a forged archive (another build under the key): not named" \
		sh -c "! \"$PSYM\" show forged.out.pb | grep -q \"$want_fn\""
fi

# (d) damaged Go notes: refused as "no build ID" (exit as usual), no crash.
noteoff=$(readelf -SW g1.bin | sed -n 's/.*\.note\.go\.buildid *NOTE *[0-9a-f]* \([0-9a-f]*\) .*/\1/p')
check "fixtures: the note's file offset" test -n "$noteoff"
for bad in lying huge binary nul; do
	python3 - g1.bin "bad-$bad" "$((0x$noteoff))" "$bad" <<'PY'
import struct, sys
src, dst, off, how = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
b = bytearray(open(src, "rb").read())
namesz, descsz, typ = struct.unpack_from("<III", b, off)
desc = off + 12 + ((namesz + 3) & ~3)
if how == "lying":
    struct.pack_into("<I", b, off + 4, descsz + 9)
elif how == "huge":
    struct.pack_into("<I", b, off + 4, 0xfffffff0)
elif how == "binary":
    b[desc + 2:desc + 7] = b"\x01\xff\x1b[\n"
else:
    b[desc + 5] = 0
open(dst, "wb").write(b)
PY
	chmod +x "bad-$bad"
	prof "p-$bad" "$T/bad-$bad" "go:$id1" "$e1"
	timeout 300 $SYM --explain "p-$bad.pb" -o "p-$bad.out.pb" 2>"p-$bad.log"
	rc=$?
	check "damaged note ($bad): no crash, exit 0 (exit $rc)" test "$rc" = 0
	check "damaged note ($bad): read as no build ID" \
		grep -q "tried '$T/bad-$bad': rejected: the file has no build ID, want go:$id1" "p-$bad.log"
done
finish
