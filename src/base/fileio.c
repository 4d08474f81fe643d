/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <limits.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "array.h"
#include "fileio.h"

int psym_open_regular(const char *path, struct psym_err *e)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return psym_err_set(e,
				    errno == ENOMEM ? PSYM_ENOMEM
				    : (errno == ENOENT || errno == ENOTDIR || errno == ELOOP ||
				       errno == ENAMETOOLONG)
					    ? PSYM_EBADINPUT
					    : PSYM_EIO,
				    "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		int err = errno;

		close(fd);
		return psym_err_set(e, PSYM_EIO, "cannot stat '%s': %s", path, strerror(err));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return psym_err_set(e, PSYM_ENOTREG, "'%s': not a regular file", path);
	}
	/* Back to blocking reads now that we know it is a plain file. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* Below this, a private copy is not worth asking the kernel to populate at once. */
#define POPULATE_MIN ((size_t)1 << 20)

int psym_map_regular(const char *path, const char *what, uint64_t min, uint64_t max,
		     const void **map, size_t *len, struct psym_err *e)
{
	struct stat st;
	size_t size, got = 0;
	char extra;
	void *p;
	int fd = psym_open_regular(path, e), ret = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) != 0) {
		ret = psym_err_set(e, PSYM_EIO, "cannot stat '%s': %s", path, strerror(errno));
		goto out_close;
	}
	if ((uint64_t)st.st_size < min) {
		ret = psym_err_set(e, PSYM_EBADINPUT, "%s '%s': truncated header", what, path);
		goto out_close;
	}
	if ((uint64_t)st.st_size > max || (uint64_t)st.st_size > SIZE_MAX) {
		ret = psym_err_set(e, PSYM_ELIMIT, "%s '%s': larger than the cap of %llu", what,
				   path, (unsigned long long)max);
		goto out_close;
	}
	/*
	 * A private copy, not a mapping of the file: a file truncated or
	 * rewritten in place under a mapping (cp over a store's index, an NFS
	 * store) kills the reader with SIGBUS on its next page, or hands it
	 * bytes that were never checked. The symbol cache settled this the
	 * same way (symcache.c, read_image): read once, checked, kept as
	 * checked; no SIGBUS handler (process-wide state a library must not
	 * take). Anonymous memory, so that the caller's munmap frees it.
	 */
	size = (size_t)st.st_size;
	p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | (size >= POPULATE_MIN ? MAP_POPULATE : 0), -1, 0);
	if (p == MAP_FAILED) {
		ret = psym_err_set(e, PSYM_ENOMEM, "%s '%s': no memory for its %zu bytes", what,
				   path, size);
		goto out_close;
	}
	while (got < size) {
		ssize_t n = read(fd, (char *)p + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	/* One byte more than fstat said: a file that grows meanwhile is caught too. */
	if (got != size || read(fd, &extra, 1) != 0) {
		munmap(p, size ? size : 1);
		ret = psym_err_set(e, PSYM_EBADINPUT, "%s '%s': changed while being read", what,
				   path);
		goto out_close;
	}
	mprotect(p, size ? size : 1, PROT_READ);
	*map = p;
	*len = size;
out_close:
	close(fd);
	return ret;
}

int psym_open_input(const char *path, struct psym_err *e)
{
	struct stat st;
	int fd;

	/*
	 * A pipe is opened blocking, as cat(1) opens it (a non-blocking open
	 * and close first would drop what a writer already put in it).
	 */
	if (stat(path, &st) < 0 || !S_ISFIFO(st.st_mode)) {
		fd = psym_open_regular(path, e);
		if (fd == PSYM_ENOTREG)
			psym_err_set(e, PSYM_ENOTREG, "'%s': not a regular file or a pipe", path);
		return fd;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return psym_err_set(e, errno == ENOMEM ? PSYM_ENOMEM : PSYM_EIO,
				    "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode)) {
		close(fd);
		return psym_err_set(e, PSYM_ENOTREG, "'%s': not a regular file or a pipe", path);
	}
	return fd;
}

/* The one-line refusal of an input over its cap; size 0: not known. */
static int too_large(struct psym_err *e, const char *name, uint64_t size, uint64_t max,
		     const char *raise)
{
	if (size)
		return psym_err_set(e, PSYM_ELIMIT,
				    "'%s': %llu bytes, larger than the limit of %llu bytes%s%s%s",
				    name, (unsigned long long)size, (unsigned long long)max,
				    raise ? " (" : "", raise ? raise : "", raise ? ")" : "");
	return psym_err_set(e, PSYM_ELIMIT, "'%s': larger than the limit of %llu bytes%s%s%s", name,
			    (unsigned long long)max, raise ? " (" : "", raise ? raise : "",
			    raise ? ")" : "");
}

static int read_cap(const char *path, bool pipes, size_t max, const char *raise,
		    unsigned char **bufp, size_t *lenp, struct psym_err *e)
{
	bool is_stdin = strcmp(path, "-") == 0;
	const char *name = is_stdin ? "<stdin>" : path;
	unsigned char *buf = NULL, *nb;
	size_t len = 0, cap = 0, first = 65536;
	struct stat st;
	int fd, ret = 0;

	fd = is_stdin ? STDIN_FILENO
	     : pipes  ? psym_open_input(path, e)
		      : psym_open_regular(path, e);
	if (fd < 0)
		return fd;
	/* A regular file says its size: refuse it before reading a byte. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((uint64_t)st.st_size > max) {
			ret = too_large(e, name, (uint64_t)st.st_size, max, raise);
			goto out_close;
		}
		first = (size_t)st.st_size + 1; /* one read, then end of file */
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			size_t ncap = cap ? (cap > SIZE_MAX / 4 ? SIZE_MAX / 2 : cap * 2) : first;

			if (cap > max) {
				ret = too_large(e, name, 0, max, raise);
				goto out_free;
			}
			/* Never more than max + 1 bytes: enough to see it is too long. */
			if (max < SIZE_MAX / 2 && ncap > max + 1)
				ncap = max + 1;
			nb = realloc(buf, ncap + 1);
			if (!nb) {
				ret = psym_err_set(e, PSYM_ENOMEM, "'%s': out of memory", name);
				goto out_free;
			}
			buf = nb;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = psym_err_set(e, PSYM_EIO, "cannot read '%s': %s", name,
					   strerror(errno));
			goto out_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			ret = too_large(e, name, 0, max, raise);
			goto out_free;
		}
	}
	if (!buf) {
		buf = malloc(1);
		if (!buf) {
			ret = psym_err_set(e, PSYM_ENOMEM, "'%s': out of memory", name);
			goto out_close;
		}
	}
	*bufp = buf;
	*lenp = len;
	goto out_close;
out_free:
	free(buf);
out_close:
	if (!is_stdin)
		close(fd);
	return ret;
}

int psym_read_file_cap(const char *path, size_t max, const char *raise, unsigned char **bufp,
		       size_t *lenp, struct psym_err *e)
{
	return read_cap(path, false, max, raise, bufp, lenp, e);
}

int psym_read_input_cap(const char *path, size_t max, const char *raise, unsigned char **bufp,
			size_t *lenp, struct psym_err *e)
{
	return read_cap(path, true, max, raise, bufp, lenp, e);
}

int psym_read_file(const char *path, size_t max, unsigned char **bufp, size_t *lenp,
		   struct psym_err *e)
{
	return psym_read_file_cap(path, max, NULL, bufp, lenp, e);
}

/*
 * A killed writer stays a zombie until its new parent reaps it, which can
 * take a while when an engine's worker died with it (psym-dask): kill(pid,
 * 0) still succeeds, but the process will never rename its temporary.
 */
static bool pid_is_zombie(long pid)
{
	char path[64], buf[512], *rp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold spaces and parentheses. */
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

bool psym_pid_gone(long pid)
{
	if (pid <= 0 || pid > INT32_MAX)
		return false;
	return (kill((pid_t)pid, 0) != 0 && errno == ESRCH) || pid_is_zombie(pid);
}

void psym_remove_stale_tmps(const char *dir, const char *prefix, char sep)
{
	char full[4096];
	struct dirent *de;
	size_t plen = strlen(prefix);
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, prefix, plen) != 0)
			continue;
		if (de->d_name[plen] < '1' || de->d_name[plen] > '9')
			continue; /* strtol would take a sign or spaces */
		errno = 0;
		pid = strtol(de->d_name + plen, &end, 10);
		if (errno || *end != sep || pid <= 0 || pid > INT32_MAX)
			continue;
		if (!psym_pid_gone(pid))
			continue; /* its writer may still be running */
		if (snprintf(full, sizeof(full), "%s/%s", dir, de->d_name) < (int)sizeof(full))
			unlink(full);
	}
	closedir(d);
}

/* Output temporaries are named ".BASE.psym-tmp-PID-XXXXXX" next to the output. */
static void remove_stale_tmps(const char *dir, const char *base)
{
	char prefix[512];

	if (snprintf(prefix, sizeof(prefix), ".%s.psym-tmp-", base) >= (int)sizeof(prefix))
		return;
	psym_remove_stale_tmps(dir, prefix, '-');
}

/* Most symbolic links followed for an output path (the kernel's own limit). */
#define MAX_LINK_HOPS 40

/*
 * Follow the symbolic links that path's last component names, even a dangling
 * one, without touching the file. *real (malloc'd) is the path of what path
 * finally names, which may not exist yet. *magic is set when a link lives in
 * /proc (/dev/stdout, /dev/fd/N, /proc/self/fd/N): its target names an open
 * file, not a path that a rename could replace.
 */
static int resolve_links(const char *path, char **real, bool *magic, struct psym_err *e)
{
	char *cur = strdup(path), target[PATH_MAX];

	*magic = false;
	if (!cur)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (int hops = 0;; hops++) {
		struct statfs sf;
		struct stat st;
		char *slash, *next;
		ssize_t n;

		if (lstat(cur, &st) != 0) {
			if (errno == ENOENT)
				break; /* to be created */
			int err = errno;

			free(cur);
			return psym_err_set(e,
					    err == ELOOP || err == ENOTDIR ? PSYM_EUSAGE : PSYM_EIO,
					    "cannot stat '%s': %s", path, strerror(err));
		}
		if (!S_ISLNK(st.st_mode))
			break;
		if (hops == MAX_LINK_HOPS) {
			free(cur);
			return psym_err_set(e, PSYM_EUSAGE,
					    "'%s': too many levels of symbolic links", path);
		}
		n = readlink(cur, target, sizeof(target) - 1);
		if (n <= 0) {
			free(cur);
			return psym_err_set(e, PSYM_EIO, "cannot read the link '%s': %s", path,
					    n < 0 ? strerror(errno) : "empty");
		}
		target[n] = '\0';
		slash = strrchr(cur, '/');
		{ /* does this link live in /proc (statfs of its directory)? */
			char keep = slash ? slash[1] : '\0';
			const char *dir = slash ? cur : ".";
			struct stat ds;

			if (slash)
				slash[1] = '\0';
			if (statfs(dir, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC)
				*magic = true;
			/*
			 * The kernel's protected_symlinks rule, kept even where it
			 * is off: a link in a sticky world-writable directory (/tmp)
			 * is followed only when it is ours or the directory
			 * owner's. Else another local user's link would have the
			 * output, or its rename, land on a file of theirs choosing.
			 */
			if (!*magic && stat(dir, &ds) == 0 && (ds.st_mode & S_ISVTX) &&
			    (ds.st_mode & S_IWOTH) && st.st_uid != geteuid() &&
			    st.st_uid != ds.st_uid) {
				if (slash)
					slash[1] = keep;
				free(cur);
				return psym_err_set(e, PSYM_EUSAGE,
						    "'%s' is a link of another user (uid %lu) in a "
						    "shared directory: not followed",
						    path, (unsigned long)st.st_uid);
			}
			if (slash)
				slash[1] = keep;
		}
		if (*magic)
			break;
		if (target[0] == '/' || !slash)
			next = strdup(target);
		else if (asprintf(&next, "%.*s/%s", (int)(slash - cur), cur, target) < 0)
			next = NULL;
		free(cur);
		cur = next;
		if (!cur)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	*real = cur;
	return 0;
}

/* Write straight into an existing file that is not ours to replace. */
static int open_direct(struct psym_out *o, const char *path, int flags, struct psym_err *e)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | flags);

	if (fd < 0)
		return psym_err_set(e, PSYM_EIO, "cannot open '%s' for writing: %s", path,
				    strerror(errno));
	o->fp = fdopen(fd, "wb");
	if (!o->fp) {
		close(fd);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	o->direct = true;
	return 0;
}

int psym_out_open(struct psym_out *o, const char *path, struct psym_err *e)
{
	char *dir = NULL, *real = NULL, *slash;
	const char *base;
	struct stat st;
	bool magic = false;
	int fd, ret = 0;

	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->path = strdup("-");
		o->fp = stdout;
		if (!o->path)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		return 0;
	}
	o->path = strdup(path);
	if (!o->path) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto fail;
	}
	/*
	 * Only a regular file (or nothing) is replaced by a temporary file and
	 * rename(): a device, FIFO, socket or terminal is written directly,
	 * as is a file reached through /proc (our own standard output). A
	 * symbolic link is followed and its target written, never replaced
	 * (but not another user's link in a shared directory: resolve_links).
	 */
	ret = resolve_links(path, &real, &magic, e);
	if (ret)
		goto fail;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			ret = psym_err_set(e, PSYM_EUSAGE, "'%s': output is a directory", path);
			goto fail;
		}
		if (!S_ISREG(st.st_mode)) {
			ret = open_direct(o, path, 0, e);
			if (ret)
				goto fail;
			free(real);
			return 0;
		}
	} else if (errno != ENOENT) {
		ret = psym_err_set(e, errno == ELOOP || errno == ENOTDIR ? PSYM_EUSAGE : PSYM_EIO,
				   "cannot stat '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (magic) {
		/* Appending keeps what the shell's ">>" already holds; ">" emptied it. */
		ret = open_direct(o, path, O_APPEND, e);
		if (ret)
			goto fail;
		free(real);
		return 0;
	}
	dir = strdup(real);
	if (!dir) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto fail;
	}
	free(o->path);
	o->path = real; /* the rename goes to the link's target */
	real = NULL;
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		base = slash + 1;
		if (slash == dir) {
			dir[0] = '/';
			dir[1] = '\0';
			base = o->path + 1;
		}
	} else {
		base = dir;
	}
	if (!*base) {
		ret = psym_err_set(e, PSYM_EUSAGE, "'%s': output is a directory", path);
		goto fail;
	}
	{
		const char *d = slash ? dir : ".";
		size_t n = strlen(d) + strlen(base) + 64;

		o->tmp = malloc(n);
		if (!o->tmp) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
			goto fail;
		}
		remove_stale_tmps(d, base);
		snprintf(o->tmp, n, "%s/.%s.psym-tmp-%ld-XXXXXX", d, base, (long)getpid());
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		ret = psym_err_set(e, PSYM_EIO, "cannot create a file next to '%s': %s", o->path,
				   strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		goto fail;
	}
	{
		mode_t um = umask(077);

		umask(um);
		fchmod(fd, 0666 & ~um);
	}
	o->fp = fdopen(fd, "wb");
	if (!o->fp) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		close(fd);
		unlink(o->tmp);
		goto fail;
	}
	free(dir);
	return 0;
fail:
	free(dir);
	free(real);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return ret;
}

int psym_out_commit(struct psym_out *o, struct psym_err *e)
{
	int ret = 0;

	if (!o->fp)
		return psym_err_set(e, PSYM_EINTERNAL, "output not open");
	if (!o->tmp) {
		/* Standard output, or a device/FIFO/terminal written directly. */
		if (fflush(o->fp) != 0 || ferror(o->fp)) {
			if (o->direct)
				ret = psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", o->path,
						   strerror(errno ? errno : EIO));
			else
				ret = psym_err_set(e, PSYM_EIO,
						   "cannot write to standard output: %s",
						   strerror(errno ? errno : EIO));
		}
		if (o->direct && fclose(o->fp) != 0 && !ret)
			ret = psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", o->path,
					   strerror(errno));
		o->fp = NULL;
		free(o->path);
		memset(o, 0, sizeof(*o));
		return ret;
	}
	if (fflush(o->fp) != 0 || ferror(o->fp) || fsync(fileno(o->fp)) != 0) {
		ret = psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", o->path,
				   strerror(errno ? errno : EIO));
		goto abort;
	}
	if (fclose(o->fp) != 0) {
		o->fp = NULL;
		ret = psym_err_set(e, PSYM_EIO, "cannot write '%s': %s", o->path, strerror(errno));
		goto abort;
	}
	o->fp = NULL;
	if (rename(o->tmp, o->path) != 0) {
		ret = psym_err_set(e, PSYM_EIO, "cannot rename into '%s': %s", o->path,
				   strerror(errno));
		goto abort;
	}
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return 0;
abort:
	psym_out_abort(o);
	return ret;
}

void psym_out_abort(struct psym_out *o)
{
	if (!o)
		return;
	if (o->fp && o->fp != stdout)
		fclose(o->fp);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
}

bool psym_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int psym_read_lines_cap(int fd, const char *name, size_t max_line, uint64_t max_bytes,
			const char *raise, int (*fn)(void *ud, const char *line, size_t len),
			void *ud, size_t *skipped, struct psym_err *e)
{
	size_t cap = max_line + 1 > 65536 ? max_line + 1 : 65536, len = 0;
	uint64_t total = 0;
	bool overlong = false;
	struct stat st;
	char *buf;
	int ret = 0;

	/* A regular file says its size (/proc files say 0): refuse it unread. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max_bytes)
		return too_large(e, name, (uint64_t)st.st_size, max_bytes, raise);
	buf = malloc(cap);
	if (!buf)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (;;) {
		ssize_t n = read(fd, buf + len, cap - len);
		size_t start = 0;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = psym_err_set(e, PSYM_EIO, "cannot read '%s': %s", name,
					   strerror(errno));
			break;
		}
		if (n == 0) {
			if (len && !overlong)
				ret = fn(ud, buf, len);
			else if (len && skipped)
				(*skipped)++;
			break;
		}
		total += (uint64_t)n;
		if (total > max_bytes) {
			/* It grew, or it is a file with no size: the same cap. */
			ret = too_large(e, name, 0, max_bytes, raise);
			break;
		}
		len += (size_t)n;
		for (;;) {
			char *nl = memchr(buf + start, '\n', len - start);

			if (!nl)
				break;
			if (overlong) {
				if (skipped)
					(*skipped)++;
				overlong = false;
			} else if ((size_t)(nl - (buf + start)) > max_line) {
				if (skipped)
					(*skipped)++;
			} else if ((ret = fn(ud, buf + start, (size_t)(nl - (buf + start)))) != 0) {
				goto out;
			}
			start = (size_t)(nl - buf) + 1;
		}
		/* Keep the partial line; drop it (and what follows) if too long. */
		memmove(buf, buf + start, len - start);
		len -= start;
		if (len > max_line) {
			overlong = true;
			len = 0;
		}
	}
out:
	free(buf);
	return ret;
}

bool psym_parse_hex(const char **p, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;

	while (*p < end) {
		char ch = **p;
		int d;

		if (ch >= '0' && ch <= '9')
			d = ch - '0';
		else if (ch >= 'a' && ch <= 'f')
			d = ch - 'a' + 10;
		else if (ch >= 'A' && ch <= 'F')
			d = ch - 'A' + 10;
		else
			break;
		if (++digits > 16)
			return false;
		v = v << 4 | (uint64_t)d;
		(*p)++;
	}
	*out = v;
	return digits > 0;
}

bool psym_stat_trusted(const struct stat *st, char *why, size_t whysz)
{
	uid_t me = geteuid();

	if (st->st_uid != me && st->st_uid != 0) {
		snprintf(why, whysz, "owned by uid %lu, not by this user (uid %lu)",
			 (unsigned long)st->st_uid, (unsigned long)me);
		return false;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, whysz, "writable by %s (mode %04o)",
			 st->st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(st->st_mode & 07777));
		return false;
	}
	return true;
}

int psym_trusted_dir_open(int atfd, const char *name, bool follow, char *why, size_t whysz)
{
	int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
	struct stat st;
	int fd, err;

	why[0] = '\0';
	fd = openat(atfd, name, flags);
	if (fd < 0) {
		err = errno;
		if (err == ELOOP ||
		    (err == ENOTDIR && !follow &&
		     fstatat(atfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))) {
			snprintf(why, whysz, "'%s' is a symbolic link", name);
			return -ELOOP;
		}
		if (err != ENOENT)
			snprintf(why, whysz, "cannot open '%s': %s", name, strerror(err));
		return -err;
	}
	if (fstat(fd, &st) != 0) {
		err = errno;
		snprintf(why, whysz, "cannot stat '%s': %s", name, strerror(err));
		close(fd);
		return -err;
	}
	if (!psym_stat_trusted(&st, why, whysz)) {
		char tail[200];

		snprintf(tail, sizeof(tail), "%s", why);
		snprintf(why, whysz, "'%s' is %s", name, tail);
		close(fd);
		return -EPERM;
	}
	return fd;
}

int psym_anon_tmpfile(const char *what, struct psym_err *e)
{
	const char *dir = getenv("TMPDIR");
	char tmpl[PATH_MAX];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if (snprintf(tmpl, sizeof(tmpl), "%s/psym-tmp.XXXXXX", dir) >= (int)sizeof(tmpl))
		return psym_err_set(e, PSYM_EIO,
				    "cannot make a temporary file for %s: "
				    "$TMPDIR too long",
				    what);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0)
		return psym_err_set(e, PSYM_EIO, "cannot make a temporary file for %s in '%s': %s",
				    what, dir, strerror(errno));
	unlink(tmpl);
	return fd;
}

/* Declared in psym.h: addr's input lines. */
ssize_t psym_read_line_cap(FILE *in, char **buf, size_t *cap, size_t max, bool *overlong)
{
	size_t n = 0;
	int c;

	*overlong = false;
	/* One lock for the line, not one per byte (2% of psym addr's run). */
	flockfile(in);
	while ((c = getc_unlocked(in)) != EOF && c != '\n') {
		if (n == max) {
			*overlong = true;
			continue;
		}
		if (n + 1 >= *cap) {
			char *nb = psym_array_grow(*buf, cap, n + 2, 1, max + 1);

			if (!nb) {
				*overlong = true; /* answered as not an address */
				continue;
			}
			*buf = nb;
		}
		(*buf)[n++] = (char)c;
	}
	funlockfile(in);
	if (c == EOF && n == 0 && !*overlong)
		return -1;
	if (*buf)
		(*buf)[n] = '\0';
	return (ssize_t)n;
}

int psym_own_vdso(const void **bytes, size_t *len)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long long start = 0, limit = 0;
	char line[512];
	FILE *f;

	if (!base || !(f = fopen("/proc/self/maps", "re")))
		return PSYM_NOENT;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &limit) == 2)
			break;
	fclose(f);
	if (start != base || limit <= start || limit - start > (1 << 20))
		return PSYM_NOENT;
	*bytes = (const void *)(uintptr_t)start;
	*len = (size_t)(limit - start);
	return 0;
}
