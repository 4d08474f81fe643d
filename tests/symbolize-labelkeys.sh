#!/bin/sh
# The pid label of a sample says which process's perf map names its JIT
# frames, however the string table spells its key: "pid" once (compared
# by index), or "pid" twice with samples using either copy (compared by
# name), beside labels with other keys. The oracle is the perf maps
# themselves, read here in Python.
. "$top_srcdir/tests/lib.sh"
need python3
need protoc

mkdir -p maps
printf '7f1000001000 100 jit_a_one\n7f1000002000 80 jit_a_two\n' >maps/perf-100.map
printf '7f1000001000 100 jit_b_one\n7f1000002000 80 jit_b_two\n' >maps/perf-200.map

# mkprof OUT STRINGS "PID:KEY:ADDR ...": one sample per word, its pid
# label under string KEY after a "tid" label, in one anonymous mapping.
mkprof() {
	python3 - "$2" "$3" >"$1.txtpb" <<'PY'
import sys
strings = sys.argv[1].split(",")
out = ['sample_type { type: 1 unit: 2 }',
       'mapping { id: 1 memory_start: %d memory_limit: %d filename: %d }'
       % (0x7f1000000000, 0x7f1000100000, strings.index("//anon"))]
for lid, w in enumerate(sys.argv[2].split(), 1):
    pid, key, a = w.split(":")
    out.append("location { id: %d mapping_id: 1 address: %d }" % (lid, int(a, 16)))
    out.append("sample { location_id: [%d] value: 1 label { key: %d num: 7 } "
               "label { key: %s num: %s } }" % (lid, strings.index("tid"), key, pid))
out += ['string_table: "%s"' % s for s in strings]
print("\n".join(out))
PY
	encode_txtpb "$1.txtpb" "$1.pb"
}
# verify PROFILE "PID:KEY:ADDR ...": each address named as PID's map says.
verify() {
	"$PSYM" show --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = {x["id"]: x["name"] for x in d["functions"]}
got = {l["address"]: (f[l["lines"][0]["function_id"]] if l["lines"] else "-") for l in d["locations"]}
bad = 0
for w in sys.argv[1].split():
    pid, key, a = w.split(":")
    a = int(a, 16)
    want = "-"
    for l in open("maps/perf-%s.map" % pid):
        s, n, name = l.split(None, 2)
        if int(s, 16) <= a < int(s, 16) + int(n, 16):
            want = name.strip()
    if got.get(a) != want:
        print("%x: got %s, want %s" % (a, got.get(a), want))
        bad = 1
sys.exit(bad)' "$2"
}

# "pid" once, not where psym-collect puts it.
s1='',samples,count,tid,//anon,mntns,pid
w1='100:6:7f1000001010 200:6:7f1000002010'
mkprof one "$s1" "$w1"
"$PSYM" symbolize --perf-map-dir maps one.pb -o one.out.pb 2>one.log
check "pid once: each JIT frame named from its own process's map" verify one.out.pb "$w1"

# "pid" twice: samples keyed by either copy.
s2='',samples,count,pid,tid,//anon,pid
w2='100:3:7f1000001010 200:6:7f1000002010 200:6:7f1000001020'
mkprof two "$s2" "$w2"
"$PSYM" symbolize --perf-map-dir maps two.pb -o two.out.pb 2>two.log
check "pid twice: each JIT frame named from its own process's map" verify two.out.pb "$w2"
finish
