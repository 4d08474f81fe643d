#!/bin/sh
# psym stack on core dumps made here, checked against eu-stack -i and gdb's
# 'thread apply all bt' on the same cores: every thread's frames (count,
# addresses, the test's own functions and file:line) down to main or the
# thread's start routine. Programs built -O2 -fomit-frame-pointer: a C
# program aborting in a qsort comparator with threads blocked in
# pthread_cond_wait, read and nanosleep; a C++ one aborting in a std::sort
# comparator; a SIGSEGV on a NULL write inside a shared library of the
# test's own, and the same core with its NT_FILE note renamed (the
# libraries then from the link map in memory); threads inside the vDSO; a stack overflow; the C program stripped with a build-ID debug dir, then moved
# away (--binary-path); a zstd-compressed core; -o (a pprof) with
# --group-by signature; a psym archive of the crashing host's files
# (--debug-pkg); an AArch64 core made under qemu-aarch64; a truncated
# core and a file that is no core; cores the kernel writes itself, whole
# and cut by ulimit -c, where core_pattern writes a file.
# Cores are made by gdb (generate-core-file): no system setting is changed.
. "$top_srcdir/tests/lib.sh"
need gcc
need g++
need gdb
need eu-stack
need python3
CMP=$top_srcdir/tests/stack-compare.py
gdb -q -batch -ex run --args /bin/true >/dev/null 2>&1 || skip "gdb cannot run programs here (ptrace)"

# mkcore CORE PROG...: run PROG under gdb until it dies, and dump its core.
mkcore() {
	core=$1
	shift
	timeout 300 gdb -q -batch -ex run -ex "generate-core-file $core" --args "$@" \
		>"$core.gdblog" 2>&1
	[ -s "$core" ] || { fail "$core: gdb made no core ($(tail -n 2 "$core.gdblog" | tr '\n' ' '))"; return 1; }
}

# agree NAME CORE EXE OWN STOPS [PSYM OPTIONS...]: psym stack --json of
# CORE agrees with eu-stack and gdb run on CORE with EXE (gdb's command
# in GDB_BT, default 'thread apply all bt').
agree() {
	name=$1 core=$2 exe=$3 own=$4 stops=$5
	shift 5
	oracle=${ORACLE_CORE:-$core}
	timeout 300 eu-stack -i -s -m --core="$oracle" -e "$exe" >"$name.eu" 2>"$name.eu.err"
	timeout 300 gdb -batch -ex "${GDB_BT:-thread apply all bt}" -c "$oracle" "$exe" >"$name.gdb" 2>&1
	timeout 300 "$PSYM" stack --json "$@" "$core" >"$name.json" 2>"$name.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$name: psym stack exits $rc: $(head -n 2 "$name.err")"
		return
	fi
	if python3 "$CMP" "$name.json" "$name.eu" "$name.gdb" "$own" "$stops" >"$name.cmp"; then
		pass "$name: every thread agrees with eu-stack -i and gdb ($(grep -c eu-stack "$name.cmp") threads)"
	else
		fail "$name: differs from eu-stack or gdb"
		sed 's/^/#   /' "$name.cmp"
	fi
}

cat >mt.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int fds[2];
static volatile int ready;
__attribute__((noinline)) static void *waiter(void *a)
{
	pthread_mutex_lock(&mu);
	__sync_fetch_and_add(&ready, 1);
	for (;;)
		pthread_cond_wait(&cv, &mu);
	return a;
}
__attribute__((noinline)) static void *reader(void *a)
{
	char c;
	__sync_fetch_and_add(&ready, 1);
	if (read(fds[0], &c, 1) < 0)
		perror("read");
	return a;
}
__attribute__((noinline)) static void *sleeper(void *a)
{
	struct timespec ts = { 1000, 0 };
	__sync_fetch_and_add(&ready, 1);
	for (;;)
		nanosleep(&ts, NULL);
	return a;
}
static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	if (x == 3)
		abort();
	return x - y;
}
int main(void)
{
	pthread_t t[3];
	int v[8] = { 5, 1, 4, 3, 2, 8, 7, 6 };
	if (pipe(fds))
		return 1;
	pthread_create(&t[0], NULL, waiter, NULL);
	pthread_create(&t[1], NULL, reader, NULL);
	pthread_create(&t[2], NULL, sleeper, NULL);
	while (ready < 3)
		usleep(1000);
	usleep(200000);
	qsort(v, 8, sizeof(int), cmp);
	return v[0];
}
C
cat >sort.cc <<'C'
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <unistd.h>
#include <vector>
static std::atomic<int> ready;
__attribute__((noinline)) static bool by_value(int a, int b)
{
	if (a == 3)
		abort();
	return a < b;
}
__attribute__((noinline)) static void idle()
{
	ready++;
	for (;;)
		pause();
}
int main()
{
	std::thread t(idle);
	while (!ready)
		usleep(1000);
	usleep(200000);
	std::vector<int> v{ 5, 1, 4, 9, 2, 8, 7, 6, 3, 0, 11, 10 };
	std::sort(v.begin(), v.end(), by_value);
	t.join();
	return v[0];
}
C
cat >crash.c <<'C'
static inline void store(int *p, int v) { *p = v; }
__attribute__((noinline)) void crash_write(int *p, int v) { store(p, v * 2); }
__attribute__((noinline)) int lib_entry(int *p) { crash_write(p, 21); return p ? *p : 0; }
C
cat >crashmain.c <<'C'
int lib_entry(int *p);
int main(int argc, char **argv) { (void)argv; return lib_entry(argc > 5 ? &argc : 0); }
C

CF="-g -O2 -fomit-frame-pointer -Wl,--build-id"
gcc $CF -pthread -o mt mt.c || fail "build mt"
cp mt mt.kernel
g++ $CF -pthread -o sort sort.cc || fail "build sort"
gcc $CF -shared -fPIC -o libcrash.so crash.c && gcc $CF -o crashmain crashmain.c -L. -lcrash -Wl,-rpath,"$T" ||
	fail "build crashmain"

# 1. C, four threads, abort in qsort's comparator.
if mkcore core.mt ./mt; then
	agree mt core.mt ./mt mt,mt.c main,waiter,reader,sleeper
	check "mt: the crashed thread is first, with SIGABRT" python3 -c '
import json, sys
c = json.loads(open("mt.json").readline())
t = c["threads"]
sys.exit(not (c["signal"] == 6 and t[0]["crashed"] and not any(x["crashed"] for x in t[1:])
              and len(t) == 4 and c["executable"].endswith("/mt")))'
	"$PSYM" stack core.mt >mt.txt 2>&1
	check "mt: text output marks the crashed thread and the inline frames" \
		sh -c 'grep -q "^thread [0-9]* (crashed: SIGABRT (6)):" mt.txt && grep -q "\[inlined\]" mt.txt && grep -q " cmp.* at .*mt.c:38:[0-9]* " mt.txt'
fi

# 1b. symbolize's cache and index options: --cache DIR keeps the answers
# there, --index-store DIR builds mt's index there; a second run answers
# from them; --no-cache --no-index make neither. Each agrees with eu-stack.
if [ -s core.mt ]; then
	W=mt,mt.c
	S=main,waiter,reader,sleeper
	agree cached core.mt ./mt $W $S --cache cdir --index-store idx
	mtid=$(readelf -n mt | sed -n 's/.*Build ID: //p')
	check "--cache DIR: mt's answers are kept in DIR" sh -c "ls cdir/*/$mtid.* >/dev/null 2>&1"
	check "--index-store DIR: mt's index is built in DIR" sh -c "ls idx/*/$mtid.*.psymidx >/dev/null 2>&1"
	agree fromcache core.mt ./mt $W $S --cache cdir --index-store idx
	agree nocache core.mt ./mt $W $S --no-cache --no-index --index-store idx2
	check "--no-cache --no-index: no index store made" test ! -e idx2
fi

# 2. C++, abort in a std::sort comparator.
if mkcore core.sort ./sort; then
	agree sort core.sort ./sort sort,sort.cc main,idle
fi

# 3. SIGSEGV on a NULL write inside the test's own shared library.
if mkcore core.crash ./crashmain; then
	agree crash core.crash ./crashmain crashmain,crashmain.c,libcrash.so,crash.c main
	check "crash: SIGSEGV at fault address 0x0 in crash_write (libcrash.so)" python3 -c '
import json, sys
c = json.loads(open("crash.json").readline())
f = c["threads"][0]["frames"]
sys.exit(not (c["signal"] == 11 and c["fault_address"] == "0x0" and f[0]["module"].endswith("libcrash.so")
              and "crash_write" in [x["function"] for x in f[:2]]))'
fi
# 3a. The same core without NT_FILE (its note renamed, as QEMU's cores
# have none): the executable from its image in memory, the libraries from
# the dynamic linker's link map there; eu-stack and gdb read the original.
if [ -s core.crash ]; then
	python3 - core.crash core.nofile <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", d, 32)
phnum, = struct.unpack_from("<H", d, 56)
for i in range(phnum):
    typ, _, off, _, _, filesz = struct.unpack_from("<IIQQQQ", d, phoff + 56 * i)
    o = off
    while typ == 4 and o + 12 <= off + filesz:
        nsz, dsz, t = struct.unpack_from("<III", d, o)
        if t == 0x46494c45:
            struct.pack_into("<I", d, o + 8, 0x46494c58)
        o += 12 + ((nsz + 3) & ~3) + ((dsz + 3) & ~3)
open(sys.argv[2], "wb").write(d)
PY
	ORACLE_CORE=core.crash agree nofile core.nofile ./crashmain crashmain,crashmain.c,libcrash.so,crash.c main
	# Another build of the library at its path: refused by the build ID
	# of its first page in the core (--explain names it); --binary-path
	# with the right one finds it again.
	mkdir -p right && cp libcrash.so right/ &&
		printf 'int other(int x) { return 3 * x; }\nvoid crash_write(int *p) { *p = 7; }\n' >other.c &&
		gcc $CF -shared -fPIC -o libcrash.so other.c &&
		"$PSYM" stack --explain core.nofile >wrong.txt 2>wrong.err
	bid=$(readelf -n right/libcrash.so | sed -n 's/.*Build ID: //p')
	check "no NT_FILE, another build at the library's path: not used, --explain says which build ID was wanted" \
		sh -c "! grep -q crash_write wrong.txt && grep -q \"shared libraries: .*not found: '$T/libcrash.so' (build ID $bid)\" wrong.err"
	"$PSYM" stack --binary-path right core.nofile >right.txt 2>&1
	check "no NT_FILE: --binary-path finds the library by the core's build ID" \
		grep -q "crash_write at .*crash.c" right.txt
	cp right/libcrash.so libcrash.so
fi

# 3b. Threads inside the vDSO: four threads spin on clock_gettime while
# the main one aborts; a thread stopped inside the vDSO is unwound with the
# vDSO's own CFI and named from its image in the core's memory
# (AT_SYSINFO_EHDR), as eu-stack has it (no --vdso given, and the host's
# image is not used: --explain says the core's was). gdb stops the threads
# where they are, so a try may catch none inside the vDSO: up to 5 tries.
cat >vd.c <<'C'
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
static volatile int ready;
__attribute__((noinline)) static void *spinner(void *a)
{
	struct timespec ts;
	__sync_fetch_and_add(&ready, 1);
	for (;;)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return a;
}
int main(void)
{
	pthread_t t[4];
	struct timespec ts = { 0, 20000000 };
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, spinner, NULL);
	while (ready < 4)
		;
	nanosleep(&ts, NULL);
	abort();
}
C
if gcc $CF -pthread -o vd vd.c; then
	try=0
	while [ $try -lt 5 ]; do
		try=$((try + 1))
		rm -f core.vd
		mkcore core.vd ./vd || break
		timeout 300 eu-stack -i -s -m --core=core.vd -e ./vd >vdtry.eu 2>/dev/null
		grep -q "__vdso_clock_gettime - linux-vdso" vdtry.eu && break
	done
	if grep -q "__vdso_clock_gettime - linux-vdso" vdtry.eu 2>/dev/null; then
		agree vdso core.vd ./vd vd,vd.c,[vdso] main,spinner
		check "vdso: a thread's frame is __vdso_clock_gettime in [vdso], as eu-stack's" python3 -c '
import json, sys
c = json.loads(open("vdso.json").readline())
sys.exit(not any(f["function"] == "__vdso_clock_gettime" and f["module"] == "[vdso]"
                 for t in c["threads"] for f in t["frames"]))'
		"$PSYM" stack --explain core.vd >vdx.txt 2>vdx.err
		check "vdso: --explain says the image came from the core's memory" \
			grep -q "core.vd:\[vdso\]'*: vDSO image used" vdx.err
	else
		echo "# no thread was inside the vDSO in 5 tries: vDSO case not checked"
	fi
fi

# 3c. A stack overflow: main recurses until it faults in the guard gap
# below its stack (SIGSEGV, the stack pointer outside any segment of the
# core) while another thread sleeps. The crashed thread's frames go up to
# the frame cap (256, eu-stack's default too), agree with eu-stack's, and
# the cap is said, with exit 0; the sleeping thread still comes out whole.
cat >so.c <<'C'
#include <pthread.h>
#include <time.h>
static volatile int ready;
__attribute__((noinline)) static void *sleeper(void *a)
{
	struct timespec ts = { 1000, 0 };
	__sync_fetch_and_add(&ready, 1);
	for (;;)
		nanosleep(&ts, NULL);
	return a;
}
__attribute__((noinline)) static int recurse(volatile char *p, int n)
{
	volatile char buf[64];
	buf[0] = (char)n;
	buf[63] = p ? p[0] : 0;
	return recurse(buf, n + 1) + buf[63];
}
int main(void)
{
	pthread_t t;
	pthread_create(&t, NULL, sleeper, NULL);
	while (!ready)
		;
	return recurse(0, 0);
}
C
if gcc $CF -pthread -o so so.c && mkcore core.so ./so; then
	GDB_BT='thread apply all bt 256' agree overflow core.so ./so so,so.c main,sleeper
	check "overflow: the crashed thread has 256 frames of recurse and says the cap" python3 -c '
import json, sys
c = json.loads(open("overflow.json").readline())
t = c["threads"][0]
sys.exit(not (c["signal"] == 11 and t["crashed"] and len(t["frames"]) == 256
              and all(f["function"] == "recurse" for f in t["frames"])
              and "the frame cap (--max-frames 256)" in t["stopped"]
              and c["threads"][1]["stopped"] is None))'
	"$PSYM" stack core.so >so.txt 2>so.err
	rc=$?
	check "overflow: text says the frame cap, exit 0" \
		sh -c "[ $rc -eq 0 ] && grep -q '^(unwinding stopped after frame #255 at 0x[0-9a-f]*: the frame cap (--max-frames 256))' so.txt"
fi

# 4. A stripped binary, its debug file in a build-ID tree; then moved away.
bid=$(readelf -n mt | sed -n 's/.*Build ID: //p')
mkdir -p dbg/.build-id/$(echo "$bid" | cut -c1-2) moved
objcopy --only-keep-debug mt "dbg/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug"
cp mt mt.stripped && strip --strip-all mt.stripped
if mkcore core.stripped ./mt.stripped; then
	agree stripped core.stripped ./mt mt.stripped,mt.c main,waiter,reader,sleeper --debug-dir dbg
	mv mt.stripped moved/
	agree moved core.stripped ./mt mt.stripped,mt.c main,waiter,reader,sleeper \
		--debug-dir dbg --binary-path moved
	"$PSYM" stack --json core.stripped >gone.json 2>gone.err
	check "moved: without --binary-path the program's frames have no function" python3 -c '
import json, sys
c = json.loads(open("gone.json").readline())
own = [f for t in c["threads"] for f in t["frames"] if f["module"] and f["module"].endswith("mt.stripped")]
sys.exit(not own or any(f["function"] for f in own))'
fi

# 5. A zstd-compressed core (as systemd-coredump stores them).
if [ -s core.mt ] && command -v zstd >/dev/null 2>&1; then
	zstd -q -3 core.mt -o core.mt.zst
	ORACLE_CORE=core.mt agree zst core.mt.zst ./mt mt,mt.c main,waiter,reader,sleeper
	cp core.mt.zst core.bad.zst
	printf 'garbage' | dd of=core.bad.zst bs=1 seek=100 conv=notrunc 2>/dev/null
	head -c 2000 core.mt.zst >core.cut.zst
	expect_exit 2 "a corrupt .zst core: exit 2" "$PSYM" stack core.cut.zst
fi

# 6. -o: one sample per thread, labels, --group-by signature.
if [ -s core.mt ] && [ -s core.sort ] && [ -s core.crash ]; then
	"$PSYM" stack -q -o crashes.pb.gz --group-by signature core.mt core.sort core.crash core.mt.zst 2>o.err
	"$PSYM" top --tagfocus crashed=true crashes.pb.gz >top.txt 2>&1
	check "-o: psym top --tagfocus crashed=true names the comparators and crash_write" \
		sh -c 'grep -q " cmp" top.txt && grep -q "by_value" top.txt && grep -q "crash_write" top.txt'
	if command -v protoc >/dev/null 2>&1; then
		decode_pb crashes.pb.gz >crashes.txt
		check "-o: protoc reads a profile with one sample per thread (4 + 2 + 1 + 4)" \
			sh -c '[ $(grep -c "^sample {" crashes.txt) -eq 11 ]'
		check "--group-by signature: 3 distinct signatures for 4 cores (two of one crash)" \
			sh -c '[ $(grep -c "^string_table: \".*;.*\"" crashes.txt) -eq 3 ] && grep -q "^string_table: \"signature\"" crashes.txt'
	fi
fi

# 6b. The files of the crashing host packed by psym archive (from the
# -o profile), the program then moved away: --debug-pkg ARCHIVE finds
# it by build ID.
if [ -s core.mt ]; then
	"$PSYM" stack -q -o host.pb.gz core.mt && "$PSYM" archive host.pb.gz -o host.tar.zst >archive.log 2>&1 &&
		mv mt mt.away &&
		agree archive core.mt ./mt.away mt,mt.c main,waiter,reader,sleeper --debug-pkg host.tar.zst
	[ -e host.tar.zst ] || fail "psym archive of the core's profile: $(tail -n 2 archive.log)"
fi

# 7. An AArch64 core: a static program cross-built and run under
# qemu-aarch64, which writes the guest's core (qemu_PROG_DATE_PID.core,
# with no NT_FILE: the executable is found from AT_PHDR) when it dies,
# then dies itself (its own core, if any, lands here in $T too). Checked
# against gdb-multiarch's bt on that core.
if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null &&
	command -v gdb-multiarch >/dev/null; then
	cat >a64.c <<'C'
#include <stdlib.h>
volatile int sink;
__attribute__((noinline)) static void inner(int x) { if (x > 0) abort(); sink = x; }
__attribute__((noinline)) void outer(int x) { inner(x + 1); sink = x; }
int main(int argc, char **argv) { (void)argv; outer(argc); return sink; }
C
	mkdir -p a64 && aarch64-linux-gnu-gcc -static -O2 -g -fomit-frame-pointer -o a64/a64 a64.c &&
		(cd a64 && ulimit -c unlimited && timeout 300 qemu-aarch64 ./a64 >/dev/null 2>&1)
	a64core=$(ls a64/qemu_a64_*.core 2>/dev/null | head -n 1)
	if [ -n "$a64core" ]; then
		timeout 300 "$PSYM" stack --json --binary-path a64 "$a64core" >a64.json 2>a64.err
		rc=$?
		pid=$(python3 -c 'import json; print(json.loads(open("a64.json").readline())["pid"])' 2>/dev/null)
		{ echo "Thread 1 (LWP $pid):"; timeout 300 gdb-multiarch -batch -ex bt -c "$a64core" a64/a64 2>&1 | grep '^#'; } >a64.gdb
		if [ "$rc" -eq 0 ] && python3 "$CMP" a64.json - a64.gdb a64,a64.c main >a64.cmp &&
			grep -q "3 own frames agree with gdb" a64.cmp; then
			pass "aarch64 (qemu core, no NT_FILE): inner, outer, main as gdb-multiarch has them"
		else
			fail "aarch64 core: exit $rc: $(head -n 2 a64.err)"
			sed 's/^/#   /' a64.cmp a64.gdb 2>/dev/null
		fi
	else
		unbuildable "aarch64 core" "qemu-aarch64 wrote no core"
	fi
else
	echo "# no aarch64-linux-gnu-gcc, qemu-aarch64 or gdb-multiarch: no aarch64 core"
fi

# 8. Bad input. gdb writes the notes last: a core cut short has no threads
# (exit 2, said so); one whose stack segments point past the end of the
# file (as the kernel's cores cut by ulimit -c, notes first) is read in
# part (exit 1, saying where).
if [ -s core.mt ]; then
	head -c $(($(wc -c <core.mt) * 3 / 4)) core.mt >core.cut
	"$PSYM" stack core.cut >cut.txt 2>cut.err
	rc=$?
	check "a gdb core cut to 3/4: exit 2, no threads, says the notes are cut off" \
		sh -c "[ $rc -eq 2 ] && grep -q \"'core.cut': a core without threads.*notes cut off\" cut.err"
	python3 - core.mt core.short <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", data, 32)
phnum, = struct.unpack_from("<H", data, 56)
for i in range(phnum):
    o = phoff + 56 * i
    typ, flags, off, vaddr, paddr, filesz = struct.unpack_from("<IIQQQQ", data, o)
    if typ == 1 and flags & 2 and filesz >= 65536:
        struct.pack_into("<Q", data, o + 8, len(data) - 4096)
open(sys.argv[2], "wb").write(data)
PY
	"$PSYM" stack core.short >short.txt 2>&1
	rc=$?
	check "stacks cut off by the end of the core: exit 1, read in part, said where" \
		sh -c "[ $rc -eq 1 ] && grep -q 'read in part: truncated core: the memory at 0x' short.txt"
	"$PSYM" stack --json --explain core.short >short.json 2>short.err
	check "--explain: which thread, after which frame and address, and the stack memory missing" \
		grep -Eq "^psym: 'core.short' thread [0-9]+: unwinding stopped after frame #[0-9]+ at 0x[0-9a-f]+: (stack memory past 0x[0-9a-f]+|the stack at 0x[0-9a-f]+ \(the stack pointer\)) is not in the core" short.err
fi
# 9. Cores the kernel writes itself (notes first, then memory in address
# order), when core_pattern writes a file in the current directory (a pipe
# to a program is left alone: no system setting is changed; ulimit -c is
# raised in a subshell only, up to the hard limit). A whole one agrees
# with eu-stack and gdb; one cut by ulimit -c 64 (KiB) keeps the notes and
# the lower thread stacks: exit 1, read in part, every thread there with
# eu-stack's and gdb's innermost pc (they unwind no further on it).
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null)
case $pattern in
'|'* | */* | '') echo "# core_pattern '$pattern' writes no file here: no kernel core" ;;
*)
	kcore() { # kcore DIR LIMIT: run mt in DIR under ulimit -c LIMIT, the core as DIR/core
		mkdir -p "$1" && cp mt.kernel "$1/mt" &&
			(cd "$1" && ulimit -c "$2" 2>/dev/null && exec timeout 300 ./mt) >/dev/null 2>&1
		f=$(ls "$1"/core* 2>/dev/null | head -n 1)
		[ -n "$f" ] && [ "$f" != "$1/core" ] && mv "$f" "$1/core"
		[ -s "$1/core" ]
	}
	if [ -x mt.kernel ] && kcore kfull unlimited; then
		agree kernel kfull/core kfull/mt mt,mt.c main,waiter,reader,sleeper
		if kcore kcut 64; then
			timeout 300 eu-stack -i -s -m --core=kcut/core -e kcut/mt >kcut.eu 2>&1
			timeout 300 gdb -batch -ex 'thread apply all bt' -c kcut/core kcut/mt >kcut.gdb 2>&1
			"$PSYM" stack --json kcut/core >kcut.json 2>kcut.err
			rc=$?
			check "kernel core cut by ulimit -c: exit 1, read in part, each thread's pc as eu-stack's and gdb's" \
				python3 - "$rc" kcut.json kcut.eu kcut.gdb <<'PY'
import json, re, sys
rc, js, eu, gdb = sys.argv[1:]
c = json.loads(open(js).readline())
ours = {t["tid"]: int(t["frames"][0]["address"], 16) for t in c["threads"] if t["frames"]}
theirs, tid = {}, None
for line in open(eu, errors="replace"):
    m = re.match(r"TID (\d+):", line)
    if m:
        tid = int(m.group(1))
    m = re.match(r"#0\s+0x([0-9a-f]+)", line)
    if m and tid is not None:
        theirs[tid] = int(m.group(1), 16)
g, tid = {}, None
for line in open(gdb, errors="replace"):
    m = re.match(r"Thread \d+ .*LWP (\d+)", line)
    if m:
        tid = int(m.group(1))
    m = re.match(r"#0\s+0x([0-9a-f]+)", line)
    if m and tid is not None:
        g[tid] = int(m.group(1), 16)
print("# psym", ours, "eu-stack", theirs, "gdb", g, "partial", c.get("partial"))
sys.exit(not (rc == "1" and len(ours) == 4 and ours == theirs and ours == g))
PY
			check "kernel core cut by ulimit -c: says where it was cut" \
				sh -c "\"$PSYM\" stack kcut/core 2>&1 | grep -q 'read in part: truncated core'"
		else
			echo "# the kernel wrote no core under ulimit -c 64"
		fi
	else
		echo "# the kernel wrote no core here (core_pattern '$pattern'): no kernel core"
	fi
	;;
esac
printf '\004\042\115\030lz4 frame' >core.lz4
"$PSYM" stack core.lz4 >lz4.out 2>lz4.err
rc=$?
check "an lz4 core (liblz4 is no dependency): exit 2, one line saying to decompress it" \
	sh -c "[ $rc -eq 2 ] && [ \$(wc -l <lz4.err) -eq 1 ] && grep -q \"'core.lz4': an lz4-compressed core.*lz4 -d\" lz4.err"
printf 'not a core' >notcore
"$PSYM" stack notcore >nc.out 2>nc.err
rc=$?
check "a file that is no core: exit 2, one line naming it" \
	sh -c "[ $rc -eq 2 ] && [ \$(wc -l <nc.err) -eq 1 ] && grep -q \"'notcore': not an ELF core file\" nc.err"
finish
