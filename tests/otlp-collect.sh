#!/bin/sh
# psym-collect --format otlp (issue 51): the same unsymbolized content as
# OpenTelemetry profiles, named as the OTel eBPF profiler names it: each
# mapping's build ID as process.executable.build_id.gnu, samples with
# process.pid, thread.id and thread.name. Read by protoc's Python classes of
# proto/otlp_profiles.proto (not psym): the program's mapping has its
# readelf build ID and its samples its pid and name. Then symbolized by
# psym: every location of the program equals llvm-symbolizer.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need g++
need protoc
need readelf
need llvm-symbolizer
PY=/usr/bin/python3
[ -x "$PY" ] && "$PY" -c 'import google.protobuf' 2>/dev/null ||
	skip "Debian's python3-protobuf is not installed"
collector_need "BPF and perf events"
export XDG_CACHE_HOME="$T/cache"
cat >prog.cc <<'C'
#include <cstdio>
#include <cstdlib>
static inline unsigned mix(unsigned x) { return x * 2654435761u ^ (x >> 13); }
__attribute__((noinline)) unsigned burn(unsigned n)
{
	unsigned h = 1;
	for (unsigned i = 0; i < n; i++)
		h = mix(h + i);
	return h;
}
int main(int argc, char **argv)
{
	unsigned h = 0;
	for (int r = 0; r < (argc > 1 ? atoi(argv[1]) : 3000); r++)
		h ^= burn(100000);
	printf("%u\n", h);
	return 0;
}
C
g++ -O2 -g -fno-omit-frame-pointer -o prog prog.cc || { fail "g++ failed"; finish; exit 1; }
mkdir pb2 && protoc --proto_path="$top_srcdir/proto" --python_out=pb2 otlp_profiles.proto
"$C" --format otlp -o c.otlp.pb -- ./prog 3000 >/dev/null 2>collect.err ||
	{ fail "psym-collect --format otlp failed: $(tail -1 collect.err)"; finish; exit 1; }
check "the OTLP psym-collect writes has the eBPF profiler's attributes" "$PY" - "$(bid prog)" <<'P'
import sys
sys.path.insert(0, "pb2")
import otlp_profiles_pb2 as pb
d = pb.ProfilesData()
d.ParseFromString(open("c.otlp.pb", "rb").read())
dic = d.dictionary
st = dic.string_table
def attrs(ix):
    out = {}
    for i in ix:
        a = dic.attribute_table[i]
        v = a.value
        out[st[a.key_strindex]] = v.string_value if v.HasField("string_value") else v.int_value
    return out
m = [m for m in dic.mapping_table[1:] if st[m.filename_strindex].endswith("/prog")]
assert m, "no mapping of prog"
got = attrs(m[0].attribute_indices).get("process.executable.build_id.gnu")
assert got == sys.argv[1], "build ID %r, readelf says %r" % (got, sys.argv[1])
n = 0
for p in d.resource_profiles[0].scope_profiles[0].profiles:
    for s in p.samples:
        a = attrs(s.attribute_indices)
        if a.get("thread.name") == "prog":
            assert a.get("process.pid", 0) > 0 and a.get("thread.id", 0) > 0, a
            n += 1
assert n > 0, "no sample of prog with thread.name, thread.id, process.pid"
print("%d samples of prog with its pid, tid and name" % n)
P
"$PSYM" symbolize -q --offline --no-demangle -o sym.pb.gz c.otlp.pb || { fail "psym symbolize failed"; finish; exit 1; }
"$PSYM" show --json sym.pb.gz >sym.json
readelf -lW prog >prog.loads
check "psym-collect's OTLP, symbolized: every location of prog equals llvm-symbolizer" \
	"$PY" "$top_srcdir/tests/otlp-llvm-compare.py" sym.json prog prog.loads
finish
