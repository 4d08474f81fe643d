#!/bin/sh
# psym stack on AArch64 cores of a dynamically linked program that crashes
# (SIGSEGV, a NULL write) inside a function of its own shared library,
# cross-built -O2 -g -fomit-frame-pointer and run under qemu-aarch64 with
# Debian's arm64 libraries (libc6-arm64-cross) as the sysroot. QEMU's cores
# have no NT_FILE: the libraries come from the dynamic linker's link map
# in the core's memory. The crashing thread's frames (in the library, in
# the executable, down to main) are checked against gdb-multiarch's bt on
# the same core (gdb reads the link map itself): count, addresses,
# functions, file:line. A PIE build (which gdb 13 does not relocate on a
# QEMU core) must give the same functions and lines. Then link maps that
# lie: one that loops, an l_name outside the core, a chain past the cap,
# none (DT_DEBUG 0: the dynamic linker is then mapped from AT_BASE).
. "$top_srcdir/tests/lib.sh"
SYSROOT=/usr/aarch64-linux-gnu
need aarch64-linux-gnu-gcc "gcc-aarch64-linux-gnu"
need qemu-aarch64 "qemu-user"
need gdb-multiarch
need python3
[ -e "$SYSROOT/lib/libc.so.6" ] || skip "no arm64 libc in $SYSROOT (libc6-arm64-cross)"
SEED=$top_srcdir/tests/fuzz/mklinkmapseed.py

cat >lib.c <<'C'
volatile int lsink;
__attribute__((noinline)) static void lib_inner(int *p, int x) { if (x > 0) *p = x; lsink = x; }
__attribute__((noinline)) void lib_crash(int x) { lib_inner((int *)0, x + 1); lsink = x; }
C
cat >prog.c <<'C'
void lib_crash(int x);
volatile int sink;
__attribute__((noinline)) void outer(int x) { lib_crash(x + 1); sink = x; }
int main(int argc, char **argv) { (void)argv; outer(argc); return sink; }
C

# mkcore DIR PIEFLAG: build into DIR, run under qemu-aarch64 there; the core as DIR/core.
mkcore() {
	mkdir -p "$1" &&
		aarch64-linux-gnu-gcc -shared -fPIC -O2 -g -fomit-frame-pointer -o "$1/libcrash.so" lib.c &&
		aarch64-linux-gnu-gcc "$2" -O2 -g -fomit-frame-pointer -o "$1/prog" prog.c \
			-L"$1" -lcrash -Wl,-rpath,'$ORIGIN' || return 1
	{ (cd "$1" && ulimit -c unlimited && exec timeout 300 qemu-aarch64 -L "$SYSROOT" ./prog) >/dev/null 2>&1; } 2>/dev/null
	f=$(ls "$1"/qemu_prog_*.core 2>/dev/null | head -n 1)
	[ -n "$f" ] && mv "$f" "$1/core"
	rm -f "$1"/core.[0-9]* # qemu's own core, where core_pattern puts it here
	[ -s "$1/core" ]
}

# compare JSON GDB: the crashing thread's frames down to main, as gdb's bt has them.
compare() {
	python3 - "$1" "$2" <<'PY'
import json, re, sys
js, gdbout = sys.argv[1:]
core = json.loads(open(js).readline())
t = core["threads"][0]
def norm(n):
    return re.sub(r"\.(constprop|isra|part)\.\d+$", "", n or "")
mine = []
for f in t["frames"]:
    mine.append((int(f["address"], 16), norm(f["function"]),
                 (f["file"] or "").rsplit("/", 1)[-1], f["line"], f["inlined"]))
    if norm(f["function"]) == "main":
        break
theirs = []
for line in open(gdbout, errors="replace"):
    m = re.match(r"#(\d+)\s+(?:0x([0-9a-f]+) in )?(\S+) \(.*?\)(?: at (\S+):(\d+))?", line)
    if not m:
        continue
    if m.group(1) == "0":
        theirs = []  # gdb prints frame 0 once when it loads the core, then the bt
    theirs.append((int(m.group(2), 16) if m.group(2) else None, m.group(3),
                   (m.group(4) or "").rsplit("/", 1)[-1], int(m.group(5)) if m.group(5) else None))
    if m.group(3) == "main":
        break
bad = []
if not t["crashed"] or core["signal"] != 11:
    bad.append("the crashing thread is not first with SIGSEGV")
if len(mine) != len(theirs):
    bad.append("%d frames, gdb %d" % (len(mine), len(theirs)))
for i, (a, b) in enumerate(zip(mine, theirs)):
    addr, fn, fl, ln, inl = a
    if b[0] is not None and addr not in (b[0], b[0] - 1):
        bad.append("frame %d: 0x%x, gdb 0x%x" % (i, addr, b[0]))
    if (fn, fl, ln) != b[1:]:
        bad.append("frame %d: %s %s:%s, gdb %s %s:%s" % ((i, fn, fl, ln) + b[1:]))
print("# psym  %s" % [(hex(a[0]), a[1], "%s:%s" % (a[2], a[3])) for a in mine])
print("# gdb   %s" % [(hex(b[0] or 0), b[1], "%s:%s" % (b[2], b[3])) for b in theirs])
for b in bad:
    print("DIFF " + b)
want = ["lib_inner", "lib_crash", "outer", "main"]
if [a[1] for a in mine] != want:
    print("DIFF functions %s, want %s" % ([a[1] for a in mine], want))
    sys.exit(1)
sys.exit(1 if bad else 0)
PY
}

gdb_bt() { # gdb_bt DIR: gdb-multiarch's bt of DIR/core
	timeout 300 gdb-multiarch -batch -ex "set sysroot $SYSROOT" -ex "set solib-search-path $T/$1" \
		-ex bt -c "$1/core" "$1/prog" >"$1.gdb" 2>&1
}

# 1. Non-PIE: against gdb-multiarch.
if mkcore nopie -no-pie; then
	gdb_bt nopie
	timeout 300 "$PSYM" stack --json --sysroot "$SYSROOT" --binary-path nopie nopie/core >nopie.json 2>nopie.err
	rc=$?
	if [ "$rc" -eq 0 ] && compare nopie.json nopie.gdb >nopie.cmp; then
		pass "aarch64 qemu core (no NT_FILE): lib_inner, lib_crash (libcrash.so), outer, main as gdb-multiarch has them"
	else
		fail "aarch64 dynamic core: exit $rc: $(head -n 2 nopie.err)"
		sed 's/^/#   /' nopie.cmp nopie.gdb
	fi
	"$PSYM" stack --sysroot "$SYSROOT" --binary-path nopie nopie/core >nopie.txt 2>&1
	check "text: the library frames name libcrash.so, libc's name the sysroot's /lib/libc.so.6" \
		sh -c 'grep -q "lib_crash at .*lib.c:3:[0-9]* (.*/libcrash.so)" nopie.txt && grep -q "(/lib/libc.so.6)" nopie.txt'
	"$PSYM" stack --explain --json --sysroot "$SYSROOT" --binary-path nopie nopie/core >/dev/null 2>explain.err
	check "--explain: the libraries came from the link map, libcrash, libc and the dynamic linker mapped" \
		grep -q "^psym: 'nopie/core': shared libraries: the link map (r_debug at 0x[0-9a-f]*) has 4 objects, 3 mapped from their files$" explain.err

	# 3. Link maps that lie, in a small core with the executable's first page.
	if python3 "$SEED" nopie/core nopie/prog bad >seed.out 2>seed.err; then
		timeout 300 "$PSYM" stack --json --sysroot "$SYSROOT" --binary-path nopie bad/linkmap.core >small.json 2>small.err
		rc=$?
		if [ "$rc" -eq 0 ] && compare small.json nopie.gdb >small.cmp; then
			pass "the link map read from the core's own program headers: the same frames"
		else
			fail "small core with the executable's header: exit $rc: $(head -n 2 small.err)"
			sed 's/^/#   /' small.cmp
		fi
		lie() { # lie NAME CORE MESSAGE: exit 1, one line of what was wrong, within the caps
			timeout 60 "$PSYM" stack --sysroot "$SYSROOT" --binary-path nopie "$2" >"$1.txt" 2>&1
			rc=$?
			check "$1: exit 1, 'read in part: link map: $3'" \
				sh -c "[ $rc -eq 1 ] && grep -q 'read in part: link map: $3' $1.txt"
		}
		lie loop bad/linkmap-loop.core "the link map loops: entry [0-9]* links back to entry 1"
		lie noname bad/linkmap-noname.core "the name of link map entry [0-9]* (at 0xdead00000000) is not in the core"
		lie huge bad/linkmap-huge.core "more than 4096 link map entries: the rest are not read"
		check "a looping and a huge chain keep the entries before the cut: lib_crash named" \
			sh -c 'grep -q "lib_crash at" loop.txt && grep -q "lib_crash at" huge.txt'
		"$PSYM" stack --explain --sysroot "$SYSROOT" --binary-path nopie bad/linkmap-nodebug.core >nodebug.txt 2>nodebug.err
		check "DT_DEBUG 0: no link map, said in --explain; the dynamic linker mapped from AT_BASE and PT_INTERP" \
			grep -q "shared libraries: no link map: DT_DEBUG is 0: the dynamic linker had not run; the dynamic linker mapped at AT_BASE$" nodebug.err
	else
		fail "mklinkmapseed.py: $(tail -n 2 seed.err)"
	fi
else
	unbuildable "aarch64 non-PIE core" "qemu-aarch64 wrote no core"
fi

# 2. PIE: gdb 13 cannot relocate it on a QEMU core (its program headers are
# not dumped), so the functions and lines are those of gdb's non-PIE bt.
if [ -s nopie.gdb ] && mkcore pie -pie; then
	timeout 300 "$PSYM" stack --json --sysroot "$SYSROOT" --binary-path pie pie/core >pie.json 2>pie.err
	rc=$?
	sed 's/0x[0-9a-f]* in //' nopie.gdb >pie.gdb
	if [ "$rc" -eq 0 ] && compare pie.json pie.gdb >pie.cmp; then
		pass "aarch64 PIE: the executable moved by AT_ENTRY's bias, the same frames"
	else
		fail "aarch64 PIE core: exit $rc: $(head -n 2 pie.err)"
		sed 's/^/#   /' pie.cmp
	fi
fi
finish
