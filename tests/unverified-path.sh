#!/bin/sh
# A mapping without a build ID (issue 42, item 4): psym takes the file at
# its path, as pprof does, but never silently. The summary counts such
# mappings, each one's line says "unverified", and --explain says why; a
# mapping with a build ID, or a file the user named (--main-binary), is not
# flagged. Why it matters: the program rebuilt at the same path gives other
# answers for the same addresses (oracle: llvm-symbolizer on each build),
# and psym still says they are unverified. A batch counts them across its
# profiles.
. "$top_srcdir/tests/lib.sh"
need gcc
need protoc
need nm
need llvm-symbolizer

cat >prog.c <<'EOF2'
__attribute__((noinline)) int work_one(int x) { return x * 3 + 1; }
__attribute__((noinline)) int work_two(int x) { return x * 5 + 2; }
int main(int argc, char **argv) { (void)argv; return work_one(argc) + work_two(argc); }
EOF2
# The rebuild: other functions first, so work_one's old address is elsewhere.
cat >prog2.c <<'EOF2'
__attribute__((noinline)) int other_a(int x) { return x * 7 + 3; }
__attribute__((noinline)) int other_b(int x) { return x * 11 + 4; }
__attribute__((noinline)) int other_c(int x) { return x * 13 + 5; }
__attribute__((noinline)) int work_one(int x) { return x * 3 + 1; }
int main(int argc, char **argv) { (void)argv; return other_a(argc) + other_b(argc) + other_c(argc) + work_one(argc); }
EOF2
mkdir -p bin
gcc -O1 -g -no-pie -Wl,--build-id=none -o bin/nobid prog.c || unbuildable "prog without build ID"
gcc -O1 -g -no-pie -Wl,--build-id -o bin/withbid prog.c || unbuildable "prog with build ID"
bid=$(readelf -n bin/withbid | sed -n 's/.*Build ID: *//p')
a1=$(nm bin/nobid | awk '$3 == "work_one" {print $1}')
a2=$(nm bin/withbid | awk '$3 == "work_two" {print $1}')
check "the fixture: one build without a build ID, one with (${bid:-none})" \
	sh -c '[ -n "$1" ] && ! readelf -n bin/nobid | grep -q "Build ID"' sh "$bid"

# profile.txtpb: two mappings (non-PIE: address = virtual address), one
# location each, on work_one of nobid and work_two of withbid.
cat >p.txtpb <<EOF2
sample_type { type: 1 unit: 2 }
sample { location_id: 1 location_id: 2 value: 10 }
mapping { id: 1 memory_start: 0x400000 memory_limit: 0x500000 file_offset: 0 filename: 3 }
mapping { id: 2 memory_start: 0x600000 memory_limit: 0x700000 file_offset: 0 filename: 4 build_id: 5 }
location { id: 1 mapping_id: 1 address: 0x$a1 }
location { id: 2 mapping_id: 2 address: 0x$(printf %x $((0x$a2 - 0x400000 + 0x600000))) }
string_table: ""
string_table: "samples"
string_table: "count"
string_table: "$PWD/bin/nobid"
string_table: "$PWD/bin/withbid"
string_table: "$bid"
EOF2
encode_txtpb p.txtpb p.pb || fail "protoc --encode"

names() { "$PSYM" show --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
fn = {f["id"]: f["name"] for f in d["functions"]}
print(" ".join(fn[l["lines"][0]["function_id"]] if l.get("lines") else "-" for l in d["locations"]))'; }

"$PSYM" symbolize --no-cache p.pb -o s.pb 2>s.err || fail "symbolize: $(tail -1 s.err)"
cat s.err
want=$(llvm-symbolizer -e bin/nobid 0x$a1 | head -1)
got=$(names s.pb)
check "the names as llvm-symbolizer gives them ($got)" [ "$got" = "$want work_two" ]
check "the summary counts the one mapping matched by path alone" \
	grep -q "^psym: 1 mapping without a build ID in the profile, matched to the file at its path alone: unverified" s.err
check "mapping 1's line says unverified" grep -q "mapping 1 '.*nobid':.*; unverified: the profile has no build ID for it" s.err
check "mapping 2 (build ID checked) does not" sh -c '! grep "mapping 2 " s.err | grep -q unverified'

"$PSYM" symbolize --no-cache --explain p.pb -o x.pb 2>x.err || fail "symbolize --explain: $(tail -1 x.err)"
check "--explain: the path-only candidate is 'used, unverified'" \
	grep -q "tried '.*/bin/nobid': used, unverified (the mapping has no build ID: any file at this path is taken)" x.err
check "--explain: the other 'used (build ID matches)'" grep -q "tried '.*/bin/withbid': used (build ID matches)" x.err

"$PSYM" symbolize --no-cache --main-binary bin/nobid p.pb -o m.pb 2>m.err || fail "symbolize --main-binary: $(tail -1 m.err)"
check "a file the user named (--main-binary) is not flagged" sh -c '! grep -q unverified m.err'

# The program rebuilt at the same path: the same address now answers
# otherwise (llvm-symbolizer on the new file), and psym says it cannot tell.
gcc -O1 -g -no-pie -Wl,--build-id=none -o bin/nobid prog2.c || unbuildable "the rebuild"
want2=$(llvm-symbolizer -e bin/nobid 0x$a1 | head -1)
"$PSYM" symbolize --no-cache p.pb -o r.pb 2>r.err || fail "symbolize after the rebuild: $(tail -1 r.err)"
got=$(names r.pb)
check "rebuilt: another answer ($want -> $got), as llvm-symbolizer on the new file" \
	sh -c '[ "$1" != "$2" ] && [ "$3" = "$2 work_two" ]' sh "$want" "$want2" "$got"
check "rebuilt: still flagged unverified" grep -q "^psym: 1 mapping without a build ID.*unverified" r.err

mkdir -p out
cp p.pb q.pb
"$PSYM" symbolize --no-cache p.pb q.pb -o out 2>b.err || fail "batch: $(tail -1 b.err)"
check "a batch of two counts both profiles' mappings" \
	grep -q "^psym: 2 mappings without a build ID in their profiles matched by path alone: unverified" b.err
printf 'p.pb\tout/p2.pb\nq.pb\tout/q2.pb\n' >batch.manifest
"$PSYM" symbolize --no-cache --manifest batch.manifest --results res.jsonl 2>/dev/null
check "--results: each profile's line has \"unverified\":1" \
	sh -c '[ "$(grep -c "\"unverified\":1," res.jsonl)" = 2 ]'
"$PSYM" symbolize -q --no-cache p.pb -o qq.pb 2>q.err
check "-q: nothing said" test ! -s q.err
finish
