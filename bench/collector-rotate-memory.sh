#!/bin/sh
# Memory over many --rotate windows (issue 42): psym-collect --rotate 100ms
# (the shortest window) --keep 5 -v, system-wide at HZ, for WINDOWS windows
# while bench/shortlived --churn CHURN (light churn: new processes, new
# mappings, exits) runs. Every STEP windows, the collector's resident set
# (the kB -v prints after that window, from its /proc/self/statm) and its
# open file descriptors (/proc/PID/fd, counted when the window is seen done
# in the log). Then the trend after the warm-up (the first WARM windows):
# the least-squares slope of the resident set in kB per 100 windows, and
# the spread (largest minus smallest) of both.
# Usage: bench/collector-rotate-memory.sh [WINDOWS] [OUT_DIR]   (root;
#        PSYM_COLLECT, HZ=99, CHURN=50, STEP=50, WARM=100; OUT_DIR is kept,
#        else a temporary directory is removed)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
collect=${PSYM_COLLECT:-$top/build/psym-collect}
nwin=${1:-1000}
hz=${HZ:-99}
churn=${CHURN:-50}
step=${STEP:-50}
warm=${WARM:-100}
if [ -n "${2:-}" ]; then
	T=$2
	mkdir -p "$T"
	keep=1
else
	T=$(mktemp -d)
	keep=
fi
rpid=
chpid=
cleanup() {
	[ -z "$rpid" ] || kill -INT "$rpid" 2>/dev/null || true
	[ -z "$chpid" ] || kill "$chpid" 2>/dev/null || true
	wait 2>/dev/null || true
	[ -n "$keep" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
gcc -O1 -g -fno-omit-frame-pointer -o "$T/shortlived" "$here/shortlived.c"
mkdir -p "$T/rot"
# Long enough for the windows even when each takes several times 100 ms.
"$T/shortlived" --churn "$churn" $((nwin * 2 + 120)) 1 2>"$T/churn.log" &
chpid=$!
start=$(date +%s)
"$collect" -v -F "$hz" --rotate 100ms --keep 5 -o "$T/rot/cpu-%Y%m%dT%H%M%SZ.pb.gz" 2>"$T/rot.log" &
rpid=$!
: >"$T/points"
next=$step
first=
while [ "$next" -le "$nwin" ]; do
	kill -0 "$rpid" 2>/dev/null || { echo "psym-collect ended: $(tail -3 "$T/rot.log")" >&2; exit 1; }
	line=$(grep -m1 "window $next done" "$T/rot.log" 2>/dev/null || true)
	if [ -z "$line" ]; then
		sleep 0.1
		continue
	fi
	fds=$(ls "/proc/$rpid/fd" | wc -l)
	[ -n "$first" ] || first=$(grep -m1 "window 1 done" "$T/rot.log" | sed 's/.*resident \([0-9]*\) kB.*/\1/')
	rss=$(echo "$line" | sed 's/.*resident \([0-9]*\) kB.*/\1/')
	echo "$next $rss $fds" >>"$T/points"
	next=$((next + step))
done
secs=$(($(date +%s) - start))
kill -INT "$rpid"
wait "$rpid" || echo "psym-collect failed: $(tail -3 "$T/rot.log")" >&2
rpid=
kill "$chpid" 2>/dev/null || true # (SIGINT is ignored in the background)
wait "$chpid" 2>/dev/null || true
chpid=

echo "| window | 1 | $(awk '{printf "%s | ", $1}' "$T/points" | sed 's/ | $//') |"
echo "|---|---|$(awk '{printf "---|"}' "$T/points")"
echo "| resident kB | $first | $(awk '{printf "%s | ", $2}' "$T/points" | sed 's/ | $//') |"
echo "| open fds | - | $(awk '{printf "%s | ", $3}' "$T/points" | sed 's/ | $//') |"
echo
awk -v w="$warm" '$1 > w {n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2;
	if (!lo || $2 < lo) lo = $2; if ($2 > hi) hi = $2; if (!flo || $3 < flo) flo = $3; if ($3 > fhi) fhi = $3}
	END {s = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	printf "after window %d (%d points): resident %d-%d kB (spread %d kB), slope %.1f kB per 100 windows; fds %d-%d\n",
		w, n, lo, hi, hi - lo, 100 * s, flo, fhi}' "$T/points"
echo "$(grep -c 'window [0-9]* done' "$T/rot.log") windows in ${secs} s; files left: $(ls "$T/rot" | grep -c '\.pb\.gz$') (--keep 5)"
echo "$(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg), HZ $hz"
