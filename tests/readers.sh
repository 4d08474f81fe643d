#!/bin/sh
# Real readers accept every file psym writes: protoc --decode with our proto
# and go tool pprof. Unknown fields (ours: none in profile.proto; a future
# pprof may add some) survive a read/write round trip.
. "$top_srcdir/tests/lib.sh"
need protoc "Debian protobuf-compiler"
need go "Debian golang-go"
export HOME=$T GOCACHE=$T/gocache GOFLAGS=-mod=mod
S=$top_srcdir/testdata/sample.pb.gz

"$PSYM" symbolize "$S" -o out.pb.gz
check "protoc --decode reads psym's output" sh -c 'decode_pb() { gzip -dc "$1" | protoc --proto_path="$2" --decode=perftools.profiles.Profile profile.proto; }; decode_pb out.pb.gz "$0" >decoded.txt' "$PROTO_DIR"
check "protoc sees the mappings" grep -q 'build_id: 9' decoded.txt
check "go tool pprof -raw reads psym's output" sh -c 'go tool pprof -raw -symbolize=none out.pb.gz >raw.txt 2>err.txt'
check "pprof sees the samples" grep -q "404040400: 1 2 3 4" raw.txt
check "pprof sees the mappings" grep -q "/usr/local/bin/fib" raw.txt

# Unknown fields: append field 100 (varint 42) to the top-level message and
# field 9 (string) inside a Location; both must come back out.
python3 - "$S" <<'PY'
import gzip, sys
raw = gzip.open(sys.argv[1]).read()
def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f; n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n: return bytes(out)
# A Location { id: 99, address: 0x42, field 9: "future" } as field 4.
loc = b'\x08' + varint(99) + b'\x18' + varint(0x42) + b'\x4a' + varint(6) + b'future'
msg = raw + b'\x22' + varint(len(loc)) + loc + varint(100 << 3) + varint(42)
open('unknown.pb', 'wb').write(msg)
PY
"$PSYM" symbolize --raw unknown.pb -o unknown-out.pb
check "unknown top-level field survives" sh -c 'protoc --decode_raw <unknown-out.pb | grep -q "^100: 42"'
check "unknown nested field survives" sh -c 'protoc --decode_raw <unknown-out.pb | grep -q "9: \"future\""'
finish
