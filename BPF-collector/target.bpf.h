/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two BPF programs (profile.bpf.c, ustack.bpf.c) share: which
 * processes are sampled (-p PIDS or their trees, -- COMMAND's tree, never
 * psym-collect itself nor the idle task), which image of a process a
 * sample is of, and the per-CPU error counters user space reads. Each
 * program has its own copy of these maps and variables.
 */
#ifndef PSYM_COLLECT_TARGET_BPF_H
#define PSYM_COLLECT_TARGET_BPF_H

#include "follow.bpf.h"
#include "image.bpf.h"

const volatile __u32 filter_pids[PSYM_MAX_PIDS] = {};
const volatile __u32 n_filter_pids = 0;
const volatile __u32 self_pid = 0;

static __always_inline int wanted(__u32 pid)
{
	if (pid == 0 || pid == self_pid)
		return 0; /* the idle task, and ourselves */
	if (follow_tree)
		return followed(pid);
	if (n_filter_pids == 0)
		return 1;
	for (int i = 0; i < PSYM_MAX_PIDS; i++) {
		if (i >= n_filter_pids)
			break;
		if (filter_pids[i] == pid)
			return 1;
	}
	return 0;
}

/* Each exec of a wanted process starts its new image (image.bpf.h). */
/* A raw tracepoint: needs neither tracefs mounted nor the kernel's BTF. */
SEC("raw_tp/sched_process_exec")
int psym_exec(void *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	__u64 now = bpf_ktime_get_ns();

	(void)ctx;
	if (wanted(pid))
		bpf_map_update_elem(&images, &pid, &now, BPF_ANY);
	return 0;
}

/*
 * A per-CPU array MAP of NR error counters (its name is how user space
 * finds it) and count_error(which), adding one to a counter.
 */
#define PSYM_ERROR_COUNTERS(map, nr)                                                               \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                                           \
		__type(key, __u32);                                                                \
		__type(value, __u64);                                                              \
		__uint(max_entries, nr);                                                           \
	} map SEC(".maps");                                                                        \
                                                                                                   \
	static __always_inline void count_error(__u32 which)                                       \
	{                                                                                          \
		__u64 *v = bpf_map_lookup_elem(&map, &which);                                      \
                                                                                                   \
		if (v)                                                                             \
			*v += 1;                                                                   \
	}

#endif
