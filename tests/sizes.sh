#!/bin/sh
# No C file over 1,000 lines and no function over 150 (issue 37: a file or
# a function that large does more than one job): scripts/check-sizes on the
# tree. On a small tree of its own it must find a file one line over and a
# function one line over, and pass them at the limits themselves.
. "$top_srcdir/tests/lib.sh"
need python3
CS=$top_srcdir/scripts/check-sizes

"$CS" "$top_srcdir" >tree.out 2>&1
rc=$?
check "no file over 1,000 lines, no function over 150 (exit $rc)" [ $rc = 0 ]
head -20 tree.out

# body N: a function whose body is N lines.
body() {
	printf 'static int f%s(int x)\n{\n' "$1"
	i=0
	while [ $i -lt "$1" ]; do
		echo "	x += $i;"
		i=$((i + 1))
	done
	printf '}\n'
}
mkdir -p t/src/x
body 150 >t/src/x/at.c
"$CS" t >at.out 2>&1
check "a function of 150 lines passes (exit $?)" [ $? = 0 ]
body 151 >t/src/x/over.c
rc=0
"$CS" t >over.out 2>&1 || rc=$?
check "a function of 151 lines fails (exit $rc), named" \
	sh -c '[ "$1" = 1 ] && grep -q "src/x/over.c:.*static int f151: 151 lines (at most 150)" over.out' sh "$rc"
rm t/src/x/over.c
awk 'BEGIN { for (i = 0; i < 1000; i++) print "int v" i ";" }' >t/src/x/big.c
"$CS" t >big.out 2>&1
check "a file of 1,000 lines passes (exit $?)" [ $? = 0 ]
echo "int last;" >>t/src/x/big.c
rc=0
"$CS" t >big2.out 2>&1 || rc=$?
check "a file of 1,001 lines fails (exit $rc), named" \
	sh -c '[ "$1" = 1 ] && grep -q "src/x/big.c: 1001 lines (at most 1000)" big2.out' sh "$rc"
finish
