#!/bin/sh
# The test harness itself (tests/lib.sh): a test that checked nothing fails,
# a fixture that could not be built makes a skip, a failure fails.
. "$top_srcdir/tests/lib.sh"

verdict() {
	# Each case in its own shell, with lib.sh as every test uses it.
	( cd "$T" && sh -c ". '$top_srcdir/tests/lib.sh'; $1; finish" >/dev/null 2>&1 )
	echo $?
}
check "no check at all: fails" [ "$(verdict ':')" = 1 ]
check "one pass: passes" [ "$(verdict 'pass x')" = 0 ]
check "a failure among passes: fails" [ "$(verdict 'pass x; fail y')" = 1 ]
check "an unbuildable fixture: skips (77)" [ "$(verdict 'pass x; unbuildable f reason')" = 77 ]
check "unbuildable and a failure: fails" [ "$(verdict 'pass x; fail y; unbuildable f r')" = 1 ]

# Cleaning up (issue 29 item 11): in bash (make check's shell) and dash, a
# test that ends, fails or is killed removes its directory and stops every
# process it started: in the background, in a subshell, double-forked.
for sh in bash dash; do
	command -v $sh >/dev/null || continue
	for how in "exit 0" "exit 1" "kill -TERM \$\$" "kill -INT \$\$"; do
		rm -f inner.T
		TMPDIR=$T $sh -c ". '$top_srcdir/tests/lib.sh'; echo \$T >'$T/inner.T'
			sleep 600 & (sleep 601 &) ; sh -c 'sleep 602' & sleep 0.2; $how" >/dev/null 2>&1
		d=$(cat inner.T 2>/dev/null)
		left=$(for e in /proc/[0-9]*/environ; do
			{ tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qxF "PSYM_TEST_MARK=$d" && echo "${e%/environ}"
		done)
		check "$sh, a test ending by '$how': its directory removed" [ -n "$d" ] && [ ! -e "$d" ]
		check "$sh, a test ending by '$how': no process of it left${left:+ ($left)}" [ -z "$left" ]
	done
done
finish
