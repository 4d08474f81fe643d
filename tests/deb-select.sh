#!/bin/sh
# --debug-pkg extracts only what the profiles need: the .build-id members
# their mappings' build IDs name, other debug files whose ELF build ID is
# wanted (linked into .build-id), and the .dwz files those name (no other:
# 3,000 unnamed ones stay out); a huge sparse member nobody needs costs
# no disk. --no-cache leaves nothing behind, --cache DIR
# extracts under DIR/debs, the byte cap names its --limit option, and a
# failed run leaves no temporaries. Oracles: readelf (build IDs), addr2line
# (function names), du (disk use).
. "$top_srcdir/tests/lib.sh"
need dpkg-deb
need gcc
need objcopy
need addr2line
need python3
need protoc
need zstd

cat >prog.c <<'C'
__attribute__((noinline)) int work(int x) { return x * 3 + 1; }
int main(void) { return work(2) == 7 ? 0 : 1; }
C
cat >other.c <<'C'
__attribute__((noinline)) int other_fn(int x) { return x * 5 + 2; }
int main(void) { return other_fn(2) == 12 ? 0 : 1; }
C
gcc -g -O1 -fno-pie -no-pie -Wl,--build-id -o prog.full prog.c
gcc -g -O1 -fno-pie -no-pie -Wl,--build-id -Wl,-Ttext-segment=0x800000 -o other.full other.c
bid() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }
pid=$(bid prog.full)
oid=$(bid other.full)
hid=abcdef0123456789abcdef0123456789abcdef01
mkdir -p pkg/DEBIAN "pkg/usr/lib/debug/.build-id/$(echo "$pid" | cut -c1-2)" \
	pkg/usr/lib/debug/.build-id/ab pkg/usr/lib/debug/usr/bin pkg/usr/lib/debug/.dwz/x86_64-linux-gnu
# prog's debug file names its dwz alternate file (.gnu_debugaltlink: path,
# NUL, the alternate's build ID), as dwz -m leaves it.
printf '/usr/lib/debug/.dwz/x86_64-linux-gnu/prog.debug\0' >altlink
printf '0123456789abcdef0123' >>altlink
objcopy --only-keep-debug --add-section .gnu_debugaltlink=altlink prog.full \
	"pkg/usr/lib/debug/.build-id/$(echo "$pid" | cut -c1-2)/$(echo "$pid" | cut -c3-).debug"
objcopy --only-keep-debug other.full pkg/usr/lib/debug/usr/bin/other.debug
echo "dwz alternate" >pkg/usr/lib/debug/.dwz/x86_64-linux-gnu/prog.debug
# dwz files that no wanted debug file names: never extracted (a package
# with 100,000 of them filled the cache with 393 MB).
i=0
while [ $i -lt 3000 ]; do
	echo "unused $i" >pkg/usr/lib/debug/.dwz/x86_64-linux-gnu/unused$i.debug
	i=$((i + 1))
done
echo "not ELF" >pkg/usr/lib/debug/usr/bin/README
# 1 GiB of zeros (sparse here; stored whole in the tar, zstd makes it small).
truncate -s 1G "pkg/usr/lib/debug/.build-id/ab/$(echo "$hid" | cut -c3-).debug"
printf 'Package: t-dbg\nVersion: 1.0\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: test\n' >pkg/DEBIAN/control
dpkg-deb -Zzstd --root-owner-group --build pkg t-dbg.deb >/dev/null 2>&1 || skip "dpkg-deb cannot write zstd here"
rm -rf pkg
check "the package is small ($(wc -c <t-dbg.deb) bytes)" [ "$(wc -c <t-dbg.deb)" -lt 2000000 ]

cp prog.full prog && objcopy --strip-debug prog
cp other.full other && objcopy --strip-debug other
: >maps.empty
paddr=$(nm prog.full | sed -n 's/^\([0-9a-f]*\) T work$/\1/p')
oaddr=$(nm other.full | sed -n 's/^\([0-9a-f]*\) T other_fn$/\1/p')
printf 'mapping 400000 500000 0 %s\n%s\n' "$PWD/prog" "$paddr" >stacks.a
printf 'mapping 400000 500000 0 %s\nmapping 800000 900000 0 %s\n%s\n%s\n' \
	"$PWD/prog" "$PWD/other" "$paddr" "$oaddr" >stacks.b
for p in a b; do
	python3 "$top_srcdir/tests/mkprofile.py" maps.empty stacks.$p >$p.txtpb && encode_txtpb $p.txtpb $p.pb
done
check "addr2line names work()" sh -c "addr2line -f -e prog.full $paddr | head -1 | grep -qx work"
check "addr2line names other_fn()" sh -c "addr2line -f -e other.full $oaddr | head -1 | grep -qx other_fn"
mkdir tmpd
export TMPDIR=$T/tmpd
sym() { "$PSYM" symbolize -q --offline "$@"; }

# Profile a: only prog's build ID is wanted.
sym --debug-pkg t-dbg.deb a.pb -o a.out
check "a: work() symbolized from the package" sh -c "\"$PSYM\" show a.out | grep -q 'work.*prog.c'"
entry=$(echo .cache/psym/debs/t-dbg.deb-*)
dbg=$entry/usr/lib/debug
check "a: prog's .build-id debug file extracted" \
	test -f "$dbg/.build-id/$(echo "$pid" | cut -c1-2)/$(echo "$pid" | cut -c3-).debug"
# The member's own path: prog's or other's build ID may also begin with "ab".
huge=$dbg/.build-id/ab/$(echo "$hid" | cut -c3-).debug
check "a: the 1 GiB member nobody wants is not extracted" test ! -e "$huge"
check "a: other.debug (not wanted) is not kept" test ! -e "$dbg/usr/bin/other.debug"
check "a: non-ELF file not kept" test ! -e "$dbg/usr/bin/README"
check "a: the .dwz file prog's debug file names is extracted" test -f "$dbg/.dwz/x86_64-linux-gnu/prog.debug"
n=$(find "$dbg/.dwz" -type f 2>/dev/null | wc -l)
check "a: no other .dwz file extracted ($n files there)" [ "$n" = 1 ]
du=$(du -sk .cache | cut -f1)
check "a: cache disk use stays small (${du} KiB)" [ "$du" -lt 10000 ]
check "a: the index lists the package's build IDs (readelf's)" sh -c \
	"sort $entry/.psym-build-ids | tr -d '\n' | grep -qx \"\$(printf '%s\n' $pid $oid $hid | sort | tr -d '\n')\""
check "a: no temporaries left" sh -c "! find .cache tmpd -name '.psym-tmp-*' | grep -q ."

# Profile b: other's build ID too; found outside the .build-id tree.
sym --debug-pkg t-dbg.deb b.pb -o b.out
check "b: other_fn() symbolized from the package" sh -c "\"$PSYM\" show b.out | grep -q 'other_fn.*other.c'"
check "b: other.debug kept at its path" cmp -s "$dbg/usr/bin/other.debug" \
	"$dbg/.build-id/$(echo "$oid" | cut -c1-2)/$(echo "$oid" | cut -c3-).debug"
check "b: still no 1 GiB member" test ! -e "$huge"
# A run killed during extraction leaves ENTRY/.psym-tmp-PID-X: removed later.
sh -c 'exit 0' &
dead=$!
wait "$dead"
: >"$entry/.psym-tmp-$dead-AbCdEf"
sym --debug-pkg t-dbg.deb a.pb -o a2.out
check "stale extraction temporary of a dead run removed" test ! -e "$entry/.psym-tmp-$dead-AbCdEf"

# --no-cache: a temporary extraction, gone afterwards; --cache DIR: DIR/debs.
rm -rf .cache
sym --no-cache --debug-pkg t-dbg.deb a.pb -o nc.out
check "--no-cache: work() symbolized" sh -c "\"$PSYM\" show nc.out | grep -q 'work.*prog.c'"
check "--no-cache: nothing in XDG_CACHE_HOME" test ! -e .cache
check "--no-cache: the temporary extraction is removed" sh -c "! ls -A tmpd | grep -q ."
sym --cache mycache --debug-pkg t-dbg.deb a.pb -o c.out
check "--cache DIR: extracted under DIR/debs" sh -c "ls mycache/debs/t-dbg.deb-*/usr/lib/debug/.build-id/$(echo "$pid" | cut -c1-2)/ | grep -q debug"
check "--cache DIR: nothing in XDG_CACHE_HOME" test ! -e .cache
check "--cache DIR: work() symbolized" sh -c "\"$PSYM\" show c.out | grep -q 'work.*prog.c'"

# Batch mode: the union of the profiles' build IDs (a bad profile is the
# batch's to report, not the extraction's).
rm -rf batchc
mkdir batch-in
cp a.pb batch-in/1.pb
printf 'mapping 800000 900000 0 %s\n%s\n' "$PWD/other" "$oaddr" >stacks.o
python3 "$top_srcdir/tests/mkprofile.py" maps.empty stacks.o >o.txtpb && encode_txtpb o.txtpb batch-in/2.pb
echo "not a profile" >batch-in/3.pb
sym --cache batchc --debug-pkg t-dbg.deb batch-in -o batch-out 2>/dev/null
check "batch: both profiles' debug files extracted" sh -c "ls batchc/debs/t-dbg.deb-*/usr/lib/debug/.build-id/$(echo "$pid" | cut -c1-2)/ | grep -q debug && ls batchc/debs/t-dbg.deb-*/usr/lib/debug/usr/bin/other.debug"
check "batch: other_fn() symbolized" sh -c "\"$PSYM\" show batch-out/2.pb | grep -q 'other_fn.*other.c'"

# The byte cap: named in the error with its option; nothing half-written.
"$PSYM" symbolize --offline --limit deb-bytes=1K --cache capc --debug-pkg t-dbg.deb a.pb \
	-o cap.out 2>cap.err && rc=0 || rc=$?
check "cap: exit 2" [ "$rc" = 2 ]
check "cap: the error names --limit deb-bytes" grep -q -- '--limit deb-bytes=N' cap.err
check "cap: one line" [ "$(wc -l <cap.err)" = 1 ]
check "cap: no output, no temporaries, no entry" sh -c "[ ! -e cap.out ] && ! find capc -name '.psym-tmp-*' | grep -q . && ! ls capc/debs | grep -q ."
"$PSYM" symbolize --offline --limit deb-bytes=1K --no-cache --debug-pkg t-dbg.deb a.pb \
	-o cap.out 2>/dev/null
check "cap with --no-cache: the temporary extraction is removed" sh -c "! ls -A tmpd | grep -q ."
"$PSYM" symbolize --offline --debug-pkg t-dbg.deb - -o stdin.out <a.pb 2>stdin.err && rc=0 || rc=$?
check "stdin input with --debug-pkg: a usage error" sh -c "[ $rc = 2 ] && grep -q 'not stdin' stdin.err"
finish
