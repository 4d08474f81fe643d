#!/usr/bin/env python3
"""Small perf.data files, valid and hostile, for the reader's tests and fuzz seeds.

usage: mkperfdata.py OUTDIR

Writes perf.data as perf 6.x lays it out (tools/perf/Documentation/
perf.data-file-format.txt), one cpu-clock event with IP|TID|TIME|CALLCHAIN|
PERIOD and sample_id_all: COMM exec, an MMAP2 with its inline build ID,
samples (a kernel and a user callchain), FINISHED_ROUND, EXIT; the
features HOSTNAME, BUILD_ID and EVENT_DESC. Then the damaged copies listed
in testdata/bad/PERFDATA (each one's damage is written beside it here).
"""
import os
import struct
import sys

IP, TID, TIME, CALLCHAIN, PERIOD = 1, 2, 4, 32, 256
STYPE = IP | TID | TIME | CALLCHAIN | PERIOD
CTX_KERNEL, CTX_USER = (1 << 64) - 128, (1 << 64) - 512


def rec(rtype, body, misc=0):
    body += b"\0" * (-len(body) % 8)
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def trailer(pid, t):
    return struct.pack("<IIQ", pid, pid, t)


def cstr(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


def attr(size=128):
    a = struct.pack("<IIQQQQQ", 1, size, 0, 250000, STYPE, 0, (1 << 18) | (1 << 23))
    return a + b"\0" * (size - len(a))


def sample(pid, t, chain, misc=2):
    body = struct.pack("<QIIQQ", chain[1] if len(chain) > 1 else 0, pid, pid, t, 250000)
    body += struct.pack("<Q", len(chain)) + b"".join(struct.pack("<Q", c) for c in chain)
    return rec(9, body, misc)


def records(pid=100):
    out = [rec(3, struct.pack("<II", pid, pid) + cstr("work") + trailer(pid, 1000), 1 << 13)]
    bid = bytes(range(1, 21))
    mm = struct.pack("<IIQQQ", pid, pid, 0x400000, 0x2000, 0)
    mm += struct.pack("<BBH", 20, 0, 0) + bid + struct.pack("<II", 5, 2)
    out.append(rec(10, mm + cstr("/bin/work") + trailer(pid, 1001), 2 | (1 << 14)))
    out.append(sample(pid, 2000, [CTX_USER, 0x401010, 0x401234, 0x401400]))
    out.append(sample(pid, 3000, [CTX_KERNEL, 0xFFFFFFFF81001000, CTX_USER, 0x401020, 0x401400], misc=1))
    out.append(sample(pid, 4000, [CTX_USER, 0x401010, 0x401234, 0x401400]))
    out.append(rec(68, b""))
    out.append(rec(4, struct.pack("<IIIIQ", pid, 1, pid, 1, 5000) + trailer(pid, 5000)))
    return out


def features():
    feats = {}
    feats[3] = struct.pack("<I", 8) + b"testhost"
    k = struct.pack("<IHH", 67, 1 | (1 << 15), 0)  # header patched below
    k = struct.pack("<i", -1) + bytes(range(0x40, 0x54)) + bytes([20, 0, 0, 0]) + cstr("[kernel.kallsyms]")
    feats[2] = struct.pack("<IHH", 67, 1 | (1 << 15), 8 + len(k)) + k
    name = cstr("cpu-clock")
    feats[12] = struct.pack("<II", 1, 128) + attr() + struct.pack("<I", 1)
    feats[12] += struct.pack("<I", len(name)) + name + struct.pack("<Q", 7)
    return feats


def perf_file(recs, attr_bytes=None, data_size=None, attrs_size=None, attr_size=None):
    a = attr_bytes if attr_bytes is not None else attr()
    ids_off = 104
    ids = struct.pack("<Q", 7)
    attrs_off = ids_off + len(ids)
    fattr = a + struct.pack("<QQ", ids_off, len(ids))
    data_off = attrs_off + len(fattr)
    data = b"".join(recs)
    feats = features()
    bits = 0
    for f in feats:
        bits |= 1 << f
    sec_off = data_off + len(data)
    table, blobs = b"", b""
    pos = sec_off + 16 * len(feats)
    for f in sorted(feats):
        table += struct.pack("<QQ", pos + len(blobs), len(feats[f]))
        blobs += feats[f]
    hdr = b"PERFILE2" + struct.pack("<QQ", 104, attr_size if attr_size is not None else len(fattr))
    hdr += struct.pack("<QQ", attrs_off, attrs_size if attrs_size is not None else len(fattr))
    hdr += struct.pack("<QQ", data_off, data_size if data_size is not None else len(data))
    hdr += struct.pack("<QQ", 0, 0) + struct.pack("<QQQQ", bits, 0, 0, 0)
    return hdr + ids + fattr + data + table + blobs, data_off


def perf_pipe(recs):
    a = attr()
    out = b"PERFILE2" + struct.pack("<Q", 16)
    out += rec(64, a + struct.pack("<Q", 7))
    return out + b"".join(recs)


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)

    def w(name, data):
        with open(os.path.join(d, name), "wb") as fp:
            fp.write(data)

    good, data_off = perf_file(records())
    w("perf-good.data", good)
    w("perf-good-pipe.data", perf_pipe(records()))
    r = records()
    # A sample cut in the middle (the file ends there).
    cut = data_off + sum(len(x) for x in r[:3]) + 20
    w("perf-truncated-record.data", good[:cut])
    # The attribute says it is 4000 bytes, in an entry of 144.
    w("perf-attr-size-lies.data", perf_file(records(), attr_bytes=attr()[:4] + struct.pack("<I", 4000) + attr()[8:])[0])
    # The header's attr_size smaller than any attribute.
    w("perf-attr-size-small.data", perf_file(records(), attr_size=32)[0])
    # The data section claims 2^40 bytes: the records there are read, then the error.
    w("perf-data-size-2e40.data", perf_file(records(), data_size=1 << 40)[0])
    # The attributes section claims 2^40 bytes (2^40 / 144 events).
    w("perf-attrs-size-2e40.data", perf_file(records(), attrs_size=1 << 40)[0])
    # A record type no perf writes, in the middle: skipped by its size.
    r = records()
    w("perf-unknown-type.data", perf_file(r[:3] + [rec(200, b"\1" * 24)] + r[3:])[0])
    # A record whose size is less than its header.
    r = records()
    w("perf-record-size-4.data", perf_file(r[:3] + [struct.pack("<IHH", 9, 0, 4)] + r[3:])[0])
    # A sample whose callchain claims 2^40 entries.
    bad = sample(100, 2500, [CTX_USER, 0x401010])
    bad = bad[:8 + 32] + struct.pack("<Q", 1 << 40) + bad[8 + 40:]
    w("perf-callchain-huge.data", perf_file(r[:3] + [bad] + r[3:])[0])
    # An MMAP2 whose file name has no terminating NUL within the record.
    mm = r[1]
    body = mm[8:-16]
    body = body[:64] + b"X" * (len(body) - 64)
    w("perf-mmap-name-open.data", perf_file(r[:2] + [rec(10, body + b"\1" * 16)] + r[2:])[0])
    # A compressed record of garbage.
    w("perf-zstd-garbage.data", perf_file(r[:3] + [rec(81, b"\x28\xb5\x2f\xfd" + b"\xff" * 28)] + r[3:])[0])
    # Recorded big-endian: the magic byte-swapped.
    w("perf-big-endian.data", b"2ELIFREP" + good[8:])
    # Pipe mode cut inside a record.
    p = perf_pipe(records())
    w("perf-pipe-truncated.data", p[: len(p) - 30])


if __name__ == "__main__":
    main()
