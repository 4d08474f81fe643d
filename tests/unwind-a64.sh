#!/bin/bash
# AArch64 stacks unwound offline, without arm64 hardware: tests/unwind/
# prog.c (recursion, a qsort callback, a signal handler, PLT calls) built
# with the cross gcc -O2 -fomit-frame-pointer runs under qemu-aarch64
# (-cpu max,sve=off: pointer authentication on; gdb 13 cannot read the SVE
# records qemu puts in signal frames) and gdb-multiarch stops it through
# qemu's gdb stub (127.0.0.1); at each stop tests/unwind/gdbdump-a64.py
# writes the registers, mappings and top of the stack, and gdb's own
# backtrace. psym's unwinder (unwind-replay) must find gdb's physical
# frames, in order, to _start:
#  - a static build, and a dynamic one through the PLT (qemu -L, gdb's
#    sysroot: the cross libc6-dev-arm64-cross);
#  - a build with signed return addresses (-mbranch-protection=pac-ret),
#    whose chains must name the functions gdb names in the unsigned build
#    (gdb cannot strip PAC bits through qemu 7.2's stub).
. "$top_srcdir/tests/lib.sh"
need qemu-aarch64 "Debian qemu-user"
need gdb-multiarch
need aarch64-linux-gnu-gcc "Debian gcc-aarch64-linux-gnu"
need aarch64-linux-gnu-addr2line
need aarch64-linux-gnu-nm
need python3
U=$top_srcdir/tests/unwind
REPLAY=$top_builddir/tests/unwind/unwind-replay
QEMU_PID=
trap 'cleanup; [ -n "$QEMU_PID" ] && kill "$QEMU_PID" 2>/dev/null' EXIT INT TERM

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# capture NAME BREAKS STOPS [-L SYSROOT] PROG ARGS...: dumps in NAME/
capture() {
	local name=$1 breaks=$2 stops=$3 p
	shift 3
	local sysroot=
	if [ "$1" = -L ]; then
		sysroot=$2
		shift 2
	fi
	mkdir -p "$name"
	p=$(port)
	qemu-aarch64 -cpu max,sve=off ${sysroot:+-L "$sysroot"} -g "$p" "$@" >"$name.out" 2>&1 &
	QEMU_PID=$!
	PSYM_OUT=$T/$name PSYM_BREAKS=$breaks PSYM_STOPS=$stops PSYM_PORT=$p PSYM_SYSROOT=$sysroot \
		timeout 300 gdb-multiarch -q -batch -x "$U/gdbdump-a64.py" "$1" >"$name.log" 2>&1
	kill "$QEMU_PID" 2>/dev/null
	wait "$QEMU_PID" 2>/dev/null
	QEMU_PID=
}

# compare NAME MINSTOPS: every dump of NAME agrees with gdb
compare() {
	local name=$1 min=$2 n=0 bad=0 sig=0 d b
	for d in "$name"/*.dump; do
		[ -e "$d" ] || break
		b=${d%.dump}
		n=$((n + 1))
		grep -q ' sig ' "$b.gdb" && sig=$((sig + 1))
		if ! "$REPLAY" "$d" >"$b.ours" 2>"$b.err"; then
			echo "# $d: unwind-replay failed: $(head -n 3 "$b.err")"
			bad=$((bad + 1))
		elif ! python3 "$U/compare.py" "$b.ours" "$b.gdb" >"$b.cmp"; then
			echo "# $d:"
			sed 's/^/#   /' "$b.cmp"
			bad=$((bad + 1))
		fi
	done
	if [ "$n" -lt "$min" ]; then
		fail "$name: only $n stops captured (gdb log: $(tail -n 3 "$name.log" | tr '\n' ' '))"
	elif [ "$bad" -ne 0 ]; then
		fail "$name: $bad of $n stacks differ from gdb"
	else
		pass "$name: $n stacks agree with gdb, $sig through a signal frame ($(cat "$name"/0.cmp))"
	fi
	[ "$sig" -gt 0 ] || [ "$name" = dyn ] || fail "$name: no stop in the signal handler"
}

CC=aarch64-linux-gnu-gcc
$CC -O2 -g -fomit-frame-pointer -static -o prog-static "$U/prog.c" || fail "build static program"
$CC -O2 -g -fomit-frame-pointer -no-pie -o prog-dyn "$U/prog.c" || fail "build dynamic program"
$CC -O2 -g -fomit-frame-pointer -mbranch-protection=pac-ret -static -o prog-pac "$U/prog.c" ||
	fail "build signed program"

capture static leaf 24 ./prog-static 2
compare static 20
if [ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ]; then
	capture dyn "leaf,'puts@plt',getpid" 24 -L /usr/aarch64-linux-gnu ./prog-dyn 2
	compare dyn 20
	check "dyn: stops in the PLT" grep -q 'puts@plt' dyn/0.gdb
else
	echo "# no arm64 libc under /usr/aarch64-linux-gnu: dynamic variant skipped"
fi

# The side file of an AArch64 host (machine 183, 33 registers), made from
# the static build's stops as psym-collect --stack-copy would write it,
# unwound by psym symbolize: the known call tree.
# shellcheck disable=SC2046
if "$top_builddir/tests/unwind/unwind-mkside" side.pb.gz $(ls static/*.dump | sort -t/ -k2 -n); then
	"$PSYM" symbolize side.pb.gz -o side.sym.pb.gz 2>side.log || fail "symbolize the AArch64 side file: $(head -2 side.log)"
	"$PSYM" folded side.sym.pb.gz >folded
	# (glibc's static archive has no DWARF: its symbol names)
	for want in "main;a;b;recurse;recurse;recurse;recurse;leaf " \
		"main;a;b;(__)?qsort_r;msort_with_tmp[.a-z0-9]*;cmp;leaf "; do
		grep -qE "$want" folded && pass "AArch64 side file: stack $want" || fail "AArch64 side file: no stack $want"
	done
else
	fail "unwind-mkside on the AArch64 stops"
fi

# Hostile AArch64 stacks end: CFI that gives a frame back to itself (at
# leaf's first instruction the return address is x30, here leaf itself),
# and a frame record that points at itself (no CFI).
leaf=$(aarch64-linux-gnu-nm prog-static | sed -n 's/^\([0-9a-f]*\) T leaf$/\1/p')
python3 - "$leaf" "$T" <<'PY'
import struct, sys
leaf, t = int(sys.argv[1], 16), sys.argv[2]
sp = 0x7ffff000
for name, pc, lr, stack in (("cfi-loop", leaf, leaf, bytes(256)),
                            ("fp-loop", 0x10000, 0x10000, struct.pack("<QQ", sp, 0x10100) + bytes(240))):
    open("%s/%s.stack" % (t, name), "wb").write(stack)
    with open("%s/%s.dump" % (t, name), "w") as f:
        f.write("arch aarch64\n")
        for i in range(31):
            f.write("reg %d 0x%x\n" % (i, {29: sp, 30: lr}.get(i, 0)))
        f.write("reg 31 0x%x\nreg 32 0x%x\n" % (sp, pc))
        f.write("map 0x400000 0x500000 0x0 %s/prog-static\n" % t)
        f.write("stack 0x%x %s/%s.stack\n" % (sp, t, name))
PY
for l in cfi-loop fp-loop; do
	"$REPLAY" $l.dump >$l.ours 2>&1
	check "$l: stops (no progress) after at most 3 frames" \
		sh -c "grep -q '^stop no-progress' $l.ours && [ \$(grep -c '^0x' $l.ours) -le 3 ]"
done

capture pac leaf 24 ./prog-pac 2
aarch64-linux-gnu-nm prog-pac >pac.nm
n=0 bad=0
for d in pac/*.dump; do
	[ -e "$d" ] || break
	b=${d%.dump}
	k=$(basename "$b")
	n=$((n + 1))
	"$REPLAY" "$d" >"$b.ours" 2>"$b.err"
	grep '^0x' "$b.ours" | aarch64-linux-gnu-addr2line -a -f -i -e prog-pac >"$b.a2l"
	if ! python3 "$U/compare-names.py" "$b.ours" "$b.a2l" "static/$k.gdb" pac.nm >"$b.cmp"; then
		echo "# $d:"
		sed 's/^/#   /' "$b.cmp"
		bad=$((bad + 1))
	fi
done
python3 - pac/*.stack <<'PY' >signed || true
import struct, sys
n = 0
for f in sys.argv[1:]:
    d = open(f, "rb").read()
    for i in range(0, len(d) - 7, 8):
        v = struct.unpack_from("<Q", d, i)[0]
        if v >> 48 and 0x400000 <= (v & (2**48 - 1)) < 0x500000:
            n += 1
print(n)
PY
if [ "$n" -lt 20 ] || [ "$bad" -ne 0 ]; then
	fail "pac: $bad of $n signed stacks name other functions than gdb's"
else
	pass "pac: $n stacks with $(cat signed) signed return addresses name gdb's functions"
fi
[ "$(cat signed)" -gt 0 ] || fail "pac: no signed return address on the stacks (pointer authentication off?)"
finish
