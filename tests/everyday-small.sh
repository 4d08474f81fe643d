#!/bin/sh
# The small ones of issue 54: psym(1)'s synopsis has one command per line
# (as man renders it), no command's --help repeats a word ("named named"),
# and after a symbolize that found no file, its summary and top's note name
# the option that helps (--binary-path) instead of running symbolize again;
# with --binary-path the same profile is symbolized (nm names the function).
. "$top_srcdir/tests/lib.sh"
need gcc
need nm
need protoc
need man

# The synopsis as man renders it: every line starts a command.
MANWIDTH=300 man -l "$top_srcdir/doc/psym.1" 2>/dev/null |
	sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' | sed '1d;$d' | grep . >synopsis
check "psym(1)'s synopsis: $(wc -l <synopsis) lines, each one command" \
	sh -c '! grep -v "^ *psym[- ]" synopsis && test "$(grep -o "psym [a-z]" synopsis | wc -l)" = "$(wc -l <synopsis)"'

# No doubled word in any --help (words wrapped over lines count too).
for c in symbolize show check addr index top folded flame traces tree graph peek list archive stack merge; do
	"$PSYM" $c --help
done | tr '\n' ' ' | tr -s ' ' | grep -oE "(^| )([a-z]+) \2( |$)" >doubled
check "no command's --help repeats a word ($(tr '\n' ' ' <doubled))" test ! -s doubled

# A profile whose binary is elsewhere: the not-found lines name --binary-path.
cat >p.c <<'EOF'
__attribute__((noinline)) int work(int x) { return x * 3; }
int main(int argc, char **argv) { (void)argv; return work(argc); }
EOF
gcc -g -O1 -Wl,--build-id -o prog p.c
mkdir -p elsewhere
cp prog elsewhere/
addr=$(nm prog | awk '$3 == "work" { print $1 }')
bid=$(readelf -n prog | awk '/Build ID/ { print $3 }')
cat >p.txtpb <<EOF
sample_type { type: 1 unit: 2 }
sample { location_id: [1] value: [10] }
mapping { id: 1 memory_start: 0 memory_limit: 1048576 file_offset: 0 filename: 3 build_id: 4 }
location { id: 1 mapping_id: 1 address: $((0x$addr)) }
string_table: ""
string_table: "samples"
string_table: "count"
string_table: "/nonexistent/prog"
string_table: "$bid"
EOF
encode_txtpb p.txtpb p.pb
"$PSYM" symbolize --no-cache --no-index p.pb -o s.pb 2>sym.err
check "symbolize: the not-found line names --binary-path" \
	grep -q "^psym: mapping 1 '/nonexistent/prog': 0/1 locations: .*not found; give the binary with --binary-path DIR" sym.err
"$PSYM" top s.pb >/dev/null 2>top.err
check "top after it: the note names --binary-path" grep -q "not found: give the binary with --binary-path DIR" top.err
"$PSYM" symbolize --no-cache --no-index --binary-path elsewhere p.pb -o b.pb 2>/dev/null
"$PSYM" top b.pb >b.top 2>/dev/null
check "with --binary-path the function is named (nm: work)" grep -q " work$" b.top
finish
