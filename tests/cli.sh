#!/bin/sh
# The psym command line: help, version, exit codes, show/check/symbolize
# round trips, stdin/stdout, --in-place, atomic output.
. "$top_srcdir/tests/lib.sh"
S=$top_srcdir/testdata/sample.pb.gz

check "--help exits 0" "$PSYM" --help
check "--version" sh -c '"$PSYM" --version | grep -q "^psym [0-9]"'
for c in show check symbolize; do
	check "$c --help" sh -c "\"\$PSYM\" $c --help | grep -q 'Usage: psym $c'"
done
expect_exit 2 "no command" "$PSYM"
expect_exit 2 "unknown command" "$PSYM" frobnicate
expect_exit 2 "unknown option" "$PSYM" show --frobnicate "$S"
expect_exit 2 "symbolize without -o" "$PSYM" symbolize "$S"
expect_exit 2 "bad size" "$PSYM" show --max-memory 12X "$S"
expect_exit 2 "missing file" "$PSYM" show no-such-file.pb
expect_exit 3 "unwritable output dir" "$PSYM" symbolize "$S" -o /proc/psym-cannot-write/out.pb

# show: the dump names what is in the profile (checked against protoc's own decoding).
"$PSYM" show "$S" >show.txt
decode_pb "$S" >decoded.txt
nloc=$(grep -c '^location {' decoded.txt)
check "show lists every location" grep -q "^Locations: $nloc\$" show.txt
check "show prints the build ID" grep -q "build_id=4f6e7c2a1b3d5e8f90a1b2c3d4e5f60718293a4b" show.txt
check "show prints labels" grep -q "pid:\[4242\] comm:\[fib\]" show.txt
"$PSYM" show --json "$S" >show.json
check "show --json is valid JSON with all locations" python3 -c "
import json,sys
d=json.load(open('show.json'))
assert len(d['locations'])==$nloc, d['locations']
assert d['mappings'][0]['build_id']=='4f6e7c2a1b3d5e8f90a1b2c3d4e5f60718293a4b'
assert d['samples'][0]['labels'][0]=={'key':'pid','num':4242}
"
check "show reads stdin" sh -c '"$PSYM" show - <"$0" | cmp - show.txt' "$S"

# symbolize today is a faithful round trip: same message, byte for byte.
check "symbolize writes gzip" "$PSYM" symbolize "$S" -o out.pb.gz
check "output is gzip" sh -c '[ "$(head -c2 out.pb.gz | od -An -tx1 | tr -d " ")" = 1f8b ]'
gzip -dc "$S" >raw.ref
check "round trip keeps every byte of the message" sh -c 'gzip -dc out.pb.gz | cmp - raw.ref'
check "symbolize --raw" sh -c '"$PSYM" symbolize --raw "$0" -o out.pb && gzip -dc "$0" | cmp - out.pb' "$S"
check "symbolize -o - to stdout" sh -c '"$PSYM" symbolize "$0" -o - | gzip -dc | cmp - out.pb' "$S"
check "symbolize from stdin" sh -c '"$PSYM" symbolize - -o stdin.pb.gz <"$0" && "$PSYM" check -q stdin.pb.gz' "$S"
check "output is deterministic" sh -c '"$PSYM" symbolize "$0" -o again.pb.gz && cmp out.pb.gz again.pb.gz' "$S"

cp "$S" inplace.pb.gz
expect_exit 2 "refuses to overwrite its input without --in-place" "$PSYM" symbolize inplace.pb.gz -o inplace.pb.gz
ln -s inplace.pb.gz link.pb.gz
expect_exit 2 "refuses a symlink to its input too" "$PSYM" symbolize inplace.pb.gz -o link.pb.gz
check "input untouched" cmp inplace.pb.gz "$S"
check "--in-place" "$PSYM" symbolize --in-place inplace.pb.gz
check "--in-place result valid" "$PSYM" check -q inplace.pb.gz

# A failing run leaves the previous output intact and no temporary files.
cp out.pb.gz keep.pb.gz
expect_exit 2 "bad input fails" "$PSYM" symbolize "$top_srcdir/testdata/bad/truncated.pb.gz" -o keep.pb.gz
check "old output intact after failure" cmp keep.pb.gz out.pb.gz
check "no stray temporary files" sh -c '! ls -a | grep -q psym-tmp'
# A stale temporary of a dead psym is cleaned by the next run.
touch .stale.pb.gz.psym-tmp-999999999-abcdef
"$PSYM" symbolize "$S" -o stale.pb.gz
check "stale temporary of a dead process removed" sh -c '! ls -a | grep -q psym-tmp-999999999'

# check on several files: exit 2 if any is bad, still reports the good one.
rc=0
"$PSYM" check "$S" "$top_srcdir/testdata/bad/zero-id.pb" >out.txt 2>err.txt || rc=$?
check "check: good file reported ok" grep -q "sample.pb.gz: ok" out.txt
check "check: exit 2 when one is bad" [ "$rc" = 2 ]
finish
