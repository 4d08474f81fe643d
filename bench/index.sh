#!/bin/sh
# Per-build-ID indexes (issue 25) on the bench corpus (../shared/bench/
# make-corpus), side by side with their peers in one run:
#   building libjvm's index    psym index          vs llvm-gsymutil --convert
#   answering with it ready    psym symbolize      vs llvm-symbolizer --inlines (DWARF)
#                                                  vs llvm-gsymutil --addresses-from-stdin (GSYM)
#   the first run (no index)   psym symbolize with an empty store vs without indexes
#   the answer-cache path      psym symbolize --cache, second run, with and without indexes
# and checks that the profile from the index is byte-identical to the one
# from the DWARF, and that psym's GSYM answers equal llvm-gsymutil's.
#
# usage: bench/index.sh CORPUS [BUILD]   (BUILD: the build dir, default ./build)
# env: SIZES (default "100000 1000000"), LLVM_SIZES (llvm-symbolizer, default
# "100000"), OUT (default bench/INDEX.md). Prints the table; writes OUT.
set -eu
C=${1:?usage: bench/index.sh CORPUS [BUILD]}
B=${2:-build}
PSYM=$(cd "$B" && pwd)/psym
SIZES=${SIZES:-"100000 1000000"}
LLVM_SIZES=${LLVM_SIZES:-100000}
OUT=${OUT:-bench/INDEX.md}
GS=$(command -v llvm-gsymutil-14 || command -v llvm-gsymutil)
LS=$(command -v llvm-symbolizer)
W=$(mktemp -d "${TMPDIR:-/tmp}/psym-index-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
line=$(grep '^libjvm' "$C/targets.tsv")
J=$(echo "$line" | cut -f2)
DW=$(echo "$line" | cut -f3)
DD=$(echo "$line" | cut -f4)
export XDG_CACHE_HOME=$W/xdg

# t NAME CMD...: run, record "wall user+sys maxRSS-MB" in $W/NAME.t
t() {
	tn=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$W/$tn.time" "$@"
	awk '{printf "%.2f %.2f %d\n", $1, $2 + $3, $4 / 1024}' "$W/$tn.time" >"$W/$tn.t"
}
wall() { cut -d' ' -f1 "$W/$1.t"; }
cpu() { cut -d' ' -f2 "$W/$1.t"; }
mb() { cut -d' ' -f3 "$W/$1.t"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", (b > 0 ? a / b : 0) }'; }

load0=$(cut -d' ' -f1-3 /proc/loadavg)
# ---- building
t build "$PSYM" index --index-store "$W/S" --offline --debug-dir "$DD" "$J" >"$W/build.out"
t convert "$GS" --convert "$DW" -o "$W/libjvm.gsym" >/dev/null 2>&1
isize=$(cut -d' ' -f2 "$W/build.out")
gsize=$(wc -c <"$W/libjvm.gsym")

# ---- answering
rows=""
for n in $SIZES; do
	pb=$C/pprof/libjvm.$n.pb.gz
	addrs=$C/addrs/libjvm.$n.txt
	[ -f "$pb" ] || continue
	t cold$n "$PSYM" symbolize --no-cache --no-index --offline --debug-dir "$DD" "$pb" -o "$W/cold$n.pb" -q
	rm -rf "$W/E"
	t first$n "$PSYM" symbolize --no-cache --index-store "$W/E" --offline --debug-dir "$DD" "$pb" -o "$W/first$n.pb" -q
	# the background build of the first run: let it finish before timing more
	for _ in $(seq 600); do
		ls "$W"/E/*/*.psymidx >/dev/null 2>&1 && break
		sleep 0.5
	done
	t ready$n "$PSYM" symbolize --no-cache --index-store "$W/S" --offline "$pb" -o "$W/ready$n.pb" -q
	same=no
	cmp -s "$W/ready$n.pb" "$W/cold$n.pb" && cmp -s "$W/first$n.pb" "$W/cold$n.pb" && same=yes
	sed "s|\$| $W/libjvm.gsym|" "$addrs" >"$W/q$n"
	t gsym$n "$GS" --addresses-from-stdin <"$W/q$n" >/dev/null
	llvm="not run"
	for m in $LLVM_SIZES; do
		[ "$m" = "$n" ] || continue
		t llvm$n "$LS" --inlines --obj="$J" --debug-file-directory="$DD" <"$addrs" >/dev/null
		llvm="$(wall llvm$n) s, $(cpu llvm$n) s CPU, $(mb llvm$n) MB ($(ratio "$(cpu llvm$n)" "$(cpu ready$n)") CPU)"
	done
	# the answer cache: first run fills it, the second is timed
	rm -rf "$W/sc" "$W/sc2"
	"$PSYM" symbolize --cache "$W/sc" --no-index --offline --debug-dir "$DD" "$pb" -o "$W/c1.pb" -q
	t cache$n "$PSYM" symbolize --cache "$W/sc" --no-index --offline --debug-dir "$DD" "$pb" -o "$W/c2.pb" -q
	"$PSYM" symbolize --cache "$W/sc2" --index-store "$W/E2" --no-index-build --offline --debug-dir "$DD" "$pb" -o "$W/c3.pb" -q
	t cachei$n "$PSYM" symbolize --cache "$W/sc2" --index-store "$W/E2" --no-index-build --offline --debug-dir "$DD" "$pb" -o "$W/c4.pb" -q
	rows="$rows
| $n | $(wall cold$n) / $(cpu cold$n) / $(mb cold$n) | $(wall first$n) / $(cpu first$n) / $(mb first$n) ($(ratio "$(wall first$n)" "$(wall cold$n)") of cold) | $(wall ready$n) / $(cpu ready$n) / $(mb ready$n) | $llvm | $(wall gsym$n) / $(cpu gsym$n) / $(mb gsym$n) ($(ratio "$(cpu gsym$n)" "$(cpu ready$n)") CPU) | $(wall cache$n) / $(wall cachei$n) | $same |"
done

# ---- GSYM answers vs llvm-gsymutil's, libjvm 10k
a10=$C/addrs/libjvm.10000.txt
sed "s|\$| $W/libjvm.gsym|" "$a10" | "$GS" --addresses-from-stdin >"$W/g10.txt" 2>&1
"$PSYM" addr --json --no-demangle --gsym "$W/libjvm.gsym" -e "$J" <"$a10" >"$W/p10.json"
sed -n '/^cat >cmp.py/,/^PY$/p' tests/gsym.sh | sed '1d;$d' >"$W/cmp.py"
gagree=$(python3 "$W/cmp.py" "$W/g10.txt" "$W/p10.json" | head -1 || true)
load1=$(cut -d' ' -f1-3 /proc/loadavg)

{
	echo "## Per-build-ID index (issue 25): bench/index.sh"
	echo
	echo "Run $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores; load average $load0 at the start, $load1 at the end (the machine is shared: wall times are inflated; CPU = user+sys seconds is the steadier measure)."
	echo
	echo "Building libjvm's index (all $(cut -d' ' -f1 "$W/build.out" | cut -c1-12)... compile units):"
	echo
	echo "| | wall s | CPU s | max RSS MB | file MB |"
	echo "|---|---|---|---|---|"
	echo "| psym index | $(wall build) | $(cpu build) | $(mb build) | $(awk -v s="$isize" 'BEGIN{printf "%.1f", s/1e6}') |"
	echo "| llvm-gsymutil --convert | $(wall convert) | $(cpu convert) | $(mb convert) | $(awk -v s="$gsize" 'BEGIN{printf "%.1f", s/1e6}') |"
	echo
	echo "Index size / GSYM size: $(awk -v a="$isize" -v b="$gsize" 'BEGIN{printf "%.2f", a/b}') (the index also holds columns, start lines, discriminators, linkage and display names)."
	echo
	echo "Symbolizing libjvm profiles (each cell: wall s / CPU s / max RSS MB):"
	echo
	echo "| N | psym, no index (cold) | psym, first run (empty store: builds in the background) | psym, index ready, no DWARF | llvm-symbolizer --inlines | llvm-gsymutil on its GSYM | answer cache 2nd run: --no-index / with a store | index profile = DWARF profile |"
	echo "|---|---|---|---|---|---|---|---|"
	echo "$rows" | sed '/^$/d'
	echo
	echo "GSYM as a source (psym addr --gsym vs llvm-gsymutil --addresses-from-stdin, libjvm 10k): $gagree (function, inline chain, file:line)."
} | tee "$OUT"
