/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: perf.data through the perf.data input kind (the record
 * reader, the process tracking, the profile), then its stack-copy pass
 * when the recording has one; then the same bytes as a file read by
 * descriptor (a memfd: pread, a window of records), which must give the
 * same answer and the same number of samples.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

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

static const struct psym_ustacks_reader_ops ops = { on_process, on_sample, NULL, NULL };

/* One read (fd >= 0: by descriptor): its answer and samples; 1: not read so. */
static int read_one(const uint8_t *data, size_t size, int fd, const struct psym_limits *lim,
		    size_t *nsamples)
{
	struct psym_input in = { .name = "fuzz", .fd = fd };
	struct psym_err e = { 0 };
	size_t count = 0;
	int ret;

	if (fd >= 0)
		ret = psym_input_perf.read_fd(fd, size, data, size < 65536 ? size : 65536, 0, lim,
					      &in, &e);
	else
		ret = psym_input_perf.read(data, size, false, 0, lim, &in, &e);
	*nsamples = in.profile ? in.profile->pb->n_sample : 0;
	if (in.stacks)
		in.stacks(in.stacks_ud, &ops, &count, &e);
	psym_profile_free(in.profile);
	psym_input_perf.free_state(in.state, in.stacks_ud);
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct psym_limits lim = psym_limits_or_default(NULL);
	size_t n_mem = 0, n_fd = 0;
	int r_mem, r_fd, fd;

	lim.max_memory = (size_t)256 << 20;
	if (!psym_input_perf.sniff(data, size))
		return 0;
	r_mem = read_one(data, size, -1, &lim, &n_mem);
	fd = memfd_create("perfdata-fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		r_fd = read_one(data, size, fd, &lim, &n_fd);
		if (r_fd != 1 && (r_fd != r_mem || n_fd != n_mem))
			abort();
	}
	close(fd);
	return 0;
}
