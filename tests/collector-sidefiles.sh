#!/bin/sh
# psym-collect's side files cost little: with --kallsyms full (the default is the
# profile's subset, collector-ksubset.sh), the kallsyms copy (and the vDSO) is written
# zstd-compressed, named by boot ID and content SHA-256, once per boot in
# .psym-shared/ beside the outputs and hard-linked into each side
# directory; the kernel frames are still named (oracle: /proc/kallsyms
# itself, the nearest text symbol at or below each address). A batch over
# two profiles of one boot parses the copy once; a copy whose content does
# not match its name, a copy of another boot, a truncated stream, a bomb
# and a file without zstd's magic are refused with a reason, never a crash.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need zstd
need python3
collector_need "BPF and perf events"
collector_hogs # the machine loaded, as production hosts are (issue 42, item 4)
# Kernel frames in both profiles, else a profile has no kallsyms copy to
# share: a loop that lives in system calls.
sh -c 'while :; do dd if=/dev/zero of=/dev/null bs=64 count=20000 2>/dev/null; done' &
collector_bg $!

mkdir -p out
# The oracle for profile a's kernel frames is /proc/kallsyms as it was while
# a ran: BPF programs come and go (profile b's own, other tests'), and a
# later table can hold another program at the same address. Copies from
# just before and during the run bracket the moment a's copy was taken.
cp /proc/kallsyms before.kallsyms
"$C" -d 2 --kallsyms full -o out/a.pb.gz 2>a.log &
cpid=$!
collector_bg $cpid
sleep 1
cp /proc/kallsyms during.kallsyms
wait $cpid || fail "psym-collect a failed: $(tail -1 a.log)"
"$C" -d 2 --kallsyms full -o out/b.pb.gz 2>b.log || fail "psym-collect b failed: $(tail -1 b.log)"
boot=$(cat /proc/sys/kernel/random/boot_id)
ks=$(ls out/a.pb.gz.d/kallsyms-*.zst 2>/dev/null | head -1)
check "no uncompressed kallsyms copy in the side directory" test ! -e out/a.pb.gz.d/kallsyms
check "a kallsyms-BOOTID-SHA256.zst copy of this boot ($(basename "${ks:-none}"))" \
	sh -c 'case "$1" in */kallsyms-$2-*.zst) exit 0 ;; esac; exit 1' sh "$ks" "$boot"
check "the copy is a zstd stream" sh -c '[ "$(od -An -tx1 -N4 "$1" | tr -d " ")" = 28b52ffd ]' sh "$ks"
check "its name's SHA-256 is its content's" sh -c \
	'n=${1##*-}; [ "$(zstd -dc "$1" | sha256sum | cut -c1-64)" = "${n%.zst}" ]' sh "$ks"
check "the second profile's copy is the same file (linked from .psym-shared/)" \
	sh -c '[ "$1" -ef "out/b.pb.gz.d/$(basename "$1")" ] && [ "$1" -ef "out/.psym-shared/$(basename "$1")" ]' sh "$ks"
vz=$(ls out/a.pb.gz.d/vdso-*.so.zst 2>/dev/null | head -1)
check "the vDSO image compressed and shared too ($(basename "${vz:-none}"))" sh -c \
	'[ -n "$1" ] && [ ! -e out/a.pb.gz.d/vdso.so ] && [ "$1" -ef "out/b.pb.gz.d/$(basename "$1")" ] &&
	 zstd -dc "$1" >vdso.img && readelf -h vdso.img | grep -q "Type:.*DYN" &&
	 n=${1##*/vdso-} && [ "$(sha256sum <vdso.img | cut -c1-64)" = "${n%.so.zst}" ]' sh "$vz"
check "side directory much smaller than before ($(du -sb out/a.pb.gz.d | cut -f1) bytes)" \
	test "$(du -sb out/a.pb.gz.d | cut -f1)" -lt 2000000

# Kernel frames named as /proc/kallsyms names them.
"$PSYM" symbolize out/a.pb.gz -o a.sym.pb.gz 2>a.sym.log || fail "symbolize: $(tail -1 a.sym.log)"
"$PSYM" show a.sym.pb.gz >a.show 2>&1
check "kernel frames named as /proc/kallsyms names them" python3 - a.show before.kallsyms during.kallsyms <<'PY'
import bisect, re, sys
show = sys.argv[1]
kid = None
for l in open(show):
    m = re.match(r"\s*(\d+): 0x[0-9a-f]+-0x[0-9a-f]+ .*\[kernel\.kallsyms\]", l)
    if m:
        kid = m.group(1)
tables = []
for ks in sys.argv[2:]:
    syms = {}
    for l in open(ks):
        f = l.split()
        if len(f) >= 3 and f[1] in "tTwW" and int(f[0], 16):
            syms.setdefault(int(f[0], 16), set()).add(f[2])
    tables.append((sorted(syms), syms))
def names(a):
    out = set()
    for addrs, syms in tables:
        i = bisect.bisect_right(addrs, a) - 1
        if i >= 0:
            out |= syms[addrs[i]]
    return out
n = bad = 0
for l in open(show):
    m = re.match(r"\s*\d+: 0x([0-9a-f]+) M=(\d+) (\S+)", l)
    if not m or m.group(2) != kid:
        continue
    a = int(m.group(1), 16)
    n += 1
    if m.group(3) not in names(a):
        bad += 1
        print("# 0x%x: psym %s, kallsyms %s" % (a, m.group(3), names(a) or "-"))
print("# %d kernel locations, %d disagree" % (n, bad))
sys.exit(0 if n and bad == 0 else 1)
PY

# A batch over both profiles (one boot, one copy) parses it once.
mkdir -p symd
"$PSYM" symbolize out/a.pb.gz out/b.pb.gz -o symd 2>batch.log
check "a batch of two profiles of one boot parses kallsyms once ($(grep kallsyms batch.log))" \
	grep -q "1 kallsyms copy parsed" batch.log

# bad NAME FILE PATTERN: a profile whose side directory holds FILE (as
# the content-addressed copy) is symbolized without a crash, and
# --explain gives PATTERN for the copy.
bad() {
	rm -rf "bad.pb.gz.d"
	mkdir bad.pb.gz.d
	cp out/a.pb.gz bad.pb.gz
	cp "$2" "bad.pb.gz.d/${3:-$(basename "$ks")}"
	rc=0
	"$PSYM" symbolize --explain bad.pb.gz -o bad.sym.pb.gz >bad.log 2>&1 || rc=$?
	check "$1: refused, no crash (exit $rc): $(grep -m1 -o "$4" bad.log)" \
		sh -c '[ "$1" -lt 128 ] && grep -q "$2" bad.log' sh "$rc" "$4"
}
zstd -dc "$ks" | sed '1s/ T / T x/' | zstd -q -c >other.zst
bad "content that is not its name's" other.zst "" "its name says .*refused"
other=$(basename "$ks" | sed 's/^kallsyms-[0-9a-f-]*-\([0-9a-f]\{64\}\.zst\)$/kallsyms-00000000-0000-0000-0000-000000000000-\1/')
bad "a copy of another boot" "$ks" "$other" "refused: a copy of boot 00000000"
head -c 1000 "$ks" >trunc.zst
bad "a truncated stream" trunc.zst "" "zstd\|truncated\|corrupt"
head -c 400000000 /dev/zero | zstd -q -19 -c >bomb.zst
bad "a bomb ($(wc -c <bomb.zst) bytes)" bomb.zst "" "cap\|limit\|larger"
head -c 5000 /dev/urandom >nomagic.zst
bad "no zstd magic" nomagic.zst "" "its name says .*refused"
finish
