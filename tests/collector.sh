#!/bin/sh
# psym-collect end to end, really running BPF here: the seeds' fib program
# (non-PIE and PIE, frame pointers) profiled, symbolized by psym and read by
# go tool pprof (fibNaive on top with >= 90% flat); a library dlopen'ed
# mid-run; a process that exits during collection; SIGINT mid-collection;
# system-wide mode; Node.js with --perf-basic-prof (its perf map saved);
# side files; a full disk.
. "$top_srcdir/tests/lib.sh"
C=${PSYM_COLLECT:-$top_builddir/psym-collect}
[ -x "$C" ] || skip "psym-collect not built (configure --disable-collector)"
[ "$(id -u)" = 0 ] || skip "not root: BPF and perf events need root here"
need gcc
need go "Debian golang-go"
export HOME=$T GOCACHE=$T/gocache

# Is BPF usable at all on this machine? Say why not, precisely.
if ! "$C" -d 1 -o probe.pb.gz --no-side-files 2>probe.err; then
	skip "BPF unavailable: $(tail -1 probe.err)"
fi

cp "$top_srcdir/testdata/fib.c" fib.c
gcc -O1 -g -fno-omit-frame-pointer -fno-pie -no-pie -o fib-nopie fib.c
gcc -O1 -g -fno-omit-frame-pointer -fPIE -pie -o fib-pie fib.c

# top_flat FILE FUNC: flat% of FUNC if it is the first row of pprof -top.
top_flat() {
	go tool pprof -top -symbolize=none "$1" 2>/dev/null | awk -v f="$2" '
		/flat%/ {h=1; next} h && NF >= 6 {if ($6 == f) {sub("%", "", $2); print $2} else print "not-top:" $6; exit}'
}

for v in nopie pie; do
	./fib-$v 60 >/dev/null &
	pid=$!
	"$C" -p $pid -d 3 -o $v.pb.gz 2>$v.log || fail "$v: psym-collect failed: $(cat $v.log)"
	kill $pid; wait $pid 2>/dev/null
	"$PSYM" symbolize $v.pb.gz -o $v.sym.pb.gz 2>$v.sym.log || fail "$v: symbolize failed"
	flat=$(top_flat $v.sym.pb.gz fibNaive)
	case $flat in
	not-top*|"") fail "$v: fibNaive is not the top function ($flat)"; go tool pprof -top -symbolize=none $v.sym.pb.gz | head -12 ;;
	*) if awk -v f="$flat" 'BEGIN {exit !(f >= 90)}'; then pass "$v: fibNaive on top with $flat% flat"
	   else fail "$v: fibNaive only $flat% flat"; fi ;;
	esac
	check "$v: profile has the build ID of the binary" sh -c \
		"\"\$0\" show $v.pb.gz | grep -q \"build_id=$(readelf -n fib-$v | sed -n 's/.*Build ID: //p')\"" "$PSYM"
done
"$PSYM" show nopie.pb.gz >show.txt
check "sample types samples/count and cpu/nanoseconds" grep -q "SampleTypes: samples/count cpu/nanoseconds" show.txt
check "period from the frequency (99 Hz)" grep -q "^Period: 10101010$" show.txt
check "return-address rule in the comment" grep -q "Comment: psym-collect: caller frames are recorded as return address - 1" show.txt
check "pid, tid and comm labels" grep -q "pid:\[[0-9]*\] tid:\[[0-9]*\] comm:\[fib-nopie\]" show.txt
check "kernel mapping with the kernel's build ID" sh -c \
	"grep -q 'kernel.kallsyms.*build_id=' show.txt || ! grep -q kernel.kallsyms show.txt"
check "side files: vdso image" test -s nopie.pb.gz.d/vdso.so
check "side files: vdso image is an ELF" sh -c "readelf -h nopie.pb.gz.d/vdso.so | grep -q 'DYN'"

# dlopen mid-run: the library's frames get symbolized.
cat >lib.c <<'EOF2'
__attribute__((noinline)) long lib_spin(long n) { volatile long s = 0; for (long i = 0; i < n; i++) s += i; return s; }
EOF2
cat >dl.c <<'EOF2'
#include <dlfcn.h>
#include <unistd.h>
int main(int argc, char **argv) {
	sleep(1);
	void *h = dlopen(argv[1], RTLD_NOW);
	long (*f)(long) = h ? (long (*)(long))dlsym(h, "lib_spin") : 0;
	for (;;) if (f) f(100000000);
}
EOF2
gcc -O1 -g -fPIC -shared -fno-omit-frame-pointer -o libspin.so lib.c
gcc -O1 -g -fno-omit-frame-pointer -o dl dl.c -ldl
./dl "$T/libspin.so" &
pid=$!
"$C" -p $pid -d 3 -o dl.pb.gz 2>dl.log
kill $pid; wait $pid 2>/dev/null
"$PSYM" symbolize dl.pb.gz -o dl.sym.pb.gz 2>dl.sym.log
check "dlopen'ed library frames symbolized (lib_spin on top)" sh -c \
	"go tool pprof -top -symbolize=none dl.sym.pb.gz 2>/dev/null | awk '/flat%/{h=1;next} h{print \$6; exit}' | grep -qx lib_spin"

# A process that exits during collection keeps its samples: it runs
# longer than the collector needs to attach (a sanitizer build of the
# collector on a loaded machine needs over a second), and ends before -d.
./fib-nopie 42 >/dev/null &
pid=$!
"$C" -p $pid -d 8 -o exit.pb.gz 2>exit.log
wait $pid 2>/dev/null
check "exiting process: profile valid" "$PSYM" check -q exit.pb.gz
check "exiting process: its samples are there" sh -c "\"\$0\" show exit.pb.gz | grep -q 'comm:\[fib-nopie\]'" "$PSYM"
check "summary reports losses" grep -q "psym-collect: lost:" exit.log

# SIGINT mid-collection writes a complete profile.
./fib-nopie 60 >/dev/null &
pid=$!
"$C" -p $pid -o int.pb.gz 2>int.log &
cpid=$!
sleep 2
kill -INT $cpid
wait $cpid; rc=$?
kill $pid; wait $pid 2>/dev/null
check "SIGINT: exit 0 ($rc)" [ "$rc" = 0 ]
check "SIGINT: complete valid profile" "$PSYM" check -q int.pb.gz
check "SIGINT: samples collected" sh -c "\"\$0\" show int.pb.gz | grep -q '^Samples: [1-9]'" "$PSYM"

# System-wide: several processes.
cp fib-nopie fib-one; cp fib-nopie fib-two
./fib-one 60 >/dev/null & p1=$!
./fib-two 60 >/dev/null & p2=$!
"$C" -d 3 -o all.pb.gz 2>all.log
kill $p1 $p2; wait $p1 $p2 2>/dev/null
"$PSYM" show all.pb.gz >all.txt
check "system-wide: first process seen" grep -q "pid:\[$p1\]" all.txt
check "system-wide: second process seen" grep -q "pid:\[$p2\]" all.txt

# Node.js with --perf-basic-prof: the perf map is saved with the profile.
if command -v node >/dev/null; then
	cat >hot.js <<'EOF2'
function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * 1.0001; return s; }
function driver() { let t = 0; for (;;) t += hotLoop(1e6); }
driver();
EOF2
	node --perf-basic-prof hot.js &
	pid=$!
	sleep 1
	"$C" -p $pid -d 3 -o node.pb.gz 2>node.log
	kill $pid; wait $pid 2>/dev/null
	check "node: perf map snapshot saved" test -s node.pb.gz.d/perf-$pid.map
	"$PSYM" show --json node.pb.gz >node.json
	check "node: sampled JIT addresses fall inside perf map entries" python3 - node.json node.pb.gz.d/perf-$pid.map <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
entries = []
for line in open(sys.argv[2]):
    w = line.split(None, 2)
    if len(w) == 3:
        entries.append((int(w[0], 16), int(w[1], 16), w[2].strip()))
anon = {m["id"] for m in d["mappings"] if m["filename"] in ("", "//anon") or m["filename"].startswith("[anon")}
addrs = [l["address"] for l in d["locations"] if l["mapping_id"] in anon]
inside = [a for a in addrs if any(s <= a < s + n for s, n, _ in entries)]
names = {nm for a in inside for s, n, nm in entries if s <= a < s + n}
print("anonymous addresses:", len(addrs), "inside the perf map:", len(inside), sorted(names)[:5])
assert addrs and len(inside) * 2 >= len(addrs)
assert any("hotLoop" in n for n in names)
PY
else
	echo "note: node not installed: Node.js check skipped"
fi

# A full disk is reported with a non-zero exit, nothing half-written.
mkdir small
if mount -t tmpfs -o size=8k tmpfs small 2>/dev/null; then
	dd if=/dev/zero of=small/fill bs=1k count=8 2>/dev/null
	rc=0; "$C" -d 1 -o small/cpu.pb.gz --no-side-files 2>full.log || rc=$?
	check "full disk: non-zero exit ($rc)" [ "$rc" != 0 ]
	check "full disk: reported" grep -q "No space left\|cannot" full.log
	check "full disk: nothing half-written" sh -c "! ls -a small | grep -q -e cpu.pb.gz -e psym-tmp"
	umount small
else
	echo "note: cannot mount a tmpfs: full-disk check skipped"
fi
finish
