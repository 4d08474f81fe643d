#!/usr/bin/env python3
"""Hostile inputs for the unwinder, made at test time (stdlib only).

  mkhostile.py asm KIND N STEPS > x.s
      KIND loop:  one function whose CFI is a signal frame ('S') that
                  leaves rsp where it was and reads rip from [rsp]: its
                  return address is itself, a loop of signal frames.
      KIND chain: N functions f0..fN-1, each an ordinary frame (CFA =
                  rsp + 8, rip at CFA - 8).
      Every FDE runs STEPS DW_CFA_nop instructions before its rules (not
      after them: the linker drops trailing nops).
  mkhostile.py side OUT.gz ELF BUILDID SAMPLES PIDS START LIMIT PC STACKWORDS...
      A stack-copy side file (src/unwind/ustacks.h, version 1): PIDS
      PROCESS records (pids 1000..) mapping ELF at [START, LIMIT) offset 0,
      each followed by SAMPLES/PIDS samples with rip = PC, rsp = 0x7ff000
      and the stack holding STACKWORDS (hex, 8 bytes each).
"""
import gzip
import struct
import sys


def asm(kind, n, steps):
    out = [".text"]
    nops = ".rept %d\n\t.cfi_escape 0\n\t.endr" % steps
    if kind == "loop":
        out += [".globl f0", ".type f0,@function", "f0:", ".cfi_startproc",
                ".cfi_signal_frame", nops, ".cfi_def_cfa rsp, 0", ".cfi_offset 16, 0",
                "\tnop", "\tnop", "\tret", ".cfi_endproc", ".size f0, .-f0"]
    else:
        for i in range(n):
            out += [".globl f%d" % i, ".type f%d,@function" % i, "f%d:" % i,
                    ".cfi_startproc", nops, ".cfi_offset 16, -8", "\tnop", "\tnop", "\tret",
                    ".cfi_endproc", ".size f%d, .-f%d" % (i, i)]
    out += [".globl _start", "_start:", "\tcall f0", "\thlt"]
    print("\n".join(out))


def side(path, elf, bid, samples, pids, start, limit, pc, words):
    with gzip.open(path, "wb") as f:
        f.write(b"PSYMUSTK" + struct.pack("<6I", 1, 62, 17, 1, 65536, 0))
        stack = b"".join(struct.pack("<Q", w) for w in words)
        per = max(1, samples // pids)
        for k in range(pids):
            pid = 1000 + k
            m = struct.pack("<QQQ", start, limit, 0)
            m += struct.pack("<B", len(bid)) + bid.encode()
            m += struct.pack("<H", len(elf)) + elf.encode()
            rec = struct.pack("<II", pid, 1) + m
            f.write(struct.pack("<II", 1, len(rec)) + rec)
            for i in range(per):
                regs = [0] * 17
                regs[7] = 0x7ff000
                regs[16] = pc
                rec = struct.pack("<IIII", pid, pid, 0, (1 << 7) | (1 << 16))
                rec += struct.pack("<Q", i) + b"hostile".ljust(16, b"\0")
                rec += struct.pack("<17Q", *regs) + struct.pack("<HH", 0, 0)
                rec += struct.pack("<I", len(stack)) + stack
                f.write(struct.pack("<II", 2, len(rec)) + rec)


if __name__ == "__main__":
    if sys.argv[1] == "asm":
        asm(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        a = sys.argv[2:]
        side(a[0], a[1], a[2], int(a[3]), int(a[4]), int(a[5], 16), int(a[6], 16),
             int(a[7], 16), [int(w, 16) for w in a[8:]])
