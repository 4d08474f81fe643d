#!/bin/sh
# No circles among the source files (issue 37): scripts/check-cycles on the
# tree and its objects finds none beyond tests/cycles-known, at the include
# level and at the call level (nm on the objects). On a small tree of its
# own it must find a call circle two files make, an include circle through
# a header without a .c file, and a known circle that is gone.
. "$top_srcdir/tests/lib.sh"
need python3
need nm
need gcc
CC_=$top_srcdir/scripts/check-cycles

"$CC_" --known "$top_srcdir/tests/cycles-known" "$top_srcdir" "$top_builddir" >tree.out 2>&1
rc=$?
check "the tree has no circle beyond the known ones (exit $rc)" [ $rc = 0 ]
grep -v '^known: ' tree.out | head -20

# A small tree: a.c calls b.c, b.c calls a.c (and includes each other's header).
mkdir -p t/src/x b/src/x
printf 'int b(int);\n' >t/src/x/b.h
printf 'int a(int);\n' >t/src/x/a.h
printf '#include "b.h"\nint a(int x) { return x ? b(x - 1) : 0; }\n' >t/src/x/a.c
printf '#include "a.h"\nint b(int x) { return x ? a(x - 1) : 1; }\n' >t/src/x/b.c
gcc -c t/src/x/a.c -o b/src/x/a.o && gcc -c t/src/x/b.c -o b/src/x/b.o
"$CC_" "$PWD/t" "$PWD/b" >two.out 2>&1
check "two files calling each other fail (exit $?)" [ $? = 1 ]
check "... a call circle naming both" grep -q "call circle of 2 files: src/x/a -> src/x/b; src/x/b -> src/x/a" two.out
check "... and an include circle" grep -q "include circle of 2 files" two.out
# Known: listed, it passes; listed and gone, it fails.
printf 'call src/x/a src/x/b\ninclude src/x/b src/x/a\n' >known
"$CC_" --known known "$PWD/t" "$PWD/b" >k.out 2>&1
check "a known circle does not fail (exit $?)" [ $? = 0 ]
printf 'int b(int x) { return x; }\n' >t/src/x/b.c
gcc -c t/src/x/b.c -o b/src/x/b.o
"$CC_" --known known "$PWD/t" "$PWD/b" >gone.out 2>&1
check "a known circle that is gone fails (exit $?)" [ $? = 1 ]
check "... and says to take it off the list" grep -q "known call circle of src/x/a src/x/b is gone" gone.out
# Through a header without a .c file: c.c includes i.h, i.h includes d.h,
# d.c includes c.h.
rm -f t/src/x/a.* t/src/x/b.* b/src/x/*.o
printf '#include "d.h"\n' >t/src/x/i.h
printf 'int c(int);\n' >t/src/x/c.h
printf 'int d(int);\n' >t/src/x/d.h
printf '#include "i.h"\nint c(int x) { return x; }\n' >t/src/x/c.c
printf '#include "c.h"\nint d(int x) { return x; }\n' >t/src/x/d.c
gcc -c t/src/x/c.c -I t/src/x -o b/src/x/c.o && gcc -c t/src/x/d.c -I t/src/x -o b/src/x/d.o
"$CC_" "$PWD/t" "$PWD/b" >hdr.out 2>&1
check "an include circle through an internal header fails (exit $?)" [ $? = 1 ]
check "... naming the two .c modules" grep -q "include circle of 2 files: src/x/c -> src/x/d; src/x/d -> src/x/c" hdr.out
finish
