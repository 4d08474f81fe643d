#!/bin/sh
# The hostile-profile corpus under valgrind memcheck: no invalid access, no
# uninitialized use, no leak, on every error path. (The sanitizer build runs
# the same corpus under ASan/UBSan in tests/bad-profiles.sh.)
. "$top_srcdir/tests/lib.sh"
need valgrind
if ldd "$PSYM" 2>/dev/null | grep -q -e libasan -e libubsan; then
	skip "sanitizer build: valgrind and ASan do not mix"
fi
vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
for f in "$top_srcdir"/testdata/bad/*.pb* "$top_srcdir"/testdata/bad/*.bin "$top_srcdir"/testdata/sample.pb.gz; do
	case $f in *.txtpb|*gzip-bomb*) continue ;; esac
	rc=0
	$vg "$PSYM" symbolize "$f" -o out.pb.gz >/dev/null 2>vg.out || rc=$?
	if [ $rc = 99 ] || grep -q "==[0-9]*==" vg.out; then
		fail "valgrind: $(basename "$f")"; head -30 vg.out
	else
		pass "valgrind clean: $(basename "$f") (exit $rc)"
	fi
done
finish
