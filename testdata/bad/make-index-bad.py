#!/usr/bin/env python3
"""Write the hostile index (index-*.psymidx) and GSYM (gsym-*.gsym) files of
testdata/bad from the good seeds of the fuzz corpus (an index made by
`psym index` and a GSYM made by `llvm-gsymutil-14 --convert` of a small
program with inlines). Hostile contents get valid checksums, so they reach
the record decoder. Run from the top of the source tree."""
import struct
import zlib

b = bytearray(open("tests/fuzz/corpus/index/good.psymidx", "rb").read())
g = open("tests/fuzz/corpus/gsym/good.gsym", "rb").read()
OUT = "testdata/bad/"
secs = [struct.unpack_from("<QQ", b, 56 + 16 * i) for i in range(6)]


def fix(x):
    """Recompute the chunk CRCs, the CRC table's CRC and the header's."""
    x = bytearray(x)
    crcs_off, crcs_len = secs[5]
    for c in range(crcs_len // 4):
        lo = 1024 + (c << 16)
        hi = min(lo + 65536, crcs_off)
        struct.pack_into("<I", x, crcs_off + 4 * c, zlib.crc32(bytes(x[lo:hi])))
    struct.pack_into("<I", x, 1016, zlib.crc32(bytes(x[crcs_off:crcs_off + crcs_len])))
    struct.pack_into("<I", x, 1020, zlib.crc32(bytes(x[:1020])))
    return x


def put(name, data):
    open(OUT + name, "wb").write(bytes(data))


funcs_off, funcs_len = secs[0]
strs_off, strs_len = secs[1]
x = bytearray(b)
x[funcs_off:funcs_off + funcs_len] = b"\xff" * funcs_len
put("index-funcs-ff.psymidx", fix(x))
# Offsets into the first function record of the seed (index format 2): its
# size, node count, then node 0 (parent, name, linkage, start line, start
# file at +6, start address flag at +7), its run count and runs (the first
# run's node at +11).
x = bytearray(b)
x[funcs_off + 11] ^= 0x55
put("index-funcs-garbage.psymidx", fix(x))
x = bytearray(b)
x[funcs_off + 6] ^= 0x55
put("index-start-file.psymidx", fix(x))
x = bytearray(b)
x[funcs_off + 7] ^= 0x02
put("index-start-flag.psymidx", fix(x))
x = bytearray(b)
x[strs_off:strs_off + strs_len] = b"A" * strs_len
put("index-strings-no-nul.psymidx", fix(x))
x = bytearray(b)
struct.pack_into("<Q", x, 40, 0xffffffff)  # ngroups
put("index-ngroups-huge.psymidx", fix(x))
x = bytearray(b)
struct.pack_into("<Q", x, 56, 8)  # FUNCS inside the header
put("index-section-in-header.psymidx", fix(x))
put("index-truncated.psymidx", b[:len(b) // 2])
x = bytearray(b)
x[len(b) * 2 // 3] ^= 1
put("index-bitflip.psymidx", x)

put("gsym-truncated.gsym", g[:len(g) // 2])
x = bytearray(g)
struct.pack_into("<I", x, 16, 0x7fffffff)  # NumAddresses
put("gsym-naddr-huge.gsym", x)
x = bytearray(g)
for i in range(64, len(x), 7):
    x[i] ^= 0xa5
put("gsym-bitflips.gsym", x)
x = bytearray(g)
struct.pack_into("<I", x, 20, len(g) - 3)  # a string table without a NUL
struct.pack_into("<I", x, 24, 3)
put("gsym-strtab-no-nul.gsym", x)
