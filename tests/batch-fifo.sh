#!/bin/sh
# A manifest line whose input or output is a FIFO (or a socket) used to
# block the whole batch forever: the FIFO was opened as cat(1) opens one,
# waiting for a writer (input) or a reader (output) that never comes, and
# the other lines were never done (found by bench/mutate-stores, reader
# "manifest"). Now such a line fails alone, its results line and stderr
# naming the file, and the regular lines are written; their outputs agree
# with llvm-symbolizer. The run is bounded by timeout(1) only to turn a
# hang into a failure, not to time it.
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need readelf
need nm
need llvm-symbolizer

cat >v.c <<'C'
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * 7; return s; }
int main(int argc, char **argv) { (void)argv; return alpha(argc) & 1; }
C
gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -o bin v.c || { fail "cannot build"; exit 1; }
python3 "$top_srcdir/tests/genbatch.py" in 2 bin >manifest
mkdir out
mkfifo in.fifo out.fifo
python3 - <<'PY'
import socket
s = socket.socket(socket.AF_UNIX)
s.bind("in.sock")
s.close()
PY
{
	cat manifest
	printf 'in.fifo\tout/f.pb\n'
	printf 'in/p00000.pb\tout.fifo\n'
	printf 'in.sock\tout/s.pb\n'
} >m
rc=0
timeout 120 "$PSYM" symbolize -j 1 --offline --no-index-build --manifest m --results r.jsonl \
	2>run.log || rc=$?
check "the batch ends, exit 2 for the refused lines ($rc)" [ "$rc" = 2 ]
check "summary: 2 of 5 written, 3 failed" grep -q "2/5 profiles written, 3 failed" run.log
check "the FIFO input is named" grep -q "'in.fifo': the input is a FIFO" run.log
check "the FIFO output with no reader is named" grep -q "'out.fifo': the output is a FIFO with no reader" run.log
check "the socket input is named" grep -q "'in.sock': the input is a socket" run.log
python3 - <<'PY' >st.txt
import json
for l in open("r.jsonl"):
    o = json.loads(l)
    print(o["line"], o["status"])
PY
check "results: lines 1-2 ok, 3-5 failed" [ "$(sort -n st.txt | tr '\n' ' ')" = "1 ok 2 ok 3 failed 4 failed 5 failed " ]
check "output 1 agrees with llvm-symbolizer" llvm_agree out/p00000.pb bin
check "output 2 agrees with llvm-symbolizer" llvm_agree out/p00001.pb bin
check "nothing written for the FIFO and socket lines" [ ! -e out/f.pb ] && [ ! -e out/s.pb ]
finish
