#!/bin/sh
# Build every fuzz target with libFuzzer + ASan + UBSan (the library is
# compiled once, with coverage) and run each for FUZZ_SECONDS on a working
# copy of its seed corpus. Usage: run-libfuzzer.sh SRCDIR BUILDDIR
#
# Environment: FUZZ_CC (clang), FUZZ_SECONDS, FUZZ_TARGETS, PSYM_LIBS,
# FUZZ_OUT (work dir, default BUILDDIR/fuzz-build);
# FUZZ_BUILD_ONLY=1 only builds. Exit status 1 when a target
# found a crash (the input is kept as BUILDDIR/fuzz-build/crash-TARGET-*).
set -eu
src=$1
build=$2
cc=${FUZZ_CC:-clang}
out=${FUZZ_OUT:-$build/fuzz-build}
mkdir -p "$out/obj"
# FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION (the libFuzzer/OSS-Fuzz convention)
# lets the fuzzer past checksums it cannot forge.
flags="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION"
inc="-I$build -I$build/src"
# The layer directories: Makefile.am's PSYM_SRC_DIRS (a backslash-continued list).
for d in $(awk '/^PSYM_SRC_DIRS =/{f=1; sub(/^PSYM_SRC_DIRS =/, "")} f{c=/\\$/; gsub(/\\/, ""); print; if (!c) exit}' "$src/Makefile.am"); do
	inc="$inc -I$src/$d"
done
libsrcs=$(grep -oh 'src/[a-z_0-9/]*\.c' "$src/Makefile.am" "$src/src/modules.am" | grep -v 'main\.c' | sort -u)
objs=""
for s in $libsrcs "$build/proto/profile.pb-c.c"; do
	case $s in /*) f=$s ;; *) f=$src/$s ;; esac
	o=$out/obj/$(basename "$s" .c).o
	if [ ! -e "$o" ] || [ "$f" -nt "$o" ]; then
		# shellcheck disable=SC2086
		$cc $flags -fsanitize=fuzzer-no-link -std=gnu11 $inc -c "$f" -o "$o"
	fi
	objs="$objs $o"
done
rm -f "$out/libpsym-fuzz.a"
# shellcheck disable=SC2086
ar rcs "$out/libpsym-fuzz.a" $objs
status=0
# Leaks inside system libraries that psym cannot free are listed there.
LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0
export LSAN_OPTIONS
for t in $FUZZ_TARGETS; do
	echo "== building $t"
	# shellcheck disable=SC2086
	$cc $flags -fsanitize=fuzzer $inc "$src/tests/fuzz/$t-fuzz.c" "$out/libpsym-fuzz.a" \
		${PSYM_LIBS:-} -o "$out/$t-fuzz"
	[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && continue
	mkdir -p "$out/corpus-$t"
	cp -r "$src/tests/fuzz/corpus/$t/." "$out/corpus-$t/" 2>/dev/null || true
	echo "== running $t for ${FUZZ_SECONDS:-60} s"
	if ! "$out/$t-fuzz" -max_total_time="${FUZZ_SECONDS:-60}" -timeout=10 -rss_limit_mb=4096 \
		-print_final_stats=1 -artifact_prefix="$out/crash-$t-" "$out/corpus-$t" \
		>"$out/log-$t" 2>&1; then
		echo "== $t: CRASH, see $out/log-$t"
		tail -40 "$out/log-$t"
		status=1
	else
		grep -E 'stat::number_of_executed_units|cov:' "$out/log-$t" | tail -2
	fi
done
exit $status
