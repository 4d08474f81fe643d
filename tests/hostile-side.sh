#!/bin/sh
# Side files of psym-collect --stack-copy that used to hang psym symbolize
# or make it run for a long time (issue 26): a FIFO at IN.d/ustacks.gz is
# refused by its type with one line naming it, never opened for reading.
. "$top_srcdir/tests/lib.sh"
need protoc
need timeout

# A provisional profile that asks for unwinding (psym-collect's comment).
cat >p.txtpb <<'TXT'
sample_type { type: 1 unit: 2 }
sample { location_id: [1] value: 1 }
mapping { id: 1 memory_start: 4096 memory_limit: 1048576 file_offset: 0 filename: 3 build_id: 0 }
location { id: 1 mapping_id: 1 address: 4108 }
string_table: ""
string_table: "samples"
string_table: "count"
string_table: "/nonexistent/prog"
string_table: "psym-collect: user stacks need unwinding: stack copies in OUT.d/ustacks.gz"
comment: 4
TXT
encode_txtpb p.txtpb p.pb

# ---- a FIFO at IN.d/ustacks.gz
mkdir p.pb.d
mkfifo p.pb.d/ustacks.gz
rc=0
timeout 20 "$PSYM" symbolize --offline p.pb -o out.pb >stdout 2>stderr || rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <stderr)" = 1 ] && grep -qF "p.pb.d/ustacks.gz': not a regular file" stderr; then
	pass "FIFO side file: refused at once: $(cat stderr)"
else
	fail "FIFO side file: exit $rc (124: hung): $(head -c 300 stderr)"
fi
[ ! -e out.pb ] && pass "FIFO side file: no output" || fail "FIFO side file: output written"
rm p.pb.d/ustacks.gz
finish
