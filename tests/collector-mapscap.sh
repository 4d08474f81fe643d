#!/bin/sh
# When the metadata cap skips work, the summary says how many samples that
# cost (issue 42, item 3). 320 processes, started before the collector and
# each waking every 100 ms for 0.1 ms of CPU, are
# sampled system-wide with --no-mmap-track (every process's maps then come
# from /proc at a drain), so that the first drain meets more new processes
# than its 256 reads. The summary's "N samples without their mappings"
# must equal the number of those processes' samples whose leaf has no
# mapping in the profile, counted from protoc --decode by
# bench/churn-loss.py (not by psym); beside a CPU hog on every core.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need protoc
need python3
collector_need "BPF and perf events" --no-mmap-track
collector_hogs

cat >capspin.c <<'EOF2'
#include <stdlib.h>
#include <time.h>
static double now(int clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((noinline)) void capspin_work(void)
{
	volatile unsigned long x = 0;
	double t0 = now(CLOCK_PROCESS_CPUTIME_ID);
	while (now(CLOCK_PROCESS_CPUTIME_ID) - t0 < 0.0001)
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i;
}
int main(int argc, char **argv)
{
	double end = now(CLOCK_MONOTONIC) + atof(argv[1]);
	struct timespec nap = { 0, 100000000 };
	while (now(CLOCK_MONOTONIC) < end) {
		capspin_work();
		nanosleep(&nap, NULL);
	}
	return 0;
}
EOF2
gcc -O1 -fno-omit-frame-pointer -o capspin capspin.c || fail "cannot build the test program"
i=0
while [ $i -lt 320 ]; do
	./capspin 60 &
	collector_bg $!
	i=$((i + 1))
done
sleep 1
"$C" --no-mmap-track -F 2999 -d 3 -o cap.pb.gz 2>cap.log || fail "psym-collect failed: $(cat cap.log)"
grep "lost:" cap.log
skipped=$(sed -n 's/.* \([0-9]*\) not read (metadata cap: \([0-9]*\) samples without their mappings).*/\1/p' cap.log)
cost=$(sed -n 's/.* not read (metadata cap: \([0-9]*\) samples without their mappings).*/\1/p' cap.log)
[ -n "$cost" ] || fail "the summary does not say what the cap cost: $(grep lost: cap.log)"
[ "${skipped:-0}" -gt 0 ] || skip "the cap skipped no process here (${skipped:-?}): the first drain met too few"
"$PSYM" symbolize cap.pb.gz -o cap.sym.pb.gz 2>cap.sym.log || fail "symbolize failed: $(cat cap.sym.log)"
decode_pb cap.sym.pb.gz >cap.txt
python3 "$top_srcdir/bench/churn-loss.py" capspin <cap.txt >cap.loss
python3 "$top_srcdir/bench/churn-loss.py" '*' <cap.txt >all.loss
cat cap.loss all.loss
read -r _ total _ mapped _ _ _ <cap.loss
read -r _ atotal _ amapped _ _ _ <all.loss
check "the cap skipped processes, and some of their samples went without mappings ($cost)" \
	test "$cost" -gt 0
# The programs never exit while sampled: each of their unmapped leaves is
# the cap's. Other processes' can also be from exits (the machine's churn).
check "the summary's cost ($cost samples) holds the programs' unmapped leaves ($((total - mapped)) of $total)" \
	test "$cost" -ge $((total - mapped))
check "the summary's cost ($cost samples) is within all unmapped leaves ($((atotal - amapped)) of $atotal)" \
	test "$cost" -le $((atotal - amapped))
finish
