#!/bin/sh
# psym stack --json gives each frame its address in its module as psym addr
# -e and addr2line take it (module_address, issue 54 item 5), and the text
# and JSON give DWARF columns as eu-stack does (file:line:column, item 8):
# every thread's frames have eu-stack -s -i's basename:line:column, in
# order, in the text and in the JSON. Oracles on a
# core of a crashing multi-threaded C++ program made by gdb
# (generate-core-file): eu-unstrip -n --core says where each module was
# loaded (module_address = address - load start for these position-
# independent modules); psym addr -e, eu-addr2line and llvm-symbolizer
# asked with the module address name the frame's function.
. "$top_srcdir/tests/lib.sh"
need g++
need gdb
need eu-stack
need eu-unstrip
need eu-addr2line
need llvm-symbolizer
need python3
gdb -q -batch -ex run --args /bin/true >/dev/null 2>&1 || skip "gdb cannot run programs here (ptrace)"

cat >crash.cc <<'EOF'
#include <algorithm>
#include <cstdlib>
#include <thread>
#include <unistd.h>
#include <vector>
static volatile int ready;
__attribute__((noinline)) static bool check_and_compare(int a, int b)
{
	if (a == 42 && b == 42)
		abort();
	return a < b;
}
__attribute__((noinline)) void worker(int n)
{
	__sync_fetch_and_add(&ready, 1);
	for (;;)
		if (n >= 0)
			sleep(100);
}
int main()
{
	std::vector<std::thread> ts;
	for (int i = 0; i < 3; i++)
		ts.emplace_back(worker, i);
	while (ready < 3)
		usleep(1000);
	std::vector<int> v(100);
	for (int i = 0; i < 100; i++)
		v[i] = (i * 37) % 100;
	v[10] = v[20] = 42;
	std::sort(v.begin(), v.end(), [](int a, int b) { return check_and_compare(a, b); });
	return v[0];
}
EOF
g++ -g -O2 -pthread -o crash crash.cc || skip "cannot build the test program"
timeout 300 gdb -q -batch -ex run -ex "generate-core-file core" --args ./crash >gdb.log 2>&1
[ -s core ] || skip "gdb made no core: $(tail -n 2 gdb.log | tr '\n' ' ')"

"$PSYM" stack --json core >core.json 2>core.err || fail "psym stack --json exits $?: $(head -2 core.err)"
eu-unstrip -n --core=core >modules.txt 2>/dev/null

# Every frame: module_address = address - the module's load start (eu-unstrip).
python3 - core.json modules.txt >mod.cmp <<'PY'
import json, sys
js, mods = sys.argv[1:]
starts = {}
for line in open(mods):
    f = line.split()
    start = int(f[0].split("+")[0], 16)
    starts[f[-1]] = start
    if len(f) > 3 and f[2] not in ("-", "."):
        starts[f[2]] = start
import os
def start_of(path):
    for k, v in starts.items():
        if k == path or (os.path.basename(k) == os.path.basename(path)) or os.path.realpath(k) == os.path.realpath(path):
            return v
    return None
core = json.loads(open(js).readline())
n = bad = 0
for t in core["threads"]:
    for f in t["frames"]:
        if f["module"] is None or f["module"].endswith("[vdso]"):
            continue
        s = start_of(f["module"])
        want = None if s is None else int(f["address"], 16) - s
        got = None if f["module_address"] is None else int(f["module_address"], 16)
        n += 1
        if got != want:
            bad += 1
            print("%s %s: module_address %s, eu-unstrip says %s" % (f["module"], f["address"], f["module_address"], hex(want) if want is not None else None))
print("%d frames, %d differ" % (n, bad))
sys.exit(1 if bad or not n else 0)
PY
if [ $? = 0 ]; then pass "module_address is the address less the module's load start (eu-unstrip): $(tail -1 mod.cmp)"; else
	fail "module_address: $(tail -1 mod.cmp)"; sed 's/^/#   /' mod.cmp | head; fi

# The test's own frames: the three symbolizers asked with the module address name the function.
python3 - core.json "$T/crash" >own.list <<'PY'
import json, sys
core = json.loads(open(sys.argv[1]).readline())
seen = set()
for t in core["threads"]:
    for f in t["frames"]:
        if f["module"] == sys.argv[2] and f["function"] and f["module_address"] not in seen:
            seen.add(f["module_address"])
            print(f["module_address"], f["function"])
PY
norm() { sed 's/ \[clone [^]]*\]//g; s/(.*//; s/<.*//; s/.*:://'; }
n=0 bad=0
while read -r ma fn; do
	n=$((n + 1))
	want=$(echo "$fn" | norm)
	p=$("$PSYM" addr -f -i -C -e crash "$ma" | head -1 | norm)
	e=$(eu-addr2line -f -i -C -e crash "$ma" | head -1 | norm)
	l=$(llvm-symbolizer --obj=crash "$ma" | head -1 | norm)
	if [ "$p" != "$want" ] || [ "$e" != "$want" ] || [ "$l" != "$want" ]; then
		bad=$((bad + 1))
		echo "# $ma: stack '$want', psym addr '$p', eu-addr2line '$e', llvm-symbolizer '$l'"
	fi
done <own.list
if [ $n -gt 3 ] && [ $bad = 0 ]; then
	pass "psym addr -e, eu-addr2line and llvm-symbolizer name the function at each of the program's $n module addresses"
else
	fail "module addresses of the program: $bad of $n differ"
fi

# Columns: eu-stack -s -i prints FILE:LINE:COLUMN under each frame.
eu-stack -s -i --core=core -e crash >core.eu 2>/dev/null
"$PSYM" stack core >core.txt 2>/dev/null
python3 - core.eu core.txt core.json >col.cmp <<'PY'
import json, os, re, sys
eu, txt, js = sys.argv[1:]
def loc(f, l, c):
    return "%s:%s:%s" % (os.path.basename(f), l, c or "")
a, t = {}, None
for line in open(eu):
    m = re.match(r"TID (\d+):", line)
    if m:
        t = int(m.group(1)); a[t] = []; continue
    if re.match(r"#\d+\s+0x", line):
        a[t].append(None); continue
    m = re.match(r"\s+(\S+?):(\d+)(?::(\d+))?$", line)
    if m and t is not None:
        a[t][-1] = loc(*m.groups())
b, t = {}, None
for line in open(txt):
    m = re.match(r"thread (\d+)", line)
    if m:
        t = int(m.group(1)); b[t] = []; continue
    if line.startswith("#"):
        m = re.search(r" at (\S+?):(\d+)(?::(\d+))? \(", line)
        b[t].append(loc(*m.groups()) if m else None)
c = {}
for th in json.loads(open(js).readline())["threads"]:
    c[th["tid"]] = [loc(f["file"], f["line"], f["column"]) if f["line"] else None for f in th["frames"]]
bad = cols = 0
for t in a:
    cols += sum(1 for x in a[t] if x and not x.endswith(":"))
    if a[t] != b.get(t) or a[t] != c.get(t):
        bad += 1
        print("thread %d:\n eu-stack %s\n text     %s\n json     %s" % (t, a[t], b.get(t), c.get(t)))
print("%d threads, %d frames with a column, %d threads differ" % (len(a), cols, bad))
sys.exit(1 if bad or cols < 10 else 0)
PY
if [ $? = 0 ]; then pass "columns in the text and the JSON are eu-stack's: $(tail -1 col.cmp)"; else
	fail "columns differ from eu-stack's: $(tail -1 col.cmp)"; sed 's/^/#   /' col.cmp | head -20; fi
finish
