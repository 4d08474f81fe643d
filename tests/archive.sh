#!/bin/sh
# psym archive without BPF: profiles made here (protoc --encode) naming
# binaries built here, one with a 150-character name (pax records), one
# mapping without a build ID, one whose file is gone, one of another
# build at its path. Python's tarfile and GNU tar read the archive; every
# member is byte-identical (cmp) to its source and named by readelf's build
# ID; --exclude-path, --max-size, the default name, and a failed run
# leaving nothing behind; --debug-pkg reads it back.
. "$top_srcdir/tests/lib.sh"
need gcc
need protoc
need zstd
need python3
need objcopy

cat >a.c <<'EOF2'
int main(void) { return 0; }
EOF2
long=$(printf 'x%.0s' $(seq 1 150))
mkdir -p bin dbg
gcc -O1 -g -o "bin/$long" a.c
gcc -O1 -g -DOTHER=1 -o bin/other a.c -Wl,--build-id=0x1234567890abcdef1234567890abcdef12345678
gcc -O1 -g -o bin/gone a.c -Wl,--build-id=0xaaaabbbbccccddddeeeeffff0000111122223333
gcc -O1 -o bin/stripped a.c
objcopy --only-keep-debug "bin/$long" long.debug
bid() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }
lid=$(bid "bin/$long")
# The long binary's separate debug file, in a .build-id tree of our own.
mkdir -p "dbg/.build-id/$(echo "$lid" | cut -c1-2)"
cp long.debug "dbg/.build-id/$(echo "$lid" | cut -c1-2)/$(echo "$lid" | cut -c3-).debug"
rm bin/gone
cat >p.txtpb <<EOF2
sample_type { type: 1 unit: 2 }
sample { location_id: 1 location_id: 2 location_id: 3 location_id: 4 value: 1 }
mapping { id: 1 memory_start: 4096 memory_limit: 8192 file_offset: 4096 filename: 3 build_id: 4 }
mapping { id: 2 memory_start: 16384 memory_limit: 20480 file_offset: 4096 filename: 5 build_id: 6 }
mapping { id: 3 memory_start: 32768 memory_limit: 36864 file_offset: 4096 filename: 7 build_id: 8 }
mapping { id: 4 memory_start: 65536 memory_limit: 69632 file_offset: 4096 filename: 9 }
location { id: 1 mapping_id: 1 address: 4400 }
location { id: 2 mapping_id: 2 address: 16500 }
location { id: 3 mapping_id: 3 address: 32800 }
location { id: 4 mapping_id: 4 address: 65600 }
string_table: ""
string_table: "samples"
string_table: "count"
string_table: "$T/bin/$long"
string_table: "$lid"
string_table: "$T/bin/other"
string_table: "99999999999999999999999999999999deadbeef"
string_table: "$T/bin/gone"
string_table: "aaaabbbbccccddddeeeeffff0000111122223333"
string_table: "$T/bin/stripped"
EOF2
encode_txtpb p.txtpb p.pb

"$PSYM" archive --debug-dir "$T/dbg" p.pb 2>log || fail "psym archive failed: $(cat log)"
cat log
check "the default name is PROFILE without .pb, plus .tar.zst" test -s p.tar.zst
check "the summary counts 1 binary, 1 debug file, 2 not found, 1 without a build ID" \
	grep -q "1 binaries and 1 debug files for 3 mappings (2 not found, 0 excluded, 1 without a build ID)" log
check "a file of another build at the path is not packed (named in the log)" \
	grep -q "mapping 2 '$T/bin/other': no file with build ID 9999" log
check "a file that is gone is named" grep -q "mapping 3 '$T/bin/gone': no file with build ID aaaa" log
mkdir x
zstd -q -dc p.tar.zst >p.tar
python3 - p.tar <<'EOF2' >members || fail "Python's tarfile cannot read the archive"
import sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    for m in t:
        print(m.type.decode(), m.name, m.linkname)
    t.extractall("x")
EOF2
cat members
l1=$(echo "$lid" | cut -c1-2) l2=$(echo "$lid" | cut -c3-)
check "the binary is .build-id/NN/REST, byte for byte (cmp)" cmp "bin/$long" "x/.build-id/$l1/$l2"
check "its debug file is .build-id/NN/REST.debug, byte for byte" cmp long.debug "x/.build-id/$l1/$l2.debug"
check "BUILDID/BASENAME (150 characters: a pax path) links to the binary" \
	grep -q "^1 $lid/$long .build-id/$l1/$l2$" members
check "the linked file is the binary" cmp "bin/$long" "x/$lid/$long"
check "GNU tar lists the same members" sh -c "tar tf p.tar | sort >gnu && awk '{print \$2}' members | sort | diff -u - gnu"
check "GNU tar finds no checksum error" sh -c "tar xf p.tar -C x --overwrite 2>&1 | grep -q . && exit 1 || exit 0"

"$PSYM" archive --debug-dir "$T/dbg" --exclude-path "$T/bin" p.pb -o excl.tar.zst 2>log.excl
check "--exclude-path: nothing of bin/ packed" grep -q "0 binaries and 0 debug files for 0 mappings (0 not found, 3 excluded" log.excl
expect_exit 2 "--max-size under the files is refused" \
	"$PSYM" archive --debug-dir "$T/dbg" --max-size 2000 p.pb -o cap.tar.zst 2>log.cap
check "the refusal names the cap and the file" grep -q "size cap of 2000 bytes at '.*'" log.cap
check "the refusal is one line" test "$(wc -l <log.cap)" = 1
check "nothing left behind" sh -c "! ls cap.tar.zst* .cap.tar.zst* 2>/dev/null | grep -q ."
expect_exit 2 "an invalid --max-size is a usage error" "$PSYM" archive --max-size 12Q p.pb
expect_exit 2 "a missing profile is refused" "$PSYM" archive nothere.pb

# --debug-pkg reads it back: the long binary's main is found by build ID.
sed "s|$T/bin/|/elsewhere/|" p.txtpb >moved.txtpb
encode_txtpb moved.txtpb moved.pb
"$PSYM" symbolize --no-cache --debug-pkg p.tar.zst moved.pb -o sym.pb 2>log.sym ||
	fail "symbolize --debug-pkg failed: $(cat log.sym)"
check "--debug-pkg ARCHIVE: the binary is found in it" grep -q "mapping 1 '/elsewhere/$long': 1/1 locations from '.*/.build-id/$l1/$l2'" log.sym
finish
