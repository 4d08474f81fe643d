/* SPDX-License-Identifier: MIT */
/*
 * Finding and inflating the DWARF sections of an opened psym_elf.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compress.h"
#include "elffile.h"
#include "elfreloc.h"
#include "sections.h"

static const char *const sec_names[S_N] = {
	"info", "abbrev", "line",     "str",	  "line_str", "str_offsets",
	"addr", "ranges", "rnglists", "cu_index", "aranges",
};

/*
 * Whether a section name (after ".debug_") is section i: in a .dwo or
 * .dwp with the ".dwo" suffix (the index without), elsewhere without
 * (and never the index).
 */
static bool section_is(const struct psym_dwarf *d, const char *name, int i)
{
	size_t n = strlen(sec_names[i]);

	if (i == S_CU_INDEX)
		return d->dwo && strcmp(name, sec_names[i]) == 0;
	if (i == S_ARANGES)
		return !d->dwo && strcmp(name, sec_names[i]) == 0;
	if (!d->dwo)
		return strcmp(name, sec_names[i]) == 0;
	return strncmp(name, sec_names[i], n) == 0 && strcmp(name + n, ".dwo") == 0;
}

#define HUGE_BUF ((size_t)8 << 20)

/*
 * Memory for an inflated section. Big ones are mapped and asked for
 * transparent huge pages: faulting in 250 MB page by page costs more than
 * the zeroing itself.
 */
static uint8_t *section_alloc(struct section *s)
{
	size_t len = s->size ? (size_t)s->size : 1;
	void *p;

	if (len < HUGE_BUF)
		return malloc(len);
	len = (len + HUGE_BUF - 1) & ~(HUGE_BUF - 1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, len, MADV_HUGEPAGE);
#endif
	s->ownedlen = len;
	return p;
}

void dw_section_free(struct section *s)
{
	if (s->ownedlen)
		munmap(s->owned, s->ownedlen);
	else
		free(s->owned);
	s->owned = NULL;
	s->ownedlen = 0;
}

static int inflate_section(struct section *s)
{
	uint8_t *out;
	size_t got = 0;
	int r;

	if (s->size > SIZE_MAX)
		return PSYM_ELIMIT;
	out = s->owned ? s->owned : section_alloc(s);
	if (!out)
		return PSYM_ENOMEM;
	s->owned = out;
	r = psym_decompress_into(s->kind == ELFCOMPRESS_ZLIB ? PSYM_ZLIB : PSYM_ZSTD, s->z, s->zlen,
				 out, (size_t)s->size, &got);
	if (r) {
		dw_section_free(s);
		return r == PSYM_ENOMEM ? r : PSYM_EBADDWARF;
	}
	s->len = got;
	s->p = out;
	return 0;
}

static void *inflate_thread(void *arg)
{
	struct section *s = arg;

	s->err = inflate_section(s);
	return NULL;
}

/* Take a compressed section's header: SHF_COMPRESSED Chdr or .zdebug_ "ZLIB" + size. */
static int section_setup(struct psym_dwarf *d, struct section *s, const uint8_t *p, size_t len,
			 bool shf_compressed, bool zdebug, bool elf64)
{
	struct cur c = cur_at(p, len, 0, d->swap);

	s->p = p;
	s->len = len;
	if (shf_compressed) {
		uint32_t type = rd_u32(&c);

		if (elf64) {
			rd_u32(&c);
			s->size = rd_u64(&c);
			rd_u64(&c);
		} else {
			s->size = rd_u32(&c);
			rd_u32(&c);
		}
		if (!c.ok || (type != ELFCOMPRESS_ZLIB && type != ELFCOMPRESS_ZSTD))
			return PSYM_EBADDWARF;
		s->kind = (int)type;
	} else if (zdebug) {
		if (len < 12 || memcmp(p, "ZLIB", 4) != 0)
			return PSYM_EBADDWARF;
		s->size = 0;
		for (int i = 0; i < 8; i++)
			s->size = (s->size << 8) | p[4 + i];
		c.p += 12;
		s->kind = ELFCOMPRESS_ZLIB;
	} else {
		return 0;
	}
	s->z = c.p;
	s->zlen = cur_left(&c);
	/*
	 * Deflate expands at most 1032 times; zstd more in theory, not on
	 * DWARF. A larger claim is a lie that would cost memory.
	 */
	if (s->size / 1032 > s->zlen + 1024)
		return PSYM_EBADDWARF;
	s->p = NULL;
	s->len = 0;
	return 0;
}

/*
 * .debug_info followed by another section of the same name (see the
 * caller): copied after it into one buffer of total bytes, all of them.
 */
static int append_info(struct psym_dwarf *d, const uint8_t *p, size_t len, size_t total)
{
	struct section *s = &d->sec[S_INFO];
	uint8_t *n = s->owned;

	if (len > total - s->len)
		return PSYM_EBADDWARF;
	if (!n) {
		n = malloc(total ? total : 1);
		if (!n)
			return PSYM_ENOMEM;
		memcpy(n, s->p, s->len);
	}
	memcpy(n + s->len, p, len);
	s->owned = n;
	s->p = n;
	s->len += len;
	return 0;
}

/*
 * Refuse, before allocating anything, sections whose headers claim more
 * than the caps once decompressed: one section (--limit
 * dwarf-section-bytes) and all of them together (--max-memory).
 */
static int check_sizes(const struct psym_dwarf *d, struct psym_err *e)
{
	uint64_t total = 0;

	for (int i = 0; i < S_N; i++) {
		const struct section *s = &d->sec[i];

		if (!s->z)
			continue;
		if (s->size > d->o.max_section || s->size > SIZE_MAX)
			return psym_err_set(
				e, PSYM_ELIMIT,
				"'%s': .debug_%s decompresses to %llu bytes, over the limit "
				"of %llu (--limit dwarf-section-bytes=N)",
				d->path, sec_names[i], (unsigned long long)s->size,
				(unsigned long long)d->o.max_section);
		/*
		 * Real DWARF compresses 3-10 times; a claim of 1000 times
		 * is zeros, which would cost its full size in memory and
		 * seconds of inflating before anything looked at it.
		 */
		if (s->size > RATIO_MIN_SIZE && s->size / (s->zlen ? s->zlen : 1) > d->o.max_ratio)
			return psym_err_set(
				e, PSYM_ELIMIT,
				"'%s': .debug_%s claims %llu bytes from %llu compressed (%llu:1), "
				"over the ratio limit of %llu:1 (--limit dwarf-compress-ratio=N)",
				d->path, sec_names[i], (unsigned long long)s->size,
				(unsigned long long)s->zlen,
				(unsigned long long)(s->size / (s->zlen ? s->zlen : 1)),
				(unsigned long long)d->o.max_ratio);
		total = total > UINT64_MAX - s->size ? UINT64_MAX : total + s->size;
	}
	if (d->o.max_memory && total > d->o.max_memory)
		return psym_err_set(
			e, PSYM_ELIMIT,
			"'%s': DWARF sections decompress to %llu bytes, over the memory "
			"cap of %llu (--max-memory)",
			d->path, (unsigned long long)total, (unsigned long long)d->o.max_memory);
	return 0;
}

/*
 * A relocatable object's sections get their relocations applied, in a
 * private copy when they are the file's own bytes.
 */
static int relocate_sections(struct psym_dwarf *d, struct psym_err *e)
{
	for (int i = 0; i < S_N; i++) {
		struct section *s = &d->sec[i];
		uint8_t *copy;

		if (!s->p || !psym_elf_has_relocs(d->elf, s->shndx))
			continue;
		if (!s->owned) {
			s->size = s->len;
			copy = section_alloc(s);
			if (!copy)
				return psym_err_set(e, PSYM_ENOMEM, "out of memory");
			memcpy(copy, s->p, s->len);
			s->owned = copy;
			s->p = copy;
		}
		if (psym_elf_relocate(d->elf, s->shndx, s->owned, s->len, e))
			return PSYM_EBADELF;
	}
	return 0;
}

int dw_load_sections(struct psym_dwarf *d, struct psym_err *e)
{
	size_t nsec = psym_elf_nsections(d->elf);
	pthread_t th;
	bool threaded = false;
	uint8_t *info_buf = NULL;
	size_t info_len = 0, info_total = 0;
	int ret = 0;

	d->swap = psym_elf_is_msb(d->elf) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	/* The bytes of all plain .debug_info sections, for a .dwo that has many. */
	for (size_t k = 1; k < nsec; k++) {
		struct psym_elf_scn sc;

		if (psym_elf_scn(d->elf, k, &sc) == 0 && !sc.compressed &&
		    strncmp(sc.name, ".debug_", 7) == 0 && section_is(d, sc.name + 7, S_INFO) &&
		    sc.len <= SIZE_MAX - info_total)
			info_total += sc.len;
	}
	for (size_t k = 1; k < nsec; k++) {
		struct psym_elf_scn sc;
		const char *name;
		bool zdebug;
		int r;

		if (psym_elf_scn(d->elf, k, &sc) != 0)
			continue;
		name = sc.name;
		if (strncmp(name, ".debug_", 7) == 0) {
			name += 7;
			zdebug = false;
		} else if (strncmp(name, ".zdebug_", 8) == 0) {
			name += 8;
			zdebug = true;
		} else {
			continue;
		}
		for (int i = 0; i < S_N; i++) {
			if (!section_is(d, name, i))
				continue;
			/*
			 * A .dwo of -fdebug-types-section keeps each type unit in a
			 * .debug_info.dwo of its own (COMDAT), the compile unit in
			 * another: units delimit themselves and refer inside
			 * themselves, so the sections are read as one.
			 */
			if (i == S_INFO && d->sec[i].p && !d->sec[i].z && !sc.compressed &&
			    !zdebug) {
				r = append_info(d, sc.data, sc.len, info_total);
				if (r)
					return psym_err_set(e, r, "'%s': %s", d->path,
							    r == PSYM_ENOMEM
								    ? "out of memory"
								    : "inconsistent sections");
				break;
			}
			if (d->sec[i].p || d->sec[i].z)
				continue;
			r = section_setup(d, &d->sec[i], sc.data, sc.len, sc.compressed, zdebug,
					  psym_elf_is_64(d->elf));
			if (r)
				return psym_err_set(e, r, "'%s': bad compressed section %s%s",
						    d->path, zdebug ? ".zdebug_" : ".debug_", name);
			d->sec[i].shndx = k;
			break;
		}
	}
	if (!d->sec[S_INFO].p && !d->sec[S_INFO].z)
		return PSYM_NOENT;
	ret = check_sizes(d, e);
	if (ret)
		return ret;
	/* The biggest section inflates on a second thread while we do the rest. */
	if (d->sec[S_INFO].z) {
		d->sec[S_INFO].owned = section_alloc(&d->sec[S_INFO]);
		/* The other thread owns the section until joined: keep what we need. */
		info_buf = d->sec[S_INFO].owned;
		info_len = d->sec[S_INFO].ownedlen;
		if (info_buf && pthread_create(&th, NULL, inflate_thread, &d->sec[S_INFO]) == 0)
			threaded = true;
	}
	for (int i = 0; i < S_N; i++) {
		if (!d->sec[i].z || (i == S_INFO && threaded))
			continue;
		d->sec[i].err = inflate_section(&d->sec[i]);
	}
#ifdef MADV_POPULATE_WRITE
	/*
	 * Then fault in (the kernel zeroes) the pages of .debug_info from the
	 * end down, while the other thread inflates into them from the start:
	 * zeroing 250 MB costs about a third of the inflating. Contents are
	 * not touched; where the inflater got first this is a no-op.
	 */
	if (threaded && info_len) {
		for (size_t end = info_len; end > HUGE_BUF; end -= HUGE_BUF)
			if (madvise(info_buf + end - HUGE_BUF, HUGE_BUF, MADV_POPULATE_WRITE) != 0)
				break;
	}
#endif
	if (threaded)
		pthread_join(th, NULL);
	/*
	 * The compressed bytes are not read again: give their pages back (the
	 * file's read-only private mapping refetches them if ever touched).
	 */
	for (int i = 0; i < S_N; i++) {
		long pg = sysconf(_SC_PAGESIZE);
		uintptr_t lo, hi;

		if (!d->sec[i].z)
			continue;
		if (pg <= 0 || !psym_elf_is_mapped(d->elf)) {
			d->sec[i].z = NULL;
			continue;
		}
		lo = ((uintptr_t)d->sec[i].z + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
		hi = ((uintptr_t)d->sec[i].z + d->sec[i].zlen) & ~((uintptr_t)pg - 1);
		if (hi > lo)
			madvise((void *)lo, hi - lo, MADV_DONTNEED);
		d->sec[i].z = NULL;
	}
	for (int i = 0; i < S_N; i++) {
		if (!d->sec[i].err)
			continue;
		ret = psym_err_set(e, d->sec[i].err, "'%s': cannot decompress .debug_%s%s", d->path,
				   sec_names[i], d->sec[i].err == PSYM_ELIMIT ? ": too large" : "");
		break;
	}
	if (!ret && psym_elf_is_rel(d->elf))
		ret = relocate_sections(d, e);
	return ret;
}
