/* SPDX-License-Identifier: MIT */
/* Discovery options: how every command finds binaries and debug information. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* ---- --debug-pkg: what the profiles need from Debian packages ------------- */

int idset_add(struct idset *s, const char *id)
{
	char key[PSYM_BUILD_ID_HEX_MAX];
	char **ni;

	/* A Go build ID: the key an archive packs such a binary under (archive.c). */
	if (psym_go_build_id_key(id, key) == 0)
		id = key;
	if (!psym_build_id_valid(id))
		return 0;
	for (size_t i = 0; i < s->n; i++)
		if (strcasecmp(s->ids[i], id) == 0)
			return 0;
	ni = psym_array_grow(s->ids, &s->cap, s->n + 1, sizeof(*ni), 0);
	if (!ni)
		return PSYM_ENOMEM;
	s->ids = ni;
	if (!(s->ids[s->n] = strdup(id)))
		return PSYM_ENOMEM;
	psym_build_id_lower(s->ids[s->n++]);
	return 0;
}

/* One kernel module a run needs (psym_kmods_profile_wants' fn), once. */
int discovery_want_kmod(void *ud, const char *module, const char *release, const char *build_id)
{
	struct discovery *d = ud;
	struct psym_deb_kmod *v, k = { 0 };

	for (size_t i = 0; i < d->kmods.n; i++) {
		v = &d->kmods.v[i];
		if (!strcmp(v->name, module) && !!v->release == !!release &&
		    (!release || !strcmp(v->release, release)) && !!v->build_id == !!build_id &&
		    (!build_id || !strcmp(v->build_id, build_id)))
			return 0;
	}
	/* Its build ID may name a file anywhere else in the package too. */
	if (build_id && idset_add(&d->want, build_id) != 0)
		return PSYM_ENOMEM;
	v = psym_array_grow(d->kmods.v, &d->kmods.cap, d->kmods.n + 1, sizeof(*v), 0);
	if (!v)
		return PSYM_ENOMEM;
	d->kmods.v = v;
	k.name = strdup(module);
	k.release = release ? strdup(release) : NULL;
	k.build_id = build_id ? strdup(build_id) : NULL;
	if (!k.name || (release && !k.release) || (build_id && !k.build_id)) {
		free((char *)k.name);
		free((char *)k.release);
		free((char *)k.build_id);
		return PSYM_ENOMEM;
	}
	d->kmods.v[d->kmods.n++] = k;
	return 0;
}

/*
 * What one profile needs: its mappings' build IDs (their own, else their
 * file's), and the kernel modules its kernel frames fall in (by the side
 * dir PATH.d that the symbolizer will read, and --kallsyms).
 */
static int profile_wants(const char *path, const struct psym_limits *lim, const char *kallsyms,
			 struct discovery *d, struct psym_err *e)
{
	const char *sysroot = d->sysroot;
	struct idset *s = &d->want;
	struct psym_profile *p = NULL;
	int ret = psym_input_read_profile(path, lim, &p, e);

	for (size_t i = 0; !ret && i < p->pb->n_mapping; i++) {
		const pb_mapping *m = p->pb->mapping[i];
		const char *bid = psym_profile_str(p, m->build_id);
		const char *file = psym_profile_str(p, m->filename);
		char own[PSYM_BUILD_ID_HEX_MAX], *full = NULL;

		if (!*bid && file[0] == '/' &&
		    asprintf(&full, "%s%s", sysroot ? sysroot : "", file) >= 0) {
			if (psym_elf_file_build_id(full, own, NULL) == 0)
				bid = own;
			free(full);
		}
		if (*bid && idset_add(s, bid) != 0)
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	if (!ret) {
		char *side = NULL;

		side = psym_side_dir(path);
		ret = psym_kmods_profile_wants(p, side && is_dir(side) ? side : NULL, kallsyms,
					       &d->limits, discovery_want_kmod, d, e);
		if (ret == PSYM_ENOMEM || !side)
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		free(side);
	}
	psym_profile_free(p);
	return ret;
}

/* The union over the inputs (files, or directories of them as in batch mode). */
int inputs_wants(char **inputs, size_t n, const struct psym_limits *lim, const char *kallsyms,
		 struct discovery *d, struct psym_err *e)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < n; i++) {
		struct dirent *de;
		DIR *dir;

		if (strcmp(inputs[i], "-") == 0)
			return psym_err_set(
				e, PSYM_EUSAGE,
				"--debug-pkg reads the profile first: give a file, not stdin");
		if (!is_dir(inputs[i])) {
			/* A bad profile is for the symbolizer to report, in its own words. */
			if (profile_wants(inputs[i], lim, kallsyms, d, e) == PSYM_ENOMEM)
				ret = PSYM_ENOMEM;
			else
				psym_err_clear(e);
			continue;
		}
		dir = opendir(inputs[i]);
		if (!dir)
			return psym_err_set(e, PSYM_EIO, "cannot open '%s': %s", inputs[i],
					    strerror(errno));
		while (!ret && (de = readdir(dir))) {
			char *path;
			struct stat st;

			if (de->d_name[0] == '.')
				continue;
			if (asprintf(&path, "%s/%s", inputs[i], de->d_name) < 0) {
				ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
				break;
			}
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			    profile_wants(path, lim, kallsyms, d, e) == PSYM_ENOMEM)
				ret = PSYM_ENOMEM;
			psym_err_clear(e);
			free(path);
		}
		closedir(dir);
	}
	return ret ? psym_err_set(e, ret, "out of memory") : 0;
}

/* --no-cache extraction root, removed at exit whatever the path out. */
static char *deb_tmp_root;

static void remove_deb_tmp_root(void)
{
	if (deb_tmp_root)
		psym_deb_remove_tree(deb_tmp_root);
	free(deb_tmp_root);
	deb_tmp_root = NULL;
}

void discovery_init(struct discovery *d)
{
	memset(d, 0, sizeof(*d));
	psym_reader_limits_default(&d->limits);
}

/* One discovery option; false when c is not one. */
bool discovery_option(int c, const char *arg, struct discovery *d, const char *cmd)
{
	switch (c) {
	case OPT_BINARY_PATH: add_path_list(arg, &d->bpath, &d->n_bpath); break;
	case OPT_SYSROOT: d->sysroot = arg; break;
	case OPT_DEBUG_DIR: add_path_list(arg, &d->ddirs, &d->n_ddirs); break;
	case OPT_DWO_DIR: add_one(arg, &d->dwo_dirs, &d->n_dwo_dirs); break;
	case OPT_DWP: d->dwp = arg; break;
	case OPT_MODULES_DIR: add_one(arg, &d->mod_dirs, &d->n_mod_dirs); break;
	case OPT_DEBUG_PKG: add_one(arg, &d->pkgs, &d->n_pkgs); break;
	case OPT_CACHE: d->cache_opt = arg; break;
	case OPT_NO_CACHE: d->no_cache = true; break;
	case OPT_DEBUGINFOD: add_one(arg, &d->urls, &d->n_urls); break;
	case OPT_DEBUGINFOD_TIMEOUT:
		d->dio.timeout_s = (int)parse_long_arg(cmd, arg, 1, 3600, "--debuginfod-timeout");
		break;
	case OPT_OFFLINE: d->dio.offline = true; break;
	case OPT_LIMIT: reader_limit_option(arg, &d->limits, cmd); break;
	default: return false;
	}
	return true;
}

/*
 * Extract what the run needs of each --debug-pkg (d->want, or everything
 * when d->want_all) into CACHE/debs (--cache DIR: DIR/debs; --no-cache: a
 * temporary directory removed at exit) and add the extracted debug roots
 * to the debug dirs.
 */
static int debug_pkgs(struct discovery *d, struct psym_err *e)
{
	static const char *const none[1]; /* non-NULL: NULL would mean "all" */
	char *debs = NULL;
	int ret = 0;

	if (!d->n_pkgs)
		return 0;
	if (d->no_cache) {
		const char *tmp = getenv("TMPDIR");

		if (asprintf(&deb_tmp_root, "%s/psym-debs-XXXXXX", tmp && *tmp ? tmp : "/tmp") <
		    0) {
			deb_tmp_root = NULL;
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		}
		if (!mkdtemp(deb_tmp_root)) {
			ret = psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", deb_tmp_root,
					   strerror(errno));
			free(deb_tmp_root);
			deb_tmp_root = NULL;
			return ret;
		}
		atexit(remove_deb_tmp_root);
		debs = strdup(deb_tmp_root);
	} else {
		char *base = d->cache_opt ? strdup(d->cache_opt) : cache_dir();

		if (!base || asprintf(&debs, "%s/debs", base) < 0)
			debs = NULL;
		free(base);
	}
	if (!debs || mkdir_p(debs) != 0) {
		ret = psym_err_set(e, debs ? PSYM_EIO : PSYM_ENOMEM,
				   "cannot create the cache for '%s'%s%s", d->pkgs[0],
				   debs ? " in " : "", debs ? debs : "");
		goto out;
	}
	d->pkg_ddir = d->n_ddirs;
	for (size_t i = 0; i < d->n_pkgs; i++) {
		const char *const *ids = d->want.n ? (const char *const *)d->want.ids : none;
		struct psym_deb_want w = {
			.build_ids = d->want_all ? NULL : ids,
			.n_build_ids = d->want_all ? 0 : d->want.n,
			.kmods = d->kmods.v,
			.n_kmods = d->kmods.n,
		};
		char *root = NULL;

		ret = psym_deb_extract(d->pkgs[i], debs, &d->limits.deb, &w, &root, e);
		if (ret)
			goto out;
		add_owned(root, &d->ddirs, &d->n_ddirs);
	}
out:
	free(debs);
	return ret;
}

/*
 * After the options: what the run needs of the Debian packages extracted
 * and added as debug dirs, /usr/lib/debug last, $PPROF_BINARY_PATH after
 * --binary-path, debuginfod servers, then the locator's options.
 */
char *discovery_symcache(const struct discovery *d)
{
	char *base, *dir = NULL;

	if (d->no_cache)
		return NULL;
	base = d->cache_opt ? strdup(d->cache_opt) : cache_dir();
	if (base &&
	    (d->cache_opt ? asprintf(&dir, "%s", base) : asprintf(&dir, "%s/symbols", base)) < 0)
		dir = NULL;
	free(base);
	return dir;
}

/*
 * perf's build-ID cache ($PERF_BUILDID_DIR, else ~/.debug, where perf
 * record and perf archive's tarball keep a copy of every binary a
 * recording touched) as the last debug dir, when it is a directory psym
 * may trust: its kallsyms and vDSO copies are named by build ID, not
 * checked by content.
 */
static void perf_cache_dir(struct discovery *d)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	char *dir = NULL, why[128];
	struct stat st;

	if (env && *env)
		dir = strdup(env);
	else if (home && *home && asprintf(&dir, "%s/.debug", home) < 0)
		dir = NULL;
	if (dir && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    psym_stat_trusted(&st, why, sizeof(why)))
		add_one(dir, &d->ddirs, &d->n_ddirs);
	free(dir);
}

int discovery_finish(struct discovery *d, struct psym_err *e)
{
	const char *env;

	int ret = debug_pkgs(d, e);

	if (ret)
		return ret;
	add_path_list("/usr/lib/debug", &d->ddirs, &d->n_ddirs);
	perf_cache_dir(d);
	if (d->n_pkgs) {
		d->ddir_pkgs = calloc(d->n_ddirs + 1, sizeof(*d->ddir_pkgs));
		if (!d->ddir_pkgs)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		for (size_t i = 0; i < d->n_pkgs && d->pkg_ddir + i < d->n_ddirs; i++)
			d->ddir_pkgs[d->pkg_ddir + i] = d->pkgs[i];
	}
	env = getenv("PPROF_BINARY_PATH");
	if (env && *env)
		add_path_list(env, &d->bpath, &d->n_bpath);
	d->dio.urls = d->urls;
	d->dio.n_urls = d->n_urls;
	d->dio.max_bytes = d->limits.debuginfod_bytes;
	d->lo = (struct psym_locate_opts){
		.search = d->bpath,
		.n_search = d->n_bpath,
		.sysroot = d->sysroot,
		.debug_dirs = d->ddirs,
		.n_debug_dirs = d->n_ddirs,
		.debug_dir_pkgs = d->ddir_pkgs,
		.elf_limits = &d->limits.elf,
		.dwo_dirs = d->dwo_dirs,
		.n_dwo_dirs = d->n_dwo_dirs,
		.dwp = d->dwp,
		.modules_dirs = d->mod_dirs,
		.n_modules_dirs = d->n_mod_dirs,
	};
	{
		char sbuf[4096];

		if (!d->dio.offline && psym_debuginfod_servers(&d->dio, sbuf, sizeof(sbuf))) {
			ret = psym_debuginfod_new(&d->dio, &d->dsess, e);
			if (ret)
				return ret;
			d->lo.debuginfod = d->dsess;
		}
	}
	return 0;
}

void discovery_free(struct discovery *d)
{
	psym_debuginfod_free(d->dsess);
	free_list(d->bpath, d->n_bpath);
	free_list(d->ddirs, d->n_ddirs);
	free_list(d->pkgs, d->n_pkgs);
	free_list(d->urls, d->n_urls);
	free_list(d->dwo_dirs, d->n_dwo_dirs);
	free_list(d->mod_dirs, d->n_mod_dirs);
	for (size_t i = 0; i < d->want.n; i++)
		free(d->want.ids[i]);
	free(d->want.ids);
	for (size_t i = 0; i < d->kmods.n; i++) {
		free((char *)d->kmods.v[i].name);
		free((char *)d->kmods.v[i].release);
		free((char *)d->kmods.v[i].build_id);
	}
	free(d->kmods.v);
	free(d->ddir_pkgs);
}
