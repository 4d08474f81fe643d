/* SPDX-License-Identifier: MIT */
/*
 * psym-collect -- COMMAND [ARGS]: the command is started before anything
 * else (so its pid can be followed from the first sample) but held on a
 * pipe until sampling runs, then exec'd; its exit status becomes
 * psym-collect's.
 */
#ifndef PSYM_COLLECT_COMMAND_H
#define PSYM_COLLECT_COMMAND_H

#include <stdbool.h>
#include <sys/types.h>

#include "profile.h"
#include "psym-int.h"

struct command {
	pid_t pid;  /* 0: none */
	int go_fd;  /* write end of the pipe the child waits on; -1 once used */
	int pidfd;  /* readable when the command exits; -1: none; the caller closes it */
	int status; /* waitpid's, once reaped */
	bool reaped;
};

/* A struct command with no command in it. */
#define COMMAND_NONE                                                                               \
	{                                                                                          \
		0, -1, -1, 0, false                                                                \
	}

/* Fork the command, held before its exec. 0 or a negative code (e set). */
int command_start(char *const *argv, struct command *c, struct psym_err *e);
/* Let it exec: sampling runs. */
void command_go(struct command *c);
/*
 * Wait for it and return its exit status as a shell gives it (128+N when
 * killed by signal N). stop: the collection ended before it did (a
 * signal, -d): ask it to end with SIGTERM first. Not yet released: it
 * exits without running anything (127). Accepts a struct with no command.
 */
int command_finish(struct command *c, bool stop);

/*
 * Whose process trees are followed in the kernel (follow.bpf.h): --
 * COMMAND's, or -p's processes' (perf's inherit; not with --no-inherit).
 */
struct follow {
	int pids[PSYM_MAX_PIDS];
	int n;	   /* 0: none; the BPF programs use their pid list */
	bool need; /* -- COMMAND: it cannot be done without following */
};

/*
 * What to follow: cmd_pid's tree (0: no command), else those of pids
 * unless inherit is false. -p on a kernel without BTF (the fork and exit
 * programs need it): a warning, and only the pids are sampled.
 */
void follow_plan(struct follow *f, pid_t cmd_pid, const int *pids, int npids, bool inherit);
/*
 * Follow f's processes' trees in a BPF program of follow.bpf.h: the pids
 * into its map, its fork and exit programs attached (links[0..1], the
 * caller destroys them). 0, or PSYM_EBPF when f->need; when it does not,
 * a failure to attach is a warning and the map's pids alone are sampled.
 */
struct bpf_map;
struct bpf_program;
struct bpf_link;
int follow_start(struct bpf_map *map, struct bpf_program *fork_prog, struct bpf_program *exit_prog,
		 const struct follow *f, struct bpf_link **links, struct psym_err *e);
/*
 * A program's exec tracepoint (image.bpf.h) attached into *link (the
 * skeleton destroys it); the fd of its pid -> image map, or -1 with a
 * warning when it cannot attach (then every sample is of image 0).
 */
int images_attach(struct bpf_program *exec_prog, struct bpf_link **link, struct bpf_map *map);

#endif
