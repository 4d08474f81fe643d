#!/usr/bin/env python3
"""Regenerate the hostile non-profile inputs of testdata/bad/ (ELF, DWARF,
kallsyms, perf maps, jitdump, .deb, crash logs). Their expected outcomes are
in testdata/bad/READERS. The committed files are what the tests use; this
script documents how each was made and can remake them:

    cd testdata/bad && python3 make-bad.py

Base binary: tests/fuzz/corpus/dwarf/t-exe (gcc 12 -O2 -g DWARF 5, PIE,
function `work` at 0x1170). The cyclic/deep DWARF files are assembled from
hand-written DWARF 4 with gcc (needs gcc; everything else only Python).
Python stdlib only, deterministic (fixed seeds).
"""
import gzip
import io
import lzma
import os
import random
import struct
import subprocess
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "..", "..", "tests", "fuzz", "corpus", "dwarf", "t-exe")


def put(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


# ---- tiny ELF64 little-endian editor ---------------------------------------------
class Elf:
    def __init__(self, data):
        self.d = bytearray(data)
        (self.shoff,) = struct.unpack_from("<Q", self.d, 0x28)
        self.shentsize, self.shnum, self.shstrndx = struct.unpack_from("<HHH", self.d, 0x3A)
        self.secs = {}
        stroff = self.sh(self.shstrndx)["offset"]
        for i in range(self.shnum):
            s = self.sh(i)
            end = self.d.index(b"\0", stroff + s["name"])
            self.secs[self.d[stroff + s["name"]:end].decode()] = i

    def sh_at(self, i):
        return self.shoff + i * self.shentsize

    def sh(self, i):
        f = struct.unpack_from("<IIQQQQIIQQ", self.d, self.sh_at(i))
        keys = ("name", "type", "flags", "addr", "offset", "size", "link", "info", "align", "entsize")
        return dict(zip(keys, f))

    def set_sh(self, name, **kw):
        i = self.secs[name]
        s = self.sh(i)
        s.update(kw)
        struct.pack_into("<IIQQQQIIQQ", self.d, self.sh_at(i), s["name"], s["type"], s["flags"],
                         s["addr"], s["offset"], s["size"], s["link"], s["info"], s["align"],
                         s["entsize"])

    def sec(self, name):
        s = self.sh(self.secs[name])
        return s["offset"], s["size"]

    def fill(self, name, byte):
        off, size = self.sec(name)
        self.d[off:off + size] = bytes([byte]) * size

    def bytes(self):
        return bytes(self.d)


def base():
    return Elf(open(BASE, "rb").read())


def elf_cases():
    raw = open(BASE, "rb").read()
    put("elf-truncated-40", raw[:40])
    put("elf-truncated-shdrs", raw[:12000])
    e = base(); struct.pack_into("<Q", e.d, 0x28, 0xFFFFFFFFFFFF0000); put("elf-shoff-huge", e.bytes())
    e = base(); struct.pack_into("<Q", e.d, 0x20, 0x7FFFFFFFFFFFFF00); put("elf-phoff-huge", e.bytes())
    e = base(); e.d[4] = 9; put("elf-bad-class", e.bytes())
    e = base(); e.d[5] = 2; put("elf-big-endian-flag", e.bytes())
    e = base(); e.set_sh(".symtab", offset=len(raw) - 16); put("elf-section-past-eof", e.bytes())
    # Extended section numbering: e_shnum = 0, count in section 0's sh_size.
    e = base(); struct.pack_into("<H", e.d, 0x3C, 0)
    struct.pack_into("<Q", e.d, e.sh_at(0) + 0x20, 0x7FFFFFFF); put("elf-shnum-extended-huge", e.bytes())
    e = base(); e.set_sh(".symtab", link=200); put("elf-symtab-link-oob", e.bytes())
    e = base(); e.set_sh(".symtab", entsize=7); put("elf-symtab-entsize-odd", e.bytes())
    e = base(); e.fill(".strtab", ord("A")); put("elf-strtab-no-nul", e.bytes())
    e = base(); off, size = e.sec(".symtab")
    for p in range(off, off + size, 24):
        struct.pack_into("<I", e.d, p, 0xFFFFFF00)
    put("elf-symbol-names-oob", e.bytes())
    e = base(); off, size = e.sec(".symtab")
    for p in range(off, off + size, 24):
        struct.pack_into("<Q", e.d, p + 16, 1 << 63)
    put("elf-symbol-sizes-huge", e.bytes())
    e = base(); off, _ = e.sec(".note.gnu.build-id"); struct.pack_into("<I", e.d, off, 0xFFFFFFF0)
    put("elf-buildid-namesz-huge", e.bytes())
    e = base(); off, _ = e.sec(".note.gnu.build-id"); struct.pack_into("<I", e.d, off + 4, 0xFFFFFFF0)
    put("elf-buildid-descsz-huge", e.bytes())
    # Compressed .debug_info whose header claims 1 TiB; one with an unknown
    # compression type; one with a valid header and a garbage stream.
    for name, ctype, csize, body in (("elf-compressed-bomb", 1, 1 << 40, b"\x78\x9c" + b"\0" * 32),
                                     ("elf-compressed-bad-type", 77, 4096, b"\0" * 32),
                                     ("elf-compressed-garbage", 1, 4096, b"\x78\x9c" + b"\xff" * 64)):
        e = base(); off, size = e.sec(".debug_info")
        chdr = struct.pack("<IIQQ", ctype, 0, csize, 1) + body
        e.d[off:off + len(chdr)] = chdr
        e.set_sh(".debug_info", flags=0x800, size=len(chdr))
        put(name, e.bytes())
    r = random.Random(7)
    e = base()
    for _ in range(60):
        p = r.randrange(64, len(e.d))
        e.d[p] ^= 1 << r.randrange(8)
    put("elf-bitflips", e.bytes())
    put("elf-random", b"\x7fELF\x02\x01\x01" + r.randbytes(4089))
    with tempfile.TemporaryDirectory() as t:
        for name, content, sec in (("elf-debuglink-no-nul", b"A" * 64, ".gnu_debuglink"),
                                   ("elf-gnu-debugdata-garbage", r.randbytes(512), ".gnu_debugdata"),
                                   ("elf-gnu-debugdata-not-elf",
                                    lzma.compress(b"not an ELF image\n" * 64), ".gnu_debugdata")):
            blob = os.path.join(t, "blob")
            open(blob, "wb").write(content)
            out = os.path.join(HERE, name)
            subprocess.run(["objcopy", "--add-section", sec + "=" + blob, BASE, out], check=True)


def dwarf_cases():
    e = base(); off, _ = e.sec(".debug_info"); struct.pack_into("<I", e.d, off, 0x7FFFFFFF)
    put("dwarf-unit-length-huge", e.bytes())
    e = base(); off, _ = e.sec(".debug_info"); struct.pack_into("<I", e.d, off, 0xFFFFFFF0)
    put("dwarf-unit-length-reserved", e.bytes())
    e = base(); off, _ = e.sec(".debug_info"); struct.pack_into("<H", e.d, off + 4, 99)
    put("dwarf-version-99", e.bytes())
    # DWARF 5 unit header: length(4) version(2) unit_type(1) addr_size(1) abbrev_offset(4)
    e = base(); off, _ = e.sec(".debug_info"); struct.pack_into("<I", e.d, off + 8, 0xFFFFFF)
    put("dwarf-abbrev-offset-oob", e.bytes())
    e = base(); e.fill(".debug_abbrev", 0xFF); put("dwarf-abbrev-garbage", e.bytes())
    e = base(); off, size = e.sec(".debug_info"); r = random.Random(11)
    for _ in range(40):
        p = off + 12 + r.randrange(size - 12)
        e.d[p] ^= 1 << r.randrange(8)
    put("dwarf-info-bitflips", e.bytes())
    # .debug_line v5: length(4) version(2) addr_size(1) seg_sel(1) header_length(4)
    e = base(); off, _ = e.sec(".debug_line"); struct.pack_into("<I", e.d, off + 8, 0xFFFFFFF0)
    put("dwarf-line-header-length-huge", e.bytes())
    e = base(); off, size = e.sec(".debug_line"); r = random.Random(12)
    e.d[off + 40:off + size] = r.randbytes(size - 40); put("dwarf-line-garbage", e.bytes())
    e = base(); e.fill(".debug_str", ord("A")); e.fill(".debug_line_str", ord("B"))
    put("dwarf-strings-no-nul", e.bytes())
    # .debug_rnglists v5 header: length(4) version(2) addr(1) seg(1) offset_entry_count(4)
    e = base(); off, _ = e.sec(".debug_rnglists"); struct.pack_into("<I", e.d, off + 8, 0x7FFFFFFF)
    put("dwarf-rnglists-count-huge", e.bytes())
    e = base(); e.fill(".debug_rnglists", 0x07); put("dwarf-rnglists-garbage", e.bytes())
    e = base(); e.fill(".debug_aranges", 0xFF); put("dwarf-aranges-garbage", e.bytes())
    with tempfile.TemporaryDirectory() as t:
        for name, src in (("dwarf-origin-self-cycle", asm_dwarf("self")),
                          ("dwarf-origin-two-cycle", asm_dwarf("two")),
                          ("dwarf-deep-nesting", asm_dwarf("deep")),
                          ("dwarf-import-cycle", asm_dwarf("imports"))):
            s = os.path.join(t, name + ".s")
            open(s, "w").write(src)
            subprocess.run(["gcc", "-nostdlib", "-no-pie", "-Wl,--build-id", "-o",
                            os.path.join(HERE, name), s], check=True)


def asm_dwarf(kind):
    """A 32-byte function hostile_fn with hand-written DWARF 4 around it."""
    a = []
    w = a.append
    w("\t.text\n\t.globl _start\n\t.type _start,@function\n_start:\n\tret\n")
    w("\t.globl hostile_fn\n\t.type hostile_fn,@function\nhostile_fn:\n\t.fill 32,1,0x90\n")
    w("\t.size hostile_fn,32\n")
    # abbrevs: 1 CU, 2 subprogram(children), 3 inlined(origin, children),
    # 4 lexical_block(children), 5 subprogram decl with specification, 6 leaf inlined
    w("\t.section .debug_abbrev,\"\",@progbits\n")
    w("\t.uleb128 1\n\t.uleb128 0x11\n\t.byte 1\n\t.uleb128 0x03\n\t.uleb128 0x08\n"
      "\t.uleb128 0x11\n\t.uleb128 0x01\n\t.uleb128 0x12\n\t.uleb128 0x07\n\t.byte 0,0\n")
    w("\t.uleb128 2\n\t.uleb128 0x2e\n\t.byte 1\n\t.uleb128 0x03\n\t.uleb128 0x08\n"
      "\t.uleb128 0x11\n\t.uleb128 0x01\n\t.uleb128 0x12\n\t.uleb128 0x07\n\t.byte 0,0\n")
    w("\t.uleb128 3\n\t.uleb128 0x1d\n\t.byte 1\n\t.uleb128 0x31\n\t.uleb128 0x13\n"
      "\t.uleb128 0x11\n\t.uleb128 0x01\n\t.uleb128 0x12\n\t.uleb128 0x07\n\t.byte 0,0\n")
    w("\t.uleb128 4\n\t.uleb128 0x0b\n\t.byte 1\n"
      "\t.uleb128 0x11\n\t.uleb128 0x01\n\t.uleb128 0x12\n\t.uleb128 0x07\n\t.byte 0,0\n")
    w("\t.uleb128 5\n\t.uleb128 0x2e\n\t.byte 0\n\t.uleb128 0x47\n\t.uleb128 0x13\n\t.byte 0,0\n")
    # 7 imported_unit (import: ref_addr), 8 partial_unit (dwz)
    w("\t.uleb128 7\n\t.uleb128 0x3d\n\t.byte 0\n\t.uleb128 0x18\n\t.uleb128 0x10\n\t.byte 0,0\n")
    w("\t.uleb128 8\n\t.uleb128 0x3c\n\t.byte 1\n\t.uleb128 0x03\n\t.uleb128 0x08\n\t.byte 0,0\n")
    w("\t.byte 0\n")
    w("\t.section .debug_info,\"\",@progbits\n.Lcu:\n\t.long .Lcu_end - .Lcu - 4\n"
      "\t.short 4\n\t.long 0\n\t.byte 8\n")
    w(".Lcu_die:\n\t.uleb128 1\n\t.asciz \"hostile.c\"\n\t.quad hostile_fn\n\t.quad 32\n")
    if kind == "imports":
        # dwz's imported units, in a cycle: CU -> PU1 -> PU2 -> PU1, PU1 -> itself, PU1 -> CU
        w("\t.uleb128 7\n\t.long .Lpu1_die - .Lcu\n")
    w("\t.uleb128 2\n\t.asciz \"hostile_fn\"\n\t.quad hostile_fn\n\t.quad 32\n")
    if kind == "self":
        w(".Lself:\n\t.uleb128 3\n\t.long .Lself - .Lcu\n\t.quad hostile_fn\n\t.quad 16\n\t.byte 0\n")
    elif kind == "two":
        w("\t.uleb128 3\n\t.long .Lx - .Lcu\n\t.quad hostile_fn\n\t.quad 16\n\t.byte 0\n")
        w(".Lx:\n\t.uleb128 5\n\t.long .Ly - .Lcu\n")
        w(".Ly:\n\t.uleb128 5\n\t.long .Lx - .Lcu\n")
    elif kind == "imports":
        pass
    else:
        depth = 5000
        for _ in range(depth):
            w("\t.uleb128 4\n\t.quad hostile_fn\n\t.quad 32\n")
        w("\t.byte 0\n" * depth)
    w("\t.byte 0\n")  # end of subprogram children
    w("\t.byte 0\n")  # end of CU children
    w(".Lcu_end:\n")
    if kind == "imports":
        w(".Lpu1:\n\t.long .Lpu1_end - .Lpu1 - 4\n\t.short 4\n\t.long 0\n\t.byte 8\n")
        w(".Lpu1_die:\n\t.uleb128 8\n\t.asciz \"pu1\"\n")
        for target in (".Lpu2_die", ".Lpu1_die", ".Lcu_die"):
            w("\t.uleb128 7\n\t.long %s - .Lcu\n" % target)
        w("\t.uleb128 2\n\t.asciz \"imported_fn\"\n\t.quad hostile_fn+16\n\t.quad 16\n\t.byte 0\n")
        w("\t.byte 0\n.Lpu1_end:\n")
        w(".Lpu2:\n\t.long .Lpu2_end - .Lpu2 - 4\n\t.short 4\n\t.long 0\n\t.byte 8\n")
        w(".Lpu2_die:\n\t.uleb128 8\n\t.asciz \"pu2\"\n")
        w("\t.uleb128 7\n\t.long .Lpu1_die - .Lcu\n\t.byte 0\n.Lpu2_end:\n")
    return "".join(a)


def kallsyms_cases():
    r = random.Random(21)
    put("kallsyms-binary", r.randbytes(8192))
    put("kallsyms-long-line", b"ffffffff81000000 T " + b"x" * (1 << 20) + b"\nffffffff81001000 T after_long\n")
    put("kallsyms-addr-overflow", b"1" * 40 + b" T too_wide\nffffffff81000000 T ok_one\n")
    put("kallsyms-nul-bytes", b"ffffffff81000000 T a\0b\n\0\0\0\nffffffff81000100 T next\n")
    # Subset copies (psym-collect's default): read strictly, a lie is refused.
    h = b"psym-kallsyms-subset 1\n"
    put("kallsyms-subset-header-garbage", b"psym-kallsyms-subset 1\x01\xff\n" + b"ffffffff81000000 t a\nend\n")
    put("kallsyms-subset-unsorted", h + b"ffffffff81000200 t b\nffffffff81000000 t a\nend\n")
    put("kallsyms-subset-overlap", h + b"ffffffff81000000 t a\nffffffff81000000 -\nend\n")
    put("kallsyms-subset-cut", h + b"ffffffff81000000 t a\nffffffff81000040 -\n")
    put("kallsyms-subset-headless", b"ffffffff81000000 t a\nffffffff81000040 -\nend\n")
    # Valid, but kernel.pb's address (ffffffff81000100) is past the bound: no name.
    put("kallsyms-subset-uncovered", h + b"ffffffff81000000 t a\nffffffff81000080 -\n"
        b"ffffffff81000200 t far\nend\n")


def perfmap_cases():
    r = random.Random(22)
    put("perfmap-binary", r.randbytes(8192))
    put("perfmap-wraparound.map", b"ffffffffffffff00 1000 wraps_around\n1000 10 fine\n")
    put("perfmap-long-line.map", b"1000 10 " + b"n" * (1 << 20) + b"\n2000 10 after_long\n")
    put("perfmap-zero-and-overlap.map",
        b"1000 0 zero_size\n1000 100 outer\n1010 10 inner_later\n1000 100 outer_again\n")


def jitdump_cases():
    good = open(os.path.join(HERE, "..", "..", "tests", "fuzz", "corpus", "perfmap", "jitdump"), "rb").read()[1:]  # fuzz selector byte
    hdr = struct.unpack_from("<I", good, 8)[0]  # header total_size
    put("jit-bad-magic.dump", b"XXXX" + good[4:])
    put("jit-truncated.dump", good[:hdr + 20])
    d = bytearray(good); struct.pack_into("<I", d, hdr + 4, 0); put("jit-record-size-zero.dump", bytes(d))
    d = bytearray(good); struct.pack_into("<I", d, hdr + 4, 0xFFFFFFF0); put("jit-record-size-huge.dump", bytes(d))
    d = bytearray(good); struct.pack_into("<I", d, 8, 0xFFFFFFF0); put("jit-header-size-huge.dump", bytes(d))
    # The name runs to the end of the record without a NUL.
    d = bytearray(good)
    name_at = good.index(b"jitted_fn")
    d[name_at:name_at + 10] = b"Z" * 10
    put("jit-name-no-nul.dump", bytes(d))


def deb(name, entries, truncate=None, member_size=None):
    tb = io.BytesIO()
    with tarfile.open(fileobj=tb, mode="w", format=tarfile.GNU_FORMAT) as t:
        for path, data, kind in entries:
            ti = tarfile.TarInfo(path)
            if kind == "link":
                ti.type = tarfile.SYMTYPE
                ti.linkname = data.decode()
                t.addfile(ti)
            else:
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
    data = lzma.compress(tb.getvalue())
    if truncate:
        data = data[:truncate]
    out = io.BytesIO()
    out.write(b"!<arch>\n")
    for mname, body in ((b"debian-binary", b"2.0\n"), (b"data.tar.xz", data)):
        size = member_size if (member_size and mname != b"debian-binary") else len(body)
        out.write(mname.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6)
                  + b"100644".ljust(8) + str(size).encode().ljust(10) + b"`\n")
        out.write(body + (b"\n" if len(body) % 2 else b""))
    put(name, out.getvalue())


def deb_cases():
    r = random.Random(23)
    deb("deb-traversal.deb", [("./usr/lib/debug/../../../../escaped", b"x", "file")])
    deb("deb-absolute.deb", [("/etc/evil", b"x", "file")])
    deb("deb-symlink-escape.deb", [("usr/lib/debug/.build-id/aa/bb.debug", b"/etc/passwd", "link")])
    deb("deb-truncated.deb", [("usr/lib/debug/big.debug", r.randbytes(100000), "file")], truncate=5000)
    deb("deb-member-size-huge.deb", [("usr/lib/debug/x.debug", b"x", "file")], member_size=99999999999)
    put("deb-not-ar.deb", b"hello world, not an archive\n")


def archive(name, entries, truncate=None, raw=None):
    """A psym archive (psym archive's .tar.zst, read by --debug-pkg)."""
    tb = io.BytesIO()
    with tarfile.open(fileobj=tb, mode="w", format=tarfile.PAX_FORMAT) as t:
        for path, data, kind in entries:
            ti = tarfile.TarInfo(path)
            if kind == "link":
                ti.type = tarfile.SYMTYPE
                ti.linkname = data.decode()
                t.addfile(ti)
            else:
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
    data = raw if raw is not None else subprocess.run(
        ["zstd", "-q", "-c", "-3"], input=tb.getvalue(), stdout=subprocess.PIPE, check=True).stdout
    if truncate:
        data = data[:truncate]
    put(name, data)


def archive_cases():
    r = random.Random(31)
    archive("archive-traversal.tar.zst", [(".build-id/../../../escaped", b"x", "file")])
    archive("archive-outside-tree.tar.zst", [("etc/evil", b"x", "file"),
                                             ("usr/lib/debug/x.debug", b"x", "file")])
    archive("archive-symlink-escape.tar.zst", [(".build-id/aa/bb.debug", b"/etc/passwd", "link")])
    archive("archive-truncated.tar.zst", [(".build-id/aa/big.debug", r.randbytes(100000), "file")],
            truncate=5000)
    archive("archive-corrupt.tar.zst", [], raw=b"\x28\xb5\x2f\xfd" + r.randbytes(4000))


def crashlog_cases():
    r = random.Random(24)
    put("crashlog-binary.txt", r.randbytes(8192))
    put("crashlog-hostile.txt",
        b"    #0 0xffffffffffffffffff in (/nonexistent+0x99999999999999999999)\n"
        b"    #1 0x1 (../../../../etc/passwd+0x10)\n"
        b"prog(+0x" + b"f" * 5000 + b")[0x1]\n"
        b"    #2 0x1234 (" + b"/" * 8000 + b"+0x10)\n")


SPLIT_SRC = r"""
static inline int sq(int x) { return x * x + 1; }
__attribute__((noinline)) int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
int main(int argc, char **argv) { (void)argv; return work(argc * 1000) & 1; }
"""


def split_base():
    """A split-DWARF binary that is its own .dwp: gcc 12 -O2 -g -gdwarf-5
    -gsplit-dwarf, the .dwo's sections added to the binary with objcopy and a
    hand-made .debug_cu_index (version 5, one unit) after them, so that
    `psym addr --dwp F -e F` reads the split unit from the same file. Its
    skeleton's dwo_name is "/nonexistent/split.dwo"."""
    with tempfile.TemporaryDirectory() as t:
        open(os.path.join(t, "split.c"), "w").write(SPLIT_SRC)
        subprocess.run(["gcc", "-O2", "-g", "-gdwarf-5", "-gsplit-dwarf", "-c",
                        "-fdebug-prefix-map=%s=/nonexistent" % t, "-o", "split.o", "split.c"],
                       cwd=t, check=True)
        subprocess.run(["gcc", "-Wl,--build-id", "-o", "split", "split.o"], cwd=t, check=True)
        dwo = Elf(open(os.path.join(t, "split.dwo"), "rb").read())
        add, contrib = [], {}
        for name, sect in ((".debug_info.dwo", 1), (".debug_abbrev.dwo", 3),
                           (".debug_line.dwo", 4), (".debug_str_offsets.dwo", 6),
                           (".debug_rnglists.dwo", 8), (".debug_str.dwo", None)):
            if name not in dwo.secs:
                continue
            off, size = dwo.sec(name)
            path = os.path.join(t, name.strip("."))
            open(path, "wb").write(dwo.d[off:off + size])
            add += ["--add-section", "%s=%s" % (name, path)]
            if sect:
                contrib[sect] = size
        off, _ = dwo.sec(".debug_info.dwo")
        (dwo_id,) = struct.unpack_from("<Q", dwo.d, off + 12)
        cols = sorted(contrib)
        idx = struct.pack("<HHIII", 5, 0, len(cols), 1, 2)       # version, cols, units, slots
        slots = [0, 0]
        slots[dwo_id & 1] = dwo_id
        idx += struct.pack("<QQ", *slots)
        idx += struct.pack("<II", *[1 if x else 0 for x in slots])
        idx += struct.pack("<%dI" % len(cols), *cols)
        idx += struct.pack("<%dI" % len(cols), *[0] * len(cols))
        idx += struct.pack("<%dI" % len(cols), *[contrib[c] for c in cols])
        open(os.path.join(t, "cu_index"), "wb").write(idx)
        add += ["--add-section", ".debug_cu_index=%s" % os.path.join(t, "cu_index")]
        subprocess.run(["objcopy"] + add + ["split", "split-self"], cwd=t, check=True)
        return Elf(open(os.path.join(t, "split-self"), "rb").read()), dwo_id


def split_cases():
    e, dwo_id = split_base()
    put(os.path.join("..", "..", "tests", "fuzz", "corpus", "dwarf", "seed-split5"), e.bytes())
    # .debug_cu_index: version(2) pad(2) cols(4) units(4) slots(4), then 2 slots.
    e2 = Elf(e.bytes()); e2.fill(".debug_cu_index", 0xFF); put("split-dwp-index-garbage", e2.bytes())
    e2 = Elf(e.bytes()); off, _ = e2.sec(".debug_cu_index")
    struct.pack_into("<I", e2.d, off + 12, 0x40000000)
    put("split-dwp-slots-huge", e2.bytes())
    # The offsets row (after 16 + 2 * 12 + 4 * cols bytes): far past the section.
    e2 = Elf(e.bytes()); off, _ = e2.sec(".debug_cu_index")
    (cols,) = struct.unpack_from("<I", e2.d, off + 4)
    struct.pack_into("<I", e2.d, off + 40 + 4 * cols, 0x7FFFFFF0)
    put("split-dwp-contribution-oob", e2.bytes())
    # The split unit's dwo id (header offset 12) differs from the skeleton's and the index's.
    e2 = Elf(e.bytes()); off, _ = e2.sec(".debug_info.dwo")
    struct.pack_into("<Q", e2.d, off + 12, dwo_id ^ 0x5A5A)
    put("split-dwo-other-id", e2.bytes())


def manifest_cases():
    """Batch manifests (psym symbolize --manifest): INPUT<TAB>OUTPUT lines."""
    ok = b"# a comment\n\nin/a.pb\tout/a.pb\n"
    put("manifest-no-tab.txt", ok + b"in/b.pb out/b.pb\n")
    put("manifest-two-tabs.txt", ok + b"in/b.pb\tout/b.pb\textra\n")
    put("manifest-empty-output.txt", ok + b"in/b.pb\t\n")
    put("manifest-crlf.txt", b"in/a.pb\tout/a.pb\r\n")
    put("manifest-nul.txt", ok + b"in/b\0.pb\tout/b.pb\n")
    put("manifest-dup-output.txt", ok + b"in/b.pb\tout/a.pb\n")
    put("manifest-output-is-input.txt", ok + b"in/c.pb\tin/d.pb\nin/d.pb\tout/d.pb\n")
    put("manifest-same-path.txt", ok + b"in/b.pb\tin/b.pb\n")
    put("manifest-stdio.txt", ok + b"-\tout/b.pb\n")
    put("manifest-long-line.txt", ok + b"in/" + b"x" * 9000 + b"\tout/x.pb\n")
    put("manifest-binary", bytes(random.Random(27).randrange(256) for _ in range(4096)))
    corpus = os.path.join(HERE, "..", "..", "tests", "fuzz", "corpus", "manifest")
    os.makedirs(corpus, exist_ok=True)
    for name, data in (("seed-ok", ok + b"in/b.pb\tout/b.pb\n/abs/c.pb\t/abs/out/c.pb"),
                       ("seed-dup", ok + b"x\tout/a.pb\n"),
                       ("seed-utf8", "in/é.pb\tout/\u00e9.pb\n".encode())):
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(data)


# ---- relocatable objects (ET_REL): .rela.debug_* applied by elfreloc.c --------
REL_BASE = os.path.join(HERE, "..", "..", "tests", "fuzz", "corpus", "dwarf", "seed-rel-x86")


def reloc_cases():
    """seed-rel-x86 is gcc 12 -O2 -g -c tests/reloc/inl.c (x86-64, DWARF 5)."""
    raw = open(REL_BASE, "rb").read()
    # The first relocation of .rela.debug_info written 1 MiB past the section.
    e = Elf(raw); off, _ = e.sec(".rela.debug_info")
    struct.pack_into("<Q", e.d, off, 1 << 20)
    put("reloc-offset-outside", e.bytes())
    # The last byte of the section: an 8-byte field would run past its end.
    e = Elf(raw); off, _ = e.sec(".rela.debug_info"); _, isize = e.sec(".debug_info")
    struct.pack_into("<Q", e.d, off, isize - 1)
    struct.pack_into("<Q", e.d, off + 8, (struct.unpack_from("<Q", e.d, off + 8)[0] & ~0xFFFFFFFF) | 1)
    put("reloc-field-straddles-end", e.bytes())
    # A relocation count far larger than the file (sh_size 2^40).
    e = Elf(raw); e.set_sh(".rela.debug_info", size=1 << 40)
    put("reloc-count-huge", e.bytes())
    # .rela.debug_info made to apply to .debug_abbrev: more relocations
    # than the section has bytes.
    e = Elf(raw); e.set_sh(".rela.debug_info", info=e.secs[".debug_abbrev"])
    put("reloc-count-over-target", e.bytes())
    # Every relocation names symbol 0x7fffffff.
    e = Elf(raw); off, size = e.sec(".rela.debug_info")
    for p in range(off, off + size, 24):
        (info,) = struct.unpack_from("<Q", e.d, p + 8)
        struct.pack_into("<Q", e.d, p + 8, (0x7FFFFFFF << 32) | (info & 0xFFFFFFFF))
    put("reloc-symbol-oob", e.bytes())
    # Entry size 7 and a link to no symbol table.
    e = Elf(raw); e.set_sh(".rela.debug_line", entsize=7); put("reloc-entsize-odd", e.bytes())
    e = Elf(raw); e.set_sh(".rela.debug_line", link=e.secs[".debug_str"])
    put("reloc-link-not-symtab", e.bytes())


def kmod_cases():
    """Compressed kernel modules (kmod.c): bombs of 1.2 GiB of zeros (over
    the 1 GiB cap, and 6,000 times their size: refused at 64 times), a
    stream of garbage, a module that decompresses to no ELF file."""
    z = lzma.LZMACompressor(preset=9)
    chunk = bytes(1 << 20)
    out = [z.compress(chunk) for _ in range(1200)]
    out.append(z.flush())
    put("kmod-bomb.ko.xz", b"".join(out))
    put("kmod-garbage.ko.xz", b"\xfd7zXZ\x00" + random.Random(11).randbytes(2000))
    put("kmod-not-elf.ko.gz", gzip.compress(b"not a module\n" * 100, mtime=0))


if __name__ == "__main__":
    reloc_cases()
    kmod_cases()
    elf_cases()
    dwarf_cases()
    split_cases()
    kallsyms_cases()
    perfmap_cases()
    jitdump_cases()
    deb_cases()
    archive_cases()
    crashlog_cases()
    manifest_cases()
