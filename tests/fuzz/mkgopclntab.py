#!/usr/bin/env python3
"""Write small synthetic .gopclntab fuzz inputs (the format of
tests/fuzz/gopclntab-fuzz.c: a 32-byte head, the table, the image) in each
layout Go has used, with an inline tree, for the seed corpus. A real
table is hundreds of kilobytes; these hold three functions.

usage: mkgopclntab.py OUTDIR
Writes OUTDIR/seed-go{12,116,118,120}[-be][-p4] and bad-* variants (huge
nfunc, sub-table offsets out of order, a pc table that runs past its
function, an inline tree whose entry is its own caller). The line tables
have a step of no length, as Go's s390x assembler writes; the 1.2 layout
has the funcdata numbering of Go 1.13-1.15 (the inline tree is the fifth).
"""
import struct
import sys

TEXT, TAB, IMG = 0x401000, 0x4c0000, 0x480000
MAGIC = {12: 0xfffffffb, 116: 0xfffffffa, 118: 0xfffffff0, 120: 0xfffffff1}


def uv(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pctab(steps):
    """steps: (value, length) from the entry on; the encoding Go uses."""
    out, prev = bytearray(), -1
    for val, length in steps:
        d = val - prev
        out += uv((d << 1) if d >= 0 else ((-d - 1) << 1) | 1) + uv(length)
        prev = val
    return bytes(out + b"\0")


def build(ver, be=False, ptr=8, bad=None):
    e = ">" if be else "<"
    P = "Q" if ptr == 8 else "I"
    funcs = [("main.main", 0x40), ("main.(*T).inc", 0x20), ("main.Map[...]", 0x20)]
    inl_names = ["main.add", "main.inner"]
    names = bytearray(b"\0")
    nameoff = {}
    for n in [f[0] for f in funcs] + inl_names:
        nameoff[n] = len(names)
        names += n.encode() + b"\0"
    files = ["/src/main.go", "/src/lib.go"]
    filetab, fileoff = bytearray(b"\0"), []
    for f in files:
        fileoff.append(len(filetab))
        filetab += f.encode() + b"\0"
    pct = bytearray(b"\0")
    tabs = []
    for i, (name, size) in enumerate(funcs):
        t = {}
        t["file"] = len(pct)
        pct += pctab([(i % 2 + (ver == 12), size)])  # 1.2: file 0 is the count
        t["line"] = len(pct)
        pct += pctab([(10 + i, size // 2), (11 + i, 0), (12 + i, size // 2)])
        t["inl"] = len(pct)
        if bad == "pastend" and i == 0:
            pct += pctab([(0, 0x1000)])
        else:
            pct += pctab([(-1, 0x10), (0, 0x10), (1, 0x10), (-1, size - 0x30)] if i == 0 else [(-1, size)])
        tabs.append(t)
    # inline tree: 0 = add called at 0x08 (ix -1 there), 1 = inner called at 0x18 (ix 0)
    tree = bytearray()
    for j, (nm, ppc) in enumerate([("main.add", 0x08), ("main.inner", 0x18)]):
        if bad == "selfinl":
            ppc = 0x28  # where ix is 1: the entry is its own caller
        if ver >= 120:
            tree += struct.pack(e + "B3xiii", 0, nameoff[nm], ppc, 5 + j)
        else:
            tree += struct.pack(e + "hBxiiii", j - 1, 0, 0, 10, nameoff[nm], ppc)
    img = bytearray(16) + tree  # the tree at IMG + 16
    treeaddr = IMG + 16
    gofunc = IMG
    # file index -> filetab offset: the cutab (1.16+), or the global file table (1.2)
    cutab = b"".join(struct.pack(e + "I", o) for o in fileoff)
    hdr_ptrs = 5 if ver == 116 else 6 if ver >= 118 else 0
    hlen = 8 + (2 + hdr_ptrs) * ptr
    if ver == 12:
        names_base = 0
    out = bytearray()

    def rec(i, name, entry_field, cuoff):
        t = tabs[i]
        r = bytearray(entry_field)
        r += struct.pack(e + "iiIIIII", nameoff[name] if ver >= 116 else 0, 0, 0, 0,
                         t["file"], t["line"], 3 if i == 0 else 0)
        if ver >= 116:
            r += struct.pack(e + "I", cuoff)
        if ver >= 120:
            r += struct.pack(e + "i", 9 + i)
        nfd = 5 if ver == 12 else 4  # Go 1.13-1.15: RegPointerMaps before the tree
        r += bytes([0, 0, 0, nfd if i == 0 else 0])
        if i == 0:
            r += struct.pack(e + "III", 0, 0, t["inl"])
            if ver >= 118:
                r += struct.pack(e + "IIII", 0xffffffff, 0xffffffff, 0xffffffff, treeaddr - gofunc)
            else:
                if ptr == 8 and (TAB + 0) % 8 == 0 and len(r) % 8:
                    r += b"\0" * (8 - len(r) % 8)
                r += struct.pack(e + P * nfd, *([0] * (nfd - 1) + [treeaddr]))
        while len(r) % ptr:
            r += b"\0"
        return r

    n = len(funcs)
    if ver >= 116:
        off_names = hlen
        off_cu = off_names + len(names)
        off_file = off_cu + len(cutab)
        off_pc = off_file + len(filetab)
        while (off_pc + len(pct)) % ptr:
            pct += b"\0"  # the function records are pointer-aligned
        off_pcln = off_pc + len(pct)
        esz = 8 if ver >= 118 else 2 * ptr
        ftab = bytearray()
        recs = bytearray()
        entries = []
        a = TEXT
        for i, (name, size) in enumerate(funcs):
            entries.append(a)
            a += size
        base = (n + 1) * esz
        offs = []
        for i, (name, size) in enumerate(funcs):
            offs.append(base + len(recs))
            ef = struct.pack(e + "I", entries[i] - TEXT) if ver >= 118 else struct.pack(e + P, entries[i])
            recs += rec(i, name, ef, 0)
        for i in range(n):
            if ver >= 118:
                ftab += struct.pack(e + "II", entries[i] - TEXT, offs[i])
            else:
                ftab += struct.pack(e + P + P, entries[i], offs[i])
        ftab += struct.pack(e + "II", a - TEXT, 0) if ver >= 118 else struct.pack(e + P + P, a, 0)
        head = struct.pack(e + "I", MAGIC[ver]) + bytes([0, 0, 1, ptr])
        fields = [n, len(files)] + ([TEXT] if ver >= 118 else []) + [off_names, off_cu, off_file, off_pc, off_pcln]
        if bad == "offsets":
            fields[-2], fields[-3] = fields[-3], 1 << 40
        if bad == "nfunc":
            fields[0] = (1 << 31) - 1
        head += b"".join(struct.pack(e + P, f) for f in fields)
        out = head + names + cutab + filetab + pct + ftab + recs
    else:
        # Go 1.2: names, pc tables and strings relative to the table's start
        ftab_off = 8 + ptr
        ftab_len = (2 * n + 1) * ptr + 4
        blob_off = ftab_off + ftab_len
        blob = bytearray(names)
        names_at = blob_off
        pct_at = blob_off + len(blob)
        blob += pct
        files_at = blob_off + len(blob)
        blob += filetab
        ftabl_at = blob_off + len(blob)
        blob += struct.pack(e + "I", len(files) + 1) + b"".join(
            struct.pack(e + "I", files_at + o) for o in fileoff) + b"\0\0\0\0"
        while (blob_off + len(blob)) % ptr:
            blob += b"\0"
        recs_at = blob_off + len(blob)
        recs = bytearray()
        entries, offs, a = [], [], TEXT
        for i, (name, size) in enumerate(funcs):
            entries.append(a)
            offs.append(recs_at + len(recs))
            t = tabs[i]
            t["file"] += pct_at - 0
            t["line"] += pct_at
            t["inl"] += pct_at
            r = rec(i, name, struct.pack(e + P, a), 0)
            r[ptr:ptr + 4] = struct.pack(e + "i", names_at + nameoff[name])
            recs += r
            a += size
        ftab = b"".join(struct.pack(e + P + P, entries[i], offs[i]) for i in range(n))
        ftab += struct.pack(e + P, a) + struct.pack(e + "I", ftabl_at)
        nf = (1 << 31) - 1 if bad == "nfunc" else n
        out = struct.pack(e + "I", MAGIC[ver]) + bytes([0, 0, 1, ptr]) + struct.pack(e + P, nf) + ftab + blob + recs
        # inline names are table-relative in 1.2
        for j, nm in enumerate(inl_names):
            struct.pack_into(e + "i", img, 16 + 20 * j + 12, names_at + nameoff[nm])
    return struct.pack("<QQQQ", len(out), TAB, IMG, gofunc) + bytes(out) + bytes(img)


d = sys.argv[1]
for ver in (12, 116, 118, 120):
    for be in (False, True):
        for ptr in (8, 4):
            name = "seed-go%d%s%s" % (ver, "-be" if be else "", "-p4" if ptr == 4 else "")
            open("%s/%s" % (d, name), "wb").write(build(ver, be, ptr))
for bad in ("nfunc", "offsets", "pastend", "selfinl"):
    for ver in (118, 120):
        open("%s/bad-%s-go%d" % (d, bad, ver), "wb").write(build(ver, bad=bad))
