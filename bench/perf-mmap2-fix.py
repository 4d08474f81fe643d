#!/usr/bin/env python3
"""Repair the MMAP2 records of a perf.data that carry the build-ID flag
(PERF_RECORD_MISC_MMAP_BUILD_ID) over an inode payload.

When a perf event with attr.build_id (a BPF profiler's mapping tracker,
for example psym-collect's) is served the same mmap before perf record's
own event, the kernel may leave the flag set in the record it then writes
for perf: the payload is the ordinary major/minor/inode form, but the flag
says build ID. perf 6.1 then reads the device number as a build-ID size
(e.g. 254), and perf script and perf report -D abort ("assertion failed at
util/build-id.c", "stack smashing detected"). perf record without
--buildid-mmap asks for no build IDs, so every MMAP2 record of its file
that has the flag is such a record: the flag is cleared, in place. Prints
how many records were repaired.
Usage: perf-mmap2-fix.py perf.data   (recorded without --buildid-mmap)"""
import struct
import sys

PERF_RECORD_MMAP2 = 10
MISC_MMAP_BUILD_ID = 1 << 14

with open(sys.argv[1], "r+b") as f:
    head = f.read(104)
    if head[:8] != b"PERFILE2":
        sys.exit("not a perf.data file (or a pipe-mode one)")
    data_off, data_size = struct.unpack_from("<QQ", head, 40)
    f.seek(data_off)
    data = bytearray(f.read(data_size))
    pos = fixed = 0
    while pos + 8 <= len(data):
        typ, misc, size = struct.unpack_from("<IHH", data, pos)
        if size < 8:
            sys.exit("bad record size at %#x" % (data_off + pos))
        if typ == PERF_RECORD_MMAP2 and misc & MISC_MMAP_BUILD_ID:
            struct.pack_into("<H", data, pos + 4, misc & ~MISC_MMAP_BUILD_ID)
            fixed += 1
        pos += size
    if fixed:
        f.seek(data_off)
        f.write(data)
print("%d MMAP2 records repaired" % fixed)
