#!/bin/sh
# Processes running before the collector starts keep their mappings even
# when they exit before the first drain (issue 42, item 3): such a process
# exec'd before the mmap tracker opened, so the tracker saw neither its
# exec nor its mappings, and its /proc entry is gone by the drain. Ten
# programs are started first, each blocked on its own FIFO; once the
# collector samples (system-wide, beside a CPU hog on every core), they
# are let go one by one, each spins about 30 ms of CPU in its own
# function and exits, mostly between two drains (every 500 ms). In both
# modes, the share of their samples whose leaf has a mapping is counted
# from protoc --decode of the symbolized profile by bench/churn-loss.py
# (not by psym), and the leaves are named by the function nm gives.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need protoc
need python3
need nm
collector_need "BPF and perf events"
collector_hogs

cat >prerun.c <<'EOF2'
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
static double cpu(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
__attribute__((noinline)) unsigned long prerun_spin(double secs)
{
	volatile unsigned long x = 0;
	double t0 = cpu();
	while (cpu() - t0 < secs)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i * 7;
	return x;
}
int main(int argc, char **argv)
{
	char c;
	int fd = open(argv[1], O_RDONLY); /* blocks until the test lets it go */
	if (fd < 0)
		return 1;
	(void)!read(fd, &c, 1);
	prerun_spin(0.03);
	return 0;
}
EOF2
gcc -O1 -fno-omit-frame-pointer -o prerun-spin prerun.c || fail "cannot build the test program"
nm prerun-spin | grep -q ' T prerun_spin$' || fail "nm gives no prerun_spin"

run() {
	mode=$1
	shift
	for i in 0 1 2 3 4 5 6 7 8 9; do
		rm -f "fifo.$i"
		mkfifo "fifo.$i"
		./prerun-spin "fifo.$i" &
		collector_bg $!
	done
	sleep 0.3 # each blocked in open(): exec'd, mapped, before the collector
	"$C" "$@" -v -F 999 -d 7 -o "$mode.pb.gz" 2>"$mode.log" &
	cpid=$!
	collector_bg $cpid
	n=0
	until grep -q "sampling all processes" "$mode.log" 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 600 ] || fail "$mode: the collector did not start sampling: $(cat "$mode.log")"
		sleep 0.1
	done
	sleep 0.5
	for i in 0 1 2 3 4 5 6 7 8 9; do
		: >"fifo.$i"
		sleep 0.37
	done
	wait $cpid || fail "$mode: psym-collect failed: $(cat "$mode.log")"
	"$PSYM" symbolize "$mode.pb.gz" -o "$mode.sym.pb.gz" 2>"$mode.sym.log" ||
		fail "$mode: symbolize failed: $(cat "$mode.sym.log")"
	decode_pb "$mode.sym.pb.gz" >"$mode.txt"
	python3 "$top_srcdir/bench/churn-loss.py" prerun-spin <"$mode.txt" >"$mode.loss"
	cat "$mode.loss"
	read -r _ total _ mapped _ ratio _ <"$mode.loss"
	if [ "$total" -lt 30 ]; then
		fail "$mode: only $total samples of the programs: the test proved nothing"
	elif awk -v r="$ratio" 'BEGIN {exit !(r >= 0.99)}'; then
		pass "$mode: leaves of processes from before the run have their mapping ($mapped of $total)"
	else
		fail "$mode: leaves of processes from before the run: only $mapped of $total have a mapping ($ratio)"
	fi
	# Named by the function nm gives: the mapping is the right file.
	check "$mode: their leaves are named prerun_spin (as nm names it)" \
		grep -q '^string_table: "prerun_spin"$' "$mode.txt"
	check "$mode: the summary says how many processes were read at the start" \
		grep -q "running at the start read then" "$mode.log"
}

run default
run stackcopy --stack-copy 8192
finish
