# gdb-multiarch -batch -x gdbdump-a64.py PROG, attached to qemu-aarch64's
# gdb stub (PSYM_PORT on 127.0.0.1): the AArch64 version of gdbdump.py. At
# each stop of the breakpoints in PSYM_BREAKS it writes OUT/N.dump
# ("arch aarch64", x0..x30, sp, pc as registers 0..32, the executable
# mappings of the program and its libraries from their PT_LOADs and the
# load addresses gdb knows, the stack copy file, "sigtramp" for a signal
# trampoline gdb found, which qemu-user keeps outside any file) and
# OUT/N.gdb (gdb's frame chain: the oracle), for at most PSYM_STOPS stops.
import gdb, os, re, subprocess

out = os.environ["PSYM_OUT"]
maxstops = int(os.environ.get("PSYM_STOPS", "20"))
copy = int(os.environ.get("PSYM_COPY", "16384"))
regs = ["x%d" % i for i in range(31)] + ["sp", "pc"]

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set backtrace past-main on")
gdb.execute("set breakpoint pending on")
if os.environ.get("PSYM_SYSROOT"):
    gdb.execute("set sysroot " + os.environ["PSYM_SYSROOT"])
gdb.execute("target remote 127.0.0.1:" + os.environ["PSYM_PORT"])
gdb.execute("handle SIGUSR1 nostop noprint pass")
for b in os.environ["PSYM_BREAKS"].split(","):
    gdb.execute("break " + b)


def loads(path):
    """(vaddr, memsz, offset) of the executable PT_LOADs, and .text's address."""
    segs, text = [], None
    for l in subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout.splitlines():
        p = l.split()
        if p and p[0] == "LOAD" and "E" in p[6:-1]:
            segs.append((int(p[2], 16), int(p[5], 16), int(p[1], 16)))
    for l in subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout.splitlines():
        m = re.search(r"\]\s+\.text\s+\S+\s+([0-9a-f]+)", l)
        if m:
            text = int(m.group(1), 16)
    return segs, text


def mappings():
    """map lines: the program at its link address (non-PIE), libraries by their bias."""
    objs = [(gdb.current_progspace().filename, 0)]
    info = gdb.execute("info sharedlibrary", to_string=True)
    for l in info.splitlines():
        m = re.match(r"^(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+.*?\s(/\S+)$", l.strip())
        if m:
            segs, text = loads(m.group(2))
            if text is not None:
                objs.append((m.group(2), int(m.group(1), 16) - text))
    lines = []
    for path, bias in objs:
        for vaddr, memsz, off in loads(path)[0]:
            lo = (bias + vaddr) & ~0xfff
            lines.append("map 0x%x 0x%x 0x%x %s\n" % (lo, bias + vaddr + memsz, off & ~0xfff, path))
    return lines


gdb.execute("continue")
n = 0
while n < maxstops:
    try:
        inf = gdb.selected_inferior()
        if not inf.pid:
            break
        fr = gdb.newest_frame()
    except gdb.error:
        break
    sp = int(fr.read_register("sp")) & (2**64 - 1)
    mem = None
    size = copy
    while size >= 256 and mem is None:
        try:
            mem = bytes(inf.read_memory(sp, size))
        except gdb.MemoryError:
            size //= 2
    with open("%s/%d.stack" % (out, n), "wb") as f:
        f.write(mem or b"")
    chain, tramps = [], []
    g = fr
    while g is not None:
        kind = {gdb.SIGTRAMP_FRAME: "sig", gdb.INLINE_FRAME: "inl", gdb.TAILCALL_FRAME: "tail"}.get(g.type(), "norm")
        chain.append("0x%x %s %s\n" % (g.pc(), kind, g.name() or "??"))
        if kind == "sig":
            tramps.append(g.pc())
        try:
            g = g.older()
        except gdb.error:
            break
    with open("%s/%d.dump" % (out, n), "w") as f:
        f.write("arch aarch64\n")
        for i, r in enumerate(regs):
            f.write("reg %d 0x%x\n" % (i, int(fr.read_register(r)) & (2**64 - 1)))
        f.writelines(mappings())
        for t in tramps:
            f.write("sigtramp 0x%x 0x%x\n" % (t, t + 8))
        f.write("stack 0x%x %s/%d.stack\n" % (sp, out, n))
    with open("%s/%d.gdb" % (out, n), "w") as f:
        f.writelines(chain)
    n += 1
    try:
        gdb.execute("continue")
    except gdb.error:
        break
