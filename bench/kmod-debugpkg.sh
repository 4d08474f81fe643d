#!/bin/bash
# Kernel-module lines from a real kernel debug package: psym symbolize
# --debug-pkg (extracts only the module the profile's frames fall in)
# against unpacking the package whole with dpkg-deb -x (what --debug-dir
# needs), in the same run. The profile: 300 functions of MODULE's .text as
# kernel frames of another host running the package's release, with a
# kallsyms copy placing them. Prints seconds, peak RSS and disk used of
# each, a warm second psym run, and psym's ratios.
# Usage: bench/kmod-debugpkg.sh PSYM PACKAGE.deb [MODULE]
#   e.g. (from a build directory; ~280 MB, not for CI):
#   apt-get download linux-image-6.1.0-56-cloud-amd64-dbg
#   ../bench/kmod-debugpkg.sh ./psym linux-image-6.1.0-56-cloud-amd64-dbg_*.deb xfs
set -eu
PSYM=$(realpath "$1")
PKG=$(realpath "$2")
MOD=${3:-xfs}
top=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
cd "$T"
rel=$(dpkg-deb -c "$PKG" | sed -n "s|.*usr/lib/debug/lib/modules/\([^/]*\)/.*/$MOD\.ko.*|\1|p" | head -1)
[ -n "$rel" ] || {
	echo "no $MOD.ko in $PKG"
	exit 1
}
# The module itself, for kallsyms (the placed functions) only.
dpkg-deb --fsys-tarfile "$PKG" | tar -x --wildcards "*/kernel/*/$MOD.ko" -O >mod.ko
idx=$(readelf -SW mod.ko | sed -n 's/^ *\[ *\([0-9]*\)\] \.text .*/\1/p')
base=$((0xffffffffc0a00000))
{
	echo "ffffffff81000000 T _text"
	readelf -sW mod.ko | awk -v n="$idx" '$4 == "FUNC" && $7 == n { print $2, $8 }' | head -300 |
		while read -r v name; do printf '%x t %s\t[%s]\n' $((base + 0x$v)) "$name" "$MOD"; done
} | sort >kallsyms
{
	echo "mapping ffffffffc0000000 ffffffffc1000000 0 [kernel.kallsyms]"
	sed -n '2,$p' kallsyms | awk '{ print $1 }'
} >stacks.in
: >maps.empty
python3 "$top/tests/mkprofile.py" maps.empty stacks.in >k.txtpb
nstr=$(grep -c '^string_table' k.txtpb)
{
	cat k.txtpb
	echo "comment: $nstr"
	echo "string_table: \"psym-collect: host=elsewhere kernel=$rel boot_id=00000000-0000-0000-0000-000000000000\""
} >k2.txtpb
protoc --proto_path="$top/proto" --encode=perftools.profiles.Profile profile.proto <k2.txtpb >k.pb
run() { # NAME CMD...: seconds and peak KB of one run
	/usr/bin/time -f "%e %M" -o "$1.time" "${@:2}" >/dev/null 2>"$1.err" || {
		cat "$1.err"
		exit 1
	}
	read -r "${1}_s" "${1}_kb" <"$1.time"
}
run cold "$PSYM" symbolize --offline --cache c --index-store off --kallsyms kallsyms \
	--debug-pkg "$PKG" k.pb -o k.sym.pb
run warm "$PSYM" symbolize --offline --cache c --index-store off --kallsyms kallsyms \
	--debug-pkg "$PKG" k.pb -o k.sym.pb
grep -q "locations symbolized" cold.err && tail -1 cold.err
psym_mb=$(du -sm c | cut -f1)
mkdir full
run dpkg dpkg-deb -x "$PKG" full
dpkg_mb=$(du -sm full | cut -f1)
echo "package: $(basename "$PKG") ($(($(stat -c %s "$PKG") >> 20)) MB), module $MOD, release $rel"
echo "psym --debug-pkg, cold: ${cold_s} s, ${cold_kb} KB peak RSS, ${psym_mb} MB extracted"
echo "psym --debug-pkg, warm: ${warm_s} s, ${warm_kb} KB peak RSS"
echo "dpkg-deb -x:            ${dpkg_s} s, ${dpkg_kb} KB peak RSS, ${dpkg_mb} MB unpacked"
awk -v a="$cold_s" -v b="$dpkg_s" -v c="$psym_mb" -v d="$dpkg_mb" \
	'BEGIN { printf "psym/dpkg-deb: time %.2f, disk %.3f\n", a / b, c / d }'
