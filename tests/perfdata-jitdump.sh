#!/bin/sh
# perf.data of a JIT that writes a jitdump (issue 50's oracle): node run
# with --perf-prof under perf record -k 1 -g writes jit-PID.dump in its
# cwd and maps it. The oracle is perf itself: perf inject --jit turns the
# dump into small ELF files (jitted-PID-N.so, beside the dump) and perf
# script names every frame from them. psym reads the ORIGINAL recording
# and finds the dump through the recording's own MMAP2 record of it; it
# must name the same frames (>= 99% of samples), the JavaScript functions
# included. A moved dump is refused at its old path and read from
# --perf-map-dir; a different file at the recorded path is refused; perf
# inject's own file is refused with what to give instead.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/perfdata-lib.sh"
need node "Debian's nodejs"
perf_usable

cp "$top_srcdir/tests/perfdata-work.js" work.js
# -k 1: CLOCK_MONOTONIC, the clock V8 stamps the dump's records with (perf inject --jit needs it).
perf_rec 'perf record -q -N --buildid-mmap -k 1 -e cpu-clock -F 997 -g -o node.data node --perf-prof work.js >node.out'
pid=$(perf script -i node.data -F pid 2>/dev/null | awk 'NR == 1 { print $1 }')
dump=$T/jit-$pid.dump
[ -n "$pid" ] && [ -f "$dump" ] || skip "node wrote no jitdump ($dump)"
# perf inject writes jitted-PID-N.so beside the dump (in $T) and caches into the build-ID dir.
perf --buildid-dir "$T/buildid" inject --jit -i node.data -o injected.data 2>inject.err ||
	skip "perf inject --jit failed: $(tail -1 inject.err)"
perf script -i node.data -F comm,pid,tid,time,ip,sym,symoff,dso >orig.txt 2>/dev/null
ls jitted-"$pid"-*.so >/dev/null 2>&1 || skip "perf inject --jit wrote no jitted-$pid-*.so"

# frames OUT.pb.gz: psym's stacks against perf script's of the injected file.
frames() {
	perf script -i injected.data -F comm,pid,tid,time,ip,sym,symoff,dso >"$T/perf.txt" 2>/dev/null &&
		"$PSYM" traces --sample-index cpu-clock_sample "$1" >"$T/psym.txt" 2>/dev/null &&
		python3 "$top_srcdir/tests/perfdata-compare.py" --file-names "$T/orig.txt" \
			"$T/perf.txt" "$T/psym.txt" 99
}
named() { "$PSYM" traces --sample-index cpu-clock_sample "$1" 2>/dev/null | grep -c "JS:.*fibJS"; }

check "symbolized, the dump found through the recording's MMAP2 record" \
	perf_symbolize node.data sym.pb.gz --offline --kallsyms /proc/kallsyms
frames sym.pb.gz >cmp.txt 2>&1 && rc=0 || rc=$?
cat cmp.txt
[ "$rc" = 0 ] && pass "frames agree with perf script's on perf inject --jit's file (>= 99%)" ||
	fail "frames disagree with perf script's"
"$PSYM" traces --sample-index cpu-clock_sample sym.pb.gz >traces.txt 2>/dev/null
check "the JavaScript functions are named (fibJS, hashLoop)" \
	sh -c 'grep -q "JS:.*fibJS" traces.txt && grep -q "JS:.*hashLoop" traces.txt'
echo "# JS frames named: $(grep -c 'JS:' traces.txt) lines of traces"

# perf inject's file: one mapping per JIT code object (thousands) is past
# psym's per-process cap; psym says so and which file to give instead.
expect_exit 2 "perf inject --jit's file is refused" perf_symbolize injected.data inj.pb.gz --offline
check "the refusal says to give the recording from before perf inject" \
	grep -q "recording from before perf inject" symbolize.log

# The dump moved: not at the recorded path, so no JS name, and the reason says where it was.
mkdir dumps && mv "$dump" dumps/
check "symbolized with the dump moved away" perf_symbolize node.data moved.pb.gz --offline \
	--kallsyms /proc/kallsyms
check "the dump moved: no JavaScript function named" test "$(named moved.pb.gz)" = 0
check "the dump moved: the reason names the recorded path" grep -qF "jit-$pid.dump" symbolize.log
check "symbolized from --perf-map-dir" perf_symbolize node.data dir.pb.gz --offline \
	--kallsyms /proc/kallsyms --perf-map-dir dumps
frames dir.pb.gz >cmp2.txt 2>&1 && rc=0 || rc=$?
cat cmp2.txt
[ "$rc" = 0 ] && pass "--perf-map-dir: frames agree with perf script's (>= 99%)" ||
	fail "--perf-map-dir: frames disagree with perf script's"

# Another file at the recorded path (a copy: another inode) is not the one mapped.
cp dumps/"jit-$pid.dump" "$dump"
check "symbolized with a copy at the recorded path" perf_symbolize node.data copy.pb.gz --offline \
	--kallsyms /proc/kallsyms
check "a copy at the recorded path is refused" test "$(named copy.pb.gz)" = 0
check "the refusal says why" grep -q "not the file the recording mapped" symbolize.log
finish
