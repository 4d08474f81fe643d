/* SPDX-License-Identifier: MIT */
/* Shared between the BPF program and psym-collect: map layouts. */
#ifndef PSYM_COLLECT_PROFILE_H
#define PSYM_COLLECT_PROFILE_H

#define PSYM_MAX_STACK 127    /* frames per stack (kernel's default limit) */
#define PSYM_MAX_PIDS 16      /* -p filters */
#define PSYM_FOLLOW_MAX 65536 /* live processes of the trees followed */
/*
 * Map sizes are set at load time from the sampling rate, the CPU count and
 * the drain interval (psym-collect --stack-entries, --count-entries); these
 * are the compiled-in defaults. Each map exists twice: the BPF program
 * fills one buffer while user space drains and clears the other.
 */
#define PSYM_STACK_ENTRIES 16384
#define PSYM_COUNT_ENTRIES 16384
#define PSYM_COMM_LEN 16
#define PSYM_IMAGE_ENTRIES 65536 /* processes whose last exec is remembered (image.bpf.h) */

struct psym_sample_key {
	__u32 pid;
	__u32 tid;
	__s32 user_stack_id; /* negative: none or failed */
	__s32 kern_stack_id;
	__u64 image; /* the exec the process image began with (image.bpf.h), 0: none seen */
	char comm[PSYM_COMM_LEN];
};

enum psym_collect_error {
	PSYM_ERR_USER_STACK,  /* bpf_get_stackid(user) failed (e.g. -EFAULT) */
	PSYM_ERR_KERN_STACK,  /* bpf_get_stackid(kernel) failed */
	PSYM_ERR_COLLISION,   /* -EEXIST: stack map hash collision */
	PSYM_ERR_COUNTS_FULL, /* the counts hash map was full */
	PSYM_ERR_NR,
};

#endif
