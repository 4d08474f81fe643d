#!/bin/sh
# psym's CFI unwinder against elfutils' dwfl_frame (libdw, memory-read
# callbacks, as perf uses it) on the same captured stacks.
#
#   bench/unwind.sh [BUILD_DIR] [OUT_DIR]   (defaults: build, /tmp/unwind-bench)
#
# Captures stacks under gdb with tests/unwind/gdbdump.py (the C test
# program at 40 stops: recursion, qsort callback, signal handler, PLT; and
# Debian's xz -9 at 40 stops in liblzma), builds bench/unwind-compare.c
# against BUILD_DIR/libpsym.a and -ldw, and runs both unwinders REPEAT
# (default 2000) times over every stack: agreement (identical chains),
# setup time, time per stack, peak RSS. Needs gdb, libdw-dev.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
O=${2:-/tmp/unwind-bench}
REPEAT=${REPEAT:-2000}
mkdir -p "$O/c" "$O/xz"
cc=${CC:-cc}
libs=$(sed -n 's/^PSYM_LIBS = //p' "$B/Makefile")
# shellcheck disable=SC2086
$cc -O2 -I"$top/src/unwind" -I"$top/src/base" -I"$top/src/obj" -I"$top/src" -I"$B" \
	-o "$O/unwind-compare" "$here/unwind-compare.c" "$B/libpsym.a" $libs -ldw
if [ ! -e "$O/c/39.dump" ]; then
	gcc -O2 -g -fomit-frame-pointer -o "$O/prog" "$top/tests/unwind/prog.c"
	PSYM_OUT=$O/c PSYM_BREAKS="leaf,'puts@plt'" PSYM_STOPS=40 \
		gdb -q -batch -x "$top/tests/unwind/gdbdump.py" --args "$O/prog" 3 >"$O/c.log" 2>&1
	head -c 20000000 /dev/urandom | od -An -x >"$O/input"
	PSYM_OUT=$O/xz PSYM_BREAKS="lzma_code,lzma_crc64" PSYM_STOPS=40 \
		gdb -q -batch -x "$top/tests/unwind/gdbdump.py" \
		--args /usr/bin/xz -9 -k -c "$O/input" >"$O/xz.log" 2>&1
fi
for set in c xz; do
	dumps=$(ls "$O/$set"/*.dump)
	# shellcheck disable=SC2086
	"$O/unwind-compare" psym "$REPEAT" $dumps >"$O/$set.psym" 2>"$O/$set.psym.time"
	# shellcheck disable=SC2086
	"$O/unwind-compare" libdw "$REPEAT" $dumps >"$O/$set.libdw" 2>"$O/$set.libdw.time"
	n=$(wc -l <"$O/$set.psym")
	same=$(paste -d'\n' "$O/$set.psym" "$O/$set.libdw" | paste - - | awk -F'\t' '$1 == $2' | wc -l)
	echo "== $set: $same of $n chains identical"
	cat "$O/$set.psym.time" "$O/$set.libdw.time"
	paste -d'\n' "$O/$set.psym" "$O/$set.libdw" | paste - - | awk -F'\t' '$1 != $2 { print "differ:\n  psym  " $1 "\n  libdw " $2 }' | head -n 6
done
