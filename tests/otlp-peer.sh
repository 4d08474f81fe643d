#!/bin/sh
# OTLP profiles (issue 51): the OpenTelemetry eBPF profiler's own output,
# read by psym as binary, gzip'd binary and OTLP/JSON, equals the protojson
# rendering made by an independent decoder, point by point (value,
# timestamp, stack of frames with the profiler's names, attributes).
# Oracles: the peer's .pb.json (tests/otlp-peer.py reads it alone), and
# protoc --decode against proto/otlp_profiles.proto for the wire.
. "$top_srcdir/tests/lib.sh"
need python3
need protoc
need gzip
peer=${PSYM_OTLP_PEERDATA:-$top_srcdir/../shared/peerdata/otlp}
bin=$peer/otel-ebpf-profile.pb.bin
js=$peer/otel-ebpf-profile.pb.json
die() {
	fail "$*"
	finish
	exit 1
}
[ -r "$bin" ] && [ -r "$js" ] || skip "no OTLP peer data in $peer (set PSYM_OTLP_PEERDATA)"

# psym's description of the wire decodes the real file, field for field.
protoc --proto_path="$top_srcdir/proto" \
	--decode=opentelemetry.proto.profiles.v1development.ProfilesData \
	otlp_profiles.proto <"$bin" >decoded.txt 2>err || die "protoc cannot decode the peer file: $(cat err)"
grep -q 'values: ' decoded.txt || die "protoc's decoding has no sample values"

"$PSYM" show --json "$bin" >bin.json || die "psym show cannot read the binary OTLP file"
python3 "$top_srcdir/tests/otlp-peer.py" "$js" bin.json || die "binary OTLP: psym differs from the peer rendering"
gzip -c "$bin" >p.pb.gz
"$PSYM" show --json p.pb.gz >gz.json || die "psym show cannot read gzip'd OTLP"
cmp -s bin.json gz.json || die "gzip'd OTLP reads differently"
"$PSYM" show --json "$js" >js.json || die "psym show cannot read OTLP/JSON"
python3 "$top_srcdir/tests/otlp-peer.py" "$js" js.json || die "OTLP/JSON: psym differs from the peer rendering"
# The same JSON with the dictionary first (a writer's own key order).
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
json.dump({"dictionary": d["dictionary"], "resourceProfiles": d["resourceProfiles"]}, sys.stdout)' "$js" >first.json
"$PSYM" show --json first.json >first.out || die "psym show cannot read OTLP/JSON with the dictionary first"
python3 "$top_srcdir/tests/otlp-peer.py" "$js" first.out || die "dictionary-first OTLP/JSON differs"
# The reports read it directly too.
"$PSYM" top "$bin" >top.txt || die "psym top cannot read OTLP"
grep -q finish_task_switch top.txt || die "psym top lost the profiler's kernel frame names"
pass "the eBPF profiler's file reads as its independent rendering says"
finish
