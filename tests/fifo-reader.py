#!/usr/bin/env python3
"""Read a FIFO into a file, ready before any writer comes.

usage: fifo-reader.py FIFO OUT READY [SECONDS]

Opens FIFO for reading without blocking (so a writer that will not wait,
psym's batch, finds a reader from then on), then creates READY, then
copies what writers send into OUT until the last one closes it, or
SECONDS (20) pass without a writer.
"""
import os
import select
import sys
import time

fifo, out, ready = sys.argv[1:4]
limit = float(sys.argv[4]) if len(sys.argv) > 4 else 20.0
fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
open(ready, "w").close()
end = time.monotonic() + limit
seen = False
po = select.poll()
po.register(fd, select.POLLIN)
with open(out, "wb") as f:
    while time.monotonic() < end:
        # Linux reports no hang-up before a first writer came and went.
        events = po.poll(200)
        try:
            b = os.read(fd, 1 << 16)
        except BlockingIOError:
            continue
        if b:
            seen = True
            f.write(b)
        elif seen or any(e & select.POLLHUP for _, e in events):
            break
os.close(fd)
