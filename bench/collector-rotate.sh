#!/bin/sh
# --rotate over WINDOWS windows of 1 s under churn (issue 42), against a
# single long run over the same span: bench/shortlived --churn 200 runs
# throughout; one psym-collect --rotate 1s and one psym-collect without
# --rotate sample the whole system at HZ at the same time.
# The spans are matched with signals, each collector draining its samples
# at its next loop once signalled: the long run starts first; once it
# samples, SIGHUP (0.3 s into a window) ends the rotating collector's
# window under way (not counted), so the next window's samples start with
# that drain; 0.9 s
# into the last window, SIGHUP ends it and SIGINT ends the long run at the
# same moment. Then the rotating one is stopped (its last, empty window
# not counted). The profiles' time_nanos and duration_nanos give both
# spans, printed; a window's samples also cover the write of the window
# before it (they wait in the kernel's maps meanwhile). The long run's lead
# (from when it was seen sampling to the drain that starts the first
# counted window) is printed, and the ratio without that lead's samples at
# the long run's mean rate.
# Checks, without psym's reader for the counts: every window's file passes
# `psym check` and `go tool pprof -raw`; the -v log has each window number
# once, with no gap; the windows' time_nanos follow each other (the gap
# between one window's end and the next one's start is the write, whose
# samples go to the next window); the samples (protoc's decode, the first
# value summed) of the WINDOWS windows against the long run's, both
# without the two collectors' own samples: each collector leaves out its
# own pid, not the other's, and the rotating one spends more CPU (a
# window's file, side directory and summary every second).
# Usage: bench/collector-rotate.sh [WINDOWS] [OUT_DIR]   (root; PSYM_COLLECT,
#        PSYM, GO (default: go, else /usr/lib/go*/bin/go), HZ=99, CHURN=200;
#        OUT_DIR is kept, else a temporary directory is removed)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
collect=${PSYM_COLLECT:-$top/build/psym-collect}
psym=${PSYM:-$top/build/psym}
nwin=${1:-100}
hz=${HZ:-99}
churn=${CHURN:-200}
go=${GO:-$(command -v go || ls /usr/lib/go*/bin/go 2>/dev/null | head -1)}
[ -x "$go" ] || { echo "no go (for go tool pprof)" >&2; exit 1; }
if [ -n "${2:-}" ]; then
	T=$2
	mkdir -p "$T"
	keep=1
else
	T=$(mktemp -d)
	keep=
fi
rpid=
lpid=
chpid=
cleanup() {
	for p in $lpid $rpid; do kill -INT "$p" 2>/dev/null || true; done
	[ -z "$chpid" ] || kill "$chpid" 2>/dev/null || true
	wait 2>/dev/null || true
	[ -n "$keep" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
decode() { gzip -dc "$1" | protoc --proto_path="$top/proto" --decode=perftools.profiles.Profile profile.proto; }
# SAMPLES TIME_NANOS DURATION_NANOS of a decoded profile, without the
# samples of the two collectors (each leaves itself out, not the other).
facts() { python3 "$here/churn-loss.py" --count --not-pids "$rpid0,$lpid0"; }
waitfor() { # FILE PATTERN: up to 60 s
	i=0
	until grep -q "$2" "$1" 2>/dev/null || [ $i -gt 1200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}
done_count() { grep -c 'window [0-9]* done' "$T/rot.log" 2>/dev/null || true; }

gcc -O1 -g -fno-omit-frame-pointer -o "$T/shortlived" "$here/shortlived.c"
mkdir -p "$T/rot"
"$T/shortlived" --churn "$churn" $((nwin * 3 + 120)) 1 2>"$T/churn.log" &
chpid=$!
"$collect" -v -F "$hz" --rotate 1s -o "$T/rot/cpu-%Y%m%dT%H%M%SZ.pb.gz" 2>"$T/rot.log" &
rpid=$!
rpid0=$rpid
waitfor "$T/rot.log" sampling
"$collect" -v -F "$hz" -o "$T/long.pb.gz" 2>"$T/long.log" &
lpid=$!
lpid0=$lpid
waitfor "$T/long.log" sampling
t_long=$(date +%s%N)
# SIGHUP 0.3 s into a window (a window's write can take a second on a
# loaded host, and a signal then waits for it).
k=$(($(done_count) + 1))
waitfor "$T/rot.log" "window $k done"
sleep 0.3
kill -HUP "$rpid"
first=$((k + 1)) # the window SIGHUP ended
waitfor "$T/rot.log" "window $first done"
from=$((first + 1))
to=$((first + nwin))
# The end: 0.9 s into window $to, SIGHUP ends it and SIGINT the long run at
# the same moment; each drains at its next loop (POLL_NS).
prev=$((to - 1))
[ "$prev" -ge "$from" ] || prev=$first
while ! grep -q "window $prev done" "$T/rot.log"; do
	kill -0 "$rpid" 2>/dev/null || { echo "the rotating run ended: $(tail -3 "$T/rot.log")" >&2; exit 1; }
	sleep 0.05
done
sleep 0.9
kill -HUP "$rpid"
kill -INT "$lpid"
waitfor "$T/rot.log" "window $to done"
kill -INT "$rpid"
wait "$lpid" || echo "the long run failed: $(tail -3 "$T/long.log")" >&2
wait "$rpid" || echo "the rotating run failed: $(tail -3 "$T/rot.log")" >&2
lpid=
rpid=
kill "$chpid" 2>/dev/null || true # (SIGINT is ignored in the background)
wait "$chpid" 2>/dev/null || true
chpid=

# Each window file: valid for psym check and go tool pprof, its facts.
bad=0
: >"$T/windows"
for f in "$T"/rot/*.pb.gz; do
	"$psym" check -q "$f" >"$T/check.out" 2>&1 || { bad=$((bad + 1)); echo "psym check: $f: $(cat "$T/check.out")"; }
	"$go" tool pprof -symbolize=none -raw "$f" >"$T/raw.out" 2>&1 || { bad=$((bad + 1)); echo "pprof -raw: $f: $(tail -1 "$T/raw.out")"; }
	echo "$(decode "$f" | facts) ${f##*/}" >>"$T/windows"
done
sort -k2,2n "$T/windows" >"$T/windows.sorted"
nfiles=$(wc -l <"$T/windows.sorted")
ndone=$(done_count)
# The window numbers in the log: 1..ndone, each once.
gaps=$(grep -o 'window [0-9]* done' "$T/rot.log" | awk '{if ($2 != NR) g++} END {print g + 0}')
# Between windows: the next start minus this end (ms); the worst.
awk 'NR > 1 {g = ($2 - pe) / 1e6; if (g > max) max = g; if (g < min || NR == 2) min = g}
	{pe = $2 + $3} END {printf "%.1f %.1f\n", min, max}' "$T/windows.sorted" >"$T/between"
win=$(awk -v a="$from" -v b="$to" 'NR >= a && NR <= b {n += $1; d += $3; if (NR == a) t0 = $2; t1 = $2 + $3}
	END {printf "%d %.3f %.0f %.0f\n", n, d / 1e9, t0, t1}' "$T/windows.sorted")
long=$(decode "$T/long.pb.gz" | facts)
fe=$(awk -v a="$first" 'NR == a {printf "%.0f\n", $2 + $3}' "$T/windows.sorted")
set -- $win
wn=$1 wd=$2 wt0=$3 wt1=$4
set -- $long
ln=$1 lt0=$2 ld=$3
echo "windows: $nfiles files, $ndone done in the log, $gaps numbering gaps, $bad invalid"
echo "between windows: $(cut -d' ' -f1 "$T/between") to $(cut -d' ' -f2 "$T/between") ms from one window's end to the next one's start"
echo "windows $from-$to: $wn samples over $wd s (sum of durations)"
echo "long run: $ln samples over $(echo "scale=3; $ld / 1000000000" | bc) s"
echo "span: the long run sampled from (0.05 s at most before) $(echo "scale=3; ($fe - $t_long) / 1000000000" | bc) s before window $first's end (window $from's samples start there) and ended $(echo "scale=3; ($lt0 + $ld - $wt1) / 1000000000" | bc) s after window $to's end"
lead=$(echo "scale=3; ($fe - $t_long) / 1000000000" | bc)
echo "windows / long run: $(echo "scale=4; $wn / $ln" | bc); without the long run's lead ($lead s at its mean rate): $(echo "scale=4; $wn / ($ln - $lead * $ln * 1000000000 / $ld)" | bc)"
echo "the collectors' own samples: the long run has $(decode "$T/long.pb.gz" | python3 "$here/churn-loss.py" --count | cut -d' ' -f1) - $ln = $(( $(decode "$T/long.pb.gz" | python3 "$here/churn-loss.py" --count | cut -d' ' -f1) - ln )) more with them"
echo "rotating run's lost counts (the summary's counters run over the whole run): $(grep '^psym-collect: lost' "$T/rot.log" | tail -1)"
echo "rotating run's last summary lines:"
grep -v 'window [0-9]* done' "$T/rot.log" | tail -4
echo "long run's summary:"
grep -E '^psym-collect: [0-9.]+s,|^psym-collect: lost' "$T/long.log"
echo "$(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg), HZ $hz"
