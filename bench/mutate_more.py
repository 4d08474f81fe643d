"""bench/mutate's inputs for the readers added since its first campaign
(issue 26): the stack-copy side file with the unwinder's CFI, .dwp
indexes, dwz alternate files, .deb archives and symbol cache files.

seeds(...) builds them once in the seeds directory; mutate(kind, r, s, d)
writes input files into the input directory d and returns (infile, runs,
description), runs being (tool, argv, strict) as bench/mutate runs them.
Python 3 stdlib only (plus gcc, dwz, dwp and dpkg-deb at seed time: a seed
that cannot be built drops its kinds, said in the report).
"""
import gzip
import os
import struct
import subprocess
import zlib

KINDS = ["side-file", "side-cfi", "side-dbgframe", "side-both", "dwp-index", "dwp-elf",
         "dwz-alt", "deb-flip", "deb-truncate", "deb-header", "symcache-hdr",
         "symcache-body"]

USTACKS_COMMENT = "psym-collect: user stacks need unwinding: stack copies in OUT.d/ustacks.gz"


def _varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _field(num, wt, payload):
    if wt == 0:
        return _varint(num << 3) + _varint(payload)
    return _varint(num << 3 | 2) + _varint(len(payload)) + payload


def provisional_profile():
    """What psym-collect --stack-copy writes: no samples, the comment."""
    strings = ["", "samples", "count", USTACKS_COMMENT]
    out = [_field(1, 2, _field(1, 0, 1) + _field(2, 0, 2))]
    out += [_field(6, 2, s.encode()) for s in strings]
    out.append(_field(13, 0, 3))
    return b"".join(out)


def side_raw(elf, bid, pc, words, samples=6, pids=2, base=0x400000, limit=0x800000):
    """An uncompressed side file (src/unwind/ustacks.h, version 1)."""
    out = [b"PSYMUSTK" + struct.pack("<6I", 1, 62, 17, 1, 65536, 0)]
    stack = b"".join(struct.pack("<Q", w) for w in words)
    for k in range(pids):
        pid = 1000 + k
        m = struct.pack("<QQQ", base, limit, 0) + struct.pack("<B", len(bid)) + bid.encode()
        m += struct.pack("<H", len(elf)) + elf.encode()
        rec = struct.pack("<II", pid, 1) + m
        out.append(struct.pack("<II", 1, len(rec)) + rec)
        for i in range(samples // pids):
            regs = [0] * 17
            regs[7] = 0x7FF000
            regs[16] = pc
            rec = struct.pack("<IIII", pid, pid + i, 0, (1 << 7) | (1 << 16))
            rec += struct.pack("<Q", i) + b"mutate".ljust(16, b"\0")
            rec += struct.pack("<17Q", *regs) + struct.pack("<HH", 1, 0)
            rec += struct.pack("<Q", 0xFFFFFFFF81000000)
            rec += struct.pack("<I", len(stack)) + stack
            out.append(struct.pack("<II", 2, len(rec)) + rec)
    return b"".join(out)


def _sh(argv, cwd):
    subprocess.run(argv, cwd=cwd, check=True, capture_output=True, timeout=300)


def _sections(data):
    """name -> (hdr_off, offset, size) of a 64-bit little-endian ELF."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", data, 0x3C)
    so, _ss = struct.unpack_from("<QQ", data, shoff + shstrndx * 64 + 24)
    out = {}
    for i in range(shnum):
        o = shoff + i * 64
        nm, = struct.unpack_from("<I", data, o)
        off, size = struct.unpack_from("<QQ", data, o + 24)
        name = data[so + nm:data.index(b"\0", so + nm)].decode("latin-1")
        out[name] = (o, off, size)
    return out


def _nm(path):
    out = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        w = line.split()
        if len(w) == 3 and w[1] in "Tt":
            syms[w[2]] = int(w[0], 16)
    return syms


def _bid(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    return ""


class Seeds:
    pass


def seeds(d, psym, env, c_src, elf_seed, log):
    """Build what the kinds need in d; returns a Seeds with .kinds usable."""
    s = Seeds()
    s.kinds = []
    s.notes = []
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    mkh = os.path.join(top, "tests", "unwind", "mkhostile.py")
    # side file + CFI: a chain of 12 frames (.eh_frame), the same with
    # .debug_frame only, and a loop of signal frames.
    try:
        s.cfi = {}
        for name, kind, n, extra in (("chain", "chain", 12, ""), ("loop", "loop", 1, ""),
                                     ("dbgframe", "chain", 12, ".cfi_sections .debug_frame\n")):
            src = subprocess.run(["python3", mkh, "asm", kind, str(n), "20"], check=True,
                                 capture_output=True, text=True).stdout
            open(os.path.join(d, name + ".s"), "w").write(extra + src)
            _sh(["gcc", "-c", name + ".s", "-o", name + ".o"], d)
            _sh(["gcc", "-nostdlib", "-static", "-no-pie", "-Wl,--build-id", "-o", name,
                 name + ".o"], d)
            p = os.path.join(d, name)
            syms = _nm(p)
            fr = [k for k in sorted(syms) if k.startswith("f")]
            words = [syms["f%d" % i] + 1 for i in range(1, len(fr))] or [syms["f0"]] * 2
            data = open(p, "rb").read()
            secs = _sections(data)
            cfi = secs.get(".eh_frame") or secs.get(".debug_frame")
            s.cfi[name] = (data, _bid(p), syms["f0"], words, cfi)
        s.profile = provisional_profile()
        s.kinds += ["side-file", "side-cfi", "side-dbgframe", "side-both"]
    except (OSError, subprocess.SubprocessError, KeyError, ValueError) as e:
        s.notes.append("side-file kinds: seed not built (%s)" % e)
    # .dwp: split DWARF 4 (GNU dwp handles it), two units
    try:
        open(os.path.join(d, "sp1.c"), "w").write(c_src)
        open(os.path.join(d, "sp2.c"), "w").write(
            "int __attribute__((noinline)) sp2_fn(int x) { return x * 11 + 3; }\n")
        _sh(["gcc", "-O2", "-g", "-gdwarf-4", "-gsplit-dwarf", "-c", "sp1.c", "sp2.c"], d)
        _sh(["gcc", "-o", "sp", "sp1.o", "sp2.o"], d)
        _sh(["dwp", "-e", "sp", "-o", "sp.dwp"], d)
        for f in ("sp1.dwo", "sp2.dwo"):
            os.unlink(os.path.join(d, f))
        s.sp = os.path.join(d, "sp")
        s.dwp = open(os.path.join(d, "sp.dwp"), "rb").read()
        s.dwp_path = os.path.join(d, "sp.dwp")
        s.dwp_index = _sections(s.dwp).get(".debug_cu_index")
        s.sp_addrs = ["%#x" % a for a in sorted(_nm(s.sp).values())[:20]]
        s.kinds += ["dwp-index", "dwp-elf"]
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        s.notes.append("dwp kinds: seed not built (%s)" % e)
    # dwz: two programs sharing an alternate file named relatively
    try:
        open(os.path.join(d, "z.c"), "w").write(c_src)
        for n, opt in (("za", "-O2"), ("zb", "-O1")):
            _sh(["gcc", opt, "-g", "-o", n, "z.c"], d)
        _sh(["dwz", "-m", "common.debug", "-M", "common.debug", "za", "zb"], d)
        s.za = open(os.path.join(d, "za"), "rb").read()
        s.alt = open(os.path.join(d, "common.debug"), "rb").read()
        s.alt_path = os.path.join(d, "common.debug")
        s.za_addrs = ["%#x" % a for a in sorted(_nm(os.path.join(d, "za")).values())[:20]]
        s.kinds += ["dwz-alt"]
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        s.notes.append("dwz kind: seed not built (%s)" % e)
    # .deb: the debug file of an ELF seed in .build-id/, a dwz file; data.tar
    # stored (so flips reach tar headers) and xz-compressed
    try:
        bid = _bid(elf_seed)
        pkg = os.path.join(d, "pkg")
        dd = os.path.join(pkg, "usr/lib/debug/.build-id", bid[:2])
        os.makedirs(dd)
        os.makedirs(os.path.join(pkg, "usr/lib/debug/.dwz/x86_64-linux-gnu"))
        os.makedirs(os.path.join(pkg, "DEBIAN"))
        _sh(["objcopy", "--only-keep-debug", elf_seed, os.path.join(dd, bid[2:] + ".debug")], d)
        open(os.path.join(pkg, "usr/lib/debug/.dwz/x86_64-linux-gnu/x.debug"), "w").write("x\n")
        open(os.path.join(pkg, "DEBIAN/control"), "w").write(
            "Package: m-dbg\nVersion: 1\nArchitecture: amd64\nMaintainer: m <m@m>\n"
            "Description: m\n")
        s.debs = []
        for z in ("none", "xz"):
            out = os.path.join(d, "m-%s.deb" % z)
            _sh(["dpkg-deb", "-Z" + z, "--root-owner-group", "--build", pkg, out], d)
            s.debs.append(open(out, "rb").read())
        s.stripped = os.path.join(d, "stripped")
        _sh(["objcopy", "--strip-debug", elf_seed, s.stripped], d)
        s.deb_addrs = ["%#x" % a for a in sorted(_nm(elf_seed).values())[:20]]
        s.kinds += ["deb-flip", "deb-truncate", "deb-header"]
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        s.notes.append(".deb kinds: seed not built (%s)" % e)
    return s


def symcache_seed(s, d, psym, env, prof_path):
    """The cache file psym writes for prof_path (a profile of the ELF seeds)."""
    cdir = os.path.join(d, "scache")
    r = subprocess.run([psym, "symbolize", "--offline", "--cache", cdir, prof_path, "-o",
                        os.path.join(d, "sc.out.pb")], env=env, capture_output=True,
                       timeout=300)
    files = []
    for root, _dirs, fs in os.walk(cdir):
        files += [os.path.join(root, f) for f in fs if f.endswith(".psc")]
    if r.returncode != 0 or not files:
        s.notes.append("symcache kinds: no cache file written")
        return
    files.sort(key=os.path.getsize)
    s.sc_file = open(files[-1], "rb").read()
    s.sc_name = os.path.relpath(files[-1], cdir)
    s.sc_prof = prof_path
    s.kinds += ["symcache-hdr", "symcache-body"]


def _flip_range(r, b, lo, hi, n):
    for _ in range(n):
        if hi > lo:
            i = lo + r.randrange(hi - lo)
            if r.random() < 0.5:
                b[i] ^= 1 << r.randrange(8)
            else:
                b[i] = r.randrange(256)


def _lie32(r, b, lo, hi):
    if hi - lo >= 4:
        i = lo + (r.randrange(hi - lo - 3) & ~3)
        v = r.choice([0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 0xFFFFFFF0, 0x10000, r.randrange(1 << 32)])
        struct.pack_into("<I", b, i, v)
        return "u32 %#x at %d" % (v, i)
    return "nothing"


def mutate(kind, r, s, d, psym, flip, truncate, elf_mutate_bytes):
    """Write the input for kind into d; (infile, runs, description)."""
    if kind.startswith("side-"):
        name = r.choice(["chain", "loop"]) if kind != "side-dbgframe" else "dbgframe"
        data, bid, pc, words, cfi = s.cfi[name]
        elf = bytearray(data)
        what = [name]
        if kind in ("side-cfi", "side-dbgframe", "side-both") and cfi:
            _hdr, off, size = cfi
            if r.random() < 0.5:
                _flip_range(r, elf, off, off + size, r.randint(1, 16))
                what.append("CFI flips")
            else:
                what.append("CFI " + _lie32(r, elf, off, off + size))
        prog = os.path.join(d, "prog")
        open(prog, "wb").write(bytes(elf))
        raw = side_raw(prog, bid, pc, words, samples=r.choice([2, 6, 20]),
                       pids=r.choice([1, 2]))
        if kind in ("side-file", "side-both"):
            c = r.random()
            if c < 0.4:
                raw, w = flip(r, raw)
            elif c < 0.6:
                raw, w = truncate(r, raw)
            else:
                raw = bytearray(raw)
                w = _lie32(r, raw, 8, len(raw))
                raw = bytes(raw)
            what.append("side " + w)
        gz = gzip.compress(raw, 6, mtime=0)
        if kind == "side-file" and r.random() < 0.15:
            gz, w = flip(r, gz)
            what.append("gzip " + w)
        os.makedirs(os.path.join(d, "p.pb.d"))
        side = os.path.join(d, "p.pb.d", "ustacks.gz")
        open(side, "wb").write(gz)
        open(os.path.join(d, "p.pb"), "wb").write(s.profile)
        runs = [("psym symbolize (side file)", [psym, "symbolize", "--offline", "--no-cache",
                                                os.path.join(d, "p.pb"), "-o",
                                                os.path.join(d, "out.pb.gz")], False)]
        return side, runs, ", ".join(what)
    if kind.startswith("dwp-"):
        b = bytearray(s.dwp)
        if kind == "dwp-index" and s.dwp_index:
            _h, off, size = s.dwp_index
            n = r.randint(1, 4)
            what = "; ".join(_lie32(r, b, off, off + size) for _ in range(n))
            b = bytes(b)
        else:
            b, what = elf_mutate_bytes(r, "dwp")
        f = os.path.join(d, "sp.dwp")
        open(f, "wb").write(b)
        runs = [("psym addr (.dwp)", [psym, "addr", "-e", s.sp, "--dwp", f] + s.sp_addrs, False),
                ("llvm-symbolizer (.dwp)", ["llvm-symbolizer", "--obj=" + s.sp, "--dwp=" + f]
                 + s.sp_addrs, False)]
        return f, runs, what
    if kind == "dwz-alt":
        b, what = elf_mutate_bytes(r, "alt")
        open(os.path.join(d, "za"), "wb").write(s.za)
        os.chmod(os.path.join(d, "za"), 0o755)
        f = os.path.join(d, "common.debug")
        open(f, "wb").write(b)
        za = os.path.join(d, "za")
        runs = [("psym addr (dwz)", [psym, "addr", "-e", za] + s.za_addrs, False),
                ("addr2line (dwz)", ["addr2line", "-f", "-i", "-e", za] + s.za_addrs, False)]
        return f, runs, what
    if kind.startswith("deb-"):
        k = r.randrange(len(s.debs))
        src = s.debs[k]
        if kind == "deb-flip":
            b, what = flip(r, src)
        elif kind == "deb-truncate":
            b, what = truncate(r, src)
        else:   # ar and tar headers: the first 4 KiB of each member
            b = bytearray(src)
            n = r.randint(1, 8)
            _flip_range(r, b, 0, min(len(b), 4096), n)
            if r.random() < 0.5:
                what = _lie32(r, b, 0, min(len(b), 4096))
            else:
                what = "%d header bytes" % n
            b = bytes(b)
        # addr extracts into $XDG_CACHE_HOME/psym/debs, keyed by name, size and
        # mtime: one name per input.
        f = os.path.join(d, "m-dbg-%s.deb" % os.path.basename(d))
        open(f, "wb").write(b)
        runs = [("psym addr (.deb)", [psym, "addr", "--debug-pkg", f, "-e", s.stripped]
                 + s.deb_addrs, False)]
        return f, runs, ("stored " if k == 0 else "xz ") + what
    if kind.startswith("symcache-"):
        b = bytearray(s.sc_file)
        hdr = 8 + 8 + 24 + 16 + 96
        if kind == "symcache-hdr":
            what = _lie32(r, b, 8, hdr)
        else:
            n = r.randint(1, 16)
            _flip_range(r, b, hdr + 8, len(b), n)
            what = "%d body bytes" % n
        if r.random() < 0.8 and len(b) >= hdr + 8:   # a forged checksum reaches the checks
            struct.pack_into("<I", b, hdr, zlib.crc32(bytes(b[hdr + 8:])) & 0xFFFFFFFF)
            what += ", CRC fixed"
        cdir = os.path.join(d, "cache")
        f = os.path.join(cdir, s.sc_name)
        os.makedirs(os.path.dirname(f), mode=0o700)
        os.chmod(cdir, 0o700)
        fd = os.open(f, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, bytes(b))
        os.close(fd)
        runs = [("psym symbolize (cache)", [psym, "symbolize", "--offline", "--cache", cdir,
                                            s.sc_prof, "-o", os.path.join(d, "out.pb.gz")],
                 False)]
        return f, runs, what
    raise ValueError(kind)
