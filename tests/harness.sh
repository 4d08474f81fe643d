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
finish
