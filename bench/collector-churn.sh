#!/bin/sh
# Short-lived processes (issue 31): loss, CPU and bytes of psym-collect
# against perf record -a -g on a host starting ~400 real programs a second
# (bench/shortlived --churn: each lives 5-20 ms, spins 1 ms).
# Each profiler samples the whole system at 499 Hz for 15 s; 3 rounds,
# medians. Loss: the share of the short-lived processes' samples with
# user frames whose leaf user frame has no mapping (psym-collect: counted
# from protoc's decode by bench/churn-loss.py; perf: `perf report --comm
# shortlived --sort dso`, [unknown] among the non-kernel samples). CPU:
# the profiler's user + sys time (perf's includes its build-ID pass at the
# end). Bytes: the profile (+ side dir) or perf.data; then the archive of
# the binaries: psym archive against perf archive.
# Rewrites the "## Short-lived processes" section of bench/COLLECTOR.md.
# Usage: bench/collector-churn.sh [ROUNDS]   (root; PSYM_COLLECT, PSYM,
#        PSYM_COLLECT_BASE = a psym-collect built from main to compare)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
collect=${PSYM_COLLECT:-$top/build/psym-collect}
psym=${PSYM:-$top/build/psym}
base=${PSYM_COLLECT_BASE:-}
rounds=${1:-3}
secs=${CHURN_SECONDS:-15}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
gcc -O1 -g -fno-omit-frame-pointer -o "$T/shortlived" "$here/shortlived.c"
proto=$top/proto
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

run() { # LABEL COMMAND...: 5 s under churn; CPU to $T/cpu.LABEL
	label=$1
	shift
	"$T/shortlived" --churn 400 $((secs + 2)) 1 2>"$T/churn" &
	ch=$!
	sleep 1
	/usr/bin/time -f "%U %S" -o "$T/time" "$@" >/dev/null 2>"$T/log.$label" || true
	wait $ch 2>/dev/null || true
	awk '{printf "%.0f\n", $2 / ($5 / 1000)}' "$T/churn" >>"$T/rate"
	tail -1 "$T/time" | awk '{printf "%.2f\n", $1 + $2}' >>"$T/cpu.$label"
}
loss_psym() { # LABEL PROFILE
	gzip -dc "$2" | protoc --proto_path="$proto" --decode=perftools.profiles.Profile profile.proto |
		python3 "$here/churn-loss.py" shortlived |
		awk '{printf "%.2f %d\n", 100 * (1 - $6), $2}' >>"$T/loss.$1"
}
: >"$T/rate"
for r in $(seq "$rounds"); do
	if [ -n "$base" ]; then
		run base "$base" -F 499 -d "$secs" -o "$T/base.pb.gz"
		loss_psym base "$T/base.pb.gz"
	fi
	run notrack "$collect" -F 499 -d "$secs" --no-mmap-track -o "$T/notrack.pb.gz"
	loss_psym notrack "$T/notrack.pb.gz"
	run psym "$collect" -F 499 -d "$secs" -o "$T/psym.pb.gz"
	loss_psym psym "$T/psym.pb.gz"
	run perf perf record -q -F 499 -g -a -o "$T/perf.data" -- sleep "$secs"
	perf report -i "$T/perf.data" --comm shortlived --sort dso --stdio -g none 2>/dev/null |
		awk '$1 ~ /%$/ {sub("%", "", $1); if ($2 == "[kernel.kallsyms]") k += $1; else if ($2 == "[unknown]") u += $1; else m += $1}
			END {printf "%.2f %d\n", (u + m) ? 100 * u / (u + m) : 0, 0}' >>"$T/loss.perf"
done
psym_bytes=$(stat -c %s "$T/psym.pb.gz")
side_bytes=$(du -sb "$T/psym.pb.gz.d" | cut -f1)
perf_bytes=$(stat -c %s "$T/perf.data")
"$psym" archive -q "$T/psym.pb.gz" -o "$T/psym.tar.zst"
parch=$(stat -c %s "$T/psym.tar.zst")
(cd "$T" && perf archive perf.data >/dev/null 2>&1) || true
farch=$(stat -c %s "$T/perf.data.tar.bz2" 2>/dev/null || echo "-")
med() { awk -v f="$2" '{print $f}' "$T/$1" | median; }
section=$(
	echo "## Short-lived processes"
	echo
	echo "Produced by bench/collector-churn.sh ($rounds rounds, medians; $(nproc) cores,"
	echo "$(uname -r), $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1 /proc/loadavg) from other jobs)."
	echo "bench/shortlived --churn 400 started $(median <"$T/rate") programs a second (each lives"
	echo "5-20 ms and spins 1 ms in its own code; asked for 400, the loaded machine gave this);"
	echo "each profiler sampled the whole system at 499 Hz for $secs s. Lost: the"
	echo "percentage of those processes' samples (with user frames) whose leaf user"
	echo "frame has no mapping. CPU: the profiler's user + sys seconds."
	echo
	echo "| profiler | lost % | CPU s | output bytes |"
	echo "|---|---|---|---|"
	if [ -n "$base" ]; then
		echo "| psym-collect of main (before) | $(med loss.base 1) | $(med cpu.base 1) | - |"
	fi
	echo "| psym-collect --no-mmap-track | $(med loss.notrack 1) | $(med cpu.notrack 1) | - |"
	echo "| psym-collect (mappings recorded as made) | $(med loss.psym 1) | $(med cpu.psym 1) | $psym_bytes (profile) + $side_bytes (side dir: kallsyms, vDSO) |"
	echo "| perf record -F 499 -g -a | $(med loss.perf 1) | $(med cpu.perf 1) | $perf_bytes (perf.data) |"
	echo
	echo "Archive of the binaries the last round's profile names: psym archive"
	echo "$parch bytes (.tar.zst); perf archive of its perf.data $farch bytes (.tar.bz2)."
	echo
	echo "The archives differ in content: psym archive also packs separate debug"
	echo "files (.build-id/NN/REST.debug) and every binary the profile names, by"
	echo "build ID; perf archive packs the binaries of perf's build-ID cache."
	echo
	echo "psym-collect's summary of the last round:"
	echo
	echo '```'
	cat "$T/log.psym"
	echo '```'
)
md=$here/COLLECTOR.md
# In place of the old section (up to the next "## " heading: the sections
# after it stay), or at the end.
printf '%s\n\n' "$section" >"$T/section.md"
if grep -q '^## Short-lived processes' "$md"; then
	awk -v f="$T/section.md" '/^## Short-lived processes/ {while ((getline l <f) > 0) print l; skip = 1; next}
		skip && /^## / {skip = 0} !skip' "$md" >"$T/new.md"
	cat "$T/new.md" >"$md"
else
	cat "$T/section.md" >>"$md"
fi
printf '%s\n' "$section"
