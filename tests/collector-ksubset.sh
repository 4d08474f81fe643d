#!/bin/sh
# psym-collect's kallsyms copy holds what the profile needs (issue 42):
# kallsyms.subset.zst in the side directory, not the whole table. On a
# system-wide run with kernel stacks (a CPU hog on each core and a
# syscall loop beside it), every kernel location psym names from the
# subset is named as from a full copy of /proc/kallsyms taken during the
# run (with and without --adjust-callers), and as an independent lookup
# with awk and sort over that copy says (the nearest text symbol at or
# below, core before module, then the smallest name). A kernel address the
# subset does not cover (a location added to the profile later) gets no
# name, from the side directory or with --kallsyms. --kallsyms full still
# writes the shared whole table.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need zstd
need protoc
need python3
collector_need "BPF and perf events"
export LC_ALL=C

collector_hogs
sh -c 'while :; do dd if=/dev/zero of=/dev/null bs=64 count=20000 2>/dev/null; done' &
collector_bg $!
mkdir -p out
"$C" -d 3 -o out/a.pb.gz 2>a.log &
cpid=$!
collector_bg $cpid
sleep 1
cp /proc/kallsyms during.kallsyms # the BPF programs of the run are in it
wait $cpid || fail "psym-collect failed: $(tail -1 a.log)"
d=out/a.pb.gz.d
check "the side directory has the subset copy" test -s $d/kallsyms.subset.zst
check "and not the whole table (no kallsyms-*.zst, kallsyms.dyn or kallsyms)" \
	sh -c '! ls out/a.pb.gz.d/kallsyms-*.zst out/a.pb.gz.d/kallsyms.dyn out/a.pb.gz.d/kallsyms \
		out/.psym-shared/kallsyms-* 2>/dev/null | grep -q .'
zstd -dc $d/kallsyms.subset.zst >sub.txt || fail "the subset is not a zstd stream"
check "its first line is the subset header" sh -c '[ "$(head -1 sub.txt)" = "psym-kallsyms-subset 1" ]'
check "its last line is end" sh -c '[ "$(tail -1 sub.txt)" = end ]'
full_lines=$(wc -l <during.kallsyms)
check "a small part of the table ($(wc -l <sub.txt) of $full_lines lines, $(wc -c <$d/kallsyms.subset.zst) bytes)" \
	test "$(wc -l <sub.txt)" -lt $((full_lines / 10))

"$PSYM" symbolize --explain out/a.pb.gz -o sub.pb.gz 2>sub.log || fail "symbolize: $(tail -1 sub.log)"
check "psym reads the subset from the side directory" \
	grep -q "kallsyms.subset.zst': kernel symbols used (the profile's subset" sub.log
"$PSYM" symbolize --kallsyms during.kallsyms out/a.pb.gz -o full.pb.gz 2>full.log ||
	fail "symbolize --kallsyms: $(tail -1 full.log)"
"$PSYM" show sub.pb.gz >sub.show
"$PSYM" show full.pb.gz >full.show
kid=$(sed -n 's/^ *\([0-9]*\): 0x[0-9a-f]*-0x[0-9a-f]* .*\[kernel\.kallsyms\].*/\1/p' sub.show | head -1)
grep " M=$kid\( \|$\)" sub.show | sed 's/^ *[0-9]*: //' >sub.k
grep " M=$kid\( \|$\)" full.show | sed 's/^ *[0-9]*: //' >full.k
nk=$(wc -l <sub.k)
check "$nk kernel locations" test "$nk" -gt 20
check "every kernel frame from the subset equals the full copy's" cmp sub.k full.k
check "the whole symbolized profile too" cmp sub.show full.show
"$PSYM" symbolize --adjust-callers out/a.pb.gz -o suba.pb.gz 2>/dev/null
"$PSYM" symbolize --adjust-callers --kallsyms during.kallsyms out/a.pb.gz -o fulla.pb.gz 2>/dev/null
check "with --adjust-callers (return addresses looked up as address - 1) too" \
	sh -c '"$1" show suba.pb.gz >a1 && "$1" show fulla.pb.gz >a2 && cmp a1 a2' sh "$PSYM"

# The oracle: sort the table's text symbols and the locations together by
# address; each location takes the best name of the last address at or below it.
awk '$2 ~ /^[tTwW]$/ && $1 !~ /^0+$/ { print $1, 0, ($4 ~ /^\[/ ? 1 : 0), $3 }' during.kallsyms >syms.o
sed -n 's/^0x\([0-9a-f]*\) M=[0-9]* \([^ ]*\).*/\1 1 - \2/p' sub.k >locs.o
sort -k1,1 -k2,2n syms.o locs.o | awk '
	$2 == 0 { if ($1 != at) { at = $1; best = ""; br = 9 }
		  if ($3 < br || ($3 == br && $4 < best)) { br = $3; best = $4 } ; next }
	{ n++; if ($4 != best) { bad++; if (bad < 6) print "# " $1 ": psym " $4 ", kallsyms " best } }
	END { print "# " n " kernel locations named, " bad + 0 " disagree"; exit !(n > 0 && bad == 0) }' >oracle.out
cat oracle.out
check "every named kernel frame is what awk and sort find in /proc/kallsyms" \
	sh -c 'tail -1 oracle.out | grep -q " 0 disagree"'
check "every kernel location is named ($(grep -c '^0x[0-9a-f]* M=[0-9]*$' sub.k) unnamed)" \
	sh -c '! grep -q "^0x[0-9a-f]* M=[0-9]*$" sub.k'

# A kernel address the subset does not cover: a text symbol of the full
# table whose address is past one of the subset's bounds (and before its
# next line), added to the profile as a new location.
out=$({ awk '$2 == "-" || $2 == "t" { print $1, 0, $2 }' sub.txt
	awk '$2 ~ /^[tT]$/ && $1 !~ /^0+$/ && NF == 3 { print $1, 1, $3 }' during.kallsyms; } |
	sort -k1,1 -k2,2n | awk '$2 == 0 { last = $3; at = $1; next }
		last == "-" && $1 != at { print $1, $3; exit }')
addr=${out% *}
name=${out#* }
[ -n "$addr" ] || fail "no uncovered kernel symbol found"
decode_pb out/a.pb.gz >a.txtpb
printf 'location {\n  id: 999999\n  mapping_id: %s\n  address: %s\n}\n' "$kid" \
	"$(python3 -c 'import sys; print(int(sys.argv[1], 16))' "$addr")" >>a.txtpb
encode_txtpb a.txtpb edited.pb || fail "cannot encode the edited profile"
cp -r $d edited.pb.d
"$PSYM" symbolize edited.pb -o e.pb.gz 2>e.log
"$PSYM" symbolize --kallsyms sub.txt edited.pb -o e2.pb.gz 2>e2.log
"$PSYM" symbolize --kallsyms during.kallsyms edited.pb -o e3.pb.gz 2>e3.log
loc() { "$PSYM" show "$1" | sed -n "s/^ *999999: 0x[0-9a-f]* M=[0-9]*//p"; }
l1=$(loc e.pb.gz)
l2=$(loc e2.pb.gz)
l3=$(loc e3.pb.gz)
check "the full table names 0x$addr $name" test "$l3" = " $name"
check "a kernel address the subset leaves out (0x$addr) gets no name from the side directory ($l1)" \
	test -z "$l1"
check "nor with --kallsyms on the subset itself ($l2)" test -z "$l2"

# --kallsyms full: the shared whole table, as before.
"$C" -d 1 --kallsyms full -o out/f.pb.gz 2>f.log || fail "psym-collect --kallsyms full: $(tail -1 f.log)"
check "--kallsyms full writes the shared whole copy, no subset" \
	sh -c 'ls out/f.pb.gz.d/kallsyms-*.zst >/dev/null 2>&1 && [ ! -e out/f.pb.gz.d/kallsyms.subset.zst ]'
finish
