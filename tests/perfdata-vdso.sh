#!/bin/sh
# The vDSO of a perf.data recorded here, named without --vdso (issue 50:
# kernel and vDSO frames too). perf's build-ID table gives the vDSO's
# build ID; psym's own vDSO, the image every process on this kernel maps,
# is used when its build ID is that one, as perf script reads its own.
# With HOME empty perf's build-ID cache holds no copy, so the frames can
# only come from memory. A program that spends its time in
# clock_gettime's vDSO code: its frames agree with perf script's.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/perfdata-lib.sh"
need gcc
perf_usable

cat >v.c <<'C'
#include <stdio.h>
#include <time.h>
int main(void)
{
	struct timespec t;
	long s = 0;

	for (long i = 0; i < 20000000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		s += t.tv_nsec;
	}
	printf("%ld\n", s);
	return 0;
}
C
gcc -O2 -g -fno-omit-frame-pointer -o v v.c || exit 99
# The header's build-ID table (not --buildid-mmap: the kernel gives no
# build ID for the vDSO's mapping).
perf_rec 'perf record -q -N -e cpu-clock -F 999 -g -o v.data ./v >/dev/null'
vid=$(perf buildid-list -i v.data 2>/dev/null | awk '$2 == "[vdso]" { print $1 }')
[ -n "$vid" ] || skip "perf wrote no build ID for [vdso] in this recording"
mkdir home
check "symbolized with an empty HOME" env HOME="$T/home" sh -c \
	"'$PSYM' symbolize --explain v.data -o v.pb.gz --kallsyms /proc/kallsyms 2>explain.log"
check "the vDSO (build ID $vid) is this machine's own" \
	grep -qF "tried '[vdso] (this machine's)': vDSO image used" explain.log
check "frames agree with perf script's (>= 99.5%)" perf_frames v.data v.pb.gz cpu-clock 99.5
"$PSYM" top v.pb.gz >top.txt 2>/dev/null
check "the vDSO's clock_gettime named" grep -q "__vdso_clock_gettime" top.txt
finish
