#!/bin/sh
# debuginfod under one deadline per run: a server that accepts connections
# and never answers costs --debuginfod-timeout once, not per mapping and
# request; every mapping gets the reason; at most 4 requests are in flight
# (the client pool), also when a batch's threads ask at once; one fetch of
# many requests runs them in parallel; a batch against a real debuginfod
# server writes what single runs write; an aborted request leaves no
# "not found" entry in libdebuginfod's cache that would hide the file
# from the next run.
. "$top_srcdir/tests/lib.sh"
need python3
need protoc
need gcc
need timeout
FETCH=$top_builddir/tests/debuginfod-fetch
"$FETCH" --built || skip "psym was built without libdebuginfod"

# A server that accepts TCP connections, reads the request and never
# answers; it records the most connections it held open at once.
cat >hang.py <<'PY'
import socket, sys, threading
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(64)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
__import__("os").rename(sys.argv[1] + ".tmp", sys.argv[1])
lock = threading.Lock()
cur = 0
def serve(c):
    global cur
    with lock:
        cur += 1
        n = cur
        with open(sys.argv[2], "a") as f:
            f.write("%d\n" % n)
    try:
        while c.recv(4096):
            pass
    except OSError:
        pass
    with lock:
        cur -= 1
    c.close()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
# start_hang NAME: start it (port in NAME, connections logged in conns);
# sets $hang and $hurl.
start_hang() {
	python3 hang.py "$1" conns &
	hang=$!
	i=0; while [ ! -s "$1" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
	[ -s "$1" ] || { fail "the hanging server did not start"; finish; exit 1; }
	hurl=http://127.0.0.1:$(cat "$1")
}
# The most connections the hanging server held at once (0: none).
max_conns() { m=$(sort -n conns | tail -1); echo "${m:-0}"; }
# within LO X HI: LO <= X <= HI.
within() { [ "$1" -le "$2" ] && [ "$2" -le "$3" ]; }
: >conns
start_hang port

# bid N: a distinct 40-hex build ID nobody serves.
bid() { printf 'dead%036x' "$1"; }

# missing.py FIRST COUNT: a profile with COUNT file mappings of distinct
# missing binaries, build IDs dead000...FIRST onwards, one location each.
cat >missing.py <<'PY'
import sys
first, count = int(sys.argv[1]), int(sys.argv[2])
strings = ["", "samples", "count"]
out = ["sample_type { type: 1 unit: 2 }"]
maps, locs = [], []
for i in range(1, count + 1):
    strings.append("/nonexistent/lib%02d.so" % (first + i - 1))
    strings.append("dead%036x" % (first + i - 1))
    start = 0x10000000 * i
    maps.append("mapping { id: %d memory_start: %d memory_limit: %d file_offset: 0 "
                "filename: %d build_id: %d }" % (i, start, start + 0x100000,
                                                 len(strings) - 2, len(strings) - 1))
    locs.append("location { id: %d mapping_id: %d address: %d }" % (i, i, start + 0x1234))
    out.append("sample { location_id: [%d] value: 1 }" % i)
out += maps + locs
out += ['string_table: "%s"' % s for s in strings]
print("\n".join(out))
PY
python3 missing.py 1 20 >many.txtpb
encode_txtpb many.txtpb many.pb

# 1. 20 missing binaries, a server that never answers, --debuginfod-timeout 2.
start=$(date +%s)
rc=0
timeout 300 "$PSYM" symbolize --debuginfod "$hurl" --debuginfod-timeout 2 many.pb -o many.out.pb.gz \
	2>many.log || rc=$?
took=$(( $(date +%s) - start ))
check "hung server: the run ends (exit $rc, not killed by timeout)" [ "$rc" -ne 124 ]
# No timing assertion: the counts below tell one deadline from many on any machine.
echo "note: hung server: 20 mappings took ${took}s (20 deadlines would be 40 s)"
n=$(grep -c "lib[0-9][0-9].so': .*debuginfod deadline (2 s) passed" many.log)
check "hung server: every mapping names the deadline ($n/20)" [ "$n" = 20 ]
n=$(grep -c "lib[0-9][0-9].so': .*$hurl timed out, not asked again" many.log)
check "hung server: the server is not asked again ($n/20)" [ "$n" = 20 ]
check "hung server: asked, at most 4 requests at once ($(max_conns))" \
	within 1 "$(max_conns)" 4
# All objects are located before any is resolved: the profile's missing
# binaries are asked for together, not one mapping after another.
check "hung server: one profile's objects asked for in parallel ($(max_conns) at once)" \
	[ "$(max_conns)" -ge 2 ]
check "hung server: the profile is still written" gzip -t many.out.pb.gz

# 2. A batch (-j 8 threads, 8 profiles, one missing binary each): one
# deadline for the whole batch and never more than 4 requests in flight.
for i in 1 2 3 4 5 6 7 8; do
	python3 missing.py $((20 + i)) 1 >b$i.txtpb && encode_txtpb b$i.txtpb b$i.pb
done
: >conns
start=$(date +%s)
rc=0
timeout 300 "$PSYM" symbolize -j 8 --debuginfod "$hurl" --debuginfod-timeout 2 \
	b1.pb b2.pb b3.pb b4.pb b5.pb b6.pb b7.pb b8.pb -o bout 2>batch.log || rc=$?
took=$(( $(date +%s) - start ))
check "hung server, batch -j 8: the run ends (exit $rc, not killed by the guard)" [ "$rc" -ne 124 ]
echo "note: hung server, batch -j 8: ${took}s for a 2 s deadline"
# One deadline for the batch: what is in flight times out together and the
# rest is never sent (a deadline per profile would send all 8).
n=$(wc -l <conns)
check "hung server, batch -j 8: one deadline for the batch: at most 4 of 8 requests sent ($n)" within 1 "$n" 4
check "hung server, batch -j 8: asked, at most 4 requests at once ($(max_conns))" \
	within 1 "$(max_conns)" 4
check "hung server, batch -j 8: all 8 profiles written" sh -c '[ "$(ls bout | wc -l)" = 8 ]'

# 3. One fetch of 12 requests: in parallel (4 at once), all answered by the deadline.
: >conns
set --
for i in $(seq 101 112); do set -- "$@" "$(bid "$i")"; done
start=$(date +%s)
rc=0
timeout 300 "$FETCH" "$hurl" 2 "$@" >fetch.out 2>&1 || rc=$?
took=$(( $(date +%s) - start ))
echo "note: one fetch of 12: ${took}s for a 2 s deadline"
check "one fetch of 12: exit 0 ($rc)" [ "$rc" = 0 ]
check "one fetch of 12: 4 requests at once ($(max_conns))" [ "$(max_conns)" = 4 ]
n=$(grep -c "debuginfod deadline (2 s) passed" fetch.out)
check "one fetch of 12: every request has the deadline reason ($n/12)" [ "$n" = 12 ]
n=$(grep -c "no answer from $hurl" fetch.out)
check "one fetch of 12: the 4 in flight say the server did not answer ($n)" [ "$n" = 4 ]
n=$(grep -c "$hurl timed out, not asked again" fetch.out)
check "one fetch of 12: the other 8 were not sent ($n)" [ "$n" = 8 ]
kill $hang; wait $hang 2>/dev/null

# 4. A real debuginfod server.
if ! command -v debuginfod >/dev/null; then
	echo "note: debuginfod server not installed: real-server checks skipped"
	finish
	exit
fi
cat >prog.c <<'C'
static inline long leaf(long x) { return x * 3 + (x >> 2); }
__attribute__((noinline)) long work(long n) { long s = 0; for (long i = 0; i < n; i++) s += leaf(i); return s; }
__attribute__((noinline)) long hot(long n) { return work(n) + 1; }
int main(int argc, char **argv) { (void)argv; return (int)hot(argc); }
C
gcc -O2 -g -Wl,--build-id -fno-pie -no-pie -o prog.full prog.c
pbid=$(readelf -n prog.full | sed -n 's/.*Build ID: //p')
mkdir -p served && cp prog.full served/prog
start_debuginfod served "$pbid" || fail "debuginfod did not index in time"

# 4a. One fetch: the executable and the debuginfo of prog, and a build ID
# the server does not have; paths checked by their build ID (readelf).
DEBUGINFOD_CACHE_PATH=$T/fcache "$FETCH" "$url" 10 "$pbid" "x:$pbid" "$(bid 7)" >real.out 2>&1
cat real.out
p1=$(sed -n '1s/^path //p' real.out)
p2=$(sed -n '2s/^path //p' real.out)
check "real server: debuginfo fetched, build ID agrees (readelf)" \
	sh -c "[ -n '$p1' ] && readelf -n '$p1' | grep -q 'Build ID: $pbid'"
check "real server: executable fetched, build ID agrees (readelf)" \
	sh -c "[ -n '$p2' ] && readelf -n '$p2' | grep -q 'Build ID: $pbid'"
check "real server: a build ID it lacks is 'not found'" sh -c "sed -n 3p real.out | grep -q 'not found'"

# 4b. Batch -j 2 against the real server equals single runs; the local binary is gone.
nm prog.full | awk '$3 == "hot" || $3 == "work" {print $1}' >va.txt
for k in 1 2 3; do
	python3 - "$pbid" "$k" >r$k.txtpb <<'PY'
import sys
bid, k = sys.argv[1], int(sys.argv[2])
va = [int(l, 16) for l in open("va.txt")]
strings = ["", "samples", "count", "/gone/prog", bid]
out = ["sample_type { type: 1 unit: 2 }"]
for i, a in enumerate(va, 1):
    out.append("sample { location_id: [%d] value: %d }" % (i, k))
out.append("mapping { id: 1 memory_start: 4194304 memory_limit: 8388608 file_offset: 0 "
           "filename: 3 build_id: 4 }")
for i, a in enumerate(va, 1):
    out.append("location { id: %d mapping_id: 1 address: %d }" % (i, a + k))
out += ['string_table: "%s"' % s for s in strings]
print("\n".join(out))
PY
	encode_txtpb r$k.txtpb r$k.pb
done
DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/bcache "$PSYM" symbolize -j 2 --debuginfod-timeout 20 \
	r1.pb r2.pb r3.pb -o rout 2>rbatch.log
same=0
for k in 1 2 3; do
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$T/scache$k "$PSYM" symbolize -q \
		--debuginfod-timeout 20 r$k.pb -o rsingle$k.pb
	if [ -n "$(decode_pb rsingle$k.pb)" ] && [ "$(decode_pb rout/r$k.pb)" = "$(decode_pb rsingle$k.pb)" ]; then
		same=$((same + 1))
	fi
done
check "real server, batch -j 2: every output equals the single run's ($same/3)" [ "$same" = 3 ]
check "real server, batch -j 2: names from the fetched binary (nm: hot, work)" \
	sh -c "\"$PSYM\" show rout/r2.pb | grep -q 'hot' && \"$PSYM\" show rout/r2.pb | grep -q 'work'"

# 5. A request aborted at the deadline leaves no negative entry behind:
# libdebuginfod 0.188 records a cancelled query as "not found" for 10
# minutes; the next run, with a live server, must still get the file.
start_hang port2
DEBUGINFOD_CACHE_PATH=$T/ncache timeout 30 "$FETCH" "$hurl" 1 "$pbid" >neg1.out 2>&1
kill $hang; wait $hang 2>/dev/null
check "aborted request: reason is the deadline" grep -q "debuginfod deadline (1 s) passed" neg1.out
DEBUGINFOD_CACHE_PATH=$T/ncache "$FETCH" "$url" 10 "$pbid" >neg2.out 2>&1
check "aborted request: the next run still fetches the file" grep -q '^path ' neg2.out
finish
