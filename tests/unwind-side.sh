#!/bin/sh
# psym symbolize on what psym-collect --stack-copy writes, without BPF: a
# C program built -O2 -fomit-frame-pointer is stopped under gdb (as in
# unwind-gdb.sh), tests/unwind/unwind-mkside turns the stops into the
# provisional profile (leaf only, marked as needing unwinding) and its
# side file OUT.d/ustacks.gz. psym symbolize must unwind every sample to
# _start and give the program's known call tree; hostile side files
# (truncated, bit flips, garbage, another version, registers pointing
# anywhere) end with one line naming the file or with cut stacks.
. "$top_srcdir/tests/lib.sh"
need gdb
need python3
need gcc
U=$top_srcdir/tests/unwind
MKSIDE=$top_builddir/tests/unwind/unwind-mkside
gdb -q -batch -ex run --args /bin/true >/dev/null 2>&1 || skip "gdb cannot run programs here"

gcc -O2 -g -fomit-frame-pointer -o prog "$U/prog.c" || fail "build"
mkdir d
PSYM_OUT=$T/d PSYM_BREAKS="leaf,'puts@plt'" PSYM_STOPS=100 \
	timeout 300 gdb -q -batch -x "$U/gdbdump.py" --args ./prog 2 >gdb.log 2>&1
# shellcheck disable=SC2046
"$MKSIDE" p.pb.gz $(ls d/*.dump | sort -t/ -k2 -n) || fail "unwind-mkside"
check "side file is mode 0600" test "$(stat -c %a p.pb.gz.d/ustacks.gz)" = 600

"$PSYM" symbolize p.pb.gz -o s.pb.gz 2>log || { cat log; fail "symbolize"; }
n=$(ls d/*.dump | wc -l)
grep -q "unwound $n samples" log && pass "$n samples unwound" || { cat log; fail "unwound count"; }
"$PSYM" folded s.pb.gz >folded || fail "folded"
total=$(awk '{ n += $NF } END { print n }' folded)
main=$(awk '/^_start;__libc_start_main;__libc_start_call_main;main;/ { n += $NF } END { print n + 0 }' folded)
check "every sample reaches main through _start ($main of $total)" test "$main" = "$total"
# The known call tree: recursion 4 deep, qsort's callback, the signal handler, the PLT.
# shellcheck disable=SC2043
for want in "main;a;b;recurse;recurse;recurse;recurse;leaf " \
	"main;a;b;qsort_r;msort_with_tmp;msort_with_tmp.part.0;cmp;leaf " \
	"main;a;b;raise;__pthread_kill_implementation;__restore_rt;leaf " \
	";main;puts@plt "; do
	grep -qF "$want" folded && pass "stack $want" || fail "no stack $want"
done
# Known shares (the whole run is captured): per loop one recursion, one signal.
rec=$(awk '/;recurse;leaf / { n += $NF } END { print n + 0 }' folded)
sig=$(awk '/;__restore_rt;leaf / { n += $NF } END { print n + 0 }' folded)
check "recursion and signal each once per loop ($rec, $sig)" test "$rec" = "$sig" -a "$rec" -gt 0

# Batch mode unwinds each profile that has its side directory.
mkdir bdir && cp -r p.pb.gz p.pb.gz.d bdir/
"$PSYM" symbolize -j 2 bdir -o bout 2>blog || fail "batch symbolize: $(tail -n 1 blog)"
"$PSYM" folded bout/p.pb.gz 2>/dev/null | cmp -s - folded && pass "batch: the same stacks" ||
	fail "batch: other stacks than a single run"

# --limit cfi-steps: a frame whose CFA program needs more is cut, said in the summary.
"$PSYM" symbolize --limit cfi-steps=2 p.pb.gz -o lim.pb.gz 2>lim.log || fail "symbolize --limit cfi-steps"
grep -q "bad-rule $n" lim.log && pass "--limit cfi-steps=2: every stack cut (bad-rule)" ||
	{ cat lim.log; fail "--limit cfi-steps=2 not applied"; }

check "--limit cfi-steps=2: bad-rule explained" grep -q "bad-rule $n: code with no CFI" lim.log

# The summary says what out-of-stack and missing files mean (issue 29 item 4).
mkdir small
# shellcheck disable=SC2046
PSYM_MKSIDE_STACK_MAX=48 "$MKSIDE" small/p.pb.gz $(ls d/*.dump | sort -t/ -k2 -n) || fail "unwind-mkside (48-byte copies)"
"$PSYM" symbolize small/p.pb.gz -o small/s.pb.gz 2>small/log || fail "symbolize with 48-byte copies"
cat small/log
check "48-byte stack copies: out-of-stack counted" grep -q "out-of-stack [1-9]" small/log
check "out-of-stack explained: the copy size and --stack-copy BYTES" \
	grep -q "out-of-stack [0-9]*: the caller's frame lay beyond the stack bytes psym-collect copied (48 at most); record with a larger --stack-copy BYTES" small/log
mv prog prog.away
"$PSYM" symbolize p.pb.gz -o gone.pb.gz 2>gone.log
mv prog.away prog
cat gone.log
check "out-of-stack with a file not found: the file first, not --stack-copy" \
	grep -q "out-of-stack [0-9]*: .*first give the files not found" gone.log
check "a file not found: named, with what to give" \
	grep -q "files not found: .*(give them with --binary-path, --sysroot or --debug-dir): $T/prog (" gone.log

# Frame-pointer-free unwinding without the side file: a warning, leaf only.
mkdir nos && cp p.pb.gz nos/
"$PSYM" symbolize nos/p.pb.gz -o nos/s.pb.gz 2>nos/log || fail "symbolize without side file"
grep -q "need unwinding, but there is no side file" nos/log && pass "missing side file: said" ||
	fail "missing side file not reported"

# ---- hostile side files -----------------------------------------------------------
zcat p.pb.gz.d/ustacks.gz >raw
# hostile NAME: p.pb.gz with the side file NAME.gz; exit 2 with one line naming it, or 0.
hostile() {
	name=$1 want=$2
	mkdir "h-$name"
	cp p.pb.gz "h-$name/"
	mkdir "h-$name/p.pb.gz.d"
	cp "$name.gz" "h-$name/p.pb.gz.d/ustacks.gz"
	rc=0
	timeout 60 "$PSYM" symbolize "h-$name/p.pb.gz" -o "h-$name/s.pb.gz" 2>"h-$name/log" || rc=$?
	case $want in
	2)
		if [ "$rc" = 2 ] && [ "$(wc -l <"h-$name/log")" = 1 ] &&
			grep -q "ustacks.gz" "h-$name/log" && [ ! -e "h-$name/s.pb.gz" ]; then
			pass "$name: $(cat "h-$name/log")"
		else
			fail "$name: exit $rc, $(cat "h-$name/log")"
		fi ;;
	*)
		if [ "$rc" = 0 ]; then pass "$name: survived"; else fail "$name: exit $rc $(tail -n1 "h-$name/log")"; fi ;;
	esac
}
head -c 3000 raw | gzip >trunc.gz
hostile trunc 2
head -c 20 raw | gzip >trunc-header.gz
hostile trunc-header 2
head -c 1000 p.pb.gz.d/ustacks.gz >gztrunc.gz
hostile gztrunc 2
head -c 4096 /dev/urandom >garbage.gz
hostile garbage 2
python3 - raw <<'PY'
import gzip, struct, sys, random
raw = bytearray(open(sys.argv[1], "rb").read())
def w(name, b): open(name + ".gz", "wb").write(gzip.compress(bytes(b)))
v = bytearray(raw); v[8] = 9; w("version", v)
m = bytearray(raw); m[12] = 183; w("machine", m)
# the first sample record: registers pointing anywhere, an absurd length
off = 32
recs = []
while off + 8 <= len(raw):
    t, l = struct.unpack_from("<II", raw, off)
    recs.append((t, off, l))
    off += 8 + l
t, s, l = [r for r in recs if r[0] == 2][0]
wild = bytearray(raw)
for reg, val in ((7, 0xfffffffffffffff8), (6, 0), (16, 0x4141414141414141)):
    struct.pack_into("<Q", wild, s + 8 + 40 + 8 * reg, val)
t2, s2, l2 = [r for r in recs if r[0] == 2][1]
struct.pack_into("<Q", wild, s2 + 8 + 40 + 8 * 7, 0)
w("wild-regs", wild)
big = bytearray(raw); struct.pack_into("<I", big, s + 4, 0x7fffffff); w("huge-record", big)
# EXE records (type 3: u32 pid, u16 length, path) after the first PROCESS
pid = struct.unpack_from("<I", raw, [r for r in recs if r[0] == 1][0][1] + 8)[0]
def exe(body): return struct.pack("<II", 3, len(body)) + body
at = [r for r in recs if r[0] == 1][0]
at = at[1] + 8 + at[2]
def with_exe(name, body): w(name, raw[:at] + exe(body) + raw[at:])
with_exe("exe-long", struct.pack("<IH", pid, 600) + b"/x" * 300)
with_exe("exe-past-end", struct.pack("<IH", pid, 40) + b"/short")
with_exe("exe-nul", struct.pack("<IH", pid, 6) + b"/a\0b/c")
with_exe("exe-empty", struct.pack("<IH", pid, 0))
with_exe("exe-unknown-pid", struct.pack("<IH", 4000000, 6) + b"/a/b/c")
# MNTNS records (type 4: u32 pid, u64 inode)
def mntns(name, body): w(name, raw[:at] + struct.pack("<II", 4, len(body)) + body + raw[at:])
mntns("mntns-short", struct.pack("<IH", pid, 7))
mntns("mntns-zero", struct.pack("<IQ", pid, 0))
mntns("mntns-long", struct.pack("<IQI", pid, 7, 0))
mntns("mntns-ok", struct.pack("<IQ", pid, 4026532177))
rnd = random.Random(7)
for k in range(8):
    f = bytearray(raw)
    for _ in range(6):
        i = rnd.randrange(32, len(f)); f[i] ^= 1 << rnd.randrange(8)
    w("flip%d" % k, f)
PY
hostile version 2
hostile machine 2
hostile huge-record 2
hostile wild-regs 0
for name in exe-long exe-past-end exe-nul exe-empty; do
	hostile $name 2
done
hostile exe-unknown-pid 0
for name in mntns-short mntns-zero mntns-long; do
	hostile $name 2
done
hostile mntns-ok 0
for k in 0 1 2 3 4 5 6 7; do
	# a flip lands in stack bytes (survived, maybe cut) or a header (one line, exit 2)
	mkdir "h-flip$k" "h-flip$k/p.pb.gz.d"
	cp p.pb.gz "h-flip$k/" && cp "flip$k.gz" "h-flip$k/p.pb.gz.d/ustacks.gz"
	rc=0
	timeout 60 "$PSYM" symbolize "h-flip$k/p.pb.gz" -o "h-flip$k/s.pb.gz" 2>"h-flip$k/log" || rc=$?
	if [ "$rc" = 0 ] || { [ "$rc" = 2 ] && [ "$(wc -l <"h-flip$k/log")" = 1 ]; }; then
		pass "flip$k: exit $rc"
	else
		fail "flip$k: exit $rc: $(cat "h-flip$k/log")"
	fi
done
finish
