#!/bin/sh
# perf.data in (issue 50): a C++ program with templates and inlining
# (tests/perfdata-work.cc, built here with -O2 -g) recorded with
# `perf record -g`; psym's profile of it, symbolized, against perf's own
# reading of the same file: every sample's frames (perf script's symbols)
# for at least 99.5% of the samples, and the program's lines and inline
# frames against llvm-symbolizer at the same addresses. go tool pprof and
# protoc read what psym wrote.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/perfdata-lib.sh"
need g++
need llvm-symbolizer
need protoc
perf_usable

g++ -O2 -g -fno-omit-frame-pointer -o work "$top_srcdir/tests/perfdata-work.cc" || exit 99
perf_rec 'perf record -q -N --buildid-mmap -e cpu-clock -F 997 -g -o plain.data ./work 250 >/dev/null'

check "profile of perf.data symbolized" perf_symbolize plain.data sym.pb.gz --kallsyms /proc/kallsyms
check "frames and symbols agree with perf script (>= 99.5% of samples)" \
	perf_frames plain.data sym.pb.gz cpu-clock 99.5
decode_pb sym.pb.gz >sym.txt 2>decode.err
check "protoc --decode reads it" test -s sym.txt
check "lines and inline frames agree with llvm-symbolizer (>= 99%)" \
	python3 "$top_srcdir/tests/perfdata-lines.py" sym.txt "$T/work" 99
check "one sample type pair per event, as perf_to_profile names them" \
	grep -q '"cpu-clock_event"' sym.txt
check "labels pid, tid and comm" sh -c 'grep -q "\"pid\"" sym.txt && grep -q "\"tid\"" sym.txt && grep -q "\"comm\"" sym.txt'
# Mapping 1 is the main binary (pprof's convention).
first=$(awk '/^mapping {/{m=1} m&&/filename:/{print $2; exit}' sym.txt)
check "mapping 1 is the program" sh -c "sed -n '/^string_table/p' sym.txt | sed -n '$((first + 1))p' | grep -q '/work\"'"
if command -v go >/dev/null 2>&1; then
	check "go tool pprof -raw reads it" sh -c 'go tool pprof -raw sym.pb.gz >raw.txt 2>&1 && grep -q "churn" raw.txt'
	check "go tool pprof -top reads it" sh -c 'go tool pprof -top sym.pb.gz 2>&1 | grep -q "mapwork"'
fi
# The other commands read perf.data as it is too.
check "psym top reads perf.data itself" sh -c "'$PSYM' top plain.data 2>/dev/null | grep -q 'cpu-clock_event'"
check "psym top counts as many samples as perf script" sh -c \
	"test \"\$('$PSYM' top --sample-index cpu-clock_sample plain.data 2>/dev/null | sed -n 's/.*Total samples = \([0-9]*\).*/\1/p' | head -1)\" = \"\$(perf script -i plain.data -F pid 2>/dev/null | grep -c .)\""
[ "$n_fail" = 0 ]
