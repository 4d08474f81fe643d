#!/bin/sh
# OTLP profiles end to end (issue 51): a C++ program built here (-O2 -g),
# run as a stripped copy under perf record, written as OTLP by a converter
# that shares no code with psym (tests/otlp-from-perf.py: protoc's Python
# classes of proto/otlp_profiles.proto), the way the OTel eBPF profiler
# ships native frames, then symbolized by psym into pprof and into OTLP.
# Every location equals llvm-symbolizer on the unstripped binary
# (tests/otlp-llvm-compare.py, which reads psym's OTLP output with the same
# generated classes). Two identities: a GNU build ID, and a binary built
# without one, known only by its htlhash (computed here with hashlib) and
# found by path; a different file at that path is rejected by the hash.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/perfdata-lib.sh"
need g++
need perf
need protoc
need llvm-symbolizer
need readelf
need objcopy
PY=/usr/bin/python3
[ -x "$PY" ] && "$PY" -c 'import google.protobuf' 2>/dev/null ||
	skip "Debian's python3-protobuf is not installed"
die() {
	fail "$*"
	finish
	exit 1
}
export XDG_CACHE_HOME="$T/cache"
mkdir pb2 && protoc --proto_path="$top_srcdir/proto" --python_out=pb2 otlp_profiles.proto ||
	die "protoc --python_out failed"

cat >prog.cc <<'C'
#include <cstdio>
#include <cstdlib>
#include <vector>
static inline unsigned mix(unsigned x) { return x * 2654435761u ^ (x >> 13); }
__attribute__((noinline)) unsigned inner(const std::vector<unsigned> &v, unsigned seed)
{
	unsigned h = seed;
	for (unsigned x : v)
		h = mix(h + x);
	return h;
}
__attribute__((noinline)) unsigned outer(int rounds)
{
	std::vector<unsigned> v(4096);
	for (size_t i = 0; i < v.size(); i++)
		v[i] = (unsigned)i * 7u;
	unsigned h = 0;
	for (int r = 0; r < rounds; r++)
		h ^= inner(v, (unsigned)r);
	return h;
}
int main(int argc, char **argv)
{
	printf("%u\n", outer(argc > 1 ? atoi(argv[1]) : 20000));
	return 0;
}
C

# record BIN ID-KIND ID OUT: perf record the copy run/BIN, convert to OTLP.
record() {
	perf_rec "perf record -q -N --buildid-mmap -e cpu-clock -F 2000 -g -o '$1.data' -- './run/$1' 20000 >/dev/null"
	perf script -F pid,ip,dso --show-mmap-events -i "$1.data" >"$1.script" 2>/dev/null ||
		die "perf script failed"
	readelf -lW "$1" >"$1.loads"
	"$PY" "$top_srcdir/tests/otlp-from-perf.py" pb2 "$1.script" "$1" "$2" "$3" "$4" "$1.loads" >conv.out ||
		die "the converter failed"
	[ "$(cut -d' ' -f2 conv.out)" -gt 0 ] || die "no frames of $1 were recorded"
}

# 1. GNU build ID: the stripped copy ran; the unstripped binary is found by it.
mkdir run bin dbg
g++ -O2 -g -fno-omit-frame-pointer -o prog prog.cc || die "g++ failed"
strip -o run/prog prog && cp prog bin/prog
record prog gnu "$(readelf -n prog | awk '/Build ID/ {print $3}')" p.otlp.pb
"$PSYM" symbolize -q --offline --no-demangle --binary-path bin -o sym.pb.gz p.otlp.pb ||
	die "psym symbolize OTLP -> pprof failed"
"$PSYM" symbolize -q --offline --no-demangle --binary-path bin -o sym.otlp.pb p.otlp.pb ||
	die "psym symbolize OTLP -> OTLP failed"
"$PSYM" show --json sym.pb.gz >sym.json
check "OTLP with a GNU build ID: pprof and OTLP outputs equal llvm-symbolizer" \
	"$PY" "$top_srcdir/tests/otlp-llvm-compare.py" sym.json prog prog.loads pb2 sym.otlp.pb
check "protoc --decode reads psym's OTLP output" sh -c "protoc --proto_path='$top_srcdir/proto' \
	--decode=opentelemetry.proto.profiles.v1development.ProfilesData otlp_profiles.proto \
	<sym.otlp.pb | grep -q 'function_table'"

# 2. No GNU build ID: the htlhash of the file that ran, its debug file by debuglink.
g++ -O2 -g -fno-omit-frame-pointer -Wl,--build-id=none -o prog2 prog.cc || die "g++ failed"
[ -z "$(readelf -n prog2 | grep 'Build ID')" ] || die "prog2 has a build ID"
objcopy --only-keep-debug prog2 dbg/prog2.debug && strip -o run/prog2 prog2 &&
	objcopy --add-gnu-debuglink=dbg/prog2.debug run/prog2 || die "objcopy failed"
h=$("$PY" -c '
import hashlib, sys
b = open(sys.argv[1], "rb").read()
n = len(b)
print(hashlib.sha256(b[:4096] + b[max(0, n - 4096):] + n.to_bytes(8, "big")).hexdigest()[:32])
' run/prog2)
record prog2 htlhash "$h" p2.otlp.pb
"$PSYM" symbolize --offline --no-demangle --debug-dir dbg -o sym2.pb.gz p2.otlp.pb 2>sym2.err ||
	die "psym symbolize of the htlhash profile failed"
"$PSYM" show --json sym2.pb.gz >sym2.json
check "OTLP with an htlhash only: every location equals llvm-symbolizer" \
	"$PY" "$top_srcdir/tests/otlp-llvm-compare.py" sym2.json prog2 prog2.loads
# The index store names such a file by its htlhash: after two runs (the
# policy's 'seen before') an index of key 686c+HASH, and a third run that
# answers from it gives the same profile.
for i in 1 2; do
	"$PSYM" symbolize -q --offline --no-cache --no-demangle --debug-dir dbg --index-store "$PWD/S" \
		-o idx$i.pb.gz p2.otlp.pb || die "symbolize with an index store failed"
done
n=0
while [ "$n" -lt 120 ] && ! ls S/68/686c"$h".*.psymidx >/dev/null 2>&1; do
	sleep 0.5
	n=$((n + 1))
done
check "the index store names the htlhash-only file by its hash (686c$h)" sh -c "ls S/68/686c$h.*.psymidx >/dev/null 2>&1"
"$PSYM" symbolize -q --offline --no-cache --no-demangle --debug-dir dbg --index-store "$PWD/S" \
	--explain -o idx3.pb.gz p2.otlp.pb 2>idx3.err || die "symbolize from the index failed"
"$PSYM" show --json idx3.pb.gz >idx3.json
check "answered from that index, equal to llvm-symbolizer" \
	"$PY" "$top_srcdir/tests/otlp-llvm-compare.py" idx3.json prog2 prog2.loads
check "... and --explain says the index answered" grep -q "686c$h" idx3.err
# The file that ran, renamed and named by --main-binary: matched by its hash.
mkdir elsewhere && cp run/prog2 elsewhere/renamed
"$PSYM" symbolize -q --offline --no-demangle --debug-dir dbg --main-binary elsewhere/renamed \
	-o sym4.pb.gz p2.otlp.pb || die "--main-binary of an htlhash mapping failed"
"$PSYM" show --json sym4.pb.gz >sym4.json
check "--main-binary is matched to an htlhash mapping by its hash" \
	"$PY" "$top_srcdir/tests/otlp-llvm-compare.py" sym4.json prog2 prog2.loads
# Another file at the same path: rejected by the hash, nothing resolved.
cp run/prog2 keep && printf 'x' >>run/prog2
"$PSYM" symbolize --offline --explain --debug-dir dbg -o sym3.pb.gz p2.otlp.pb 2>sym3.err
check "a file whose htlhash differs is rejected" grep -q "htlhash mismatch: rejected" sym3.err
"$PSYM" show --json sym3.pb.gz >sym3.json
check "and none of its locations is resolved" "$PY" -c '
import json, sys
d = json.load(open("sym3.json"))
sys.exit(not d["locations"] or any(l["lines"] for l in d["locations"]))'
mv keep run/prog2
finish
