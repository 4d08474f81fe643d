#!/bin/sh
# Short-lived processes keep their mappings: bench/shortlived.c (built
# here) starts 400 real programs a second (each lives 5-20 ms and spins
# 1 ms in its own code; fewer get started on a loaded machine, the rate
# reached is printed), psym-collect samples the whole
# system at 499 Hz, and at least 99% of the samples of those processes
# (every one of which has exited before the profile is written) must have
# their leaf user frame in a mapping. Counted from protoc --decode by
# bench/churn-loss.py (not by psym); the program's mapping must carry the
# build ID readelf gives, and psym symbolize must name its function.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need protoc
need python3
churn=
collector_at_exit '[ -n "$churn" ] && kill $churn 2>/dev/null && wait $churn 2>/dev/null'
collector_need "BPF and perf events"
collector_hogs # the machine loaded, as production hosts are (issue 42, item 4)
gcc -O1 -g -fno-omit-frame-pointer -o shortlived "$top_srcdir/bench/shortlived.c"
bid=$(readelf -n shortlived | sed -n 's/.*Build ID: //p')

./shortlived --churn 400 7 1 2>churn.log &
churn=$!
sleep 1
"$C" -F 499 -d 4 -o churn.pb.gz 2>collect.log || fail "psym-collect failed: $(cat collect.log)"
wait $churn
churn=
cat churn.log
grep "mappings recorded as made" collect.log
decode_pb churn.pb.gz >churn.txt
python3 "$top_srcdir/bench/churn-loss.py" shortlived <churn.txt >loss.txt
cat loss.txt
read -r _ total _ mapped _ ratio _ <loss.txt
if [ "$total" -lt 50 ]; then
	fail "only $total samples of the short-lived processes: the test proved nothing"
elif awk -v r="$ratio" 'BEGIN {exit !(r >= 0.99)}'; then
	pass "$mapped of $total samples of exited short-lived processes have their mapping ($ratio >= 0.99)"
else
	fail "only $mapped of $total samples of short-lived processes have their mapping ($ratio)"
fi
check "the program's mapping has its build ID (readelf: $bid)" grep -q "\"$bid\"" churn.txt
check "no mmap record was lost" grep -q "(0 records lost" collect.log
"$PSYM" symbolize churn.pb.gz -o sym.pb.gz 2>sym.log || fail "symbolize failed: $(cat sym.log)"
check "symbolized: the short-lived program's function is named" \
	sh -c "\"\$0\" show sym.pb.gz | grep -q shortlived_spin" "$PSYM"
finish
