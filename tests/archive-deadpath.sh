#!/bin/sh
# psym archive when one binary is seen through a dead path and a live one
# (a container gone, the same file on the host): every mapping with the
# build ID is tried until one finds the file, in either order. GNU tar
# lists the archive; symbolize --debug-pkg from it agrees with
# llvm-symbolizer on the binary itself. A build ID no mapping finds is
# still counted and named once.
. "$top_srcdir/tests/lib.sh"
need gcc
need protoc
need zstd
need tar
need llvm-symbolizer
need nm

cat >a.c <<'EOF2'
__attribute__((noinline)) int work(int x) { return x * 3 + 1; }
int main(int argc, char **argv) { (void)argv; return work(argc); }
EOF2
gcc -O1 -g -o a a.c
bid=$(readelf -n a | sed -n 's/.*Build ID: //p')
b1=$(echo "$bid" | cut -c1-2) b2=$(echo "$bid" | cut -c3-)
# work's address: in the first executable LOAD (offset == vaddr in gcc's
# PIE layout), mapped at 4096 from file offset 4096.
waddr=$((0x$(nm a | sed -n 's/ T work$//p')))
[ "$waddr" -ge 4096 ] && [ "$waddr" -lt 8192 ] || skip "work is not in 0x1000..0x2000 here"

# profile NAME PATH1 PATH2: two mappings with a's build ID, in that order.
profile() {
	cat >"$1.txtpb" <<EOF2
sample_type { type: 1 unit: 2 }
sample { location_id: 1 location_id: 2 value: 1 }
mapping { id: 1 memory_start: 4096 memory_limit: 8192 file_offset: 4096 filename: 3 build_id: 4 }
mapping { id: 2 memory_start: 16384 memory_limit: 20480 file_offset: 4096 filename: 5 build_id: 4 }
location { id: 1 mapping_id: 1 address: $waddr }
location { id: 2 mapping_id: 2 address: $((waddr + 12288)) }
string_table: ""
string_table: "samples"
string_table: "count"
string_table: "$2"
string_table: "$bid"
string_table: "$3"
EOF2
	encode_txtpb "$1.txtpb" "$1.pb"
}

for order in dead-first live-first; do
	if [ $order = dead-first ]; then
		profile $order /nonexistent/a "$T/a"
	else
		profile $order "$T/a" /nonexistent/a
	fi
	"$PSYM" archive -v $order.pb -o $order.tar.zst 2>$order.log ||
		fail "$order: psym archive failed: $(cat $order.log)"
	cat $order.log
	tar --zstd -tf $order.tar.zst >$order.members || fail "$order: GNU tar cannot list the archive"
	cat $order.members
	check "$order: the binary is packed as .build-id/$b1/$b2 (tar --zstd -t)" \
		grep -qx ".build-id/$b1/$b2" $order.members
	check "$order: and as BUILDID/a" grep -qx "$bid/a" $order.members
	check "$order: the summary counts 1 binary and nothing not found" \
		grep -q "1 binaries and 0 debug files for 2 mappings (0 not found," $order.log
	check "$order: no mapping is reported as not found" \
		sh -c "! grep -q 'no file with build ID' $order.log"
	# Symbolized from the archive alone: the mappings name paths that do
	# not exist here.
	sed "s|$T/a|/elsewhere/a|" $order.txtpb >$order-moved.txtpb
	encode_txtpb $order-moved.txtpb $order-moved.pb
	"$PSYM" symbolize --no-cache --debug-dir /nonexistent --debug-pkg $order.tar.zst \
		$order-moved.pb -o $order-sym.pb 2>$order-sym.log ||
		fail "$order: symbolize --debug-pkg failed: $(cat $order-sym.log)"
	"$PSYM" show --json $order-sym.pb >$order-sym.json
	check "$order: --debug-pkg names work" grep -q '"name": *"work"' $order-sym.json
	for m in 1 2; do
		check "$order: mapping $m's location is found in the archive" \
			grep -q "mapping $m '/.*/a': 1/1 locations from '.*/.build-id/$b1/$b2'" $order-sym.log
	done
	llvm-symbolizer --obj=a "$waddr" >$order.llvm
	check "$order: llvm-symbolizer on the binary says work too" grep -qx work $order.llvm
	check "$order: every location agrees with llvm-symbolizer (mapping 1)" \
		llvm_agree $order-sym.pb a
done

# A build ID no mapping finds is one "not found", named at its first mapping.
sed "s|$T/a|/gone/a|" dead-first.txtpb >none.txtpb
encode_txtpb none.txtpb none.pb
"$PSYM" archive none.pb -o none.tar.zst 2>none.log || fail "psym archive failed: $(cat none.log)"
cat none.log
check "nowhere: 1 not found" grep -q "0 binaries and 0 debug files for 2 mappings (1 not found," none.log
check "nowhere: named once, at mapping 1" \
	test "$(grep -c "mapping 1 '/nonexistent/a': no file with build ID $bid" none.log)" = 1
check "nowhere: not named again at mapping 2" sh -c "! grep -q 'mapping 2 ' none.log"
finish
