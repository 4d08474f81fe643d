/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena.h"
#include "compress.h"
#include "elffile.h"
#include "fileio.h"

#define DEFAULT_MAX_SECTIONS 65536
#define DEFAULT_MAX_SYMBOLS ((size_t)16 << 20)
#define MAX_MINIDEBUGINFO ((size_t)512 << 20)
/* How far back a lookup walks for an enclosing (larger) symbol. */
#define ENCLOSING_SCAN 64

struct sym {
	uint64_t addr, size, end;
	const char *file;    /* STT_FILE in force for a local symbol, or NULL */
	const char *name;    /* display name (version suffix removed) */
	const char *linkage; /* raw name (version suffix removed), for system_name */
	uint8_t rank;	     /* lower is better among aliases */
	uint32_t order;	     /* position in the symbol table(s) */
};

struct psym_elf {
	char *path;
	int fd;
	Elf *elf;
	void *mem; /* owned image (open_mem with ownership) */
	GElf_Ehdr eh;
	size_t shstrndx;
	size_t nsections;
	struct psym_elf_limits lim;
	char build_id[PSYM_BUILD_ID_HEX_MAX];
	bool has_build_id;
	struct psym_elf_load *loads;
	size_t nloads;
	/* A debug-only file: the binary's PT_LOADs as recovered (norm_layout). */
	bool debug_only;
	struct psym_elf_load *norm;
	size_t nnorm;
	/* Symbol table: built lazily, then sorted and deduplicated. */
	struct sym *syms;
	size_t nsyms, capsyms;
	bool syms_ready, syms_loaded;
	char sym_err[1024]; /* why the symbol table was dropped, "" if it was not */
	struct psym_arena strings;
	struct psym_elf **children; /* adopted ELFs whose strings we borrow */
	size_t nchildren;
};

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
	f->fd = -1;
	f->path = strdup(name);
	if (!f->path) {
		free(f);
		return NULL;
	}
	f->lim.max_sections = lim && lim->max_sections ? lim->max_sections : DEFAULT_MAX_SECTIONS;
	f->lim.max_symbols = lim && lim->max_symbols ? lim->max_symbols : DEFAULT_MAX_SYMBOLS;
	psym_arena_init(&f->strings, (size_t)1 << 30);
	return f;
}

int psym_elf_open(const char *path, const struct psym_elf_limits *lim, struct psym_elf **out,
		  struct psym_err *e)
{
	struct psym_elf *f;
	int ret;

	elf_version(EV_CURRENT);
	f = elf_new(path, lim);
	if (!f)
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	f->fd = psym_open_regular(path, e);
	if (f->fd < 0) {
		ret = f->fd;
		f->fd = -1;
		goto fail;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf) {
		ret = psym_err_set(e, PSYM_EBADELF, "'%s': not an ELF file", path);
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

int psym_elf_open_mem(void *buf, size_t len, bool take_ownership, const char *name,
		      const struct psym_elf_limits *lim, struct psym_elf **out, struct psym_err *e)
{
	struct psym_elf *f;
	int ret;

	elf_version(EV_CURRENT);
	f = elf_new(name, lim);
	if (!f) {
		if (take_ownership)
			free(buf);
		return psym_err_set(e, PSYM_ENOMEM, "out of memory");
	}
	if (take_ownership)
		f->mem = buf;
	f->elf = elf_memory(buf, len);
	if (!f->elf) {
		ret = psym_err_set(e, PSYM_EBADELF, "'%s': not an ELF image", name);
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

void psym_elf_close(struct psym_elf *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nchildren; i++)
		psym_elf_close(f->children[i]);
	free(f->children);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->mem);
	free(f->loads);
	free(f->norm);
	free(f->syms);
	psym_arena_free(&f->strings);
	free(f->path);
	free(f);
}

const char *psym_elf_path(const struct psym_elf *f)
{
	return f->path;
}

const char *psym_elf_build_id(const struct psym_elf *f)
{
	return f->has_build_id ? f->build_id : NULL;
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

static Elf_Scn *find_section(const struct psym_elf *f, const char *name, GElf_Shdr *sh)
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
	Elf_Scn *scn = find_section(f, name, &sh);
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
				      .compressed = (sh.sh_flags & SHF_COMPRESSED) != 0 };
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

bool psym_elf_is_mapped(const struct psym_elf *f)
{
	return f->fd >= 0 && !f->mem;
}

bool psym_elf_has_dwarf(const struct psym_elf *f)
{
	GElf_Shdr sh;
	static const char *const names[] = { ".debug_info", ".zdebug_info", ".debug_line",
					     ".zdebug_line" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		Elf_Scn *scn = find_section(f, names[i], &sh);

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

/* ---- symbols ---------------------------------------------------------------- */

static int push_sym(struct psym_elf *f, const struct sym *s, struct psym_err *e)
{
	if (f->nsyms >= f->lim.max_symbols)
		return psym_err_set(e, PSYM_ELIMIT,
				    "'%s': more than %zu symbols (--limit elf-symbols=N)", f->path,
				    f->lim.max_symbols);
	if (f->nsyms == f->capsyms) {
		size_t ncap = f->capsyms ? f->capsyms * 2 : 1024;
		struct sym *ns = realloc(f->syms, ncap * sizeof(*ns));

		if (!ns)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		f->syms = ns;
		f->capsyms = ncap;
	}
	f->syms[f->nsyms++] = *s;
	return 0;
}

/* "name@VER" / "name@@VER" -> "name" (copied into the string arena). */
static const char *strip_version(struct psym_elf *f, const char *raw, bool *versioned)
{
	const char *at = strchr(raw, '@');

	*versioned = at != NULL;
	if (!at || at == raw)
		return raw;
	return psym_arena_strndup(&f->strings, raw, (size_t)(at - raw));
}

/* Read one SHT_SYMTAB/SHT_DYNSYM section of src into f's table. */
static int read_symtab(struct psym_elf *f, struct psym_elf *src, Elf_Scn *scn, const GElf_Shdr *sh,
		       struct psym_err *e)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n;
	int ret;

	const char *file = NULL;

	if (!d || sh->sh_entsize == 0)
		return 0;
	n = d->d_size / (sh->sh_entsize ? sh->sh_entsize : 1);
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		const char *raw, *name;
		int type, bind;
		bool exec = false, versioned;
		struct sym out;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		bind = GELF_ST_BIND(s.st_info);
		if (type == STT_FILE) {
			/* The source file of the local symbols that follow. */
			file = elf_strptr(src->elf, sh->sh_link, s.st_name);
			if (file && !*file)
				file = NULL;
			continue;
		}
		if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS || s.st_value == 0)
			continue;
		if (s.st_shndx < SHN_LORESERVE) {
			Elf_Scn *tscn = elf_getscn(src->elf, s.st_shndx);
			GElf_Shdr tsh;

			if (tscn && gelf_getshdr(tscn, &tsh))
				exec = (tsh.sh_flags & SHF_EXECINSTR) != 0;
		}
		if (!(type == STT_FUNC || type == STT_GNU_IFUNC ||
		      (type == STT_NOTYPE && s.st_size > 0 && exec)))
			continue;
		raw = elf_strptr(src->elf, sh->sh_link, s.st_name);
		if (!raw || !*raw)
			continue; /* name outside the string table */
		name = strip_version(f, raw, &versioned);
		if (!name)
			return psym_err_set(e, psym_arena_error(&f->strings), "out of memory");
		out.addr = s.st_value;
		out.size = s.st_size;
		out.end = 0;
		out.file = bind == STB_LOCAL ? file : NULL;
		out.name = name;
		out.linkage = name;
		/* Prefer global, then weak, then local; unversioned; FUNC over NOTYPE. */
		out.rank = (uint8_t)((bind == STB_GLOBAL ? 0
				      : bind == STB_WEAK ? 4
							 : 8) +
				     (versioned ? 2 : 0) + (type == STT_NOTYPE ? 1 : 0));
		out.order = (uint32_t)f->nsyms;
		ret = push_sym(f, &out, e);
		if (ret)
			return ret;
	}
	return 0;
}

/* Synthesize name@plt from .rela.plt (x86-64 and AArch64 layouts). */
static int read_plt(struct psym_elf *f, struct psym_err *e)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rscn, *pscn, *dscn;
	Elf_Data *rd, *dd;
	uint64_t base, step = 16;
	bool sec;
	size_t n;
	int ret;

	if (f->eh.e_machine != EM_X86_64 && f->eh.e_machine != EM_AARCH64)
		return 0;
	rscn = find_section(f, ".rela.plt", &rsh);
	if (!rscn || rsh.sh_type != SHT_RELA || rsh.sh_entsize == 0)
		return 0;
	pscn = find_section(f, ".plt.sec", &psh);
	sec = pscn != NULL;
	if (!pscn)
		pscn = find_section(f, ".plt", &psh);
	if (!pscn)
		return 0;
	dscn = elf_getscn(f->elf, rsh.sh_link);
	if (!dscn || !gelf_getshdr(dscn, &dsh) || dsh.sh_type != SHT_DYNSYM)
		return 0;
	rd = elf_getdata(rscn, NULL);
	dd = elf_getdata(dscn, NULL);
	if (!rd || !dd)
		return 0;
	/* Header: 16 bytes on x86-64, 32 on AArch64; none in .plt.sec. */
	base = psh.sh_addr + (sec ? 0 : f->eh.e_machine == EM_X86_64 ? 16 : 32);
	n = rd->d_size / rsh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const char *raw;
		char *name;
		struct sym out;
		bool versioned;

		if (!gelf_getrela(rd, (int)i, &r))
			break;
		if (GELF_R_SYM(r.r_info) == 0 || !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &s))
			continue;
		raw = elf_strptr(f->elf, dsh.sh_link, s.st_name);
		if (!raw || !*raw)
			continue;
		raw = strip_version(f, raw, &versioned);
		name = raw ? psym_arena_printf(&f->strings, "%s@plt", raw) : NULL;
		if (!name)
			return psym_err_set(e, PSYM_ENOMEM, "out of memory");
		if (i * step > psh.sh_size)
			break;
		out = (struct sym){ .addr = base + i * step,
				    .size = step,
				    .name = name,
				    .linkage = name,
				    .rank = 16,
				    .order = (uint32_t)f->nsyms };
		ret = push_sym(f, &out, e);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_symbols_of(struct psym_elf *f, struct psym_elf *src, struct psym_err *e)
{
	Elf_Scn *scn = NULL;
	int ret;

	while ((scn = elf_nextscn(src->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		ret = read_symtab(f, src, scn, &sh, e);
		if (ret)
			return ret;
	}
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	int c;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	/*
	 * Bigger size first among equals, then the alias that comes last in
	 * the symbol table (as llvm-symbolizer keeps), then by name.
	 */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->order != y->order)
		return x->order > y->order ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c;
}

/*
 * Ends of zero-size symbols. Such a symbol runs to the next symbol, but not
 * past the end of the allocated section holding it (the first such section
 * in section-table order when sections overlap, as .tbss does). One sweep
 * over the sorted symbols, with the sections sorted by start and a min-heap
 * by section index of those started: O((symbols + sections) log sections),
 * where a scan of the section table per symbol was quadratic on a file with
 * many sections and zero-size symbols.
 */
struct secrange {
	uint64_t start, end; /* end saturates at UINT64_MAX */
	size_t idx;
};

static int cmp_secrange(const void *a, const void *b)
{
	const struct secrange *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void heap_push(struct secrange *h, size_t *n, const struct secrange *v)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2].idx > v->idx) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = *v;
}

static void heap_pop(struct secrange *h, size_t *n)
{
	struct secrange last = h[--*n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].idx < h[c].idx)
			c++;
		if (h[c].idx >= last.idx)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
}

/*
 * Allocated, non-empty sections, sorted by start, in *out (caller frees).
 * Returns how many, or 0 (with *out NULL) when there are none or no memory.
 */
static size_t alloc_sections(const struct psym_elf *f, struct secrange **out)
{
	struct secrange *r = NULL;
	Elf_Scn *scn = NULL;
	size_t n = 0, cap = f->nsections;

	*out = NULL;
	if (!cap || !(r = malloc(cap * sizeof(*r))))
		return 0;
	while ((scn = elf_nextscn(f->elf, scn)) && n < cap) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		r[n].start = sh.sh_addr;
		r[n].end =
			sh.sh_addr + sh.sh_size < sh.sh_addr ? UINT64_MAX : sh.sh_addr + sh.sh_size;
		r[n].idx = elf_ndxscn(scn);
		n++;
	}
	if (!n) {
		free(r);
		return 0;
	}
	qsort(r, n, sizeof(*r), cmp_secrange);
	*out = r;
	return n;
}

static void finish_symbols(struct psym_elf *f)
{
	struct secrange *secs = NULL, *heap = NULL;
	size_t w = 0, nsecs, next = 0, nheap = 0;

	if (f->nsyms)
		qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_sym);
	/* One entry per address: the best alias, with the largest size seen. */
	for (size_t r = 0; r < f->nsyms; r++) {
		if (w && f->syms[w - 1].addr == f->syms[r].addr) {
			if (f->syms[r].size > f->syms[w - 1].size && f->syms[w - 1].size == 0)
				f->syms[w - 1].size = f->syms[r].size;
			continue;
		}
		f->syms[w++] = f->syms[r];
	}
	f->nsyms = w;
	/* Out of memory for the section list: zero-size symbols end at the next. */
	nsecs = f->nsyms ? alloc_sections(f, &secs) : 0;
	if (nsecs && !(heap = malloc(nsecs * sizeof(*heap))))
		nsecs = 0;
	for (size_t i = 0; i < f->nsyms; i++) {
		struct sym *s = &f->syms[i];
		uint64_t nextaddr, send = UINT64_MAX;

		if (s->size) {
			s->end = s->addr + s->size < s->addr ? UINT64_MAX : s->addr + s->size;
			continue;
		}
		nextaddr = i + 1 < f->nsyms ? f->syms[i + 1].addr : UINT64_MAX;
		/* Symbols come by address: sections once started stay in the heap. */
		while (next < nsecs && secs[next].start <= s->addr)
			heap_push(heap, &nheap, &secs[next++]);
		/* Sections that ended can never hold a later symbol. */
		while (nheap && heap[0].end <= s->addr)
			heap_pop(heap, &nheap);
		if (nheap)
			send = heap[0].end;
		s->end = nextaddr < send ? nextaddr : send;
	}
	free(secs);
	free(heap);
	f->syms_ready = true;
}

static int load_symbols(struct psym_elf *f, struct psym_err *e)
{
	struct psym_err le = { 0 };
	int ret;

	if (f->syms_loaded)
		return 0;
	f->syms_loaded = true;
	ret = read_symbols_of(f, f, &le);
	if (!ret)
		ret = read_plt(f, &le);
	if (ret) {
		/* A partial table would name addresses wrongly: none at all. */
		f->nsyms = 0;
		snprintf(f->sym_err, sizeof(f->sym_err), "%s", le.msg);
		if (e)
			*e = le;
	}
	finish_symbols(f);
	return ret;
}

const char *psym_elf_symbols_error(struct psym_elf *f)
{
	load_symbols(f, NULL);
	return f->sym_err[0] ? f->sym_err : NULL;
}

int psym_elf_add_symbols(struct psym_elf *f, struct psym_elf *src, struct psym_err *e)
{
	int ret = load_symbols(f, e);

	if (ret)
		return ret;
	ret = read_symbols_of(f, src, e);
	finish_symbols(f);
	return ret;
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

int psym_elf_lookup(struct psym_elf *f, uint64_t vaddr, struct psym_frame *frame)
{
	size_t lo = 0, hi;

	load_symbols(f, NULL);
	hi = f->nsyms;
	/* Last symbol starting at or before vaddr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < ENCLOSING_SCAN && lo > k; k++) {
		const struct sym *s = &f->syms[lo - 1 - k];

		if (vaddr < s->end) {
			memset(frame, 0, sizeof(*frame));
			frame->name = s->name;
			frame->linkage_name = s->linkage;
			frame->file = s->file;
			return 0;
		}
		if (s->size == 0 && k == 0)
			break; /* a zero-size symbol ends where the next starts */
	}
	return PSYM_NOENT;
}

int psym_elf_find_symbol(struct psym_elf *f, const char *name, uint64_t *addr)
{
	Elf_Scn *scn = NULL;

	load_symbols(f, NULL);
	for (size_t i = 0; i < f->nsyms; i++) {
		if (strcmp(f->syms[i].name, name) == 0) {
			*addr = f->syms[i].addr;
			return 0;
		}
	}
	/*
	 * Not a function, or an alias that lost to a better name at its
	 * address (vmlinux's _text): scan the raw tables, bounded by the cap.
	 */
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		n = d->d_size / sh.sh_entsize;
		for (size_t i = 1; i < n && i < f->lim.max_symbols; i++) {
			GElf_Sym s;
			const char *nm;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			nm = elf_strptr(f->elf, sh.sh_link, s.st_name);
			if (nm && strcmp(nm, name) == 0) {
				*addr = s.st_value;
				return 0;
			}
		}
	}
	return PSYM_NOENT;
}
