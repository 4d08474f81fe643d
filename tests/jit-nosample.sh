#!/bin/sh
# JIT locations that no sample names (so their process is unknown): looked
# up in the profile's only process; with several processes, in the one
# whose perf map covers the address; never guessed when two maps cover it,
# and --explain says which rule placed each and why one was not. The
# oracle is the perf maps themselves, read here in Python.
. "$top_srcdir/tests/lib.sh"
need python3
need protoc

mkdir -p maps
printf '7f1000001000 100 jit_a_one\n7f1000002000 80 jit_a_two\n' >maps/perf-100.map
printf '7f1000002000 80 jit_b_two\n7f1000003000 40 jit_b_three\n' >maps/perf-200.map

# mkprof OUT "PID:ADDR ..." "ADDR ...": samples (a pid label each) and
# locations no sample names, all in one anonymous (JIT) mapping.
mkprof() {
	python3 - "$2" "$3" >"$1.txtpb" <<'PY'
import sys
strings = ["", "samples", "count", "pid", "//anon"]
out = ['sample_type { type: 1 unit: 2 }',
       'mapping { id: 1 memory_start: %d memory_limit: %d filename: 4 }' % (0x7f1000000000, 0x7f1000100000)]
lid = 0
for w in sys.argv[1].split():
    pid, a = w.split(":")
    lid += 1
    out.append("location { id: %d mapping_id: 1 address: %d }" % (lid, int(a, 16)))
    out.append("sample { location_id: [%d] value: 1 label { key: 3 num: %d } }" % (lid, int(pid)))
for a in sys.argv[2].split():
    lid += 1
    out.append("location { id: %d mapping_id: 1 address: %d }" % (lid, int(a, 16)))
out += ['string_table: "%s"' % s for s in strings]
print("\n".join(out))
PY
	encode_txtpb "$1.txtpb" "$1.pb"
}
# names PROFILE: "address name" per location ("-": unresolved).
names() {
	"$PSYM" show --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = {x["id"]: x["name"] for x in d["functions"]}
for l in d["locations"]:
    print("%x %s" % (l["address"], f[l["lines"][0]["function_id"]] if l["lines"] else "-"))'
}
# expect GOT ADDR PIDS: ADDR is named as the perf maps of PIDS (those the
# profile holds) say: the one covering it, "-" when none or several do.
expect() {
	python3 - "$@" <<'PY'
import sys
got, addr, pids = sys.argv[1], int(sys.argv[2], 16), sys.argv[3].split()
cover = []
for p in pids:
    for l in open("maps/perf-%s.map" % p):
        s, n, name = l.split(None, 2)
        if int(s, 16) <= addr < int(s, 16) + int(n, 16):
            cover.append(name.strip())
want = cover[0] if len(cover) == 1 else "-"
have = dict(l.split() for l in open(got)).get("%x" % addr)
if have != want:
    print("%x: got %s, want %s" % (addr, have, want))
sys.exit(have != want)
PY
}

# One process: the location without a sample is in it.
mkprof one "100:7f1000001010" "7f1000002010"
"$PSYM" symbolize --explain --perf-map-dir maps one.pb -o one.out.pb 2>one.log
names one.out.pb >one.got
check "one pid: the sampled location named" expect one.got 7f1000001010 100
check "one pid: the location without a sample named from its map" expect one.got 7f1000002010 100
check "one pid: --explain says the profile's only process was used" \
	grep -q "looked up in pid 100, the profile's only process" one.log

# Two processes: placed only where exactly one map covers the address.
mkprof two "100:7f1000001010 200:7f1000003010" "7f1000001020 7f1000003020 7f1000002010"
"$PSYM" symbolize --explain --perf-map-dir maps two.pb -o two.out.pb 2>two.log
names two.out.pb >two.got
check "two pids: sampled locations named from their own maps" sh -c \
	"grep -q '^7f1000001010 jit_a_one' two.got && grep -q '^7f1000003010 jit_b_three' two.got"
check "two pids: only pid 100's map covers it: named" expect two.got 7f1000001020 "100 200"
check "two pids: only pid 200's map covers it: named" expect two.got 7f1000003020 "100 200"
check "two pids: both maps cover it: not guessed" expect two.got 7f1000002010 "100 200"
check "two pids: --explain says the covering process was used" \
	grep -q "2 location(s) no sample names looked up in the only process whose perf maps cover them" two.log
check "two pids: --explain gives the reason it was not guessed" \
	grep -q "1 location(s) left unresolved: .*perf maps of pids 100 and 200 both cover it: not guessed" two.log

# A process given with --pid still decides alone.
"$PSYM" symbolize --pid 200 --perf-map-dir maps two.pb -o pid.out.pb 2>pid.log
names pid.out.pb >pid.got
check "--pid 200: every location looked up in pid 200 only" expect pid.got 7f1000001020 200
finish
