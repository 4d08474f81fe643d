#!/bin/sh
# psym-collect --stack-copy end to end with BPF, then psym symbolize
# unwinding offline: the test program built -O2 -fomit-frame-pointer
# (main -> a -> b -> recursion / qsort callback / signal handler, known
# work in each) and Debian's own xz -9 (no frame pointers). At least 95% of
# their samples must reach main (xz: __libc_start_call_main, xz is
# stripped), the program's shares must match its known structure, and the
# frame-pointer mode on the same binaries is reported for comparison.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
collector_need "BPF and perf events" --stack-copy 8192
collector_hogs # the machine loaded, as production hosts are (issue 42, item 4)

gcc -O2 -g -fomit-frame-pointer -o prog "$top_srcdir/tests/unwind/prog.c"

# share FOLDED PATTERN [WITHIN]: percent of samples (of stacks matching WITHIN) matching PATTERN
share() {
	awk -v p="$2" -v w="${3:-.}" '$0 ~ w { t += $NF; if ($0 ~ p) m += $NF }
		END { if (t) printf "%.1f", 100 * m / t; else print 0 }' "$1"
}

# profile NAME MODE CMD...: run CMD, collect MODE ("fp" or the stack-copy bytes) for 3 s
# at 999 Hz: beside the CPU hogs the shares below need some hundreds of samples.
profile() {
	name=$1 mode=$2
	shift 2
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep 0.3
	if [ "$mode" = fp ]; then
		"$C" -p $pid -F 999 -d 3 -o "$name.pb.gz" 2>"$name.log"
	else
		"$C" -p $pid -F 999 -d 3 --stack-copy "$mode" -o "$name.pb.gz" 2>"$name.log"
	fi || fail "$name: psym-collect: $(tail -n 2 "$name.log")"
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	"$PSYM" symbolize "$name.pb.gz" -o "$name.sym.pb.gz" 2>"$name.sym.log" ||
		fail "$name: symbolize: $(tail -n 2 "$name.sym.log")"
	"$PSYM" folded "$name.sym.pb.gz" >"$name.folded" 2>/dev/null
}

profile sc 8192 ./prog 100000000 20000
check "side file mode 0600" test "$(stat -c %a sc.pb.gz.d/ustacks.gz)" = 600
check "provisional profile marked as needing unwinding" sh -c "\"$PSYM\" show sc.pb.gz | grep -q 'need unwinding'"
grep "stack copies" sc.log | sed 's/^/# /'
grep "unwound" sc.sym.log | sed 's/^/# /'
# Each copy has all 8192 bytes or runs to the end of the stack mapping (a
# page boundary): the copy is taken page by page, nothing is lost below the end.
python3 - sc.pb.gz.d/ustacks.gz >copies <<'PY'
import gzip, struct, sys
raw = gzip.open(sys.argv[1]).read()
off, full, toend, other = 32, 0, 0, 0
while off + 8 <= len(raw):
    t, l = struct.unpack_from("<II", raw, off)
    if t == 2:
        rsp = struct.unpack_from("<Q", raw, off + 8 + 40 + 8 * 7)[0]
        nk = struct.unpack_from("<H", raw, off + 8 + 40 + 136)[0]
        sl = struct.unpack_from("<I", raw, off + 8 + 40 + 136 + 4 + 8 * nk)[0]
        if sl == 8192:
            full += 1
        elif (rsp + sl) % 4096 == 0:
            toend += 1
        else:
            other += 1
    off += 8 + l
print(full, toend, other)
PY
read -r full toend other <copies
check "copies: $full full, $toend to the stack's end, $other cut elsewhere" test "$other" = 0 -a $((full + toend)) -gt 0
main=$(share sc.folded ';main;')
echo "# prog, stack copies: $main% of samples reach main"
awk -v m="$main" 'BEGIN { exit !(m >= 95) }' && pass "stack copy: $main% reach main" ||
	{ head -n 20 sc.folded; fail "stack copy: only $main% reach main"; }
# Known structure: of leaf's samples under b, ~86% come through qsort's callback
# (17 x 11 of 217 work units), ~5% through the recursion, ~9% through the handler.
# On a loaded machine the handler's share rises (22% seen with the suite and
# two builds running), most likely because the task is switched out at
# raise()'s return and the sampling timer, restarted when it runs again, fires
# more often just after, in the handler. The bounds allow that bias; a stack
# not unwound through the signal frame or qsort still fails them.
q=$(share sc.folded ';qsort_r;.*;cmp;leaf' ';b;.*leaf')
rc=$(share sc.folded ';b;recurse;recurse;recurse;recurse;leaf' ';b;.*leaf')
h=$(share sc.folded ';__restore_rt;leaf' ';b;.*leaf')
echo "# shares of leaf under b: qsort callback $q%, recursion $rc%, signal handler $h%"
awk -v q="$q" -v r="$rc" -v h="$h" 'BEGIN { exit !(q >= 60 && q <= 95 && r >= 1 && r <= 12 && h >= 3 && h <= 30) }' &&
	pass "call tree shares match the program ($q/$rc/$h%, expected ~86/5/9%)" ||
	fail "call tree shares $q/$rc/$h% (expected ~86/5/9%)"

profile fp fp ./prog 100000000 20000
fpmain=$(share fp.folded ';main;')
echo "# prog, frame pointers: $fpmain% of samples reach main"
pass "frame-pointer mode on the same binary: $fpmain% reach main (stack copy: $main%)"

if [ -x /usr/bin/xz ]; then
	head -c 30000000 /dev/urandom >input
	profile xzsc 8192 sh -c 'exec xz -9 -T1 -c input >/dev/null'
	xm=$(share xzsc.folded '__libc_start_call_main;' '^')
	echo "# xz -9, stack copies: $xm% reach __libc_start_call_main"
	awk -v m="$xm" 'BEGIN { exit !(m >= 95) }' && pass "xz stack copy: $xm% reach __libc_start_call_main" ||
		{ sort -t' ' -k2 -nr xzsc.folded | head -n 10; fail "xz stack copy: only $xm%"; }
	profile xzfp fp sh -c 'exec xz -9 -T1 -c input >/dev/null'
	xf=$(share xzfp.folded '__libc_start_call_main;' '^')
	pass "xz frame-pointer mode: $xf% reach __libc_start_call_main (stack copy: $xm%)"
fi
# A second run to the same output without --stack-copy: the first run's
# stacks are not left beside the new profile (symbolize would unwind them).
"$C" -d 1 --stack-copy 8192 -o again.pb.gz 2>again1.log || fail "again: $(tail -n 1 again1.log)"
check "--stack-copy wrote again.pb.gz.d/ustacks.gz" [ -s again.pb.gz.d/ustacks.gz ]
"$C" -d 1 -o again.pb.gz 2>again2.log || fail "again: $(tail -n 1 again2.log)"
check "a run without --stack-copy removes the older run's ustacks.gz" [ ! -e again.pb.gz.d/ustacks.gz ]
finish
