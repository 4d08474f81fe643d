/* SPDX-License-Identifier: MIT */
/*
 * psym-collect: the drain loop. Flip the BPF program's double buffer,
 * then move the idle buffer's counts and stacks into the profile builder.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "profile.skel.h"

#include "collect.h"

/*
 * Stack id of buffer b, read once per drain; its frames and count. One
 * that cannot be read is kept as empty (counted once, not looked up again).
 */
static size_t read_stack(struct bpfmaps *bm, int b, int32_t id, const uint64_t **ips)
{
	uint64_t *slot;
	size_t n = 0;

	*ips = NULL;
	if (id < 0 || (uint32_t)id >= bm->stack_entries)
		return 0;
	if (bm->stack_slot[id] >= 0) {
		*ips = bm->stack_ips + (size_t)bm->stack_slot[id] * PSYM_MAX_STACK;
		return bm->stack_len[bm->stack_slot[id]];
	}
	slot = bm->stack_ips + bm->nused * PSYM_MAX_STACK;
	if (bpf_map_lookup_elem(bm->stacks_fd[b], &id, slot) != 0)
		bm->ds.stacks_evicted++;
	else
		while (n < PSYM_MAX_STACK && slot[n])
			n++;
	bm->stack_slot[id] = (int32_t)bm->nused;
	bm->stack_len[bm->nused] = (uint8_t)n;
	bm->used_ids[bm->nused++] = (uint32_t)id;
	*ips = n ? slot : NULL;
	return n;
}

/*
 * A sample taken inside an exec goes with the image after it
 * (meta_exec_image): decided before the sort, which groups the samples
 * by the image whose maps they meet.
 */
static void place_exec(struct bpfmaps *bm, int b, struct meta *m, struct drained *d)
{
	const uint64_t *uips;
	size_t nu;

	if (d->key.user_stack_id < 0)
		return;
	nu = read_stack(bm, b, d->key.user_stack_id, &uips);
	d->key.image = meta_exec_image(m, (int)d->key.pid, d->key.image, uips, nu, 0, d->count);
}

static int add_sample(struct bpfmaps *bm, int b, struct meta *m, struct psym_collectprof *cp,
		      struct psym_sample_key *key, uint64_t count)
{
	const uint64_t *kips, *uips;
	size_t nk = read_stack(bm, b, key->kern_stack_id, &kips);
	size_t nu = read_stack(bm, b, key->user_stack_id, &uips);

	if (nk)
		bm->kernel_frames = true;
	need_maps(m, (int)key->pid, key->image, uips, nu, count);
	key->comm[PSYM_COMM_LEN - 1] = '\0';
	return psym_collectprof_add(cp, (int)key->pid, (int)key->tid, key->comm, kips, nk, uips, nu,
				    count);
}

uint64_t bpf_errors(const struct bpfmaps *bm, uint32_t k)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals, sum = 0;

	if (ncpu <= 0)
		return 0;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (vals && bpf_map_lookup_elem(bm->errors_fd, &k, vals) == 0)
		for (int c = 0; c < ncpu; c++)
			sum += vals[c];
	free(vals);
	return sum;
}

/* Delete every stack of buffer b (stacks whose count was dropped linger). */
static void sweep_stacks(struct bpfmaps *bm, int b)
{
	uint32_t id;

	bm->ds.stack_sweeps++;
	while (bpf_map_get_next_key(bm->stacks_fd[b], NULL, &id) == 0 && !(*bm->stop && !bm->final))
		if (bpf_map_delete_elem(bm->stacks_fd[b], &id) != 0)
			break;
}

/* By process, then image (oldest first): each image's maps are given once. */
static int cmp_sample(const void *a, const void *b)
{
	const struct drained *x = a, *y = b;

	if (x->key.pid != y->key.pid)
		return x->key.pid < y->key.pid ? -1 : 1;
	if (x->key.image != y->key.image)
		return x->key.image < y->key.image ? -1 : 1;
	return 0;
}

/*
 * Move buffer b's counts into the profile and free its stacks. They are
 * taken in by process and image: the profile builder holds one image's
 * maps of a pid at a time (collectprof.h), and samples of a pid from
 * before and after an exec must each meet their own image's.
 */
static int drain_buffer(struct bpfmaps *bm, int b, struct meta *m, struct psym_collectprof *cp)
{
	enum {
		BATCH = 512
	};
	static struct psym_sample_key keys[BATCH];
	static uint64_t vals[BATCH];
	LIBBPF_OPTS(bpf_map_batch_opts, bo);
	uint64_t full;
	int ret = 0, guard = (int)bm->count_entries * 2 + 16;
	bool batch = true, more = true, first = true;
	uint32_t in = 0, outb = 0;
	size_t nd = 0;

	while (more && guard > 0) {
		uint32_t n = BATCH;
		int err;

		if (batch) {
			err = bpf_map_lookup_and_delete_batch(bm->counts_fd[b], first ? NULL : &in,
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
			       bpf_map_get_next_key(bm->counts_fd[b], NULL, &keys[n]) == 0) {
				if (bpf_map_lookup_and_delete_elem(bm->counts_fd[b], &keys[n],
								   &vals[n]) == 0)
					n++;
				else
					break;
			}
			more = n == BATCH;
		}
		guard -= (int)n + 1;
		/* At most count_entries keys are in a buffer: the rest is a bug's. */
		for (uint32_t i = 0; i < n && nd < bm->count_entries; i++) {
			bm->drained[nd].key = keys[i];
			bm->drained[nd++].count = vals[i];
		}
	}
	for (size_t i = 0; i < nd; i++)
		place_exec(bm, b, m, &bm->drained[i]);
	qsort(bm->drained, nd, sizeof(*bm->drained), cmp_sample);
	for (size_t i = 0; i < nd && !ret; i++)
		ret = add_sample(bm, b, m, cp, &bm->drained[i].key, bm->drained[i].count);
	/* Free the stacks this drain used; they are all the buffer held
	 * unless a count was dropped (counts map full): then sweep it all. */
	full = bpf_errors(bm, PSYM_ERR_COUNTS_FULL);
	if (full != bm->counts_full_seen) {
		bm->counts_full_seen = full;
		sweep_stacks(bm, b);
	} else {
		for (size_t i = 0; i < bm->nused && !(*bm->stop && !bm->final); i++)
			bpf_map_delete_elem(bm->stacks_fd[b], &bm->used_ids[i]);
	}
	for (size_t i = 0; i < bm->nused; i++)
		bm->stack_slot[bm->used_ids[i]] = -1;
	bm->nused = 0;
	return ret;
}

/*
 * Flip the buffers, then drain the one no sample goes to any more. A BPF
 * program that read the old `active` runs to its end within microseconds:
 * the short wait covers it.
 */
int drain(struct bpfmaps *bm, struct meta *m, struct mmaptrack *mt, struct psym_collectprof *cp,
	  int64_t meta_until, bool final)
{
	int64_t t0 = now_ns(), dt;
	int b = bm->active, ret;

	bm->final = final;
	meta_budget(m, meta_until, final);
	if (!final) {
		bm->active = !bm->active;
		__atomic_store_n(&bm->skel->bss->active, (uint32_t)bm->active, __ATOMIC_SEQ_CST);
		usleep(2000);
	}
	/* Mappings recorded up to now cover every sample of the buffer. */
	mmaptrack_poll(mt, bm->ds.drains);
	ret = drain_buffer(bm, b, m, cp);
	if (!ret && final)
		ret = drain_buffer(bm, !b, m, cp);
	bm->ds.drains++;
	meta_drains_done(m, bm->ds.drains);
	if (!final)
		mmaptrack_sweep(mt, bm->ds.drains, forget_pid, m);
	dt = now_ns() - t0;
	if (dt > bm->ds.drain_max_ns)
		bm->ds.drain_max_ns = dt;
	return ret;
}

int bpfmaps_table_alloc(struct bpfmaps *bm)
{
	bm->stack_slot = malloc(bm->stack_entries * sizeof(*bm->stack_slot));
	bm->used_ids = malloc(bm->stack_entries * sizeof(*bm->used_ids));
	bm->stack_len = malloc(bm->stack_entries);
	bm->stack_ips = malloc((size_t)bm->stack_entries * PSYM_MAX_STACK * sizeof(uint64_t));
	bm->drained = malloc((size_t)bm->count_entries * sizeof(*bm->drained));
	if (!bm->stack_slot || !bm->used_ids || !bm->stack_len || !bm->stack_ips || !bm->drained)
		return PSYM_ENOMEM;
	memset(bm->stack_slot, 0xff, bm->stack_entries * sizeof(*bm->stack_slot));
	return 0;
}

void bpfmaps_free(struct bpfmaps *bm)
{
	profile_bpf__destroy(bm->skel);
	bm->skel = NULL;
	free(bm->stack_slot);
	free(bm->used_ids);
	free(bm->stack_len);
	free(bm->stack_ips);
	free(bm->drained);
}
