#!/bin/sh
# perf.data of a large real C++ program (issue 50's oracles on real
# recordings): HotSpot's libjvm.so (Debian's openjdk-17, 14 MB of template
# C++ code) running a small class with -Xcomp, so its C1 and C2 compilers
# and the serial collector do most of the work, recorded with
# `perf record -g` (libjvm keeps frame pointers) and, for a part, with
# `--call-graph dwarf` (psym's unwinder on libjvm's large CFI). The JRE and
# its debug package (openjdk-17-dbg, the same version: build IDs checked)
# are fetched with apt-get download; the test skips when they cannot be.
# Oracles: perf script's frames (perf given the debug file through a
# build-ID cache of the test's own) for >= 99.5% of the samples, JIT frames
# (named by neither) counted apart, perf's own unwinding faults explained
# by rule and counted (perfdata-compare.py --explain, which reads the
# recording's stack copies itself for one rule); and every distinct
# location's lines and inline frames in libjvm (and in libc when its debug
# file is installed) against llvm-symbolizer --inlines on the debug file.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/perfdata-lib.sh"
need apt-get
need dpkg-deb
need javac "Debian's openjdk-17-jdk-headless"
need llvm-symbolizer
need protoc
need readelf
need nm
[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] || skip "the packages fetched are amd64's"
perf_usable
# perf's configuration and build-ID cache: the test's own.
HOME=$T
export HOME

timeout 300 apt-get download openjdk-17-jre-headless openjdk-17-dbg >apt.log 2>&1 ||
	skip "cannot download openjdk-17-jre-headless and openjdk-17-dbg: $(tail -1 apt.log)"
jre=$(ls openjdk-17-jre-headless_*.deb) && dbg=$(ls openjdk-17-dbg_*.deb) ||
	skip "apt-get download left no packages"
[ "$(dpkg-deb -f "$jre" Version)" = "$(dpkg-deb -f "$dbg" Version)" ] ||
	skip "the JRE and its debug package differ in version: $jre $dbg"
dpkg-deb -x "$jre" x && dpkg-deb -x "$dbg" x || exit 99
rm -f "$jre" "$dbg"
home=$T/x/usr/lib/jvm/java-17-openjdk-amd64
jvm=$home/lib/server/libjvm.so
buildid() { readelf -n "$1" 2>/dev/null | sed -n 's/.*Build ID: //p'; }
bid=$(buildid "$jvm")
[ -n "$bid" ] || skip "$jre has no libjvm.so with a build ID"
debug=$T/x/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug
[ -f "$debug" ] || skip "$dbg has no debug file for libjvm.so's build ID $bid"
check "libjvm.so and its debug file have one build ID ($bid)" test "$(buildid "$debug")" = "$bid"

# perf finds the debug file in its build-ID cache: libjvm.so added
# (perf buildid-cache -a), its debug file beside it, as perf places one.
perf buildid-cache -a "$jvm" >/dev/null 2>&1 || exit 99
entry=$(readlink -f "$PERF_BUILDID_DIR/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-)")
[ -f "$entry/elf" ] || { echo "perf buildid-cache -a made no entry for $bid"; exit 99; }
ln -s "$debug" "$entry/debug"

# The vDSO psym names frames in: this machine's, where the recordings are
# made (perf script reads its own the same way).
"$top_builddir/tests/dump-vdso" vdso.so >/dev/null || exit 99

mkdir cls && javac -d cls "$top_srcdir/tests/perfdata-bigcxx.java" || exit 99
java="$home/bin/java -Xcomp -XX:+UseSerialGC -cp cls Churn"
perf_rec "perf record -q -N --buildid-mmap -e cpu-clock -F 999 -g -o fp.data $java 5 >/dev/null"
perf_rec "perf record -q -N --buildid-mmap -e cpu-clock -F 299 --call-graph dwarf -o dw.data $java 2 >/dev/null"

# frames DATA NAME: psym's stacks of DATA against perf script's (physical
# frames: perf's inline frames come from its srcline, checked apart below).
frames() {
	perf script --no-inline -i "$1" -F comm,pid,tid,time,ip,sym,symoff,dso >"$2.perf" 2>"$2.err" &&
		perf_symbolize "$1" "$2.pb.gz" --debug-dir "$T/x/usr/lib/debug" \
			--kallsyms /proc/kallsyms --vdso vdso.so &&
		"$PSYM" traces --sample-index cpu-clock_sample "$2.pb.gz" >"$2.psym" 2>>"$2.err" &&
		python3 "$top_srcdir/tests/perfdata-compare.py" --explain --perf-data "$1" "$2.perf" "$2.psym" 99.5 >"$2.cmp"
	_rc=$?
	cat "$2.cmp"
	return $_rc
}
# lines NAME BINARY DEBUG|--aliases: every location in BINARY, lines and
# inline frames (a C library's aliases, clone3 and __GI___clone3, as one).
lines() {
	decode_pb "$1.pb.gz" >"$1.txt" 2>/dev/null || return 1
	if [ "$3" = --aliases ]; then
		python3 "$top_srcdir/tests/perfdata-lines.py" --aliases "$1.txt" "$2" 100
	else
		python3 "$top_srcdir/tests/perfdata-lines.py" "$1.txt" "$2" 100 "$3"
	fi
}
check "perf -g: frames agree with perf script's (>= 99.5% of samples)" frames fp.data fp
# (libjvm.so has no DWARF: its lines can only come from the debug file.)
check "perf -g: libjvm's lines and inline frames agree with llvm-symbolizer (all)" lines fp "$jvm" "$debug"
check "--call-graph dwarf: unwound frames agree with perf script's (>= 99.5% of samples)" frames dw.data dw
check "--call-graph dwarf: psym unwound the samples" grep -q "unwound [0-9]* samples" "$T/symbolize.log"
check "--call-graph dwarf: libjvm's lines and inline frames agree with llvm-symbolizer (all)" lines dw "$jvm" "$debug"
libc=$(awk '$NF ~ /libc\.so\.6\)$/ { gsub(/[()]/, "", $NF); print $NF; exit }' fp.perf)
if [ -n "$libc" ] && [ -f "/usr/lib/debug/.build-id/$(buildid "$libc" | cut -c1-2)/$(buildid "$libc" | cut -c3-).debug" ]; then
	check "perf -g: libc's lines and inline frames agree with llvm-symbolizer (all)" lines fp "$libc" --aliases
	check "--call-graph dwarf: libc's lines and inline frames agree with llvm-symbolizer (all)" lines dw "$libc" --aliases
else
	echo "# libc's lines not compared: no libc6-dbg installed"
fi
finish
