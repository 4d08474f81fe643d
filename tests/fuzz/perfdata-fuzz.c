/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: perf.data through the perf.data input kind (the record
 * reader, the process tracking, the profile), then its stack-copy pass
 * when the recording has one.
 */
#include "config.h"

#include <stdint.h>

#include "in_perf.h"

static int on_process(void *ud, int pid, const struct psym_procmap *maps, size_t n)
{
	(void)pid;
	*(size_t *)ud += n;
	return 0;
}

static int on_sample(void *ud, const struct psym_ustack_sample *s)
{
	size_t sum = 0;

	/* Every byte and frame handed over is readable. */
	for (size_t i = 0; i < s->stack_len; i++)
		sum += s->stack[i];
	for (size_t i = 0; i < s->nk; i++)
		sum += (size_t)s->kstack[i];
	*(size_t *)ud += sum & 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct psym_ustacks_reader_ops ops = { on_process, on_sample, NULL, NULL };
	struct psym_limits lim = psym_limits_or_default(NULL);
	struct psym_input in = { .name = "fuzz" };
	struct psym_err e = { 0 };
	size_t count = 0;

	lim.max_memory = (size_t)256 << 20;
	if (!psym_input_perf.sniff(data, size))
		return 0;
	psym_input_perf.read(data, size, false, 0, &lim, &in, &e);
	if (in.stacks)
		in.stacks(in.stacks_ud, &ops, &count, &e);
	psym_profile_free(in.profile);
	psym_input_perf.free_state(in.state, in.stacks_ud);
	return 0;
}
