#!/bin/sh
# psym-collect -- COMMAND runs and profiles a command as perf record does
# (issue 42): with a CPU hog on every core (not part of the command), a
# shell that starts a child and a grandchild doing CPU work; the profile
# (read by protoc --decode, not by psym) has samples of both, of no hog,
# and psym-collect exits with the command's status (128+N when signal N
# killed it, 127 when it cannot be run). Both modes: frame pointers and
# --stack-copy.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need protoc
need python3
collector_need "BPF and perf events"
collector_hogs
cat >spin.c <<'EOF2'
#include <stdlib.h>
#include <time.h>
/* Spin argv[1] seconds of CPU time in our own code. */
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	volatile unsigned long x = 0;
	while ((double)clock() / CLOCKS_PER_SEC < secs)
		for (int i = 0; i < 100000; i++)
			x += i;
	return 0;
}
EOF2
gcc -O1 -g -fno-omit-frame-pointer -o spin spin.c

# comm_pids DECODED: "COMM:SAMPLES:PIDS" for each comm of the profile.
comm_pids() {
	python3 - "$1" <<'EOF2'
import re, sys
text = open(sys.argv[1]).read()
strings = re.findall(r'^string_table: "(.*)"$', text, re.M)
per = {}
for s in re.findall(r'^sample \{(.*?)^\}', text, re.M | re.S):
    v = int(re.findall(r'^  value: (\d+)', s, re.M)[0])
    labs = {}
    for lab in re.findall(r'label \{(.*?)\}', s, re.S):
        k = strings[int(re.search(r'key: (\d+)', lab).group(1))]
        m = re.search(r'str: (\d+)', lab)
        labs[k] = strings[int(m.group(1))] if m else re.search(r'num: (\d+)', lab).group(1)
    c = per.setdefault(labs.get("comm", "?"), [0, set()])
    c[0] += 1 if v else 0
    c[1].add(labs.get("pid"))
for k, (n, p) in sorted(per.items()):
    print("%s:%d:%d" % (k, n, len(p)))
EOF2
}

for mode in fp sc; do
	opt=
	[ $mode = sc ] && opt="--stack-copy 8192"
	# shellcheck disable=SC2086
	timeout 300 "$C" $opt -F 499 -o $mode.pb.gz -- sh -c 'sh -c "./spin 1" & ./spin 1; wait; exit 5' \
		2>$mode.log
	rc=$?
	check "$mode: the command's exit status (5) is psym-collect's" test "$rc" = 5
	decode_pb $mode.pb.gz >$mode.txt || fail "$mode: protoc cannot read the profile"
	comm_pids $mode.txt >$mode.comms
	cat $mode.comms
	spin=$(sed -n 's/^spin:[0-9]*://p' $mode.comms)
	check "$mode: samples of both the child and the grandchild (2 spin pids: ${spin:-0})" \
		test "${spin:-0}" = 2
	check "$mode: no sample of the hogs, which are not the command's" \
		sh -c "! grep -q '^hog:' $mode.comms"
done
"$C" -o exit.pb.gz -- sh -c 'exit 3' 2>exit.log
check "-- sh -c 'exit 3' returns 3" test $? = 3
"$C" -o kill.pb.gz -- sh -c 'kill -TERM $$' 2>kill.log
check "a command killed by SIGTERM: 143" test $? = 143
"$C" -o none.pb.gz -- ./no-such-command 2>none.log
check "a command that cannot run: 127" test $? = 127
check "... and says so" grep -q "cannot run './no-such-command'" none.log
"$C" -p $$ -o both.pb.gz -- true 2>both.log
check "-p with a command: usage error (2)" test $? = 2
finish
