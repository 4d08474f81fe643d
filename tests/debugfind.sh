#!/bin/sh
# Separate debug files: .build-id trees, .gnu_debuglink with CRC (and a
# wrong-CRC file rejected), a real debuginfod server on 127.0.0.1, a server
# that is down (answer within the timeout), --offline.
. "$top_srcdir/tests/lib.sh"
need gcc
need objcopy
need python3
L=$top_builddir/tests/debug-lookup

cat >prog.c <<'C'
int work(int x) { return x * 3 + 1; }
int main(void) { return work(2) == 7 ? 0 : 1; }
C
gcc -g -O1 -Wl,--build-id -o prog.full prog.c
bid=$(readelf -n prog.full | sed -n 's/.*Build ID: //p')
dd=${bid%"${bid#??}"}
objcopy --only-keep-debug prog.full prog.debug
mkdir -p bin dbg/.build-id/$dd
objcopy --strip-debug --add-gnu-debuglink=prog.debug prog.full bin/prog
cp prog.debug dbg/.build-id/$dd/${bid#??}.debug
crc=$(python3 -c "import zlib,sys; print('%08x' % zlib.crc32(open('prog.debug','rb').read()))")
# The debuglink section's CRC is what objcopy computed: read it back (oracle: objdump).
link_crc=$(objdump -s -j .gnu_debuglink bin/prog | awk 'NR>4{for(i=2;i<=5;i++) printf "%s", $i}' | python3 -c "
import sys,binascii
b=binascii.unhexlify(sys.stdin.read().strip()[:]) ; n=b.index(b'\0'); off=(n+4)&~3
print('%08x' % int.from_bytes(b[off:off+4],'little'))")
check "objcopy's debuglink CRC equals zlib's CRC of the file" [ "$crc" = "$link_crc" ]

out=$("$L" -d dbg "$bid")
check "found through .build-id" [ "$out" = "local: dbg/.build-id/$dd/${bid#??}.debug" ]
out=$("$L" -d nowhere -b bin/prog -l prog.debug -c "$crc" "$bid" 2>&1 || true)
check "not found in the binary's dir (not there yet)" sh -c "echo '$out' | grep -q '^none'"
cp prog.debug bin/prog.debug
out=$("$L" -d nowhere -b bin/prog -l prog.debug -c "$crc" -)
check "found through debuglink in the binary's dir (CRC)" [ "$out" = "local: bin/prog.debug" ]
rm bin/prog.debug && mkdir -p bin/.debug && cp prog.debug bin/.debug/
out=$("$L" -d nowhere -b bin/prog -l prog.debug -c "$crc" -)
check "found through debuglink in .debug/" [ "$out" = "local: bin/.debug/prog.debug" ]
rm -r bin/.debug && mkdir -p "gdbdir$T/bin" && cp prog.debug "gdbdir$T/bin/"
out=$("$L" -d "$T/gdbdir" -b "$T/bin/prog" -l prog.debug -c "$crc" -)
check "found through DEBUGDIR/<binary's dir>/" [ "$out" = "local: $T/gdbdir$T/bin/prog.debug" ]
# A debug file with the right name but other contents: CRC rejects it.
gcc -g -O0 -o other prog.c -Wl,--build-id=none && objcopy --only-keep-debug other bin/prog.debug
out=$("$L" -x -d nowhere -b bin/prog -l prog.debug -c "$crc" - || true)
check "wrong-CRC debuglink file rejected" sh -c "echo '$out' | grep -q 'rejected: CRC'"
# A build-id tree file whose build ID differs is rejected.
mkdir -p bad/.build-id/$dd && cp other bad/.build-id/$dd/${bid#??}.debug
gcc -g -O0 -o other2 prog.c -Wl,--build-id=sha1 -DX=1 -Wl,-z,norelro && cp other2 bad/.build-id/$dd/${bid#??}.debug
out=$("$L" -x -d bad "$bid" || true)
check "mismatching build ID rejected" sh -c "echo '$out' | grep -q 'rejected: build ID'"
# A debug file without any build ID in the tree of a binary that has one:
# another program's DWARF would give silently wrong answers. Rejected.
mkdir -p nobid/.build-id/$dd && cp other nobid/.build-id/$dd/${bid#??}.debug
out=$("$L" -x -d nobid "$bid" || true)
check "a build-ID tree file without a build ID is rejected" sh -c "echo '$out' | grep -q 'rejected: the file has no build ID'"
check "... and not used" sh -c "echo '$out' | grep -q '^none'"
out=$("$L" -x -d dbg -b bin/prog -l ../../etc/passwd -c 0 - || true)
check "a debuglink with a path is never followed" sh -c "echo '$out' | grep -q 'not a plain file name'"
out=$("$L" -d dbg "../../etc" || true)
check "a non-hex build ID never becomes a path" sh -c "echo '$out' | grep -q '^none'"

# debuginfod: a real server on loopback indexing a directory of binaries.
if ! command -v debuginfod >/dev/null; then
	echo "SKIP part: debuginfod server not installed (Debian package debuginfod)"
	finish; exit $?
fi
mkdir -p served && cp prog.full served/prog
start_debuginfod served "$bid" || { cat "$T"/debuginfod-*.log; fail "debuginfod did not index in time"; }
out=$("$L" -u "$url" -C "$T/dcache" "$bid")
check "debuginfod: debug file fetched" sh -c "echo '$out' | grep -q '^debuginfod: $T/dcache/'"
f=${out#debuginfod: }
check "debuginfod: fetched file has the right build ID" sh -c "readelf -n '$f' | grep -q '$bid'"
out=$("$L" -E -u "$url" -C "$T/dcache" "$bid")
check "debuginfod: executable fetched" sh -c "echo '$out' | grep -q '^debuginfod: '"
out=$("$L" -u "$url" -C "$T/dcache" 0123456789abcdef0123456789abcdef01234567 || true)
check "debuginfod: unknown build ID gives a reason" sh -c "echo '$out' | grep -q 'none: debuginfod: not found'"
out=$("$L" -o -u "$url" -C "$T/dcache2" "$bid" || true)
check "--offline never asks" sh -c "echo '$out' | grep -q 'offline'"
kill $server; wait $server 2>/dev/null
start=$(date +%s)
out=$(DEBUGINFOD_URLS=$url "$L" -t 3 -C "$T/dcache3" "$bid" || true)
took=$(( $(date +%s) - start ))
check "server down: reason given ($out)" sh -c "echo '$out' | grep -q '^none: debuginfod'"
check "server down: answered, not hung (${took}s)" [ "$took" -lt 60 ]
# A server that accepts connections and never answers: the timeout holds.
port2=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $port2)); s.listen(8)
open('mute.ready', 'w').close()
conns = []
end = time.time() + 600
while time.time() < end:
    s.settimeout(1)
    try: conns.append(s.accept()[0])
    except OSError: pass
" &
mute=$!
# Wait until it listens (a loaded machine may take a while to start python).
i=0
while [ ! -e mute.ready ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
start=$(date +%s)
out=$("$L" -u "http://127.0.0.1:$port2" -t 3 -C "$T/dcache4" "$bid" || true)
took=$(( $(date +%s) - start ))
kill $mute 2>/dev/null
check "silent server: reason names the deadline ($out)" sh -c "echo '$out' | grep -q '^none: debuginfod deadline (3 s) passed'"
check "silent server: ended by the deadline, not by the server's 600 s (${took}s for 3s)" [ "$took" -lt 120 ]
finish
