#!/bin/sh
# The profile pipeline with the index ready (issue 25's speed and memory
# goals), before/after in one run: two psym builds alternate on libjvm's
# profiles, llvm-symbolizer --inlines on the same addresses in the same run.
# Checks that both builds' outputs decode to the same bytes.
#
# usage: bench/index-pipeline.sh CORPUS OLD_PSYM NEW_PSYM
# env: SIZES (default "100000 1000000"), RUNS (psym runs per build and
# size, default 3; the table gives the median by CPU), LLVM_RUNS
# (llvm-symbolizer runs per size, default 1: its times vary by 20% from
# run to run here, so take 3 for a table to keep), OUT (default: stdout
# only).
set -eu
C=${1:?usage: bench/index-pipeline.sh CORPUS OLD_PSYM NEW_PSYM}
OLD=${2:?}
NEW=${3:?}
SIZES=${SIZES:-"100000 1000000"}
RUNS=${RUNS:-3}
LLVM_RUNS=${LLVM_RUNS:-1}
LS=$(command -v llvm-symbolizer)
W=$(mktemp -d "${TMPDIR:-/tmp}/psym-pipeline-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
line=$(grep '^libjvm' "$C/targets.tsv")
J=$(echo "$line" | cut -f2)
DD=$(echo "$line" | cut -f4)
export XDG_CACHE_HOME="$W/xdg"

# t NAME CMD...: "wall cpu rssMB" appended to $W/NAME
t() {
	tn=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$W/time" "$@"
	awk '{printf "%.2f %.2f %d\n", $1, $2 + $3, $4 / 1024}' "$W/time" >>"$W/$tn"
}
# median line by CPU
med() { sort -k2,2n "$W/$1" | awk '{l[NR] = $0} END {print l[int((NR + 1) / 2)]}'; }
f() { echo "$1" | cut -d' ' -f"$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }

load0=$(cut -d' ' -f1-3 /proc/loadavg)
"$NEW" index --index-store "$W/S" --offline --debug-dir "$DD" "$J" >/dev/null
rows=""
for n in $SIZES; do
	pb=$C/pprof/libjvm.$n.pb.gz
	[ -f "$pb" ] || continue
	for _ in $(seq "$RUNS"); do
		t "old$n" "$OLD" symbolize --no-cache --index-store "$W/S" --offline "$pb" -o "$W/old.pb" -q
		t "new$n" "$NEW" symbolize --no-cache --index-store "$W/S" --offline "$pb" -o "$W/new.pb" -q
	done
	for _ in $(seq "$LLVM_RUNS"); do
		t "llvm$n" "$LS" --inlines --obj="$J" --debug-file-directory="$DD" <"$C/addrs/libjvm.$n.txt" >/dev/null
	done
	gzip -dc "$W/old.pb" >"$W/old.raw"
	gzip -dc "$W/new.pb" >"$W/new.raw"
	same=no
	cmp -s "$W/old.raw" "$W/new.raw" && same=yes
	o=$(med "old$n")
	w=$(med "new$n")
	l=$(med "llvm$n")
	rows="$rows
| $n | $(f "$o" 1) / $(f "$o" 2) / $(f "$o" 3) | $(f "$w" 1) / $(f "$w" 2) / $(f "$w" 3) | $(f "$l" 1) / $(f "$l" 2) / $(f "$l" 3) | $(ratio "$(f "$l" 2)" "$(f "$o" 2)")x / $(ratio "$(f "$l" 2)" "$(f "$w" 2)")x | $(ratio "$(f "$l" 1)" "$(f "$o" 1)")x / $(ratio "$(f "$l" 1)" "$(f "$w" 1)")x | 1/$(ratio "$(f "$l" 3)" "$(f "$o" 3)") / 1/$(ratio "$(f "$l" 3)" "$(f "$w" 3)") | $(wc -c <"$W/old.pb") / $(wc -c <"$W/new.pb") | $same |"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "Run $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, load average $load0 at the start, $load1 at the end; psym: median of $RUNS alternating runs by CPU, llvm-symbolizer: median of $LLVM_RUNS. Cells: wall s / CPU s (user+sys) / max RSS MB."
	echo
	echo "| N | psym before | psym after | llvm-symbolizer --inlines | CPU speed-up vs llvm, before / after | wall speed-up, before / after | RSS vs llvm, before / after | output bytes, before / after | decoded outputs equal |"
	echo "|---|---|---|---|---|---|---|---|---|"
	echo "$rows" | sed '/^$/d'
} | tee "${OUT:-/dev/null}"
