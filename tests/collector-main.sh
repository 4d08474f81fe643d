#!/bin/sh
# psym-collect writes the main binary first (pprof's convention: mapping 1
# is the executable), for -p and system-wide profiles, with the Duration
# pprof prints; psym symbolize --main-binary matches by build ID and
# refuses a binary of another build. Oracles: go tool pprof -top (its
# File: and Duration: lines), protoc --decode, readelf, nm.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need go "Debian golang-go"
need protoc
export HOME=$T GOCACHE=$T/gocache
collector_need "BPF and perf events"
collector_hogs # the machine loaded, as production hosts are (issue 42, item 4)

# Most of its time in libc (memset/memcpy), called from its own burn():
# the first mapping a sample meets is libc's.
libcbound_c libcbound.c
gcc -O1 -g -fno-omit-frame-pointer -o libcbound libcbound.c
sed 's/100; i++/99; i++/' libcbound.c >other.c
gcc -O1 -g -fno-omit-frame-pointer -o other other.c

./libcbound 3 &
p=$!
collector_bg $p
"$C" -p $p -d 2 -o p.pb.gz 2>p.log || fail "-p: psym-collect failed: $(cat p.log)"
kill $p 2>/dev/null
wait $p 2>/dev/null
decode_pb p.pb.gz >p.txt
m1=$(mapping1 p.txt)
check "-p: the libc-bound program's profile has libc frames" grep -q 'libc.so' p.txt
case $m1 in
"$T/libcbound") pass "-p: mapping 1 is the executable (protoc: $m1)" ;;
*) fail "-p: mapping 1 is not the executable: $m1" ;;
esac
check "-p: go tool pprof -top prints File: libcbound" test "$(pprof_field p.pb.gz File)" = libcbound
check "-p: pprof's Build ID line is the executable's (readelf)" \
	test "$(pprof_field p.pb.gz 'Build ID')" = "$(bid libcbound)"
dur=$(pprof_field p.pb.gz Duration)
case $dur in
[0-9]*s,*) pass "-p: go tool pprof prints the Duration ($dur)" ;;
*) fail "-p: no Duration line in go tool pprof -top (got '$dur')" ;;
esac
"$PSYM" show p.pb.gz >p.show
check "-p: comment 'mapping 1 is the executable of pid $p'" \
	grep -q "Comment: psym-collect: mapping 1 is the executable of pid $p (libcbound" p.show

# System-wide: mapping 1 is the executable of the process with the most
# samples, counted here from protoc's decode of the samples' pid labels.
./libcbound 4 &
p=$!
collector_bg $p
"$C" -d 2 -o sys.pb.gz 2>sys.log || fail "system-wide: psym-collect failed: $(cat sys.log)"
kill $p 2>/dev/null
wait $p 2>/dev/null
decode_pb sys.pb.gz >sys.txt
top=$(busiest_pids sys.txt)
comment=$("$PSYM" show sys.pb.gz | sed -n 's/^Comment: psym-collect: mapping 1 is the executable of pid \([0-9]*\) .*/\1/p')
case " $top " in
*" $comment "*) pass "system-wide: mapping 1 is of pid $comment, the pid with the most samples (protoc: $top)" ;;
*) fail "system-wide: mapping 1 is of pid '$comment', most samples: $top" ;;
esac
# Said only when more than one process has samples (a quiet machine may
# give the test program alone).
if [ "$(sampled_pids sys.txt)" -gt 1 ]; then
	check "system-wide: the comment says it is the process with the most samples" \
		sh -c "\"\$0\" show sys.pb.gz | grep -q 'the process with the most samples'" "$PSYM"
else
	check "system-wide, one process sampled: the comment does not claim 'most samples'" \
		sh -c "! \"\$0\" show sys.pb.gz | grep -q 'the process with the most samples'" "$PSYM"
fi
if [ "$comment" = "$p" ]; then
	check "system-wide: go tool pprof -top prints File: libcbound" \
		test "$(pprof_field sys.pb.gz File)" = libcbound
fi

# --main-binary: matched by build ID, refused (naming both IDs) otherwise.
sed_move() { decode_pb "$1" | sed "s|$T/libcbound|/gone/libcbound|" >"$2.txtpb" && encode_txtpb "$2.txtpb" "$2"; }
sed_move p.pb.gz moved.pb
"$PSYM" symbolize --main-binary libcbound moved.pb -o main.pb.gz 2>main.log
rc=$?
check "--main-binary with the same build: exit 0 ($rc)" test $rc = 0
check "--main-binary with the same build: its main is named (nm: $(nm libcbound | grep -c ' T main$'))" \
	sh -c "go tool pprof -top -symbolize=none main.pb.gz 2>/dev/null | grep -q ' main$'"
expect_exit 2 "--main-binary of another build is refused" \
	"$PSYM" symbolize --main-binary other moved.pb -o other.pb.gz 2>other.log
check "the refusal names both build IDs ($(cat other.log))" \
	sh -c "grep -q '$(bid other)' other.log && grep -q '$(bid libcbound)' other.log"
check "nothing written on refusal" test ! -e other.pb.gz
libc=$(sed -n 's|.* \(/[^ ]*libc.so[^ ]*\) build_id=.*|\1|p' p.show | head -1)
cp "$libc" mylibc.so
"$PSYM" symbolize --main-binary mylibc.so moved.pb -o libc.pb.gz 2>libc.log
check "--main-binary finds the mapping with its build ID, not mapping 1" \
	grep -q "main-binary applies to mapping [0-9]* '.*libc.so.6' (same build ID)" libc.log
finish
