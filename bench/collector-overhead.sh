#!/bin/sh
# Overhead of psym-collect: run time of a CPU-bound workload (one fib per
# CPU) alone, under psym-collect at 99 Hz system-wide, and under
# `perf record -F 99 -g -a`, in the same run; output sizes. Needs root.
# Writes bench/COLLECTOR.md.   Usage: bench/collector-overhead.sh [ROUNDS]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
collect=${PSYM_COLLECT:-$top/build-normal/psym-collect}
rounds=${1:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
gcc -O1 -fno-omit-frame-pointer -o "$T/fib" "$top/testdata/fib.c"
ncpu=$(nproc)

workload() { # wall seconds of one fib per CPU
	s=$(date +%s.%N)
	i=0 pids=""
	while [ $i -lt "$ncpu" ]; do "$T/fib" 44 >/dev/null & pids="$pids $!"; i=$((i + 1)); done
	# shellcheck disable=SC2086
	wait $pids
	e=$(date +%s.%N)
	echo "$e - $s" | bc -l
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

: >"$T/alone"; : >"$T/psym"; : >"$T/perf"
for r in $(seq "$rounds"); do
	workload >>"$T/alone"
	"$collect" -F 99 -o "$T/cpu.pb.gz" --no-side-files 2>/dev/null &
	c=$!
	sleep 1
	workload >>"$T/psym"
	kill -INT $c; wait $c || true
	if command -v perf >/dev/null && perf record -F 99 -g -a -o "$T/probe.data" -- true >/dev/null 2>&1; then
		perf record -q -F 99 -g -a -o "$T/perf.data" >/dev/null 2>&1 &
		p=$!
		sleep 1
		workload >>"$T/perf"
		kill -INT $p; wait $p || true
	fi
done
alone=$(median <"$T/alone"); psym=$(median <"$T/psym"); perfm=$(median <"$T/perf")
psize=$(stat -c %s "$T/cpu.pb.gz")
dsize=$(stat -c %s "$T/perf.data" 2>/dev/null || echo 0)
{
	echo "# psym-collect overhead"
	echo
	echo "Machine: $ncpu cores, $(uname -r); $(date -u +%Y-%m-%d). Produced by bench/collector-overhead.sh"
	echo "($rounds rounds, medians): one \`fib 40\` per CPU, alone and while a system-wide"
	echo "profiler samples at 99 Hz on every CPU."
	echo
	echo "| run | wall s (median) | ratio to alone | output |"
	echo "|---|---|---|---|"
	echo "| alone | $alone | 1.000 | - |"
	echo "| psym-collect -F 99 (system-wide) | $psym | $(echo "$psym / $alone" | bc -l | cut -c1-5) | $psize bytes (gzip'd pprof) |"
	if [ -n "$perfm" ]; then
		echo "| perf record -F 99 -g -a | $perfm | $(echo "$perfm / $alone" | bc -l | cut -c1-5) | $dsize bytes (perf.data) |"
	else
		echo "| perf record | - | - | perf cannot record here |"
	fi
} | tee "$here/COLLECTOR.md"
