#!/bin/bash
# psym-collect's BPF programs build for arm64 (on any host): clang -target
# bpf -D__TARGET_ARCH_arm64 against the arm64 UAPI headers of Debian's
# cross libc (linux-libc-dev-arm64-cross, with libc6-dev-arm64-cross), and
# bpftool makes their skeletons. The stack-copy program must read the
# arm64 user registers (struct user_pt_regs: sp at 248, pc at 256, pstate
# at 264), not x86-64's pt_regs. Whether the verifier of an arm64 kernel
# loads them is untested without an arm64 host (doc/UNWIND.md).
. "$top_srcdir/tests/lib.sh"
need clang
need bpftool
need llvm-objdump "llvm"
A64=/usr/aarch64-linux-gnu/include
[ -f $A64/asm/ptrace.h ] || skip "no arm64 UAPI headers ($A64: Debian libc6-dev-arm64-cross)"
B=$top_srcdir/BPF-collector
for p in profile ustack; do
	if clang -g -O2 -target bpf -D__TARGET_ARCH_arm64 -I"$B" -I$A64 -c "$B/$p.bpf.c" -o $p.bpf.o 2>$p.err; then
		pass "$p.bpf.c compiles for arm64"
	else
		fail "$p.bpf.c for arm64: $(head -3 $p.err)"
		continue
	fi
	check "$p: a BPF object" grep -q 'Linux BPF' <(readelf -h $p.bpf.o)
	if bpftool gen skeleton $p.bpf.o name ${p}_bpf >$p.skel.h 2>$p.err; then
		pass "$p: its skeleton"
	else
		fail "$p: bpftool gen skeleton: $(head -2 $p.err)"
	fi
done
if [ -f ustack.bpf.o ]; then
	llvm-objdump -d ustack.bpf.o >ustack.dis
	for off in 248 256 264; do
		check "ustack: reads user_pt_regs at $off" grep -q "+ $off)" ustack.dis
	done
fi
[ "$n_fail" = 0 ]
