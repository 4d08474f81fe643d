#!/bin/sh
# psym's main keeps to the public API (issue 49): cli/ includes src/psym.h
# alone of the library's headers, names nothing psym.h does not declare,
# at most 60 distinct psym_* names, and psym.h includes no header of the
# tree. The checker must also fail on a copy of the tree that breaks each
# rule (so a check that cannot fail is caught).
. "$top_srcdir/tests/lib.sh"
CHECK=$top_srcdir/scripts/check-api

out=$("$CHECK" "$top_srcdir" 2>&1)
check "the tree keeps to the public API ($out)" [ $? = 0 ]
n=$(printf '%s\n' "$out" | sed -n 's/.*uses \([0-9]*\) psym_\* names.*/\1/p')
check "cli/ names at most 60 psym_* names ($n)" [ -n "$n" ] && [ "$n" -le 60 ]

# Fixtures: a copy of cli/ and src/psym.h, each broken one way.
fixture() {
	rm -rf fx && mkdir -p fx/src fx/cli && cp "$top_srcdir"/cli/*.[ch] fx/cli/ &&
		cp "$top_srcdir"/src/psym.h fx/src/ && mkdir -p fx/src/obj &&
		cp "$top_srcdir"/src/obj/elffile.h fx/src/obj/
}
fixture
printf '#include "elffile.h"\n' >>fx/cli/main.c
check "a library header included by cli/ fails" sh -c '! "$1" fx >fx.out 2>&1 && grep -q "includes \"elffile.h\"" fx.out' sh "$CHECK"
fixture
printf 'static void *x(void) { return psym_elf_open; }\n' >>fx/cli/main.c
check "a name psym.h does not declare fails" sh -c '! "$1" fx >fx.out 2>&1 && grep -q "psym_elf_open, which" fx.out' sh "$CHECK"
fixture
check "more names than the cap fails" sh -c '! "$1" fx 10 >fx.out 2>&1 && grep -q "at most 10" fx.out' sh "$CHECK"
fixture
sed -i '0,/#include <stdio.h>/s//#include <stdio.h>\n#include "error.h"/' fx/src/psym.h
check "psym.h including a header of the tree fails" sh -c '! "$1" fx >fx.out 2>&1 && grep -q "includes no header of the tree" fx.out' sh "$CHECK"
fixture
check "the unbroken copy passes" "$CHECK" fx
finish
