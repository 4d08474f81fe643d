#!/bin/sh
# --stack-copy keeps mappings as the default mode does (issue 42 item 2):
# with a CPU hog on every core, a churn of short-lived programs
# (bench/shortlived.c, built here), `ls` and `sed` commands run in a loop,
# and `node --perf-basic-prof` started after the collector, all profiled
# system-wide with --stack-copy 8192. Counted from protoc --decode by
# bench/churn-loss.py (not by psym): the share of each command's samples
# whose leaf (the sampled IP itself) lies in a mapping, and for node, its
# samples whose leaf is in one of the perf map's JIT symbols must have a
# mapping too (the anonymous JIT mapping). Before, --stack-copy turned
# mapping tracking off and every exited process lost its maps.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need protoc
need python3
collector_need "BPF stack copies" --stack-copy 8192
collector_hogs
gcc -O1 -g -fno-omit-frame-pointer -o shortlived "$top_srcdir/bench/shortlived.c"
seq 200000 >words

have_node=
if command -v node >/dev/null 2>&1; then
	have_node=1
	cat >busy.js <<'EOF2'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
const end = Date.now() + 4000;
let s = 0;
while (Date.now() < end) s += fib(22);
console.log(s > 0 ? "ok" : "no");
EOF2
fi
timeout 300 "$C" --stack-copy 8192 -F 499 -d 6 -v -o sc.pb.gz 2>collect.log &
cpid=$!
# The workloads once sampling runs (starting can take long on a loaded host).
i=0
until grep -q "sampling" collect.log || [ $i -gt 2400 ]; do sleep 0.1; i=$((i + 1)); done
./shortlived --churn 400 8 1 2>churn.log &
collector_bg $!
# Short commands, each a new process image that exits within milliseconds.
sh -c 'while :; do ls -lR /usr/lib >/dev/null 2>&1; sed "s/1/x/g" words >/dev/null; done' &
collector_bg $!
loop=$!
if [ -n "$have_node" ]; then
	# node writes /tmp/perf-PID.map and leaves it: removed when the test ends.
	node --perf-basic-prof busy.js >node.out 2>&1 &
	npid=$!
	collector_at_exit "rm -f /tmp/perf-$npid.map"
	wait $npid || fail "node failed: $(cat node.out)"
fi
wait $cpid || fail "psym-collect failed: $(cat collect.log)"
kill $loop 2>/dev/null
cat churn.log
grep "mappings recorded as made" collect.log || fail "no mapping tracking with --stack-copy: $(cat collect.log)"
decode_pb sc.pb.gz >sc.txt || fail "protoc cannot read the profile"

# leaf_check COMM MIN_SAMPLES: at least 95% of COMM's samples have their leaf in a mapping.
leaf_check() {
	python3 "$top_srcdir/bench/churn-loss.py" "$1" <sc.txt >loss-$1.txt
	cat loss-$1.txt
	read -r _ total _ mapped _ ratio _ <loss-$1.txt
	if [ "$total" -lt "$2" ]; then
		echo "# only $total samples of $1: not checked"
	elif awk -v r="$ratio" 'BEGIN {exit !(r >= 0.95)}'; then
		pass "$1: $mapped of $total samples have their leaf in a mapping ($ratio >= 0.95)"
	else
		fail "$1: only $mapped of $total samples have their leaf in a mapping ($ratio)"
	fi
}
leaf_check shortlived 50
leaf_check ls 10
leaf_check sed 10
python3 "$top_srcdir/bench/churn-loss.py" shortlived <sc.txt | grep -q "shortlived:" ||
	fail "no sample of the short-lived programs is in their own executable's mapping"

if [ -n "$have_node" ]; then
	map=$(ls sc.pb.gz.d/perf-*.map.zst 2>/dev/null | head -1)
	[ -n "$map" ] || fail "node's perf map was not saved in sc.pb.gz.d/"
	[ -z "$map" ] || { zstd -dc "$map" >node.map; map=node.map; }
	python3 "$top_srcdir/bench/churn-loss.py" node "$map" <sc.txt >node-loss.txt
	cat node-loss.txt
	read -r _ jit _ jitmapped <<EOF2
$(sed -n 's/^jit/jit/p' node-loss.txt)
EOF2
	if [ "${jit:-0}" -lt 5 ]; then
		fail "only ${jit:-0} node samples in its JIT code: the test proved nothing"
	else
		check "node: $jitmapped of $jit samples in JIT code (per its perf map) have their anonymous mapping" \
			test "$jitmapped" -ge $((jit * 95 / 100))
	fi
else
	echo "# node not installed: its JIT part not checked"
fi
"$PSYM" symbolize sc.pb.gz -o sym.pb.gz 2>sym.log || fail "symbolize failed: $(cat sym.log)"
check "symbolized: the short-lived program's function is named" \
	sh -c "\"\$0\" show sym.pb.gz | grep -q shortlived_spin" "$PSYM"
finish
