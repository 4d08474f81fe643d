#!/bin/sh
# perf record --call-graph dwarf (issue 50 item 3) of a two-thread C++
# program built -O2 without frame pointers whose stacks run through the
# system's libc and libstdc++ (qsort calling back, std::ostringstream
# into printf's code, std::thread's start through libstdc++ into libc's
# start_thread and clone3), one thread recursing deeper than perf's 8 KB
# stack copy: psym unwinds every sample through those libraries' own CFI
# (their files found by build ID) to the same physical frames as perf
# script, or to where its copy ends (perfdata-unwind.py explains every
# difference); the lines and inline frames psym gives agree with
# llvm-symbolizer in the program, and in libc and libstdc++ when their
# debug files are installed (libc6-dbg).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/perfdata-lib.sh"
need g++
need llvm-symbolizer
need objdump
need protoc
perf_usable

g++ -O2 -g -fomit-frame-pointer -pthread -o thr "$top_srcdir/tests/perfdata-threads.cc" || exit 99
perf_rec 'perf record -q -N --buildid-mmap -e cpu-clock -F 499 --call-graph dwarf -o thr.data ./thr 100 >/dev/null'

check "psym symbolize unwinds the threads' copies" perf_symbolize thr.data thr.pb.gz --kallsyms /proc/kallsyms
want=$(perf script -i thr.data -F pid 2>/dev/null | grep -c .)
check "it unwound all $want samples" grep -q "unwound $want samples" "$T/symbolize.log"
check "both threads were sampled" test "$(perf script -i thr.data -F tid 2>/dev/null | sort -u | grep -c .)" -ge 2
libc=$(ldd ./thr | sed -n 's/^\s*libc\.so\.6 => \(\S*\) .*/\1/p')
libstdcxx=$(ldd ./thr | sed -n 's/^\s*libstdc++\.so\.6 => \(\S*\) .*/\1/p')
libc=$(readlink -f "$libc")
libstdcxx=$(readlink -f "$libstdcxx")
check "unwound stacks reach perf script's physical frames, through libc's and libstdc++'s CFI (>= 99% of samples)" \
	perf_unwind thr.data thr.pb.gz 99 --through "$(basename "$libc")" --through "$(basename "$libstdcxx")"
# A copy big enough for the deepest stack (~13 KB, 130 frames, past perf
# script's default --max-stack of 127): every sample whole on both sides.
perf_rec 'perf record -q -N --buildid-mmap -e cpu-clock -F 199 --call-graph dwarf,32768 -o big.data ./thr 100 >/dev/null'
check "psym symbolize unwinds 32 KB copies" perf_symbolize big.data big.pb.gz --kallsyms /proc/kallsyms
whole() {
	perf_unwind big.data big.pb.gz 99 >big.cmp
	_rc=$?
	cat big.cmp
	[ "$_rc" = 0 ] && ! grep -q copy-end big.cmp &&
		[ "$(sed -n 's/^deepest stack: perf \([0-9]*\) frames.*/\1/p' big.cmp)" -gt 127 ]
}
check "all whole (no copy ended inside a stack), >= 99% equal to perf's, the rest explained" whole
decode_pb thr.pb.gz >thr.txt 2>/dev/null
check "the program's lines and inline frames agree with llvm-symbolizer (>= 99%)" \
	python3 "$top_srcdir/tests/perfdata-lines.py" thr.txt "$T/thr" 99
# A library's lines: only from its debug file (Debian's -dbg package); the
# names of one address in libc are aliases (__GI___clone3, clone3).
for lib in "$libc" "$libstdcxx"; do
	id=$(readelf -n "$lib" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
	dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
	if [ -z "$id" ] || [ ! -f "$dbg" ]; then
		echo "# skipped: lines in $lib: no debug file $dbg (libc6-dbg gives libc's; Debian 12 has none for libstdc++: libstdc++6-12-dbg is a separate debug build, not this file's)"
		continue
	fi
	check "lines and inline frames in $(basename "$lib") agree with llvm-symbolizer (>= 99%)" \
		python3 "$top_srcdir/tests/perfdata-lines.py" --aliases thr.txt "$lib" 99
done
[ "$n_fail" = 0 ]
