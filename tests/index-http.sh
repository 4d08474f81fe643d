#!/bin/sh
# The HTTP index store (--index-store http://...) against a real nginx with
# WebDAV PUT on 127.0.0.1: psym index PUTs, psym addr GETs and answers from
# the index alone. Each failure is rejected with a reason naming the
# problem (and the cap, for caps) and the DWARF answers: server down,
# a server that stalls, one that answers garbage (not HTTP, not an index,
# a body over the size cap), the index of another build ID, a PUT refused
# for its size, and a PUT refused because the disk is full (nginx writing
# into a 16 KiB tmpfs: needs mount permission, else that part is skipped).
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/index-lib.sh"
need gcc
need objcopy
need python3

pids=
mounted=
stop_all() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	[ -f "$T/nginx.pid" ] && kill "$(cat "$T/nginx.pid")" 2>/dev/null
	sleep 0.2
	[ -n "$mounted" ] && umount "$T/full" 2>/dev/null
	cleanup
}
trap stop_all EXIT INT TERM

freeport() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

cat >c.c <<'C'
static inline __attribute__((always_inline)) int sq(int x) { return x * x + 1; }
static inline __attribute__((always_inline)) int twice(int x) { return sq(x) + sq(x + 1); }
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += twice(i); return s; }
__attribute__((noinline)) int beta(int n) { return alpha(n) * 3 + sq(n); }
int main(int argc, char **argv) { (void)argv; return beta(argc) & 1; }
C
gcc -O2 -g -o prog c.c
gcc -O1 -g -o other c.c
bid=$(readelf -n prog | sed -n 's/.*Build ID: //p')
# The store's key of prog's index (xx/BUILDID.VARIANT.fFORMAT.psymidx), as a
# directory store names it; the HTTP store must use the same below its URL.
"$PSYM" index --index-store L prog >/dev/null
key=$(cd L && ls -- */"$bid".*.psymidx | head -n 1)
[ -n "$key" ] || fail "no index in the directory store L"
objdump -d --no-show-raw-insn -j .text prog | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >insns
objcopy --strip-debug prog prog.nodebug
"$PSYM" addr --no-index -e prog <insns >dw.txt

# nginx: /idx/ takes PUTs (up to 10 MB), /small/ up to 1 KB; a second
# server writes into $T/full (a 16 KiB tmpfs when mounting is allowed).
port=$(freeport)
port2=$(freeport)
mkdir -p full
if mount -t tmpfs -o size=16k tmpfs "$T/full" 2>/dev/null; then
	mounted=1
fi
mkdir -p full/www/idx full/tmp
start_dav_nginx "$port" "	server {
		listen 127.0.0.1:$port2;
		root $T/full/www;
		client_body_temp_path $T/full/tmp;
		location /idx/ { dav_methods PUT; create_full_put_path on; client_max_body_size 10m; }
	}"
URL=http://127.0.0.1:$port/idx

# PUT by psym index, GET by psym addr.
"$PSYM" index --index-store "$URL" prog >put.out 2>put.err
check "psym index PUTs to nginx: one line with the build ID ($(cat put.out put.err))" \
	grep -q "^$bid [0-9]" put.out
check "the server stores it under URL/xx/BUILDID.VARIANT.fFORMAT.psymidx, as a directory store" [ -s "www/idx/$key" ]
check "the stored file is a valid index" "$PSYM" index --verify "www/idx/$key"
"$PSYM" addr --index-store "$URL" --offline -e prog.nodebug <insns >get.txt 2>get.err
check "psym addr GETs it and answers from it alone = DWARF answers" cmp -s get.txt dw.txt
check "...without a warning" [ ! -s get.err ]

# reject NAME WANT URL: DWARF answers, one warning line containing WANT.
reject() {
	rm -f r.txt r.err
	timeout 60 "$PSYM" addr --index-store "$3" --no-index-build -e prog <insns >r.txt 2>r.err
	if ! cmp -s r.txt dw.txt; then
		fail "$1: answers differ from the DWARF's"
	elif [ "$(wc -l <r.err)" != 1 ] || ! grep -q -- "$2" r.err; then
		fail "$1: want one warning with '$2': $(cat r.err)"
	else
		pass "$1: rejected, DWARF answers: $(cat r.err)"
	fi
}
down=$(freeport)
reject "server down" "cannot connect" "http://127.0.0.1:$down/idx"

# Hand-made servers: a stall, garbage, a non-index body, an oversized one.
# serve MODE PORT: answer every connection the MODE way.
serve() {
	python3 - "$1" "$2" <<'PY' &
import socket, sys, time
mode, port = sys.argv[1], int(sys.argv[2])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(8)
while True:
    c, _ = s.accept()
    c.recv(65536)
    if mode == "stall":
        time.sleep(600)
    elif mode == "garbage":
        c.sendall(b"\x00\x01garbage, not HTTP\r\n\r\n")
    elif mode == "notindex":
        body = b"PSYMIDX?" + b"x" * 5000
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    elif mode == "huge":
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n" + b"x" * 1000)
    elif mode == "short":
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + b"PSYMIDX\n" + b"x" * 92)
    c.close()
PY
	pids="$pids $!"
	for _ in $(seq 50); do
		python3 -c "import socket; socket.create_connection(('127.0.0.1', $2), 1)" 2>/dev/null && break
		sleep 0.1
	done
}
for mode in stall garbage notindex huge short; do
	eval "p_$mode=$(freeport)"
	eval "serve $mode \$p_$mode"
done
start=$(date +%s)
PSYM_INDEX_STORE_TIMEOUT=1 reject "a server that stalls" "timed out after 1000 ms" \
	"http://127.0.0.1:$p_stall/idx"
check "the stall ended by the cap, not by the server (which stalls 600 s)" [ $(($(date +%s) - start)) -lt 300 ]
reject "garbage instead of HTTP" "not an HTTP response" "http://127.0.0.1:$p_garbage/idx"
reject "an HTTP body that is not an index" "not a psym index" "http://127.0.0.1:$p_notindex/idx"
reject "a body over the size cap" "exceed the cap of" "http://127.0.0.1:$p_huge/idx"
reject "a truncated body" "body truncated" "http://127.0.0.1:$p_short/idx"

# nginx serving the index of another build ID under this one's key.
"$PSYM" index --index-store "$T/o" other >/dev/null
mkdir -p "www/planted/$(dirname "$key")"
cp o/*/*.psymidx "www/planted/$key"
reject "the index of another build ID" "is for build ID" "http://127.0.0.1:$port/planted"

# PUT refused: over the server's body size limit.
mkdir tmpput
expect_exit 1 "PUT over client_max_body_size: psym index fails" \
	env TMPDIR="$T/tmpput" "$PSYM" index --index-store "http://127.0.0.1:$port/small" prog
"$PSYM" index --index-store "http://127.0.0.1:$port/small" prog 2>small.err >/dev/null
check "...saying the server refused it ($(cat small.err))" grep -q "refused: HTTP/1.1 413" small.err
check "...and leaving no temporary file" sh -c "[ -z \"\$(ls -A tmpput)\" ]"

# PUT refused because the disk is full (a real ENOSPC inside nginx).
if [ -n "$mounted" ]; then
	gcc -O2 -g -o big -x c - <<'C'
#define F(n) __attribute__((noinline)) int f##n(int x) { return x * n + (x >> 3); }
#define G(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
#define H(n) G(n##0) G(n##1) G(n##2) G(n##3) G(n##4) G(n##5) G(n##6) G(n##7) G(n##8) G(n##9)
H(1) H(2) H(3) H(4) H(5) H(6) H(7) H(8) H(9)
int main(void) { return f100(1); }
C
	"$PSYM" index --index-store "$T/b" big >b.out
	size=$(cut -d' ' -f2 b.out)
	"$PSYM" index --index-store "http://127.0.0.1:$port2/idx" big >full.out 2>full.err
	rc=$?
	check "the index ($size bytes) is larger than the 16 KiB disk" [ "$size" -gt 16384 ]
	check "PUT to a full disk: psym index fails (exit $rc)" [ "$rc" = 1 ]
	check "...with the server's refusal ($(cat full.err))" grep -q "refused: HTTP/1.1 5" full.err
	check "...nginx hit ENOSPC" grep -q "No space left on device" logs/error.log
else
	echo "SKIP part: cannot mount a tmpfs here (not root?): no ENOSPC case"
fi
[ "$n_fail" = 0 ]
