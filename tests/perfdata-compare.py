#!/usr/bin/env python3
"""Compare psym's stacks of a perf.data with perf script's.

usage: perfdata-compare.py [--inline] [--file-names ORIG.txt] [--explain [--perf-data FILE]]
       PERF.txt PSYM.txt MIN_PERCENT [FRAMES]

PERF.txt: `perf script -F comm,pid,tid,time,ip,sym,symoff,dso` (callchains);
PSYM.txt: `psym traces --sample-index EVENT_sample` of the symbolized
profile. Each sample becomes (comm, pid, tid, its physical frames' function
names), inline frames dropped on psym's side (perf names the symbol of the
address), names normalized (no return type, template arguments,
parameters, clone suffixes: perf prints the ELF symbol, psym the DWARF
name). FRAMES: compare only the first FRAMES frames of each stack (leaf
first; a --call-graph dwarf unwind may go deeper on one side). The
samples' multisets must agree for at least MIN_PERCENT of perf's samples.
Prints the agreement and the most common differences, and the samples of
classes counted apart (JIT code, perf's end-of-copy mark). --explain: a
difference of --call-graph dwarf unwinds that is perf's, by a rule of
explain(), is counted as explained, with its reason and count; the
agreeing and the explained samples together must reach MIN_PERCENT.
--perf-data: the recording itself (read here, not by psym), which the
second rule of explain() needs.

--file-names ORIG.txt: PERF.txt is perf script of `perf inject --jit`'s
output, ORIG.txt of the recording before it (same samples, same order).
perf inject maps the jitdump's entries over every address they cover,
also code of a file (V8's builtins embedded in node: "Builtin:X" in the
jitdump, "Builtins_X" in node's symbols); there the file's name as perf
itself gives it in ORIG.txt is the same frame's other name.
"""
import bisect
import collections
import os
import re
import struct
import subprocess
import sys


def strip_nested(s, o, c):
    if o not in s:
        return s
    out, depth = [], 0
    for ch in s:
        if ch == o:
            depth += 1
        elif ch == c and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)


def norm(name):
    # No name: perf's [unknown], psym's address or [binary] (a mapping with no symbols).
    if name in ("[unknown]", "<unknown>") or re.match(r"^\[.*\]$", name) or re.match(r"^0x[0-9a-f]+$", name):
        return "?"
    name = re.sub(r"\+0x[0-9a-f]+$", "", name)
    # A PLT slot: perf names it NAME@plt, psym by the function it jumps to.
    name = re.sub(r"@plt$", "", name)
    name = re.sub(r"@@?[A-Za-z_][A-Za-z0-9_.]*$", "", name)  # symbol versions
    name = re.sub(r" \[clone [^]]*\]", "", name)
    name = name.replace("operator()", "operator_call").replace("operator<", "operator_lt")
    name = strip_nested(strip_nested(name, "<", ">"), "(", ")")
    name = re.sub(r"(\s+(const|volatile|&|&&))+\s*$", "", name)
    name = name.split()[-1] if name.split() else name
    return re.sub(r"(\.(cold|part\.\d+|isra\.\d+|constprop\.\d+|lto_priv\.\d+))+$", "", name)


# --inline: inline frames compared too (perf script shows them for --call-graph dwarf).
INLINE = "--inline" in sys.argv
if INLINE:
    sys.argv.remove("--inline")
FILE_NAMES = None
if "--file-names" in sys.argv:
    i = sys.argv.index("--file-names")
    FILE_NAMES = sys.argv[i + 1]
    del sys.argv[i : i + 2]
EXPLAIN = "--explain" in sys.argv
if EXPLAIN:
    sys.argv.remove("--explain")
PERF_DATA = None
if "--perf-data" in sys.argv:
    i = sys.argv.index("--perf-data")
    PERF_DATA = sys.argv[i + 1]
    del sys.argv[i : i + 2]
ALIASES = {}
DSOS = set()
JITTED = re.compile(r"/jitted-\d+-\d+\.so$")


def find(n):
    while ALIASES.get(n, n) != n:
        n = ALIASES[n]
    return n


def add_aliases(path):
    """Names of one address in path (ELF symbols and dynamic ones) made one (union-find)."""
    at = collections.defaultdict(set)
    for args in (["nm", "-C", "--defined-only"], ["nm", "-C", "-D", "--defined-only"]):
        try:
            out = subprocess.run(args + [path], capture_output=True, text=True).stdout
        except OSError:
            return
        for line in out.splitlines():
            f = line.split(None, 2)
            if len(f) == 3 and f[1] in "TtWi":
                at[f[0]].add(norm(f[2]))
    seen = collections.Counter(n for names in at.values() for n in names)
    for names in at.values():
        names = sorted(n for n in names if seen[n] == 1)
        for n in names[1:]:
            a, b = find(names[0]), find(n)
            if a != b:
                ALIASES[max(a, b)] = min(a, b)


def debug_file(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]{2})([0-9a-f]+)", out)
    return "/usr/lib/debug/.build-id/%s/%s.debug" % (m.group(1), m.group(2)) if m else None


def alias(name):
    return find(name)


SYMS = {}
# Signal trampolines (glibc's x86-64 sa_restorer, the kernel's vDSO ones).
SIGRETURN = {"__restore_rt", "__kernel_rt_sigreturn", "__vdso_rt_sigreturn"}


def symbols(dso):
    """dso's function symbols from nm -S (both tables): [(start, size, name)], by address."""
    if dso not in SYMS:
        syms = set()
        files = [dso] if dso.startswith("/") and os.path.isfile(dso) else []
        dbg = debug_file(dso) if files else None
        if dbg and os.path.isfile(dbg):
            files.append(dbg)
        for path in files:
            for args in (["nm", "-C", "-S", "--defined-only"], ["nm", "-C", "-D", "-S", "--defined-only"]):
                out = subprocess.run(args + [path], capture_output=True, text=True).stdout
                for line in out.splitlines():
                    f = line.split(None, 3)
                    if len(f) == 4 and f[2] in "TtWi" and re.match(r"^[0-9a-f]+$", f[1]):
                        syms.add((int(f[0], 16), int(f[1], 16), norm(f[3])))
                    elif len(f) >= 3 and f[1] in "TtWi":  # no size
                        syms.add((int(f[0], 16), 0, norm(line.split(None, 2)[2])))
        syms = sorted(syms)
        by_name = collections.defaultdict(list)
        for a, sz, n in syms:
            by_name[n].append((a, sz))
        SYMS[dso] = (syms, [a for a, sz, n in syms], by_name)
    return SYMS[dso]


def fix(sym, dso, caller, ip):
    """
    perf's name for a frame, checked with nm: a name whose offset is past
    the symbol's size is perf's guess (an address between symbols of a
    stripped file) and counts as no name; a caller whose return address is
    a symbol's first byte called from the symbol before (psym looks up
    the return address - 1, perf the return address), except a signal
    trampoline, which a handler returns into at its first byte. ip: the frame's
    address as perf prints it (the file's own for files).
    """
    m = re.match(r"^(.*)\+0x([0-9a-f]+)$", sym)
    # perf inject --jit's one-symbol files: the name is the jitdump's, its size exact.
    if not m or not dso.startswith("/") or JITTED.search(dso):
        return norm(sym)
    name, off = m.group(1), int(m.group(2), 16)
    syms, starts, by_name = symbols(dso)
    # perf prints the address in the file's terms: its symbol starts at ip - off.
    start = ip - off
    named = by_name.get(norm(name), [])
    at = [x for x in named if x[0] == start]
    # A file linked at a base (non-PIE): perf's address is relative to it.
    if not at and len(named) == 1:
        at, start = named, named[0][0]
    if not at:
        return norm(sym)
    size = max(sz for a, sz in at)
    if size and off >= size:
        return "?"
    # A signal trampoline is entered by the handler's return, at its first byte.
    if caller and off == 0 and norm(name) not in SIGRETURN:
        i = bisect.bisect_right(starts, start - 1)
        if not i:
            return "?"
        a, sz, n = syms[i - 1]
        return "?" if sz and start - 1 >= a + sz else n
    return norm(sym)


END_MARK = 0xFFFFFFFFFFFFFFFF
# Code perf finds in no file: JIT code (perf names it after the perf map it would read).
JIT_DSO = re.compile(r"^(/tmp/perf-\d+\.map|//anon)$")
# Samples of classes counted apart (printed with their reason): key -> set of (comm, pid, tid, frames).
CLASSES = collections.defaultdict(collections.Counter)
MARK_CLASS = "perf ends the unwound stack with ffffffffffffffff (its mark where the copy ran out)"
# perf's stacks whose last frame is JIT code.
ENDS_IN_JIT = collections.Counter()
# perf's marked stacks whose copy's last 8 bytes are a code address (--perf-data).
LAST_WORD = collections.Counter()


def last_words(path):
    """
    {(tid, time in us): whether the sample's stack copy ends in 8 bytes
    that are an address in one of its process's executable mappings} for
    the samples of a perf.data file (file mode, one sample layout; read
    as tools/perf/Documentation/perf.data-file-format.txt describes it).
    """
    with open(path, "rb") as fp:
        d = fp.read()
    if d[:8] != b"PERFILE2":
        return {}
    attr_size, a_off, a_size, d_off, d_size = struct.unpack_from("<QQQQQ", d, 16)
    attrs = [d[o : o + attr_size] for o in range(a_off, a_off + a_size, attr_size)]
    kinds = {struct.unpack_from("<Q", a, 24)[0] for a in attrs}
    regs = {struct.unpack_from("<Q", a, 80)[0] for a in attrs}
    if len(kinds) != 1 or len(regs) != 1:
        return {}
    st, mask = kinds.pop(), regs.pop()
    # Before STACK_USER: IP TID TIME ADDR ID STREAM_ID CPU PERIOD, CALLCHAIN, REGS_USER.
    copies = 1 << 12 | 1 << 13  # REGS_USER, STACK_USER
    need = copies | 1 << 1 | 1 << 2  # and TID, TIME
    if st & (1 << 4 | 1 << 10 | 1 << 11 | 1 << 16) or (st & need) != need:
        return {}  # READ, RAW, BRANCH_STACK, IDENTIFIER: not laid out here
    sp_at = bin(mask & ((1 << 7) - 1)).count("1")  # x86-64: SP is perf register 7
    maps, samples, o = collections.defaultdict(list), [], d_off
    while o + 8 <= min(d_off + d_size, len(d)):
        typ, misc, size = struct.unpack_from("<IHH", d, o)
        if size < 8 or o + size > len(d):
            break  # a cut file: the samples read so far
        b = o + 8
        if typ == 10:  # MMAP2: pid tid addr len pgoff (24 bytes) prot flags filename
            pid, _, addr, ln = struct.unpack_from("<IIQQ", d, b)
            if struct.unpack_from("<I", d, b + 56)[0] & 4:  # PROT_EXEC
                maps[pid].append((addr, addr + ln))
        elif typ == 1 and not misc & (1 << 13):  # MMAP of code
            pid, _, addr, ln = struct.unpack_from("<IIQQ", d, b)
            maps[pid].append((addr, addr + ln))
        elif typ == 9:
            try:
                samples.append(sample_last_word(d, b, b + size - 8, st, mask, sp_at))
            except (struct.error, ValueError):
                pass  # a record that lies about its fields: not one to explain
        o += size
    return {k: w is not None and any(a <= w < e for a, e in maps[pid]) for pid, k, w in samples}


def sample_last_word(d, p, end, st, mask, sp_at):
    """One SAMPLE record's (pid, (tid, time in us), its copy's last 8 bytes or None)."""
    fields = {}
    for bit, name in ((0, "ip"), (1, "tid"), (2, "time"), (3, "addr"), (6, "id"), (9, "sid"), (7, "cpu"), (8, "period")):
        if st & (1 << bit):
            fields[name] = struct.unpack_from("<Q", d, p)[0]
            p += 8
    if st & (1 << 5):
        p += 8 + 8 * struct.unpack_from("<Q", d, p)[0]
    abi = struct.unpack_from("<Q", d, p)[0]
    p += 8
    sp = struct.unpack_from("<Q", d, p + 8 * sp_at)[0] if abi else None
    p += 8 * bin(mask).count("1") if abi else 0
    n = struct.unpack_from("<Q", d, p)[0]
    dyn = struct.unpack_from("<Q", d, p + 8 + n)[0] if n else 0
    if p + 8 + n > end:
        raise ValueError("stack copy past the record")
    last = struct.unpack_from("<Q", d, p + 8 + dyn - 8)[0] if 8 <= dyn <= n and sp is not None else None
    pid, tid = fields["tid"] & 0xFFFFFFFF, fields["tid"] >> 32
    return (pid, (tid, fields["time"] // 1000), last)


def read_perf(path, depth):
    out = collections.Counter()
    flags = set()  # the sample's classes

    def classify(key):
        if "mark" in flags:
            CLASSES[MARK_CLASS][key] += 1
        if "lastword" in flags:
            LAST_WORD[key] += 1
        if "jitend" in flags:
            ENDS_IN_JIT[key] += 1
        if "jit" in flags:
            CLASSES["JIT code (perf: [unknown] in /tmp/perf-PID.map; psym: an address, no perf map given)"][key] += 1
        if "nomap" in flags:
            CLASSES["an address in no mapping (perf: [unknown] ([unknown]), psym: the address)"][key] += 1

    head, frames, prev_dso, pending = None, [], None, None
    hdr = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+(\d+)\.(\d{6}):\s*$")
    lastword = last_words(PERF_DATA) if PERF_DATA else {}
    with open(path, errors="replace") as fp:
        for line in fp:
            line = line.rstrip("\n")
            m = hdr.match(line)
            if m:
                head, frames, prev_dso = (m.group(1), int(m.group(2)), int(m.group(3))), [], None
                when = (head[2], int(m.group(4)) * 1000000 + int(m.group(5)))
                flags.clear()
                pending = None
                continue
            if not line.strip():
                if pending:
                    frames.append(norm(pending[1]))
                    pending = None
                if head:
                    out[head + (tuple(frames[:depth]),)] += 1
                    classify(head + (tuple(frames[:depth]),))
                head = None
                continue
            if head:
                f = re.match(r"^\s+([0-9a-f]+)\s+(.*)\s+\((.*?)\)$", line)
                if f and pending and pending[0] != f.group(1):
                    frames.append(norm(pending[1]))
                    pending = None
                if f and f.group(3) == "inlined" and not INLINE:
                    # perf lists an address's inline frames, then its function;
                    # one given only as "inlined" stands for the function (and
                    # the next address begins the next frame).
                    pending = (f.group(1), f.group(2))
                    continue
                pending = None
                if f and int(f.group(1), 16) == END_MARK and f.group(3) == "[unknown]":
                    # perf's unwinder (--call-graph dwarf) ends a stack it could
                    # not finish (the copy ran out) with all ones: no address.
                    flags.add("mark")
                    if lastword.get(when):
                        flags.add("lastword")
                    continue
                if f and JIT_DSO.match(f.group(3)):
                    flags.add("jit")
                    flags.add("jitend")
                elif f:
                    flags.discard("jitend")
                if f and f.group(3) == "[unknown]":
                    flags.add("nomap")
                if f:
                    # A caller: below a user frame (the first under kernel frames is not).
                    caller = bool(frames) and prev_dso != "[kernel.kallsyms]"
                    frames.append(fix(f.group(2), f.group(3), caller, int(f.group(1), 16)))
                    DSOS.add(f.group(3))
                    prev_dso = f.group(3)
    if head:
        out[head + (tuple(frames[:depth]),)] += 1
        classify(head + (tuple(frames[:depth]),))
    return out


def read_raw(path):
    """perf script's samples in order: [(head, [(ip, sym, dso)])]."""
    out, cur = [], None
    hdr = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+([\d.]+):\s*$")
    with open(path, errors="replace") as fp:
        for line in fp:
            m = hdr.match(line.rstrip("\n"))
            if m:
                cur = (m.groups(), [])
                out.append(cur)
                continue
            f = re.match(r"^\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)$", line.rstrip("\n"))
            if f and cur and f.group(3) != "inlined":
                cur[1].append((int(f.group(1), 16), f.group(2), f.group(3)))
    return out


def file_names(injected, orig):
    """Alias a jitted-*.so frame's name with the file's name of its address (see --file-names)."""
    a, b = read_raw(injected), read_raw(orig)
    if len(a) != len(b):
        return
    for (ha, fa), (hb, fb) in zip(a, b):
        if ha != hb or len(fa) != len(fb):
            continue
        for (ipa, sa, da), (ipb, sb, db) in zip(fa, fb):
            # perf prints each frame's address in its file's terms: not compared.
            if not JITTED.search(da):
                continue
            if not db.startswith("/") or re.search(r"/jit-\d+\.dump$", db):
                continue
            x, y = norm(sa), norm(sb)
            if x != "?" and y != "?" and find(x) != find(y):
                ALIASES[max(find(x), find(y))] = min(find(x), find(y))


def read_psym(path, depth):
    out = collections.Counter()
    labels, frames, count = {}, [], 0

    def flush():
        if frames:
            key = (labels.get("comm", ""), int(labels.get("pid", -1)), int(labels.get("tid", -1)))
            out[key + (tuple(frames[:depth]),)] += count

    with open(path, errors="replace") as fp:
        for line in fp:
            line = line.rstrip("\n")
            if line.startswith("-----------+"):
                flush()
                labels, frames, count = {}, [], 0
                continue
            m = re.match(r"^\s+(\w+):\s+(.*)$", line)
            if m and not frames:
                labels[m.group(1)] = m.group(2)
                continue
            m = re.match(r"^\s+(\d+)\s{2,}(.*)$", line)
            if m and not frames:
                count = int(m.group(1))
                name = m.group(2)
            elif line.startswith("             ") and (frames or count):
                name = line.strip()
            else:
                continue
            if name.endswith(" (inline)"):
                if not INLINE:
                    continue
                name = name[: -len(" (inline)")]
            frames.append(norm(name))
    flush()
    return out


def aliased(keys):
    return collections.Counter({k[:3] + (tuple(alias(f) for f in k[3]),): n for k, n in keys.items()})


def explain(diff, extra):
    """
    Take out of diff (perf's stacks psym lacks) and extra (psym's that perf
    lacks) the pairs a rule explains as perf's unwinder's doing; the count
    of each rule's samples. Both rules: psym's stack is perf's, then more
    frames (same comm, pid, tid).
    - perf's stack ends in JIT code: its unwinder (libunwind) needs CFI,
      which JIT code has none of; psym steps on by the frame pointer
      (HotSpot's compiled code and interpreter keep it).
    - perf's stack ends in its mark (the copy ran out) one frame before
      psym's, and the copy's last 8 bytes are a code address of the
      process (--perf-data): the caller's return address, which perf's
      libunwind access_mem() never reads (it wants addr + 8 < end: an
      off-by-one; psym reads the whole copy).
    """
    jit_end, last_word = aliased(ENDS_IN_JIT), aliased(LAST_WORD)
    rules = (
        ("perf's unwinder stops in JIT code (no CFI), psym goes on by frame pointer",
         lambda k, e: jit_end[k] and len(e[3]) > len(k[3])),
        ("perf stops one frame short: the return address is the copy's last 8 bytes, "
         "which perf's libunwind never reads (access_mem: addr + 8 >= end)",
         lambda k, e: last_word[k] and len(e[3]) == len(k[3]) + 1),
    )
    out = collections.Counter()
    for k in sorted(diff):
        for e in sorted(extra):
            if not diff[k]:
                break
            if e[:3] != k[:3] or e[3][: len(k[3])] != k[3] or not extra[e]:
                continue
            for why, rule in rules:
                if rule(k, e):
                    n = min(diff[k], extra[e])
                    diff[k] -= n
                    extra[e] -= n
                    out[why] += n
                    break
    for c in (diff, extra):
        for k in [k for k, n in c.items() if n <= 0]:
            del c[k]
    return out


def main():
    perf_path, psym_path, minpct = sys.argv[1], sys.argv[2], float(sys.argv[3])
    depth = int(sys.argv[4]) if len(sys.argv) > 4 else 10**6
    perf = read_perf(perf_path, depth)
    # Aliases (free, cfree, __libc_free) of the files perf named, and of their debug files.
    for d in sorted(DSOS):
        if d.startswith("/") and os.path.isfile(d) and not JITTED.search(d):
            add_aliases(d)
            dbg = debug_file(d)
            if dbg and os.path.isfile(dbg):
                add_aliases(dbg)
    # The kernel's aliases (one address, two names: __x64_sys_vfork, __do_sys_vfork).
    try:
        at = collections.defaultdict(set)
        with open("/proc/kallsyms") as fp:
            for line in fp:
                f = line.split()
                if len(f) >= 3 and f[1] in "tT" and int(f[0], 16):
                    at[f[0]].add(f[2])
        for names in at.values():
            names = sorted(names)
            for n in names[1:]:
                a, b = find(names[0]), find(n)
                if a != b:
                    ALIASES[max(a, b)] = min(a, b)
    except OSError:
        pass
    if FILE_NAMES:
        file_names(perf_path, FILE_NAMES)
    perf = collections.Counter({k[:3] + (tuple(alias(f) for f in k[3]),): n for k, n in perf.items()})
    psym = read_psym(psym_path, depth)
    psym = collections.Counter({k[:3] + (tuple(alias(f) for f in k[3]),): n for k, n in psym.items()})
    total = sum(perf.values())
    same = sum(min(n, psym[k]) for k, n in perf.items())
    pct = 100.0 * same / total if total else 0.0
    print("samples: perf %d, psym %d; stacks agreeing: %d (%.2f%%)" % (total, sum(psym.values()), same, pct))
    for why, keys in sorted(CLASSES.items()):
        keys = collections.Counter({k[:3] + (tuple(alias(f) for f in k[3]),): n for k, n in keys.items()})
        agree = sum(min(n, psym[k]) for k, n in keys.items())
        print("  class: %s: %d samples, %d of them agreeing" % (why, sum(keys.values()), agree))
    diff = collections.Counter({k: n - psym[k] for k, n in perf.items() if n > psym[k]})
    extra = collections.Counter({k: n - perf[k] for k, n in psym.items() if n > perf[k]})
    explained = explain(diff, extra) if EXPLAIN else collections.Counter()
    for why, n in sorted(explained.items()):
        print("  explained: %s: %d samples" % (why, n))
    if EXPLAIN:
        pct = 100.0 * (same + sum(explained.values())) / total if total else 0.0
        print("stacks agreeing or explained: %d (%.2f%%)" % (same + sum(explained.values()), pct))
    for k, n in diff.most_common(3):
        print("  perf only x%d: %s" % (n, k))
    for k, n in extra.most_common(3):
        print("  psym only x%d: %s" % (n, k))
    if total == 0 or pct < minpct:
        print("FAIL: fewer than %.2f%% agree" % minpct)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
