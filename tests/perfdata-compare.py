#!/usr/bin/env python3
"""Compare psym's stacks of a perf.data with perf script's.

usage: perfdata-compare.py [--inline] [--file-names ORIG.txt] PERF.txt PSYM.txt MIN_PERCENT [FRAMES]

PERF.txt: `perf script -F comm,pid,tid,time,ip,sym,symoff,dso` (callchains);
PSYM.txt: `psym traces --sample-index EVENT_sample` of the symbolized
profile. Each sample becomes (comm, pid, tid, its physical frames' function
names), inline frames dropped on psym's side (perf names the symbol of the
address), names normalized (no return type, template arguments,
parameters, clone suffixes: perf prints the ELF symbol, psym the DWARF
name). FRAMES: compare only the first FRAMES frames of each stack (leaf
first; a --call-graph dwarf unwind may go deeper on one side). The
samples' multisets must agree for at least MIN_PERCENT of perf's samples.
Prints the agreement and the most common differences.

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
    the return address - 1, perf the return address). ip: the frame's
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
    if caller and off == 0:
        i = bisect.bisect_right(starts, start - 1)
        if not i:
            return "?"
        a, sz, n = syms[i - 1]
        return "?" if sz and start - 1 >= a + sz else n
    return norm(sym)


def read_perf(path, depth):
    out = collections.Counter()
    head, frames, prev_dso, pending = None, [], None, None
    hdr = re.compile(r"^\s*(.+?)\s+(\d+)/(\d+)\s+[\d.]+:\s*$")
    with open(path, errors="replace") as fp:
        for line in fp:
            line = line.rstrip("\n")
            m = hdr.match(line)
            if m:
                head, frames, prev_dso = (m.group(1), int(m.group(2)), int(m.group(3))), [], None
                pending = None
                continue
            if not line.strip():
                if pending:
                    frames.append(norm(pending[1]))
                    pending = None
                if head:
                    out[head + (tuple(frames[:depth]),)] += 1
                head = None
                continue
            if head:
                f = re.match(r"^\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)$", line)
                if f and f.group(3) == "inlined" and not INLINE:
                    # perf lists an address's inline frames, then its function;
                    # one given only as "inlined" stands for the function.
                    pending = (f.group(1), f.group(2))
                    continue
                if f and pending and pending[0] != f.group(1):
                    frames.append(norm(pending[1]))
                pending = None
                if f:
                    # A caller: below a user frame (the first under kernel frames is not).
                    caller = bool(frames) and prev_dso != "[kernel.kallsyms]"
                    frames.append(fix(f.group(2), f.group(3), caller, int(f.group(1), 16)))
                    DSOS.add(f.group(3))
                    prev_dso = f.group(3)
    if head:
        out[head + (tuple(frames[:depth]),)] += 1
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
    diff = collections.Counter({k: n - psym[k] for k, n in perf.items() if n > psym[k]})
    for k, n in diff.most_common(3):
        print("  perf only x%d: %s" % (n, k))
    extra = collections.Counter({k: n - perf[k] for k, n in psym.items() if n > perf[k]})
    for k, n in extra.most_common(3):
        print("  psym only x%d: %s" % (n, k))
    if total == 0 or pct < minpct:
        print("FAIL: fewer than %.2f%% agree" % minpct)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
