#!/bin/sh
# perf.data of a JIT (issue 50's oracle): node run with --perf-basic-prof
# under perf record -g writes /tmp/perf-PID.map; psym reads the recording
# and the map (--perf-map-dir) and names every sample's frames as perf
# script names them from the same map, the JavaScript functions included.
# Without the map the JIT frames stay unnamed (the test can fail).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/perfdata-lib.sh"
need node "Debian's nodejs"
perf_usable

cp "$top_srcdir/tests/perfdata-work.js" work.js
ls /tmp/perf-*.map >maps.before 2>/dev/null
perf_rec 'perf record -q -N --buildid-mmap -e cpu-clock -F 997 -g -o node.data node --perf-basic-prof work.js >node.out'
pid=$(perf script -i node.data -F pid 2>/dev/null | awk 'NR == 1 { print $1 }')
map=/tmp/perf-$pid.map
[ -n "$pid" ] && [ -f "$map" ] || skip "node wrote no perf map ($map)"
# The map is node's, in /tmp: kept here, and /tmp's copy only while perf reads it.
mkdir maps && mv "$map" maps/
# The maps of runs perf crashed in (perf_rec tried again) are node's too: removed.
for m in /tmp/perf-*.map; do
	[ -f "$m" ] && ! grep -qxF "$m" maps.before && rm -f "$m"
done
restore() { cp "maps/perf-$pid.map" "$map"; }
unrestore() { rm -f "$map"; }

check "symbolized with the perf map" perf_symbolize node.data sym.pb.gz --offline --perf-map-dir maps \
	--kallsyms /proc/kallsyms
restore
perf_frames node.data sym.pb.gz cpu-clock 99 >cmp.txt 2>&1 && rc=0 || rc=$?
unrestore
cat cmp.txt
[ "$rc" = 0 ] && pass "frames agree with perf script's, JIT frames included (>= 99%)" ||
	fail "frames disagree with perf script's"
"$PSYM" traces --sample-index cpu-clock_sample sym.pb.gz >traces.txt 2>/dev/null
check "the JavaScript functions are named (fibJS, hashLoop)" \
	sh -c 'grep -q "JS:.*fibJS" traces.txt && grep -q "hashLoop" traces.txt'
check "symbolized without the map" perf_symbolize node.data nomap.pb.gz --offline --kallsyms /proc/kallsyms
"$PSYM" traces --sample-index cpu-clock_sample nomap.pb.gz >nomap.txt 2>/dev/null
check "without the map no JavaScript function is named" sh -c '! grep -q fibJS nomap.txt'
finish
