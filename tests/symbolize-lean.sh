#!/bin/sh
# psym symbolize keeps what it does not change as it was (the lean profile,
# doc/DESIGN.md): every sample's bytes, fields of the profile and of a
# location that psym does not know, is_folded, Lines a location came with
# (replaced only with --force), a location without a mapping; samples
# written the long way (location ids not packed) stay readable. The input is
# made byte by byte here; the output is read back by a decoder of the wire
# format written here too, by protoc --decode_raw and by go tool pprof, and
# its new Lines are checked against llvm-symbolizer.
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need protoc
need llvm-symbolizer

cat >a.c <<'C'
static inline __attribute__((always_inline)) int sq(int x) { return x * x + 1; }
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
__attribute__((noinline)) int beta(int n) { return alpha(n) * 3 + sq(n); }
int main(int argc, char **argv) { (void)argv; return beta(argc) & 1; }
C
gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -o a a.c

# The wire format, both ways: enough of it to write a profile and to read
# one back field by field (unknown fields included).
cat >wire.py <<'PY'
def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append(v & 0x7f | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)

def f_varint(num, v):
    return varint(num << 3) + varint(v)

def f_bytes(num, b):
    return varint(num << 3 | 2) + varint(len(b)) + b

def fields(buf):
    """[(number, wire type, value)]: value an int, or the bytes of a LEN field."""
    out, i = [], 0
    def rd(i):
        x = s = 0
        while True:
            b = buf[i]; i += 1
            x |= (b & 0x7f) << s; s += 7
            if b < 0x80:
                return x, i
    while i < len(buf):
        tag, i = rd(i)
        num, wt = tag >> 3, tag & 7
        if wt == 0:
            v, i = rd(i)
        elif wt == 2:
            n, i = rd(i)
            v = bytes(buf[i:i + n]); i += n
        elif wt == 1:
            v = bytes(buf[i:i + 8]); i += 8
        else:
            v = bytes(buf[i:i + 4]); i += 4
        out.append((num, wt, v))
    return out
PY

nm a | awk '$2 == "T" && ($3 == "alpha" || $3 == "beta" || $3 == "main") {print $1}' >funcs
python3 - <<'PY'
import os, sys
sys.path.insert(0, ".")
from wire import *
funcs = [int(l, 16) for l in open("funcs")]
strings = ["", "samples", "count", "pid", os.path.abspath("a"), "preexisting", "x.c", "thread"]
S = {s: i for i, s in enumerate(strings)}
p = b""
p += f_bytes(1, f_varint(1, S["samples"]) + f_varint(2, S["count"]))
# Locations 1..12: plain ones at code addresses of alpha, beta and main.
addrs = [f + d for f in funcs for d in (0, 1, 2, 4)]
locs = []
for i, a in enumerate(addrs):
    locs.append(f_varint(1, i + 1) + f_varint(2, 1) + f_varint(3, a))
n = len(locs)
# 13: is_folded; 14: a field psym does not know (9); 15: came with a Line;
# 16: no mapping at all.
locs.append(f_varint(1, n + 1) + f_varint(2, 1) + f_varint(3, addrs[1]) + f_varint(5, 1))
locs.append(f_varint(1, n + 2) + f_varint(2, 1) + f_varint(3, addrs[5]) + f_varint(9, 5))
locs.append(f_varint(1, n + 3) + f_varint(2, 1) + f_varint(3, addrs[6]) +
            f_bytes(4, f_varint(1, 1) + f_varint(2, 77)))
locs.append(f_varint(1, n + 4) + f_varint(3, 0x1234))
# Samples: packed ids with a string and a number label; one written the
# long way (each location id its own field); one with a field psym does not know.
samples = []
for k in range(len(locs)):
    ids = [k + 1, (k + 1) % len(locs) + 1]
    samples.append(f_bytes(1, b"".join(varint(x) for x in ids)) + f_bytes(2, varint(k + 1)) +
                   f_bytes(3, f_varint(1, S["pid"]) + f_varint(3, 4242)) +
                   f_bytes(3, f_varint(1, S["thread"]) + f_varint(2, S["x.c"])))
samples.append(f_varint(1, 1) + f_varint(1, 2) + f_varint(1, 3) + f_bytes(2, varint(9)))
samples.append(f_bytes(1, varint(4)) + f_bytes(2, varint(1)) + f_varint(12, 33))
for s in samples:
    p += f_bytes(2, s)
p += f_bytes(3, f_varint(1, 1) + f_varint(2, 0x400000) + f_varint(3, 0x500000) +
             f_varint(5, S[os.path.abspath("a")]))
for l in locs:
    p += f_bytes(4, l)
p += f_bytes(5, f_varint(1, 1) + f_varint(2, S["preexisting"]) + f_varint(4, S["x.c"]))
for s in strings:
    p += f_bytes(6, s.encode())
# Top-level fields psym does not know: a number and bytes.
p += f_varint(100, 7) + f_bytes(101, b"xyz")
open("in.pb", "wb").write(p)
PY

check "psym symbolize reads and writes the hand-made profile" "$PSYM" symbolize -q --offline in.pb -o out.pb
check "psym symbolize --force too" "$PSYM" symbolize -q --offline --force in.pb -o force.pb
check "protoc --decode_raw reads the output" sh -c "gzip -dc out.pb | protoc --decode_raw >raw.txt"
check "protoc --decode reads the output" sh -c "gzip -dc out.pb | protoc --proto_path='$PROTO_DIR' --decode=perftools.profiles.Profile profile.proto >dec.txt"

cat >cmp.py <<'PY'
import gzip, sys
sys.path.insert(0, ".")
from wire import *
src = fields(open("in.pb", "rb").read())
out = fields(gzip.open(sys.argv[1]).read())
force = sys.argv[2] == "force"
bad = []
def top(fs, num):
    return [v for n, w, v in fs if n == num]
# Everything but locations, functions and strings is what it was, in order.
for num in (1, 2, 3, 100, 101):
    a, b = top(src, num), top(out, num)
    if num == 3:  # the mapping gains its has_* flags
        a = [fields(x) for x in a]
        b = [[f for f in fields(x) if f[0] < 7] for x in b]
    if a != b:
        bad.append("field %d differs" % num)
inloc = {dict((n, v) for n, w, v in fields(x))[1]: fields(x) for x in top(src, 4)}
outloc = {dict((n, v) for n, w, v in fields(x))[1]: fields(x) for x in top(out, 4)}
if sorted(inloc) != sorted(outloc) or [dict((n, v) for n, w, v in fields(x))[1] for x in top(out, 4)] != [dict((n, v) for n, w, v in fields(x))[1] for x in top(src, 4)]:
    bad.append("location ids or their order differ")
n = len(inloc)
for i, f in inloc.items():
    g = outloc[i]
    keep_in = [x for x in f if x[0] != 4]
    keep_out = [x for x in g if x[0] != 4]
    if keep_in != keep_out:
        bad.append("location %d: fields other than Lines differ: %s vs %s" % (i, keep_in, keep_out))
    lines_in = [x for x in f if x[0] == 4]
    lines_out = [x for x in g if x[0] == 4]
    if lines_in and not force and lines_in != lines_out:
        bad.append("location %d: its Lines were not kept" % i)
    if i == n:  # no mapping: nothing to give it
        if lines_out:
            bad.append("location %d without a mapping got Lines" % i)
    elif not lines_out:
        bad.append("location %d got no Lines" % i)
    elif lines_in and force and lines_in == lines_out:
        bad.append("location %d: --force kept its old Lines" % i)
print("\n".join(bad) if bad else "all kept")
sys.exit(1 if bad else 0)
PY
check "samples, mapping, unknown fields, is_folded, kept Lines survive" python3 cmp.py out.pb keep
check "with --force only the Lines change" python3 cmp.py force.pb force
check "the new Lines agree with llvm-symbolizer (--force: every location)" llvm_agree force.pb a
check "protoc reads all 18 samples, the one written the long way with its 3 locations" sh -c "[ \"\$(grep -c '^sample {' dec.txt)\" = 18 ] && awk '/^sample \\{/ {n++} n == 17 && /location_id/ {c++} END {exit c != 3}' dec.txt"
if command -v go >/dev/null; then
	check "go tool pprof reads the output" sh -c "go tool pprof -raw out.pb >pprof.txt 2>&1 && grep -q alpha pprof.txt"
fi
# A second symbolize of the output keeps every Line it got, byte for byte.
check "symbolizing the output again changes nothing" sh -c "\"$PSYM\" symbolize -q --offline out.pb -o again.pb && gzip -dc out.pb >o.raw && gzip -dc again.pb >a.raw && cmp -s o.raw a.raw"
finish
