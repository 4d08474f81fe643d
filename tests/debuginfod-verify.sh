#!/bin/sh
# A debuginfod download that psym rejects never stays where elfutils and
# gdb look ($DEBUGINFOD_CACHE_PATH/BUILDID/debuginfo): a server that sends
# another program's debug file, an HTML page, garbage or a stream of zeros
# gets the file checked (ELF, build ID, size) and deleted, with the reason;
# a transfer past --limit debuginfod-bytes is aborted, naming the cap.
# The oracle is eu-addr2line reading the same cache with the server gone:
# before this check it named the other program's function for ours.
. "$top_srcdir/tests/lib.sh"
need python3
need gcc
need eu-addr2line elfutils
FETCH=$top_builddir/tests/debuginfod-fetch
"$FETCH" --built || skip "psym was built without libdebuginfod"
HOME=$T
export HOME

cat >prog.c <<'EOF'
int __attribute__((noinline)) wanted_function(int x) { return x * 3 + 1; }
int main(int argc, char **argv) { (void)argv; return wanted_function(argc); }
EOF
cat >other.c <<'EOF'
int __attribute__((noinline)) planted_function(int x) { return x * 5 + 2; }
int main(int argc, char **argv) { (void)argv; return planted_function(argc); }
EOF
gcc -g -O1 -Wl,--build-id -o prog.full prog.c || { fail "cc prog"; finish; exit 1; }
gcc -g -O1 -Wl,--build-id -o other.full other.c || { fail "cc other"; finish; exit 1; }
objcopy --only-keep-debug prog.full prog.dbg
objcopy --only-keep-debug other.full other.dbg
objcopy --strip-all prog.full prog
bid=$(readelf -n prog | sed -n 's/.*Build ID: //p')
addr=0x$(nm prog.full | sed -n 's/^0*\([0-9a-f]*\) T wanted_function$/\1/p')
[ -n "$bid" ] && [ "$addr" != 0x ] || { fail "no build ID or symbol"; finish; exit 1; }

# A server whose answer for every /buildid/*/debuginfo is chosen by the
# file "mode": good (prog.dbg), wrong (other.dbg), html, garbage,
# zeros (64 MiB streamed without a Content-Length) or bigcl (a
# Content-Length of 64 MiB).
cat >serve.py <<'PY'
import http.server, os, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    def log_message(self, *a): pass
    def do_GET(self):
        mode = open("mode").read().strip()
        if not self.path.endswith("/debuginfo"):
            self.send_error(404); return
        body = {"good": lambda: open("prog.dbg", "rb").read(),
                "wrong": lambda: open("other.dbg", "rb").read(),
                "html": lambda: b"<html><body>404 but 200</body></html>\n" * 20,
                "garbage": lambda: os.urandom(70000)}.get(mode)
        self.send_response(200)
        if mode == "zeros":
            self.end_headers()
            try:
                for _ in range(1024):
                    self.wfile.write(b"\0" * 65536)
            except OSError:
                pass
            return
        if mode == "bigcl":
            self.send_header("Content-Length", str(64 << 20))
            self.end_headers()
            try:
                for _ in range(1024):
                    self.wfile.write(b"\0" * 65536)
            except OSError:
                pass
            return
        data = body()
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open("port.tmp", "w").write(str(s.server_address[1]))
os.rename("port.tmp", "port")
s.serve_forever()
PY
echo good >mode
python3 serve.py &
server=$!
trap 'kill $server 2>/dev/null; cleanup' EXIT INT TERM
i=0; while [ ! -s port ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -s port ] || { fail "the server did not start"; finish; exit 1; }
url=http://127.0.0.1:$(cat port)

# offline_eu: what eu-addr2line says for prog at addr from the cache only
# (the URL points at a closed port, as when the server is gone).
offline_eu() {
	DEBUGINFOD_URLS=http://127.0.0.1:1 DEBUGINFOD_CACHE_PATH=$T/cache \
		timeout 30 eu-addr2line -f -e prog "$addr" 2>/dev/null | head -1
}

# one MODE WANT_REASON [LIMIT]: a fresh cache, one fetch through psym, then
# the checks.
one() {
	mode=$1 want=$2
	echo "$mode" >mode
	rm -rf cache
	DEBUGINFOD_CACHE_PATH=$T/cache timeout 60 "$FETCH" "$url" 20 "$bid" >out 2>&1
	DEBUGINFOD_CACHE_PATH=$T/cache timeout 60 "$PSYM" addr ${3:+--limit "$3"} \
		--debuginfod "$url" -e prog "$addr" >addr.out 2>addr.err
	eu=$(offline_eu)
	if [ "$mode" = good ]; then
		grep -q "^path $T/cache/$bid/debuginfo" out && pass "good: fetched" ||
			fail "good: $(cat out)"
		grep -q wanted_function addr.out && pass "good: psym names wanted_function" ||
			fail "good: psym: $(cat addr.out addr.err)"
		[ "$eu" = wanted_function ] && pass "good: eu-addr2line uses the cached file" ||
			fail "good: eu-addr2line offline said '$eu'"
		return
	fi
	if grep -qF -- "$want" out; then
		pass "$mode: $(cat out)"
	else
		fail "$mode: want '$want': $(cat out)"
	fi
	if [ -e "cache/$bid/debuginfo" ]; then
		fail "$mode: the rejected file stayed in the cache ($(wc -c <"cache/$bid/debuginfo") bytes)"
	else
		pass "$mode: nothing left at cache/BUILDID/debuginfo"
	fi
	if grep -q planted_function addr.out; then
		fail "$mode: psym named the other program's function"
	else
		pass "$mode: psym did not use it: $(head -1 addr.out)"
	fi
	case $eu in
	planted_function) fail "$mode: eu-addr2line served the other program's function from the cache" ;;
	*) pass "$mode: eu-addr2line offline finds nothing wrong ('$eu')" ;;
	esac
}

one good ""
one wrong "has build ID $(readelf -n other.full | sed -n 's/.*Build ID: //p'), not the one asked for"
one html "not an ELF file; removed from the cache"
one garbage "not an ELF file; removed from the cache"

# The cap: the fetch driver uses the default (2 GiB), so the size tests
# run psym itself with a small --limit and check its reason with --explain.
for mode in zeros bigcl; do
	echo $mode >mode
	rm -rf cache
	rc=0
	DEBUGINFOD_CACHE_PATH=$T/cache timeout 60 "$PSYM" addr --limit debuginfod-bytes=4M \
		--debuginfod "$url" -e prog "$addr" >addr.out 2>addr.err || rc=$?
	if grep -qF "over the cap of 4194304 bytes (--limit debuginfod-bytes=N)" addr.out addr.err; then
		pass "$mode: aborted at the cap: $(grep -hF 'over the cap' addr.out addr.err | head -1)"
	else
		fail "$mode: no cap in: $(head -c 600 addr.out addr.err)"
	fi
	n=$(find cache -type f -size +1k 2>/dev/null | wc -l)
	[ "$n" = 0 ] && pass "$mode: no partial file left in the cache" ||
		fail "$mode: $(find cache -type f -size +1k | head -3) left"
done

# A bad file planted in the cache before psym runs (an older psym or
# another tool put it there) is checked and removed too.
mkdir -p "cache/$bid"
cp other.dbg "cache/$bid/debuginfo"
echo good >mode
DEBUGINFOD_CACHE_PATH=$T/cache timeout 60 "$FETCH" "$url" 20 "$bid" >out 2>&1
if grep -q "not the one asked for" out && [ ! -e "cache/$bid/debuginfo" ]; then
	pass "planted: rejected and removed: $(cat out)"
else
	fail "planted: $(cat out); $(ls -la "cache/$bid" 2>&1)"
fi
finish
