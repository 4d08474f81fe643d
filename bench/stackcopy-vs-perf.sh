#!/bin/sh
# psym-collect --stack-copy against perf record --call-graph dwarf on the
# same CPU-bound workload at the same frequency (issue 20):
#   - overhead: the workload's wall and CPU time alone, under perf, under
#     psym-collect (fixed work: xz -9 -T1 of 40 MB of random data), and
#     each profiler's own CPU time;
#   - bytes written (perf.data vs profile + OUT.d/);
#   - the top 10 functions by cumulative share, perf report --children
#     vs psym top --cum after psym symbolize.
#   bench/stackcopy-vs-perf.sh [BUILD_DIR] [OUT_DIR]   (root; HZ=999 BYTES=8192)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
B=$(cd "${1:-$here/../build}" && pwd)
O=${2:-/tmp/stackcopy-bench}
HZ=${HZ:-999}
BYTES=${BYTES:-8192}
mkdir -p "$O"
cd "$O"
[ -s input ] || head -c 40000000 /dev/urandom >input
run() { /usr/bin/time -f "%e s wall, %U+%S s CPU" xz -9 -T1 -c input >/dev/null; }
echo "== workload alone"
run 2>&1 | tail -1
echo "== perf record --call-graph dwarf,$BYTES -F $HZ"
xz -9 -T1 -c input >/dev/null &
pid=$!
/usr/bin/time -f "perf itself: %e s wall, %U+%S s CPU" \
	perf record -q --call-graph dwarf,"$BYTES" -F "$HZ" -p $pid -o perf.data 2>perf.time &
ppid=$!
start=$(date +%s.%N)
wait $pid
end=$(date +%s.%N)
kill -INT $ppid 2>/dev/null || true
wait $ppid 2>/dev/null || true
echo "workload under perf: $(echo "$end - $start" | bc) s wall"
tail -1 perf.time
echo "perf.data: $(stat -c %s perf.data) bytes"
echo "== psym-collect --stack-copy $BYTES -F $HZ"
xz -9 -T1 -c input >/dev/null &
pid=$!
/usr/bin/time -f "psym-collect itself: %e s wall, %U+%S s CPU" \
	"$B/psym-collect" -p $pid -F "$HZ" --stack-copy "$BYTES" -o psym.pb.gz 2>psym.log &
ppid=$!
start=$(date +%s.%N)
wait $pid
end=$(date +%s.%N)
sleep 0.2
# psym-collect -p does not stop when its process exits (perf does): stop it
# (the child of time, which ignores SIGINT).
kill -INT "$(pgrep -P $ppid)" 2>/dev/null || true
wait $ppid 2>/dev/null || true
echo "workload under psym-collect: $(echo "$end - $start" | bc) s wall"
grep -E "itself|stack copies" psym.log
echo "psym files: $(du -cb psym.pb.gz psym.pb.gz.d | tail -1 | cut -f1) bytes ($(stat -c %s psym.pb.gz.d/ustacks.gz) ustacks.gz, $(stat -c %s psym.pb.gz.d/kallsyms 2>/dev/null || echo 0) kallsyms)"
echo "== unwinding speed"
/usr/bin/time -f "psym symbolize (unwind + symbolize): %e s wall, %M KiB max RSS" \
	"$B/psym" symbolize psym.pb.gz -o psym.sym.pb.gz 2>sym.log
grep -E "unwound|psym symbolize" sym.log
echo "== top 10 by cumulative share: the test program, both profilers on the same process"
gcc -O2 -g -fomit-frame-pointer -o prog "$here/../tests/unwind/prog.c"
./prog 100000000 20000 >/dev/null 2>&1 &
pid=$!
sleep 0.5
perf record -q -F "$HZ" --call-graph dwarf,"$BYTES" -p $pid -o prog.data -- sleep 5 2>/dev/null &
perfpid=$!
"$B/psym-collect" -p $pid -F "$HZ" --stack-copy "$BYTES" -d 5 -o prog.pb.gz 2>prog.log
wait $perfpid || true
kill $pid
"$B/psym" symbolize prog.pb.gz -o prog.sym.pb.gz 2>/dev/null
echo "perf report --children:"
perf report -i prog.data --children --stdio -g none --percent-limit 2 --sort symbol 2>/dev/null |
	grep -v '^#' | grep -v '^$' | head -n 14
echo "psym top --cum:"
"$B/psym" top --cum -n 14 prog.sym.pb.gz 2>/dev/null | tail -n 14
