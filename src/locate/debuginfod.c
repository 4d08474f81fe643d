/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_DEBUGINFOD
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#endif

#include "buildid.h"
#include "debuginfod.h"

struct psym_debuginfod {
	char *servers; /* space-separated, NULL: none */
	bool offline;
	int timeout_s;
	int max_clients;
	unsigned long long max_bytes; /* one file, --limit debuginfod-bytes */
#ifdef HAVE_DEBUGINFOD
	char *cache;	      /* libdebuginfod's cache dir, as set in the environment */
	pthread_mutex_t mu;   /* guards everything below */
	pthread_cond_t freed; /* a client went back to the pool */
	debuginfod_client *idle[PSYM_DEBUGINFOD_THREADS_MAX];
	int n_idle;
	int n_clients; /* made so far: idle + in use */
	bool clock_started;
	struct timespec deadline;
	bool timed_out; /* the servers did not answer in time */
#endif
};

#ifdef HAVE_DEBUGINFOD
/*
 * libdebuginfod is opened when a query is first sent (dlopen), as libdwfl
 * opens it: linked in, it and libcurl's dependencies (TLS, Kerberos, LDAP:
 * some 27 libraries) were loaded and relocated at every start of psym,
 * most of the time of a short run that never asks a server. Filled once
 * (pthread_once), read-only after.
 */
static struct {
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *c);
	int (*find_debuginfo)(debuginfod_client *c, const unsigned char *bid, int len, char **path);
	int (*find_executable)(debuginfod_client *c, const unsigned char *bid, int len,
			       char **path);
	const char *(*get_url)(debuginfod_client *c);
	void *(*get_user_data)(debuginfod_client *c);
	void (*set_progressfn)(debuginfod_client *c, debuginfod_progressfn_t fn);
	void (*set_user_data)(debuginfod_client *c, void *v);
	bool ok;
	char why[200]; /* !ok: why it could not be opened */
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void lib_open(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	const char *err;

	if (!h) {
		err = dlerror();
		snprintf(lib.why, sizeof(lib.why), "cannot load libdebuginfod.so.1: %s",
			 err ? err : "not found");
		return;
	}
	/* dlsym's void * to function pointers: POSIX guarantees the conversion. */
	*(void **)&lib.begin = dlsym(h, "debuginfod_begin");
	*(void **)&lib.end = dlsym(h, "debuginfod_end");
	*(void **)&lib.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&lib.find_executable = dlsym(h, "debuginfod_find_executable");
	*(void **)&lib.get_url = dlsym(h, "debuginfod_get_url");
	*(void **)&lib.get_user_data = dlsym(h, "debuginfod_get_user_data");
	*(void **)&lib.set_progressfn = dlsym(h, "debuginfod_set_progressfn");
	*(void **)&lib.set_user_data = dlsym(h, "debuginfod_set_user_data");
	lib.ok = lib.begin && lib.end && lib.find_debuginfo && lib.find_executable && lib.get_url &&
		 lib.get_user_data && lib.set_progressfn && lib.set_user_data;
	if (!lib.ok)
		snprintf(lib.why, sizeof(lib.why),
			 "libdebuginfod.so.1 lacks a function psym calls");
	/* The handle stays open for the process: the clients are its. */
}
#endif

bool psym_debuginfod_built(void)
{
#ifdef HAVE_DEBUGINFOD
	return true;
#else
	return false;
#endif
}

const char *psym_debuginfod_servers(const struct psym_debuginfod_opts *o, char *servers_buf,
				    size_t bufsz)
{
	const char *env;
	size_t len = 0;

	if (o->n_urls) {
		if (!bufsz)
			return NULL;
		servers_buf[0] = '\0';
		for (size_t i = 0; i < o->n_urls; i++) {
			int n = snprintf(servers_buf + len, bufsz - len, "%s%s", i ? " " : "",
					 o->urls[i]);

			if (n < 0 || (size_t)n >= bufsz - len)
				break;
			len += (size_t)n;
		}
		return servers_buf;
	}
	env = getenv("DEBUGINFOD_URLS");
	return env && *env ? env : NULL;
}

void psym_debuginfod_reqs_free(struct psym_debuginfod_req *reqs, size_t n)
{
	for (size_t i = 0; reqs && i < n; i++) {
		free(reqs[i].path);
		reqs[i].path = NULL;
	}
}

/* The servers, joined with spaces (all of them, unlike the fixed-size buffer). */
static char *join_servers(const struct psym_debuginfod_opts *o)
{
	const char *env;
	size_t len = 1;
	char *s;

	if (!o->n_urls) {
		env = getenv("DEBUGINFOD_URLS");
		return strdup(env ? env : "");
	}
	for (size_t i = 0; i < o->n_urls; i++)
		len += strlen(o->urls[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < o->n_urls; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, o->urls[i]);
	}
	return s;
}

#ifdef HAVE_DEBUGINFOD

/*
 * The cache directory libdebuginfod 0.188 would pick (debuginfod-client.c:
 * $DEBUGINFOD_CACHE_PATH, else ~/.debuginfod_client_cache if it exists,
 * else $XDG_CACHE_HOME or ~/.cache, plus /debuginfod_client). psym sets
 * DEBUGINFOD_CACHE_PATH to it, so that both agree on where files are.
 */
static char *cache_dir(const struct psym_debuginfod_opts *o)
{
	const char *env = getenv("DEBUGINFOD_CACHE_PATH");
	const char *home = getenv("HOME");
	const char *xdg = getenv("XDG_CACHE_HOME");
	char *base = NULL, *p = NULL;
	struct stat st;

	if (o->cache_dir && *o->cache_dir)
		return strdup(o->cache_dir);
	if (env && *env)
		return strdup(env);
	if (!home)
		home = "/";
	if (asprintf(&p, "%s/.debuginfod_client_cache", home) < 0)
		return NULL;
	if (stat(p, &st) == 0)
		return p;
	free(p);
	p = NULL;
	if (xdg && *xdg)
		base = strdup(xdg);
	else if (asprintf(&base, "%s/.cache", home) < 0)
		base = NULL;
	if (!base)
		return NULL;
	/*
	 * libdebuginfod makes this directory when it picks the default
	 * itself, but not the parent of a DEBUGINFOD_CACHE_PATH. A failure
	 * shows in the first request's reason.
	 */
	(void)mkdir(base, 0700);
	if (asprintf(&p, "%s/debuginfod_client", base) < 0)
		p = NULL;
	free(base);
	return p;
}

/*
 * Set libdebuginfod's environment: once, from psym_debuginfod_new only.
 * Its own timeouts (no progress for DEBUGINFOD_TIMEOUT seconds, a transfer
 * longer than DEBUGINFOD_MAXTIME) are only a backstop, set beyond the
 * session's deadline: libdebuginfod retries a timed-out query (twice by
 * default), which would reconnect after the deadline; the progress
 * callback, called about once a second, aborts first and for good.
 */
static int set_env(struct psym_debuginfod *s)
{
	char t[32], m[32];

	snprintf(t, sizeof(t), "%d", s->timeout_s + 5);
	/*
	 * DEBUGINFOD_MAXSIZE makes libdebuginfod refuse a Content-Length over
	 * the cap; a server that sends none is stopped by the progress
	 * callback, which counts the bytes.
	 */
	snprintf(m, sizeof(m), "%llu", s->max_bytes);
	if (setenv("DEBUGINFOD_URLS", s->servers, 1) || setenv("DEBUGINFOD_TIMEOUT", t, 1) ||
	    setenv("DEBUGINFOD_MAXTIME", t, 1) || setenv("DEBUGINFOD_MAXSIZE", m, 1) ||
	    setenv("DEBUGINFOD_CACHE_PATH", s->cache, 1))
		return PSYM_ENOMEM;
	return 0;
}

#endif

int psym_debuginfod_new(const struct psym_debuginfod_opts *o, struct psym_debuginfod **out,
			struct psym_err *e)
{
	struct psym_debuginfod *s = calloc(1, sizeof(*s));
	int ret = 0;

	*out = NULL;
	if (!s)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	s->offline = o->offline;
	s->timeout_s = o->timeout_s > 0 ? o->timeout_s : PSYM_DEBUGINFOD_TIMEOUT_DEFAULT;
	s->max_clients = o->max_threads > 0 ? o->max_threads : PSYM_DEBUGINFOD_THREADS_DEFAULT;
	if (s->max_clients > PSYM_DEBUGINFOD_THREADS_MAX)
		s->max_clients = PSYM_DEBUGINFOD_THREADS_MAX;
	s->max_bytes = o->max_bytes ? o->max_bytes : PSYM_DEBUGINFOD_BYTES_DEFAULT;
	s->servers = join_servers(o);
	if (!s->servers) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto free_s;
	}
	if (!s->servers[0]) {
		free(s->servers);
		s->servers = NULL;
	}
#ifdef HAVE_DEBUGINFOD
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->freed, NULL);
	if (s->servers && !s->offline) {
		s->cache = cache_dir(o);
		if (!s->cache || set_env(s)) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
			goto free_s;
		}
	}
#endif
	*out = s;
	return 0;
free_s:
	psym_debuginfod_free(s);
	return ret;
}

void psym_debuginfod_free(struct psym_debuginfod *s)
{
	if (!s)
		return;
#ifdef HAVE_DEBUGINFOD
	for (int i = 0; i < s->n_idle; i++)
		lib.end(s->idle[i]);
	pthread_cond_destroy(&s->freed);
	pthread_mutex_destroy(&s->mu);
	free(s->cache);
#endif
	free(s->servers);
	free(s);
}

#ifdef HAVE_DEBUGINFOD

/* One request in flight: what the progress callback needs. */
struct transfer {
	struct timespec deadline;
	unsigned long long max_bytes;
	bool cancelled; /* the deadline passed */
	bool too_big;	/* more than max_bytes came or were announced */
};

static bool passed(const struct timespec *now, const struct timespec *end)
{
	return now->tv_sec > end->tv_sec ||
	       (now->tv_sec == end->tv_sec && now->tv_nsec >= end->tv_nsec);
}

/* Called by libdebuginfod about once a second during a query. */
static int progress(debuginfod_client *c, long a, long b)
{
	struct transfer *t = lib.get_user_data(c);
	struct timespec now;

	/* a: bytes so far, b: the announced size (0 or -1 when unknown). */
	if ((a > 0 && (unsigned long long)a > t->max_bytes) ||
	    (b > 0 && (unsigned long long)b > t->max_bytes)) {
		t->too_big = true;
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!passed(&now, &t->deadline))
		return 0;
	t->cancelled = true;
	return 1; /* non-zero aborts the transfer */
}

static const char *kind_name(enum psym_debuginfod_kind k)
{
	return k == PSYM_DEBUGINFOD_EXECUTABLE ? "executable" : "debuginfo";
}

/*
 * The file libdebuginfod keeps for a request: <cache>/<build ID>/<kind>.
 * Returns false when the name does not fit.
 */
static bool cache_path(const struct psym_debuginfod *s, const struct psym_debuginfod_req *r,
		       char *buf, size_t bufsz)
{
	int n = snprintf(buf, bufsz, "%s/%s/%s", s->cache, r->build_id, kind_name(r->kind));

	return n > 0 && (size_t)n < bufsz;
}

/*
 * Delete a rejected file from libdebuginfod's cache: only the file at
 * this request's own name, and only a regular file of this user (the
 * cache may be shared with other tools, never with other users). Its
 * directory goes too when that leaves it empty.
 */
static void drop(const struct psym_debuginfod *s, const struct psym_debuginfod_req *r)
{
	char path[4096], *slash;
	struct stat st;

	if (!cache_path(s, r, path, sizeof(path)) || lstat(path, &st) != 0 ||
	    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return;
	unlink(path);
	slash = strrchr(path, '/');
	if (slash) {
		*slash = '\0';
		(void)rmdir(path); /* fails, as it should, when not empty */
	}
}

/*
 * Is the file open on fd what was asked for: at most max_bytes, an ELF
 * file, and of the wanted build ID? When not, it is removed from the
 * cache and the reason is set; returns whether it passed.
 */
static bool verify(const struct psym_debuginfod *s, struct psym_debuginfod_req *r, int fd,
		   const char *path)
{
	char got[PSYM_BUILD_ID_HEX_MAX];
	struct psym_err e = { 0 };
	struct stat st;
	int ret;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(r->reason, sizeof(r->reason), "debuginfod: '%s' is not a regular file",
			 path);
		return false; /* not ours to delete */
	}
	if ((unsigned long long)st.st_size > s->max_bytes) {
		snprintf(r->reason, sizeof(r->reason),
			 "debuginfod: the %s is %llu bytes, over the cap of %llu "
			 "(--limit debuginfod-bytes=N); removed from the cache",
			 kind_name(r->kind), (unsigned long long)st.st_size, s->max_bytes);
		goto reject;
	}
	ret = psym_elf_fd_build_id(fd, path, got, &e);
	if (ret == PSYM_NOENT) {
		snprintf(r->reason, sizeof(r->reason),
			 "debuginfod: the %s sent has no build ID; removed from the cache",
			 kind_name(r->kind));
		goto reject;
	}
	if (ret) {
		snprintf(r->reason, sizeof(r->reason),
			 "debuginfod: the %s sent is not an ELF file; removed from the cache",
			 kind_name(r->kind));
		goto reject;
	}
	if (strcasecmp(got, r->build_id) != 0) {
		snprintf(r->reason, sizeof(r->reason),
			 "debuginfod: the %s sent has build ID %s, not the one asked for; "
			 "removed from the cache",
			 kind_name(r->kind), got);
		goto reject;
	}
	return true;
reject:
	drop(s, r);
	return false;
}

/* A file already in the cache, handed out without contacting anything. */
static void from_cache(const struct psym_debuginfod *s, struct psym_debuginfod_req *r)
{
	char path[4096];
	struct stat st;
	int fd;

	if (!cache_path(s, r, path, sizeof(path)) || stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size == 0)
		return;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	if (verify(s, r, fd, path)) {
		r->path = strdup(path);
		if (r->path)
			r->reason[0] = '\0';
	}
	close(fd);
}

/*
 * libdebuginfod 0.188 records a query that the progress callback aborted as
 * "not found" (an empty file in the cache, believed for 10 minutes): that
 * would hide the file from the next runs. A query only gets that far when
 * no such file was there before, so the empty file is this query's.
 */
static void forget_cancelled(const struct psym_debuginfod *s, const struct psym_debuginfod_req *r)
{
	char path[4096];
	struct stat st;

	if (cache_path(s, r, path, sizeof(path)) && lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == 0)
		unlink(path);
}

/*
 * Why a request is not sent: the deadline passed or the servers timed
 * out before. Call with s->mu held; starts the clock on the first request.
 */
static bool refused(struct psym_debuginfod *s, struct psym_debuginfod_req *r)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!s->clock_started) {
		s->clock_started = true;
		s->deadline = now;
		s->deadline.tv_sec += s->timeout_s;
		return false;
	}
	if (passed(&now, &s->deadline)) {
		snprintf(r->reason, sizeof(r->reason), "debuginfod deadline (%d s) passed%s%s%s",
			 s->timeout_s, s->timed_out ? "; " : "", s->timed_out ? s->servers : "",
			 s->timed_out ? " timed out, not asked again" : "");
		return true;
	}
	if (s->timed_out) {
		snprintf(r->reason, sizeof(r->reason),
			 "debuginfod: %s timed out before in this run; not asked again",
			 s->servers);
		return true;
	}
	return false;
}

/*
 * A client from the pool (waits while all are in use), or NULL with a
 * reason; *not_sent tells that the deadline or an earlier timeout is why.
 */
static debuginfod_client *get_client(struct psym_debuginfod *s, struct psym_debuginfod_req *r,
				     struct timespec *deadline, bool *not_sent)
{
	debuginfod_client *c = NULL;

	pthread_mutex_lock(&s->mu);
	for (;;) {
		*not_sent = refused(s, r);
		if (*not_sent)
			break;
		if (s->n_idle) {
			c = s->idle[--s->n_idle];
			break;
		}
		if (s->n_clients < s->max_clients) {
			pthread_once(&lib_once, lib_open);
			if (!lib.ok) {
				snprintf(r->reason, sizeof(r->reason), "%s", lib.why);
				break;
			}
			c = lib.begin();
			if (c)
				s->n_clients++;
			else
				snprintf(r->reason, sizeof(r->reason),
					 "cannot start the debuginfod client");
			break;
		}
		pthread_cond_wait(&s->freed, &s->mu);
	}
	*deadline = s->deadline;
	pthread_mutex_unlock(&s->mu);
	return c;
}

static void put_client(struct psym_debuginfod *s, debuginfod_client *c, bool timed_out)
{
	pthread_mutex_lock(&s->mu);
	s->idle[s->n_idle++] = c;
	if (timed_out)
		s->timed_out = true;
	pthread_cond_signal(&s->freed);
	pthread_mutex_unlock(&s->mu);
}

static void fetch_one(struct psym_debuginfod *s, struct psym_debuginfod_req *r)
{
	const unsigned char *bid = (const unsigned char *)r->build_id;
	struct transfer t = { .max_bytes = s->max_bytes };
	debuginfod_client *c;
	bool timed_out = false, not_sent;
	char *path = NULL;
	int fd;

	if (!psym_build_id_valid(r->build_id)) {
		snprintf(r->reason, sizeof(r->reason), "build ID is not hex");
		return;
	}
	c = get_client(s, r, &t.deadline, &not_sent);
	if (!c) {
		if (not_sent)
			from_cache(s, r);
		return;
	}
	lib.set_user_data(c, &t);
	lib.set_progressfn(c, progress);
	if (r->kind == PSYM_DEBUGINFOD_DEBUGINFO)
		fd = lib.find_debuginfo(c, bid, 0, &path);
	else
		fd = lib.find_executable(c, bid, 0, &path);
	lib.set_user_data(c, NULL);
	if (fd >= 0) {
		/* A file from the cache too: it may predate these checks. */
		if (verify(s, r, fd, path ? path : "")) {
			r->path = path;
			path = NULL;
		}
		close(fd);
	} else if (t.too_big || fd == -EFBIG) {
		forget_cancelled(s, r);
		snprintf(r->reason, sizeof(r->reason),
			 "debuginfod: the %s is over the cap of %llu bytes "
			 "(--limit debuginfod-bytes=N); transfer aborted",
			 kind_name(r->kind), s->max_bytes);
	} else if (t.cancelled) {
		forget_cancelled(s, r);
		/* No server had sent a byte of the file: they timed out. */
		timed_out = !lib.get_url(c);
		snprintf(r->reason, sizeof(r->reason), "debuginfod deadline (%d s) passed%s%s",
			 s->timeout_s, timed_out ? "; no answer from " : " during the transfer",
			 timed_out ? s->servers : "");
	} else if (fd == -ETIME || fd == -ETIMEDOUT) {
		timed_out = true;
		snprintf(r->reason, sizeof(r->reason), "debuginfod: %s timed out", s->servers);
	} else if (fd == -ENOENT) {
		snprintf(r->reason, sizeof(r->reason), "debuginfod: not found on the servers");
	} else {
		char eb[128];

		/* GNU strerror_r: strerror is not safe from several threads. */
		snprintf(r->reason, sizeof(r->reason), "debuginfod: %s",
			 strerror_r(-fd, eb, sizeof(eb)));
	}
	free(path);
	put_client(s, c, timed_out);
}

/* The requests of one psym_debuginfod_fetch call, shared by its threads. */
struct queue {
	struct psym_debuginfod *s;
	struct psym_debuginfod_req *reqs;
	size_t n, next;
};

static void *worker(void *arg)
{
	struct queue *q = arg;

	for (;;) {
		size_t i = __atomic_fetch_add(&q->next, 1, __ATOMIC_RELAXED);

		if (i >= q->n)
			return NULL;
		fetch_one(q->s, &q->reqs[i]);
	}
}

static void run_all(struct psym_debuginfod *s, struct psym_debuginfod_req *reqs, size_t n)
{
	struct queue q = { .s = s, .reqs = reqs, .n = n };
	pthread_t th[PSYM_DEBUGINFOD_THREADS_MAX];
	size_t helpers = n < (size_t)s->max_clients ? n - 1 : (size_t)s->max_clients - 1;
	size_t started = 0;

	/* The calling thread works too: one request needs no thread. */
	while (started < helpers && pthread_create(&th[started], NULL, worker, &q) == 0)
		started++;
	worker(&q);
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

#endif

int psym_debuginfod_fetch(struct psym_debuginfod *s, struct psym_debuginfod_req *reqs, size_t n,
			  struct psym_err *e)
{
	const char *why = NULL;

	(void)e;
	for (size_t i = 0; i < n; i++) {
		reqs[i].path = NULL;
		reqs[i].reason[0] = '\0';
	}
	if (!psym_debuginfod_built())
		why = "debuginfod: psym was built without libdebuginfod";
	else if (s->offline)
		why = "debuginfod: not asked (--offline)";
	else if (!s->servers)
		why = "debuginfod: no servers (DEBUGINFOD_URLS is empty)";
	if (why) {
		for (size_t i = 0; i < n; i++)
			snprintf(reqs[i].reason, sizeof(reqs[i].reason), "%s", why);
		return 0;
	}
#ifdef HAVE_DEBUGINFOD
	if (n)
		run_all(s, reqs, n);
#endif
	return 0;
}
