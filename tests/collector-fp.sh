#!/bin/sh
# Frame pointers that lie (issue 42): the same deep, CPU-bound C program
# built with -O2 -fomit-frame-pointer and with -fno-omit-frame-pointer,
# each profiled by psym-collect -p beside a CPU hog on every core. The
# kernel's frame-pointer walk of the first stops at the sampled frame (or
# wanders off): the summary says so once for its pid, and psym top says
# so in one note line; neither says it of the second. The oracle for the
# premise is go tool pprof -traces on the symbolized profiles: the second
# program's stacks end in libc's start code, the first's do not.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need go "Debian golang-go"
export HOME=$T GOCACHE=$T/gocache
collector_need "BPF and perf events"

cat >deep.c <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Work before and after each call keeps every level a real frame. */
__attribute__((noinline)) static unsigned long work(unsigned long x, int n)
{
	unsigned long a = x, b = x * 3, c = x ^ 0x5555, d = x + 7;

	for (int i = 0; i < n; i++) {
		a = a * 6364136223846793005UL + b;
		b ^= a >> 13;
		c += b * d;
		d = (d << 7) | (c >> 57);
	}
	return a ^ b ^ c ^ d;
}

__attribute__((noinline)) static unsigned long level(unsigned long x, int depth)
{
	unsigned long r;

	if (depth == 0)
		return work(x, 2000);
	r = level(x + (unsigned long)depth, depth - 1);
	return r ^ work(r, 50);
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 5);
	unsigned long acc = 0;

	for (unsigned long i = 0; time(NULL) < end; i++)
		acc += level(i, 24);
	printf("%lu\n", acc);
	return 0;
}
EOF2
gcc -O2 -fomit-frame-pointer -o deep-nofp deep.c || fail "cannot build deep-nofp"
gcc -O2 -fno-omit-frame-pointer -o deep-fp deep.c || fail "cannot build deep-fp"
collector_hogs

# ends_in_start FILE: how many of go tool pprof -traces' stacks end in
# libc's start code, and how many stacks there are ("N of M").
ends_in_start() {
	go tool pprof -traces -symbolize=none "$1" 2>/dev/null | awk '
		function end_stack() {
			if (seen && last != "") {
				n++
				if (last == "_start" || last ~ /^__libc_start_(call_)?main/) r++
			}
			seen = 1
			last = ""
		}
		/^-----------/ { end_stack(); next }
		seen && NF >= 1 && $1 !~ /:$/ { last = $NF }
		END { end_stack(); printf "%d of %d\n", r, n }'
}

for v in nofp fp; do
	./deep-$v 30 >/dev/null &
	pid=$!
	collector_bg $pid
	"$C" -p $pid -d 4 -o $v.pb.gz 2>$v.log || fail "$v: psym-collect failed: $(cat $v.log)"
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	"$PSYM" symbolize $v.pb.gz -o $v.sym.pb.gz 2>$v.sym.log || fail "$v: symbolize failed: $(cat $v.sym.log)"
	"$PSYM" top $v.sym.pb.gz >$v.top 2>$v.top.err || fail "$v: psym top failed: $(cat $v.top.err)"
	eval "pid_$v=$pid"
	eval "oracle_$v=\"$(ends_in_start $v.sym.pb.gz)\""
done
samples() { sed -n 's/^psym-collect: [0-9.]*s, \([0-9]*\) samples.*/\1/p' "$1" | head -1; }
n_nofp=$(samples nofp.log)
n_fp=$(samples fp.log)
[ "${n_nofp:-0}" -ge 10 ] && [ "${n_fp:-0}" -ge 10 ] ||
	skip "too few samples to judge (nofp ${n_nofp:-?}, fp ${n_fp:-?}): the machine gave the programs no CPU"

# The premise, from go tool pprof: -fno-omit-frame-pointer walks to the start code.
r=${oracle_fp%% of*}
n=${oracle_fp##*of }
check "pprof: most of deep-fp's stacks end in libc's start code ($oracle_fp)" test $((2 * r)) -gt "$n"
r=${oracle_nofp%% of*}
n=${oracle_nofp##*of }
check "pprof: fewer than half of deep-nofp's stacks end in libc's start code ($oracle_nofp)" test $((2 * r)) -lt "$n"

check "summary: deep-nofp's frame pointers are said not to hold, once" \
	test "$(grep -c "pid $pid_nofp (deep-nofp): .* reach no root frame" nofp.log)" = 1
check "summary: and --stack-copy is suggested" grep -q "reach no root frame.*--stack-copy" nofp.log
check "summary: nothing said of deep-fp's stacks" sh -c "! grep -q 'reach no root frame' fp.log"
check "psym top: one note line for deep-nofp" \
	test "$(grep -c "^psym: note: pid $pid_nofp (deep-nofp): .* reach no root frame.*--stack-copy" nofp.top.err)" = 1
check "psym top: no note for deep-fp" sh -c "! grep -q 'reach no root frame' fp.top.err"
check "psym top: the note goes to stderr, the table stays pprof's" sh -c "! grep -q 'root frame' nofp.top"
if [ "$n_fail" != 0 ]; then
	for v in nofp fp; do echo "# $v:"; cat $v.log $v.top.err; done
fi
finish
