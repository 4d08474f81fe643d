#!/bin/sh
# psym-collect beside perf record (issue 50's oracle): one CPU-bound
# program whose three functions share its time, profiled by
# psym-collect -p and by perf record -g -p at the same time, beside a CPU
# hog on every core. Both profiles, symbolized by psym (the collector's
# pprof, and the perf.data as it is), give each function the same share of
# the program's samples within a few points; perf's own report of the
# same perf.data (perf report --sort sym) is the second oracle for perf's
# side.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
. "$top_srcdir/tests/perfdata-lib.sh"
need gcc
collector_need "BPF and perf events"
perf_usable

cat >split.c <<'C'
#include <stdlib.h>
static volatile unsigned long sink;
/* Each function burns its own rounds (the leaf is the function itself); 5 : 3 : 2. */
#define BURN(n) for (unsigned long i = 0; i < (n); i++) sink += i * 2654435761UL
__attribute__((noinline)) void share_a(void) { BURN(5000000); }
__attribute__((noinline)) void share_b(void) { BURN(3000000); }
__attribute__((noinline)) void share_c(void) { BURN(2000000); }
int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100000;
	for (long r = 0; r < rounds; r++) {
		share_a();
		share_b();
		share_c();
	}
	return 0;
}
C
gcc -O1 -g -fno-omit-frame-pointer -o split split.c || fail "cannot build split"
collector_hogs
./split 100000 >/dev/null &
pid=$!
collector_bg $pid
sleep 0.5
perf record -q -N --buildid-mmap -e cpu-clock -F 999 -g -p "$pid" -o perf.data -- sleep 5 >perf.out 2>&1 &
prec=$!
"$C" -p "$pid" -F 999 -d 5 -o col.pb.gz 2>col.err || fail "psym-collect failed: $(tail -1 col.err)"
wait "$prec" || skip "perf record failed beside the collector (perf 6.1 on this kernel; see perfdata-lib.sh): $(tail -1 perf.out)"
kill "$pid" 2>/dev/null

"$PSYM" symbolize -q --offline col.pb.gz -o col.sym.pb.gz || fail "symbolize of the collector's profile"
"$PSYM" symbolize -q --offline perf.data -o perf.sym.pb.gz || fail "symbolize of perf.data"
# share FILE FUNC INDEX: FUNC's cumulative share of the program's samples, in
# percent (about 2,000 samples each: two samplings of one run differ by
# 1.5 points or so, 5 is three times that).
share() {
	"$PSYM" top --comms split --sample-index "$3" "$1" 2>/dev/null |
		awk -v f="$2" '$NF == f { sub(/%/, "", $5); print $5 + 0; found = 1 } END { if (!found) print -1 }'
}
# perf's own report: the symbol's share among the program's samples (children included).
perf_share() {
	perf report -i perf.data --stdio --children --comms split --sort sym 2>/dev/null |
		awk -v f="$1" '$NF == f { sub(/%/, "", $1); print $1 + 0; exit }'
}
for f in share_a share_b share_c; do
	c=$(share col.sym.pb.gz "$f" 1)
	p=$(share perf.sym.pb.gz "$f" cpu-clock_sample)
	r=$(perf_share "$f")
	echo "$f: psym-collect $c%, perf.data via psym $p%, perf report $r%"
	awk -v a="$c" -v b="$p" -v c="$r" 'BEGIN { d1 = a - b; d2 = b - c; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
		exit !(a > 0 && b > 0 && c > 0 && d1 <= 5 && d2 <= 1) }' &&
		pass "$f: the two profiles agree within 5 points, psym and perf report on perf.data within 1" ||
		fail "$f: psym-collect $c%, perf.data via psym $p%, perf report $r%"
done
finish
