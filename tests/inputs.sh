#!/bin/sh
# The front door (src/input/, issue 49): every command that reads a profile
# reads it through one table of readers told apart by their bytes, and a
# file no reader takes is refused in one line naming the file and what it
# looks like, exit 2, nothing written.
# Oracles: file(1) for what each file is; protoc for the profiles' bytes.
. "$top_srcdir/tests/lib.sh"
need gcc
need protoc
need gzip
need zstd

cat >a.c <<'C'
int main(void) { return 0; }
C
gcc -g -O0 -c -o a.o a.c && gcc -o a a.o || unbuildable "gcc cannot link"
encode_txtpb "$top_srcdir/testdata/sample.txtpb" sample.pb
gzip -c sample.pb >sample.pb.gz
gzip -c a >a.gz
zstd -q -c sample.pb >sample.pb.zst
printf 'PERFILE2' >perf.data && head -c 200 /dev/zero >>perf.data
printf '{"resourceSpans":[]}\n' >x.json
: >empty
# An ELF core: gcore of a stopped child, or a header alone (e_type 4).
python3 - <<'P'
import struct
h = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8) + struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 0, 0, 0, 64, 56, 0, 64, 0, 0)
open("core", "wb").write(h)
P
file core | grep -q "core file" || fail "file(1) does not see core as an ELF core (the fixture is wrong)"

# refused FILE WORDS...: symbolize, top, show, merge each refuse FILE, exit
# 2, in one line that names the file and says WORDS; nothing is written.
refused() {
	f=$1
	shift
	for cmd in "symbolize -o out.pb" top show check "merge -o out.pb"; do
		rm -f out.pb
		"$PSYM" $cmd "$f" >/dev/null 2>err && rc=0 || rc=$?
		if [ "$rc" = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -qF "'$f'" err &&
			grep -qF -- "$*" err && [ ! -e out.pb ]; then
			pass "$cmd $f: one line, exit 2, says '$*'"
		else
			fail "$cmd $f: exit $rc: $(cat err)"
		fi
	done
}
refused core "an ELF core file (psym stack reads cores)"
refused a "an ELF executable or shared object"
refused a.o "an ELF relocatable object"
refused a.gz "gzip of an ELF executable"
refused sample.pb.zst "zstd-compressed data"
refused x.json "JSON text"
refused empty "empty file"

# Every kind the table knows is read by every command alike.
for f in sample.pb sample.pb.gz "$top_srcdir/testdata/sample.pb.gz"; do
	check "show reads $f" sh -c "\"$PSYM\" show \"$f\" >/dev/null"
	check "top reads $f" sh -c "\"$PSYM\" top \"$f\" >/dev/null 2>&1"
	rm -f m.pb s.pb
	"$PSYM" merge -o m.pb "$f" 2>/dev/null && decode_pb m.pb >m.txt &&
		pass "merge reads $f" || fail "merge reads $f"
	"$PSYM" symbolize --offline -q -o s.pb "$f" && decode_pb s.pb >s.txt &&
		pass "symbolize reads $f" || fail "symbolize reads $f"
done
# A legacy text profile (gperftools heap) through the same door.
cat >heap.txt <<'H'
heap profile:    1:   1024 [     1:   1024] @ heapprofile
     1:   1024 [     1:   1024] @ 0x401000

MAPPED_LIBRARIES:
00400000-00500000 r-xp 00000000 00:00 0 /bin/true
H
for cmd in show top "symbolize --offline -q -o s.pb"; do
	check "$cmd reads a legacy heap profile" sh -c "\"$PSYM\" $cmd heap.txt >/dev/null 2>&1"
done
# The same profile from standard input.
check "symbolize reads a profile from stdin" sh -c "\"$PSYM\" symbolize --offline -q -o s.pb - <sample.pb.gz"
finish
