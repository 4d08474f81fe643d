/* SPDX-License-Identifier: MIT */
/*
 * The session (psym.h's struct psym_session): how one run of a command
 * finds files, what it may read, and how it symbolizes, set by option name
 * as the command line spells them; then started once, before any thread:
 * the --debug-pkg packages extracted (only what the inputs need), the
 * debug dirs completed (/usr/lib/debug, perf's build-ID cache), the
 * debuginfod session made, the answer cache and the index store opened.
 * The verbs (symbolize, stack, addresses, index) read it as it is; the
 * session owns every string it was given.
 */
#ifndef PSYM_SESSION_H
#define PSYM_SESSION_H

#include "psym.h"

#include "debuginfod.h"
#include "deb.h"
#include "locate.h"
#include "binary.h"
#include "readlimits.h"
#include "say.h"
#include "store.h"
#include "symbolize.h"

struct psym_strlist {
	const char **v;
	size_t n;
};

struct psym_session {
	/* discovery: binaries and debug information */
	struct psym_strlist bpath, ddirs, pkgs, urls, dwo_dirs, mod_dirs, pmaps, pmdirs;
	char *dwp, *sysroot, *kallsyms, *vdso, *vmlinux, *main_binary, *format;
	struct psym_debuginfod_opts dio;
	struct psym_debuginfod *dsess; /* one for the run, made by start */
	struct psym_reader_limits limits;
	struct psym_locate_opts lo; /* made by start */
	/* --debug-pkg: what to extract, and where */
	char **want;
	size_t n_want, cap_want;
	struct psym_deb_kmod *kmods;
	size_t n_kmods, cap_kmods;
	bool want_all;
	size_t pkg_ddir;
	const char **ddir_pkgs;
	char *deb_tmp; /* --no-cache extraction root, removed by free */
	/* files named for answer sources (--gsym FILE), by the source's option */
	struct psym_named_source *named;
	size_t n_named;
	/* caches and indexes */
	char *cache_opt;
	bool no_cache;
	char *index_spec;
	bool index_off, index_no_build;
	char *symcache;
	struct psym_index_store *store;
	/* what one profile may cost; how it is symbolized */
	struct psym_limits lim;
	struct psym_symbolize_opts so;
	struct psym_say say; /* the run's words, on stderr */
	bool demangle_given; /* demangle or no-demangle was set */
	bool started;
};

/* The build ID's key (a Go one as an archive packs it), added to what --debug-pkg extracts. */
int psym_session_want_id(struct psym_session *s, const char *id);

#endif
