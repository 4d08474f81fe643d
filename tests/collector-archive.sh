#!/bin/sh
# psym archive and psym-collect --archive end to end: a program and its own
# shared library run inside `unshare -m` from a tmpfs mounted only in that
# mount namespace (the host cannot see them at their paths). The profile
# is archived while it runs, the binaries are deleted, and the profile is
# symbolized from the archive alone (--sysroot pointing at an empty dir):
# through --debug-pkg, through `tar x` + --debug-dir, through
# --binary-path. Each result must equal symbolizing inside the namespace,
# where the binaries are (protoc --decode of both). The archive's members
# are checked against readelf's build IDs with Python's tarfile and GNU
# tar; the size cap and --exclude-path too.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need protoc
need zstd
need tar
need unshare "util-linux"
need nsenter "util-linux"
pid=
collector_at_exit '[ -n "$pid" ] && kill $pid 2>/dev/null'
collector_need "BPF, perf events and mount namespaces"
collector_hogs # the machine loaded, as production hosts are (issue 42, item 4)
unshare -m --propagation private true 2>/dev/null || skip "cannot create a mount namespace here"

mkdir build priv empty
cat >build/work.c <<'EOF2'
__attribute__((noinline)) long work_inner(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i * i ^ (s >> 3);
	return s;
}
long work(long n) { return work_inner(n) + 1; }
EOF2
cat >build/prog.c <<'EOF2'
#include <stdlib.h>
#include <time.h>
long work(long n);
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
(cd build && gcc -O1 -g -fno-omit-frame-pointer -fPIC -shared -o libwork.so work.c &&
	gcc -O1 -g -fno-omit-frame-pointer -o prog prog.c -L. -lwork -Wl,-rpath,"$T/priv") ||
	fail "cannot build the fixture"
bid() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }
prog_id=$(bid build/prog)
lib_id=$(bid build/libwork.so)

# The program runs from a tmpfs only its mount namespace has.
unshare -m --propagation private sh -c '
	mount -t tmpfs psym-test "$1/priv" && cp "$1/build/prog" "$1/build/libwork.so" "$1/priv/" &&
	exec "$1/priv/prog" 30' sh "$T" &
pid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(readlink /proc/$pid/exe 2>/dev/null)" = "$T/priv/prog" ] && break
	sleep 0.5
done
check "the program runs from the namespace's tmpfs" test "$(readlink /proc/$pid/exe)" = "$T/priv/prog"
check "the host cannot see it at its path" test ! -e "$T/priv/prog"

"$C" -p $pid -d 3 --archive -o prof.pb.gz 2>collect.log || fail "psym-collect --archive failed: $(cat collect.log)"
check "psym-collect --archive wrote prof.tar.zst" test -s prof.tar.zst
"$PSYM" archive -v prof.pb.gz -o manual.tar.zst 2>archive.log || fail "psym archive failed: $(cat archive.log)"
"$PSYM" archive --exclude-path "$T/priv" prof.pb.gz -o excl.tar.zst 2>excl.log ||
	fail "psym archive --exclude-path failed: $(cat excl.log)"
expect_exit 2 "--max-size: over the cap is refused" "$PSYM" archive --max-size 1000 prof.pb.gz -o cap.tar.zst 2>cap.log
check "the error names the cap ($(cat cap.log))" grep -q "size cap of 1000 bytes" cap.log
check "nothing written over the cap" test ! -e cap.tar.zst
# Symbolized where the binaries are: inside the namespace.
nsenter -t $pid -m "$PSYM" symbolize "$T/prof.pb.gz" -o "$T/ref.pb.gz" 2>ref.log ||
	fail "symbolize inside the namespace failed: $(cat ref.log)"
kill $pid
wait $pid 2>/dev/null
pid=
rm -rf build

# members ARCHIVE: the archive's member names, by Python's tarfile.
members() {
	zstd -q -dc "$1" >members.tar &&
	python3 -c 'import sys, tarfile; [print(m.name) for m in tarfile.open(sys.argv[1])]' members.tar
}
members manual.tar.zst >manual.list
p1=$(echo "$prog_id" | cut -c1-2) p2=$(echo "$prog_id" | cut -c3-)
l1=$(echo "$lib_id" | cut -c1-2) l2=$(echo "$lib_id" | cut -c3-)
check "the archive has the program by build ID (readelf: $prog_id)" grep -qx ".build-id/$p1/$p2" manual.list
check "the archive has the library by build ID (readelf: $lib_id)" grep -qx ".build-id/$l1/$l2" manual.list
check "pprof's BUILDID/BASENAME layout too" grep -qx "$prog_id/prog" manual.list
members prof.tar.zst >collect.list
check "psym-collect --archive packed the same files" diff -u manual.list collect.list
members excl.tar.zst >excl.list
check "--exclude-path left the namespace's files out" sh -c "! grep -q '$p2' excl.list && ! grep -q '$l2' excl.list"
check "GNU tar reads the archive" sh -c "zstd -q -dc manual.tar.zst | tar tf - >/dev/null"

decode_pb ref.pb.gz >ref.txt
check "inside the namespace: work_inner is named" grep -q '"work_inner"' ref.txt
compare() { # NAME PROFILE
	decode_pb "$2" >"$1.txt"
	if diff -u ref.txt "$1.txt" >"$1.diff"; then
		pass "$1: identical to symbolizing where the binaries are (protoc --decode)"
	else
		fail "$1: differs from symbolizing where the binaries are"
		head -20 "$1.diff"
	fi
}
"$PSYM" symbolize --no-cache --sysroot "$T/empty" --debug-pkg manual.tar.zst prof.pb.gz -o pkg.pb.gz 2>pkg.log ||
	fail "symbolize --debug-pkg ARCHIVE failed: $(cat pkg.log)"
compare debug-pkg pkg.pb.gz
mkdir dd
zstd -q -dc manual.tar.zst | tar xf - -C dd
"$PSYM" symbolize --sysroot "$T/empty" --debug-dir dd prof.pb.gz -o dd.pb.gz 2>dd.log ||
	fail "symbolize --debug-dir failed: $(cat dd.log)"
compare tar-x-debug-dir dd.pb.gz
"$PSYM" symbolize --sysroot "$T/empty" --binary-path dd --debug-dir dd prof.pb.gz -o bp.pb.gz 2>bp.log ||
	fail "symbolize --binary-path failed: $(cat bp.log)"
compare tar-x-binary-path bp.pb.gz
"$PSYM" symbolize --sysroot "$T/empty" prof.pb.gz -o none.pb.gz 2>none.log
check "without the archive the program's mapping is not found" grep -q "$T/priv/prog.*not found" none.log
finish
