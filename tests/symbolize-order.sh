#!/bin/sh
# symbolize looks a mapping's locations up in address order: a radix sort
# on 8-byte keys (the address less the lowest, then the location), or
# qsort when the addresses span 4 GiB or more. Whatever the path, every
# location gets the answer of its own address: locations in shuffled
# order, repeated addresses (separate locations), and one address far
# past the binary (unresolved) are symbolized as addr2line names each
# address. Oracle: addr2line -f -i (function names, inline chains).
. "$top_srcdir/tests/lib.sh"
need gcc
need addr2line
need python3
need protoc

cat >prog.c <<'C'
static inline __attribute__((always_inline)) int twice(int x) { return 2 * x; }
__attribute__((noinline)) int f1(int x) { return twice(x) + 1; }
__attribute__((noinline)) int f2(int x) { return twice(x) * 3; }
__attribute__((noinline)) int f3(int x) { return f1(x) - f2(x); }
__attribute__((noinline)) int f4(int x) { return twice(f3(x)) ^ 5; }
int main(int argc, char **argv) { (void)argv; return f4(argc) & 1; }
C
gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -o prog prog.c
: >maps.empty
# Every instruction inside the five functions' symbols (nm -S, objdump),
# shuffled, the first ten again as locations of their own.
nm -S prog | awk '$3 ~ /^[Tt]$/ && $4 ~ /^(f[1-4]|main)$/ { print $1, $2 }' >syms
objdump -d --no-show-raw-insn prog | awk '/^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 }' >all.insns
python3 - syms all.insns >addrs <<'PY'
import random, sys
syms = [tuple(int(x, 16) for x in l.split()) for l in open(sys.argv[1])]
a = [x for x in open(sys.argv[2]).read().split()
     if any(s <= int(x, 16) < s + n for s, n in syms)]
random.Random(7).shuffle(a)
for x in a + a[:10]:
    print(x)
PY
check "objdump lists the functions' instructions ($(wc -l <addrs) locations)" [ "$(wc -l <addrs)" -gt 20 ]
# mkprof LIMIT ADDR...: one mapping of prog from 0x400000, a location per
# line of addrs (a repeated address too) and then per ADDR, a sample each.
mkprof() {
	python3 - "$PWD/prog" addrs "$@" <<'PY'
import sys
path, limit, extra = sys.argv[1], sys.argv[3], sys.argv[4:]
addrs = open(sys.argv[2]).read().split() + extra
print('sample_type { type: 1 unit: 2 }')
print('mapping { id: 1 memory_start: 0x400000 memory_limit: 0x%s filename: 3 has_functions: false }' % limit)
for i, a in enumerate(addrs, 1):
    print('location { id: %d mapping_id: 1 address: 0x%s }' % (i, a))
    print('sample { location_id: %d value: 1 }' % i)
print('string_table: ""\nstring_table: "samples"\nstring_table: "count"\nstring_table: "%s"' % path)
PY
}
mkprof 500000 >narrow.txtpb
mkprof 300000000 2fffff000 >wide.txtpb
for w in narrow wide; do
	encode_txtpb $w.txtpb $w.pb
	"$PSYM" symbolize -q --offline --no-cache --no-index $w.pb -o $w.out
	"$PSYM" show --json $w.out >$w.json
done
# answers FILE.json: "ADDR fn;fn;fn" per location (innermost first), by location id.
answers() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
fn = {f['id']: f['name'] for f in d['functions']}
for l in sorted(d['locations'], key=lambda l: l['id']):
    print('%x %s' % (l['address'], ';'.join(fn[x['function_id']] for x in l.get('lines', [])) or '??'))
PY
}
answers narrow.json >narrow.ans
answers wide.json >wide.ans
while read -r a; do
	printf '%s %s\n' "$a" "$(addr2line -f -i -e prog "$a" | sed -n 'p;n' | paste -sd';')"
done <addrs >a2l.ans
check "radix path: every location (shuffled, repeated) as addr2line names it ($(wc -l <a2l.ans))" \
	cmp -s narrow.ans a2l.ans
head -n "$(wc -l <a2l.ans)" wide.ans >wide.head
check "qsort path (a 12 GiB span): the same answers" cmp -s wide.head a2l.ans
check "qsort path: the address past the binary stays unresolved" \
	[ "$(tail -1 wide.ans)" = "2fffff000 ??" ]
[ -f narrow.ans ] && ! cmp -s narrow.ans a2l.ans && { diff narrow.ans a2l.ans | head -20; objdump -d prog | grep -B2 -A2 "^  *$(diff narrow.ans a2l.ans | sed -n "s/^< \([0-9a-f]*\) .*/\1/p" | head -1):"; }
finish
