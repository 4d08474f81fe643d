#!/bin/sh
# psym-collect records which sampled processes ran in another mount
# namespace (a container): their samples carry the label mntns=INODE, the
# inode of /proc/PID/ns/mnt (oracle: stat -L). psym symbolize on the host,
# where such a mapping's path is missing, then says the process ran in a
# container and points to /proc/PID/root, --binary-path/--sysroot and
# psym archive; for a host process whose binary is missing it does not.
# Both the frame-pointer path and --stack-copy (the side file's MNTNS
# record through offline unwinding) are checked. The container program
# runs from a tmpfs mounted only inside `unshare -m`.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need protoc
need unshare "util-linux"
pid= hpid=
collector_at_exit '[ -n "$pid" ] && kill $pid 2>/dev/null; [ -n "$hpid" ] && kill $hpid 2>/dev/null'
collector_need "BPF, perf events and mount namespaces"
collector_hogs # the machine loaded, as production hosts are (issue 42, item 4)
unshare -m --propagation private true 2>/dev/null || skip "cannot create a mount namespace here"

mkdir build priv hostbin
cat >build/prog.c <<'EOF2'
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) long work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	struct timespec t0, t;
	volatile long sink = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sink += work(100000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
EOF2
gcc -O1 -g -fno-omit-frame-pointer -o build/prog build/prog.c || fail "cannot build the fixture"
# The host's program: another file (so its mapping is its own), deleted later.
gcc -O1 -g -fno-omit-frame-pointer -DHOST -o hostbin/hprog build/prog.c || fail "cannot build the fixture"

unshare -m --propagation private sh -c '
	mount -t tmpfs psym-test "$1/priv" && cp "$1/build/prog" "$1/priv/" &&
	exec "$1/priv/prog" 30' sh "$T" &
pid=$!
./hostbin/hprog 30 &
hpid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(readlink /proc/$pid/exe 2>/dev/null)" = "$T/priv/prog" ] && break
	sleep 0.5
done
check "the program runs from the namespace's tmpfs" test "$(readlink /proc/$pid/exe)" = "$T/priv/prog"
check "the host cannot see it at its path" test ! -e "$T/priv/prog"
ns=$(stat -L -c %i /proc/$pid/ns/mnt)
check "its mount namespace is not the host's (stat: $ns)" test "$ns" != "$(stat -L -c %i /proc/self/ns/mnt)"

"$C" -p $pid -p $hpid -d 2 -o fp.pb.gz 2>fp.log || fail "psym-collect failed: $(cat fp.log)"
"$C" -p $pid -p $hpid -d 2 --stack-copy 4096 -o sc.pb.gz 2>sc.log || fail "psym-collect --stack-copy failed: $(cat sc.log)"
# psym symbolize's advice works while the process runs: --sysroot /proc/PID/root.
"$PSYM" symbolize --sysroot /proc/$pid/root fp.pb.gz -o adv.pb.gz 2>adv.log ||
	fail "symbolize --sysroot /proc/$pid/root: $(cat adv.log)"
kill $pid $hpid
wait $pid $hpid 2>/dev/null
cpid=$pid hp=$hpid
pid= hpid=
rm -f hostbin/hprog
decode_pb adv.pb.gz >adv.txt
# lined DECODED PATH: how many locations of PATH's mapping have lines (protoc).
lined() {
	python3 - "$1" "$2" <<'EOF2'
import re, sys
text = open(sys.argv[1]).read()
strings = re.findall(r'^string_table: "(.*)"$', text, re.M)
ids = [int(re.search(r'^  id: (\d+)', m, re.M).group(1))
       for m in re.findall(r'^mapping \{(.*?)^\}', text, re.M | re.S)
       if strings[int(re.search(r'filename: (\d+)', m).group(1))] == sys.argv[2]]
n = 0
for l in re.findall(r'^location \{(.*?)^\}', text, re.M | re.S):
    m = re.search(r'mapping_id: (\d+)', l)
    if m and int(m.group(1)) in ids and 'line {' in l:
        n += 1
print(n)
EOF2
}
n=$(lined adv.txt "$T/priv/prog")
check "the advice works: --sysroot /proc/PID/root gives the container's mapping $n locations with lines (protoc)" \
	test "$n" -gt 0

# labels DECODED PID: the mntns label values of PID's samples (protoc).
labels() {
	python3 - "$1" "$2" <<'EOF2'
import re, sys
text = open(sys.argv[1]).read()
strings = re.findall(r'^string_table: "(.*)"$', text, re.M)
key = lambda name: strings.index(name) if name in strings else -1
vals, n = set(), 0
for s in re.findall(r'^sample \{(.*?)^\}', text, re.M | re.S):
    labs = dict()
    for lab in re.findall(r'label \{(.*?)\}', s, re.S):
        k = int(re.search(r'key: (\d+)', lab).group(1))
        v = re.search(r'num: (\d+)', lab)
        labs[k] = int(v.group(1)) if v else None
    if labs.get(key("pid")) == int(sys.argv[2]):
        n += 1
        vals.add(labs.get(key("mntns"), "none"))
print(n, " ".join(str(v) for v in sorted(vals, key=str)))
EOF2
}
for mode in fp sc; do
	"$PSYM" symbolize $mode.pb.gz -o $mode.sym.pb.gz 2>$mode.sym.log
	decode_pb $mode.sym.pb.gz >$mode.txt
	set -- $(labels $mode.txt $cpid)
	check "$mode: the container's $1 samples carry mntns=$ns (stat -L /proc/PID/ns/mnt): ${2:-}" \
		test "$1" -gt 0 -a "${2:-}" = "$ns" -a -z "${3:-}"
	set -- $(labels $mode.txt $hp)
	check "$mode: the host process's $1 samples carry no mntns label: ${2:-}" \
		test "$1" -gt 0 -a "${2:-}" = none -a -z "${3:-}"
	check "$mode: the container's mapping: not found, ran in another mount namespace, /proc/$cpid/root, --binary-path or --sysroot, psym archive" \
		grep -q "mapping [0-9]* '$T/priv/prog': 0/[0-9]* locations: .*not found; the process ran in another mount namespace (a container): its files are under /proc/$cpid/root on the host; use --binary-path or --sysroot, or psym archive on the host" $mode.sym.log
	check "$mode: the host process's missing binary: not found, no container hint" \
		sh -c "grep -q \"'$T/hostbin/hprog': 0/[0-9]* locations: .*not found\" $mode.sym.log && ! grep \"'$T/hostbin/hprog'\" $mode.sym.log | grep -q 'mount namespace'"
	check "$mode: the hint is given once" test "$(grep -c 'another mount namespace' $mode.sym.log)" = 1
done
finish
