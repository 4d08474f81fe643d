/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which image of a process a sample is of (issue: samples taken before an
 * exec were placed against the mappings after it, under the same pid).
 * At each exec the pid's image becomes the time of the exec, read with
 * bpf_ktime_get_ns (CLOCK_MONOTONIC, the clock mmaptrack's records carry
 * too); every sample carries its process's image, 0 when no exec of it
 * was seen. User space places a sample of image T against the mappings
 * of the latest exec it recorded at or before T: the exec's COMM record
 * is written early in execve, this tracepoint runs at its end, and the
 * next exec's record comes after it. A time, not a count of execs, so
 * that the two observers need not have started at the same moment.
 * The map is an LRU: no exit hook needed; a reused pid inherits a stale
 * time, which still picks the newest image recorded for it. Included by
 * target.bpf.h (each program has its own copy).
 */
#ifndef PSYM_COLLECT_IMAGE_BPF_H
#define PSYM_COLLECT_IMAGE_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, PSYM_IMAGE_ENTRIES);
} images SEC(".maps");

static __always_inline __u64 image_of(__u32 pid)
{
	__u64 *t = bpf_map_lookup_elem(&images, &pid);

	return t ? *t : 0;
}

#endif
