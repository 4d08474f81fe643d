/* SPDX-License-Identifier: MIT */
/*
 * How each DW_FORM is sized (DWARF 5 section 7.5.6, and the GNU forms of
 * split DWARF and dwz), for skipping values without reading them.
 */
#include "config.h"

#include "form.h"

int dw_form_class(uint32_t form)
{
	switch (form) {
	case FORM_addr: return SZ_ADDR;
	case FORM_strp:
	case FORM_sec_offset:
	case FORM_line_strp:
	case FORM_strp_sup:
	case FORM_GNU_ref_alt:
	case FORM_GNU_strp_alt: return SZ_OFF;
	case FORM_ref_addr: return SZ_REFADDR;
	case FORM_flag_present:
	case FORM_implicit_const: return 0;
	case FORM_data1:
	case FORM_flag:
	case FORM_ref1:
	case FORM_strx1:
	case FORM_addrx1: return 1;
	case FORM_data2:
	case FORM_ref2:
	case FORM_strx2:
	case FORM_addrx2: return 2;
	case FORM_strx3:
	case FORM_addrx3: return 3;
	case FORM_data4:
	case FORM_ref4:
	case FORM_ref_sup4:
	case FORM_strx4:
	case FORM_addrx4: return 4;
	case FORM_data8:
	case FORM_ref8:
	case FORM_ref_sig8:
	case FORM_ref_sup8: return 8;
	case FORM_data16: return 16;
	case FORM_sdata:
	case FORM_udata:
	case FORM_ref_udata:
	case FORM_strx:
	case FORM_addrx:
	case FORM_loclistx:
	case FORM_rnglistx:
	case FORM_GNU_addr_index:
	case FORM_GNU_str_index: return SZ_LEB;
	case FORM_string: return SZ_STR;
	default: return SZ_VAR;
	}
}
