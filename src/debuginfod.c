/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>
#endif

#include "buildid.h"
#include "debuginfod.h"

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
			int n = snprintf(servers_buf + len, bufsz - len, "%s%s",
					 i ? " " : "", o->urls[i]);

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

#ifdef HAVE_DEBUGINFOD

struct pool {
	struct psym_debuginfod_req *reqs;
	size_t n, next;
	pthread_mutex_t lock;
	int timeout_s;
};

struct deadline {
	struct timespec end;
};

static int progress(debuginfod_client *c, long a, long b)
{
	struct deadline *d = debuginfod_get_user_data(c);
	struct timespec now;

	(void)a;
	(void)b;
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* Non-zero aborts the transfer. */
	return now.tv_sec > d->end.tv_sec ||
	       (now.tv_sec == d->end.tv_sec && now.tv_nsec >= d->end.tv_nsec);
}

static void fetch_one(struct pool *p, struct psym_debuginfod_req *r)
{
	struct deadline dl;
	debuginfod_client *c;
	char *path = NULL;
	int fd;

	if (!psym_build_id_valid(r->build_id)) {
		snprintf(r->reason, sizeof(r->reason), "build ID is not hex");
		return;
	}
	c = debuginfod_begin();
	if (!c) {
		snprintf(r->reason, sizeof(r->reason), "cannot start the debuginfod client");
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &dl.end);
	dl.end.tv_sec += p->timeout_s;
	debuginfod_set_user_data(c, &dl);
	debuginfod_set_progressfn(c, progress);
	if (r->kind == PSYM_DEBUGINFOD_DEBUGINFO)
		fd = debuginfod_find_debuginfo(c, (const unsigned char *)r->build_id, 0, &path);
	else
		fd = debuginfod_find_executable(c, (const unsigned char *)r->build_id, 0, &path);
	if (fd >= 0) {
		close(fd);
		r->path = path;
	} else {
		struct timespec now;

		free(path);
		clock_gettime(CLOCK_MONOTONIC, &now);
		/* libdebuginfod may report an aborted or timed-out transfer as ENOENT. */
		if (now.tv_sec >= dl.end.tv_sec)
			snprintf(r->reason, sizeof(r->reason),
				 "debuginfod: no answer within %d s", p->timeout_s);
		else if (fd == -ENOENT)
			snprintf(r->reason, sizeof(r->reason), "debuginfod: not found on the servers");
		else if (fd == -ETIME || fd == -ETIMEDOUT || fd == -ECANCELED)
			snprintf(r->reason, sizeof(r->reason),
				 "debuginfod: no answer within %d s", p->timeout_s);
		else
			snprintf(r->reason, sizeof(r->reason), "debuginfod: %s", strerror(-fd));
	}
	debuginfod_end(c);
}

static void *worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		struct psym_debuginfod_req *r = NULL;

		pthread_mutex_lock(&p->lock);
		if (p->next < p->n)
			r = &p->reqs[p->next++];
		pthread_mutex_unlock(&p->lock);
		if (!r)
			return NULL;
		fetch_one(p, r);
	}
}

int psym_debuginfod_fetch(const struct psym_debuginfod_opts *o,
			  struct psym_debuginfod_req *reqs, size_t n, struct psym_err *e)
{
	struct pool p = { .reqs = reqs, .n = n };
	char sbuf[4096];
	const char *servers = psym_debuginfod_servers(o, sbuf, sizeof(sbuf));
	pthread_t th[16];
	int nth = o->max_threads > 0 ? o->max_threads : 4, started = 0;
	char tbuf[32];

	for (size_t i = 0; i < n; i++) {
		reqs[i].path = NULL;
		reqs[i].reason[0] = '\0';
	}
	if (o->offline || !servers) {
		for (size_t i = 0; i < n; i++)
			snprintf(reqs[i].reason, sizeof(reqs[i].reason), "%s",
				 o->offline ? "debuginfod: not asked (--offline)"
					    : "debuginfod: no servers (DEBUGINFOD_URLS is empty)");
		return 0;
	}
	p.timeout_s = o->timeout_s > 0 ? o->timeout_s : 10;
	/*
	 * libdebuginfod reads its settings from the environment at each
	 * request: set them once, before any thread starts.
	 */
	snprintf(tbuf, sizeof(tbuf), "%d", p.timeout_s);
	if (setenv("DEBUGINFOD_URLS", servers, 1) || setenv("DEBUGINFOD_TIMEOUT", tbuf, 1) ||
	    setenv("DEBUGINFOD_MAXTIME", tbuf, 1) ||
	    (o->cache_dir && setenv("DEBUGINFOD_CACHE_PATH", o->cache_dir, 1)))
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (nth > 16)
		nth = 16;
	if ((size_t)nth > n)
		nth = (int)n;
	pthread_mutex_init(&p.lock, NULL);
	for (int i = 0; i < nth; i++)
		if (pthread_create(&th[i], NULL, worker, &p) == 0)
			started++;
	if (!started)
		worker(&p);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.lock);
	return 0;
}

#else /* !HAVE_DEBUGINFOD */

int psym_debuginfod_fetch(const struct psym_debuginfod_opts *o,
			  struct psym_debuginfod_req *reqs, size_t n, struct psym_err *e)
{
	(void)o;
	(void)e;
	for (size_t i = 0; i < n; i++) {
		reqs[i].path = NULL;
		snprintf(reqs[i].reason, sizeof(reqs[i].reason),
			 "debuginfod: psym was built without libdebuginfod");
	}
	return 0;
}

#endif
