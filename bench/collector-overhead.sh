#!/bin/sh
# Overhead of psym-collect, against `perf record` in the same run. Needs root
# and perf (linux-perf). Writes bench/COLLECTOR.md.
#  1. A CPU-bound workload (one fib per CPU) alone, under psym-collect at
#     99 Hz system-wide, and under `perf record -F 99 -g -a`; output sizes.
#  2. A busy host: bench/churn.sh (about 200 short-lived processes a second)
#     plus one CPU-bound program, 10 s system-wide at 99 Hz: each profiler's
#     CPU time (user + sys), wall time, and share of the samples of a
#     parallel observer (`perf record -F 99 -a`, no stacks); SIGINT latency
#     of psym-collect under the same load.
# Usage: bench/collector-overhead.sh [ROUNDS]
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
} >"$T/part1.md"

# ---- 2. a busy host -----------------------------------------------------------
have_perf=false
perf record -q -a -F 99 -o "$T/probe2.data" -- true >/dev/null 2>&1 && have_perf=true
busy() { # LABEL COMM COMMAND...: run COMMAND for 10 s on the busy host
	label=$1 comm=$2 obs=""
	shift 2
	"$here/churn.sh" 200 13 >/dev/null 2>&1 &
	ch=$!
	"$T/fib" 60 >/dev/null &
	hog=$!
	sleep 1
	if $have_perf; then
		perf record -q -a -F 99 -o "$T/obs.data" -- sleep 12 >/dev/null 2>&1 &
		obs=$!
	fi
	s=$(date +%s.%N)
	/usr/bin/time -f "%U %S" -o "$T/time.$label" "$@" >/dev/null 2>"$T/log.$label" || true
	e=$(date +%s.%N)
	[ -z "$obs" ] || wait "$obs" 2>/dev/null || true
	kill $hog 2>/dev/null
	wait $ch $hog 2>/dev/null || true
	cpu=$(tail -1 "$T/time.$label" | awk '{printf "%.2f", $1 + $2}')
	wall=$(echo "$e - $s" | bc -l | cut -c1-5)
	echo "$label $cpu $wall" >>"$T/busy"
	# The observer's samples of the profiler (by comm, the observer excluded).
	if [ -n "$obs" ]; then
		perf report -i "$T/obs.data" --sort pid --stdio 2>/dev/null |
			awk -v l="$label" -v c="$comm" -v o="$obs" '
				$1 ~ /%$/ {split($2, a, ":"); if (a[2] == c && a[1] != o) {sub("%", "", $1); s += $1}}
				END {printf "%s %.2f\n", l, s}' >>"$T/share"
	fi
}
: >"$T/busy"; : >"$T/sigint"; : >"$T/share"
for r in $(seq "$rounds"); do
	busy psym psym-collect "$collect" -F 99 -d 10 -o "$T/busy.pb.gz" --no-side-files
	if $have_perf; then
		busy perf perf timeout -s INT 10 perf record -q -F 99 -g -a -o "$T/busy.data"
	fi
	# SIGINT latency under the same load.
	"$here/churn.sh" 200 10 >/dev/null 2>&1 &
	ch=$!
	"$T/fib" 60 >/dev/null &
	hog=$!
	"$collect" -F 99 -o "$T/int.pb.gz" --no-side-files 2>/dev/null &
	c=$!
	sleep 5
	s=$(date +%s.%N)
	kill -INT $c
	wait $c || true
	e=$(date +%s.%N)
	echo "$e - $s" | bc -l >>"$T/sigint"
	kill $hog 2>/dev/null
	wait $ch $hog 2>/dev/null || true
done
med() { awk -v l="$1" -v f="$2" '$1 == l {print $f}' "$3" | median; }
{
	cat "$T/part1.md"
	echo
	echo "## A busy host"
	echo
	echo "bench/churn.sh 200 (about 200 short-lived processes a second) plus one"
	echo "\`fib\` process, 10 s, system-wide at 99 Hz; $rounds rounds, medians. CPU is"
	echo "the profiler's user + sys time; share is the percentage of a parallel"
	echo "\`perf record -F 99 -a\` observer's samples taken by the profiler (the"
	echo "observer itself excluded)."
	echo
	echo "| profiler | CPU s | wall s | share of samples |"
	echo "|---|---|---|---|"
	echo "| psym-collect -F 99 -d 10 | $(med psym 2 "$T/busy") | $(med psym 3 "$T/busy") | $(med psym 2 "$T/share")% |"
	if $have_perf; then
		echo "| perf record -F 99 -g -a (10 s) | $(med perf 2 "$T/busy") | $(med perf 3 "$T/busy") | $(med perf 2 "$T/share")% |"
	fi
	echo
	echo "SIGINT latency of psym-collect under the same load (signal to exit, profile"
	echo "written): median $(median <"$T/sigint" | cut -c1-5) s, worst $(sort -n "$T/sigint" | tail -1 | cut -c1-5) s."
	echo
	echo "psym-collect's summary of the last round:"
	echo
	echo '```'
	cat "$T/log.psym"
	echo '```'
} >"$T/new.md"
# Keep the section bench/collector-churn.sh writes.
if grep -q '^## Short-lived processes' "$here/COLLECTOR.md" 2>/dev/null; then
	echo >>"$T/new.md"
	sed -n '/^## Short-lived processes/,$p' "$here/COLLECTOR.md" >>"$T/new.md"
fi
cp "$T/new.md" "$here/COLLECTOR.md"
cat "$T/new.md"
