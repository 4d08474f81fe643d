#!/bin/sh
# Usage errors keep the README's promise: one line that names what is wrong
# (the option as given, a number's valid range), exit 2, for psym's every
# command and for psym-collect (no argv[0] path, no second line from getopt).
. "$top_srcdir/tests/lib.sh"
need gcc

# one NAME WANT CMD...: CMD exits 2 with exactly one line on stderr containing WANT.
one() {
	name=$1 want=$2
	shift 2
	"$@" >u.out 2>u.err
	rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <u.err)" = 1 ] && grep -qF -- "$want" u.err; then
		pass "$name: $(cat u.err)"
	else
		fail "$name: exit $rc, want 2 and one line with '$want':"
		sed 's/^/	/' u.err
	fi
}

IN=$top_srcdir/testdata/sample.pb.gz
for cmd in top folded flame show check merge symbolize addr index archive; do
	one "psym $cmd --bogus" "unrecognized option '--bogus'" "$PSYM" "$cmd" --bogus "$IN"
done
one "psym top --tree (pprof's spelling)" "unrecognized option '--tree'" "$PSYM" top --tree "$IN"
one "psym top -n with no value" "option '-n' needs an argument" "$PSYM" top "$IN" -n
one "psym top -Z" "invalid option '-Z'" "$PSYM" top -Z "$IN"
one "psym addr --exe with no value" "option '--exe' needs an argument" "$PSYM" addr --exe
one "psym addr --filter=x" "option '--filter' takes no argument" "$PSYM" addr --filter=x
one "psym symbolize -j 0 names the range" "a whole number from 1 to 256" "$PSYM" symbolize -j 0 "$IN"
one "psym top -n x names the range" "a whole number from 1" "$PSYM" top -n x "$IN"

# psym index of a file that is no ELF: its path once, exit 2 (bad input).
printf 'int x;\n' >app.cpp
one "psym index of a source file" "'$T/app.cpp': not an ELF file" "$PSYM" index --index-store st "$T/app.cpp"
check "...the path is named once" [ "$(grep -o "app.cpp" u.err | wc -l)" = 1 ]

COLLECT=${PSYM_COLLECT:-$top_builddir/psym-collect}
if [ -x "$COLLECT" ]; then
	one "psym-collect --bogus" "psym-collect: unrecognized option '--bogus'" "$COLLECT" --bogus
	check "...names the program, not its path" sh -c '! grep -q "/psym-collect" u.err'
	one "psym-collect --stack-copy 10 names the range" "a whole number from 64 to 32768" \
		"$COLLECT" --stack-copy 10
	one "psym-collect -F 0 names the range" "a whole number from 1 to 100000" "$COLLECT" -F 0
	one "psym-collect -p with no value" "option '-p' needs an argument" "$COLLECT" -p
	one "psym-collect --no-user=1" "option '--no-user' takes no argument" "$COLLECT" --no-user=1
else
	echo "SKIP part: psym-collect is not built (--disable-collector)"
fi
finish
