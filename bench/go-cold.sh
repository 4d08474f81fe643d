#!/bin/sh
# Go binaries without DWARF, 100,000 random addresses of .text (issue 52):
#   cold        psym addr --no-index --no-cache   vs Go's own addr2line
#   the index   psym addr (index built first)     vs Go's own addr2line
# on Debian's stripped rclone (Go 1.19.8, the layout Debian's Go reads),
# paired runs A B A B in one session; and, with OLD set to an older psym,
# the answers of both on rclone and on esbuild 0.28.2 (Go 1.26, npm)
# compared byte for byte.
#
# usage: bench/go-cold.sh [BUILD]   (BUILD: the build dir, default ./build)
# env: RUNS (pairs, default 7), OLD (an older psym to compare answers with:
# one built at commit f7581e6, before the speed work; main's answers differ
# on Go 1.26 programs by design, as it has no inline frames there).
# Needs apt-get (download only), go (Debian's golang-go), python3; npm for
# esbuild. Times with the machine's paired timer when there is one, else
# /usr/bin/time; prints the medians of the pair ratios.
set -eu
B=${1:-build}
PSYM=$(cd "$B" && pwd)/psym
RUNS=${RUNS:-7}
GOA=$(go env GOTOOLDIR)/addr2line
W=$(mktemp -d "${TMPDIR:-/tmp}/psym-go-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM
cd "$W"
apt-get download rclone >/dev/null 2>&1 || { echo "cannot download rclone (apt-get)" >&2; exit 1; }
dpkg-deb -x rclone_*.deb x
R=$W/x/usr/bin/rclone

# addrs BIN SEED: 100k random addresses of BIN's .text, one per line
addrs() {
	readelf -SW "$1" | python3 -c '
import random, sys
for l in sys.stdin:
    p = l.replace("[ ", "[").split()
    if len(p) > 6 and p[1] == ".text":
        a, n = int(p[3], 16), int(p[5], 16)
r = random.Random(int(sys.argv[1]))
for _ in range(100000):
    print(hex(a + r.randrange(n)))' "$2"
}
addrs "$R" 48 >rclone.addrs

# pair NAME A B: paired runs of two shell commands (their stdin/stdout in the text)
pair() {
	echo "== $1"
	if command -v farm-bench >/dev/null 2>&1; then
		farm-bench -n "$RUNS" --vs "sh -c '$3'" -- sh -c "$2" | grep -E 'cpu|peak|wall'
		return
	fi
	i=0
	while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f "%U %S %M" -o a.t sh -c "$2"
		/usr/bin/time -f "%U %S %M" -o b.t sh -c "$3"
		paste a.t b.t | awk '{ printf "%.4f %d %d\n", ($1 + $2) / ($4 + $5), $3, $6 }'
		i=$((i + 1))
	done | sort -n | awk '{ r[NR] = $1; a = $2; b = $3 }
		END { printf "A/B cpu median %.3f (min %.3f max %.3f), peak KB A %d B %d\n",
		      r[int((NR + 1) / 2)], r[1], r[NR], a, b }'
}

pair "rclone, cold: psym addr vs Go's addr2line" \
	"exec $PSYM addr --no-index --no-cache -e $R <rclone.addrs >/dev/null" \
	"exec $GOA $R <rclone.addrs >/dev/null"
"$PSYM" index --cache "$W/c" "$R" >/dev/null
pair "rclone, from the index: psym addr vs Go's addr2line" \
	"exec $PSYM addr --cache $W/c -e $R <rclone.addrs >/dev/null" \
	"exec $GOA $R <rclone.addrs >/dev/null"

[ -n "${OLD:-}" ] || exit 0
echo "== answers of $PSYM and $OLD, byte for byte"
"$PSYM" addr --no-index --no-cache -e "$R" <rclone.addrs >new.out
"$OLD" addr --no-index --no-cache -e "$R" <rclone.addrs >old.out
cmp new.out old.out && echo "rclone: the same $(wc -c <new.out) bytes"
"$PSYM" addr --json --no-index --no-cache -e "$R" <rclone.addrs >new.out
"$OLD" addr --json --no-index --no-cache -e "$R" <rclone.addrs >old.out
cmp new.out old.out && echo "rclone, --json: the same $(wc -c <new.out) bytes"
if tgz=$(timeout 300 npm pack --silent @esbuild/linux-x64@0.28.2 2>/dev/null | tail -1) &&
	tar -xzf "$tgz"; then
	E=$W/package/bin/esbuild
	addrs "$E" 52 >esbuild.addrs
	"$PSYM" addr --no-index --no-cache -e "$E" <esbuild.addrs >new.out
	"$OLD" addr --no-index --no-cache -e "$E" <esbuild.addrs >old.out
	cmp new.out old.out && echo "esbuild 0.28.2: the same $(wc -c <new.out) bytes"
fi
