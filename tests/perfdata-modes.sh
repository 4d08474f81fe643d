#!/bin/sh
# perf.data as perf writes it in its other modes (issue 50): pipe mode
# (`perf record -o -`), zstd-compressed records (`-z`), two events, and a
# multi-process workload (make -j2 building C files with gcc). For each:
# psym's reader gives record for record what `perf report -D` dumps
# (samples with their callchains, registers and stack sizes, mappings,
# comms), and the symbolized profile's stacks agree with perf script's
# for at least 99.5% of the samples.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/perfdata-lib.sh"
need g++
need make
perf_usable
dump=$top_builddir/tests/perfdata-dump

g++ -O2 -g -fno-omit-frame-pointer -o work "$top_srcdir/tests/perfdata-work.cc" || exit 99

# same NAME DATA: the reader against perf report -D, record for record.
same() {
	perf report -D -i "$2" >"$1.D" 2>/dev/null
	"$dump" "$2" >"$1.dump" 2>&1
	check "$1: the reader's records are perf report -D's" \
		python3 "$top_srcdir/tests/perfdata-rawcmp.py" "$1.D" "$1.dump"
}

perf_rec 'perf record -q -N --buildid-mmap -e cpu-clock -F 997 -g -o - ./work 120 >pipe.data'
same pipe pipe.data
check "pipe: profile of it symbolized" perf_symbolize pipe.data pipe.pb.gz --kallsyms /proc/kallsyms
check "pipe: stacks agree with perf script" perf_frames pipe.data pipe.pb.gz cpu-clock 99.5

perf_rec 'perf record -q -N --buildid-mmap -z -e cpu-clock -F 997 -g -o z.data ./work 120 >/dev/null'
check "-z: the file has compressed records" sh -c "perf report -D -i z.data 2>/dev/null | grep -q 'COMPRESSED events:'"
same zstd z.data
check "-z: profile of it symbolized" perf_symbolize z.data z.pb.gz --kallsyms /proc/kallsyms
check "-z: stacks agree with perf script" perf_frames z.data z.pb.gz cpu-clock 99.5

perf_rec 'perf record -q -N -e cpu-clock,task-clock -F 997 -g -o two.data ./work 120 >/dev/null'
same two two.data
check "two events: profile of it" perf_profile two.data two.pb.gz
decode_pb two.pb.gz >two.txt
for ev in cpu-clock task-clock; do
	want=$(perf script -i two.data -F event 2>/dev/null | grep -c "^ *$ev:")
	got=$("$PSYM" traces --sample-index "${ev}_sample" two.pb.gz 2>/dev/null |
		awk '$1 ~ /^[0-9]+$/ && NF >= 2 {n += $1} END {print n + 0}')
	check "two events: ${ev}_sample counts perf script's $want samples ($got)" test "$want" = "$got"
	check "two events: ${ev}_event in nanoseconds" grep -q "\"${ev}_event\"" two.txt
done

# Several processes at once: make -j2 compiling a few C files.
mkdir src
for i in 1 2 3 4 5 6; do
	printf 'int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * %d; return s; }\n' "$i" "$i" >"src/f$i.c"
done
printf 'all: $(patsubst %%.c,%%.o,$(wildcard *.c))\n%%.o: %%.c\n\tgcc -O2 -g -c $< -o $@\n' >src/Makefile
perf_rec 'rm -f src/*.o; perf record -q -N --buildid-mmap -e cpu-clock -F 997 -g -o multi.data make -s -j2 -C src >/dev/null'
same multi multi.data
pids=$("$dump" multi.data | awk '$1 == "S" {split($3, a, "/"); print a[1]}' | sort -u | wc -l)
check "multi-process: samples of several processes ($pids)" test "$pids" -ge 4
check "multi-process: profile of it symbolized" perf_symbolize multi.data multi.pb.gz --kallsyms /proc/kallsyms
# Fewer samples here (about 120 to 150), of gcc's cc1 built without frame
# pointers: one sample in the vDSO (perf names it from its own copy, psym
# only given --vdso) or one garbage caller perf names after the nearest
# dynamic symbol is 0.7% each. 98.3% to 100% in runs here.
check "multi-process: stacks agree with perf script (>= 96%)" perf_frames multi.data multi.pb.gz cpu-clock 96
[ "$n_fail" = 0 ]
