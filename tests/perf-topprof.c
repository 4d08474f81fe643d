/* SPDX-License-Identifier: MIT */
/*
 * The perf.data input kind alone (until the input table reads it): FILE
 * read with psym_input_perf into an unsymbolized profile written to OUT
 * (gzip). Exit 0, or 1 with the profile of the records before a bad one
 * written and the error on stderr, or 2.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "in_perf.h"

int main(int argc, char **argv)
{
	struct psym_input in = { 0 };
	struct psym_err e = { 0 };
	struct stat st;
	void *buf;
	int fd, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: perf-topprof FILE OUT\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || st.st_size == 0) {
		perror(argv[1]);
		return 3;
	}
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (buf == MAP_FAILED)
		return 3;
	if (!psym_input_perf.sniff(buf, (size_t)st.st_size)) {
		fprintf(stderr, "%s: not perf.data\n", argv[1]);
		return 2;
	}
	in.name = argv[1];
	ret = psym_input_perf.read(buf, (size_t)st.st_size, false, 0, NULL, &in, &e);
	if (ret)
		fprintf(stderr, "%s\n", e.msg);
	else if (in.partial.code) /* read in part: its line, the profile of what came before */
		fprintf(stderr, "%s\n", in.partial.msg);
	if (in.profile && psym_profile_write(in.profile, argv[2], true, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		ret = -1;
	}
	if (in.profile)
		printf("stacks: %s\n", in.stacks ? "yes" : "no");
	psym_profile_free(in.profile);
	psym_input_perf.free_state(in.state, in.stacks_ud);
	munmap(buf, (size_t)st.st_size);
	return ret ? (in.profile ? 1 : 2) : in.partial.code ? 1 : 0;
}
