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
one "psym top -n x names the range" "a whole number from 0" "$PSYM" top -n x "$IN"

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
# The cache options mean the same on every command, as the help says:
# --cache DIR holds the default index store (DIR/index), and addr takes
# --cache and --no-cache as symbolize does.
cat >p.c <<'C'
__attribute__((noinline)) int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * n; return s; }
int main(int argc, char **argv) { (void)argv; return work(argc) & 1; }
C
gcc -O1 -g -o prog p.c
work=0x$(nm prog | awk '$3 == "work" { print $1 }')
unset PSYM_INDEX_STORE
"$PSYM" index --cache "$T/C" prog >idx.out 2>idx.err
check "psym index --cache C puts the index in C/index ($(cat idx.err))" \
	sh -c 'ls C/index/*/*.psymidx >/dev/null 2>&1'
"$PSYM" addr --cache "$T/C" --no-index-build -v -e prog "$work" >a.out 2>a.err
check "psym addr --cache C answers from C/index ($(head -1 a.err))" grep -q "from the index" a.err
"$PSYM" addr --no-cache -e prog "$work" >nc.out 2>nc.err
check "psym addr --no-cache is accepted ($(head -1 nc.err))" grep -q "^work$" nc.out
"$PSYM" addr --filter --no-cache </dev/null >f.out 2>f.err
check "psym addr --filter --no-cache is accepted ($(head -1 f.err))" [ ! -s f.err ]
PSYM_INDEX_STORE=off
finish
