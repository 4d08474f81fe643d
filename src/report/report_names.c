/* SPDX-License-Identifier: MIT */
/*
 * Function names as pprof shows them: its symbolizer's Demangle pass,
 * run on every profile it reads, names a function from its system name
 * (obj/demangle.c's psym_demangle_as). Without force only the functions
 * whose name is empty or their system name itself are renamed (a name
 * another symbolizer wrote stays); with force (pprof's
 * -symbolize=demangle=MODE) every function with a system name is.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report_int.h"

int psym_report_demangle(struct psym_profile *p, enum psym_demangle_mode mode, bool force,
			 struct psym_err *e)
{
	pb_profile *pb = p->pb;
	size_t ns = pb->n_string_table, n = ns;
	char **st = NULL;

	for (size_t i = 0; i < pb->n_function; i++) {
		pb_function *f = pb->function[i];
		const char *name, *sys;
		char *dem;

		if (f->name < 0 || (size_t)f->name >= ns || f->system_name < 0 ||
		    (size_t)f->system_name >= ns)
			continue; /* validate() refused such a profile */
		name = pb->string_table[f->name];
		sys = pb->string_table[f->system_name];
		if (force ? !sys[0] : name[0] && strcmp(name, sys))
			continue;
		dem = psym_demangle_as(sys, mode);
		if (!dem) {
			f->name = f->system_name;
			continue;
		}
		if (!st) {
			/* Room for one new name per function after the table. */
			st = psym_arena_calloc(&p->arena, ns + pb->n_function, sizeof(*st));
			if (!st) {
				free(dem);
				return psym_err_set(e, PSYM_ENOMEM,
						    "out of memory renaming functions");
			}
			memcpy(st, pb->string_table, ns * sizeof(*st));
			pb->string_table = st;
		}
		st[n] = psym_arena_strdup(&p->arena, dem);
		free(dem);
		if (!st[n])
			return psym_err_set(e, PSYM_ENOMEM, "out of memory renaming functions");
		f->name = (int64_t)n++;
		pb->n_string_table = n;
	}
	return 0;
}
