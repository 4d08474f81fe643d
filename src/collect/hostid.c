/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "collectprof.h"
#include "hostid.h"

/* Copy s into out (size n), replacing what a comment word cannot hold. */
static void clean(char *out, size_t n, const char *s)
{
	size_t i = 0;

	for (; s[i] && i + 1 < n; i++)
		out[i] = (s[i] > ' ' && s[i] < 0x7f) ? s[i] : '?';
	out[i] = '\0';
}

void psym_hostid_local(struct psym_hostid *h)
{
	struct utsname u;
	char buf[64] = "";
	FILE *f;

	memset(h, 0, sizeof(*h));
	if (uname(&u) == 0) {
		clean(h->host, sizeof(h->host), u.nodename);
		clean(h->kernel, sizeof(h->kernel), u.release);
	}
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	clean(h->boot_id, sizeof(h->boot_id), buf);
}

void psym_hostid_format(const struct psym_hostid *h, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, PSYM_HOSTID_PREFIX "%s kernel=%s boot_id=%s", h->host, h->kernel,
		 h->boot_id);
}

/* The value of " NAME=" in line up to the next space, into out. */
static bool field(const char *line, const char *name, char *out, size_t n)
{
	const char *p = strstr(line, name), *end;

	if (!p)
		return false;
	p += strlen(name);
	end = p + strcspn(p, " ");
	if ((size_t)(end - p) >= n)
		return false;
	memcpy(out, p, (size_t)(end - p));
	out[end - p] = '\0';
	return true;
}

int psym_hostid_parse(const char *line, struct psym_hostid *h)
{
	memset(h, 0, sizeof(*h));
	if (strncmp(line, PSYM_HOSTID_PREFIX, strlen(PSYM_HOSTID_PREFIX)) != 0 ||
	    !field(line, "host=", h->host, sizeof(h->host)) ||
	    !field(line, " kernel=", h->kernel, sizeof(h->kernel)) ||
	    !field(line, " boot_id=", h->boot_id, sizeof(h->boot_id))) {
		memset(h, 0, sizeof(*h));
		return PSYM_NOENT;
	}
	return 0;
}

bool psym_hostid_same(const struct psym_hostid *a, const struct psym_hostid *b)
{
	return a->host[0] && a->kernel[0] && a->boot_id[0] && !strcmp(a->host, b->host) &&
	       !strcmp(a->kernel, b->kernel) && !strcmp(a->boot_id, b->boot_id);
}

bool psym_hostid_profile_is_local(const struct psym_profile *p, struct psym_hostid *recorded,
				  char *why, size_t whysz)
{
	const pb_profile *pb = p->pb;
	struct psym_hostid here, rec;
	bool collector = false, have = false;

	memset(&rec, 0, sizeof(rec));
	for (size_t i = 0; i < pb->n_comment; i++) {
		const char *s = psym_profile_str(p, pb->comment[i]);

		if (!strcmp(s, PSYM_COLLECT_COMMENT))
			collector = true;
		else if (!have && psym_hostid_parse(s, &rec) == 0)
			have = collector = true;
	}
	if (recorded)
		*recorded = rec;
	if (!collector)
		return true;
	psym_hostid_local(&here);
	if (have && psym_hostid_same(&rec, &here))
		return true;
	if (!why)
		return false;
	if (!have)
		snprintf(why, whysz, "the profile does not say which host it was recorded on");
	else if (strcmp(rec.host, here.host))
		snprintf(why, whysz, "the profile was recorded on host '%s', not this one ('%s')",
			 rec.host, here.host);
	else if (strcmp(rec.kernel, here.kernel))
		snprintf(why, whysz,
			 "the profile was recorded under kernel %s, this machine runs %s",
			 rec.kernel, here.kernel);
	else
		snprintf(why, whysz,
			 "the profile was recorded before this machine's last boot (boot ID %s, "
			 "now %s)",
			 rec.boot_id, here.boot_id[0] ? here.boot_id : "unknown");
	return false;
}

void psym_hostid_profile_release(const struct psym_profile *p, char *buf, size_t bufsz)
{
	struct psym_hostid rec;
	struct utsname u;

	if (!bufsz)
		return;
	buf[0] = '\0';
	if (!psym_hostid_profile_is_local(p, &rec, NULL, 0))
		snprintf(buf, bufsz, "%s", rec.kernel);
	else if (uname(&u) == 0)
		snprintf(buf, bufsz, "%s", u.release);
}

void psym_hostid_profile_kernel_build_id(const struct psym_profile *p, char *buf, size_t bufsz)
{
	const pb_profile *pb = p->pb;

	if (!bufsz)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < pb->n_mapping; i++) {
		const char *f = psym_profile_str(p, pb->mapping[i]->filename);
		const char *b = psym_profile_str(p, pb->mapping[i]->build_id);

		if (f && b && *b && !strncmp(f, "[kernel.kallsyms]", 17)) {
			snprintf(buf, bufsz, "%s", b);
			return;
		}
	}
}
