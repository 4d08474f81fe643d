#!/usr/bin/env python3
"""Large profiles for bench/reports (stdlib only).

  genreport.py csrc OUT.c NFUNC          C source: NFUNC functions with inlined helpers
  genreport.py pprof BINARY OUT.pb.gz NLOC NSAMPLE SEED
      unsymbolized pprof of a non-PIE BINARY: NLOC unique addresses inside its
      FUNC symbols as locations, NSAMPLE samples with stacks 4-40 deep
      (callers drawn from a smaller set, so stacks share prefixes like real
      ones), values cpu/nanoseconds and samples/count.
"""
import gzip, os, random, subprocess, sys


def csrc(out, nfunc):
    with open(out, "w") as f:
        f.write("volatile int sink;\n")
        for i in range(nfunc):
            f.write("static inline __attribute__((always_inline)) int h%d(int x)\n"
                    "{ for (int k = 0; k < (x & 7); k++) sink += x * %d + k; return x ^ %d; }\n"
                    % (i, i + 3, i))
            f.write("__attribute__((noinline)) int f%d(int x)\n{\n" % i)
            for k in range(6):
                f.write("  if (x & %d) x = h%d(x + %d); else sink += x * %d;\n"
                        % (1 << k, i, k, k + 1))
            f.write("  return x;\n}\n")
        f.write("int main(int c, char **v) { (void)v; int s = 0;\n")
        f.write("  int (*fs[])(int) = {%s};\n" % ", ".join("f%d" % i for i in range(nfunc)))
        f.write("  for (int i = 0; i < %d; i++) s += fs[i](c + i);\n  return s & 1; }\n" % nfunc)


def varint(v):
    b = bytearray()
    while v >= 0x80:
        b.append((v & 0x7F) | 0x80)
        v >>= 7
    b.append(v)
    return bytes(b)


def field(num, payload):  # length-delimited
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def vfield(num, v):
    return varint(num << 3) + varint(v)


def build_id(binary):
    out = subprocess.run(["readelf", "-n", binary], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    return ""


def pprof(binary, out, nloc, nsample, seed):
    r = random.Random(seed)
    syms = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True,
                          text=True).stdout
    ranges = []
    for line in syms.splitlines():
        w = line.split()
        if len(w) == 4 and w[2] in "tT" and int(w[1], 16) > 0:
            ranges.append((int(w[0], 16), int(w[1], 16)))
    span = sum(n for _, n in ranges)
    if span < nloc:
        sys.exit("genreport.py: %s has %d bytes of functions, fewer than %d addresses"
                 % (binary, span, nloc))
    addrs = set()
    while len(addrs) < nloc:
        a, n = r.choice(ranges)
        addrs.add(a + r.randrange(n))
    addrs = sorted(addrs)
    strings = ["", "samples", "count", "cpu", "nanoseconds", os.path.abspath(binary), build_id(binary)]
    parts = [field(1, vfield(1, 1) + vfield(2, 2)), field(1, vfield(1, 3) + vfield(2, 4))]
    ids = list(range(1, nloc + 1))
    callers = ids[: max(1, nloc // 50)]  # a smaller set of callers: shared prefixes
    for _ in range(nsample):
        depth = r.randrange(4, 41)
        stack = [r.choice(ids)] + [r.choice(callers) for _ in range(depth - 1)]
        n = r.randrange(1, 10)
        locs = b"".join(varint(x) for x in stack)
        vals = varint(n) + varint(n * 10000000)
        parts.append(field(2, field(1, locs) + field(2, vals)))
    parts.append(field(3, vfield(1, 1) + vfield(2, 0x400000) + vfield(3, 0x400000 + (1 << 32))
                       + vfield(4, 0) + vfield(5, 5) + vfield(6, 6)))
    for i, a in enumerate(addrs, 1):
        parts.append(field(4, vfield(1, i) + vfield(2, 1) + vfield(3, a)))
    for s in strings:
        parts.append(field(6, s.encode()))
    parts.append(field(11, vfield(1, 3) + vfield(2, 4)) + vfield(12, 10000000))
    with gzip.open(out, "wb", compresslevel=1) as f:
        f.write(b"".join(parts))


if __name__ == "__main__":
    if sys.argv[1] == "csrc":
        csrc(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "pprof":
        pprof(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
    else:
        sys.exit(__doc__)
