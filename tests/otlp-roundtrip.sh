#!/bin/sh
# pprof -> OTLP -> pprof (issue 51): psym writes a pprof profile as OTLP
# (psym symbolize --format otlp) and reads it back; what `go tool pprof
# -raw` prints of the two is the same (sample types, values, labels with
# units, timestamps, stacks, locations with inline lines, mappings, period,
# comments). protoc --decode reads the OTLP psym writes; the OTLP write-back
# of a file psym did not make keeps every other byte (the peer file, when
# present: nothing to resolve offline, so the output is the input).
# Oracles: go tool pprof, protoc, cmp.
. "$top_srcdir/tests/lib.sh"
need go
need protoc
die() {
	fail "$*"
	finish
	exit 1
}
export XDG_CACHE_HOME="$T/cache"
cat >rich.txtpb <<'P'
sample_type { type: 1 unit: 2 }
sample_type { type: 3 unit: 4 }
sample { location_id: [1, 2, 3] value: [40, 404040400] label { key: 5 num: 4242 } label { key: 6 str: 7 } }
sample { location_id: [2, 3] value: [12, 0] label { key: 5 num: 4242 } label { key: 16 num: 1700000000000000123 num_unit: 4 } }
sample { location_id: [4, 3] value: [1, 10101010] label { key: 17 num: 65536 num_unit: 18 } }
mapping { id: 1 memory_start: 0x401000 memory_limit: 0x402000 file_offset: 0x1000 filename: 8 build_id: 9 }
mapping { id: 2 memory_start: 0x7f0000000000 memory_limit: 0x7f0000100000 file_offset: 0x28000 filename: 10 }
location { id: 1 mapping_id: 1 address: 0x401136 line { function_id: 1 line: 12 } line { function_id: 2 line: 30 } }
location { id: 2 mapping_id: 1 address: 0x401149 line { function_id: 2 line: 31 } }
location { id: 3 mapping_id: 2 address: 0x7f0000001234 }
location { id: 4 mapping_id: 1 address: 0x401171 line { function_id: 3 line: 40 column: 5 } }
function { id: 1 name: 11 system_name: 12 filename: 13 start_line: 10 }
function { id: 2 name: 14 filename: 13 start_line: 28 }
function { id: 3 name: 15 filename: 13 }
string_table: ""
string_table: "samples"
string_table: "count"
string_table: "cpu"
string_table: "nanoseconds"
string_table: "pid"
string_table: "comm"
string_table: "fib"
string_table: "/usr/local/bin/fib"
string_table: "4f6e7c2a1b3d5e8f90a1b2c3d4e5f60718293a4b"
string_table: "/usr/lib/libc.so.6"
string_table: "add(int, int)"
string_table: "_Z3addii"
string_table: "fib.c"
string_table: "fib"
string_table: "main"
string_table: "timestamp"
string_table: "bytes"
string_table: "bytes"
time_nanos: 1700000000000000000
duration_nanos: 10000000000
period_type { type: 3 unit: 4 }
period: 10101010
comment: 7
P
encode_txtpb rich.txtpb rich.pb || die "protoc cannot encode the fixture"
for f in rich.pb "$top_srcdir/testdata/sample.pb.gz"; do
	b=$(basename "$f")
	"$PSYM" symbolize -q --offline --format otlp -o "$b.otlp" "$f" || die "$b: cannot write OTLP"
	protoc --proto_path="$top_srcdir/proto" \
		--decode=opentelemetry.proto.profiles.v1development.ProfilesData \
		otlp_profiles.proto <"$b.otlp" >"$b.txt" 2>err || die "$b: protoc cannot decode psym's OTLP: $(cat err)"
	check "$b: protoc --decode reads psym's OTLP" grep -q 'sample_type' "$b.txt"
	"$PSYM" symbolize -q --offline -o "$b.back.pb.gz" "$b.otlp" || die "$b: cannot read its OTLP back"
	go tool pprof -raw "$f" 2>/dev/null | grep -v '^Local symbolization\|^Some binary\|^Try setting' >want.raw
	go tool pprof -raw "$b.back.pb.gz" 2>/dev/null | grep -v '^Local symbolization\|^Some binary\|^Try setting' >got.raw
	[ -s want.raw ] || die "go tool pprof -raw printed nothing"
	if diff -u want.raw got.raw >diff.out; then
		pass "$b: pprof -> OTLP -> pprof: go tool pprof -raw prints the same"
	else
		cat diff.out
		fail "$b: pprof -> OTLP -> pprof differs under go tool pprof -raw"
	fi
done
check "a timestamp label became the sample's timestamps_unix_nano" grep -q 'timestamps_unix_nano: 1700000000000000123' rich.pb.txt

# Write-back keeps the input: the eBPF profiler's file, nothing resolvable offline.
peer=${PSYM_OTLP_PEERDATA:-$top_srcdir/../shared/peerdata/otlp}
if [ -r "$peer/otel-ebpf-profile.pb.bin" ]; then
	"$PSYM" symbolize -q --offline -o same.otlp.pb "$peer/otel-ebpf-profile.pb.bin" ||
		die "cannot write the peer file back"
	check "write-back of a file with nothing to add is the input, byte for byte" \
		cmp -s same.otlp.pb "$peer/otel-ebpf-profile.pb.bin"
fi
# A string over the cap, made here (2 MiB): one line, exit 2, nothing written.
python3 "$top_srcdir/testdata/bad/make-otlp-bad.py" --big-attr big.pb || die "cannot make big.pb"
"$PSYM" symbolize -q --offline -o big.out big.pb 2>big.err && rc=0 || rc=$?
check "an attribute of 2 MiB is refused in one line, exit 2, nothing written" \
	sh -c "[ $rc = 2 ] && [ \$(wc -l <big.err) = 1 ] && grep -q 'over the cap' big.err && [ ! -e big.out ]"
check "psym --version names the OTLP release" sh -c "'$PSYM' --version | grep -q 'opentelemetry-proto 1.10.0'"
# scripts/otlp-proto-check: psym's description against itself as a
# checkout (no difference), then with a field renumbered (one, exit 1).
for f in common/v1/common resource/v1/resource profiles/v1development/profiles \
	collector/profiles/v1development/profiles_service; do
	mkdir -p "up/opentelemetry/proto/$(dirname $f)"
	cp "$top_srcdir/proto/otlp_profiles.proto" "up/opentelemetry/proto/$f.proto"
done
check "otlp-proto-check: no difference against the same description" \
	"$top_srcdir/scripts/otlp-proto-check" up
find up -name '*.proto' -exec sed -i 's/repeated int64 values = 4;/repeated int64 values = 6;/' {} +
"$top_srcdir/scripts/otlp-proto-check" up >chk.out && rc=0 || rc=$?
check "otlp-proto-check: a renumbered field is named, exit 1" \
	sh -c "[ $rc = 1 ] && grep -q 'Sample.values: psym repeated int64 = 4, upstream repeated int64 = 6' chk.out"
finish
