#!/bin/sh
# perf record --call-graph dwarf (issue 50 item 3): the C++ program built
# without frame pointers, its samples' register and stack copies unwound
# by psym symbolize reading perf.data itself (the input's stack-copy
# records through the CFI unwinder), against the callchains perf script
# unwinds from the same copies: at least 99% of the samples reach the
# same physical frames, address for address (perfdata-unwind.py, which
# explains or counts every difference), and the inline frames psym adds
# agree with llvm-symbolizer's. Before unwinding,
# every sample already carries perf's own callchain (kernel part and the
# user IP), and the profile says it has copies to unwind.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/perfdata-lib.sh"
need g++
need llvm-symbolizer
need objdump
need protoc
perf_usable

g++ -O2 -g -fomit-frame-pointer -o worknofp "$top_srcdir/tests/perfdata-work.cc" || exit 99
perf_rec 'perf record -q -N --buildid-mmap -e cpu-clock -F 499 --call-graph dwarf -o dw.data ./worknofp 150 >/dev/null'

check "the input kind sees stack copies" sh -c "'$top_builddir/tests/perf-topprof' dw.data raw.pb.gz | grep -q 'stacks: yes'"
want=$(perf script -i dw.data -F pid 2>/dev/null | grep -c .)
got=$("$PSYM" top --sample-index cpu-clock_sample raw.pb.gz 2>/dev/null |
	sed -n 's/.*Total samples = \([0-9]*\).*/\1/p' | head -1)
check "before unwinding: all $want samples with perf's own frames ($got)" test "$want" = "$got"
check "the unsymbolized profile says it needs unwinding" sh -c "'$PSYM' show raw.pb.gz 2>/dev/null | grep -q 'user stacks need unwinding'"
check "psym symbolize unwinds and symbolizes perf.data" perf_symbolize dw.data dw.pb.gz --kallsyms /proc/kallsyms
check "it says it unwound" grep -q "unwound $want samples" "$T/symbolize.log"
# Physical frames only: perf's inline frames are not an oracle (it names
# churn's frame inlined into run "run", as binutils' addr2line does, where
# llvm-symbolizer and psym say churn; it prints a function inlined into
# itself, _M_erase, as frames of their own). A user frame below kernel
# frames is the IP where the kernel was entered, compared as is.
check "unwound stacks reach perf script's physical frames (>= 99% of samples)" \
	perf_unwind dw.data dw.pb.gz 99
decode_pb dw.pb.gz >dw.txt 2>/dev/null
check "unwound lines and inline frames agree with llvm-symbolizer (>= 99%)" \
	python3 "$top_srcdir/tests/perfdata-lines.py" dw.txt "$T/worknofp" 99
[ "$n_fail" = 0 ]
