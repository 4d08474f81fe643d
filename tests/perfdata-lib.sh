# Shared by the perf.data tests (issue 50): source after tests/lib.sh.
need perf "Debian's linux-perf"
need python3
# perf_rec CMD: run CMD (a perf record command line, as one string: it may
# redirect, prepare or clean up first) until it succeeds, at most 5 times.
# Debian 12's perf (6.1) crashes now and then on newer kernels ("stack
# smashing detected", "assertion failed at util/build-id.c") while it
# reads the kernel's state at its start and end: that is perf's bug, not
# the recording's, and the next run usually works. After 5 crashes the
# test skips and says so. It happens while BPF programs with perf events
# are loaded (psym-collect's own tests, run beside these): the tests record
# with --buildid-mmap (the build IDs in the MMAP2 records, which psym
# reads), which skips the step that crashes; one recording of
# perfdata-modes keeps perf's build-ID table in the header.
perf_rec() {
	_try=1
	while ! eval "$1" 2>"$T/perf-rec.err"; do
		[ "$_try" -ge 5 ] &&
			skip "perf record failed 5 times here: $(tail -1 "$T/perf-rec.err" | head -c 200)"
		_try=$((_try + 1))
		sleep 1
	done
}
# perf_usable: perf record works here (root, or perf_event_paranoid allows it).
perf_usable() {
	perf_rec 'perf record -q -N --buildid-mmap -e cpu-clock -o "$T/probe.data" true >"$T/probe.log"'
	rm -f "$T/probe.data" "$T/probe.log"
}
# perf_profile IN.data OUT.pb.gz: the unsymbolized profile psym reads from IN.
perf_profile() {
	"$top_builddir/tests/perf-topprof" "$1" "$2" >/dev/null
}
# perf_symbolize IN.data OUT.pb.gz [OPTIONS]: psym symbolize reading IN itself.
perf_symbolize() {
	local in=$1 out=$2
	shift 2
	"$PSYM" symbolize "$in" -o "$out" "$@" 2>"$T/symbolize.log"
}
# perf_frames [--inline] DATA SYM.pb.gz EVENT MIN: psym's stacks against perf script's.
perf_frames() {
	local inl=""
	[ "$1" = --inline ] && { inl=--inline; shift; }
	perf script -i "$1" -F comm,pid,tid,time,ip,sym,symoff,dso >"$T/perf.txt" 2>"$T/perf.err" &&
		"$PSYM" traces --sample-index "$3_sample" "$2" >"$T/psym.txt" 2>"$T/traces.err" &&
		python3 "$top_srcdir/tests/perfdata-compare.py" $inl "$T/perf.txt" "$T/psym.txt" "$4"
}
# perf_unwind DATA SYM.pb.gz MIN [--through FILE]...: the physical frames
# psym unwound from a --call-graph dwarf recording against perf script's
# (perfdata-unwind.py: addresses compared, differences classified). perf
# script stops at 127 frames unless told (--max-stack), psym goes on.
perf_unwind() {
	local data=$1 pb=$2 min=$3
	shift 3
	perf script --max-stack=1024 --no-inline -i "$data" -F comm,pid,tid,time,ip,sym,symoff,dso \
		>"$T/perf-ni.txt" 2>"$T/perf.err" &&
		perf report -D -i "$data" 2>/dev/null |
		grep -E 'PERF_RECORD_SAMPLE|^\.\.\. ustack:' >"$T/ustack.txt" &&
		decode_pb "$pb" >"$T/unwound.txt" 2>/dev/null &&
		python3 "$top_srcdir/tests/perfdata-unwind.py" --ustack "$T/ustack.txt" "$@" \
			"$T/perf-ni.txt" "$T/unwound.txt" "$min"
}
