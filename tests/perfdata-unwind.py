#!/usr/bin/env python3
"""Compare the physical frames psym unwound from a perf.data with perf's.

usage: perfdata-unwind.py [--ustack DUMP] [--through FILE]... PERF.txt
       PROFILE.txt MIN_PERCENT [MAX_OTHER]

PERF.txt: `perf script --no-inline -F comm,pid,tid,time,ip,sym,symoff,dso`
of a --call-graph dwarf recording (perf's own unwinding, one line per
physical frame); PROFILE.txt: `protoc --decode` of the profile psym
symbolize wrote from the same file. Each sample becomes (comm, pid, tid,
its frames), a frame being (file, address in the file's own terms, as
objdump and perf show it; the kernel's as it is, its callers' return
addresses - 1 as the profile records them). Inline frames play no part
(perfdata-lines.py checks them against llvm-symbolizer); names neither.

Every perf sample psym has no equal of is paired with psym's sample of
the same thread and leaf that shares the most frames, and classified; a
class is explained only by a reason checked here:

  copy-end      perf's frames are psym's and one more, a return address
                of 0 (perf prints ffffffffffffffff [unknown]), and the
                sample's stack copy is full (DUMP: `perf report -D`'s
                SAMPLE and "ustack: size" lines): the stack went on past
                the copy; perf read the next return address as 0, psym
                stopped (out-of-stack).
  copy-last-word  perf's frames are psym's but the last, which is a zero
                return address for perf, in a full copy: psym's last return
                address follows a call instruction (objdump). Why (not
                checked here: the profile keeps no stack pointer): it is
                the copy's last 8 bytes, which perf's libunwind access_mem
                refuses (addr + 8 >= end) and reads as 0.
  perf-stopped  psym's frames are perf's and more: each further return
                address follows a call instruction (objdump) and the last
                frame is a thread's root (_start, clone3, start_thread).
  other         anything else: unexplained.

Samples that entered the kernel from user code (kernel frames above user
frames) may not differ unexplained at all: they are few.
--through FILE: the samples psym unwound through FILE's own CFI (a frame
in FILE with a caller) are counted, and some must agree with perf's.
Exit 1 when fewer than MIN_PERCENT of perf's samples agree or are
explained, or more than MAX_OTHER percent (default 1) are unexplained.
"""
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module  # noqa: E402

lines = import_module("perfdata-lines")
KERNEL = "[kernel]"
# perf's frame for a return address of 0 (0 - 1): a read past its stack copy.
ZERO_RA = 0xFFFFFFFFFFFFFFFF
# Where a thread's stack begins: a stack that ends in one of these is whole.
ROOTS = ("_start", "__clone3", "clone3", "__clone", "clone", "start_thread")


def dso_key(name):
    if name.startswith("[kernel") or name.startswith("[guest.kernel"):
        return KERNEL
    return os.path.basename(name) if name.startswith("/") else name


def read_perf(path):
    out = []
    hdr = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+(\d+)\.(\d{6}):\s*$")
    frame = re.compile(r"^\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)$")
    head, frames, names, when = None, [], {}, None
    with open(path, errors="replace") as fp:
        for line in fp:
            line = line.rstrip("\n")
            m = hdr.match(line)
            if m:
                head, frames = (m.group(1), int(m.group(2)), int(m.group(3))), []
                when = (int(m.group(3)), int(m.group(4)) * 1000000 + int(m.group(5)))
                continue
            if not line.strip():
                if head:
                    out.append((head + (tuple(frames),), when))
                head = None
                continue
            f = frame.match(line)
            if head and f:
                key = (dso_key(f.group(3)), int(f.group(1), 16))
                # A kernel caller: perf prints the return address, psym
                # records it - 1 (the profile's rule, in its comment).
                if key[0] == KERNEL and frames:
                    key = (KERNEL, key[1] - 1)
                frames.append(key)
                names[key] = f.group(2)
    if head:
        out.append((head + (tuple(frames),), when))
    return out, names


def read_ustack(path):
    """(tid, time in us) -> the size of the sample's stack copy, from perf report -D."""
    out, key = {}, None
    hdr = re.compile(r"^(\d+) 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE.*?: (\d+)/(\d+):")
    with open(path, errors="replace") as fp:
        for line in fp:
            m = hdr.match(line)
            if m:
                key = (int(m.group(3)), int(m.group(1)) // 1000)
                continue
            m = re.match(r"^\.\.\. ustack: size (\d+)", line)
            if m and key:
                out[key] = int(m.group(1))
                key = None
    return out


def read_psym(path):
    prof = lines.parse(path)
    strs = prof["string_table"]
    one = lambda d, k: d.get(k, [0])[0]  # noqa: E731
    segs, maps = {}, {}
    for m in prof.get("mapping", []):
        fn = strs[one(m, "filename")]
        if fn.startswith("/") and os.path.isfile(fn) and fn not in segs:
            segs[fn] = lines.loads(fn)
        maps[one(m, "id")] = (fn, one(m, "memory_start"), one(m, "file_offset"))
    locs = {}
    for loc in prof.get("location", []):
        addr = one(loc, "address")
        m = maps.get(one(loc, "mapping_id"))
        if m is None:
            locs[one(loc, "id")] = ("[unknown]", addr)
            continue
        fn, start, off = m
        if dso_key(fn) == KERNEL:
            locs[one(loc, "id")] = (KERNEL, addr)
            continue
        foff = addr - start + off
        va = [foff - o + v for (o, v, sz) in segs.get(fn, []) if o <= foff < o + sz]
        locs[one(loc, "id")] = (dso_key(fn), va[0] if va else foff)
    out = []
    for s in prof.get("sample", []):
        lab = {}
        for lb in s.get("label", []):
            k = strs[one(lb, "key")]
            lab[k] = strs[one(lb, "str")] if "str" in lb else one(lb, "num")
        n = s["value"][0]
        frames = tuple(locs[i] for i in s.get("location_id", []))
        out += [(lab.get("comm", ""), lab.get("pid", -1), lab.get("tid", -1), frames)] * n
    return out


DIS = {}


def after_call(path, addr):
    """addr + 1 (a return address) follows a call instruction in path (objdump)."""
    ra = addr + 1
    if (path, ra) not in DIS:
        DIS[(path, ra)] = False
        # Every start up to 15 bytes before (x86's longest instruction):
        # a call there, and the next instruction at ra itself.
        for back in range(2, 16):
            out = subprocess.run(
                ["objdump", "-d", "--no-show-raw-insn", "--start-address=0x%x" % (ra - back),
                 "--stop-address=0x%x" % (ra + 1), path],
                capture_output=True, text=True).stdout
            ins = re.findall(r"^\s+([0-9a-f]+):\s+(.*)$", out, re.M)
            if (len(ins) == 2 and int(ins[1][0], 16) == ra and re.match(r"call", ins[0][1])):
                DIS[(path, ra)] = True
                break
    return DIS[(path, ra)]


def name_of(frame, names, paths):
    if frame in names:
        return names[frame]
    path = paths.get(frame[0])
    if not path:
        return "?"
    out = subprocess.run(["addr2line", "-f", "-e", path, "0x%x" % frame[1]], capture_output=True, text=True).stdout
    return out.split("\n")[0] if out else "?"


def classify(p, q, copy, full, names, paths):
    """perf's frames p against psym's q (one sample, its stack copy copy bytes): (class, reason)."""
    n = 0
    while n < min(len(p), len(q)) and p[n] == q[n]:
        n += 1
    if n == len(q) and p[n:] == (("[unknown]", ZERO_RA),):
        if copy != full:
            return "other", "perf's last frame is a zero return address, but the copy is %s of %d bytes" % (copy, full)
        return "copy-end", (
            "the stack copy is full (%d bytes) and ends inside the stack: perf reads the next return "
            "address as 0 (its frame ffffffffffffffff, [unknown]), psym stops (out-of-stack)" % full)
    if p[n:] == (("[unknown]", ZERO_RA),) and len(q) == n + 1:
        path = paths.get(q[n][0])
        if copy != full or not path or not after_call(path, q[n][1]):
            return "other", "perf's frame %d is a zero return address, psym's %s" % (n, name_of(q[n], names, paths))
        return "copy-last-word", (
            "the stack copy is full (%d bytes): its last 8 bytes hold a return address, which psym reads "
            "(%s, after a call) and perf's libunwind access_mem refuses (addr + 8 >= end) and reads as 0"
            % (full, re.sub(r"\+0x.*", "", name_of(q[n], names, paths))))
    if n == len(p) and n < len(q):
        extra = q[n:]
        for f in extra:
            path = paths.get(f[0])
            if not path or not after_call(path, f[1]):
                return "other", "psym's frame %s+0x%x does not follow a call" % f
        root = re.sub(r"[@+].*$", "", name_of(extra[-1], names, paths))
        if root not in ROOTS:
            return "other", "psym's last frame %s is not a thread's root" % root
        return "perf-stopped", "perf stopped after %d frames (at %s), psym went on to %s" % (
            n, name_of(p[-1], names, paths) if p else "-", root)
    if n == len(q) and n < len(p):
        return "other", "psym stopped after %d frames, perf went on (%s)" % (n, name_of(p[n], names, paths))
    return "other", "frame %d: perf %s, psym %s" % (
        n, name_of(p[n], names, paths) if n < len(p) else "-", name_of(q[n], names, paths) if n < len(q) else "-")


def main():
    args = sys.argv[1:]
    ustack, through = {}, []
    while args[:1] in (["--ustack"], ["--through"]):
        if args[0] == "--ustack":
            ustack = read_ustack(args[1])
        else:
            through.append(args[1])
        args = args[2:]
    perf_path, psym_path, minpct = args[0], args[1], float(args[2])
    maxother = float(args[3]) if len(args) > 3 else 1.0
    perf_list, names = read_perf(perf_path)
    full = max(ustack.values()) if ustack else None
    paths = {}
    with open(perf_path, errors="replace") as fp:
        for m in re.finditer(r"\((/[^)]*)\)$", fp.read(), re.M):
            paths[os.path.basename(m.group(1))] = m.group(1)
    perf = collections.Counter(k for k, _ in perf_list)
    psym = collections.Counter(read_psym(psym_path))
    rc = 0
    # Samples psym unwound through a file's own CFI: a frame of it with a caller.
    for name in through:
        n = sum(c for k, c in psym.items() if any(f[0] == name for f in k[3][:-1]))
        m = sum(c for k, c in psym.items() if any(f[0] == name for f in k[3][:-1]) and perf[k])
        print("samples unwound through %s: %d (%d the same as perf's)" % (name, n, m))
        if not m:
            print("FAIL: no sample unwound through %s agrees with perf" % name)
            rc = 1
    total = sum(perf.values())
    same = sum(min(n, psym[k]) for k, n in perf.items())
    pct = 100.0 * same / total if total else 0.0
    print("samples: perf %d, psym %d; physical frames agreeing: %d (%.2f%%)" % (total, sum(psym.values()), same, pct))
    print("deepest stack: perf %d frames, psym %d" % (max((len(k[3]) for k in perf), default=0),
                                                     max((len(k[3]) for k in psym), default=0)))
    # perf's samples psym has fewer of (the last ones of each stack), with their times.
    left = {k: n - psym[k] for k, n in perf.items() if n > psym[k]}
    ponly = []
    for k, when in reversed(perf_list):
        if left.get(k, 0) > 0:
            left[k] -= 1
            ponly.append((k, when))
    qonly = collections.defaultdict(list)
    for k, n in psym.items():
        for _ in range(n - perf[k]):
            qonly[k[:3] + (k[3][:1],)].append(k[3])
    classes = collections.Counter()
    reasons = collections.defaultdict(collections.Counter)
    # Samples that entered the kernel from user code: their first user
    # frame is the IP itself (a bug once subtracted 1 from it). Few per
    # run, so none of them may differ unexplained.
    entered = lambda k: any(f[0] == KERNEL for f in k[3]) and k[3][-1][0] != KERNEL  # noqa: E731
    entry_total = sum(n for k, n in perf.items() if entered(k))
    entry_bad = 0
    for k, when in ponly:
        cand = qonly.get(k[:3] + (k[3][:1],), [])
        if not cand:
            cls, why = "other", "no psym sample of this thread and leaf left to pair"
        else:
            best = max(range(len(cand)), key=lambda i: sum(1 for a, b in zip(k[3], cand[i]) if a == b))
            q = cand.pop(best)
            cls, why = classify(k[3], q, ustack.get(when), full, names, paths)
        classes[cls] += 1
        reasons[cls][why] += 1
        if cls == "other" and entered(k):
            entry_bad += 1
    for cls, n in classes.most_common():
        print("  %s: %d (%.2f%%)" % (cls, n, 100.0 * n / total))
        for why, m in reasons[cls].most_common(5):
            print("    x%d %s" % (m, why))
    explained = same + sum(n for c, n in classes.items() if c != "other")
    print("agreeing or explained: %d (%.2f%%)" % (explained, 100.0 * explained / total if total else 0.0))
    if total == 0 or 100.0 * explained / total < minpct:
        print("FAIL: fewer than %.2f%% agree or are explained" % minpct)
        rc = 1
    print("samples entering the kernel from user code: %d, unexplained: %d" % (entry_total, entry_bad))
    if entry_bad:
        print("FAIL: a sample that entered the kernel differs unexplained")
        rc = 1
    if total and 100.0 * classes["other"] / total > maxother:
        print("FAIL: more than %.2f%% differ unexplained" % maxother)
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
