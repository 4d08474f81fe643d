#!/bin/sh
# --debug-pkg on an archive of 100,000 .build-id/NN/REST.debug members
# (the size of bench/debugpkg-members.sh's largest run): the package's
# index lists every one of them, exactly the members GNU tar lists, and
# the one debug file the profile wants, among them, is extracted and
# answers as llvm-symbolizer does on the binary. Each member's build ID
# used to be checked against every one found before it (a list), which
# took minutes at this size; no time is asserted here (the machine is
# shared), only that the listing is complete and right.
. "$top_srcdir/tests/lib.sh"
need gcc
need objcopy
need protoc
need python3
need tar
need zstd
need llvm-symbolizer

cat >a.c <<'EOF2'
__attribute__((noinline)) int work(int x) { return x * 3 + 1; }
int main(int argc, char **argv) { (void)argv; return work(argc); }
EOF2
gcc -O1 -g -o a a.c
objcopy --only-keep-debug a a.debug
bid=$(readelf -n a | sed -n 's/.*Build ID: //p')
waddr=$((0x$(nm a | sed -n 's/ T work$//p')))
[ "$waddr" -ge 4096 ] && [ "$waddr" -lt 8192 ] || skip "work is not in 0x1000..0x2000 here"

# 99,999 one-byte members with made-up build IDs, a's debug file in the middle.
python3 - "$bid" <<'PY' || fail "cannot write the archive"
import hashlib, io, sys, tarfile
bid = sys.argv[1]
real = open("a.debug", "rb").read()
with tarfile.open("many.tar", "w", format=tarfile.GNU_FORMAT) as t:
    for i in range(100000):
        if i == 50000:
            h, data = bid, real
        else:
            h, data = hashlib.sha1(b"member %d" % i).hexdigest(), b"x"
        ti = tarfile.TarInfo(".build-id/%s/%s.debug" % (h[:2], h[2:]))
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
PY
zstd -q --rm many.tar -o many.tar.zst || fail "zstd failed"
tar --zstd -tf many.tar.zst | sed -n 's|^\.build-id/\(..\)/\(.*\)\.debug$|\1\2|p' | sort >want.ids
check "GNU tar lists 100,000 debug members" test "$(wc -l <want.ids)" = 100000

cat >p.txtpb <<EOF2
sample_type { type: 1 unit: 2 }
sample { location_id: 1 value: 1 }
mapping { id: 1 memory_start: 4096 memory_limit: 8192 file_offset: 4096 filename: 3 build_id: 4 }
location { id: 1 mapping_id: 1 address: $waddr }
string_table: ""
string_table: "samples"
string_table: "count"
string_table: "/elsewhere/a"
string_table: "$bid"
EOF2
encode_txtpb p.txtpb p.pb
"$PSYM" symbolize --offline --debug-pkg many.tar.zst p.pb -o sym.pb 2>log ||
	fail "symbolize --debug-pkg failed: $(cat log)"
cat log
entry=$(echo "$XDG_CACHE_HOME"/psym/debs/many.tar.zst-*)
check "the entry has an index" test -f "$entry/.psym-build-ids"
sort "$entry/.psym-build-ids" >got.ids
check "the index lists exactly the build IDs of GNU tar's members" diff -q want.ids got.ids
check "each once" test "$(uniq <got.ids | wc -l)" = 100000
check "only the wanted debug file is extracted" \
	test "$(find "$entry/usr/lib/debug" -type f | wc -l)" = 1
check "work is named, as llvm-symbolizer names it in the binary" llvm_agree sym.pb a
check "llvm-symbolizer says work" sh -c "llvm-symbolizer --obj=a $waddr | grep -qx work"
check "and psym too" sh -c "\"$PSYM\" show sym.pb | grep -q 'work'"
# A second run reads the index instead of the archive; the same answer.
"$PSYM" symbolize --offline --debug-pkg many.tar.zst p.pb -o sym2.pb 2>log2 ||
	fail "second symbolize --debug-pkg failed: $(cat log2)"
check "a second run (from the index) names work too" llvm_agree sym2.pb a
finish
