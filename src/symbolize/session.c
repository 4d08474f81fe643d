/* SPDX-License-Identifier: MIT */
/* The session: options by name, started once (session.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "buildid.h"
#include "core.h"
#include "demangle.h"
#include "elffile.h"
#include "fileio.h"
#include "input.h"
#include "kmod.h"
#include "kmods.h"
#include "session.h"
#include "sidenames.h"
#include "source.h"

/* ---- lists and strings the session owns ------------------------------------ */

static int own(char **dst, const char *arg)
{
	char *c = strdup(arg);

	if (!c)
		return PSYM_ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

/* Append s, taken over (freed when it cannot be kept). */
static int list_take(struct psym_strlist *l, char *s)
{
	const char **nv = s ? realloc(l->v, (l->n + 1) * sizeof(*l->v)) : NULL;

	if (!nv) {
		free(s);
		return PSYM_ENOMEM;
	}
	l->v = nv;
	l->v[l->n++] = s;
	return 0;
}

static int list_add(struct psym_strlist *l, const char *s)
{
	return list_take(l, strdup(s));
}

/* A colon-separated list, each part appended. */
static int list_add_path(struct psym_strlist *l, const char *arg)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int ret = copy ? 0 : PSYM_ENOMEM;

	for (tok = copy ? strtok_r(copy, ":", &save) : NULL; tok && !ret;
	     tok = strtok_r(NULL, ":", &save))
		ret = list_add(l, tok);
	free(copy);
	return ret;
}

static void list_free(struct psym_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free((char *)l->v[i]);
	free(l->v);
	*l = (struct psym_strlist){ 0 };
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* $XDG_CACHE_HOME/psym or ~/.cache/psym (malloc'd), NULL if neither is set. */
static char *cache_home(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *d = NULL;

	if (x && *x) {
		if (asprintf(&d, "%s/psym", x) < 0)
			d = NULL;
	} else if (home && *home) {
		if (asprintf(&d, "%s/.cache/psym", home) < 0)
			d = NULL;
	}
	return d;
}

static int mkdir_p(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
	return mkdir(buf, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

/* A file named for an answer source (its option: --gsym FILE). */
static int named_source(struct psym_session *s, const char *option, const char *path)
{
	struct psym_named_source *nv = realloc(s->named, (s->n_named + 1) * sizeof(*nv));
	char *p = path ? strdup(path) : NULL;

	if (!nv || !p) {
		if (nv)
			s->named = nv;
		free(p);
		return PSYM_ENOMEM;
	}
	s->named = nv;
	s->named[s->n_named++] = (struct psym_named_source){ .option = option, .path = p };
	return 0;
}

/* ---- options by name -------------------------------------------------------- */

struct psym_session *psym_session_new(void)
{
	struct psym_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	psym_reader_limits_default(&s->limits);
	psym_limits_default(&s->lim);
	s->say.out = stderr;
	s->so.explain_fn = psym_say_explain;
	s->so.explain_ud = &s->say;
	s->so.note_fn = psym_say_note;
	s->so.note_ud = &s->say;
	return s;
}

/* Where files are found, and the caches: 0, or PSYM_NOENT when name is not one of them. */
static int set_discovery(struct psym_session *s, const char *name, const char *arg,
			 struct psym_err *e)
{
	long v;
	int ret;

	if (!strcmp(name, "binary-path"))
		return list_add_path(&s->bpath, arg);
	if (!strcmp(name, "sysroot"))
		return own(&s->sysroot, arg);
	if (!strcmp(name, "debug-dir"))
		return list_add_path(&s->ddirs, arg);
	if (!strcmp(name, "dwo-dir"))
		return list_add(&s->dwo_dirs, arg);
	if (!strcmp(name, "dwp"))
		return own(&s->dwp, arg);
	if (!strcmp(name, "modules-dir"))
		return list_add(&s->mod_dirs, arg);
	if (!strcmp(name, "debug-pkg"))
		return list_add(&s->pkgs, arg);
	if (!strcmp(name, "cache"))
		return own(&s->cache_opt, arg);
	if (!strcmp(name, "no-cache"))
		return s->no_cache = true, 0;
	if (!strcmp(name, "debuginfod"))
		return list_add(&s->urls, arg);
	if (!strcmp(name, "debuginfod-timeout")) {
		ret = psym_parse_whole(arg, 1, 3600, "--debuginfod-timeout", &v, e);
		if (!ret)
			s->dio.timeout_s = (int)v;
		return ret;
	}
	if (!strcmp(name, "offline"))
		return s->dio.offline = true, 0;
	if (!strcmp(name, "limit"))
		return psym_reader_limits_set(&s->limits, arg, e);
	if (!strcmp(name, "index-store"))
		return own(&s->index_spec, arg);
	if (!strcmp(name, "no-index"))
		return s->index_off = true, 0;
	if (!strcmp(name, "no-index-build"))
		return s->index_no_build = true, 0;
	if (psym_source_by_option(name))
		return named_source(s, psym_source_by_option(name)->option, arg);
	if (!strcmp(name, "max-input-size"))
		return psym_parse_size_arg(arg, &s->lim.max_input, e);
	if (!strcmp(name, "max-profile-size"))
		return psym_parse_size_arg(arg, &s->lim.max_profile, e);
	if (!strcmp(name, "max-memory"))
		return psym_parse_size_arg(arg, &s->lim.max_memory, e);
	return PSYM_NOENT;
}

/* How addresses are answered and said. */
static int set_symbolizing(struct psym_session *s, const char *name, const char *arg,
			   struct psym_err *e)
{
	struct psym_symbolize_opts *so = &s->so;
	long v;
	int ret;

	if (!strcmp(name, "main-binary"))
		return own(&s->main_binary, arg);
	if (!strcmp(name, "force"))
		return so->force = true, 0;
	if (!strcmp(name, "explain"))
		return so->explain = true, 0;
	if (!strcmp(name, "quiet"))
		return so->quiet = true, 0;
	if (!strcmp(name, "no-inlines"))
		return so->no_inlines = true, 0;
	if (!strcmp(name, "no-demangle"))
		return s->demangle_given = true, so->demangle = PSYM_DEMANGLE_NONE, 0;
	if (!strcmp(name, "demangle")) {
		int m = arg ? psym_demangle_mode_parse(arg) : -1;

		if (m < 0)
			return psym_err_set(
				e, PSYM_EUSAGE,
				"invalid --demangle '%s': default, templates, full or none", arg);
		so->demangle = (enum psym_demangle_mode)m;
		s->demangle_given = true;
		return 0;
	}
	if (!strcmp(name, "adjust-callers"))
		return so->adjust_callers = true, 0;
	if (!strcmp(name, "kallsyms"))
		return own(&s->kallsyms, arg);
	if (!strcmp(name, "vdso"))
		return own(&s->vdso, arg);
	if (!strcmp(name, "vmlinux"))
		return own(&s->vmlinux, arg);
	if (!strcmp(name, "perf-map"))
		return list_add(&s->pmaps, arg);
	if (!strcmp(name, "perf-map-dir"))
		return list_add(&s->pmdirs, arg);
	if (!strcmp(name, "pid")) {
		ret = psym_parse_whole(arg, 1, INT32_MAX, "--pid", &v, e);
		if (!ret)
			so->pid = (int)v;
		return ret;
	}
	if (!strcmp(name, "format")) {
		if (strcmp(arg, "pprof") && strcmp(arg, "otlp"))
			return psym_err_set(e, PSYM_EUSAGE, "--format: pprof or otlp, not '%s'",
					    arg);
		return own(&s->format, arg);
	}
	return PSYM_NOENT;
}

int psym_session_set(struct psym_session *s, const char *name, const char *arg, struct psym_err *e)
{
	int ret;

	if (s->started)
		return psym_err_set(e, PSYM_EUSAGE, "--%s: the session has started", name);
	ret = set_discovery(s, name, arg, e);
	if (ret == PSYM_NOENT)
		ret = set_symbolizing(s, name, arg, e);
	if (ret == PSYM_ENOMEM)
		return psym_err_set(e, ret, "out of memory");
	return ret;
}

void psym_session_print_limits(const struct psym_session *s, FILE *out)
{
	fprintf(out, "Limits (--limit NAME=N, N with K/M/G; current values):\n");
	psym_reader_limits_print(&s->limits, out);
}

const struct psym_limits *psym_session_limits(const struct psym_session *s)
{
	return &s->lim;
}

/* ---- --debug-pkg: what the inputs need ------------------------------------- */

int psym_session_want_id(struct psym_session *s, const char *id)
{
	char key[PSYM_BUILD_ID_HEX_MAX];
	char **nv;

	/* A Go build ID: the key an archive packs such a binary under (archive.c). */
	if (psym_go_build_id_key(id, key) == 0)
		id = key;
	if (!psym_build_id_valid(id))
		return 0;
	for (size_t i = 0; i < s->n_want; i++)
		if (strcasecmp(s->want[i], id) == 0)
			return 0;
	nv = psym_array_grow(s->want, &s->cap_want, s->n_want + 1, sizeof(*nv), 0);
	if (!nv)
		return PSYM_ENOMEM;
	s->want = nv;
	if (!(s->want[s->n_want] = strdup(id)))
		return PSYM_ENOMEM;
	psym_build_id_lower(s->want[s->n_want++]);
	return 0;
}

/* One kernel module the run needs (psym_kmods_profile_wants' fn), once. */
static int want_kmod(void *ud, const char *module, const char *release, const char *build_id)
{
	struct psym_session *s = ud;
	struct psym_deb_kmod *v, k = { 0 };

	for (size_t i = 0; i < s->n_kmods; i++) {
		v = &s->kmods[i];
		if (!strcmp(v->name, module) && !!v->release == !!release &&
		    (!release || !strcmp(v->release, release)) && !!v->build_id == !!build_id &&
		    (!build_id || !strcmp(v->build_id, build_id)))
			return 0;
	}
	/* Its build ID may name a file anywhere else in the package too. */
	if (build_id && psym_session_want_id(s, build_id) != 0)
		return PSYM_ENOMEM;
	v = psym_array_grow(s->kmods, &s->cap_kmods, s->n_kmods + 1, sizeof(*v), 0);
	if (!v)
		return PSYM_ENOMEM;
	s->kmods = v;
	k.name = strdup(module);
	k.release = release ? strdup(release) : NULL;
	k.build_id = build_id ? strdup(build_id) : NULL;
	if (!k.name || (release && !k.release) || (build_id && !k.build_id)) {
		free((char *)k.name);
		free((char *)k.release);
		free((char *)k.build_id);
		return PSYM_ENOMEM;
	}
	s->kmods[s->n_kmods++] = k;
	return 0;
}

/*
 * What one profile needs: its mappings' build IDs (their own, else their
 * file's), and the kernel modules its kernel frames fall in (by the side
 * dir PATH.d that the symbolizer will read, and --kallsyms).
 */
static int profile_wants(struct psym_session *s, const char *path, struct psym_err *e)
{
	struct psym_profile *p = NULL;
	int ret = psym_input_read_profile(path, &s->lim, &p, e);

	for (size_t i = 0; !ret && i < p->pb->n_mapping; i++) {
		const pb_mapping *m = p->pb->mapping[i];
		const char *bid = psym_profile_str(p, m->build_id);
		const char *file = psym_profile_str(p, m->filename);
		char id[PSYM_BUILD_ID_HEX_MAX], *full = NULL;

		if (!*bid && file[0] == '/' &&
		    asprintf(&full, "%s%s", s->sysroot ? s->sysroot : "", file) >= 0) {
			if (psym_elf_file_build_id(full, id, NULL) == 0)
				bid = id;
			free(full);
		}
		if (*bid && psym_session_want_id(s, bid) != 0)
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	if (!ret) {
		char *side = psym_side_dir(path);

		ret = psym_kmods_profile_wants(p, side && is_dir(side) ? side : NULL, s->kallsyms,
					       &s->limits, want_kmod, s, e);
		if (ret == PSYM_ENOMEM || !side)
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		free(side);
	}
	psym_profile_free(p);
	return ret;
}

/* The union over profiles: files, or directories of them as in batch mode. */
static int profiles_wants(struct psym_session *s, const char *const *inputs, size_t n,
			  struct psym_err *e)
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
			if (profile_wants(s, inputs[i], e) == PSYM_ENOMEM)
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
				ret = PSYM_ENOMEM;
				break;
			}
			if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
			    profile_wants(s, path, e) == PSYM_ENOMEM)
				ret = PSYM_ENOMEM;
			psym_err_clear(e);
			free(path);
		}
		closedir(dir);
	}
	return ret ? psym_err_set(e, ret, "out of memory") : 0;
}

/* The build IDs of the cores' files. */
static int cores_wants(struct psym_session *s, const char *const *paths, size_t n)
{
	struct psym_core_limits cl = { .max_input = s->lim.max_input,
				       .max_decompressed = s->limits.core_bytes };

	for (size_t i = 0; i < n; i++) {
		struct psym_err e = { 0 };
		struct psym_core *c;

		if (psym_core_open(paths[i], &cl, &c, &e))
			continue; /* said when it is read for good */
		for (size_t f = 0; f < c->nfiles; f++)
			if (psym_session_want_id(s, c->files[f].build_id)) {
				psym_core_free(c);
				return PSYM_ENOMEM;
			}
		psym_core_free(c);
	}
	return 0;
}

/*
 * A binary named by path (addr -e): its build ID. A kernel module's debug
 * package is read for modules by name only (deb.h), so the module's name
 * and build ID (any release) are wanted; found by build ID in the
 * extracted tree.
 */
static int file_wants(struct psym_session *s, const char *exe)
{
	char name[256], id[PSYM_BUILD_ID_HEX_MAX];
	const char *base = strrchr(exe, '/');
	struct psym_elf *elf = NULL;
	int ret = 0;

	if (!psym_kmod_name_is(exe))
		return psym_elf_file_build_id(exe, id, NULL) == 0 ? psym_session_want_id(s, id) : 0;
	base = base ? base + 1 : exe;
	snprintf(name, sizeof(name), "%s", base);
	name[strcspn(name, ".")] = '\0';
	if (!*name || psym_elf_open(exe, NULL, &elf, NULL) != 0)
		return 0; /* the command reports the file itself */
	if (psym_elf_build_id(elf)) {
		snprintf(id, sizeof(id), "%s", psym_elf_build_id(elf));
		psym_build_id_lower(id);
		ret = want_kmod(s, name, NULL, id);
	}
	psym_elf_close(elf);
	return ret;
}

int psym_session_want(struct psym_session *s, enum psym_want what, const char *const *v, size_t n,
		      struct psym_err *e)
{
	int ret = 0;

	if (!s->pkgs.n)
		return 0; /* only --debug-pkg needs to know in advance */
	switch (what) {
	case PSYM_WANT_PROFILES: return profiles_wants(s, v, n, e);
	case PSYM_WANT_CORES: ret = cores_wants(s, v, n); break;
	case PSYM_WANT_FILES:
		for (size_t i = 0; i < n && !ret; i++)
			ret = file_wants(s, v[i]);
		break;
	case PSYM_WANT_BUILD_IDS:
		for (size_t i = 0; i < n && !ret; i++)
			ret = psym_session_want_id(s, v[i]);
		break;
	case PSYM_WANT_ALL: s->want_all = true; break;
	}
	return ret ? psym_err_set(e, ret, "out of memory") : 0;
}

/* ---- start ------------------------------------------------------------------ */

/*
 * Extract what the run needs of each --debug-pkg (the wanted build IDs
 * and modules, or everything with PSYM_WANT_ALL) into CACHE/debs (--cache
 * DIR: DIR/debs; --no-cache: a temporary directory removed by free) and
 * add the extracted debug roots to the debug dirs.
 */
static int debug_pkgs(struct psym_session *s, struct psym_err *e)
{
	static const char *const none[1]; /* non-NULL: NULL would mean "all" */
	char *debs = NULL;
	int ret = 0;

	if (!s->pkgs.n)
		return 0;
	if (s->no_cache) {
		const char *tmp = getenv("TMPDIR");

		if (asprintf(&s->deb_tmp, "%s/psym-debs-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
			s->deb_tmp = NULL;
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		}
		if (!mkdtemp(s->deb_tmp)) {
			ret = psym_err_set(e, PSYM_EIO, "cannot create '%s': %s", s->deb_tmp,
					   strerror(errno));
			free(s->deb_tmp);
			s->deb_tmp = NULL;
			return ret;
		}
		debs = strdup(s->deb_tmp);
	} else {
		char *base = s->cache_opt ? strdup(s->cache_opt) : cache_home();

		if (!base || asprintf(&debs, "%s/debs", base) < 0)
			debs = NULL;
		free(base);
	}
	if (!debs || mkdir_p(debs) != 0) {
		ret = psym_err_set(e, debs ? PSYM_EIO : PSYM_ENOMEM,
				   "cannot create the cache for '%s'%s%s", s->pkgs.v[0],
				   debs ? " in " : "", debs ? debs : "");
		goto out;
	}
	s->pkg_ddir = s->ddirs.n;
	for (size_t i = 0; i < s->pkgs.n; i++) {
		const char *const *ids = s->n_want ? (const char *const *)s->want : none;
		struct psym_deb_want w = {
			.build_ids = s->want_all ? NULL : ids,
			.n_build_ids = s->want_all ? 0 : s->n_want,
			.kmods = s->kmods,
			.n_kmods = s->n_kmods,
		};
		char *root = NULL;

		ret = psym_deb_extract(s->pkgs.v[i], debs, &s->limits.deb, &w, &root, e);
		if (ret)
			goto out;
		if (list_take(&s->ddirs, root)) {
			ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
			goto out;
		}
	}
out:
	free(debs);
	return ret;
}

/*
 * perf's build-ID cache ($PERF_BUILDID_DIR, else ~/.debug, where perf
 * record and perf archive's tarball keep a copy of every binary a
 * recording touched) as the last debug dir, when it is a directory psym
 * may trust: its kallsyms and vDSO copies are named by build ID, not
 * checked by content.
 */
static int perf_cache_dir(struct psym_session *s)
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
		return list_take(&s->ddirs, dir);
	free(dir);
	return 0;
}

/* The debug dirs completed, the locator's options made, debuginfod's session. */
static int discovery_finish(struct psym_session *s, unsigned flags, struct psym_err *e)
{
	const char *env = getenv("PPROF_BINARY_PATH");
	char sbuf[4096];
	int ret = debug_pkgs(s, e);

	if (ret)
		return ret;
	if (list_add_path(&s->ddirs, "/usr/lib/debug") || perf_cache_dir(s) ||
	    (env && *env && list_add_path(&s->bpath, env)))
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	if (s->pkgs.n) {
		s->ddir_pkgs = calloc(s->ddirs.n + 1, sizeof(*s->ddir_pkgs));
		if (!s->ddir_pkgs)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		for (size_t i = 0; i < s->pkgs.n && s->pkg_ddir + i < s->ddirs.n; i++)
			s->ddir_pkgs[s->pkg_ddir + i] = s->pkgs.v[i];
	}
	if ((flags & PSYM_START_PERF_MAPS) && !s->pmdirs.n) {
		if (list_add(&s->pmdirs, "/tmp"))
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		s->so.perf_map_dirs_default = true;
	}
	s->dio.urls = s->urls.v;
	s->dio.n_urls = s->urls.n;
	s->dio.max_bytes = s->limits.debuginfod_bytes;
	s->lo = (struct psym_locate_opts){
		.search = s->bpath.v,
		.n_search = s->bpath.n,
		.sysroot = s->sysroot,
		.debug_dirs = s->ddirs.v,
		.n_debug_dirs = s->ddirs.n,
		.debug_dir_pkgs = s->ddir_pkgs,
		.elf_limits = &s->limits.elf,
		.dwo_dirs = s->dwo_dirs.v,
		.n_dwo_dirs = s->dwo_dirs.n,
		.dwp = s->dwp,
		.modules_dirs = s->mod_dirs.v,
		.n_modules_dirs = s->mod_dirs.n,
		.perf_map_dirs = s->pmdirs.v,
		.n_perf_map_dirs = s->pmdirs.n,
		.kallsyms = s->kallsyms,
		.vdso = s->vdso,
		.vmlinux = s->vmlinux,
	};
	if (!s->dio.offline && psym_debuginfod_servers(&s->dio, sbuf, sizeof(sbuf))) {
		ret = psym_debuginfod_new(&s->dio, &s->dsess, e);
		if (ret)
			return ret;
		s->lo.debuginfod = s->dsess;
	}
	return 0;
}

/*
 * The answer cache's directory as --cache / --no-cache name it (--cache
 * DIR itself, else CACHE/symbols); NULL with --no-cache or out of memory.
 */
static char *symcache_dir(const struct psym_session *s)
{
	char *base, *dir = NULL;

	if (s->no_cache)
		return NULL;
	base = s->cache_opt ? strdup(s->cache_opt) : cache_home();
	if (base &&
	    (s->cache_opt ? asprintf(&dir, "%s", base) : asprintf(&dir, "%s/symbols", base)) < 0)
		dir = NULL;
	free(base);
	return dir;
}

/*
 * The store the options name: none with --no-index (or PSYM_INDEX_STORE=off);
 * a default directory that cannot be made is none, no error; a named
 * store that cannot be used is an error.
 */
static int index_store_open(struct psym_session *s, bool auto_build, struct psym_err *e)
{
	const char *env = getenv("PSYM_INDEX_STORE");
	const char *spec = s->index_spec ? s->index_spec : env && *env ? env : NULL;
	char *base, *dir = NULL;
	struct psym_err ignored = { 0 };
	int ret;

	auto_build = auto_build && !s->index_no_build;
	if (s->index_off || (!s->index_spec && spec && strcmp(spec, "off") == 0))
		return 0;
	if (spec) {
		ret = psym_index_store_new(spec, auto_build, &s->store, e);
		if (ret)
			psym_err_prefix(e, "--index-store");
		return ret ? PSYM_EUSAGE : 0;
	}
	base = s->cache_opt ? strdup(s->cache_opt) : cache_home();
	if (base && mkdir_p(base) == 0 && asprintf(&dir, "%s/index", base) >= 0)
		psym_index_store_new(dir, auto_build, &s->store, &ignored);
	free(dir);
	free(base);
	return 0;
}

int psym_session_start(struct psym_session *s, unsigned flags, struct psym_err *e)
{
	int ret;

	if (s->started)
		return 0;
	ret = discovery_finish(s, flags, e);
	if (ret)
		return ret;
	s->started = true;
	/* Decompressed DWARF counts against the profile's memory cap too. */
	if (!(flags & PSYM_START_NO_MEMORY_CAP))
		s->limits.memory = s->lim.max_memory;
	s->so.locate = &s->lo;
	s->so.limits = s->limits;
	s->so.main_binary = s->main_binary;
	s->so.perf_maps = s->pmaps.v;
	s->so.n_perf_maps = s->pmaps.n;
	s->so.out_format = s->format;
	if (!(flags & PSYM_START_NO_CACHE)) {
		s->symcache = symcache_dir(s);
		s->so.cache_dir = s->symcache;
	}
	ret = index_store_open(s, !(flags & PSYM_START_NO_INDEX_BUILD), e);
	s->so.index_store = s->store;
	return ret;
}

void psym_session_free(struct psym_session *s)
{
	if (!s)
		return;
	psym_index_store_free(s->store);
	psym_debuginfod_free(s->dsess);
	if (s->deb_tmp)
		psym_deb_remove_tree(s->deb_tmp);
	free(s->deb_tmp);
	list_free(&s->bpath);
	list_free(&s->ddirs);
	list_free(&s->pkgs);
	list_free(&s->urls);
	list_free(&s->dwo_dirs);
	list_free(&s->mod_dirs);
	list_free(&s->pmaps);
	list_free(&s->pmdirs);
	for (size_t i = 0; i < s->n_want; i++)
		free(s->want[i]);
	free(s->want);
	for (size_t i = 0; i < s->n_kmods; i++) {
		free((char *)s->kmods[i].name);
		free((char *)s->kmods[i].release);
		free((char *)s->kmods[i].build_id);
	}
	free(s->kmods);
	free(s->ddir_pkgs);
	for (size_t i = 0; i < s->n_named; i++)
		free((char *)s->named[i].path);
	free(s->named);
	free(s->dwp);
	free(s->sysroot);
	free(s->kallsyms);
	free(s->vdso);
	free(s->vmlinux);
	free(s->main_binary);
	free(s->format);
	free(s->cache_opt);
	free(s->index_spec);
	free(s->symcache);
	free(s);
}
