#!/bin/sh
# Leaf frames in no mapping, psym-collect against perf record -a -g in the
# same run (issue 42): each workload runs once per psym-collect mode
# (default, --stack-copy 8192), with psym-collect and perf record -a -g both
# sampling the whole system at HZ at the same time (both use the cpu-clock
# software event, which is not multiplexed: neither changes what the other
# sees, only the load).
#   make: `make -j2` of a clean out-of-tree build of this tree (configured
#         once, `make clean` before each run);
#   node: `node --perf-basic-prof` running a JS CPU loop for NODE_SECONDS.
#   shell: the fork+exec churn of a shell loop (/bin/true, /usr/bin/env true,
#         sh -c '/bin/true; exec /usr/bin/env true') for SHELL_SECONDS;
#   short: bench/shortlived --churn 400 (400 programs a second asked, each
#         living 5-20 ms and spinning 1 ms in its own code) for SHELL_SECONDS.
# Counted without psym, by bench/churn-loss.py --by-comm: only the samples
# of the workload's own processes (the command and every process it
# started, from perf's fork events), per comm: the samples with user
# frames, and those whose leaf user frame (the sampled IP, or where it
# entered the kernel) is in no mapping (psym-collect: a location without a
# mapping in protoc's decode of the profile; perf: `perf script` printed its
# dso as [unknown]). A leaf in one of the pid's perf-PID.map symbols is
# known (psym-collect: the copies in its side directory; perf: /tmp's).
# psym-collect runs with -v: its examples of what was lost are in the logs.
# perf.data is repaired by bench/perf-mmap2-fix.py before perf script reads
# it (MMAP2 records flagged as carrying a build ID over an inode payload,
# when psym-collect's build-ID mmap events share the kernel's record).
# Usage: bench/collector-leafloss.sh [OUT_DIR]   (root; PSYM_COLLECT, HZ=499,
#        NODE_SECONDS=10, SHELL_SECONDS=10, WORKLOADS="make node shell short"; OUT_DIR is kept, else a
#        temporary directory is removed)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
collect=${PSYM_COLLECT:-$top/build/psym-collect}
hz=${HZ:-499}
node_secs=${NODE_SECONDS:-10}
shell_secs=${SHELL_SECONDS:-10}
workloads=${WORKLOADS:-make node shell short}
loss="python3 $here/churn-loss.py"
if [ -n "${1:-}" ]; then
	T=$1
	mkdir -p "$T"
	keep=1
else
	T=$(mktemp -d)
	keep=
fi
ppid_=
cpid=
cleanup() {
	[ -z "$cpid" ] || kill -INT "$cpid" 2>/dev/null || true
	[ -z "$ppid_" ] || kill -INT "$ppid_" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -f /tmp/perf-"$(cat "$T/root" 2>/dev/null || echo none)".map
	[ -n "$keep" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
command -v perf >/dev/null || { echo "no perf" >&2; exit 1; }
command -v protoc >/dev/null || { echo "no protoc" >&2; exit 1; }

cat >"$T/busy.js" <<EOF
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const end = Date.now() + $node_secs * 1000;
let s = 0;
while (Date.now() < end) s += fib(22);
console.log(s > 0 ? "ok" : "no");
EOF
cat >"$T/loop.sh" <<'EOF'
end=$(($(date +%s) + $1))
while [ "$(date +%s)" -lt $end ]; do
	/bin/true
	/usr/bin/env true
	sh -c '/bin/true; exec /usr/bin/env true'
done
EOF
case " $workloads " in
*" short "*) gcc -O1 -g -fno-omit-frame-pointer -o "$T/shortlived" "$here/shortlived.c" ;;
esac
case " $workloads " in
*" make "*)
	mkdir -p "$T/tree"
	(cd "$T/tree" && "$top/configure" -q >/dev/null)
	;;
esac

# One run: WORKLOAD MODE [psym-collect options]; leaves T/W.M.{psym,perf}.
run() {
	w=$1
	m=$2
	shift 2
	o=$T/$w.$m
	[ "$w" != make ] || make -s -C "$T/tree" clean >/dev/null 2>&1
	perf record -B -q -a -g -F "$hz" -o "$o.perf.data" 2>"$o.perf.log" &
	ppid_=$!
	"$collect" -v -F "$hz" "$@" -o "$o.pb.gz" 2>"$o.log" &
	cpid=$!
	i=0
	until grep -q "sampling" "$o.log" 2>/dev/null || [ $i -gt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 1 # perf record -a says nothing when it runs
	start=$(date +%s.%N)
	case $w in
	make) make -s -C "$T/tree" -j2 >"$o.out" 2>&1 & ;;
	node) (cd "$T" && exec node --perf-basic-prof busy.js) >"$o.out" 2>&1 & ;;
	shell) sh "$T/loop.sh" "$shell_secs" >"$o.out" 2>&1 & ;;
	short) "$T/shortlived" --churn 400 "$shell_secs" 1 >"$o.out" 2>&1 & ;;
	esac
	root=$!
	echo "$root" >"$T/root"
	wait "$root" || echo "$w failed: $(tail -3 "$o.out")" >&2
	end=$(date +%s.%N)
	sleep 0.5
	kill -INT "$cpid" "$ppid_"
	wait "$cpid" || true
	wait "$ppid_" || true
	cpid=
	ppid_=
	echo "$w $m: $(echo "$end - $start" | bc) s, load average $(cut -d' ' -f1-3 /proc/loadavg)" >>"$T/runs"
	echo "$w $m: $(python3 "$here/perf-mmap2-fix.py" "$o.perf.data")" >>"$T/runs"
	perf script -i "$o.perf.data" --show-task-events -F comm,pid 2>"$o.perf.err" |
		$loss --descendants "$root" >"$o.pids"
	perf script -i "$o.perf.data" -F comm,pid,ip,dso 2>/dev/null |
		$loss --by-comm --perf --pids "$o.pids" --perfmaps /tmp >"$o.perf"
	gzip -dc "$o.pb.gz" | protoc --proto_path="$top/proto" \
		--decode=perftools.profiles.Profile profile.proto |
		$loss --by-comm --pids "$o.pids" --perfmaps "$o.pb.gz.d" >"$o.psym"
	perf report -i "$o.perf.data" --stats 2>/dev/null | grep -E 'LOST|FORK events' |
		sed "s/^ */$w $m: perf /" >>"$T/runs"
	rm -f "/tmp/perf-$root.map"
	[ -n "${KEEP_PERF:-}" ] || rm -f "$o.perf.data"
}
for w in $workloads; do
	run "$w" default
	run "$w" stackcopy --stack-copy 8192
done

# The table: per comm with at least 20 samples in one of the four columns.
cell() { # FILE COMM
	awk -v c="$2" '$1 == "comm" && $2 == c {printf "%d of %d (%.2f%%)", $6, $4, 100 * $8; f = 1}
		END {if (!f) printf "-"}' "$1"
}
for w in $workloads; do
	echo
	echo "$w: unknown leaf / samples with user frames (share), per comm"
	echo
	echo "| comm | psym-collect | perf, same run | psym-collect --stack-copy 8192 | perf, same run |"
	echo "|---|---|---|---|---|"
	cat "$T/$w".*.psym "$T/$w".*.perf | awk '$1 == "comm" && $4 >= 20 {print $2}' | sort -u |
		while read -r c; do
			n=$(cat "$T/$w".*.psym "$T/$w".*.perf | awk -v c="$c" '$2 == c {s += $4} END {print s}')
			echo "$n $c"
		done | sort -rn | while read -r _ c; do
		echo "| $c | $(cell "$T/$w.default.psym" "$c") | $(cell "$T/$w.default.perf" "$c") |" \
			"$(cell "$T/$w.stackcopy.psym" "$c") | $(cell "$T/$w.stackcopy.perf" "$c") |"
	done
	for f in default.psym default.perf stackcopy.psym stackcopy.perf; do
		echo "$w.$f: $(grep '^total' "$T/$w.$f")"
	done
	echo
done
cat "$T/runs"
echo "$(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M') UTC, HZ $hz"
echo "cells over 1% (with 20 samples or more), examples pid:leaf:"
for f in "$T"/*.psym "$T"/*.perf; do
	awk -v f="${f##*/}" '$1 == "comm" && $4 >= 20 && $8 > 0.01 {print f ": " $0}' "$f"
done
