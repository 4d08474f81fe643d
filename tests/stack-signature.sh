#!/bin/sh
# psym stack --group-by signature skips the crash-reporting machinery at
# the top of the crashed thread (abort, raise, pthread_kill, assert's
# helpers, the C++ terminate handlers and throw), as crash reporters do
# (issue 54 item 4): the signature starts at the program's own frame. The
# oracle is gdb's bt of the same core: the first frame in the test's own
# source file is the signature's first, and gdb shows the machinery above
# it (so the list had something to skip). Programs: abort(), a failed
# assert(), an uncaught C++ exception; cores made by gdb (generate-core-file).
. "$top_srcdir/tests/lib.sh"
need gcc
need g++
need gdb
gdb -q -batch -ex run --args /bin/true >/dev/null 2>&1 || skip "gdb cannot run programs here (ptrace)"

cat >ab.c <<'EOF'
#include <stdlib.h>
__attribute__((noinline)) void check_input(int x)
{
	if (x > 1)
		abort();
}
int main(int argc, char **argv)
{
	(void)argv;
	check_input(argc + 1);
	return 0;
}
EOF
cat >as.c <<'EOF'
#include <assert.h>
__attribute__((noinline)) void validate_count(int x)
{
	assert(x == 0);
}
int main(int argc, char **argv)
{
	(void)argv;
	validate_count(argc);
	return 0;
}
EOF
cat >th.cc <<'EOF'
#include <stdexcept>
__attribute__((noinline)) void parse_header(int x)
{
	if (x > 0)
		throw std::runtime_error("bad header");
}
int main(int argc, char **)
{
	parse_header(argc);
	return 0;
}
EOF

for prog in ab as th; do
	src=$(ls $prog.c $prog.cc 2>/dev/null)
	case $src in *.cc) cc=g++ ;; *) cc=gcc ;; esac
	$cc -g -O1 -o $prog "$src" || { fail "$prog: cannot build"; continue; }
	timeout 300 gdb -q -batch -ex run -ex "generate-core-file $prog.core" --args ./$prog >$prog.log 2>&1
	[ -s $prog.core ] || { fail "$prog: gdb made no core"; continue; }
	gdb -batch -ex bt -c $prog.core ./$prog >$prog.bt 2>&1
	# gdb: "#N  0x... in NAME (ARGS) at FILE:LINE" or "#N  NAME (ARGS) at FILE:LINE".
	own=$(sed -n "s/^#[0-9]* *\(0x[0-9a-f]* in \)\{0,1\}\([A-Za-z_][A-Za-z_0-9:]*\) (.* at $src:[0-9]*\$/\2/p" $prog.bt | head -1)
	above=$(grep -c '^#' $prog.bt)
	"$PSYM" stack -o $prog.pb.gz --group-by signature --binary-path . $prog.core 2>$prog.err
	"$PSYM" traces $prog.pb.gz | sed -n 's/^ *signature: *//p' | head -1 >$prog.sig
	first=$(sed 's/;.*//; s/(.*//' $prog.sig)
	if [ -n "$own" ] && [ "$first" = "$own" ] && [ "$above" -gt 2 ]; then
		pass "$prog: the signature starts at $own, gdb's first frame in $src ($(cat $prog.sig | cut -c1-100))"
	else
		fail "$prog: signature '$(cat $prog.sig)', gdb's first own frame '$own'"
		sed 's/^/#   /' $prog.bt
	fi
	# The machinery gdb shows above it is in none of the signature's frames.
	if grep -Eq '(^|;)(abort|raise|__pthread_kill_implementation|__assert_fail|std::terminate|__cxa_throw)[(;]' $prog.sig; then
		fail "$prog: the signature keeps the machinery: $(cat $prog.sig)"
	else
		pass "$prog: no abort/raise/assert/terminate frame in the signature"
	fi
done
finish
