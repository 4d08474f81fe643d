/* SPDX-License-Identifier: MIT */
/* A bounded HTTP/1.1 client for the index store (store_http.h). */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <libdeflate.h>

#include "idxfmt.h"
#include "store_http.h"
#include "storekey.h"

#define MAX_HEADER 16384
#define BODY_CHUNK 65536 /* bytes read from the socket at a time */

int psym_http_parse_url(const char *url, struct psym_http_url *u, struct psym_err *e)
{
	const char *h = url + 7, *slash, *colon;
	size_t hl, pl;

	memset(u, 0, sizeof(*u));
	if (strncmp(url, "http://", 7) != 0)
		return psym_err_set(e, PSYM_EUSAGE, "'%s' is not an http:// URL", url);
	slash = strchr(h, '/');
	hl = slash ? (size_t)(slash - h) : strlen(h);
	colon = memchr(h, ':', hl);
	if (!hl || (colon ? (size_t)(colon - h) : hl) >= sizeof(u->host) ||
	    h[0] == '[' /* IPv6 literals: not supported */)
		return psym_err_set(e, PSYM_EUSAGE, "'%s': bad host", url);
	memcpy(u->host, h, colon ? (size_t)(colon - h) : hl);
	if (colon) {
		size_t n = hl - (size_t)(colon + 1 - h);

		if (!n || n >= sizeof(u->port) || strspn(colon + 1, "0123456789") < n)
			return psym_err_set(e, PSYM_EUSAGE, "'%s': bad port", url);
		memcpy(u->port, colon + 1, n);
	} else {
		strcpy(u->port, "80");
	}
	pl = slash ? strlen(slash) : 0;
	while (pl && slash[pl - 1] == '/')
		pl--;
	if (pl >= sizeof(u->path))
		return psym_err_set(e, PSYM_EUSAGE, "'%s': path too long", url);
	if (pl)
		memcpy(u->path, slash, pl);
	for (size_t i = 0; u->path[i]; i++)
		if ((unsigned char)u->path[i] <= ' ' || u->path[i] == 0x7f)
			return psym_err_set(e, PSYM_EUSAGE, "'%s': bad character in the path", url);
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct conn {
	int fd;
	int64_t deadline;
	int timeout_ms;
	const struct psym_http_url *u;
	bool no_server; /* it could not be reached or did not answer in time */
};

static int timed_out(struct conn *c, struct psym_err *e, const char *what)
{
	c->no_server = true;
	return psym_err_set(e, PSYM_EIO, "http://%s:%s: %s timed out after %d ms", c->u->host,
			    c->u->port, what, c->timeout_ms);
}

/* Wait for events on the socket until the deadline: 1 ready, 0 timed out, <0 error. */
static int wait_fd(struct conn *c, short ev)
{
	for (;;) {
		int64_t left = c->deadline - now_ms();
		struct pollfd p = { .fd = c->fd, .events = ev };
		int r;

		if (left <= 0)
			return 0;
		r = poll(&p, 1, (int)left);
		if (r > 0)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

static int do_connect(struct conn *c, struct psym_err *e)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
	int r, err = 0;
	socklen_t sl = sizeof(err);

	c->no_server = true; /* until connected */
	r = getaddrinfo(c->u->host, c->u->port, &hints, &res);
	if (r)
		return psym_err_set(e, PSYM_EIO, "http://%s:%s: %s", c->u->host, c->u->port,
				    gai_strerror(r));
	for (ai = res; ai; ai = ai->ai_next) {
		c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			       ai->ai_protocol);
		if (c->fd < 0)
			continue;
		if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (errno == EINPROGRESS) {
			r = wait_fd(c, POLLOUT);
			if (r == 1 && getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl) == 0 &&
			    !err)
				break;
			if (r == 0) {
				freeaddrinfo(res);
				close(c->fd);
				c->fd = -1;
				return timed_out(c, e, "connecting");
			}
			errno = err ? err : errno;
		}
		err = errno;
		close(c->fd);
		c->fd = -1;
	}
	freeaddrinfo(res);
	if (c->fd < 0)
		return psym_err_set(e, PSYM_EIO, "http://%s:%s: cannot connect: %s", c->u->host,
				    c->u->port, strerror(err ? err : ECONNREFUSED));
	c->no_server = false;
	return 0;
}

static int send_all(struct conn *c, const void *p, size_t n, struct psym_err *e)
{
	const char *b = p;

	while (n) {
		ssize_t k = send(c->fd, b, n, MSG_NOSIGNAL);

		if (k > 0) {
			b += k;
			n -= (size_t)k;
			continue;
		}
		if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
			int r = wait_fd(c, POLLOUT);

			if (r == 0)
				return timed_out(c, e, "sending");
			if (r > 0)
				continue;
		}
		return psym_err_set(e, PSYM_EIO, "http://%s:%s: send: %s", c->u->host, c->u->port,
				    strerror(errno ? errno : EPIPE));
	}
	return 0;
}

/* Read up to n bytes: >0 read, 0 end of stream, <0 error (set). */
static ssize_t recv_some(struct conn *c, void *p, size_t n, struct psym_err *e)
{
	for (;;) {
		ssize_t k = recv(c->fd, p, n, 0);

		if (k >= 0)
			return k;
		if (errno == EAGAIN || errno == EINTR) {
			int r = wait_fd(c, POLLIN);

			if (r == 0)
				return timed_out(c, e, "waiting for the answer");
			if (r > 0)
				continue;
		}
		return psym_err_set(e, PSYM_EIO, "http://%s:%s: receive: %s", c->u->host,
				    c->u->port, strerror(errno));
	}
}

struct resp {
	int status;
	char line[128];	     /* the status line, for messages */
	int64_t content_len; /* -1: not given */
	bool chunked;
	char *rest; /* body bytes read with the header */
	size_t nrest;
};

/* Read and parse the response header (at most MAX_HEADER bytes). */
static int read_header(struct conn *c, char *hb, struct resp *r, struct psym_err *e)
{
	size_t n = 0;
	char *end = NULL;

	while (!end) {
		ssize_t k;

		if (n >= MAX_HEADER - 1)
			return psym_err_set(e, PSYM_ELIMIT,
					    "http://%s:%s: response header exceeds the cap of %d "
					    "bytes",
					    c->u->host, c->u->port, MAX_HEADER);
		k = recv_some(c, hb + n, MAX_HEADER - 1 - n, e);
		if (k < 0)
			return (int)k;
		if (k == 0)
			return psym_err_set(e, PSYM_EIO,
					    "http://%s:%s: connection closed before a complete "
					    "response header",
					    c->u->host, c->u->port);
		n += (size_t)k;
		hb[n] = '\0';
		end = memmem(hb, n, "\r\n\r\n", 4);
	}
	if (memchr(hb, '\0', (size_t)(end - hb)))
		return psym_err_set(e, PSYM_EIO, "http://%s:%s: not an HTTP response (NUL bytes)",
				    c->u->host, c->u->port);
	if (strncmp(hb, "HTTP/1.", 7) != 0 || !hb[7] || hb[8] != ' ' ||
	    sscanf(hb + 9, "%3d", &r->status) != 1)
		return psym_err_set(e, PSYM_EIO, "http://%s:%s: not an HTTP response", c->u->host,
				    c->u->port);
	snprintf(r->line, sizeof(r->line), "%.*s", (int)strcspn(hb, "\r\n"), hb);
	r->content_len = -1;
	for (char *l = strstr(hb, "\r\n") + 2; l < end; l = strstr(l, "\r\n") + 2) {
		if (strncasecmp(l, "Content-Length:", 15) == 0) {
			char *q;
			long long v;

			errno = 0;
			v = strtoll(l + 15, &q, 10);
			if (errno || v < 0 || q == l + 15)
				return psym_err_set(e, PSYM_EIO, "http://%s:%s: bad Content-Length",
						    c->u->host, c->u->port);
			r->content_len = v;
		} else if (strncasecmp(l, "Transfer-Encoding:", 18) == 0 && strstr(l, "chunked") &&
			   strstr(l, "chunked") < strstr(l, "\r\n")) {
			r->chunked = true;
		}
	}
	r->rest = end + 4;
	r->nrest = n - (size_t)(end + 4 - hb);
	return 0;
}

static int request(struct conn *c, const char *method, const char *path, uint64_t len,
		   struct psym_err *e)
{
	char req[2048];
	int k;

	k = snprintf(req, sizeof(req),
		     "%s %s/%s HTTP/1.1\r\nHost: %s:%s\r\nUser-Agent: psym/" PACKAGE_VERSION
		     "\r\nConnection: close\r\n",
		     method, c->u->path, path, c->u->host, c->u->port);
	if (k < 0 || (size_t)k >= sizeof(req) - 64)
		return psym_err_set(e, PSYM_ELIMIT, "request too long");
	if (strcmp(method, "PUT") == 0)
		k += snprintf(req + k, sizeof(req) - (size_t)k, "Content-Length: %llu\r\n",
			      (unsigned long long)len);
	k += snprintf(req + k, sizeof(req) - (size_t)k, "\r\n");
	return send_all(c, req, (size_t)k, e);
}

int psym_http_get(const struct psym_http_url *u, const char *path, uint64_t max, int timeout_ms,
		  const struct psym_http_sink *sink, uint64_t *len, bool *no_server,
		  struct psym_err *e)
{
	struct conn c = {
		.fd = -1, .deadline = now_ms() + timeout_ms, .timeout_ms = timeout_ms, .u = u
	};
	struct resp r = { 0 };
	char *hb = malloc(MAX_HEADER);
	uint8_t *buf = NULL;
	uint64_t n = 0;
	int ret;

	*len = 0;
	if (!hb)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	ret = do_connect(&c, e);
	if (!ret)
		ret = request(&c, "GET", path, 0, e);
	if (!ret)
		ret = read_header(&c, hb, &r, e);
	if (ret)
		goto out;
	if (r.status == 404) {
		ret = PSYM_NOENT;
		goto out;
	}
	if (r.status != 200) {
		ret = psym_err_set(e, PSYM_EIO, "http://%s:%s%s/%s: %s", u->host, u->port, u->path,
				   path, r.line);
		goto out;
	}
	if (r.chunked) {
		ret = psym_err_set(e, PSYM_EUNSUPPORTED, "http://%s:%s: chunked bodies unsupported",
				   u->host, u->port);
		goto out;
	}
	if (r.content_len > (int64_t)max) {
		ret = psym_err_set(e, PSYM_ELIMIT,
				   "http://%s:%s%s/%s: %lld bytes exceed the cap of %llu bytes",
				   u->host, u->port, u->path, path, (long long)r.content_len,
				   (unsigned long long)max);
		goto out;
	}
	/* The body goes to the sink as it comes, never whole into memory. */
	if (r.content_len >= 0 && (uint64_t)r.nrest > (uint64_t)r.content_len)
		r.nrest = (size_t)r.content_len; /* extra bytes after the body: ignored */
	buf = malloc(BODY_CHUNK);
	if (!buf) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	for (const uint8_t *p = (const uint8_t *)r.rest;;) {
		uint64_t want = r.content_len >= 0 ? (uint64_t)r.content_len - n : max + 1 - n;
		ssize_t k;

		if (p) {
			k = (ssize_t)r.nrest; /* what came with the header first */
		} else {
			if (r.content_len >= 0 && !want)
				break;
			k = recv_some(&c, buf, want < BODY_CHUNK ? (size_t)want : BODY_CHUNK, e);
			if (k < 0) {
				ret = (int)k;
				goto out;
			}
			if (k == 0 && r.content_len >= 0) {
				ret = psym_err_set(e, PSYM_EIO,
						   "http://%s:%s%s/%s: body truncated at %llu of "
						   "%lld bytes",
						   u->host, u->port, u->path, path,
						   (unsigned long long)n, (long long)r.content_len);
				goto out;
			}
			if (k == 0)
				break;
			p = buf;
		}
		if (n + (uint64_t)k > max) {
			ret = psym_err_set(e, PSYM_ELIMIT,
					   "http://%s:%s%s/%s: body exceeds the cap of %llu bytes",
					   u->host, u->port, u->path, path,
					   (unsigned long long)max);
			goto out;
		}
		if (k) {
			ret = sink->put(sink->arg, p, (size_t)k, r.content_len, e);
			if (ret)
				goto out;
		}
		n += (uint64_t)k;
		p = NULL;
	}
	*len = n;
out:
	if (no_server)
		*no_server = ret && c.no_server;
	free(buf);
	free(hb);
	if (c.fd >= 0)
		close(c.fd);
	return ret;
}

int psym_http_put(const struct psym_http_url *u, const char *path, int fd, uint64_t len,
		  int timeout_ms, bool *no_server, struct psym_err *e)
{
	struct conn c = {
		.fd = -1, .deadline = now_ms() + timeout_ms, .timeout_ms = timeout_ms, .u = u
	};
	struct resp r = { 0 };
	char *hb = malloc(MAX_HEADER), buf[65536];
	uint64_t sent = 0;
	int ret;

	if (!hb)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	ret = do_connect(&c, e);
	if (!ret)
		ret = request(&c, "PUT", path, len, e);
	while (!ret && sent < len) {
		ssize_t k = read(fd, buf, sizeof(buf));

		if (k <= 0) {
			ret = psym_err_set(e, PSYM_EIO, "reading the index to upload: %s",
					   k ? strerror(errno) : "short file");
			break;
		}
		ret = send_all(&c, buf, (size_t)k, e);
		sent += (uint64_t)k;
	}
	/* A server that refuses early answers before reading it all: read its answer. */
	if (!ret || e->code == PSYM_EIO) {
		struct psym_err he = { 0 };

		if (read_header(&c, hb, &r, &he) == 0) {
			if (r.status < 200 || r.status > 299)
				ret = psym_err_set(e, PSYM_EIO, "PUT http://%s:%s%s/%s refused: %s",
						   u->host, u->port, u->path, path, r.line);
		} else if (!ret) {
			*e = he;
			ret = he.code;
		}
	}
	if (no_server)
		*no_server = ret && c.no_server;
	free(hb);
	if (c.fd >= 0)
		close(c.fd);
	return ret;
}

static int timeout_ms(void)
{
	const char *t = getenv("PSYM_INDEX_STORE_TIMEOUT");
	char *end;
	double v;

	if (!t || !*t)
		return PSYM_STORE_HTTP_TIMEOUT * 1000;
	v = strtod(t, &end);
	if (*end || v <= 0 || v > 3600)
		return PSYM_STORE_HTTP_TIMEOUT * 1000;
	return (int)(v * 1000);
}

/*
 * One run's view of the server. Its state is kept with atomics, not a
 * lock: a batch's threads share it, and a background builder forks from
 * any of them.
 */
struct psym_http_store {
	char *spec;
	struct psym_http_url url;
	int budget_ms;	  /* the GETs of the whole run; each PUT's cap too */
	int64_t spent_ms; /* in GETs so far */
	int down;	  /* the server was given up */
	char why[sizeof(((struct psym_err *)0)->msg) + 400]; /* written by who gave it up */
};

int psym_http_store_new(const char *spec, struct psym_http_store **out, struct psym_err *e)
{
	struct psym_http_store *h = calloc(1, sizeof(*h));
	int ret;

	*out = NULL;
	if (!h || !(h->spec = strdup(spec))) {
		free(h);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	ret = psym_http_parse_url(spec, &h->url, e);
	if (ret) {
		psym_http_store_free(h);
		return ret;
	}
	h->budget_ms = timeout_ms();
	*out = h;
	return 0;
}

void psym_http_store_free(struct psym_http_store *h)
{
	if (!h)
		return;
	free(h->spec);
	free(h);
}

int psym_http_store_up(const struct psym_http_store *h, struct psym_err *e)
{
	if (!__atomic_load_n(&h->down, __ATOMIC_ACQUIRE))
		return 0;
	return psym_err_set(e, PSYM_EIO,
			    "index store '%s' not asked: it did not answer earlier in this run",
			    h->spec);
}

/*
 * Give the server up for the rest of the run, saying why in buf: true for
 * the one caller that did (it tells), false when it was given up already.
 */
static bool give_up(struct psym_http_store *h, const char *why, char *buf, size_t bufsz)
{
	int up = 0;

	if (!__atomic_compare_exchange_n(&h->down, &up, 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return false;
	snprintf(h->why, sizeof(h->why),
		 "%s; index store '%s' not asked again in this run (its time for a run: %d ms, "
		 "PSYM_INDEX_STORE_TIMEOUT)",
		 why, h->spec, h->budget_ms);
	snprintf(buf, bufsz, "%s", h->why);
	return true;
}

const char *psym_http_store_why(const struct psym_http_store *h)
{
	return __atomic_load_n(&h->down, __ATOMIC_ACQUIRE) ? h->why : NULL;
}

/* The key below the store's URL: <2 hex digits>/<store key>.psymidx (store.h). */
static int http_key(const char *build_id, const char *variant, char *key, size_t keysz)
{
	char k[256];
	int n;

	if (psym_index_store_key(build_id, variant, k, sizeof(k)))
		return -1;
	n = snprintf(key, keysz, "%.2s/%s" PSYM_INDEX_SUFFIX, k, k);
	return n < 0 || (size_t)n >= keysz ? -1 : 0;
}

/*
 * A fetched index on its way to a private file: the header is kept and
 * checked as it comes (the magic byte by byte, the rest once its 1024
 * bytes are in), the file is made only for a body whose header is right,
 * and no more bytes are taken than the header says the file has.
 */
struct fetch {
	const char *name, *build_id, *variant;
	union {
		struct idx_hdr h;
		uint8_t b[IDX_HDR_SIZE];
	} hdr;
	uint64_t got;
	int fd;
	bool refused; /* the body is not the index wanted (else: the transfer failed) */
};

static int refuse(struct fetch *f, struct psym_err *e, const char *what)
{
	f->refused = true;
	return psym_err_set(e, PSYM_EBADINPUT, "index '%s': %s", f->name, what);
}

/* The header, once all of it is in; the same checks as at open (index.h). */
static int check_header(struct fetch *f, int64_t content_len, struct psym_err *e)
{
	const struct idx_hdr *h = &f->hdr.h;

	if (h->version != PSYM_INDEX_VERSION) {
		f->refused = true;
		return psym_err_set(e, PSYM_EBADINPUT, "index '%s': version %u, psym reads %u",
				    f->name, h->version, PSYM_INDEX_VERSION);
	}
	if (h->hdr_size != IDX_HDR_SIZE || h->chunk_shift != IDX_CHUNK_SHIFT)
		return refuse(f, e, "unexpected header or chunk size");
	if (libdeflate_crc32(0, h, offsetof(struct idx_hdr, hdr_crc)) != h->hdr_crc)
		return refuse(f, e, "header checksum mismatch");
	if (h->file_size < IDX_HDR_SIZE || h->file_size > PSYM_INDEX_MAX_FILE)
		return refuse(f, e, "file size in the header out of bounds");
	if (content_len >= 0 && (uint64_t)content_len != h->file_size) {
		f->refused = true;
		return psym_err_set(e, PSYM_EBADINPUT,
				    "index '%s': the server sends %lld bytes, the header says %llu",
				    f->name, (long long)content_len,
				    (unsigned long long)h->file_size);
	}
	if (!memchr(h->build_id, '\0', sizeof(h->build_id)) ||
	    !memchr(h->variant, '\0', sizeof(h->variant)))
		return refuse(f, e, "unterminated header string");
	if (strcmp(h->build_id, f->build_id) != 0) {
		f->refused = true;
		return psym_err_set(e, PSYM_EBADINPUT, "index '%s' is for build ID %s, not %s",
				    f->name, h->build_id[0] ? h->build_id : "(none)", f->build_id);
	}
	if (strcmp(h->variant, f->variant) != 0) {
		f->refused = true;
		return psym_err_set(e, PSYM_EBADINPUT,
				    "index '%s' was made by another psym (answer rules '%s', not "
				    "'%s')",
				    f->name, h->variant, f->variant);
	}
	return 0;
}

/*
 * A file of our own for the body: made in a new mkdtemp directory (mode
 * 0700, a name nobody could plant beforehand) with O_EXCL and O_NOFOLLOW,
 * then unlinked at once with its directory. Nothing is left behind, even
 * when the run is killed, and nobody else can reach or truncate it.
 */
static int private_file(struct psym_err *e)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], file[4200];
	int k = snprintf(dir, sizeof(dir), "%s/psym-get-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd, err;

	if (k < 0 || (size_t)k >= sizeof(dir))
		return psym_err_set(e, PSYM_ELIMIT, "temporary path too long");
	if (!mkdtemp(dir))
		return psym_err_set(e, PSYM_EIO, "cannot create a directory like '%s': %s", dir,
				    strerror(errno));
	snprintf(file, sizeof(file), "%s/index", dir);
	fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	err = errno;
	unlink(file);
	rmdir(dir);
	if (fd < 0)
		return psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", file, strerror(err));
	return fd;
}

static int write_all(int fd, const uint8_t *p, size_t n, struct psym_err *e)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return psym_err_set(e, PSYM_EIO, "writing a fetched index: %s",
					    k ? strerror(errno) : "short write");
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The body's next n bytes (psym_http_sink). */
static int fetch_put(void *arg, const uint8_t *p, size_t n, int64_t content_len, struct psym_err *e)
{
	struct fetch *f = arg;
	int ret;

	if (f->got < IDX_HDR_SIZE) {
		size_t take = n < IDX_HDR_SIZE - f->got ? n : (size_t)(IDX_HDR_SIZE - f->got);

		memcpy(f->hdr.b + f->got, p, take);
		for (uint64_t i = f->got; i < f->got + take && i < 8; i++)
			if (f->hdr.b[i] != (uint8_t)IDX_MAGIC[i]) {
				f->refused = true;
				return psym_err_set(e, PSYM_EBADINPUT,
						    "index '%s': not a psym index (bad magic at "
						    "byte %llu)",
						    f->name, (unsigned long long)i);
			}
		f->got += take;
		p += take;
		n -= take;
		if (f->got < IDX_HDR_SIZE)
			return 0;
		ret = check_header(f, content_len, e);
		if (ret)
			return ret;
		f->fd = private_file(e);
		if (f->fd < 0)
			return f->fd;
		ret = write_all(f->fd, f->hdr.b, IDX_HDR_SIZE, e);
		if (ret)
			return ret;
	}
	if (n > f->hdr.h.file_size - f->got) {
		f->refused = true;
		return psym_err_set(e, PSYM_EBADINPUT,
				    "index '%s': the server sends more than the %llu bytes the "
				    "header says",
				    f->name, (unsigned long long)f->hdr.h.file_size);
	}
	ret = write_all(f->fd, p, n, e);
	if (!ret)
		f->got += n;
	return ret;
}

int psym_http_store_get(struct psym_http_store *h, const char *build_id, const char *variant,
			struct psym_index **out, char *note, size_t notesz)
{
	char key[600], name[2048], why[600];
	struct psym_err e = { 0 };
	struct fetch f = { .name = name, .build_id = build_id, .variant = variant, .fd = -1 };
	struct psym_http_sink sink = { .put = fetch_put, .arg = &f };
	bool no_server = false;
	int64_t left, t0;
	uint64_t len;
	void *map;
	int ret;

	note[0] = '\0';
	/* Given up: said once already, by the request that gave it up. */
	if (__atomic_load_n(&h->down, __ATOMIC_ACQUIRE))
		return PSYM_EIO;
	if (http_key(build_id, variant, key, sizeof(key)))
		return PSYM_NOENT;
	snprintf(name, sizeof(name), "%s/%s", h->spec, key);
	/* One deadline for the run: what earlier GETs took is not given again. */
	left = h->budget_ms - __atomic_load_n(&h->spent_ms, __ATOMIC_RELAXED);
	if (left <= 0) {
		snprintf(why, sizeof(why), "index store '%s': its time for this run is spent",
			 h->spec);
		give_up(h, why, note, notesz);
		return PSYM_EIO;
	}
	t0 = now_ms();
	ret = psym_http_get(&h->url, key, PSYM_INDEX_MAX_FILE, (int)left, &sink, &len, &no_server,
			    &e);
	__atomic_fetch_add(&h->spent_ms, now_ms() - t0, __ATOMIC_RELAXED);
	if (ret == PSYM_NOENT)
		goto out;
	if (ret && no_server) {
		give_up(h, e.msg, note, notesz);
		ret = PSYM_EIO;
		goto out;
	}
	if (!ret && (f.got < IDX_HDR_SIZE || f.got < f.hdr.h.file_size)) {
		f.refused = true;
		ret = f.got < IDX_HDR_SIZE ? psym_err_set(&e, PSYM_EBADINPUT,
							  "index '%s': truncated header", name)
					   : psym_err_set(&e, PSYM_EBADINPUT,
							  "index '%s': %llu bytes, the header says "
							  "%llu (truncated?)",
							  name, (unsigned long long)f.got,
							  (unsigned long long)f.hdr.h.file_size);
	}
	if (ret) {
		snprintf(note, notesz, "%s", e.msg);
		/* A store that answers with something else works: build for it. */
		ret = f.refused ? PSYM_NOENT : PSYM_EIO;
		goto out;
	}
	/* Mapped from the private file: its pages stay out of the heap. */
	map = mmap(NULL, (size_t)f.got, PROT_READ, MAP_PRIVATE, f.fd, 0);
	if (map == MAP_FAILED) {
		snprintf(note, notesz, "cannot map the index fetched from '%s': %s", name,
			 strerror(errno));
		ret = PSYM_NOENT;
		goto out;
	}
	ret = psym_index_open_map(map, (size_t)f.got, name, build_id, variant, out, &e);
	if (ret) {
		snprintf(note, notesz, "%s", e.msg);
		ret = PSYM_NOENT;
	}
out:
	if (f.fd >= 0)
		close(f.fd);
	return ret;
}

int psym_http_store_put(struct psym_http_store *h, const char *build_id, const char *variant,
			const char *file, struct psym_err *e)
{
	char key[600], why[sizeof(e->msg) + 400];
	bool no_server = false;
	struct stat st;
	int fd, ret;

	ret = psym_http_store_up(h, e);
	if (ret)
		return ret;
	if (http_key(build_id, variant, key, sizeof(key)))
		return psym_err_set(e, PSYM_EBADINPUT, "'%s' is not an index variant", variant);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return psym_err_set(e, PSYM_EIO, "cannot open '%s': %s", file, strerror(errno));
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size > PSYM_INDEX_MAX_FILE) {
		close(fd);
		return psym_err_set(e, PSYM_ELIMIT, "'%s' exceeds the cap of %llu bytes", file,
				    (unsigned long long)PSYM_INDEX_MAX_FILE);
	}
	ret = psym_http_put(&h->url, key, fd, (uint64_t)st.st_size, h->budget_ms, &no_server, e);
	close(fd);
	if (ret && no_server && give_up(h, e->msg, why, sizeof(why)))
		psym_err_set(e, ret, "%s", why);
	return ret;
}
