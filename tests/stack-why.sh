#!/bin/sh
# psym stack says under each thread why its unwinding stopped early, in
# words a user can act on, and marks [guessed] the frames found through the
# frame pointer where a frame had no CFI (issue 54 item 2). The case: a
# crashing multi-threaded C++ program, its core made by gdb
# (generate-core-file), the binary moved away and only its debug file
# (objcopy --only-keep-debug: no .eh_frame) given by --debug-dir. Built
# -fomit-frame-pointer, the frame pointer leads nowhere: every thread stops
# at the first frame of the binary and says the binary's CFI is missing and
# --binary-path would help. Built -fno-omit-frame-pointer, the frame pointer
# goes on: the frames found so are marked. Oracles: eu-stack -i and gdb's
# bt with the binary: every frame psym does not mark is eu-stack's frame at
# the same place, the crashed thread's names are gdb's; with
# --binary-path, nothing stops early and nothing is marked.
. "$top_srcdir/tests/lib.sh"
need g++
need gdb
need eu-stack
need objcopy
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

cat >cmp.py <<'EOF'
import json, re, sys
js, eu, gdb, mode = sys.argv[1:5]
threads = {}
tid = None
for line in open(eu):
    m = re.match(r"TID (\d+):", line)
    if m:
        tid = int(m.group(1)); threads[tid] = []
    m = re.match(r"#\d+\s+0x([0-9a-f]+)", line)
    if m and tid is not None:
        a = int(m.group(1), 16)
        if not threads[tid] or threads[tid][-1] != a:
            threads[tid].append(a)
gdbnames = [m.group(1) for m in re.finditer(r"^#\d+\s+(?:0x[0-9a-f]+ in )?([\w:~]+)", open(gdb).read(), re.M)]
core = json.loads(open(js).readline())
bad = 0
for t in core["threads"]:
    phys = [f for f in t["frames"] if not f["inlined"]]
    e = threads.get(t["tid"], [])
    for i, f in enumerate(phys):
        if f["guessed"]:
            continue
        a = int(f["address"], 16)
        if i >= len(e) or a not in (e[i], e[i] - 1):
            print("thread %d frame %d: psym 0x%x, eu-stack %s" % (t["tid"], i, a, hex(e[i]) if i < len(e) else "none")); bad = 1
    nguess = sum(f["guessed"] for f in t["frames"])
    if mode == "binary" and (t["stopped"] or nguess or len(phys) != len(e)):
        print("thread %d: with the binary: stopped %s, %d guessed, %d frames, eu-stack %d" % (t["tid"], t["stopped"], nguess, len(phys), len(e))); bad = 1
    if mode == "nofp" and (not t["stopped"] or "its debug file has no .eh_frame; give --binary-path" not in t["stopped"] or nguess):
        print("thread %d: stopped %s, %d guessed" % (t["tid"], t["stopped"], nguess)); bad = 1
    if mode == "fp" and (not nguess or "frame pointer" not in (t.get("guessed_why") or "")):
        print("thread %d: no frame marked guessed (%s)" % (t["tid"], t.get("guessed_why"))); bad = 1
    if t["crashed"]:
        want = [n for n in gdbnames]
        for f in phys:
            if f["guessed"] or not f["function"]:
                continue
            n = re.sub(r"\(.*", "", f["function"]).split("::")[-1]
            if not any(n in g or g in n for g in want):
                print("crashed thread: %s is not in gdb's bt %s" % (n, want)); bad = 1
            if n == "main":
                break  # gdb's bt ends there
    print("thread %d: %d frames, %d guessed, eu-stack %d" % (t["tid"], len(phys), nguess, len(e)))
sys.exit(bad)
EOF

# run NAME FLAGS: build, core, debug file, binary moved away.
build() {
	name=$1
	shift
	g++ -g -O2 -pthread "$@" -o "$name" crash.cc || return 1
	timeout 300 gdb -q -batch -ex run -ex "generate-core-file $name.core" --args "./$name" \
		>"$name.gdblog" 2>&1
	[ -s "$name.core" ] || { fail "$name: gdb made no core"; return 1; }
	bid=$(readelf -n "$name" | awk '/Build ID/ { print $3 }')
	mkdir -p "dbg/.build-id/$(echo "$bid" | cut -c1-2)" away
	objcopy --only-keep-debug "$name" "dbg/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
	mv "$name" away/
	timeout 300 eu-stack -i -s --core="$name.core" -e "away/$name" >"$name.eu" 2>/dev/null
	timeout 300 gdb -batch -ex bt -c "$name.core" "away/$name" >"$name.gdb" 2>&1
}

if build nofp -fomit-frame-pointer; then
	"$PSYM" stack --json --debug-dir dbg nofp.core >nofp.json 2>nofp.err
	if python3 cmp.py nofp.json nofp.eu nofp.gdb nofp >nofp.cmp; then
		pass "no CFI, no frame pointer: every thread stops at the binary and says why (agrees with eu-stack, gdb)"
	else
		fail "no CFI, no frame pointer"; sed 's/^/#   /' nofp.cmp
	fi
	"$PSYM" stack --debug-dir dbg nofp.core >nofp.txt 2>/dev/null
	check "the text says it under each of the 4 threads" test "$(grep -c "^(unwinding stopped after frame #[0-9]* at 0x[0-9a-f]*: no CFI for $T/nofp: the binary was not found, its debug file has no .eh_frame; give --binary-path)$" nofp.txt)" = 4
	check "no frame of the text is marked" sh -c '! grep -q "\[guessed\]" nofp.txt'
	# Stripped (issue 54 item 3): once, which files left frames as addresses
	# and what would help; the frames eu-stack cannot name either.
	mkdir -p stripped
	strip -o stripped/nofp away/nofp
	check "the stripped copy has no symbols (nm)" sh -c "nm stripped/nofp 2>&1 | grep -q 'no symbols'"
	"$PSYM" stack --no-index --no-cache --binary-path stripped nofp.core >strip.txt 2>strip.err
	check "stripped: one note names the binary and --debug-dir" test "$(grep -c "^psym: note: frames of the cores left as addresses in '$T/nofp'.*(no symbols or lines for them: [0-9]* address.*--debug-dir DIR" strip.err)" = 1
	eu-stack -s --core=nofp.core -e stripped/nofp 2>/dev/null >strip.eu
	python3 - strip.txt strip.eu "$T/nofp" >strip.cmp <<'PY' && strip_ok=1 || strip_ok=0
import re, sys
txt, eu, mod = sys.argv[1:]
ps = {int(m.group(1), 16) for m in re.finditer(r"^#\d+\s+0x([0-9a-f]+) \?\? \(", open(txt).read(), re.M)}
if (" ?? (%s)" % mod) not in open(txt).read():
    sys.exit(1)
es = {int(m.group(1), 16) for m in re.finditer(r"^#\d+\s+0x([0-9a-f]+)$", open(eu).read(), re.M)}
ok = ps and all(a in ps or a - 1 in ps for a in es) and all(a in es or a + 1 in es for a in ps)
print("%d unnamed frames in psym, %d in eu-stack" % (len(ps), len(es)))
sys.exit(0 if ok else 1)
PY
	if [ $strip_ok = 1 ]; then
		pass "stripped: the frames left as addresses are those eu-stack cannot name ($(cat strip.cmp))"
	else
		fail "stripped: psym's unnamed frames are not eu-stack's: $(cat strip.cmp)"
	fi
	"$PSYM" stack --no-index --no-cache nofp.core >/dev/null 2>gone.err
	check "binary not found: the note names it and --binary-path" grep -q "^psym: note: frames of the cores left as addresses in '$T/nofp' (not found: [0-9]* address.*--binary-path DIR" gone.err
	"$PSYM" stack -q --no-index --no-cache nofp.core >/dev/null 2>quiet.err
	check "-q: no note" sh -c '! grep -q note: quiet.err'
	"$PSYM" stack --json --debug-dir dbg --binary-path away nofp.core >nofpb.json 2>/dev/null
	if python3 cmp.py nofpb.json nofp.eu nofp.gdb binary >nofpb.cmp; then
		pass "--binary-path: every thread whole, as eu-stack"
	else
		fail "--binary-path"; sed 's/^/#   /' nofpb.cmp
	fi
fi
if build fp -fno-omit-frame-pointer; then
	"$PSYM" stack --json --debug-dir dbg fp.core >fp.json 2>fp.err
	if python3 cmp.py fp.json fp.eu fp.gdb fp >fp.cmp; then
		pass "no CFI, frame pointers: the frames found through them are marked guessed (agrees with eu-stack, gdb)"
	else
		fail "no CFI, frame pointers"; sed 's/^/#   /' fp.cmp
	fi
	"$PSYM" stack --debug-dir dbg fp.core >fp.txt 2>/dev/null
	check "the text marks them and says why under each thread" test "$(grep -c "^(frames marked \[guessed\] were found through the frame pointer: no CFI for $T/fp: the binary was not found, its debug file has no .eh_frame; give --binary-path)$" fp.txt)" = 4
	check "the text marks [guessed] the frames the JSON does" test "$(grep -c ' \[guessed\]$' fp.txt)" = "$(grep -o '"guessed":true' fp.json | wc -l)"
fi
finish
