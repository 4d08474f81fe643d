/* SPDX-License-Identifier: MIT */
/* Shared between ustack.bpf.c and stackcopy.c: one stack-copy sample. */
#ifndef PSYM_COLLECT_USTACK_H
#define PSYM_COLLECT_USTACK_H

#define PSYM_USTACK_MAX 32768 /* --stack-copy cap, bytes */
#define PSYM_USTACK_KFRAMES 127
/*
 * The user registers, by the side file's numbering (src/unwind/cfi.h):
 * x86-64's DWARF 0..16 (16 = rip); AArch64's x0..x30, sp (31), pc (32).
 */
#if defined(__TARGET_ARCH_arm64) || defined(__aarch64__)
#define PSYM_USTACK_NREGS 33
#define PSYM_USTACK_SP 31
#define PSYM_USTACK_PC 32
#else
#define PSYM_USTACK_NREGS 17
#define PSYM_USTACK_SP 7
#define PSYM_USTACK_PC 16
#endif

struct psym_ustack_event {
	__u32 pid, tid, cpu, reserved;
	__u64 valid; /* register mask; 0: no user registers (a kernel thread) */
	__u64 time_ns;
	__u64 image; /* as psym_sample_key.image (image.bpf.h) */
	char comm[16];
	__u64 regs[PSYM_USTACK_NREGS];
	__u32 nk;	 /* kernel frames */
	__u32 stack_len; /* bytes copied from regs[PSYM_USTACK_SP] up */
	__u64 kstack[PSYM_USTACK_KFRAMES];
	__u8 stack[PSYM_USTACK_MAX];
};

/* Header size: everything before stack[]; what is sent is this + stack_len. */
#define PSYM_USTACK_HDR ((unsigned long)&((struct psym_ustack_event *)0)->stack)

enum psym_ustack_error {
	PSYM_UERR_RINGBUF_FULL, /* bpf_ringbuf_output failed */
	PSYM_UERR_STACK_READ,	/* no stack bytes could be read */
	PSYM_UERR_STACK_SHORT,	/* fewer bytes than asked (end of the stack mapping) */
	PSYM_UERR_NO_REGS,	/* no user registers */
	PSYM_UERR_NR,
};

#endif
