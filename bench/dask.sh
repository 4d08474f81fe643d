#!/bin/sh
# What the Dask layer costs and gives on this machine (doc/SCALE.md uses it):
#
#   bench/dask.sh                 (env: PSYM, N=2000 profiles, REPS=3)
#
# N generated profiles over 20 small programs (20 build IDs, the fixture of
# tests/dask.sh), all symbolized with --offline --no-cache. Times, each the
# median of REPS runs:
#   plain        psym symbolize -j 1 / -j 2 DIR -o OUT
#   manifest     psym symbolize -j 2 --manifest (the batch primitive)
#   dask         contrib/dask/psym-dask with 1 and 2 workers (1 thread
#                each, psym -j 1 per task), shard sizes 25, 100, 500
#   per task     shards of 1 input: the whole cost of one task (Dask
#                scheduling + starting psym + opening the binary cold)
#                minus what psym -j 1 spends on one input in a long run;
#                and the part of it that is psym's own start (the same
#                1-input manifests run one after another without Dask)
#   debuginfod   one debug file fetched by build ID from a local debuginfod
#                (127.0.0.1), cold client cache: the floor of a fetch
# Prints a Markdown table; bench/DASK.md holds the last run's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
PSYM=${PSYM:-$top/build/psym}
N=${N:-2000}
REPS=${REPS:-3}
DASKPY=""
for py in /usr/bin/python3 python3; do
	if "$py" -c 'import distributed' 2>/dev/null; then
		DASKPY=$py
		break
	fi
done
[ -n "$DASKPY" ] || { echo "bench/dask.sh: python3-distributed is not installed"; exit 2; }
[ -x "$PSYM" ] || { echo "bench/dask.sh: build psym first ($PSYM)"; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/psym-bench-dask.XXXXXX")
pids=""
stop() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	sleep 1
	for p in $pids; do kill -9 "$p" 2>/dev/null || true; done
	rm -rf "$W"
}
trap stop EXIT
trap 'exit 1' INT TERM
cd "$W"
export XDG_CACHE_HOME=$W/.cache

sed -n '/^cat >v.c <<.C.$/,/^C$/p' "$top/tests/dask.sh" | sed '1d;$d' >v.c
bins=""
for n in $(seq 1 20); do
	gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -DVARIANT="$n" -o "bin$n" v.c
	bins="$bins bin$n"
done
# shellcheck disable=SC2086
python3 "$top/tests/genbatch.py" in "$N" $bins >manifest
head -n 200 manifest >manifest200
split -l 1 manifest200 one.

load0=$(cut -d' ' -f1-3 /proc/loadavg)
now() { date +%s.%N; }
# med CMD...: median wall seconds of REPS runs (out/ emptied before each)
med() {
	for _ in $(seq 1 "$REPS"); do
		rm -rf out
		mkdir out
		t0=$(now)
		"$@" >/dev/null 2>&1 || echo "bench/dask.sh: failed: $*" >&2
		t1=$(now)
		echo "$t1 - $t0" | bc
	done | sort -n | sed -n "$(((REPS + 1) / 2))p"
}
rate() { echo "scale=0; $1 / $2" | bc; }
ms() { echo "scale=2; $1 * 1000 / $2" | bc; }

"$DASKPY" -m distributed.cli.dask_scheduler --host 127.0.0.1 --port 0 --no-dashboard \
	--scheduler-file sched.json >sched.log 2>&1 &
pids="$pids $!"
pid_sched=$!
# CPU seconds (user + system, without children) a process has used so far:
# unlike wall time, hardly changed by other jobs on a loaded machine.
hz=$(getconf CLK_TCK)
cpu() { awk -v hz="$hz" '{ print ($14 + $15) / hz }' "/proc/$1/stat"; }
# ... and of its children that ended (the psym processes of a worker)
ccpu() { awk -v hz="$hz" '{ print ($16 + $17) / hz }' "/proc/$1/stat"; }
start_worker() {
	"$DASKPY" -m distributed.cli.dask_worker --scheduler-file sched.json --host 127.0.0.1 \
		--no-dashboard --no-nanny --nthreads 1 --name "$1" --local-directory "$W/$1" \
		>"$1.log" 2>&1 &
	pids="$pids $!"
	eval "pid_$1=$!"
	"$DASKPY" - "$2" <<'PY'
import os, sys, time
import distributed
while not (os.path.exists("sched.json") and os.path.getsize("sched.json")):
    time.sleep(0.1)
c = distributed.Client(scheduler_file="sched.json", timeout=30)
c.wait_for_workers(int(sys.argv[1]), timeout=60)
c.close()
PY
}
start_worker w1 1
sched=$("$DASKPY" -c 'import json; print(json.load(open("sched.json"))["address"])')
dask_run() { # MANIFEST SHARD
	"$top/contrib/dask/psym-dask" --scheduler "$sched" --manifest "$1" --shard-size "$2" \
		--psym "$PSYM" -- --offline --no-cache -j 1
}
dask_run_timed() { /usr/bin/time -a -o client.times -f "%U %S" "$top/contrib/dask/psym-dask" \
	--scheduler "$sched" --manifest "$1" --shard-size "$2" --psym "$PSYM" -- --offline --no-cache -j 1; }

echo "| run | seconds | profiles/s |"
echo "|---|---|---|"
row() { echo "| $1 | $2 | $(rate "$3" "$2") |"; }
t=$(med "$PSYM" symbolize -q -j 1 --offline --no-cache in -o out); row "psym -j 1, $N profiles" "$t" "$N"
tj1=$t
t=$(med "$PSYM" symbolize -q -j 2 --offline --no-cache in -o out); row "psym -j 2" "$t" "$N"
t=$(med "$PSYM" symbolize -q -j 2 --offline --no-cache --manifest manifest); row "psym -j 2 --manifest" "$t" "$N"
for s in 25 100 500; do
	t=$(med dask_run manifest $s); row "psym-dask, 1 worker, shards of $s" "$t" "$N"
done
t200=$(med "$PSYM" symbolize -q -j 1 --offline --no-cache --manifest manifest200)
# A job of one input: what starting a job costs (client import, connect).
tstart=$(med dask_run one.aa 1)
rm -f client.times
t=$(med dask_run_timed one.aa 1)
cpu_start=$(awk -v n="$REPS" '{ s += $1 + $2 } END { printf "%.3f", s / n }' client.times)
c0s=$(cpu "$pid_sched")
c0w=$(cpu "$pid_w1")
c0p=$(ccpu "$pid_w1")
rm -f client.times
t1=$(med dask_run_timed manifest200 1)
ntask=$((REPS * 200))
cpu_sched=$(echo "scale=3; ($(cpu "$pid_sched") - $c0s) * 1000 / $ntask" | bc)
cpu_worker=$(echo "scale=3; ($(cpu "$pid_w1") - $c0w) * 1000 / $ntask" | bc)
cpu_psym=$(echo "scale=3; ($(ccpu "$pid_w1") - $c0p) * 1000 / $ntask" | bc)
cpu_client=$(awk -v n="$ntask" -v st="$cpu_start" -v r="$REPS" \
	'{ s += $1 + $2 } END { printf "%.3f", (s - st * r) * 1000 / n }' client.times)
# The same 200 one-input manifests without Dask: psym's start + cold binary.
seq_run() { for f in one.*; do "$PSYM" symbolize -q -j 1 --offline --no-cache --manifest "$f"; done; }
tseq=$(med seq_run)
start_worker w2 2
for s in 25 100 500; do
	t=$(med dask_run manifest $s); row "psym-dask, 2 workers, shards of $s" "$t" "$N"
done
t2=$(med dask_run manifest200 1)
echo
echo "| per task (shards of 1 input, 200 tasks) | ms |"
echo "|---|---|"
echo "| psym -j 1 per input in one long run | $(ms "$t200" 200) |"
echo "| one psym process per input, no Dask | $(ms "$tseq" 200) |"
echo "| psym-dask task, 1 worker | $(ms "$t1" 200) |"
echo "| psym-dask task, 2 workers (wall per task) | $(ms "$t2" 200) |"
echo "| Dask's own share per task (1 worker: task - process - job start) | $(echo "scale=2; ($t1 - $tseq - $tstart) * 1000 / 200" | bc) |"
echo "| starting a job (a 1-input job, once per job) | $(echo "scale=2; $tstart * 1000" | bc) |"
echo
echo "| CPU per task (shards of 1 input, 1 worker) | ms |"
echo "|---|---|"
echo "| dask-scheduler | $cpu_sched |"
echo "| dask-worker (itself, without psym) | $cpu_worker |"
echo "| psym-dask client (without its start: $cpu_start s CPU once per job) | $cpu_client |"
echo "| psym (the task's process: start, cold binary, one profile) | $cpu_psym |"

if command -v debuginfod >/dev/null && command -v debuginfod-find >/dev/null; then
	mkdir -p dbg
	cp bin* dbg/
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	debuginfod -p "$port" -F dbg -d "$W/dbg.sqlite" >debuginfod.log 2>&1 &
	pids="$pids $!"
	ids=$(for b in $bins; do readelf -n "$b" | sed -n 's/.*Build ID: //p'; done)
	first=$(echo "$ids" | head -n 1)
	for _ in $(seq 1 100); do
		DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$W/probe \
			debuginfod-find debuginfo "$first" >/dev/null 2>&1 && break
		sleep 0.2
	done
	fetch() {
		rm -rf "$W/dcache"
		for id in $ids; do
			DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$W/dcache \
				debuginfod-find debuginfo "$id" >/dev/null
		done
	}
	t=$(med fetch)
	echo
	echo "| debuginfod (local, loopback) | ms per build ID |"
	echo "|---|---|"
	echo "| debuginfod-find, cold cache, 20 build IDs | $(ms "$t" 20) |"
fi
echo
echo "_psym -j 1 alone: $(ms "$tj1" "$N") ms per profile; $(nproc) CPUs; N=$N, median of $REPS;" \
	"load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(date -u +%Y-%m-%d)._"
