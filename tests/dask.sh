#!/bin/sh
# psym on a real Dask distributed cluster (contrib/dask/psym-dask): a
# dask-scheduler and 2 dask-worker processes on 127.0.0.1 symbolize 1,000
# profiles of 20 programs (20 build IDs) built here.
#  1. Every output equals the single-machine batch's (psym symbolize -j 2
#     DIR -o OUT; two of them checked against llvm-symbolizer too); both
#     workers did tasks; the results say which host/pid/worker did what.
#  2. A worker killed (SIGKILL) while its psym runs: the job still
#     finishes, every output exists exactly once, no temporary file remains.
#  3. The job interrupted, then run again: only the missing outputs are
#     made; the complete ones keep their inode and mtime.
#  4. With psym's --index-store (when this psym has it): one index build per
#     build ID across the cluster; otherwise reported as skipped.
#  5. Lines are checked one by one: one whose output is its own input
#     fails alone (its shard's 2 good lines written), one output under two
#     spellings is a failure; --results stays whole JSON lines.
# Skips (77) when python3-distributed is missing.
. "$top_srcdir/tests/lib.sh"
need gcc
need readelf
need nm
DASKPY=""
for py in /usr/bin/python3 python3; do
	if "$py" -c 'import distributed' 2>/dev/null; then
		DASKPY=$py
		break
	fi
done
[ -n "$DASKPY" ] || skip "python3-distributed is not installed (Debian: apt-get install python3-distributed)"
PSYMDASK="$top_srcdir/contrib/dask/psym-dask"

# ---- the cluster; every process of it stopped at the end, also on failure
pids=""
stop_cluster() {
	[ "$(exec sh -c 'echo $PPID')" = "$TOPPID" ] || return 0
	for p in $pids; do kill "$p" 2>/dev/null; done
	for _ in $(seq 1 50); do
		alive=""
		for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
		[ -z "$alive" ] && break
		sleep 0.1
	done
	for p in $pids; do kill -9 "$p" 2>/dev/null; done
	pids=""
}
trap 'stop_cluster; cleanup' EXIT
trap 'exit 1' INT TERM

"$DASKPY" -m distributed.cli.dask_scheduler --host 127.0.0.1 --port 0 --no-dashboard \
	--scheduler-file sched.json >sched.log 2>&1 &
pids="$pids $!"
start_worker() { # NAME: one process, one thread, no nanny (a kill loses it for good)
	"$DASKPY" -m distributed.cli.dask_worker --scheduler-file sched.json --host 127.0.0.1 \
		--no-dashboard --no-nanny --nthreads 1 --name "$1" --local-directory "$PWD/$1" \
		>"$1.log" 2>&1 &
	eval "pid_$1=$!"
	pids="$pids $!"
}
wait_workers() { # N: until the scheduler has N workers
	"$DASKPY" - "$1" <<'PY'
import json, os, sys, time
import distributed
for _ in range(300):
    if os.path.exists("sched.json") and os.path.getsize("sched.json"):
        break
    time.sleep(0.1)
c = distributed.Client(scheduler_file="sched.json", timeout=30)
c.wait_for_workers(int(sys.argv[1]), timeout=60)
c.close()
PY
}
start_worker w1
start_worker w2

# ---- 20 programs, 1,000 profiles (built and generated while workers start)
cat >v.c <<'C'
static inline __attribute__((always_inline)) int sq(int x) { return x * x + VARIANT; }
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i) ^ VARIANT; return s; }
__attribute__((noinline)) int beta(int n) { return alpha(n) * (3 + VARIANT) + sq(n); }
#if VARIANT % 2
__attribute__((noinline)) int odd(int n) { return beta(n + VARIANT) - alpha(n); }
#else
__attribute__((noinline)) int even(int n) { return beta(n) + alpha(n + VARIANT); }
#endif
int main(int argc, char **argv) { (void)argv; return beta(argc) & 1; }
C
bins=""
for n in $(seq 1 20); do
	gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -DVARIANT="$n" -o "bin$n" v.c
	bins="$bins bin$n"
done
nids=$(for b in $bins; do readelf -n "$b" | grep 'Build ID'; done | sort -u | wc -l)
# shellcheck disable=SC2086
python3 "$top_srcdir/tests/genbatch.py" in 1000 $bins >manifest
check "1000 profiles over $nids build IDs" [ "$(ls in | wc -l)" = 1000 -a "$nids" = 20 ]
"$PSYM" symbolize -q -j 2 --offline in -o ref
check "single-machine batch wrote 1000 outputs" [ "$(ls ref | wc -l)" = 1000 ]
wait_workers 2 || fail "the workers did not join the scheduler"
sched=$("$DASKPY" -c 'import json; print(json.load(open("sched.json"))["address"])')
echo "# scheduler $sched"

# same_as_ref DIR: how many of DIR's files equal ref/'s; "extra" lists the
# names in DIR that are not outputs (temporaries, partial files).
same_as_ref() {
	python3 - "$1" <<'PY'
import filecmp, os, sys
d = sys.argv[1]
names = set(os.listdir(d))
ref = set(os.listdir("ref"))
same = sum(1 for n in ref if n in names and filecmp.cmp(os.path.join(d, n), os.path.join("ref", n), shallow=False))
extra = sorted(names - ref)
print(same, len(names), " ".join(extra[:5]) or "none")
PY
}

# ---- 1. the whole job on two workers
index_opts=""
if "$PSYM" symbolize --help | grep -q -- '--index-store'; then
	index_opts="--index-store $PWD/store"
	mkdir -p store
fi
sed "s|	out/|	out1/|" manifest >m1
mkdir -p out1
rc=0
# shellcheck disable=SC2086
"$PSYMDASK" --scheduler "$sched" --manifest m1 --shard-size 25 --psym "$PSYM" \
	--results r1.jsonl -- --offline $index_opts >job1.out 2>job1.log || rc=$?
tail -n 3 job1.log
check "job exits 0 ($rc)" [ "$rc" = 0 ]
check "summary: $(cat job1.out)" grep -qx "done 1000, skipped 0, failed 0" job1.out
read -r same n extra <<EOF
$(same_as_ref out1)
EOF
check "every output equals the single-machine batch's ($same/1000, $n files, extra: $extra)" \
	[ "$same" = 1000 -a "$n" = 1000 ]
check "outputs agree with llvm-symbolizer (bin1)" llvm_agree out1/p00000.pb bin1
check "outputs agree with llvm-symbolizer (bin14)" llvm_agree out1/p00013.pb bin14
nworkers=$(python3 -c "
import json
print(len({json.loads(l)['worker'] for l in open('r1.jsonl')}))")
check "both workers did tasks ($nworkers)" [ "$nworkers" = 2 ]
check "task logs name the host and pid" grep -q "shard 0: 25 written, 0 skipped, 0 failed in .* on .* pid [0-9]" job1.log
check "the workers' own logs say what each ran" sh -c "grep -q 'shard .* starting on' w1.log && grep -q 'shard .* starting on' w2.log"
if [ -n "$index_opts" ]; then
	# Builds run detached after each shard's psym exits: wait for the last.
	for _ in $(seq 1 60); do
		ls store/*/*.building >/dev/null 2>&1 || break
		sleep 0.5
	done
	# The store's builds.log has a line per index put in place, by any worker.
	built=$(cut -f1 store/builds.log 2>/dev/null | sort -u | wc -l)
	lines=$(wc -l <store/builds.log 2>/dev/null || echo 0)
	check "one index build per build ID across the cluster ($lines builds of $built build IDs, $nids build IDs)" \
		[ "$built" = "$nids" -a "$lines" = "$nids" ]
	started=$(python3 -c "
import json
print(sum(json.loads(l)['indexes_built'] for l in open('r1.jsonl')))")
	# A batch starts its shared binaries' builds when its last profile is
	# done, and counts them on its last results line.
	check "the results lines count the builds started ($started, $lines in the store)" \
		[ "$started" -ge "$lines" -a "$lines" -gt 0 ]
else
	echo "skip - one index build per build ID across the cluster: this psym has no" \
		"--index-store (the index store is not merged); indexes_built is reported as 0"
fi

# ---- 2. a worker killed in the middle of its psym
# The tasks start psym a little later (a slower machine), so the job lasts
# long enough to kill a worker while it works.
cat >slowpsym <<EOF
#!/bin/sh
sleep 0.2
exec "$PSYM" "\$@"
EOF
chmod +x slowpsym
sed "s|	out/|	out2/|" manifest >m2
mkdir -p out2
"$PSYMDASK" --scheduler "$sched" --manifest m2 --shard-size 20 --psym "$PWD/slowpsym" \
	-- --offline >job2.out 2>job2.log &
job=$!
killed=""
for _ in $(seq 1 1500); do
	n=$(ls out2 | wc -l)
	child=$(pgrep -P "$pid_w1" | head -n 1)
	if [ "$n" -ge 200 ] && [ -n "$child" ] && [ "$(ps -o comm= -p "$child")" = psym ]; then
		kill -9 "$pid_w1"
		killed="after $n outputs, its psym pid $child running"
		break
	fi
	kill -0 "$job" 2>/dev/null || break
	sleep 0.02
done
rc=0
wait "$job" || rc=$?
tail -n 3 job2.log
check "worker w1 killed mid-run (${killed:-never: the job ended first})" [ -n "$killed" ]
check "job still finishes, exit 0 ($rc)" [ "$rc" = 0 ]
check "summary: $(cat job2.out)" grep -qE "^done [0-9]+, skipped [0-9]+, failed 0$" job2.out
total=$(awk -F'[ ,]+' '{print $2 + $4}' job2.out)
check "done + skipped = 1000 ($total)" [ "$total" = 1000 ]
read -r same n extra <<EOF
$(same_as_ref out2)
EOF
check "every output exists exactly once and equals the batch's ($same/1000, $n files, extra: $extra)" \
	[ "$same" = 1000 -a "$n" = 1000 -a "$extra" = none ]
check "no temporary file remains" sh -c "! ls -A out2 | grep -q psym-tmp"
sleep 0.2
# Gone, or a zombie waiting to be reaped (it does not run any more).
check "the killed worker's psym did not outlive it" \
	sh -c "ps -o stat= -p ${child:-0} | grep -qv '^Z' && exit 1 || exit 0"

# ---- 3. interrupted, then run again: only the missing outputs are made
start_worker w3
wait_workers 2 || fail "worker w3 did not join"
sed "s|	out/|	out3/|" manifest >m3
mkdir -p out3
"$PSYMDASK" --scheduler "$sched" --manifest m3 --shard-size 20 --psym "$PWD/slowpsym" \
	-- --offline >job3.out 2>job3.log &
job=$!
for _ in $(seq 1 1500); do
	[ "$(ls out3 | wc -l)" -ge 300 ] && break
	kill -0 "$job" 2>/dev/null || break
	sleep 0.02
done
kill -TERM "$job"
rc=0
wait "$job" || rc=$?
check "interrupted job exits 130 ($rc)" [ "$rc" = 130 ]
# Tasks already running finish their shard (each psym ends on its own).
for _ in $(seq 1 300); do
	[ -z "$(pgrep -P "$pid_w2")" ] && [ -z "$(pgrep -P "$pid_w3")" ] && break
	sleep 0.1
done
ls -i --full-time out3 >before
k=$(wc -l <before)
k=$((k - 1)) # the "total" line
check "interrupted with $k of 1000 outputs made" [ "$k" -ge 300 -a "$k" -lt 1000 ]
rc=0
"$PSYMDASK" --scheduler "$sched" --manifest m3 --shard-size 20 --psym "$PSYM" \
	--results r3.jsonl -- --offline >job4.out 2>job4.log || rc=$?
tail -n 2 job4.log
check "rerun exits 0 ($rc)" [ "$rc" = 0 ]
check "rerun: $(cat job4.out), want done $((1000 - k)), skipped $k" \
	grep -qx "done $((1000 - k)), skipped $k, failed 0" job4.out
ls -i --full-time out3 | grep -v '^total' | grep -F -x -f before >kept
check "the $k complete outputs kept their inode and mtime ($(wc -l <kept))" [ "$(wc -l <kept)" = "$k" ]
nwritten=$(python3 -c "
import json
print(sum(1 for l in open('r3.jsonl') if json.loads(l)['written']))")
check "the rerun wrote exactly the missing ones ($nwritten)" [ "$nwritten" = $((1000 - k)) ]
read -r same n extra <<EOF
$(same_as_ref out3)
EOF
check "all 1000 equal the batch's ($same, $n files, extra: $extra)" \
	[ "$same" = 1000 -a "$n" = 1000 -a "$extra" = none ]

# ---- lines checked one by one (issue 38 items 4 and 14): a line whose
# output is its own input is failed alone, with its reason, and the 2 good
# lines of its shard are written; an output written by two lines under two
# spellings is one failure (never "skipped"); --results has a whole JSON
# line for every manifest line, also over a file a killed run left with a
# partial line.
mkdir -p o14 o4/real
ln -s real o4/link
sum2=$(cksum <in/p00002.pb)
printf 'in/p00001.pb\to14/a.pb\nin/p00002.pb\tin/p00002.pb\nin/p00003.pb\to14/c.pb\n' >m14
printf '{"input":"x","output":"cut sh' >r14.jsonl
rc=0
"$PSYMDASK" --scheduler "$sched" --manifest m14 --shard-size 10 --psym "$PSYM" \
	--results r14.jsonl -- --offline >job14.out 2>job14.log || rc=$?
cat job14.log
check "own input: exit 1 ($rc)" [ "$rc" = 1 ]
check "own input: $(cat job14.out), want done 2, skipped 0, failed 1" \
	grep -qx "done 2, skipped 0, failed 1" job14.out
check "own input: the 2 good lines of the shard are written, as the batch wrote them" \
	sh -c "cmp -s o14/a.pb ref/p00001.pb && cmp -s o14/c.pb ref/p00003.pb"
check "own input: the bad line is named with its reason" \
	grep -q "failed: .*in/p00002.pb (line 2): output 'in/p00002.pb' is its own input" job14.log
check "own input: the input is untouched" [ "$(cksum <in/p00002.pb)" = "$sum2" ]
check "own input: no line is reported as a lost task" sh -c "! grep -q 'task was lost' job14.log"
python3 - >r14.txt <<'PY'
import json
recs = [json.loads(l) for l in open("r14.jsonl").read().splitlines()]
print(" ".join("%d:%s" % (r["line"], r["status"]) for r in sorted(recs, key=lambda r: r["line"])))
PY
check "--results over a partial line: 3 whole records, line 2 failed ($(cat r14.txt))" \
	[ "$(cat r14.txt)" = "1:ok 2:failed 3:ok" ]
printf 'in/p00004.pb\to4/real/out.pb\nin/p00005.pb\to4/link/out.pb\n' >m4
rc=0
"$PSYMDASK" --scheduler "$sched" --manifest m4 --psym "$PSYM" -- --offline >job4b.out 2>job4b.log || rc=$?
cat job4b.log
check "two spellings of one output: exit 1 ($rc)" [ "$rc" = 1 ]
check "two spellings: $(cat job4b.out), want done 1, skipped 0, failed 1" \
	grep -qx "done 1, skipped 0, failed 1" job4b.out
check "two spellings: line 2 is named, with line 1" \
	grep -q "(line 2): output 'o4/link/out.pb' is also written by line 1 (as 'o4/real/out.pb')" job4b.log
check "two spellings: the output is line 1's" cmp -s o4/real/out.pb ref/p00004.pb

# ---- a bad manifest line is refused before anything runs
printf 'in/p00001.pb\tout9/a.pb\nin/p00002.pb out9/b.pb\n' >bad.m
rc=0
"$PSYMDASK" --scheduler "$sched" --manifest bad.m --psym "$PSYM" 2>bad.log || rc=$?
check "bad manifest: exit 2 naming bad.m:2 ($(cat bad.log))" \
	sh -c "[ $rc = 2 ] && grep -q 'bad.m:2:' bad.log && [ ! -e out9 ]"
finish
