#!/usr/bin/env python3
"""compare.py OURS GDB: psym's unwound chain (unwind-replay output) against
gdb's frame chain (gdbdump.py's N.gdb). gdb's inline and tail-call frames
are its own inventions from DWARF and have no physical frame: skipped. A
caller's gdb pc is the return address, psym's is return address - 1;
a signal trampoline's frame and the pc interrupted by the signal are
exact in both. Every gdb frame must be
matched, in order (exit 1 and a report otherwise)."""
import sys

ours = [l.split() for l in open(sys.argv[1])]
stop = [l for l in ours if l[0] == "stop"]
ours = [int(l[0], 16) for l in ours if l[0] != "stop"]
want = []
prev_sig = True  # the leaf is exact
for l in open(sys.argv[2]):
    pc, kind, name = l.split()[:3]
    if kind in ("inl", "tail"):
        continue
    want.append((int(pc, 16) - (0 if prev_sig or kind == "sig" else 1), name))
    prev_sig = kind == "sig"
bad = []
for i, (pc, name) in enumerate(want):
    got = ours[i] if i < len(ours) else None
    if got != pc:
        bad.append("frame %d (%s): psym %s, gdb %#x" % (i, name, hex(got) if got is not None else "none", pc))
if bad:
    print("\n".join(bad))
    print("psym stop:", " ".join(stop[0][1:]) if stop else "?")
    sys.exit(1)
print("%d frames agree (%s)" % (len(want), ",".join(n for _, n in want)))
