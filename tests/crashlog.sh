#!/bin/sh
# psym addr: --build-id lookup and the crash-log filter on a real ASan
# report (ASAN_OPTIONS=symbolize=0), checked against ASan's own symbolized
# report, and on real backtrace_symbols_fd output, checked against
# addr2line; lines that name no frame pass through unchanged.
. "$top_srcdir/tests/lib.sh"
need gcc
need addr2line
cat >uaf.c <<'C'
#include <execinfo.h>
#include <stdlib.h>
static inline int read_it(int *p) { return p[1]; }
__attribute__((noinline)) int use_after(int *p) { return read_it(p) + 1; }
__attribute__((noinline)) void trace(void) { void *b[16]; int n = backtrace(b, 16); backtrace_symbols_fd(b, n, 1); }
int main(int argc, char **argv) { if (argc > 1) { trace(); return 0; } int *p = malloc(16); free(p); return use_after(p); }
C
if gcc -g -O1 -fsanitize=address -o uaf uaf.c 2>/dev/null && ASAN_OPTIONS=symbolize=0 ./uaf 2>raw.txt; [ -s raw.txt ]; then
	ASAN_OPTIONS=symbolize=1 ./uaf 2>ref.txt || true
	"$PSYM" addr --filter <raw.txt >got.txt
	# Frame lines of our program, as (number, function, file basename:line).
	frames() { sed -n 's/^ *#\([0-9]*\) 0x[0-9a-f]* in \([^ ]*\) \([^ ]*\)\/\(uaf.c:[0-9]*\).*/\1 \2 \4/p' "$1"; }
	frames ref.txt >ref.frames
	frames got.txt >got.frames
	if grep -q "use_after" ref.frames; then
		check "ASan report: frames equal ASan's own symbolization ($(wc -l <got.frames) frames)" cmp -s ref.frames got.frames ||
			{ diff ref.frames got.frames; }
	else
		echo "note: ASan could not symbolize its own report here: comparing with addr2line"
		off=$(sed -n 's/^ *#0 .*(.*uaf+\(0x[0-9a-f]*\)).*/\1/p' raw.txt)
		check "ASan report: leaf named as addr2line does" sh -c "grep -q \"in \$(addr2line -f -e uaf $off | head -1) \" got.txt"
	fi
	check "ASan report: inline frame read_it shown" grep -q "#0 0x[0-9a-f]* in read_it .*uaf.c:3" got.txt
	# The summary in the shape ASan gives it when it symbolizes:
	# "SUMMARY: AddressSanitizer: TYPE FILE:LINE in FUNCTION".
	grep '^SUMMARY: ' ref.txt >ref.sum
	grep '^SUMMARY: ' got.txt >got.sum
	if grep -q ' in ' ref.sum; then
		check "ASan report: SUMMARY line as ASan's own ($(cat got.sum))" cmp -s ref.sum got.sum
	else
		check "ASan report: SUMMARY line names read_it at uaf.c:3 ($(cat got.sum))" \
			grep -q '^SUMMARY: AddressSanitizer: heap-use-after-free .*uaf.c:3 in read_it$' got.sum
	fi
	grep -v -e '^ *#' -e '+0x' -e '^SUMMARY: ' raw.txt >a
	grep -v -e '^ *#' -e '+0x' -e '^SUMMARY: ' got.txt >b
	check "ASan report: lines without frames unchanged" cmp -s a b
else
	echo "note: no ASan runtime here: sanitizer part skipped"
fi

# backtrace_symbols_fd: "./bt(func+0x15)[0x...]" and "lib(+0x...)[0x...]".
gcc -g -O1 -rdynamic -o bt uaf.c
./bt x >bt.txt
"$PSYM" addr --filter <bt.txt >bt.got
while IFS= read -r line; do
	case $line in ./bt\(*\+0x*\)\[*) ;; *) continue ;; esac
	sym=$(echo "$line" | sed 's/^.\/bt(\([^+]*\)+\(0x[0-9a-f]*\)).*/\1/')
	off=$(echo "$line" | sed 's/^.\/bt(\([^+]*\)+\(0x[0-9a-f]*\)).*/\2/')
	[ -n "$sym" ] || continue
	base=$(nm bt | awk -v s="$sym" '$3 == s {print $1}')
	want=$(addr2line -f -e bt $(printf '0x%x' $((0x$base + off - 1))) | head -2 | paste -sd' ' |
		sed 's/ / at /; s/ (discriminator [0-9]*)//')
	case $want in *"??"*) continue ;; esac
	check "backtrace_symbols: $sym+$off -> $want" grep -qF "$line $want" bt.got
done <bt.txt
check "backtrace_symbols: libc frames filled in too" grep -q 'libc.so.6(.*)\[0x[0-9a-f]*\] .* at ' bt.got

# module+offset frames, and --build-id.
va=$(nm bt | awk '$3 == "use_after" {print $1}' | sed 's/^0*//')
echo "crash in $T/bt+0x$va here" | "$PSYM" addr --filter >mo.got
check "module+offset frame filled in" grep -q "^crash in $T/bt+0x$va here \[use_after .*uaf.c:4\]" mo.got
# A summary whose module is not found: as it was, one frame unresolved
# (not counted again as a module+offset frame).
printf 'SUMMARY: AddressSanitizer: heap-buffer-overflow (/nonexistent/x+0x11f8)\n' >sum.in
"$PSYM" addr --filter <sum.in >sum.got 2>sum.err
check "unresolved SUMMARY: unchanged, counted once ($(cat sum.err))" \
	sh -c 'cmp -s sum.in sum.got && grep -q "^psym: 1 frame left unresolved" sum.err'
echo "nothing to see" | "$PSYM" addr --filter >same.got
check "a line without frames passes through unchanged" sh -c 'echo "nothing to see" | cmp -s - same.got'
bid=$(readelf -n bt | sed -n 's/.*Build ID: //p')
mkdir -p dbg/.build-id/$(echo $bid | cut -c1-2)
cp bt dbg/.build-id/$(echo $bid | cut -c1-2)/$(echo $bid | cut -c3-)
"$PSYM" addr --offline --debug-dir dbg --build-id $bid 0x$va >bid.got
check "--build-id finds the binary in a .build-id tree" sh -c "head -1 bid.got | grep -qx use_after"
expect_exit 2 "--build-id that nothing has" "$PSYM" addr --offline --build-id 0123456789abcdef 0x10
finish
