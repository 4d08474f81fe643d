#!/bin/sh
# A hostile or broken HTTP index store (--index-store http://...), served by
# a small python3 server on 127.0.0.1 that logs every request it gets:
#   - bodies that claim up to 2 GiB are checked as they come, never held in
#     memory: a bad magic is refused at its first byte, a right magic with
#     garbage after at the header, a body longer than its header says at
#     the first byte too many; a truncated one is streamed to a private
#     unlinked file. psym's max RSS (/usr/bin/time) stays under 100 MB while
#     the servers send 200 MB and more; the DWARF answers; no temporary
#     file is left.
#   - a silent store costs one deadline per run, not one per binary: with
#     4 binaries, it gets 1 request, and one warning says it is not asked
#     again (also psym index, and a batch of 3 jobs: one warning at the
#     end); a store that answers each request just inside the cap is cut
#     off when the run's time for the store is spent.
# Oracle for the answers: psym --no-index on the same binary (the DWARF,
# checked against llvm-symbolizer by the DWARF tests).
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need protoc
[ -x /usr/bin/time ] || skip "/usr/bin/time (GNU time) is not installed"

pids=
stop_all() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	cleanup
}
trap stop_all EXIT INT TERM

cat >c.c <<'C'
static inline __attribute__((always_inline)) int sq(int x) { return x * x + N; }
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
__attribute__((noinline)) int beta(int n) { return alpha(n) * 3 + sq(n); }
int main(int argc, char **argv) { (void)argv; return beta(argc) & 1; }
C
for i in 1 2 3 4; do
	gcc -O2 -g -DN=$i -o prog$i c.c
done
bid=$(readelf -n prog1 | sed -n 's/.*Build ID: //p')
"$PSYM" index --index-store L prog1 >/dev/null
idx=$(ls L/*/"$bid".*.psymidx | head -n 1)
[ -s "$idx" ] || fail "no index of prog1 in the directory store L"
objdump -d --no-show-raw-insn -j .text prog1 |
	sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' | awk 'NR % 4 == 0' >insns
"$PSYM" addr --no-index -e prog1 <insns >dw.txt

# The lying index files: the right header with the garbage of its length
# after it, and a header (checksum right) claiming BIG bytes.
BIG=2147480000
python3 - "$idx" "$BIG" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
big = int(sys.argv[2])
open("garbage.idx", "wb").write(data[:1024] + b"\xa5" * (len(data) - 1024))
h = bytearray(data[:1024])
h[24:32] = struct.pack("<Q", big)
h[1020:1024] = struct.pack("<I", zlib.crc32(bytes(h[:1020])))
open("big.hdr", "wb").write(bytes(h))
PY

# One server for all the ways to answer: a request for /MODE/... is
# answered the MODE way and logged as a line in MODE.log.
cat >serve.py <<'PY'
import os, socket, sys, threading, time
portfile, idx = sys.argv[1:3]
data = open(idx, "rb").read()
BIG = int(sys.argv[3])
MB = 1 << 20

def flood(c, head, first, total):
    # head, then first, then 0xa5 bytes up to total bytes of body
    c.sendall(head + first)
    sent, block = len(first), b"\xa5" * MB
    while sent < total:
        c.sendall(block)
        sent += MB

def answer(c):
    req = b""
    while b"\r\n\r\n" not in req:
        k = c.recv(65536)
        if not k:
            return
        req += k
    line = req.split(b"\r\n")[0].decode()
    mode = line.split(" ")[1].split("/")[1]
    with open(mode + ".log", "a") as f:
        f.write(line + "\n")
    ok = b"HTTP/1.1 200 OK\r\n"
    if mode == "silent":
        while c.recv(4096):
            pass
    elif mode == "slow404":
        time.sleep(0.7)
        c.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    elif mode == "badmagic":
        flood(c, ok + b"Content-Length: %d\r\n\r\n" % BIG, b"", 300 * MB)
    elif mode == "magic":
        flood(c, ok + b"Content-Length: %d\r\n\r\n" % BIG, b"PSYMIDX\n", 300 * MB)
    elif mode == "truncated":
        flood(c, ok + b"Content-Length: %d\r\n\r\n" % BIG, open("big.hdr", "rb").read(),
              200 * MB)
    elif mode == "longer":
        flood(c, ok + b"\r\n", data, 200 * MB)
    elif mode == "lenlie":
        flood(c, ok + b"Content-Length: %d\r\n\r\n" % BIG, data, 200 * MB)
    elif mode == "garbage":
        g = open("garbage.idx", "rb").read()
        c.sendall(ok + b"Content-Length: %d\r\n\r\n" % len(g) + g)
    elif mode == "cut":
        c.sendall(ok + b"\r\n" + data[: len(data) // 2])
    elif mode == "good":
        c.sendall(ok + b"\r\n" + data)

def serve(c):
    try:
        answer(c)
    except OSError:
        pass
    c.close()

s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(16)
open(portfile + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(portfile + ".tmp", portfile)
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
python3 serve.py port "$idx" "$BIG" &
pids="$pids $!"
i=0
while [ ! -s port ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
[ -s port ] || { fail "the test's server did not start"; exit 1; }
port=$(cat port)

# refuse MODE WANT: the DWARF answers, one warning containing WANT, max
# RSS under 100 MB, the server got one request, nothing left in TMPDIR.
refuse() {
	: >"$1.log"
	rm -rf tmp && mkdir tmp
	TMPDIR=$T/tmp /usr/bin/time -o "$1.rss" -f %M timeout 120 "$PSYM" addr \
		--index-store "http://127.0.0.1:$port/$1" --no-index-build -e prog1 \
		<insns >"$1.txt" 2>"$1.err"
	rss=$(tail -n 1 "$1.rss")
	if ! cmp -s "$1.txt" dw.txt; then
		fail "$1: answers differ from the DWARF's ($(head -3 "$1.err"))"
	elif [ "$(wc -l <"$1.err")" != 1 ] || ! grep -q -- "$2" "$1.err"; then
		fail "$1: want one warning with '$2': $(cat "$1.err")"
	else
		pass "$1: refused, DWARF answers: $(cat "$1.err")"
	fi
	check "$1: max RSS $rss KB < 100 MB" [ "$rss" -lt 102400 ]
	check "$1: one request ($(wc -l <"$1.log"))" [ "$(wc -l <"$1.log")" = 1 ]
	check "$1: no temporary file left ($(ls tmp))" [ -z "$(ls -A tmp)" ]
}
refuse badmagic "not a psym index (bad magic at byte 0)"
refuse magic "version 2779096485, psym reads"
refuse truncated "body truncated"
refuse longer "more than the"
refuse lenlie "the server sends $BIG bytes, the header says"
refuse garbage "checksum table damaged"
refuse cut "truncated"

# A good index sent without Content-Length (read to the end): used.
"$PSYM" addr -v --index-store "http://127.0.0.1:$port/good" --no-index-build -e prog1 \
	<insns >good.txt 2>good.err
check "an index sent without Content-Length: answers = DWARF answers" cmp -s good.txt dw.txt
check "...from the index ($(grep -i index good.err | head -2))" grep -q "from the index" good.err

# One deadline per run. A profile of the 4 binaries (each its own build ID,
# mapped 256 MiB apart), answered without an index as the oracle.
: >maps.empty
for i in 1 2 3 4; do
	a=$(nm prog$i | sed -n 's/^\([0-9a-f]*\) T alpha$/\1/p')
	printf 'mapping %x %x 0 %s\n' $((i << 28)) $(((i << 28) + 0x100000)) "$PWD/prog$i"
	printf '%x\n' $(((i << 28) + 0x$a + 4))
done >stacks
python3 "$top_srcdir/tests/mkprofile.py" maps.empty stacks >p.txtpb && encode_txtpb p.txtpb p.pb
"$PSYM" symbolize --offline --no-cache --no-index p.pb -o ref.pb 2>ref.err
check "the oracle run answers (without an index)" [ -s ref.pb ]

# deadline MODE MAX: the store asked MODE's way by a symbolize of the 4
# binaries, with 1 s for the run: at most MAX requests, one warning saying
# why the store is not asked again.
deadline() {
	: >"$1.log"
	PSYM_INDEX_STORE_TIMEOUT=1 timeout 120 "$PSYM" symbolize --offline --no-cache \
		--index-store "http://127.0.0.1:$port/$1" --no-index-build p.pb -o "$1.pb" \
		2>"$1.err"
	n=$(wc -l <"$1.log")
	check "$1 store, 4 binaries: at most $2 of 4 GETs sent ($n)" [ "$n" -le "$2" ]
	check "...the profile is the one made without an index" cmp -s "$1.pb" ref.pb
	check "...one warning that it is not asked again ($(cat "$1.err"))" \
		[ "$(grep -c "not asked again in this run" "$1.err")" = 1 ]
}
# A server that never answers: given up after its first request, also by
# psym index (each PUT has the timeout; none is sent after one timed out).
deadline silent 1
: >silent.log
PSYM_INDEX_STORE_TIMEOUT=1 timeout 120 "$PSYM" index \
	--index-store "http://127.0.0.1:$port/silent" prog1 prog2 prog3 prog4 \
	>silent.idx.out 2>silent.idx.err
n=$(wc -l <silent.log)
check "psym index of 4 binaries to the silent store: 1 PUT of 4 sent ($n)" [ "$n" = 1 ]
check "...each fails, one saying it is not asked again ($(cat silent.idx.err))" sh -c "
	[ \"\$(grep -c 'not asked again in this run' silent.idx.err)\" = 1 ] &&
	[ \"\$(grep -c 'not asked: it did not answer earlier' silent.idx.err)\" = 3 ]"
# A batch of 6 such profiles, 3 at a time, shares one deadline: at most one
# GET per job in flight when the first timed out; one warning at the end.
: >silent.log
for i in 1 2 3 4 5 6; do
	cp p.pb b$i.pb
	printf 'b%d.pb\tb%d.out.pb\n' $i $i
done >manifest
PSYM_INDEX_STORE_TIMEOUT=1 timeout 120 "$PSYM" symbolize --offline --no-cache -j 3 \
	--index-store "http://127.0.0.1:$port/silent" --no-index-build --manifest manifest \
	2>batch.err
n=$(wc -l <silent.log)
check "a batch of 6 profiles of the 4 binaries, 3 jobs: at most 3 GETs ($n)" [ "$n" -le 3 ]
check "...all 6 written" grep -q "6/6 profiles written" batch.err
check "...one warning that the store is not asked again ($(grep warning batch.err))" \
	[ "$(grep -c "warning: .*not asked again in this run" batch.err)" = 1 ]
# One that answers each request (404) in 0.7 s, inside a per-request cap of
# 1 s: the second request gets what is left of the run's 1 s.
deadline slow404 2

[ "$n_fail" = 0 ]
