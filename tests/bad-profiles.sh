#!/bin/sh
# Every hostile profile in testdata/bad/EXPECTED gets exit 2 and exactly one
# line on stderr that names the file and the problem, from every command
# that reads profiles; no output file is left behind; nothing crashes.
. "$top_srcdir/tests/lib.sh"
bad=$top_srcdir/testdata/bad
grep -v '^#' "$bad/EXPECTED" | while IFS='	' read -r file want; do
	[ -n "$file" ] || continue
	for cmd in check show symbolize; do
		case $cmd in
		symbolize) set -- symbolize "$bad/$file" -o out.pb.gz ;;
		*) set -- "$cmd" "$bad/$file" ;;
		esac
		rc=0
		timeout 60 "$PSYM" "$@" >stdout 2>stderr || rc=$?
		lines=$(wc -l <stderr)
		if [ "$rc" != 2 ]; then
			fail "$cmd $file: exit $rc, want 2"
		elif [ "$lines" != 1 ]; then
			fail "$cmd $file: $lines lines on stderr, want 1"; cat stderr
		elif ! grep -qF "$file" stderr; then
			fail "$cmd $file: error does not name the file: $(cat stderr)"
		elif ! grep -qF -- "$want" stderr; then
			fail "$cmd $file: error lacks '$want': $(cat stderr)"
		elif [ -e out.pb.gz ] || ls -a | grep -q psym-tmp; then
			fail "$cmd $file: left an output file behind"
		else
			pass "$cmd $file"
		fi
	done
	echo "$n_fail" >fails.$$
done
# The while loop runs in a subshell: collect its verdict from the file.
[ -f fails.$$ ] && [ "$(cat fails.$$)" = 0 ] && fails=0 || fails=1

# Paths that are neither regular files nor pipes must not hang or crash
# psym. (A named pipe is read, as cat reads it: tests/small-things.sh.)
mkfifo fifo
mkdir adir
(exec 3>fifo) &
rc=0
timeout 10 "$PSYM" check fifo 2>stderr || rc=$?
check "a pipe whose writer closes at once: exit 2 ($rc), empty" sh -c "[ $rc = 2 ] && grep -q 'empty file' stderr"
for p in adir /dev/zero /dev/null; do
	rc=0
	timeout 10 "$PSYM" check "$p" 2>stderr || rc=$?
	if [ "$rc" = 2 ] && grep -q "not a regular file" stderr; then
		pass "non-regular input $p refused"
	else
		fail "non-regular input $p: exit $rc: $(cat stderr)"
	fi
done
finish && [ "$fails" = 0 ]
