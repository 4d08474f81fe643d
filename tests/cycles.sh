#!/bin/sh
# No circles among the source files (issue 37): scripts/check-cycles on the
# tree and its objects finds none beyond tests/cycles-known, at the include
# level and at the call level (nm on the objects). On a small tree of its
# own it must find a call circle two files make, an include circle through
# a header without a .c file, and a known circle that is gone; a circle in
# each kind of directory (src/<layer>, cli/, BPF-collector/), whose objects
# automake names differently; and it must refuse (exit 2) a tree where a
# module has no object or no program names it (issue 49: a module without
# an object was skipped in silence, so cli/ and the collector were never
# read).
. "$top_srcdir/tests/lib.sh"
need python3
need nm
need gcc
CC_=$top_srcdir/scripts/check-cycles

# fixture TREE BUILD [off]: BUILD/Makefile as automake writes it for TREE's
# .c files (src/ in libpsym.a, objects src/x/y.o; cli/ in psym, objects
# cli/psym-y.o; BPF-collector/ in psym-collect, objects
# BPF-collector/psym_collect-y.o, a program configure can turn off: "off"),
# and each object compiled under that name.
fixture() {
	local tree=$1 build=$2 on="" f d b o lib="" cli="" col="" src=""
	[ "${3:-}" = off ] && on="#"
	for f in $(cd "$tree" && find src cli BPF-collector -name '*.c' 2>/dev/null | sort); do
		d=${f%/*} b=${f##*/}
		b=${b%.c}
		case $f in
		cli/*) o=$d/psym-$b ;;
		BPF-collector/*) o=$d/psym_collect-$b ;;
		*) o=$d/$b ;;
		esac
		case $f in
		cli/*) cli="$cli $o.\$(OBJEXT)" ;;
		BPF-collector/*) col="$col $o.\$(OBJEXT)" ;;
		*) lib="$lib $o.\$(OBJEXT)" ;;
		esac
		src="$src $f"
		if [ -z "$on" ] || [ "${f#BPF-collector/}" = "$f" ]; then
			mkdir -p "$build/$d"
			gcc -c -I "$tree/$d" "$tree/$f" -o "$build/$o.o" || return 1
		fi
	done
	{
		echo "OBJEXT = o"
		echo "${on}am__EXEEXT_1 = psym-collect\$(EXEEXT)"
		echo "bin_PROGRAMS = psym\$(EXEEXT) \$(am__EXEEXT_1)"
		echo "noinst_LIBRARIES = libpsym.a"
		echo "am_libpsym_a_OBJECTS = \\"
		echo "	$lib"
		echo "libpsym_a_OBJECTS = \$(am_libpsym_a_OBJECTS)"
		echo "psym_OBJECTS =$cli"
		echo "psym_collect_OBJECTS =$col"
		echo "DIST_SOURCES =$src"
	} >"$build/Makefile"
}

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
fixture t b
"$CC_" "$PWD/t" "$PWD/b" >two.out 2>&1
check "two files calling each other fail (exit $?)" [ $? = 1 ]
check "... a call circle naming both" grep -q "call circle of 2 files: src/x/a -> src/x/b; src/x/b -> src/x/a" two.out
check "... and an include circle" grep -q "include circle of 2 files" two.out
# Known: listed, it passes; listed and gone, it fails.
printf 'call src/x/a src/x/b\ninclude src/x/b src/x/a\n' >known
"$CC_" --known known "$PWD/t" "$PWD/b" >k.out 2>&1
check "a known circle does not fail (exit $?)" [ $? = 0 ]
printf 'int b(int x) { return x; }\n' >t/src/x/b.c
fixture t b
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
fixture t b
"$CC_" "$PWD/t" "$PWD/b" >hdr.out 2>&1
check "an include circle through an internal header fails (exit $?)" [ $? = 1 ]
check "... naming the two .c modules" grep -q "include circle of 2 files: src/x/c -> src/x/d; src/x/d -> src/x/c" hdr.out

# A call circle in each kind of directory, with no include circle (each
# file declares what it calls): the checker must read every object under
# the name automake gives it.
rm -rf t b
for d in src/x cli BPF-collector; do
	mkdir -p t/$d
	p=$(echo $d | tr -c 'a-z\n' _)
	printf 'int %s_e(int);\nint %s_f(int x) { return x ? %s_e(x - 1) : 0; }\n' $p $p $p >t/$d/f.c
	printf 'int %s_f(int);\nint %s_e(int x) { return x ? %s_f(x - 1) : 1; }\n' $p $p $p >t/$d/e.c
done
fixture t b
"$CC_" "$PWD/t" "$PWD/b" >dirs.out 2>&1
check "circles in src/, cli/ and BPF-collector/ fail (exit $?)" [ $? = 1 ]
for d in src/x cli BPF-collector; do
	check "... the one in $d" grep -q "call circle of 2 files: $d/e -> $d/f; $d/f -> $d/e" dirs.out
done
check "... and no include circle" sh -c '! grep -q "include circle" dirs.out'
# The collector turned off (--disable-collector): its files are not built,
# so its circle is not read; the others still are.
rm -rf b
fixture t b off
"$CC_" "$PWD/t" "$PWD/b" >off.out 2>&1
check "without the collector, the other circles still fail (exit $?)" [ $? = 1 ]
check "... cli's" grep -q "call circle of 2 files: cli/e" off.out
check "... not the collector's (not built)" sh -c '! grep -q "BPF-collector" off.out'
# A module the Makefile builds whose object is missing: refused, not skipped.
rm -f b/cli/psym-e.o
"$CC_" "$PWD/t" "$PWD/b" >miss.out 2>&1
check "an expected object missing fails (exit $?)" [ $? = 2 ]
check "... naming the module and its object" grep -q "cli/e (no cli/psym-e.o)" miss.out
# A .c file no program names: refused too.
rm -rf b
fixture t b
printf 'int g(int x) { return x; }\n' >t/src/x/g.c
"$CC_" "$PWD/t" "$PWD/b" >stray.out 2>&1
check "a .c file no program names fails (exit $?)" [ $? = 2 ]
check "... naming it" grep -q "src/x/g.c (no program or library in the Makefile names it)" stray.out
# No Makefile: refused.
rm b/Makefile
"$CC_" "$PWD/t" "$PWD/b" >nomk.out 2>&1
check "a build without a Makefile fails (exit $?)" [ $? = 2 ]
finish
