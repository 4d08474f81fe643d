#!/usr/bin/env python3
"""Write a hostile-but-valid x86-64 ELF executable: NSEC executable sections
of 16 bytes each, laid out 32 bytes apart (a 16-byte gap after each), and
one zero-size STT_FUNC symbol "fN" at the start of each section. Zero-size
symbols end at their section's end, so this is the input on which a
per-symbol scan of the section table is quadratic. From 0xff00 sections on,
ELF's extended numbering is used (e_shnum 0 and e_shstrndx SHN_XINDEX, the
real values in section 0; symbol section indexes in SHT_SYMTAB_SHNDX).

usage: mkelf-sections.py OUT NSEC
Section i (1-based) is ".text.fI" at 0x400000 + 32*i, file offset 0x1000 + 16*i.
"""
import struct
import sys

out, nsec = sys.argv[1], int(sys.argv[2])
SHN_LORESERVE, SHN_XINDEX = 0xff00, 0xffff
BASE, STRIDE, SIZE, DATA = 0x400000, 32, 16, 0x1000

shstr = bytearray(b"\0")
def shname(s):
    off = len(shstr)
    shstr.extend(s.encode() + b"\0")
    return off

strtab = bytearray(b"\0")
text = bytearray()
shdrs = [None]  # section 0, filled in at the end
syms = [bytes(24)]
xindex = [0]
for i in range(1, nsec + 1):
    addr = BASE + STRIDE * i
    shdrs.append(struct.pack("<IIQQQQIIQQ", shname(".text.f%d" % i), 1, 6, addr,
                             DATA + len(text), SIZE, 0, 0, 16, 0))
    text.extend(b"\xc3" + b"\x90" * (SIZE - 1))
    nm = len(strtab)
    strtab.extend(b"f%d\0" % i)
    # st_name, st_info (GLOBAL FUNC), st_other, st_shndx, st_value, st_size 0
    syms.append(struct.pack("<IBBHQQ", nm, 0x12, 0, i if i < SHN_LORESERVE else SHN_XINDEX,
                            addr, 0))
    xindex.append(i)
symoff = DATA + len(text)
symtab = b"".join(syms)
stroff = symoff + len(symtab)
symndx, strndx, shstrndx, xndx = nsec + 1, nsec + 2, nsec + 3, nsec + 4
shdrs.append(struct.pack("<IIQQQQIIQQ", shname(".symtab"), 2, 0, 0, symoff, len(symtab),
                         strndx, 1, 8, 24))
shdrs.append(struct.pack("<IIQQQQIIQQ", shname(".strtab"), 3, 0, 0, stroff, len(strtab),
                         0, 0, 1, 0))
shstroff = stroff + len(strtab)
n_shstrtab, n_shndx = shname(".shstrtab"), shname(".symtab_shndx")
shdrs.append(struct.pack("<IIQQQQIIQQ", n_shstrtab, 3, 0, 0, shstroff, len(shstr), 0, 0, 1, 0))
xoff = (shstroff + len(shstr) + 3) & ~3
xdata = struct.pack("<%dI" % len(xindex), *xindex)
shdrs.append(struct.pack("<IIQQQQIIQQ", n_shndx, 18, 0, 0,
                         xoff, len(xdata), symndx, 0, 4, 4))
shoff = (xoff + len(xdata) + 7) & ~7
nshdr = len(shdrs)
big = nshdr >= SHN_LORESERVE
shdrs[0] = struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, nshdr if big else 0,
                       shstrndx if big else 0, 0, 0, 0)
# One PT_LOAD covering the text.
phdr = struct.pack("<IIQQQQQQ", 1, 5, DATA, BASE + STRIDE, BASE + STRIDE,
                   len(text), STRIDE * nsec, 0x1000)
ehdr = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01" + bytes(9), 2, 62, 1,
                   BASE + STRIDE, 64, shoff, 0, 64, 56, 1, 64, 0 if big else nshdr,
                   SHN_XINDEX if big else shstrndx)
img = bytearray(ehdr + phdr)
img.extend(bytes(DATA - len(img)))
img.extend(text + symtab + strtab + shstr)
img.extend(bytes(xoff - len(img)))
img.extend(xdata)
img.extend(bytes(shoff - len(img)))
img.extend(b"".join(shdrs))
with open(out, "wb") as f:
    f.write(img)
