# Shared by the perf.data tests (issue 50): source after tests/lib.sh.
need perf "Debian's linux-perf"
need python3
# perf_usable: perf record works here (root, or perf_event_paranoid allows it).
perf_usable() {
	perf record -q -N -e cpu-clock -o "$T/probe.data" true >"$T/probe.log" 2>&1 ||
		skip "perf record -e cpu-clock does not work here: $(head -c 200 "$T/probe.log" | tr '\n' ' ')"
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
