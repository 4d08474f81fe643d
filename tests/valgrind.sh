#!/bin/sh
# The hostile corpus under valgrind memcheck: no invalid access, no
# uninitialized use, no leak, on every error path: the profiles of
# testdata/bad/EXPECTED and the other readers' inputs of testdata/bad/READERS.
# (The sanitizer build runs the same corpus under ASan/UBSan in
# tests/bad-profiles.sh and tests/bad-inputs.sh.)
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
# Every reader's hostile inputs, with the arguments READERS gives them.
readers_setup
n=0
while IFS='	' read -r file want_rc args want; do
	n=$((n + 1))
	readers_argv "$n" "$file" "$args"
	rc=0
	# shellcheck disable=SC2086
	HOME=$PWD XDG_CACHE_HOME=$PWD/.cache timeout 300 $vg "$PSYM" $argv <"$f" >/dev/null 2>vg.out || rc=$?
	if [ $rc = 99 ] || grep -q "==[0-9]*==" vg.out; then
		fail "valgrind: $file"; head -30 vg.out
	else
		pass "valgrind clean: $file (exit $rc)"
	fi
	rm -f out.pb
done <table
finish
