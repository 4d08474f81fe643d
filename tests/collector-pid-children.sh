#!/bin/sh
# psym-collect -p follows the processes it starts (issue 42), as perf
# record -p does, in both modes (with and without --stack-copy), beside a
# CPU hog on every core. A parent built here waits until sampling runs,
# then forks two children that exec a second program spinning in
# exec_spin() and two that spin in forked_spin() without an exec (one of
# them forks a grandchild spinning in grand_spin()), spins in
# parent_spin() itself and exits when they are done. `-p PARENT`: the symbolized profile has both
# functions, at leaf frames inside a mapping of the binary nm says holds
# them, and nothing of the hog; `--no-inherit`: no sample of a child, the
# parent's own still there.
# Every check reads protoc --decode of the profile (not psym) and nm.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need protoc
need python3
need nm
need readelf
collector_need "BPF and perf events"

cat >spin.h <<'EOF2'
#include <time.h>
/* Spin for SECS seconds of wall time, in the caller's named function. */
#define SPIN(secs)                                                              \
	do {                                                                    \
		struct timespec t0, t;                                          \
		volatile unsigned long x = 0;                                   \
		clock_gettime(CLOCK_MONOTONIC, &t0);                            \
		do {                                                            \
			for (int i = 0; i < 100000; i++)                        \
				x += (unsigned long)i * 7;                      \
			clock_gettime(CLOCK_MONOTONIC, &t);                     \
		} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < (secs)); \
	} while (0)
EOF2
cat >child.c <<'EOF2'
#include "spin.h"
__attribute__((noinline)) void exec_spin(void) { SPIN(3); }
int main(void) { exec_spin(); return 0; }
EOF2
cat >parent.c <<'EOF2'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "spin.h"
__attribute__((noinline)) void forked_spin(void) { SPIN(3); }
__attribute__((noinline)) void parent_spin(void) { SPIN(1); }
__attribute__((noinline)) void grand_spin(void) { SPIN(3); }
int main(int argc, char **argv)
{
	/* Held until sampling runs: argv[1] appears. */
	for (int i = 0; i < 1200 && access(argv[1], F_OK) != 0; i++)
		usleep(100000);
	for (int i = 0; i < 4; i++) {
		pid_t p = fork();

		if (p == 0) {
			if (i % 2 == 0) {
				execl(argv[2], argv[2], (char *)0);
				_exit(127);
			}
			if (i == 1 && fork() == 0) {
				grand_spin(); /* a fork of a fork */
				_exit(0);
			}
			forked_spin();
			while (wait(NULL) > 0)
				;
			_exit(0);
		}
	}
	parent_spin();
	while (wait(NULL) > 0)
		;
	return 0;
}
EOF2
gcc -O1 -g -fno-omit-frame-pointer -o parent parent.c || fail "cannot build parent"
gcc -O1 -g -fno-omit-frame-pointer -o child child.c || fail "cannot build child"
collector_hogs

# leaves.py DECODED FILE:FUNC...: per comm, the samples whose leaf location
# is in a mapping of FILE at an address nm places in FUNC, as "comm
# FILE:FUNC count"; and per pid the total ("pid N count"). nm's value is
# made a file offset through readelf's executable LOAD segment, the
# sample's address through its mapping's start and offset.
cat >leaves.py <<'EOF2'
import re, subprocess, sys
text = open(sys.argv[1]).read()
ranges = {}
for arg in sys.argv[2:]:
    f, fn = arg.split(":")
    delta = 0
    for line in subprocess.run(["readelf", "-lW", f], capture_output=True, text=True).stdout.splitlines():
        w = line.split()
        if w and w[0] == "LOAD" and " E " in line + " ":
            delta = int(w[2], 16) - int(w[1], 16)
            break
    for line in subprocess.run(["nm", "-S", "--defined-only", f], capture_output=True, text=True).stdout.splitlines():
        w = line.split()
        if len(w) == 4 and w[2] in "tT" and w[3] == fn:
            ranges.setdefault(f, []).append((fn, int(w[0], 16) - delta, int(w[1], 16)))
    if fn not in [r[0] for r in ranges.get(f, [])]:
        sys.exit("nm finds no %s in %s" % (fn, f))
strings = [bytes(s, "utf-8").decode("unicode_escape") for s in re.findall(r'^string_table: "(.*)"$', text, re.M)]
maps = {}
for m in re.findall(r'^mapping \{(.*?)^\}', text, re.M | re.S):
    g = lambda k: int((re.search(r'^  %s: (\d+)' % k, m, re.M) or [0, 0])[1])
    maps[g("id")] = (g("memory_start"), g("file_offset"), strings[g("filename")].rsplit("/", 1)[-1])
locs = {}
for l in re.findall(r'^location \{(.*?)^\}', text, re.M | re.S):
    g = lambda k: int((re.search(r'^  %s: (\d+)' % k, l, re.M) or [0, 0])[1])
    locs[g("id")] = (g("mapping_id"), g("address"))
out = {}
for s in re.findall(r'^sample \{(.*?)^\}', text, re.M | re.S):
    n = int(re.findall(r'^  value: (\d+)', s, re.M)[0])
    labels = {}
    for lab in re.findall(r'label \{(.*?)\}', s, re.S):
        k = strings[int(re.search(r'key: (\d+)', lab).group(1))]
        v = re.search(r'str: (\d+)', lab)
        labels[k] = strings[int(v.group(1))] if v else int(re.search(r'num: (\d+)', lab).group(1))
    ids = re.findall(r'^  location_id: (\d+)', s, re.M)
    user = [locs[int(i)] for i in ids if locs.get(int(i), (0, 1 << 63))[1] < (1 << 47)]
    key = "pid %s" % labels.get("pid")
    out[key] = out.get(key, 0) + n
    if not user or not user[0][0]:
        continue
    start, off, f = maps[user[0][0]]
    rel = user[0][1] - start + off
    for fn, lo, sz in ranges.get(f, []):
        if lo <= rel < lo + sz:
            key = "%s %s:%s" % (labels.get("comm"), f, fn)
            out[key] = out.get(key, 0) + n
for k, v in sorted(out.items()):
    print(k, v)
EOF2

# One run: NAME and psym-collect's options besides -p; the parent's pid in $ppid.
run() {
	name=$1
	shift
	rm -f go
	./parent go ./child &
	ppid=$!
	collector_bg $ppid
	"$C" -p $ppid "$@" -F 499 -d 60 -v -o "$name.pb.gz" 2>"$name.log" &
	cpid=$!
	collector_bg $cpid
	i=0
	until grep -q "sampling" "$name.log" 2>/dev/null || [ $i -gt 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	touch go
	wait $cpid || fail "$name: psym-collect failed: $(cat "$name.log")"
	wait $ppid
	grep -q "target process exited" "$name.log" ||
		fail "$name: the run did not stop at the parent's exit: $(tail -3 "$name.log")"
	"$PSYM" symbolize "$name.pb.gz" -o "$name.sym.pb.gz" 2>"$name.sym.log" ||
		fail "$name: symbolize failed: $(cat "$name.sym.log")"
	decode_pb "$name.sym.pb.gz" >"$name.txt" || fail "$name: protoc cannot read the profile"
	python3 leaves.py "$name.txt" child:exec_spin parent:forked_spin parent:grand_spin >"$name.leaves" ||
		fail "$name: cannot read the profile's leaves"
	echo "# $name:"
	cat "$name.leaves"
	grep -q "exec_spin\|forked_spin" "$name.txt" && echo "# $name: named in the symbolized profile"
}
count() { awk -v k="$2" '$1 " " $2 == k || $1 == k { n += $NF } END { print n + 0 }' "$1"; }
pids_other_than() { awk -v p="$2" '$1 == "pid" && $2 != p { n++ } END { print n + 0 }' "$1"; }

for mode in default stackcopy; do
	opt=
	[ $mode = stackcopy ] && opt="--stack-copy 8192"
	run $mode $opt
	n=$(count $mode.leaves "child child:exec_spin")
	check "$mode: -p samples the exec'd children at exec_spin, leaf in child's mapping ($n)" test "$n" -gt 10
	n=$(count $mode.leaves "parent parent:forked_spin")
	check "$mode: -p samples the forked children at forked_spin, leaf in parent's mapping ($n)" test "$n" -gt 10
	n=$(count $mode.leaves "parent parent:grand_spin")
	check "$mode: -p samples a fork of a fork at grand_spin, leaf in parent's mapping ($n)" test "$n" -gt 10
	check "$mode: the symbolized profile names both functions" \
		sh -c "grep -q '\"exec_spin\"' $mode.txt && grep -q '\"forked_spin\"' $mode.txt"
	check "$mode: nothing of the CPU hog" sh -c "! grep -q '\"hog\"' $mode.txt"
	check "$mode: more than the parent's pid sampled" test "$(pids_other_than $mode.leaves $ppid)" -ge 2

	run $mode-noinherit $opt --no-inherit
	check "$mode --no-inherit: the parent itself sampled" sh -c "grep -q '\"parent_spin\"' $mode-noinherit.txt"
	check "$mode --no-inherit: no sample of a child's pid" test "$(pids_other_than $mode-noinherit.leaves $ppid)" = 0
	check "$mode --no-inherit: no exec_spin or forked_spin leaf" \
		test "$(count $mode-noinherit.leaves "child child:exec_spin")$(count $mode-noinherit.leaves "parent parent:forked_spin")$(count $mode-noinherit.leaves "parent parent:grand_spin")" = 000
done
"$C" --no-inherit -d 1 -o x.pb.gz 2>x.log
check "--no-inherit without -p: usage error" test $? = 2
if [ "$n_fail" != 0 ]; then
	for f in *.log; do echo "# $f:"; tail -20 "$f"; done
fi
finish
