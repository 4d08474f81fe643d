#!/bin/sh
# Build IDs not read (issue 42): when the metadata cap leaves a mapped
# file without its build ID, the summary names each such file (once, with
# its pid and why), not only a count. The fixture: one process running
# call chains through 1000 copies of a library built without a build ID,
# so that a drain is asked for more files than its 256 reads; psym-collect
# -p on it beside a CPU hog on every core. Oracle: the profile's own
# mapping of each file named has no build ID (psym show), and readelf
# says the copies have none to read.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need readelf
collector_need "BPF and perf events"

cat >step.c <<'EOF2'
/* One link of a call chain through many copies of this library. */
typedef void (*step_fn)(void *next, int depth, unsigned long *acc);

__attribute__((noinline)) void step(void *nextv, int depth, unsigned long *acc)
{
	for (int i = 0; i < 500; i++)
		*acc = *acc * 6364136223846793005UL + (unsigned long)i;
	if (depth > 0)
		((step_fn *)nextv)[0]((step_fn *)nextv + 1, depth - 1, acc);
	*acc ^= *acc >> 7;
}
EOF2
cat >chain.c <<'EOF2'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*step_fn)(void *next, int depth, unsigned long *acc);

/* argv: seconds, then the libraries; each call chain runs through DEPTH
 * of them, each starting far from the last, so that even a short time
 * slice of a loaded machine has samples in most of them. */
#define DEPTH 120

int main(int argc, char **argv)
{
	int n = argc - 2;
	step_fn *fns = calloc((size_t)(n > 0 ? n : 0) * 2 + DEPTH, sizeof(*fns));
	unsigned long acc = 1;
	time_t end;

	if (n <= 0 || !fns)
		return 2;
	for (int i = 0; i < n; i++) {
		void *h = dlopen(argv[i + 2], RTLD_NOW | RTLD_LOCAL);

		if (!h || !(fns[i] = (step_fn)dlsym(h, "step"))) {
			fprintf(stderr, "%s\n", dlerror());
			return 2;
		}
	}
	for (int i = n; i < 2 * n + DEPTH; i++)
		fns[i] = fns[i % n];
	printf("ready\n");
	fflush(stdout);
	end = time(NULL) + atoi(argv[1]);
	for (int k = 0; time(NULL) < end; k = (k + 337) % n)
		fns[k](fns + k + 1, DEPTH - 1, &acc);
	return (int)(acc & 1);
}
EOF2
gcc -O1 -fno-omit-frame-pointer -fPIC -shared -Wl,--build-id=none -o libstep.so step.c ||
	fail "cannot build libstep.so"
gcc -O1 -fno-omit-frame-pointer -o chain chain.c -ldl || fail "cannot build chain"
check "readelf: the library has no build ID to read" sh -c "! readelf -n libstep.so | grep -q 'Build ID'"
libs=
i=1
while [ $i -le 1000 ]; do
	cp libstep.so libstep-$i.so
	libs="$libs $T/libstep-$i.so"
	i=$((i + 1))
done
collector_hogs

# run V: collect chain's samples for 1 s (-v when V is -v); the summary in run$V.log.
run() {
	# shellcheck disable=SC2086
	./chain 30 $libs >ready$1.txt &
	pid=$!
	collector_bg $pid
	i=0
	while [ ! -s ready$1.txt ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	"$C" -F 999 -p $pid -d 1 $1 -o run$1.pb.gz 2>run$1.log || fail "psym-collect $1 failed: $(cat run$1.log)"
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
}
# skipped LOG: the summary's count of build IDs not read under the cap.
skipped() { sed -n 's/.*build IDs: .* unreadable, \([0-9]*\) not read (metadata cap).*/\1/p' "$1"; }
# named LOG: the files the summary names as not read under the cap.
named() { sed -n "s/^psym-collect: no build ID for '\(.*\)' (pid [0-9]*.*: not read, metadata cap).*/\1/p" "$1"; }

run ""
n=$(skipped run.log)
[ "${n:-0}" -gt 0 ] || { grep -v "no build ID for" run.log; skip "no build ID was left unread under the cap here (${n:-?}): the drain was not asked for enough files"; }
shown=$(named run.log | wc -l)
more=$(sed -n 's/^psym-collect: and \([0-9]*\) more files without a build ID.*/\1/p' run.log)
check "summary: files left without a build ID are named ($shown of $n, at most 10)" \
	test "$shown" -ge 1 -a "$shown" -le 10
check "summary: the rest are counted ($shown named + ${more:-0} more = $n not read)" \
	test $((shown + ${more:-0})) = "$n"
check "summary: each file named once" test "$(named run.log | sort | uniq -d | wc -l)" = 0
"$PSYM" show run.pb.gz >show.txt 2>/dev/null || fail "psym show failed"
bad=0
for f in $(named run.log); do
	grep -q " $f\$" show.txt || { bad=$((bad + 1)); echo "# not a mapping of the profile without a build ID: $f"; }
done
check "psym show: every file named is a mapping of the profile without a build ID ($bad not)" test $bad = 0

run -v
n=$(skipped run-v.log)
if [ "${n:-0}" -gt 0 ]; then
	want=$n
	[ "$want" -le 64 ] || want=64
	more=$(sed -n 's/^psym-collect: and \([0-9]*\) more files without a build ID.*/\1/p' run-v.log)
	check "-v: every file not read is named, up to 64 ($(named run-v.log | wc -l) of $n)" \
		test "$(named run-v.log | wc -l)" = "$want"
	check "-v: the rest are counted (${more:-0} more)" test $((want + ${more:-0})) = "$n"
else
	echo "# -v: no build ID left unread under the cap in this run: not judged"
fi
finish
