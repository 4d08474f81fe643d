/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psym-collect --stack-copy: on each CPU-clock sample, send the user
 * registers, the top stack_copy bytes of the user stack (from the stack
 * pointer up; x86-64 and arm64, by __TARGET_ARCH_*) and
 * the kernel stack through a ring buffer, for psym to unwind offline with
 * the binaries' CFI. Samples cannot be aggregated here. The event is built
 * in a per-CPU slot of an array map (too big for the BPF stack).
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/types.h>
#include <asm/ptrace.h>
#include <bpf/bpf_helpers.h>

#include "profile.h"
#include "target.bpf.h"
#include "ustack.h"

const volatile __u8 no_kernel = 0;
const volatile __u32 stack_copy = 8192;

/* A sample taken in user mode: x86-64's CS ring 3; arm64's PSTATE at EL0t. */
#ifdef __TARGET_ARCH_arm64
#define USER_MODE(regs) (((regs).pstate & 0xf) == 0)
#else
#define USER_MODE(regs) (((regs).cs & 3) == 3)
#endif

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20); /* set by psym-collect */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct psym_ustack_event);
	__uint(max_entries, 1); /* set by psym-collect: possible CPUs */
} scratch SEC(".maps");

PSYM_ERROR_COUNTERS(uerrors, PSYM_UERR_NR)

SEC("perf_event")
int psym_ustack(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 cpu = bpf_get_smp_processor_id();
	struct psym_ustack_event *ev;
#ifdef __TARGET_ARCH_arm64
	/* The kernel's pt_regs begins with the user_pt_regs of the UAPI. */
	struct user_pt_regs r;
#else
	struct pt_regs r;
#endif
	__u64 usp = 0;
	__u32 len;
	long n;

	if (!wanted(id >> 32))
		return 0;
	ev = bpf_map_lookup_elem(&scratch, &cpu);
	if (!ev)
		return 0;
	ev->pid = id >> 32;
	ev->tid = (__u32)id;
	ev->cpu = cpu;
	ev->time_ns = bpf_ktime_get_ns();
	ev->image = image_of(ev->pid);
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	ev->nk = 0;
	if (!no_kernel) {
		n = bpf_get_stack(ctx, ev->kstack, sizeof(ev->kstack), 0);
		if (n > 0)
			ev->nk = (__u32)n / 8;
	}
	/* The user registers: the sample's own when it hit user mode, else the task's. */
	if (USER_MODE(ctx->regs)) {
		__builtin_memcpy(&r, &ctx->regs, sizeof(r));
	} else {
		struct task_struct *t = bpf_get_current_task_btf();
		long p = bpf_task_pt_regs(t);

		if (!p || bpf_probe_read_kernel(&r, sizeof(r), (void *)p) != 0 || !USER_MODE(r)) {
			__builtin_memset(&r, 0, sizeof(r));
		}
	}
	ev->valid = 0;
	ev->stack_len = 0;
#ifdef __TARGET_ARCH_arm64
	if (r.sp && r.pc) {
		for (int i = 0; i < 31; i++)
			ev->regs[i] = r.regs[i];
		ev->regs[31] = r.sp;
		ev->regs[32] = r.pc;
		usp = r.sp;
	}
#else
	if (r.rsp && r.rip) {
		ev->regs[0] = r.rax;
		ev->regs[1] = r.rdx;
		ev->regs[2] = r.rcx;
		ev->regs[3] = r.rbx;
		ev->regs[4] = r.rsi;
		ev->regs[5] = r.rdi;
		ev->regs[6] = r.rbp;
		ev->regs[7] = r.rsp;
		ev->regs[8] = r.r8;
		ev->regs[9] = r.r9;
		ev->regs[10] = r.r10;
		ev->regs[11] = r.r11;
		ev->regs[12] = r.r12;
		ev->regs[13] = r.r13;
		ev->regs[14] = r.r14;
		ev->regs[15] = r.r15;
		ev->regs[16] = r.rip;
		usp = r.rsp;
	}
#endif
	if (usp) {
		ev->valid = ((__u64)1 << PSYM_USTACK_NREGS) - 1;
		/*
		 * The top of the stack, page by page (a read fails whole when
		 * any of its pages is unmapped): up to the next page boundary,
		 * then whole pages, until stack_copy bytes or the end of the
		 * stack mapping. The last piece may be a partial page.
		 */
		__u32 off = 0, want = stack_copy;

		if (want > PSYM_USTACK_MAX)
			want = PSYM_USTACK_MAX;
		for (int i = 0; i < PSYM_USTACK_MAX / 4096 + 1; i++) {
			__u64 at = usp + off;
			__u32 chunk = 4096 - (__u32)(at & 4095);

			if (off >= want)
				break;
			if (chunk > want - off)
				chunk = want - off;
			if (off > PSYM_USTACK_MAX - 4096)
				break;
			/* 1..4096 as the verifier sees it too (chunk >= 1 here). */
			chunk = ((chunk - 1) & 4095) + 1;
			if (bpf_probe_read_user(ev->stack + off, chunk, (void *)at) != 0)
				break;
			off += chunk;
		}
		ev->stack_len = off;
		if (!ev->stack_len)
			count_error(PSYM_UERR_STACK_READ);
		else if (ev->stack_len < stack_copy)
			count_error(PSYM_UERR_STACK_SHORT);
	} else {
		count_error(PSYM_UERR_NO_REGS);
	}
	len = ev->stack_len;
	if (len > PSYM_USTACK_MAX)
		len = PSYM_USTACK_MAX;
	if (bpf_ringbuf_output(&events, ev, PSYM_USTACK_HDR + len, 0) != 0)
		count_error(PSYM_UERR_RINGBUF_FULL);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
