/* SPDX-License-Identifier: MIT */
/* psym-collect -- COMMAND: start, release, reap (command.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "command.h"

int command_start(char *const *argv, struct command *c, struct psym_err *e)
{
	int p[2];
	char b;

	c->pid = 0;
	c->go_fd = c->pidfd = -1;
	c->reaped = false;
	if (pipe2(p, O_CLOEXEC) != 0)
		return psym_err_set(e, PSYM_EIO, "cannot make a pipe: %s", strerror(errno));
	c->pid = fork();
	if (c->pid < 0) {
		close(p[0]);
		close(p[1]);
		c->pid = 0;
		return psym_err_set(e, PSYM_EIO, "cannot start '%s': %s", argv[0], strerror(errno));
	}
	if (c->pid == 0) {
		/* The command gets the dispositions it would get from a shell. */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(127); /* psym-collect gave up before sampling */
		execvp(argv[0], argv);
		fprintf(stderr, "psym-collect: cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(p[0]);
	c->go_fd = p[1];
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	return 0;
}

void command_go(struct command *c)
{
	if (!c->pid || c->go_fd < 0)
		return;
	if (write(c->go_fd, "g", 1) != 1)
		kill(c->pid, SIGKILL);
	close(c->go_fd);
	c->go_fd = -1;
}

int command_finish(struct command *c, bool stop)
{
	if (!c->pid)
		return 0;
	if (c->go_fd >= 0) {
		close(c->go_fd); /* never released: it exits at once */
		c->go_fd = -1;
	} else if (stop && !c->reaped) {
		kill(c->pid, SIGTERM);
	}
	while (!c->reaped) {
		if (waitpid(c->pid, &c->status, 0) == c->pid)
			c->reaped = true;
		else if (errno != EINTR)
			break;
	}
	if (!c->reaped)
		return 127;
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return WIFEXITED(c->status) ? WEXITSTATUS(c->status) : 127;
}

int images_attach(struct bpf_program *exec_prog, struct bpf_link **link, struct bpf_map *map)
{
	*link = bpf_program__attach(exec_prog);
	if (!*link) {
		fprintf(stderr,
			"psym-collect: warning: cannot follow execs (raw tracepoint "
			"sched_process_exec): %s; samples from before an exec may be "
			"placed against the image after it\n",
			strerror(errno));
		return -1;
	}
	return bpf_map__fd(map);
}

static void follow_warn(const char *why)
{
	fprintf(stderr,
		"psym-collect: warning: cannot follow the children of the -p processes (%s): "
		"sampling only those processes\n",
		why);
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

void follow_plan(struct follow *f, pid_t cmd_pid, const int *pids, int npids, bool inherit)
{
	libbpf_print_fn_t old;
	struct btf *btf;

	f->n = 0;
	f->need = cmd_pid > 0;
	if (cmd_pid > 0) {
		f->pids[f->n++] = (int)cmd_pid;
		return;
	}
	if (!inherit || npids <= 0)
		return;
	/*
	 * The fork and exit programs are tp_btf ones: without BTF they cannot
	 * load. Where the kernel does not publish it, libbpf looks for it
	 * elsewhere (30-70 ms to parse), its own lines quiet: the warning
	 * below is the one.
	 */
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		old = libbpf_set_print(quiet);
		btf = btf__load_vmlinux_btf();
		libbpf_set_print(old);
		if (!btf) {
			follow_warn("the kernel's BTF is missing");
			return;
		}
		btf__free(btf);
	}
	for (int i = 0; i < npids && i < PSYM_MAX_PIDS; i++)
		f->pids[f->n++] = pids[i];
}

int follow_start(struct bpf_map *map, struct bpf_program *fork_prog, struct bpf_program *exit_prog,
		 const struct follow *f, struct bpf_link **links, struct psym_err *e)
{
	uint8_t one = 1;

	for (int i = 0; i < f->n; i++) {
		uint32_t k = (uint32_t)f->pids[i];

		if (bpf_map__update_elem(map, &k, sizeof(k), &one, sizeof(one), BPF_ANY) != 0)
			return psym_err_set(
				e, PSYM_EBPF,
				"cannot add pid %d to the BPF map of those followed: %s",
				f->pids[i], strerror(errno));
	}
	links[0] = bpf_program__attach(fork_prog);
	links[1] = links[0] ? bpf_program__attach(exit_prog) : NULL;
	if (links[1])
		return 0;
	if (f->need)
		return psym_err_set(e, PSYM_EBPF,
				    "cannot follow the command's children (sched_process_fork, "
				    "sched_process_exit: needs the kernel's BTF): %s",
				    strerror(errno));
	/* Neither attached: the map holds the pids, and only they are sampled. */
	follow_warn(strerror(errno));
	bpf_link__destroy(links[0]);
	links[0] = NULL;
	return 0;
}
