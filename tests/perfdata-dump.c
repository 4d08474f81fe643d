/* SPDX-License-Identifier: MIT */
/*
 * The perf.data reader's records, one line each, for tests to compare with
 * `perf script` (tests/perfdata-reader.sh):
 *   S EVENT PID/TID TIME_NS CPU PERIOD IP: CALLCHAIN... (raw, with its
 *     context markers) [regs R,R,... stack SIZE/DYN]
 *   M PID START LEN PGOFF EXEC BUILDID FILENAME     (MMAP, MMAP2)
 *   C PID/TID EXEC COMM                            (COMM)
 *   F|E PID PPID TID                               (FORK, EXIT)
 *   B PID MISC BUILDID FILENAME                   (the build-ID table)
 * and a last line "end RET: MESSAGE".
 */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata.h"

static void hex(const uint8_t *b, size_t n)
{
	if (!n)
		putchar('-');
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
}

static int sample(void *ud, const struct psym_perf_sample *s)
{
	(void)ud;
	printf("S %s %u/%u %" PRIu64 " %u %" PRIu64 " %" PRIx64 ":", s->attr->name, s->pid, s->tid,
	       s->time, s->cpu, s->period, s->ip);
	for (size_t i = 0; i < s->nr_callchain; i++)
		printf(" %" PRIx64, s->callchain[i]);
	if (s->regs_abi || s->stack_size) {
		printf(" [regs");
		for (size_t i = 0; i < s->nregs; i++)
			printf("%c%" PRIx64, i ? ',' : ' ', s->regs[i]);
		printf(" stack %" PRIu64 "/%" PRIu64 "]", s->stack_size, s->dyn_size);
	}
	putchar('\n');
	return 0;
}

static int mmap_(void *ud, const struct psym_perf_mmap *m)
{
	(void)ud;
	printf("M %d %" PRIx64 " %" PRIx64 " %" PRIx64 " %d ", (int)m->pid, m->start, m->len,
	       m->pgoff, m->exec);
	hex(m->build_id, m->build_id_len);
	printf(" %s\n", m->filename);
	return 0;
}

static int comm(void *ud, const struct psym_perf_comm *c)
{
	(void)ud;
	printf("C %u/%u %d %s\n", c->pid, c->tid, c->exec, c->comm);
	return 0;
}

static int task(void *ud, const struct psym_perf_task *t)
{
	(void)ud;
	printf("%c %u %u %u\n", t->fork ? 'F' : 'E', t->pid, t->ppid, t->tid);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct psym_perf_tool tool = {
		.sample = sample, .mmap = mmap_, .comm = comm, .task = task
	};
	struct psym_perfdata *d = NULL;
	struct psym_err e = { 0 };
	const struct psym_perf_build_id *b;
	struct stat st;
	void *buf;
	size_t n;
	bool by_fd = (argc == 3 || argc == 4) && !strcmp(argv[1], "--fd");
	long long resize = argc == 4 ? atoll(argv[3]) : -1;
	int fd, ret;

	if (argc != 2 && !by_fd) {
		fprintf(stderr, "usage: perfdata-dump [--fd FILE [SIZE]] | FILE\n");
		return 2;
	}
	argv += by_fd;
	fd = open(argv[1], resize >= 0 ? O_RDWR : O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size == 0) {
		perror(argv[1]);
		return 3;
	}
	/* --fd: read by descriptor (pread, a window of records), as psym reads a file. */
	buf = by_fd ? NULL : mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (!by_fd)
		close(fd);
	if (buf == MAP_FAILED) {
		perror(argv[1]);
		return 3;
	}
	if (by_fd)
		ret = psym_perfdata_open_fd(fd, (uint64_t)st.st_size, argv[1], &d, &e);
	else
		ret = psym_perfdata_open(buf, (size_t)st.st_size, argv[1], &d, &e);
	/* SIZE: the file cut or grown to SIZE bytes after it was opened, as a writer might. */
	if (!ret && resize >= 0 && ftruncate(fd, (off_t)resize)) {
		perror(argv[1]);
		return 3;
	}
	if (!ret) {
		b = psym_perfdata_build_ids(d, &n);
		for (size_t i = 0; i < n; i++) {
			printf("B %d %u ", (int)b[i].pid, b[i].misc & 7);
			hex(b[i].id, b[i].len);
			printf(" %s\n", b[i].filename);
		}
		ret = psym_perfdata_run(d, &tool, NULL, &e);
	}
	printf("end %d: %s\n", ret, ret ? e.msg : "");
	psym_perfdata_free(d);
	if (by_fd)
		close(fd);
	else
		munmap(buf, (size_t)st.st_size);
	return ret ? 2 : 0;
}
