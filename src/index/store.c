/* SPDX-License-Identifier: MIT */
/* The index store (store.h): a directory, or an HTTP server (store_http.c). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buildid.h"
#include "fileio.h"
#include "gsym.h"
#include "store.h"
#include "store_http.h"
#include "storekey.h"

struct psym_index_store {
	char *spec;
	bool http, auto_build;
	struct psym_http_store *hs; /* http: one per run */
	size_t built;
};

/*
 * A directory of a directory store (the store, STORE/NN): a directory,
 * never a symbolic link, passing psym_stat_trusted, the one rule for every
 * file psym keeps across runs. 0, PSYM_NOENT when missing, or PSYM_EIO
 * with why set.
 */
static int dir_trusted(const char *dir, char *why, size_t whysz)
{
	char rule[200];
	struct stat st;

	if (lstat(dir, &st) != 0) {
		if (errno == ENOENT)
			return PSYM_NOENT;
		snprintf(why, whysz, "cannot stat '%s': %s", dir, strerror(errno));
		return PSYM_EIO;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whysz, "'%s' is not a directory", dir);
		return PSYM_EIO;
	}
	if (!psym_stat_trusted(&st, rule, sizeof(rule))) {
		snprintf(why, whysz, "'%s' is not trusted: %s", dir, rule);
		return PSYM_EIO;
	}
	return 0;
}

static int mkdir_trusted(const char *dir, struct psym_err *e)
{
	char why[600];

	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", dir, strerror(errno));
	switch (dir_trusted(dir, why, sizeof(why))) {
	case 0: return 0;
	case PSYM_NOENT: return psym_err_set(e, PSYM_EIO, "index store '%s' vanished", dir);
	default: return psym_err_set(e, PSYM_EIO, "index store %s", why);
	}
}

int psym_index_store_new(const char *spec, bool auto_build, struct psym_index_store **out,
			 struct psym_err *e)
{
	struct psym_index_store *s = calloc(1, sizeof(*s));
	int ret = 0;

	if (!s || !(s->spec = strdup(spec))) {
		free(s);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	s->auto_build = auto_build;
	if (strncmp(spec, "http://", 7) == 0) {
		s->http = true;
		ret = psym_http_store_new(spec, &s->hs, e);
	} else if (strstr(spec, "://")) {
		ret = psym_err_set(e, PSYM_EUSAGE,
				   "index store '%s': only directories and http:// URLs", spec);
	} else {
		ret = mkdir_trusted(spec, e);
	}
	if (ret) {
		psym_index_store_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void psym_index_store_free(struct psym_index_store *s)
{
	if (!s)
		return;
	psym_http_store_free(s->hs);
	free(s->spec);
	free(s);
}

const char *psym_index_store_name(const struct psym_index_store *s)
{
	return s->spec;
}

bool psym_index_store_auto_build(const struct psym_index_store *s)
{
	return s->auto_build;
}

const char *psym_index_store_given_up(const struct psym_index_store *s)
{
	return s && s->http ? psym_http_store_why(s->hs) : NULL;
}

size_t psym_index_store_built(const struct psym_index_store *s)
{
	return s ? s->built : 0;
}

void psym_index_store_count_built(struct psym_index_store *s)
{
	s->built++;
}

/* DIR/ab/<name><suffix>, name a build ID or a key that starts with one. */
static int key_path(const char *base, const char *name, const char *suffix, char *buf, size_t bufsz)
{
	int k = snprintf(buf, bufsz, "%s/%.2s/%s%s", base, name, name, suffix);

	return k < 0 || (size_t)k >= bufsz ? -1 : 0;
}

/*
 * A file of a directory store, DIR/NN/<name><suffix>, found the one way for
 * every kind (index, GSYM): the store and DIR/NN trusted directories, the
 * file a regular file that psym_stat_trusted accepts (checked with lstat:
 * never a link, a FIFO or a device, which is never opened). 0 with its
 * path; PSYM_NOENT when there is none (note empty) or it may not be used
 * (note says why, naming what is wrong).
 */
static int store_file(const struct psym_index_store *s, const char *name, const char *suffix,
		      const char *what, char *path, size_t pathsz, char *note, size_t notesz)
{
	char dir[4096], why[600], rule[200];
	struct stat st;
	int ret;

	note[0] = '\0';
	if (s->http || key_path(s->spec, name, suffix, path, pathsz) ||
	    snprintf(dir, sizeof(dir), "%s/%.2s", s->spec, name) >= (int)sizeof(dir))
		return PSYM_NOENT;
	if (lstat(path, &st) != 0)
		return PSYM_NOENT;
	/* The directories first: in a directory others may write, any file may be theirs. */
	ret = dir_trusted(s->spec, why, sizeof(why));
	if (!ret)
		ret = dir_trusted(dir, why, sizeof(why));
	if (ret) {
		snprintf(note, notesz, "%s '%s' not used: the store's directory %s", what, path,
			 ret == PSYM_NOENT ? "vanished" : why);
		return PSYM_NOENT;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(note, notesz, "%s '%s' not used: not a regular file", what, path);
		return PSYM_NOENT;
	}
	if (!psym_stat_trusted(&st, rule, sizeof(rule))) {
		snprintf(note, notesz, "%s '%s' not trusted: %s", what, path, rule);
		return PSYM_NOENT;
	}
	return 0;
}

static int get_dir(struct psym_index_store *s, const char *bid, const char *variant,
		   struct psym_index **out, char *note, size_t notesz)
{
	char key[256], path[4096];
	struct psym_err e = { 0 };

	if (psym_index_store_key(bid, variant, key, sizeof(key)) ||
	    store_file(s, key, PSYM_INDEX_SUFFIX, "index", path, sizeof(path), note, notesz))
		return PSYM_NOENT;
	if (psym_index_open(path, bid, variant, out, &e) != 0) {
		snprintf(note, notesz, "%s", e.msg);
		return PSYM_NOENT;
	}
	return 0;
}

int psym_index_store_get(struct psym_index_store *s, const char *build_id, const char *variant,
			 struct psym_index **out, char *note, size_t notesz)
{
	note[0] = '\0';
	if (!build_id || !psym_build_id_canonical(build_id))
		return PSYM_NOENT;
	if (s->http)
		return psym_http_store_get(s->hs, build_id, variant, out, note, notesz);
	return get_dir(s, build_id, variant, out, note, notesz);
}

int psym_index_store_gsym(struct psym_index_store *s, const char *build_id, char *path,
			  size_t pathsz, char *note, size_t notesz)
{
	note[0] = '\0';
	if (!build_id || !psym_build_id_canonical(build_id))
		return PSYM_NOENT;
	return store_file(s, build_id, PSYM_GSYM_SUFFIX, "GSYM file", path, pathsz, note, notesz);
}

/*
 * Who holds a .building marker: its pid, host name, boot ID and PID
 * namespace, one "key value" line each (an older psym wrote the pid
 * alone). Enough to see at once that a builder of this machine is gone.
 */
struct holder {
	long pid;
	char host[256], boot[64], pidns[64];
};

/* A short line-oriented file of the system's (/proc), first line only. */
static void read_line(const char *path, char *buf, size_t bufsz)
{
	int fd = psym_open_regular(path, NULL);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, buf, bufsz - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static void holder_self(struct holder *h)
{
	ssize_t n;

	memset(h, 0, sizeof(*h));
	h->pid = (long)getpid();
	if (gethostname(h->host, sizeof(h->host) - 1) != 0)
		h->host[0] = '\0';
	/* One token: a host name may hold anything gethostname hands over. */
	for (char *c = h->host; *c; c++)
		if (*c <= ' ' || *c == 0x7f)
			*c = '?';
	read_line("/proc/sys/kernel/random/boot_id", h->boot, sizeof(h->boot));
	n = readlink("/proc/self/ns/pid", h->pidns, sizeof(h->pidns) - 1);
	h->pidns[n > 0 ? n : 0] = '\0';
}

/* Parse a marker (at most 1 KiB, a regular file opened without blocking). */
static bool read_holder(const char *marker, struct holder *h)
{
	char buf[1024], *save = NULL;
	int fd = psym_open_regular(marker, NULL);
	ssize_t n;

	memset(h, 0, sizeof(*h));
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(l, ' ');

		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(l, "pid"))
			h->pid = strtol(v, NULL, 10);
		else if (!strcmp(l, "host"))
			snprintf(h->host, sizeof(h->host), "%s", v);
		else if (!strcmp(l, "boot"))
			snprintf(h->boot, sizeof(h->boot), "%s", v);
		else if (!strcmp(l, "pidns"))
			snprintf(h->pidns, sizeof(h->pidns), "%s", v);
	}
	return h->pid > 0;
}

/*
 * Is the .building marker (lstat'ed as *st) stale: its builder gone? Not
 * a regular file: no builder's. Older than PSYM_STORE_BUILD_STALE: the
 * builder died or hangs. Else from what it says (*h): a builder of this
 * host, this boot and this PID namespace is checked at once (gone, or a
 * zombie); this host's marker from an earlier boot is stale; another
 * host's (or one that says too little) waits for the age rule.
 */
static bool marker_stale(const char *marker, const struct stat *st, struct holder *h)
{
	struct holder me;

	if (!S_ISREG(st->st_mode) || time(NULL) - st->st_mtime > PSYM_STORE_BUILD_STALE)
		return true;
	if (!read_holder(marker, h) || !h->host[0] || !h->boot[0])
		return false;
	holder_self(&me);
	if (strcmp(h->host, me.host) != 0 || !me.boot[0])
		return false;
	if (strcmp(h->boot, me.boot) != 0)
		return true;
	if (!h->pidns[0] || !me.pidns[0] || strcmp(h->pidns, me.pidns) != 0)
		return false;
	return psym_pid_gone(h->pid);
}

int psym_index_store_begin(struct psym_index_store *s, const char *build_id, const char *variant,
			   char *path, size_t pathsz, struct psym_err *e)
{
	char key[256], sub[4096], marker[4096];
	struct holder holder = { 0 };
	struct stat st;
	int fd, ret;

	if (!psym_build_id_canonical(build_id))
		return psym_err_set(e, PSYM_EBADINPUT, "'%s' is not a build ID", build_id);
	if (psym_index_store_key(build_id, variant, key, sizeof(key)))
		return psym_err_set(e, PSYM_EBADINPUT, "'%s' is not an index variant", variant);
	if (s->http) {
		/*
		 * Written first into a directory of our own (mkdtemp: mode 0700,
		 * a name nobody can guess or plant beforehand), never at a
		 * predictable path of a shared $TMPDIR, where another user's
		 * link would have a root run write through it.
		 */
		const char *tmp = getenv("TMPDIR");
		int k = snprintf(path, pathsz, "%s/psym-idx-XXXXXX", tmp && *tmp ? tmp : "/tmp");

		/* Nothing to build for a server given up in this run. */
		ret = psym_http_store_up(s->hs, e);
		if (ret)
			return ret;
		if (k < 0 || (size_t)k + 1 + strlen(build_id) + sizeof(PSYM_INDEX_SUFFIX) > pathsz)
			return psym_err_set(e, PSYM_ELIMIT, "temporary path too long");
		if (!mkdtemp(path))
			return psym_err_set(e, PSYM_EIO, "cannot create a directory like '%s': %s",
					    path, strerror(errno));
		snprintf(path + k, pathsz - (size_t)k, "/%s" PSYM_INDEX_SUFFIX, build_id);
		return 0;
	}
	snprintf(sub, sizeof(sub), "%s/%.2s", s->spec, build_id);
	ret = mkdir_trusted(sub, e);
	if (ret)
		return ret;
	if (key_path(s->spec, key, PSYM_INDEX_SUFFIX, path, pathsz) ||
	    key_path(s->spec, key, ".building", marker, sizeof(marker)))
		return psym_err_set(e, PSYM_ELIMIT, "index store path too long");
	/*
	 * The index is renamed into place; but a FIFO, device or link there
	 * would be written into (psym_out_open writes those directly), and
	 * a FIFO without a reader would hang the builder for good.
	 */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return psym_err_set(e, PSYM_ENOTREG,
				    "index store: '%s' is not a regular file: not replaced", path);
	/* One builder per build ID, also across machines (O_EXCL works on NFSv3+). */
	for (int tries = 0; tries < 2; tries++) {
		fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			struct holder me;
			char text[512];
			int k;

			holder_self(&me);
			k = snprintf(text, sizeof(text), "pid %ld\nhost %s\nboot %s\npidns %s\n",
				     me.pid, me.host, me.boot, me.pidns);
			/* One write: a reader sees all of it or nothing (then the age rule). */
			if (k > 0 && write(fd, text, (size_t)k) != k) {
				/* a full disk: an empty marker is judged by its age alone */
			}
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			return psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", marker,
					    strerror(errno));
		if (lstat(marker, &st) != 0 || !marker_stale(marker, &st, &holder))
			break;
		/* Its builder is gone: take over. A directory there is no builder's either. */
		if (unlink(marker) != 0 && errno != ENOENT)
			return psym_err_set(
				e, PSYM_EIO,
				"cannot remove the stale marker '%s' (%s): not building "
				"'%s'",
				marker, strerror(errno), path);
	}
	if (holder.pid > 0 && holder.host[0])
		return psym_err_set(e, PSYM_NOENT,
				    "another process is building '%s' (pid %ld on %s)", path,
				    holder.pid, holder.host);
	return psym_err_set(e, PSYM_NOENT, "another process is building '%s'", path);
}

/* An HTTP store's temporary index and the private directory begin made for it. */
static void remove_private_tmp(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');

	unlink(path);
	if (!slash || (size_t)(slash - path) >= sizeof(dir))
		return;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	rmdir(dir);
}

static void drop_marker(struct psym_index_store *s, const char *build_id, const char *variant)
{
	char key[256], marker[4096];

	if (!s->http && !psym_index_store_key(build_id, variant, key, sizeof(key)) &&
	    !key_path(s->spec, key, ".building", marker, sizeof(marker)))
		unlink(marker);
}

/*
 * A directory store's builds.log: one line per index put in place
 * (build ID, host, pid, UTC time), appended with one write() (O_APPEND), so
 * that a cluster's builds can be audited and counted. Best effort.
 */
static void log_build(struct psym_index_store *s, const char *build_id)
{
	char path[4096], line[512], host[256] = "?", why[200];
	struct stat st;
	int fd, k;

	if (s->http || snprintf(path, sizeof(path), "%s/builds.log", s->spec) >= (int)sizeof(path))
		return;
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	k = snprintf(line, sizeof(line), "%s\t%.200s\t%ld\t%lld\n", build_id, host, (long)getpid(),
		     (long long)time(NULL));
	if (k < 0 || (size_t)k >= sizeof(line))
		return;
	/* Non-blocking: a FIFO there without a reader must not hang the builder. */
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    psym_stat_trusted(&st, why, sizeof(why)) && write(fd, line, (size_t)k) != k) {
		/* best effort: the index itself is in place */
	}
	close(fd);
}

int psym_index_store_commit(struct psym_index_store *s, const char *build_id, const char *variant,
			    const char *path, struct psym_err *e)
{
	int ret = 0;

	if (s->http) {
		ret = psym_http_store_put(s->hs, build_id, variant, path, e);
		remove_private_tmp(path);
	}
	/*
	 * Written as the umask says (psym_out_open): a umask of 002 would leave
	 * it group-writable, and the store's own check would refuse it.
	 */
	if (!s->http && !ret)
		chmod(path, 0644);
	drop_marker(s, build_id, variant);
	if (!ret) {
		s->built++;
		log_build(s, build_id);
	}
	return ret;
}

void psym_index_store_abandon(struct psym_index_store *s, const char *build_id, const char *variant,
			      const char *path)
{
	if (s->http && path)
		remove_private_tmp(path);
	drop_marker(s, build_id, variant);
}

bool psym_index_store_seen(struct psym_index_store *s, const char *build_id)
{
	char sub[4096], marker[4096], why[200];
	struct psym_err e = { 0 };
	struct stat st;
	int fd;

	if (s->http || !psym_build_id_canonical(build_id))
		return false;
	if (key_path(s->spec, build_id, ".seen", marker, sizeof(marker)))
		return false;
	if (lstat(marker, &st) == 0)
		return S_ISREG(st.st_mode) && psym_stat_trusted(&st, why, sizeof(why));
	snprintf(sub, sizeof(sub), "%s/%.2s", s->spec, build_id);
	if (mkdir_trusted(sub, &e) == 0) {
		fd = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	return false;
}
