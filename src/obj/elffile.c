/* SPDX-License-Identifier: MIT */
/*
 * An ELF file opened for symbolization (elffile.h): the checked headers
 * and extent, PT_LOADs and the normalization of addresses, sections, the
 * debug link and MiniDebugInfo. The symbol table is in elfsyms.c.
 */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "compress.h"
#include "elffile_int.h"
#include "rellayout.h"
#include "kmodfile.h"
#include "symtab.h"
#include "fileio.h"

#define DEFAULT_MAX_SECTIONS 65536
#define DEFAULT_MAX_SYMBOLS ((size_t)16 << 20)
#define MAX_MINIDEBUGINFO ((size_t)512 << 20)

static int elf_fail(struct psym_err *e, const char *path, const char *what)
{
	return psym_err_set(e, PSYM_EBADELF, "'%s': %s%s%s", path, what, elf_errmsg(-1) ? ": " : "",
			    elf_errmsg(-1) ? elf_errmsg(-1) : "");
}

/*
 * A truncated or lying file is named as such: the header tables and every
 * section with file contents must lie inside the file (libelf would
 * otherwise just return no data for them and the file would look empty).
 */
static int check_extent(struct psym_elf *f, struct psym_err *e)
{
	size_t size = 0;
	uint64_t end, shnum;

	if (!elf_rawfile(f->elf, &size))
		return 0;
	if (f->eh.e_phnum &&
	    (__builtin_mul_overflow((uint64_t)f->eh.e_phnum, f->eh.e_phentsize, &end) ||
	     __builtin_add_overflow(end, f->eh.e_phoff, &end) || end > size))
		goto truncated_headers;
	if (f->eh.e_shoff && !f->eh.e_shnum && f->nsections <= 1)
		return psym_err_set(e, PSYM_EBADELF,
				    "'%s': corrupt section count (extended numbering)", f->path);
	shnum = f->nsections > f->eh.e_shnum ? f->nsections : f->eh.e_shnum;
	if (shnum && f->eh.e_shoff &&
	    (__builtin_mul_overflow(shnum, f->eh.e_shentsize, &end) ||
	     __builtin_add_overflow(end, f->eh.e_shoff, &end) || end > size))
		goto truncated_headers;
	for (size_t i = 1; i < f->nsections && i < f->lim.max_sections; i++) {
		Elf_Scn *scn = elf_getscn(f->elf, i);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_NULL || !sh.sh_size)
			continue;
		if (__builtin_add_overflow(sh.sh_offset, sh.sh_size, &end) || end > size) {
			return psym_err_set(
				e, PSYM_EBADELF,
				"'%s': truncated or corrupt: section [%zu] ends past the "
				"end of the file (%zu bytes)",
				f->path, i, size);
		}
	}
	return 0;
truncated_headers:
	return psym_err_set(e, PSYM_EBADELF,
			    "'%s': truncated or corrupt: header tables end past the end of the "
			    "file (%zu bytes)",
			    f->path, size);
}

/*
 * A debug file made by objcopy --only-keep-debug (as Debian's and Fedora's
 * are): its allocated sections are SHT_NOBITS, and its PT_LOADs keep the
 * binary's addresses, sizes, flags and alignment but not its file offsets
 * (0, or objcopy's own layout) nor sizes in the file (0, or short of
 * p_memsz for the code). Both signs are needed: code is never NOBITS in a
 * binary, and eu-strip -f keeps the binary's program headers whole.
 */
static bool only_keep_debug(const struct psym_elf *f)
{
	Elf_Scn *scn = NULL;
	bool short_code = false;

	for (size_t i = 0; i < f->nloads && !short_code; i++)
		short_code = (f->loads[i].flags & PF_X) && f->loads[i].filesz < f->loads[i].memsz;
	if (!short_code)
		return false;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOBITS && sh.sh_size &&
		    (sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR))
			return true;
	}
	return false;
}

/*
 * The binary's file layout, recovered from what a debug file keeps. Every
 * linker (GNU ld, gold, lld) lays segments out in address order, the first
 * at file offset 0 (it holds the ELF header), each at the first offset
 * past the previous one's contents that is congruent to its address modulo
 * its alignment, as the ELF spec requires of p_offset: GNU ld's offsets
 * then follow the addresses, lld's do not (it packs the file). p_memsz
 * stands in for the lost p_filesz (.bss ends the last segment as a rule).
 * Segments out of address order, or a layout past 2^64, leave the table
 * empty: only the fallback of psym_elf_normalize remains.
 */
static int norm_layout(struct psym_elf *f, struct psym_err *e)
{
	uint64_t end = 0;

	f->norm = calloc(f->nloads ? f->nloads : 1, sizeof(*f->norm));
	if (!f->norm)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; i < f->nloads; i++) {
		const struct psym_elf_load *l = &f->loads[i];
		uint64_t align = l->align, off;

		if (align < 2 || (align & (align - 1)))
			align = 1; /* no congruence to keep */
		if (i && l->vaddr < f->loads[i - 1].vaddr)
			goto unknown;
		off = end + ((l->vaddr - end) & (align - 1));
		if (off < end || __builtin_add_overflow(off, l->memsz, &end))
			goto unknown;
		f->norm[i] = *l;
		f->norm[i].offset = off;
		f->norm[i].filesz = l->memsz;
	}
	f->nnorm = f->nloads;
	return 0;
unknown:
	f->nnorm = 0;
	return 0;
}

static int load_headers(struct psym_elf *f, struct psym_err *e)
{
	size_t nph = 0;

	if (elf_kind(f->elf) != ELF_K_ELF)
		return psym_err_set(e, PSYM_EBADELF, "'%s': not an ELF file", f->path);
	if (!gelf_getehdr(f->elf, &f->eh))
		return elf_fail(e, f->path, "bad ELF header");
	if (elf_getshdrnum(f->elf, &f->nsections) != 0)
		return elf_fail(e, f->path, "bad section count");
	if (check_extent(f, e))
		return PSYM_EBADELF;
	if (f->nsections > f->lim.max_sections)
		return psym_err_set(e, PSYM_ELIMIT,
				    "'%s': %zu sections (limit %zu; --limit elf-sections=N)",
				    f->path, f->nsections, f->lim.max_sections);
	if (f->nsections && elf_getshdrstrndx(f->elf, &f->shstrndx) != 0)
		f->shstrndx = 0;
	if (elf_getphdrnum(f->elf, &nph) != 0)
		nph = 0;
	if (nph > 65535)
		return psym_err_set(e, PSYM_ELIMIT, "'%s': %zu program headers", f->path, nph);
	f->loads = calloc(nph ? nph : 1, sizeof(*f->loads));
	if (!f->loads)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->loads[f->nloads++] = (struct psym_elf_load){
			.offset = ph.p_offset,
			.vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz,
			.memsz = ph.p_memsz,
			.flags = ph.p_flags,
			.align = ph.p_align,
		};
	}
	f->has_build_id = psym_libelf_build_id(f->elf, f->build_id) == 0;
	if (f->has_build_id || psym_libelf_go_build_id(f->elf, f->go_build_id) != 0)
		f->go_build_id[0] = '\0';
	if (f->eh.e_type == ET_REL && f->nsections) {
		int ret = psym_elf_rel_layout(f->elf, f->path, f->nsections, &f->secaddr, e);

		if (ret)
			return ret;
	}
	f->debug_only = only_keep_debug(f);
	if (f->debug_only)
		return norm_layout(f, e);
	return 0;
}

static struct psym_elf *elf_new(const char *name, const struct psym_elf_limits *lim)
{
	struct psym_elf *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->path = strdup(name);
	if (!f->path) {
		free(f);
		return NULL;
	}
	f->lim.max_sections = lim && lim->max_sections ? lim->max_sections : DEFAULT_MAX_SECTIONS;
	f->lim.max_symbols = lim && lim->max_symbols ? lim->max_symbols : DEFAULT_MAX_SYMBOLS;
	psym_arena_init(&f->strings, (size_t)1 << 30);
	psym_symtab_init(&f->syms, &(struct psym_symtab_opts){
					   .rule = PSYM_SYMTAB_NEAREST,
					   .max_entries = f->lim.max_symbols,
					   .what = "symbols",
					   .limit_flag = "--limit elf-symbols=N",
				   });
	psym_symtab_init(&f->dsyms, &(struct psym_symtab_opts){
					    .rule = PSYM_SYMTAB_NEAREST,
					    .max_entries = f->lim.max_symbols,
					    .what = "symbols",
					    .limit_flag = "--limit elf-symbols=N",
				    });
	return f;
}

/* Read the headers of an opened image; f is closed on failure. */
static int open_image(struct psym_elf *f, void *buf, size_t len, const char *what,
		      struct psym_elf **out, struct psym_err *e)
{
	int ret;

	f->elf = elf_memory(buf, len);
	if (!f->elf) {
		ret = psym_err_set(e, PSYM_EBADELF, "'%s': not an ELF %s", f->path, what);
		goto fail;
	}
	ret = load_headers(f, e);
	if (ret)
		goto fail;
	*out = f;
	return 0;
fail:
	psym_elf_close(f);
	return ret;
}

int psym_elf_open(const char *path, const struct psym_elf_limits *lim, struct psym_elf **out,
		  struct psym_err *e)
{
	struct psym_elf *f;
	struct stat st;
	void *map;
	int fd;

	elf_version(EV_CURRENT);
	fd = psym_open_regular(path, e);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) != 0 || st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return psym_err_set(e, PSYM_EBADELF, "'%s': not an ELF file (%s)", path,
				    st.st_size == 0 ? "empty" : "cannot read its size");
	}
	/*
	 * The file is mapped whole, read-only, and its descriptor given back
	 * at once: a profile naming thousands of objects never runs out of
	 * descriptors, and pages of data read once can be dropped again
	 * (psym_elf_is_mapped).
	 */
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return psym_err_set(e, PSYM_EIO, "cannot map '%s': %s", path, strerror(errno));
	/* A kernel module as kmod installs it: .ko.xz, .ko.zst, .ko.gz (kmod.c). */
	if (psym_kmod_name_is(path) && (st.st_size < 4 || memcmp(map, ELFMAG, 4) != 0)) {
		unsigned char *img;
		size_t n;
		int ret = psym_kmod_decompress(path, map, (size_t)st.st_size, 0, &img, &n, e);

		munmap(map, (size_t)st.st_size);
		if (ret == PSYM_NOENT)
			return psym_err_set(e, PSYM_EBADELF, "'%s': not an ELF file", path);
		return ret ? ret : psym_elf_open_mem(img, n, true, path, lim, out, e);
	}
	f = elf_new(path, lim);
	if (!f) {
		munmap(map, (size_t)st.st_size);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	f->map = map;
	f->maplen = (size_t)st.st_size;
	return open_image(f, map, f->maplen, "file", out, e);
}

int psym_elf_open_mem(void *buf, size_t len, bool take_ownership, const char *name,
		      const struct psym_elf_limits *lim, struct psym_elf **out, struct psym_err *e)
{
	struct psym_elf *f;

	elf_version(EV_CURRENT);
	f = elf_new(name, lim);
	if (!f) {
		if (take_ownership)
			free(buf);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	if (take_ownership)
		f->mem = buf;
	return open_image(f, buf, len, "image", out, e);
}

void psym_elf_close(struct psym_elf *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nchildren; i++)
		psym_elf_close(f->children[i]);
	free(f->children);
	if (f->elf)
		elf_end(f->elf);
	if (f->map)
		munmap(f->map, f->maplen);
	free(f->mem);
	free(f->loads);
	free(f->norm);
	free(f->secaddr);
	psym_symtab_free(&f->syms);
	psym_symtab_free(&f->dsyms);
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < f->nwin[k]; i++)
			psym_symtab_free(&f->win[k][i].t);
	psym_elf_gnu_free(f);
	free(f->regions);
	psym_arena_free(&f->strings);
	free(f->path);
	free(f);
}

void psym_elf_adopt(struct psym_elf *f, struct psym_elf *child)
{
	struct psym_elf **n = realloc(f->children, (f->nchildren + 1) * sizeof(*n));

	if (!n) {
		/* Cannot record it: keep it alive forever rather than dangle. */
		return;
	}
	f->children = n;
	f->children[f->nchildren++] = child;
}

const char *psym_elf_path(const struct psym_elf *f)
{
	return f->path;
}

const char *psym_elf_build_id(const struct psym_elf *f)
{
	return f->has_build_id ? f->build_id : NULL;
}

const char *psym_elf_go_build_id(const struct psym_elf *f)
{
	return f->go_build_id[0] ? f->go_build_id : NULL;
}

size_t psym_elf_loads(const struct psym_elf *f, const struct psym_elf_load **loads)
{
	*loads = f->loads;
	return f->nloads;
}

/* File offset -> vaddr through the PT_LOADs that hold file contents. */
static int offset_to_vaddr(const struct psym_elf_load *loads, size_t n, uint64_t fo,
			   uint64_t *vaddr)
{
	for (size_t i = 0; i < n; i++) {
		const struct psym_elf_load *l = &loads[i];

		if (l->filesz == 0 || fo < l->offset || fo - l->offset >= l->filesz)
			continue;
		*vaddr = fo - l->offset + l->vaddr;
		return 0;
	}
	return PSYM_NOENT;
}

/*
 * A debug-only file whose recovered layout holds no such offset: the
 * mapping is taken to be the one executable segment from its first page
 * on (what a profile's executable mapping is), when there is exactly one.
 */
static int debug_only_fallback(const struct psym_elf *f, uint64_t start, uint64_t addr,
			       uint64_t *vaddr)
{
	const struct psym_elf_load *x = NULL;
	uint64_t page, v;

	for (size_t i = 0; i < f->nloads; i++) {
		if (!(f->loads[i].flags & PF_X) || !f->loads[i].memsz)
			continue;
		if (x)
			return PSYM_NOENT; /* which one is unknown */
		x = &f->loads[i];
	}
	if (!x)
		return PSYM_NOENT;
	/* The kernel maps a segment from the (4 KiB) page holding its start. */
	page = x->vaddr & ~(uint64_t)0xfff;
	if (__builtin_add_overflow(page, addr - start, &v) || v < x->vaddr ||
	    v - x->vaddr >= x->memsz)
		return PSYM_NOENT;
	*vaddr = v;
	return 0;
}

int psym_elf_normalize(const struct psym_elf *f, uint64_t start, uint64_t limit, uint64_t offset,
		       uint64_t addr, uint64_t *vaddr)
{
	uint64_t fo;

	if (start == 0 && limit == 0) {
		/* No mapping geometry: only a fixed-address file can be used. */
		if (f->eh.e_type != ET_EXEC)
			return PSYM_NOENT;
		*vaddr = addr;
		return 0;
	}
	if (addr < start || (limit && addr >= limit) || addr - start > UINT64_MAX - offset)
		return PSYM_NOENT;
	fo = addr - start + offset;
	if (!f->debug_only)
		return offset_to_vaddr(f->loads, f->nloads, fo, vaddr);
	if (offset_to_vaddr(f->norm, f->nnorm, offset, vaddr) == 0)
		return offset_to_vaddr(f->norm, f->nnorm, fo, vaddr);
	return debug_only_fallback(f, start, addr, vaddr);
}

bool psym_elf_is_debug_only(const struct psym_elf *f)
{
	return f->debug_only;
}

/* ---- sections -------------------------------------------------------------- */

Elf_Scn *psym_elf_find_section(const struct psym_elf *f, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	if (!f->shstrndx)
		return NULL;
	while ((scn = elf_nextscn(f->elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(f->elf, f->shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

int psym_elf_section(const struct psym_elf *f, const char *name, const void **data, size_t *len)
{
	GElf_Shdr sh;
	Elf_Scn *scn = psym_elf_find_section(f, name, &sh);
	Elf_Data *d;

	if (!scn || sh.sh_type == SHT_NOBITS)
		return PSYM_NOENT;
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf)
		return PSYM_NOENT;
	*data = d->d_buf;
	*len = d->d_size;
	return 0;
}

size_t psym_elf_nsections(const struct psym_elf *f)
{
	return f->nsections;
}

int psym_elf_scn(const struct psym_elf *f, size_t i, struct psym_elf_scn *out)
{
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf_Data *d;
	const char *name;

	if (i == 0 || i >= f->nsections || !f->shstrndx)
		return PSYM_NOENT;
	scn = elf_getscn(f->elf, i);
	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
		return PSYM_NOENT;
	name = elf_strptr(f->elf, f->shstrndx, sh.sh_name);
	if (!name)
		return PSYM_NOENT;
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size)
		return PSYM_NOENT;
	*out = (struct psym_elf_scn){ .name = name,
				      .data = d->d_buf,
				      .len = d->d_size,
				      .compressed = (sh.sh_flags & SHF_COMPRESSED) != 0,
				      .addr = f->secaddr ? f->secaddr[i] : sh.sh_addr };
	return 0;
}

bool psym_elf_is_rel(const struct psym_elf *f)
{
	return f->secaddr != NULL;
}

void *psym_elf_libelf(const struct psym_elf *f)
{
	return f->elf;
}

uint64_t psym_elf_scn_addr(const struct psym_elf *f, size_t i)
{
	Elf_Scn *scn;
	GElf_Shdr sh;

	if (i == 0 || i >= f->nsections)
		return 0;
	if (f->secaddr)
		return f->secaddr[i];
	scn = elf_getscn(f->elf, i);
	return scn && gelf_getshdr(scn, &sh) ? sh.sh_addr : 0;
}

int psym_elf_place(struct psym_elf *f, const char *name, uint64_t addr)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (!f->secaddr || f->syms_loaded || f->syms_peeked)
		return PSYM_NOENT;
	scn = psym_elf_find_section(f, name, &sh);
	if (!scn || !(sh.sh_flags & SHF_ALLOC))
		return PSYM_NOENT;
	f->secaddr[elf_ndxscn(scn)] = addr;
	return 0;
}

int psym_elf_section_addr(const struct psym_elf *f, const char *name, uint64_t off, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (name) {
		scn = psym_elf_find_section(f, name, &sh);
		if (!scn || !(sh.sh_flags & SHF_ALLOC))
			return PSYM_NOENT;
	} else {
		/* As llvm-symbolizer: the first code section that is long enough. */
		while ((scn = elf_nextscn(f->elf, scn))) {
			if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
			    (sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS &&
			    off < sh.sh_size)
				break;
		}
		if (!scn)
			return PSYM_NOENT;
	}
	*addr = psym_elf_scn_addr(f, elf_ndxscn(scn)) + off;
	return 0;
}

bool psym_elf_is_64(const struct psym_elf *f)
{
	return f->eh.e_ident[EI_CLASS] == ELFCLASS64;
}

bool psym_elf_is_msb(const struct psym_elf *f)
{
	return f->eh.e_ident[EI_DATA] == ELFDATA2MSB;
}

uint16_t psym_elf_machine(const struct psym_elf *f)
{
	return f->eh.e_machine;
}

bool psym_elf_is_mapped(const struct psym_elf *f)
{
	return f->map != NULL;
}

bool psym_elf_has_dwarf(const struct psym_elf *f)
{
	GElf_Shdr sh;
	static const char *const names[] = { ".debug_info", ".zdebug_info", ".debug_line",
					     ".zdebug_line" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		Elf_Scn *scn = psym_elf_find_section(f, names[i], &sh);

		if (scn && sh.sh_type != SHT_NOBITS && sh.sh_size > 0)
			return true;
	}
	return false;
}

int psym_elf_debuglink(const struct psym_elf *f, const char **name, uint32_t *crc)
{
	const void *data;
	size_t len, n;
	const char *s;

	if (psym_elf_section(f, ".gnu_debuglink", &data, &len) != 0)
		return PSYM_NOENT;
	s = data;
	n = strnlen(s, len);
	/* Name, NUL, padding to 4, then the CRC32. */
	if (n == 0 || n == len || ((n + 4) & ~(size_t)3) + 4 > len)
		return PSYM_NOENT;
	memcpy(crc, s + ((n + 4) & ~(size_t)3), 4);
	if ((f->eh.e_ident[EI_DATA] == ELFDATA2MSB) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		*crc = __builtin_bswap32(*crc);
	*name = s;
	return 0;
}

int psym_elf_open_minidebuginfo(const struct psym_elf *f, struct psym_elf **out, struct psym_err *e)
{
	const void *data;
	unsigned char *img;
	size_t len, imglen;
	char name[512];
	int ret;

	if (psym_elf_section(f, ".gnu_debugdata", &data, &len) != 0)
		return PSYM_NOENT;
	snprintf(name, sizeof(name), "%s[.gnu_debugdata]", f->path);
	ret = psym_unxz(data, len, MAX_MINIDEBUGINFO, name, &img, &imglen, e);
	if (ret)
		return ret;
	return psym_elf_open_mem(img, imglen, true, name, &f->lim, out, e);
}

/* The lowest PT_LOAD address of f; false when it has none. */
static bool lowest_load(const struct psym_elf *f, uint64_t *vaddr)
{
	if (!f->nloads)
		return false;
	*vaddr = f->loads[0].vaddr;
	for (size_t i = 1; i < f->nloads; i++)
		if (f->loads[i].vaddr < *vaddr)
			*vaddr = f->loads[i].vaddr;
	return true;
}

/*
 * How far src's addresses sit from f's (prelinked binaries: the debug file
 * keeps the addresses before prelinking): the difference of the first
 * executable section both have by name; when either file has no section
 * headers (a prelinked binary stripped of them), the difference of their
 * lowest PT_LOAD addresses, as elfutils syncs the two. 0 when they agree
 * or cannot tell.
 */
uint64_t psym_elf_bias_from(const struct psym_elf *f, const struct psym_elf *src)
{
	Elf_Scn *scn = NULL;
	uint64_t fv, sv;

	if (f == src || f->secaddr || src->secaddr)
		return 0;
	if (!f->nsections || !f->shstrndx || !src->nsections || !src->shstrndx)
		return lowest_load(f, &fv) && lowest_load(src, &sv) ? fv - sv : 0;
	while ((scn = elf_nextscn(src->elf, scn))) {
		GElf_Shdr sh, fsh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_addr)
			continue;
		name = elf_strptr(src->elf, src->shstrndx, sh.sh_name);
		if (!name || !psym_elf_find_section(f, name, &fsh) || !fsh.sh_addr)
			continue;
		return fsh.sh_addr - sh.sh_addr;
	}
	return 0;
}
