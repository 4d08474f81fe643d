#!/bin/sh
# psym-collect end to end, really running BPF here: the seeds' fib program
# (non-PIE and PIE, frame pointers) profiled, symbolized by psym and read by
# go tool pprof (fibNaive on top with >= 90% flat); a library dlopen'ed
# mid-run; a process that exits during collection; SIGINT mid-collection;
# system-wide mode; Node.js with --perf-basic-prof (its perf map saved);
# side files; a full disk. On a busy host (bench/churn.sh: hundreds of
# short-lived processes a second): -d and SIGINT hold, -v stays short.
# Checks before collecting: an unwritable output, a missing -p process;
# -p stops when its target exits. Host identity: a profile moved to
# another "host" does not pick up this machine's perf maps.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need go "Debian golang-go"
export HOME=$T GOCACHE=$T/gocache
collector_need "BPF and perf events"

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
vz=$(ls nopie.pb.gz.d/vdso-*.so.zst 2>/dev/null | head -1)
check "side files: vdso image (compressed, ${vz:-none})" test -s "$vz"
check "side files: vdso image is an ELF" sh -c "zstd -dc '$vz' >vdso.img && readelf -h vdso.img | grep -q 'DYN'"

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
# Interrupted once it samples (its BPF program attached: a perf event fd),
# however long a loaded machine takes to get there.
for _ in $(seq 1 600); do
	ls -l /proc/$cpid/fd 2>/dev/null | grep -q 'perf_event' && break
	sleep 0.1
done
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
	rm -f /tmp/perf-$pid.map # node wrote it there; the collector saved a copy
	check "node: perf map snapshot saved (compressed)" test -s node.pb.gz.d/perf-$pid.map.zst
	zstd -dc node.pb.gz.d/perf-$pid.map.zst >node.map 2>/dev/null
	"$PSYM" show --json node.pb.gz >node.json
	check "node: sampled JIT addresses fall inside perf map entries" python3 - node.json node.map <<'PY'
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
# ---- a busy host: deadlines and signals hold -------------------------------
# No timing assertions (the machine may be loaded): each run has a hang guard
# far above anything a working collector needs, and a run that ends only by
# the guard fails on its exit status. The times are printed as notes; the
# measured numbers are in bench/COLLECTOR.md (bench/collector-overhead.sh).
now() { date +%s.%N; }
elapsed() { awk -v a="$(now)" -v b="$1" 'BEGIN {printf "%.3f", a - b}'; }
"$top_srcdir/bench/churn.sh" 400 40 >/dev/null 2>&1 &
churn=$!
./fib-nopie 60 >/dev/null &
hog=$!
sleep 1
# Each stderr line stamped with the time it came: from "sampling" (BPF
# attached; a sanitizer build takes a while to get there) to the exit.
s=$(now)
{ timeout -s KILL 300 "$C" -F 1000 -d 2 -o churn.pb.gz -v 2>&1 >/dev/null; echo "rc=$?"; } |
	while IFS= read -r l; do echo "$(now) $l"; done >churn.log
t=$(elapsed "$s")
rc=$(sed -n 's/^[0-9.]* rc=//p' churn.log)
t2=$(awk '/ sampling / {a = $1} / rc=/ {b = $1} END {if (a) printf "%.3f", b - a; else print 99}' churn.log)
check "churn: -d 2 exits 0, by its deadline, not the guard ($rc)" [ "$rc" = 0 ]
echo "note: churn: -d 2 took $t2 s from sampling to exit, $t s in all"
check "churn: profile written and valid" "$PSYM" check -q churn.pb.gz
check "churn: the busy program is in it" sh -c "\"\$0\" show churn.pb.gz | grep -q 'comm:\[fib-nopie\]'" "$PSYM"
n=$(grep -c "exited before\|cannot open" churn.log)
check "churn: -v lists at most a few examples ($n lines)" [ "$n" -le 6 ]
check "churn: the summary counts what was lost" grep -q "processes exited before their maps were read" churn.log
check "churn: the summary says how to raise the map sizes" sh -c \
	"! grep -q 'stack-map collisions\|counts map full' churn.log || grep -q -- '--stack-entries' churn.log"
kill $churn 2>/dev/null; wait $churn 2>/dev/null
"$top_srcdir/bench/churn.sh" 400 20 >/dev/null 2>&1 &
churn=$!
timeout -s KILL 300 "$C" -F 1000 -o sigint.pb.gz 2>sigint.log &
cpid=$!
sleep 3
s=$(now)
kill -INT $(pgrep -P $cpid) 2>/dev/null || kill -INT $cpid
wait $cpid; rc=$?
t=$(elapsed "$s")
check "churn: one SIGINT ends the run, exit 0 ($rc)" [ "$rc" = 0 ]
echo "note: churn: SIGINT to exit took $t s"
check "churn: SIGINT profile written and valid" "$PSYM" check -q sigint.pb.gz
kill $churn $hog 2>/dev/null; wait $churn $hog 2>/dev/null

# ---- checks before collecting ----------------------------------------------
s=$(now)
# -d 600 under a 120 s guard: only a check made before collecting ends it.
rc=0; timeout -s KILL 120 "$C" -d 600 -o "$T/nonexistent/e.pb.gz" 2>nodir.log || rc=$?
t=$(elapsed "$s")
check "unwritable output: fails before collecting: non-zero exit ($rc), not killed" sh -c "[ $rc != 0 ] && [ $rc != 137 ]"
echo "note: unwritable output: refused after $t s"
check "unwritable output: says so, naming the file" grep -q "nonexistent/e.pb.gz" nodir.log
check "unwritable output: no summary of a collection" sh -c "! grep -q samples nodir.log"

# A pid that surely does not exist: above pid_max.
rc=0; timeout -s KILL 20 "$C" -p 4194304 -d 2 -o nopid.pb.gz 2>nopid.log || rc=$?
check "-p missing pid: exit 2 ($rc)" [ "$rc" = 2 ]
check "-p missing pid: says so" grep -q "no process with PID 4194304" nopid.log
check "-p missing pid: nothing written" [ ! -e nopid.pb.gz ]

# -p of a process that exits after about 10 s (longer than a loaded
# machine takes to attach): the collector stops with it.
cat >spin2.c <<'EOF2'
#include <time.h>
int main(void) {
	time_t end = time(0) + 10;
	volatile unsigned long n = 0;
	while (time(0) < end) n++;
	return 0;
}
EOF2
gcc -O1 -fno-omit-frame-pointer -o spin2 spin2.c
./spin2 &
pid=$!
s=$(now)
# -d 600 under a 120 s guard: only the target's exit ends it with status 0.
rc=0; timeout -s KILL 120 "$C" -p $pid -d 600 -o early.pb.gz 2>early.log || rc=$?
t=$(elapsed "$s")
wait $pid 2>/dev/null
check "-p target exits: collection stops with it, exit 0 ($rc)" [ "$rc" = 0 ]
echo "note: -p target exits: collector ended $t s after the start"
check "-p target exits: says so" grep -q "exited: stopping" early.log
check "-p target exits: its samples are there" sh -c "\"\$0\" show early.pb.gz | grep -q 'comm:\[spin2\]'" "$PSYM"

# ---- host identity: a profile from elsewhere ignores this machine's perf maps
check "identity recorded in a comment" sh -c \
	"\"\$0\" show nopie.pb.gz | grep -q 'Comment: psym-collect: host=.* kernel=$(uname -r) boot_id=$(cat /proc/sys/kernel/random/boot_id)'" "$PSYM"
check "go tool pprof still reads the profile" sh -c "go tool pprof -raw nopie.pb.gz >/dev/null 2>&1"
if command -v protoc >/dev/null && [ "$(uname -m)" = x86_64 ]; then
	# A tiny JIT: an endless loop (jmp .) in anonymous executable memory,
	# named in /tmp/perf-PID.map as a JIT runtime does.
	cat >jit.c <<'EOF2'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
int main(void) {
	unsigned char *p = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char path[64];
	FILE *f;
	if (p == MAP_FAILED) return 1;
	memset(p, 0xcc, 4096);
	p[0x100] = 0xeb; p[0x101] = 0xfe; /* jmp . */
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	fprintf(f, "%lx 40 jit_spin_loop\n", (unsigned long)(p + 0xf0));
	fclose(f);
	((void (*)(void))(p + 0x100))();
	return 0;
}
EOF2
	gcc -O1 -o jit jit.c
	./jit &
	jpid=$!
	sleep 0.5
	"$C" -p $jpid -d 2 -o jit.pb.gz 2>jit.log
	kill $jpid; wait $jpid 2>/dev/null
	check "jit: its perf map saved with the profile" test -s jit.pb.gz.d/perf-$jpid.map.zst
	mkdir moved
	cp jit.pb.gz moved/here.pb.gz
	"$PSYM" symbolize moved/here.pb.gz -o here.sym.pb.gz 2>here.log
	check "jit: same host, no side dir: this machine's perf map names it" sh -c \
		"\"\$0\" show here.sym.pb.gz | grep -q jit_spin_loop" "$PSYM"
	# The same profile, as if recorded on another host.
	gzip -dc jit.pb.gz | protoc --decode perftools.profiles.Profile -I "$top_srcdir/proto" \
		"$top_srcdir/proto/profile.proto" >jit.txt
	sed 's/psym-collect: host=[^ ]*/psym-collect: host=elsewhere.example/' jit.txt >other.txt
	check "jit: identity rewritten" grep -q "host=elsewhere.example" other.txt
	protoc --encode perftools.profiles.Profile -I "$top_srcdir/proto" \
		"$top_srcdir/proto/profile.proto" <other.txt | gzip >moved/other.pb.gz
	"$PSYM" symbolize moved/other.pb.gz -o other.sym.pb.gz 2>other.log
	check "jit: other host, no side dir: this machine's perf map not used" sh -c \
		"! \"\$0\" show other.sym.pb.gz | grep -q jit_spin_loop" "$PSYM"
	"$PSYM" symbolize --explain moved/other.pb.gz -o other2.sym.pb.gz >other2.log 2>&1
	check "jit: other host: the reason names the host" grep -q "recorded on host 'elsewhere.example'" other2.log
	"$PSYM" symbolize --perf-map-dir /tmp moved/other.pb.gz -o named.sym.pb.gz 2>named.log
	check "jit: other host, --perf-map-dir named: used" sh -c \
		"\"\$0\" show named.sym.pb.gz | grep -q jit_spin_loop" "$PSYM"
	mv jit.pb.gz.d moved/other.pb.gz.d
	"$PSYM" symbolize moved/other.pb.gz -o side.sym.pb.gz 2>side.log
	check "jit: other host with its side dir: its own perf map used" sh -c \
		"\"\$0\" show side.sym.pb.gz | grep -q jit_spin_loop" "$PSYM"
	rm -f /tmp/perf-$jpid.map
else
	echo "note: protoc missing or not x86_64: host identity check skipped"
fi
finish
