#!/bin/sh
# Every instruction of blazesym's DWARF test binaries, psym addr against
# llvm-symbolizer --inlines (issue 39's "blazesym-vs-llvm" figure).
#
# usage: bench/peer-blazesym.sh BLAZESYM_GIT_DIR [PSYM]
# BLAZESYM_GIT_DIR: a clone (or bare mirror) of github.com/libbpf/blazesym;
# its data/*.c, *.ld and *.map are built here with the flags of its
# dev/build.rs (gcc, the binaries carrying DWARF: test-dwarf-v2..v5 and
# v5-zlib from test-exe.c with -gstrict-dwarf, test-stable-addrs with its
# linker script at -O0 (plain, zlib, LTO), libtest-so.so), every
# instruction of .text (the PLT is left out: llvm-symbolizer names its
# stubs after _init, psym after their targets, name@plt). Prints one
# line per binary and the total of addresses whose whole chain (function,
# file, line of every frame) agrees; the disagreements are kept in
# $OUT/cmp.* (OUT defaults to a fresh temp dir, printed).
set -eu
G=${1:?usage: $0 BLAZESYM_GIT_DIR [PSYM]}
here=$(cd "$(dirname "$0")/.." && pwd)
PSYM=${2:-$here/psym}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT/data"
cd "$OUT/data"
for f in test-exe.c test-stable-addrs.c test-stable-addrs-cu2.c test-stable-addrs.ld \
	test-so.c test-so.h test-so.map util.h; do
	git --git-dir="$G" show "HEAD:data/$f" >"$f" 2>/dev/null ||
		{ [ -d "$G/data" ] && cp "$G/data/$f" .; } || true
done
cc -gstrict-dwarf -gdwarf-2 test-exe.c -o test-dwarf-v2.bin
cc -gstrict-dwarf -gdwarf-3 test-exe.c -o test-dwarf-v3.bin
cc -gstrict-dwarf -gdwarf-4 test-exe.c -o test-dwarf-v4.bin
cc -gstrict-dwarf -gdwarf-5 test-exe.c -o test-dwarf-v5.bin
cc -gstrict-dwarf -gdwarf-5 -gz=zlib test-exe.c -o test-dwarf-v5-zlib.bin
st="test-stable-addrs-cu2.c -T test-stable-addrs.ld -O0 -nostdlib"
# shellcheck disable=SC2086
cc test-stable-addrs.c $st -gdwarf-4 -Wl,--build-id=none -O0 -o test-stable-addrs.bin
# shellcheck disable=SC2086
cc test-stable-addrs.c $st -gdwarf-4 -Wl,--build-id=none -O0 -gz=zlib \
	-o test-stable-addrs-compressed-debug-zlib.bin
# shellcheck disable=SC2086
cc test-stable-addrs.c $st -gdwarf-4 -flto -o test-stable-addrs-lto.bin
cc -shared -fPIC -Wl,--version-script,test-so.map -g test-so.c -o libtest-so.so
# The issue's gcc-dwarf2 case: the same program at -O2, functions in
# .text.startup and .text.unlikely.
cc -O2 -gstrict-dwarf -gdwarf-2 -freorder-blocks-and-partition test-exe.c -o gcc-dwarf2-O2.bin
cc -O2 -gstrict-dwarf -gdwarf-2 -freorder-blocks-and-partition test-stable-addrs.c $st \
	-o gcc-dwarf2-stable.bin 2>/dev/null || true
total=0 agree=0
for b in *.bin *.so; do
	objdump -d --no-show-raw-insn -j .text "$b" | sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >"../addrs.$b"
	"$PSYM" addr --no-index --json --no-demangle -e "$b" <"../addrs.$b" >"../psym.$b" 2>/dev/null
	llvm-symbolizer --inlines --no-demangle --output-style=JSON --obj="$b" \
		<"../addrs.$b" >"../llvm.$b"
	python3 "$here/tests/compare-symbolizer.py" "../psym.$b" "../llvm.$b" 0 >"../cmp.$b" || true
	line=$(head -1 "../cmp.$b")
	echo "$b: $line"
	a=$(echo "$line" | sed -n 's/^agreement: \([0-9]*\)\/\([0-9]*\).*/\1 \2/p')
	agree=$((agree + ${a%% *}))
	total=$((total + ${a##* }))
done
echo "total: $agree of $total addresses agree (details in $OUT)"
