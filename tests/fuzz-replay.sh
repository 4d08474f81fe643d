#!/bin/sh
# Replay every fuzz corpus (tests/fuzz/corpus/NAME) through its target with
# the plain driver, plus the hostile inputs in testdata/bad/. Any crash or
# sanitizer report fails the test.
. "$top_srcdir/tests/lib.sh"
for bin in "$top_builddir"/tests/fuzz/*-replay; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin" -replay)
	dirs=""
	[ -d "$top_srcdir/tests/fuzz/corpus/$name" ] && dirs="$top_srcdir/tests/fuzz/corpus/$name"
	# The hostile corpus of testdata/bad goes through the matching reader too.
	case $name in
	pprof) dirs="$dirs $top_srcdir/testdata/bad" ;;
	elf|dwarf) dirs="$dirs $(ls "$top_srcdir"/testdata/bad/elf-* "$top_srcdir"/testdata/bad/dwarf-* "$top_srcdir"/testdata/bad/reloc-*)" ;;
	ustacks) dirs="$dirs $(ls "$top_srcdir"/testdata/bad/ustacks-*)" ;;
	kmod) dirs="$dirs $(ls "$top_srcdir"/testdata/bad/kmod-* "$top_srcdir"/testdata/bad/reloc-*)" ;;
	kallsyms) dirs="$dirs $(ls "$top_srcdir"/testdata/bad/kallsyms-*)" ;;
	perfmap) dirs="$dirs $(ls "$top_srcdir"/testdata/bad/perfmap-* "$top_srcdir"/testdata/bad/jit-*)" ;;
	deb) dirs="$dirs $(ls "$top_srcdir"/testdata/bad/deb-*)" ;;
	crashlog) dirs="$dirs $(ls "$top_srcdir"/testdata/bad/crashlog-*)" ;;
	cfi) dirs="$dirs $(ls "$top_srcdir"/testdata/bad/elf-* "$top_srcdir"/testdata/bad/dwarf-*)" ;;
	manifest) dirs="$dirs $(ls "$top_srcdir"/testdata/bad/manifest-*)" ;;
	index) dirs="$dirs $(ls "$top_srcdir"/testdata/bad/index-*)" ;;
	gsym) dirs="$dirs $(ls "$top_srcdir"/testdata/bad/gsym-*)" ;;
	esac
	[ -n "$dirs" ] || { fail "$name: no corpus"; continue; }
	# shellcheck disable=SC2086
	if out=$("$bin" $dirs 2>&1); then
		pass "$name: $(echo "$out" | tail -n1)"
	else
		echo "$out" | tail -n 30
		fail "$name: replay crashed"
	fi
done
finish
