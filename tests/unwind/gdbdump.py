# gdb -batch -x gdbdump.py: at each stop of the breakpoints given in
# PSYM_BREAKS (comma-separated), write OUT/N.dump (registers by DWARF
# number, mappings, the stack copy file) and OUT/N.gdb (gdb's own frame
# chain: the oracle), for at most PSYM_STOPS stops.
import gdb, os

out = os.environ["PSYM_OUT"]
maxstops = int(os.environ.get("PSYM_STOPS", "20"))
copy = int(os.environ.get("PSYM_COPY", "16384"))
regs = ["rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
        "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"]

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set backtrace past-main on")
gdb.execute("handle SIGUSR1 nostop noprint pass")
gdb.execute("set breakpoint pending on")
for b in os.environ["PSYM_BREAKS"].split(","):
    gdb.execute("break " + b)
gdb.execute("run")
n = 0
while n < maxstops:
    try:
        inf = gdb.selected_inferior()
        if not inf.pid:
            break
    except gdb.error:
        break
    fr = gdb.newest_frame()
    sp = int(fr.read_register("rsp")) & (2**64 - 1)
    maps = open("/proc/%d/maps" % inf.pid).read().splitlines()
    end = sp + copy
    for m in maps:
        lo, hi = (int(x, 16) for x in m.split()[0].split("-"))
        if lo <= sp < hi:
            end = min(end, hi)
    mem = bytes(inf.read_memory(sp, end - sp))
    with open("%s/%d.stack" % (out, n), "wb") as f:
        f.write(mem)
    with open("%s/%d.dump" % (out, n), "w") as f:
        for i, r in enumerate(regs):
            f.write("reg %d 0x%x\n" % (i, int(fr.read_register(r)) & (2**64 - 1)))
        for m in maps:
            p = m.split()
            if len(p) >= 6 and p[5].startswith("/"):
                lo, hi = p[0].split("-")
                f.write("map 0x%s 0x%s 0x%s %s\n" % (lo, hi, p[2], p[5]))
        f.write("stack 0x%x %s/%d.stack\n" % (sp, out, n))
    with open("%s/%d.gdb" % (out, n), "w") as f:
        g = fr
        while g is not None:
            f.write("0x%x %s %s\n" % (g.pc(), {gdb.SIGTRAMP_FRAME: "sig", gdb.INLINE_FRAME: "inl", gdb.TAILCALL_FRAME: "tail"}.get(g.type(), "norm"),
                                      g.name() or "??"))
            try:
                g = g.older()
            except gdb.error:
                break
    n += 1
    try:
        gdb.execute("continue")
    except gdb.error:
        break
