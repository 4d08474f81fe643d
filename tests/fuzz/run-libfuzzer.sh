#!/bin/sh
# Build every fuzz target with libFuzzer + ASan + UBSan (the library is
# compiled once, with coverage) and run each for FUZZ_SECONDS on a working
# copy of its seed corpus. Usage: run-libfuzzer.sh SRCDIR BUILDDIR
#
# Environment: FUZZ_CC (clang), FUZZ_SECONDS, FUZZ_TARGETS, PSYM_LIBS,
# FUZZ_OUT (work dir, default BUILDDIR/fuzz-build), FUZZ_JOBS (how many
# compilers and fuzzers run at once; default: the machine's cores);
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
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
# Each library object once, $jobs compilers at a time (xargs -P): a list of
# "SOURCE OBJECT" pairs of the objects older than their source.
objs=""
: >"$out/stale"
for s in $libsrcs "$build/proto/profile.pb-c.c" "$build/proto/otlp_profiles.pb-c.c"; do
	case $s in /*) f=$s ;; *) f=$src/$s ;; esac
	o=$out/obj/$(basename "$s" .c).o
	if [ ! -e "$o" ] || [ "$f" -nt "$o" ]; then
		echo "$f $o" >>"$out/stale"
	fi
	objs="$objs $o"
done
export cc flags inc
# shellcheck disable=SC2016
xargs -r -P "$jobs" -n 2 sh -c '$cc $flags -fsanitize=fuzzer-no-link -std=gnu11 $inc -c "$0" -o "$1"' \
	<"$out/stale"
rm -f "$out/stale"
rm -f "$out/libpsym-fuzz.a"
# shellcheck disable=SC2086
ar rcs "$out/libpsym-fuzz.a" $objs
# Leaks inside system libraries that psym cannot free are listed there.
LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0
export LSAN_OPTIONS
# one_target T: build T's fuzzer and run it; its report in $out/report-T,
# a crash marked by $out/failed-T.
one_target() {
	t=$1
	rm -f "$out/failed-$t"
	{
		echo "== building $t"
		# shellcheck disable=SC2086
		if ! $cc $flags -fsanitize=fuzzer $inc "$src/tests/fuzz/$t-fuzz.c" \
			"$out/libpsym-fuzz.a" ${PSYM_LIBS:-} -o "$out/$t-fuzz"; then
			echo "== $t: the fuzzer does not build"
			: >"$out/failed-$t"
			return
		fi
		[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && return
		mkdir -p "$out/corpus-$t"
		cp -r "$src/tests/fuzz/corpus/$t/." "$out/corpus-$t/" 2>/dev/null || true
		echo "== running $t for ${FUZZ_SECONDS:-60} s"
		if ! "$out/$t-fuzz" -max_total_time="${FUZZ_SECONDS:-60}" -timeout=10 \
			-rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$out/crash-$t-" \
			"$out/corpus-$t" >"$out/log-$t" 2>&1; then
			echo "== $t: CRASH, see $out/log-$t"
			tail -40 "$out/log-$t"
			: >"$out/failed-$t"
		else
			grep -E 'stat::number_of_executed_units|cov:' "$out/log-$t" | tail -2
		fi
	} >"$out/report-$t" 2>&1
}
# $jobs targets at a time; the reports printed in the targets' order.
running=0
for t in $FUZZ_TARGETS; do
	one_target "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
status=0
for t in $FUZZ_TARGETS; do
	cat "$out/report-$t"
	rm -f "$out/report-$t"
	if [ -e "$out/failed-$t" ]; then
		rm -f "$out/failed-$t"
		status=1
	fi
done
exit $status
