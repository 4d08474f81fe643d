#!/bin/sh
# Build each fuzz target with libFuzzer + ASan + UBSan and run it for
# FUZZ_SECONDS on a copy of its corpus. Usage: run-libfuzzer.sh SRCDIR BUILDDIR
set -eu
src=$1
build=$2
out=$build/fuzz-build
mkdir -p "$out"
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"
inc="-I$build -I$build/src -I$src/src"
libsrcs=$(grep -oh 'src/[a-z_0-9]*\.c' "$src/Makefile.am" "$src/src/modules.am" | grep -v 'src/main\.c' | sort -u)
for t in $FUZZ_TARGETS; do
	echo "== building $t"
	objs=""
	for s in $libsrcs "$build/proto/profile.pb-c.c"; do
		case $s in /*) f=$s ;; *) f=$src/$s ;; esac
		o=$out/$(basename "$s" .c).o
		clang $flags -fsanitize=fuzzer-no-link -std=gnu11 $inc -c "$f" -o "$o"
		objs="$objs $o"
	done
	# shellcheck disable=SC2086
	clang $flags $inc "$src/tests/fuzz/$t-fuzz.c" $objs $PSYM_LIBS -o "$out/$t-fuzz"
	mkdir -p "$out/corpus-$t"
	cp -r "$src/tests/fuzz/corpus/$t/." "$out/corpus-$t/" 2>/dev/null || true
	echo "== running $t for $FUZZ_SECONDS s"
	"$out/$t-fuzz" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=4096 \
		-artifact_prefix="$out/crash-$t-" "$out/corpus-$t"
done
