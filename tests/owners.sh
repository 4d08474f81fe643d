#!/bin/sh
# One owner each (issue 49): scripts/check-owners finds no binary search
# written out beside src/base/search.h's and no "%s.d" beside
# src/collect/sidenames.h's, in the tree; on a small tree of its own it
# must find a hand-written lower-bound loop and a side-directory literal,
# and pass over the owners themselves.
. "$top_srcdir/tests/lib.sh"
CO=$top_srcdir/scripts/check-owners

"$CO" "$top_srcdir" >tree.out 2>&1
check "the tree writes no owned job out again (exit $?)" [ $? = 0 ]
head -20 tree.out

mkdir -p t/src/base t/src/collect t/src/obj t/cli
cp "$top_srcdir/src/base/search.h" t/src/base/
cp "$top_srcdir/src/collect/sidenames.h" t/src/collect/
printf 'int f(void) { return 0; }\n' >t/src/obj/ok.c
"$CO" "$PWD/t" >owners.out 2>&1
check "the owners alone pass (exit $?)" [ $? = 0 ]
cat >t/src/obj/find.c <<'EOC'
static unsigned long find(const unsigned long *v, unsigned long n, unsigned long key)
{
	unsigned long lo = 0, hi = n;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (v[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
EOC
"$CO" "$PWD/t" >loop.out 2>&1
check "a hand-written lower bound fails (exit $?)" [ $? = 1 ]
check "... naming its line and the owner" grep -q "src/obj/find.c:6:.*(use PSYM_LOWER_BOUND" loop.out
rm t/src/obj/find.c
printf 'int m(int l, int r) { return (l + r) / 2; }\n' >t/src/obj/mid.c
"$CO" "$PWD/t" >mid.out 2>&1
check "a midpoint (l + r) / 2 fails too (exit $?)" [ $? = 1 ]
rm t/src/obj/mid.c
printf '#include <stdio.h>\nvoid s(char *b, const char *p) { sprintf(b, "%%s.d", p); }\n' >t/cli/side.c
"$CO" "$PWD/t" >side.out 2>&1
check "a side-directory literal in cli/ fails (exit $?)" [ $? = 1 ]
check "... naming it" grep -q 'cli/side.c:2:.*PSYM_SIDE_DIR_FMT' side.out
check "an empty tree is refused (exit 2)" sh -c '"$1" "$2" >/dev/null 2>&1; [ $? = 2 ]' sh "$CO" "$PWD/none"
finish
