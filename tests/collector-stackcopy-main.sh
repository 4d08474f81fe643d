#!/bin/sh
# psym-collect --stack-copy keeps the main binary first (pprof's
# convention: mapping 1 is the executable) through psym symbolize's
# offline unwinding, which rebuilds the profile from the side file: for -p
# and system-wide runs, with the comment naming the process. The program
# spends its time in libc (memset/memcpy) and has no frame pointers, so the
# first mapping its samples meet is libc's. Oracles: go tool pprof -top
# (File: and Build ID: lines), protoc --decode, readelf.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need go "Debian golang-go"
need protoc
export HOME=$T GOCACHE=$T/gocache
collector_need "BPF and perf events" --stack-copy 8192
collector_hogs # the machine loaded, as production hosts are (issue 42, item 4)

libcbound_c libcbound.c
gcc -O2 -g -fomit-frame-pointer -o libcbound libcbound.c

./libcbound 4 &
p=$!
collector_bg $p
sleep 0.2
"$C" -p $p -d 2 --stack-copy 8192 -o p.pb.gz 2>p.log || fail "-p: psym-collect failed: $(cat p.log)"
kill $p 2>/dev/null
wait $p 2>/dev/null
"$PSYM" symbolize p.pb.gz -o p.sym.pb.gz 2>p.sym.log || fail "symbolize: $(tail -n 3 p.sym.log)"
check "symbolize unwound the stack copies" grep -q "unwound" p.sym.log
decode_pb p.sym.pb.gz >p.txt
check "-p: the unwound profile has libc frames" grep -q 'libc.so' p.txt
m1=$(mapping1 p.txt)
case $m1 in
"$T/libcbound") pass "-p: mapping 1 of the unwound profile is the executable (protoc: $m1)" ;;
*) fail "-p: mapping 1 of the unwound profile is not the executable: $m1" ;;
esac
check "-p: go tool pprof -top prints File: libcbound" test "$(pprof_field p.sym.pb.gz File)" = libcbound
check "-p: pprof's Build ID line is the executable's (readelf)" \
	test "$(pprof_field p.sym.pb.gz 'Build ID')" = "$(bid libcbound)"
check "-p: the provisional profile has it first too" test "$(pprof_field p.pb.gz File)" = libcbound
"$PSYM" show p.sym.pb.gz >p.show
check "-p: comment 'mapping 1 is the executable of pid $p'" \
	grep -q "Comment: psym-collect: mapping 1 is the executable of pid $p (libcbound" p.show
check "-p: the comment is there once" test "$(grep -c 'mapping 1 is the executable' p.show)" = 1
check "-p: the host identity comment survives the unwinding ($(uname -r))" \
	grep -q "Comment: psym-collect: host=.* kernel=$(uname -r) " p.show
check "-p: no longer marked as needing unwinding" sh -c "! grep -q 'need unwinding' p.show"

# System-wide: mapping 1 is the executable of the process with the most
# samples, counted from protoc's decode of the unwound profile's pid labels.
./libcbound 4 &
p=$!
collector_bg $p
sleep 0.2
"$C" -d 2 --stack-copy 4096 -o sys.pb.gz 2>sys.log || fail "system-wide: psym-collect failed: $(cat sys.log)"
kill $p 2>/dev/null
wait $p 2>/dev/null
"$PSYM" symbolize sys.pb.gz -o sys.sym.pb.gz 2>sys.sym.log || fail "symbolize: $(tail -n 3 sys.sym.log)"
decode_pb sys.sym.pb.gz >sys.txt
top=$(busiest_pids sys.txt)
comment=$("$PSYM" show sys.sym.pb.gz | sed -n 's/^Comment: psym-collect: mapping 1 is the executable of pid \([0-9]*\) .*/\1/p')
case " $top " in
*" $comment "*) pass "system-wide: mapping 1 is of pid $comment, the pid with the most samples (protoc: $top)" ;;
*) fail "system-wide: mapping 1 is of pid '$comment', most samples: $top" ;;
esac
# Said only when more than one process has samples (a quiet machine may
# give the test program alone).
if [ "$(sampled_pids sys.txt)" -gt 1 ]; then
	check "system-wide: the comment says it is the process with the most samples" \
		sh -c "\"\$0\" show sys.sym.pb.gz | grep -q 'the process with the most samples'" "$PSYM"
else
	check "system-wide, one process sampled: the comment does not claim 'most samples'" \
		sh -c "! \"\$0\" show sys.sym.pb.gz | grep -q 'the process with the most samples'" "$PSYM"
fi
if [ "$comment" = "$p" ]; then
	check "system-wide: go tool pprof -top prints File: libcbound" \
		test "$(pprof_field sys.sym.pb.gz File)" = libcbound
fi
finish
