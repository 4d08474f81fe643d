#!/bin/sh
# Samples taken before an exec stay with the image before it (issue 42,
# item 1): a shell loop of /bin/true, /usr/bin/env true and a sh -c that
# forks and then execs, beside a CPU hog on every core, sampled system-wide
# in both modes (with and without --stack-copy). A forked shell child
# samples libc before its exec, env samples its own image before it execs
# true: under one pid, each image must keep its own mappings. Per comm,
# the share of samples with user frames whose leaf location has no mapping
# is counted from protoc --decode of the symbolized profile by
# bench/churn-loss.py (not by psym); sh's, env's and true's must be at
# most 1%, and none of sh's or env's leaves may lie in the true binary (the
# image after). A sample taken inside an exec, after the new program's
# registers were set and before the exec's tracepoint, has one user frame
# at the interpreter's entry (readelf's): each such sample must be in the
# interpreter's mapping of the image after the exec, none in no mapping.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need protoc
need python3
need readelf
[ -x /usr/bin/env ] && [ -x /bin/true ] || skip "no /usr/bin/env or /bin/true"
# The interpreter of env and true, and the file offset of its entry point.
interp=$(readelf -lW /usr/bin/env | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
interp=$(readlink -f "$interp")
[ -f "$interp" ] || skip "/usr/bin/env has no interpreter: no exec lands in ld.so"
e=$(readelf -hW "$interp" | sed -n 's/.*Entry point address: *//p')
entry=$(readelf -lW "$interp" | awk '$1 == "LOAD" {print $2, $3, $6}' | while read -r o v s; do
	[ $((e >= v && e < v + s)) = 1 ] && printf '%x\n' $((e - v + o))
done)
[ -n "$entry" ] || fail "no LOAD segment of $interp holds its entry $e"
loop=
collector_at_exit 'touch stop; [ -n "$loop" ] && wait $loop 2>/dev/null'
collector_need "BPF and perf events"
collector_hogs

cat >loop.sh <<'EOF2'
while [ ! -e stop ]; do
	/bin/true
	/usr/bin/env true
	sh -c '/bin/true; exec /usr/bin/env true'
done
EOF2

# One run: MODE (a name) and psym-collect's options; prints each comm's figures.
run() {
	mode=$1
	shift
	rm -f stop
	sh loop.sh &
	loop=$!
	"$C" "$@" -F 999 -d 4 -o "$mode.pb.gz" 2>"$mode.log" ||
		fail "$mode: psym-collect failed: $(cat "$mode.log")"
	touch stop
	wait $loop
	loop=
	"$PSYM" symbolize "$mode.pb.gz" -o "$mode.sym.pb.gz" 2>"$mode.sym.log" ||
		fail "$mode: symbolize failed: $(cat "$mode.sym.log")"
	decode_pb "$mode.sym.pb.gz" >"$mode.txt"
	for comm in sh env true; do
		python3 "$top_srcdir/bench/churn-loss.py" --entry="${interp##*/}:$entry" "$comm" \
			<"$mode.txt" >"$mode.$comm.loss"
		read -r _ total _ mapped _ ratio _ <"$mode.$comm.loss"
		echo "$mode $comm: $mapped of $total samples with user frames have their leaf in a mapping ($ratio)"
		cat "$mode.$comm.loss"
		at=$(sed -n 's/^entry \([0-9]*\) inimage [0-9]*$/\1/p' "$mode.$comm.loss")
		inimage=$(sed -n 's/^entry [0-9]* inimage \([0-9]*\)$/\1/p' "$mode.$comm.loss")
		if [ -n "$at" ] && [ "$at" = "$inimage" ]; then
			pass "$mode: $comm's samples at ${interp##*/}'s entry are in its mapping after the exec ($inimage of $at)"
		else
			fail "$mode: $comm's samples at ${interp##*/}'s entry: only ${inimage:-?} of ${at:-?} are in its mapping after the exec"
		fi
		if [ "$comm" != true ]; then
			# Placed in its own image: none of the pre-exec samples is in true's file.
			check "$mode: no leaf of $comm is placed in the image after its exec (true)" \
				sh -c '! grep -q " true:" "$0"' "$mode.$comm.loss"
		fi
		if [ "$total" -lt 20 ]; then
			fail "$mode: only $total samples of $comm: the test proved nothing"
		elif awk -v r="$ratio" 'BEGIN {exit !(r >= 0.99)}'; then
			pass "$mode: $comm's leaf frames have their mapping ($mapped of $total, $ratio >= 0.99)"
		else
			fail "$mode: $comm's leaf frames: only $mapped of $total have a mapping ($ratio)"
		fi
	done
}

run default
run stackcopy --stack-copy 8192
finish
