#!/bin/sh
# An index truncated in place while a run uses it (cp over a store file,
# an NFS store) killed psym with SIGBUS (exit 135: the index was a mapping
# of the file) and lost the answers already made. Now the run goes on and
# exits 0, every answer the same as addr2line's. The run is psym addr fed
# through a pipe: the first address opens the index; once psym waits
# for the next line (blocked in read on standard input, as
# /proc/PID/syscall shows), the test truncates the index file to 4 KiB and
# sends the other addresses.
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need addr2line
[ -r /proc/self/syscall ] || skip "/proc/PID/syscall is not readable here"

python3 - <<'PY'
with open("prog.c", "w") as f:
    for i in range(1000):
        f.write("__attribute__((noinline)) int f%d(int n) { int s = 0; for (int i = 0; i < n; i++) s += (i ^ %d) * (i & %d); return s; }\n" % (i, i, i + 1))
    f.write("int main(int c, char **v) { (void)v; return (%s) & 1; }\n" % " + ".join("f%d(c)" % i for i in range(1000)))
PY
gcc -g -O1 -o prog prog.c || { fail "cannot build"; exit 1; }
nm prog | awk '$3 ~ /^f[0-9]+$/ { print "0x" $1 }' | sort >addrs
"$PSYM" index --index-store S prog >/dev/null 2>&1 || { fail "psym index"; exit 1; }
idx=$(ls S/*/*.psymidx)
check "the index is larger than what is left of it ($(wc -c <"$idx") bytes)" [ "$(wc -c <"$idx")" -gt 65536 ]
addr2line -f -i -e prog <addrs >a2l.txt
norm() { sed -e 's|^.*/||' -e 's| (discriminator [0-9]*)||' "$1"; }

python3 - "$PSYM" "$idx" addrs <<'PY' >run.txt 2>&1
import os, subprocess, sys, time
psym, idx, addrs = sys.argv[1:4]
lines = open(addrs).read().splitlines()
READ = {"x86_64": 0, "aarch64": 63}.get(os.uname().machine)
if READ is None:
    print("skip: unknown read syscall number"); sys.exit(77)
r, w = os.pipe()
os.write(w, (lines[0] + "\n").encode())  # there before psym reads: its first read returns it
p = subprocess.Popen([psym, "addr", "-v", "--index-store", "S", "--no-index-build", "-e", "prog"],
                     stdin=r, stdout=open("psym.txt", "w"), stderr=open("psym.err", "w"))
os.close(r)
def waiting():  # blocked in read(0, ...): the first address is answered
    try:
        f = open("/proc/%d/syscall" % p.pid).read().split()
    except OSError:
        return False
    return len(f) > 1 and f[0] == str(READ) and int(f[1], 16) == 0
while not waiting():
    if p.poll() is not None:
        print("psym exited early: %d" % p.returncode); sys.exit(1)
    time.sleep(0.02)
os.truncate(idx, 4096)
for l in lines[1:]:
    os.write(w, (l + "\n").encode())
os.close(w)
print("exit %d" % p.wait())
PY
grep -q '^skip:' run.txt && skip "$(cat run.txt)"
rc=$(sed -n 's/^exit //p' run.txt)
check "truncated under the run: psym exits 0 (was 135, SIGBUS): $(cat run.txt)" [ "$rc" = 0 ]
norm psym.txt >p.n
norm a2l.txt >a.n
check "the index answered: $(grep -m1 'from the index' psym.err | cut -c1-120)" grep -q "from the index" psym.err
check "every one of its $(wc -l <addrs) answers is addr2line's" cmp -s p.n a.n
finish
