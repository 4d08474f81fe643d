/* SPDX-License-Identifier: MIT */
/* Building an index from psym's own answers (build.h). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "index.h"
#include "layout.h"
#include "sort.h"

/*
 * The boundaries (sorted, distinct) made relative to the layout, sorted
 * again, with the layout's own origin among them: between two of them no
 * boundary lies, so one answer holds, also on the stretch that wraps.
 */
static int relative(const struct psym_layout *l, uint64_t **vp, size_t *np)
{
	uint64_t *v = realloc(*vp, (*np + 1) * sizeof(*v));
	size_t n = *np, k = 0;
	int ret;

	if (!v)
		return PSYM_ENOMEM;
	*vp = v;
	for (size_t i = 0; i < n; i++)
		v[i] = psym_layout_rel(l, v[i]);
	v[n++] = 0;
	ret = psym_sort_u64(v, n);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++)
		if (!k || v[i] != v[k - 1])
			v[k++] = v[i];
	*np = k;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int psym_index_build(struct psym_binary *b, struct psym_index_store *s, bool again,
		     struct psym_index_built *out, struct psym_err *e)
{
	struct psym_elf *elf = psym_binary_elf(b);
	const struct psym_layout *l = psym_binary_layout(b);
	const char *bid = psym_binary_key(b); /* a Go build ID's key too */
	struct psym_index_writer *w = NULL;
	struct psym_frame *fr = NULL;
	uint64_t *v = NULL, end;
	size_t nv = 0, n = 0;
	double t0 = now();
	bool begun = false;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!bid)
		return psym_err_set(e, PSYM_NOENT, "'%s' has no build ID (indexes are keyed by it)",
				    psym_elf_path(elf));
	snprintf(out->build_id, sizeof(out->build_id), "%s", bid);
	/* Claimed first: a builder elsewhere is not duplicated, nor one just done. */
	ret = psym_index_store_begin(s, bid, psym_binary_variant(b), out->path, sizeof(out->path),
				     e);
	if (ret)
		goto out;
	begun = true;
	if (!again) {
		struct psym_index *have = NULL;
		char note[256];

		if (psym_index_store_get(s, bid, psym_binary_variant(b), &have, note,
					 sizeof(note)) == 0) {
			psym_index_close(have);
			ret = psym_err_set(e, PSYM_NOENT, "the store has an index of %s already",
					   bid);
			goto out;
		}
	}
	ret = psym_binary_boundaries(b, &v, &nv, e);
	if (ret)
		goto out;
	ret = relative(l, &v, &nv);
	if (ret) {
		psym_err_set(e, ret, "out of memory");
		goto out;
	}
	out->boundaries = nv;
	fr = malloc(PSYM_MAX_FRAMES * sizeof(*fr));
	if (!fr) {
		ret = psym_err_set(e, PSYM_ENOMEM, "out of memory");
		goto out;
	}
	{
		const char *dw = psym_binary_dwarf_path(b);
		struct psym_index_meta m = {
			.build_id = bid,
			.variant = psym_binary_variant(b),
			.source = dw ? dw : psym_elf_path(elf),
			.flags = PSYM_INDEX_INLINES | PSYM_INDEX_DISCRIMINATORS,
		};

		ret = psym_index_writer_new(&m, &w, e);
		if (ret)
			goto out;
	}
	for (size_t i = 0; i < nv; i++) {
		n = psym_binary_resolve_dwarf(b, psym_layout_abs(l, v[i]), fr, PSYM_MAX_FRAMES);
		for (size_t k = 0; k < n; k++)
			if (fr[k].has_start_address)
				fr[k].start_address = psym_layout_rel(l, fr[k].start_address);
		ret = psym_index_writer_add(w, v[i], fr, n, e);
		if (ret)
			goto out;
	}
	/* Past the last boundary the answer stays: to the top when there is one. */
	end = n ? UINT64_MAX : v[nv - 1] + 1;
	ret = psym_index_writer_finish(w, end, out->path, &out->size, e);
	if (!ret) {
		begun = false; /* commit drops the marker, whatever it returns */
		ret = psym_index_store_commit(s, bid, psym_binary_variant(b), out->path, e);
	}
	psym_index_writer_stats(w, &out->runs, &out->groups);
out:
	if (begun)
		psym_index_store_abandon(s, bid, psym_binary_variant(b), out->path);
	psym_index_writer_free(w);
	free(fr);
	free(v);
	out->seconds = now() - t0;
	return ret;
}

void psym_index_build_background(struct psym_binary *b, struct psym_index_store *s)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		/*
		 * A grandchild does the work, so nobody has to wait for it,
		 * with no terminal or pipe of the run kept open.
		 */
		if (fork() == 0) {
			struct psym_index_built info;
			struct psym_err e = { 0 };
			int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

			setsid();
			if (fd >= 0) {
				dup2(fd, 0);
				dup2(fd, 1);
				dup2(fd, 2);
			}
			psym_index_build(b, s, false, &info, &e);
			_exit(0);
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	psym_index_store_count_built(s);
}
