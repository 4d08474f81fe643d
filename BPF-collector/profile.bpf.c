/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psym-collect's BPF side: on each CPU-clock sample, record the user and
 * kernel stacks in a stack-trace map and count samples per (pid, image, tid,
 * comm, user stack, kernel stack) in a hash map that user space drains. Failures
 * are counted per CPU. No vmlinux.h: UAPI headers suffice.
 *
 * Two buffers (stacks0/counts0, stacks1/counts1): samples go to the one
 * `active` names; user space flips it, then drains the other buffer's
 * counts and deletes the stacks they used, so the stack map only ever holds
 * one drain interval's stacks (few hash collisions) and no stack id is
 * reused while a count still refers to it.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/errno.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

#include "profile.h"
#include "target.bpf.h"

const volatile __u8 no_user = 0;
const volatile __u8 no_kernel = 0;

/* Which buffer samples go to; written by user space (mmap'ed .bss). */
volatile __u32 active = 0;

#define STACK_MAP(name)                                                                            \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_STACK_TRACE);                                            \
		__uint(key_size, sizeof(__u32));                                                   \
		__uint(value_size, PSYM_MAX_STACK * sizeof(__u64));                                \
		__uint(max_entries, PSYM_STACK_ENTRIES);                                           \
	} name SEC(".maps")

#define COUNT_MAP(name)                                                                            \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_HASH);                                                   \
		__type(key, struct psym_sample_key);                                               \
		__type(value, __u64);                                                              \
		__uint(max_entries, PSYM_COUNT_ENTRIES);                                           \
	} name SEC(".maps")

STACK_MAP(stacks0);
STACK_MAP(stacks1);
COUNT_MAP(counts0);
COUNT_MAP(counts1);

PSYM_ERROR_COUNTERS(errors, PSYM_ERR_NR)

static __always_inline void record(struct bpf_perf_event_data *ctx, struct psym_sample_key *key,
				   void *stacks, void *counts)
{
	__u64 one = 1, *val;
	long err;

	if (!no_user) {
		key->user_stack_id = bpf_get_stackid(ctx, stacks, BPF_F_USER_STACK);
		if (key->user_stack_id < 0)
			count_error(key->user_stack_id == -EEXIST ? PSYM_ERR_COLLISION
								  : PSYM_ERR_USER_STACK);
	}
	if (!no_kernel) {
		key->kern_stack_id = bpf_get_stackid(ctx, stacks, 0);
		/* A user-mode sample has no kernel stack: not an error. */
		if (key->kern_stack_id < 0 && key->kern_stack_id != -EFAULT)
			count_error(key->kern_stack_id == -EEXIST ? PSYM_ERR_COLLISION
								  : PSYM_ERR_KERN_STACK);
	}
	val = bpf_map_lookup_elem(counts, key);
	if (val) {
		__sync_fetch_and_add(val, 1);
		return;
	}
	err = bpf_map_update_elem(counts, key, &one, BPF_NOEXIST);
	if (err == -EEXIST) {
		val = bpf_map_lookup_elem(counts, key);
		if (val)
			__sync_fetch_and_add(val, 1);
	} else if (err) {
		count_error(PSYM_ERR_COUNTS_FULL);
	}
}

SEC("perf_event")
int psym_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct psym_sample_key key = {};

	key.pid = id >> 32;
	key.tid = (__u32)id;
	if (!wanted(key.pid))
		return 0;
	key.image = image_of(key.pid);
	bpf_get_current_comm(&key.comm, sizeof(key.comm));
	key.user_stack_id = -1;
	key.kern_stack_id = -1;
	if (active)
		record(ctx, &key, &stacks1, &counts1);
	else
		record(ctx, &key, &stacks0, &counts0);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
