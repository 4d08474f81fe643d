/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "elfreloc.h"
#include "bytes.h"

bool psym_elf_has_relocs(const struct psym_elf *f, size_t shndx)
{
	Elf *elf = psym_elf_libelf(f);
	Elf_Scn *scn = NULL;

	if (!psym_elf_is_rel(f))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) &&
		    sh.sh_info == shndx && sh.sh_size)
			return true;
	}
	return false;
}

/* What one relocation type does: its width in bytes, and S+A or S+A-P. */
struct rtype {
	unsigned width;	 /* 0: leave the field alone */
	bool pcrel, tls; /* tls: the symbol's value without its section's address */
};

static struct rtype rtype_of(unsigned machine, uint32_t type)
{
	switch (machine) {
	case EM_X86_64:
		switch (type) {
		case R_X86_64_64: return (struct rtype){ 8, false, false };
		case R_X86_64_32:
		case R_X86_64_32S: return (struct rtype){ 4, false, false };
		case R_X86_64_PC32: return (struct rtype){ 4, true, false };
		case R_X86_64_PC64: return (struct rtype){ 8, true, false };
		case R_X86_64_DTPOFF32: return (struct rtype){ 4, false, true };
		case R_X86_64_DTPOFF64: return (struct rtype){ 8, false, true };
		}
		break;
	case EM_386:
		switch (type) {
		case R_386_32: return (struct rtype){ 4, false, false };
		case R_386_PC32: return (struct rtype){ 4, true, false };
		case R_386_TLS_LDO_32: return (struct rtype){ 4, false, true };
		}
		break;
	case EM_AARCH64:
		switch (type) {
		case R_AARCH64_ABS64: return (struct rtype){ 8, false, false };
		case R_AARCH64_ABS32: return (struct rtype){ 4, false, false };
		case R_AARCH64_ABS16: return (struct rtype){ 2, false, false };
		case R_AARCH64_PREL64: return (struct rtype){ 8, true, false };
		case R_AARCH64_PREL32: return (struct rtype){ 4, true, false };
		case R_AARCH64_PREL16: return (struct rtype){ 2, true, false };
		case R_AARCH64_TLS_DTPREL: return (struct rtype){ 8, false, true };
		}
		break;
	}
	return (struct rtype){ 0, false, false };
}

/* One relocation section's context: its symbol table and where symbols lie. */
struct relsec {
	const struct psym_elf *f;
	Elf_Data *syms, *xndx;
	size_t nsyms, nsections;
	const char *name, *target;
};

static int sym_value(const struct relsec *rs, uint32_t idx, bool tls, uint64_t *v)
{
	GElf_Sym s;
	Elf32_Word x = 0;
	size_t shndx;

	if (idx == 0) {
		*v = 0;
		return 0;
	}
	if (idx >= rs->nsyms || !gelf_getsymshndx(rs->syms, rs->xndx, (int)idx, &s, &x))
		return PSYM_EBADELF;
	shndx = s.st_shndx == SHN_XINDEX ? x : s.st_shndx;
	*v = s.st_value;
	if (tls || s.st_shndx == SHN_ABS || s.st_shndx == SHN_COMMON)
		return 0;
	if (shndx == SHN_UNDEF) {
		*v = 0; /* a linker would complain; the field keeps its addend */
		return 0;
	}
	if (shndx >= rs->nsections)
		return PSYM_EBADELF;
	*v += psym_elf_scn_addr(rs->f, shndx);
	return 0;
}

static int apply_section(const struct psym_elf *f, Elf_Scn *rscn, const GElf_Shdr *rsh,
			 size_t shndx, uint8_t *buf, size_t len, struct psym_err *e)
{
	Elf *elf = psym_elf_libelf(f);
	GElf_Ehdr eh;
	struct relsec rs = { .f = f, .nsections = psym_elf_nsections(f) };
	bool rela = rsh->sh_type == SHT_RELA, msb = psym_elf_is_msb(f);
	size_t shstr = 0, n, ent;
	Elf_Scn *symscn, *scn = NULL;
	GElf_Shdr ssh;
	Elf_Data *d;
	uint64_t base = psym_elf_scn_addr(f, shndx);

	if (!gelf_getehdr(elf, &eh))
		return psym_err_set(e, PSYM_EBADELF, "'%s': bad ELF header", psym_elf_path(f));
	if (elf_getshdrstrndx(elf, &shstr) == 0) {
		GElf_Shdr tsh;
		Elf_Scn *t = elf_getscn(elf, shndx);

		rs.name = elf_strptr(elf, shstr, rsh->sh_name);
		if (t && gelf_getshdr(t, &tsh))
			rs.target = elf_strptr(elf, shstr, tsh.sh_name);
	}
	if (!rs.name)
		rs.name = "?";
	if (!rs.target)
		rs.target = "?";
	ent = gelf_fsize(elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	if (!ent || rsh->sh_entsize != ent || (rsh->sh_flags & SHF_COMPRESSED))
		return psym_err_set(e, PSYM_EBADELF,
				    "'%s': relocation section %s has a bad entry size (%llu) or is "
				    "compressed",
				    psym_elf_path(f), rs.name, (unsigned long long)rsh->sh_entsize);
	symscn = elf_getscn(elf, rsh->sh_link);
	if (!symscn || !gelf_getshdr(symscn, &ssh) || ssh.sh_type != SHT_SYMTAB ||
	    !ssh.sh_entsize || !(rs.syms = elf_getdata(symscn, NULL)))
		return psym_err_set(e, PSYM_EBADELF,
				    "'%s': relocation section %s names no symbol table",
				    psym_elf_path(f), rs.name);
	rs.nsyms = rs.syms->d_size / ssh.sh_entsize;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr xsh;

		if (gelf_getshdr(scn, &xsh) && xsh.sh_type == SHT_SYMTAB_SHNDX &&
		    xsh.sh_link == rsh->sh_link) {
			rs.xndx = elf_getdata(scn, NULL);
			break;
		}
	}
	d = elf_getdata(rscn, NULL);
	if (!d)
		return psym_err_set(e, PSYM_EBADELF, "'%s': cannot read relocation section %s",
				    psym_elf_path(f), rs.name);
	n = d->d_size / ent;
	/* Every relocation writes at least two bytes of its own. */
	if (n > len / 2 + 1)
		return psym_err_set(e, PSYM_EBADELF,
				    "'%s': relocation section %s has %zu entries for the %zu bytes "
				    "of %s",
				    psym_elf_path(f), rs.name, n, len, rs.target);
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r = { 0 };
		struct rtype t;
		uint64_t s, v;

		if (rela) {
			if (!gelf_getrela(d, (int)i, &r))
				goto bad;
		} else {
			GElf_Rel rl;

			if (!gelf_getrel(d, (int)i, &rl))
				goto bad;
			r.r_offset = rl.r_offset;
			r.r_info = rl.r_info;
		}
		t = rtype_of(eh.e_machine, (uint32_t)GELF_R_TYPE(r.r_info));
		if (!t.width)
			continue;
		if (r.r_offset > len || len - r.r_offset < t.width)
			return psym_err_set(
				e, PSYM_EBADELF,
				"'%s': relocation %zu of %s is outside %s (offset 0x%llx, %zu bytes)",
				psym_elf_path(f), i, rs.name, rs.target,
				(unsigned long long)r.r_offset, len);
		if (sym_value(&rs, (uint32_t)GELF_R_SYM(r.r_info), t.tls, &s))
			return psym_err_set(
				e, PSYM_EBADELF,
				"'%s': relocation %zu of %s names a bad symbol (%llu of "
				"%zu)",
				psym_elf_path(f), i, rs.name,
				(unsigned long long)GELF_R_SYM(r.r_info), rs.nsyms);
		if (!rela) /* SHT_REL: the addend is the field's contents */
			r.r_addend = (int64_t)psym_get_uint(buf + r.r_offset, t.width, msb);
		v = s + (uint64_t)r.r_addend;
		if (t.pcrel)
			v -= base + r.r_offset;
		psym_put_uint(buf + r.r_offset, t.width, msb, v);
	}
	return 0;
bad:
	return psym_err_set(e, PSYM_EBADELF, "'%s': cannot read relocation section %s",
			    psym_elf_path(f), rs.name);
}

int psym_elf_relocate(const struct psym_elf *f, size_t shndx, uint8_t *buf, size_t len,
		      struct psym_err *e)
{
	Elf *elf = psym_elf_libelf(f);
	Elf_Scn *scn = NULL;
	int ret;

	if (!psym_elf_is_rel(f))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) ||
		    sh.sh_info != shndx || !sh.sh_size)
			continue;
		ret = apply_section(f, scn, &sh, shndx, buf, len, e);
		if (ret)
			return ret;
	}
	return 0;
}
