"""The pixels of a PNG screenshot (8-bit RGB or RGBA, as Chromium writes
them), for the tests that look at what a browser drew: rows(path) gives
the rows top to bottom, each a list of (r, g, b); near() compares two
colours within a tolerance. Standard library only (struct, zlib)."""
import struct
import zlib


def size(path):
    """(width, height) from the IHDR chunk."""
    with open(path, "rb") as f:
        data = f.read(24)
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path + ": not a PNG"
    return struct.unpack(">II", data[16:24])


def rows(path, limit=None):
    """The first limit rows (all by default), scanline filters undone."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path + ": not a PNG"
    w, h = struct.unpack(">II", data[16:24])
    bpp = {2: 3, 6: 4}[data[25]]
    idat = b"".join(data[i + 8:i + 8 + struct.unpack(">I", data[i:i + 4])[0]]
                    for i in range(8, len(data) - 8) if data[i + 4:i + 8] == b"IDAT")
    raw, stride, prev, off, out = zlib.decompress(idat), w * bpp, bytearray(w * bpp), 0, []
    for _ in range(h if limit is None else min(h, limit)):
        f, line = raw[off], bytearray(raw[off + 1:off + 1 + stride])
        off += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return out


def near(p, q, tol=3):
    return all(abs(a - b) <= tol for a, b in zip(p, q))
