/* SPDX-License-Identifier: MIT */
/*
 * psym-collect: the drain loop. Flip the BPF program's double buffer,
 * then move the idle buffer's counts and stacks into the profile builder.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "profile.skel.h"

#include "collect.h"

/* Stack id of buffer b, read once per drain; its frames and count. */
static size_t read_stack(struct run *r, int b, int32_t id, const uint64_t **ips)
{
	uint64_t *slot;
	size_t n = 0;

	*ips = NULL;
	if (id < 0 || (uint32_t)id >= r->stack_entries)
		return 0;
	if (r->stack_slot[id] >= 0) {
		*ips = r->stack_ips + (size_t)r->stack_slot[id] * PSYM_MAX_STACK;
		return r->stack_len[r->stack_slot[id]];
	}
	slot = r->stack_ips + r->nused * PSYM_MAX_STACK;
	if (bpf_map_lookup_elem(r->stacks_fd[b], &id, slot) != 0) {
		r->ms.stacks_evicted++;
		return 0;
	}
	while (n < PSYM_MAX_STACK && slot[n])
		n++;
	r->stack_slot[id] = (int32_t)r->nused;
	r->stack_len[r->nused] = (uint8_t)n;
	r->used_ids[r->nused++] = (uint32_t)id;
	*ips = slot;
	return n;
}

static int add_sample(struct run *r, int b, struct psym_sample_key *key, uint64_t count)
{
	const uint64_t *kips, *uips;
	size_t nk = read_stack(r, b, key->kern_stack_id, &kips);
	size_t nu = read_stack(r, b, key->user_stack_id, &uips);

	if (nk)
		r->kernel_frames = true;
	need_maps(r, (int)key->pid, uips, nu);
	key->comm[PSYM_COMM_LEN - 1] = '\0';
	return psym_collectprof_add(r->cp, (int)key->pid, (int)key->tid, key->comm, kips, nk, uips,
				    nu, count);
}

uint64_t bpf_errors(struct run *r, uint32_t k)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals, sum = 0;

	if (ncpu <= 0)
		return 0;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (vals && bpf_map_lookup_elem(r->errors_fd, &k, vals) == 0)
		for (int c = 0; c < ncpu; c++)
			sum += vals[c];
	free(vals);
	return sum;
}

/* Delete every stack of buffer b (stacks whose count was dropped linger). */
static void sweep_stacks(struct run *r, int b)
{
	uint32_t id;

	r->ms.stack_sweeps++;
	while (bpf_map_get_next_key(r->stacks_fd[b], NULL, &id) == 0 && !(stop && !r->final))
		if (bpf_map_delete_elem(r->stacks_fd[b], &id) != 0)
			break;
}

/* Move buffer b's counts into the profile and free its stacks. */
static int drain_buffer(struct run *r, int b)
{
	enum {
		BATCH = 512
	};
	static struct psym_sample_key keys[BATCH];
	static uint64_t vals[BATCH];
	LIBBPF_OPTS(bpf_map_batch_opts, bo);
	uint64_t full;
	int ret = 0, guard = (int)r->count_entries * 2 + 16;
	bool batch = true, more = true, first = true;
	uint32_t in = 0, outb = 0;

	while (more && guard > 0) {
		uint32_t n = BATCH;
		int err;

		if (batch) {
			err = bpf_map_lookup_and_delete_batch(r->counts_fd[b], first ? NULL : &in,
							      &outb, keys, vals, &n, &bo);
			if (err && errno != ENOENT) {
				if (first && n == 0) {
					batch = false; /* not supported here: one by one */
					continue;
				}
				n = 0;
				more = false;
			}
			if (err)
				more = false;
			first = false;
			in = outb;
		} else {
			n = 0;
			while (n < BATCH &&
			       bpf_map_get_next_key(r->counts_fd[b], NULL, &keys[n]) == 0) {
				if (bpf_map_lookup_and_delete_elem(r->counts_fd[b], &keys[n],
								   &vals[n]) == 0)
					n++;
				else
					break;
			}
			more = n == BATCH;
		}
		guard -= (int)n + 1;
		for (uint32_t i = 0; i < n && !ret; i++)
			ret = add_sample(r, b, &keys[i], vals[i]);
		if (ret)
			break;
	}
	/* Free the stacks this drain used; they are all the buffer held
	 * unless a count was dropped (counts map full): then sweep it all. */
	full = bpf_errors(r, PSYM_ERR_COUNTS_FULL);
	if (full != r->counts_full_seen) {
		r->counts_full_seen = full;
		sweep_stacks(r, b);
	} else {
		for (size_t i = 0; i < r->nused && !(stop && !r->final); i++)
			bpf_map_delete_elem(r->stacks_fd[b], &r->used_ids[i]);
	}
	for (size_t i = 0; i < r->nused; i++)
		r->stack_slot[r->used_ids[i]] = -1;
	r->nused = 0;
	return ret;
}

/*
 * Flip the buffers, then drain the one no sample goes to any more. A BPF
 * program that read the old `active` runs to its end within microseconds:
 * the short wait covers it.
 */
int drain(struct run *r, int64_t meta_until)
{
	int64_t t0 = now_ns(), dt;
	int b = r->active, ret;

	r->meta_until = meta_until;
	r->meta_ops = META_OPS;
	if (!r->final) {
		r->active = !r->active;
		__atomic_store_n(&r->skel->bss->active, (uint32_t)r->active, __ATOMIC_SEQ_CST);
		usleep(2000);
	}
	/* Mappings recorded up to now cover every sample of the buffer. */
	mmaptrack_poll(r->mt, r->ms.drains);
	ret = drain_buffer(r, b);
	if (!ret && r->final)
		ret = drain_buffer(r, !b);
	r->ms.drains++;
	if (!r->final)
		mmaptrack_sweep(r->mt, r->ms.drains, forget_pid, r);
	dt = now_ns() - t0;
	if (dt > r->ms.drain_max_ns)
		r->ms.drain_max_ns = dt;
	return ret;
}
