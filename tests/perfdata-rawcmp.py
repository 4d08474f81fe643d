#!/usr/bin/env python3
"""Compare psym's perf.data reader record by record with perf's own dump.

usage: perfdata-rawcmp.py PERF-D.txt DUMP.txt

PERF-D.txt: `perf report -D` of a file; DUMP.txt: tests/perfdata-dump of
the same file. The samples (pid, tid, time, IP, period, the callchain as
recorded, markers included, the user registers and stack copy's size), the mappings
(MMAP/MMAP2: pid, start, length, page offset, file) and the comms (pid,
tid, exec, name) must be the same multisets. Exit 1 on any difference.
"""
import collections
import re
import sys


def read_perf(path):
    samples, maps, comms = collections.Counter(), collections.Counter(), collections.Counter()
    cur = None
    srx = re.compile(r"^(\d+ )?(?:\d+ )?0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE\([^)]*\): (-?\d+)/(-?\d+): 0x([0-9a-f]+) period: (\d+)")
    mrx = re.compile(r"PERF_RECORD_MMAP2? (-?\d+)/(-?\d+): \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ (?:0x)?([0-9a-f]+)[^\]]*\]: (\S+) (.*)$")
    crx = re.compile(r"PERF_RECORD_COMM( exec)?: (.*):(-?\d+)/(-?\d+)$")

    def done():
        if cur:
            samples[(cur[0], cur[1], cur[2], cur[3], cur[4], tuple(cur[5]), cur[6], tuple(cur[7]))] += 1

    with open(path, errors="replace") as fp:
        for line in fp:
            line = line.rstrip("\n")
            m = srx.search(line)
            if m:
                done()
                t = int(m.group(1)) if m.group(1) else 0
                cur = [int(m.group(2)), int(m.group(3)), t, int(m.group(4), 16), int(m.group(5)), [], 0, []]
                continue
            if cur is not None:
                c = re.match(r"^\.\.\.\.\.\s+\d+: ([0-9a-f]+)", line)
                if c:
                    cur[5].append(int(c.group(1), 16))
                    continue
                u = re.match(r"^\s*\.\.\. ustack: size (\d+)", line)
                if u:
                    cur[6] = int(u.group(1))
                    continue
                r = re.match(r"^\.\.\.\. \w+\s+0x([0-9a-f]+)$", line)
                if r:
                    cur[7].append(int(r.group(1), 16))
                    continue
                if line.startswith(" ...") or line.startswith("..."):
                    continue
                done()
                cur = None
            m = mrx.search(line)
            if m and "[kernel" not in m.group(7) and int(m.group(1)) != -1:
                maps[(int(m.group(1)), int(m.group(3), 16), int(m.group(4), 16), int(m.group(5), 16), m.group(7))] += 1
                continue
            m = crx.search(line)
            if m:
                comms[(int(m.group(3)), int(m.group(4)), bool(m.group(1)), m.group(2))] += 1
    done()
    return samples, maps, comms


def read_dump(path):
    samples, maps, comms = collections.Counter(), collections.Counter(), collections.Counter()
    with open(path, errors="replace") as fp:
        for line in fp:
            f = line.rstrip("\n").split(" ")
            if f[0] == "S":
                pid, tid = f[2].split("/")
                head, chain = line.split(":", 1)
                h = head.split()
                ch = chain.split("[")[0].split()
                st = re.search(r"stack (\d+)/", line)
                rg = re.search(r"\[regs ([0-9a-f,]*) ", line)
                regs = tuple(int(x, 16) for x in rg.group(1).split(",") if x) if rg else ()
                samples[(int(pid), int(tid), int(h[3]), int(h[6], 16), int(h[5]), tuple(int(x, 16) for x in ch), int(st.group(1)) if st else 0, regs)] += 1
            elif f[0] == "M" and int(f[1]) != -1:
                maps[(int(f[1]), int(f[2], 16), int(f[3], 16), int(f[4], 16), " ".join(f[7:]))] += 1
            elif f[0] == "C":
                pid, tid = f[1].split("/")
                comms[(int(pid), int(tid), f[2] == "1", " ".join(f[3:]))] += 1
    return samples, maps, comms


def main():
    perf, mine = read_perf(sys.argv[1]), read_dump(sys.argv[2])
    bad = 0
    for what, a, b in zip(("samples", "mappings", "comms"), perf, mine):
        print("%s: perf %d, psym %d, same %d" % (what, sum(a.values()), sum(b.values()), sum((a & b).values())))
        if a != b:
            bad = 1
            for k, n in list((a - b).items())[:3]:
                print("  perf only x%d: %s" % (n, str(k)[:300]))
            for k, n in list((b - a).items())[:3]:
                print("  psym only x%d: %s" % (n, str(k)[:300]))
    if not sum(perf[0].values()):
        print("FAIL: perf dumped no samples")
        return 1
    return bad


if __name__ == "__main__":
    sys.exit(main())
