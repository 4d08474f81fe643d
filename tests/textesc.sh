#!/bin/sh
# The two escapes of textesc.h on 5,000 random byte strings (biased to
# UTF-8 lead and continuation bytes, control characters, quotes and
# backslashes) against Python: the JSON string decodes as strict UTF-8
# JSON to exactly what Python's UTF-8 decoder makes of the bytes with
# errors="replace" (one U+FFFD per maximal invalid subpart, as LLVM's
# JSON writer too), and the text escape is the bytes with each C0 control
# and DEL written \n, \r, \t or \xHH and nothing else changed.
. "$top_srcdir/tests/lib.sh"
need python3

python3 - >in.hex <<'PY'
import random
r = random.Random(53)
pool = [0x00 + i for i in range(1, 0x20)] + [0x22, 0x5c, 0x7f, 0x41, 0x7a] + \
    list(range(0x80, 0xc2, 7)) + list(range(0xc2, 0xf5)) + [0xf5, 0xfe, 0xff] + \
    list(range(0x80, 0xc0))
for _ in range(5000):
    n = r.randrange(0, 12)
    b = bytes(r.choice(pool) if r.random() < 0.8 else r.randrange(1, 256) for _ in range(n))
    if b"\n" in b:
        b = b.replace(b"\n", b"\x0b")
    print(b.hex())
PY
"$top_builddir/tests/textesc-run" <in.hex >out.txt
check "5,000 strings: JSON = Python's UTF-8 decoding with U+FFFD; text escape = the rule" python3 - <<'PY'
import json, re, sys
ins = [bytes.fromhex(l.strip()) for l in open("in.hex")]
out = open("out.txt", "rb").read().split(b"\n")
bad = 0
for i, b in enumerate(ins):
    js, tx = out[2 * i], out[2 * i + 1]
    want = b.decode("utf-8", "replace")
    got = json.loads(js.decode("utf-8"))   # strict: raises on invalid UTF-8
    esc = re.sub(rb"[\x00-\x1f\x7f]", lambda m: {10: b"\\n", 13: b"\\r", 9: b"\\t"}.get(
        m.group(0)[0], b"\\x%02x" % m.group(0)[0]), b)
    if got != want or tx != esc:
        bad += 1
        if bad < 5:
            print(b.hex(), ascii(got), ascii(want), tx, esc)
sys.exit(1 if bad else 0)
PY
finish
