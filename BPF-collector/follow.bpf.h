/* SPDX-License-Identifier: GPL-2.0 */
/*
 * psym-collect -- COMMAND, and -p unless --no-inherit: the process trees
 * of the command or of the -p processes, followed in the kernel. User
 * space puts their pids in `follow` before sampling starts; each fork by
 * a process in it adds the child, each exit of a process removes it.
 * Samples are taken only of processes in it (and execs followed only of
 * them, target.bpf.h). Included by profile.bpf.c and ustack.bpf.c (each
 * has its own copy of the map).
 */
#ifndef PSYM_COLLECT_FOLLOW_BPF_H
#define PSYM_COLLECT_FOLLOW_BPF_H

#include <bpf/bpf_core_read.h>

/* The two fields used, relocated against the running kernel's BTF (CO-RE). */
struct task_struct {
	int pid;
	int tgid;
} __attribute__((preserve_access_index));

const volatile __u8 follow_tree = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u8);
	__uint(max_entries, PSYM_FOLLOW_MAX);
} follow SEC(".maps");

/* Runs in the parent; args: (parent, child). */
SEC("tp_btf/sched_process_fork")
int psym_fork(__u64 *ctx)
{
	__u32 parent = bpf_get_current_pid_tgid() >> 32, child;
	__u8 one = 1;

	if (!follow_tree || !bpf_map_lookup_elem(&follow, &parent))
		return 0;
	child = (__u32)BPF_CORE_READ((struct task_struct *)ctx[1], tgid);
	if (child != parent)
		bpf_map_update_elem(&follow, &child, &one, BPF_ANY);
	return 0;
}

/* Runs in the exiting thread; the process leaves the set with its leader. */
SEC("tp_btf/sched_process_exit")
int psym_exit(__u64 *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;

	(void)ctx;
	if (follow_tree && pid == (__u32)id)
		bpf_map_delete_elem(&follow, &pid);
	return 0;
}

static __always_inline int followed(__u32 pid)
{
	return bpf_map_lookup_elem(&follow, &pid) != 0;
}

#endif
