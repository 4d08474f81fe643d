#!/bin/sh
# perf record --call-graph dwarf, samples taken in the kernel: the user pc
# below the kernel frames is where the kernel was entered, looked up as it
# is, as perf does. Looked up as a return address (pc - 1), a pc on a
# function's first byte is named after the function before it: seen on
# libjvm (perfdata-bigcxx.sh: an interrupt on MachReturnNode::pinned's
# first byte), made certain here by a syscall that is a function's last
# instruction (tests/perfdata-entry.c): with the unwinder's leaf taken
# for a return address, 494 of 540 samples were named after trap.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/perfdata-lib.sh"
need gcc
[ "$(uname -m)" = x86_64 ] || skip "the program's syscall is x86-64's"
perf_usable

gcc -O2 -g -fomit-frame-pointer -o entry "$top_srcdir/tests/perfdata-entry.c" || exit 99
perf_rec 'perf record -q -N --buildid-mmap -e cpu-clock -F 999 --call-graph dwarf -o e.data ./entry 3000000 >/dev/null'
check "psym symbolize unwinds it" perf_symbolize e.data e.pb.gz --kallsyms /proc/kallsyms
perf script --no-inline -i e.data -F comm,pid,tid,time,ip,sym,symoff,dso >e.perf 2>/dev/null
want=$(awk '/after_trap\+0x0 / { n++ } END { print n + 0 }' e.perf)
got=$("$PSYM" folded --sample-index cpu-clock_sample e.pb.gz 2>/dev/null | awk '/;after_trap(;| )/ { n += $NF } END { print n + 0 }')
check "samples in after_trap: perf $want, psym $got" test "$got" = "$want" -a "$want" -gt 50
# Everything else as perf has it too (its own unwinding faults explained).
"$PSYM" traces --sample-index cpu-clock_sample e.pb.gz >e.psym 2>/dev/null
check "stacks agree with perf script's (>= 99%)" \
	python3 "$top_srcdir/tests/perfdata-compare.py" --explain e.perf e.psym 99
finish
