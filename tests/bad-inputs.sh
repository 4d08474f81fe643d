#!/bin/sh
# Every hostile input of testdata/bad/READERS (ELF, DWARF, mapping paths,
# kallsyms, perf maps, jitdump, .deb, crash logs) gives the outcome written
# there: a one-line error naming the file with exit 2, or exit 0 with the
# damage said (or the good part used); never a crash or a sanitizer report,
# never more than 60 s or 1 GB; no stray output files; .deb extraction
# writes nothing outside its cache.
. "$top_srcdir/tests/lib.sh"
bad=$top_srcdir/testdata/bad
readers_setup
mkdir -p home
# A private cache for --debug-pkg, so escapes would land under $PWD/home.
HOME=$PWD/home XDG_CACHE_HOME=$PWD/home/.cache
export HOME XDG_CACHE_HOME
(cd "$bad" && ls -la && cat ./*) | md5sum >before.sum
n=0
while IFS='	' read -r file want_rc args want; do
	n=$((n + 1))
	readers_argv "$n" "$file" "$args"
	rm -f out.pb stdout stderr
	rc=0
	# shellcheck disable=SC2086
	timeout 60 /usr/bin/time -f "%M" -o rss "$PSYM" $argv <"$f" >stdout 2>stderr || rc=$?
	rss=$(tail -n1 rss 2>/dev/null || echo 0)
	case $rss in *[!0-9]*|"") rss=0 ;; esac
	if grep -qE 'Sanitizer|runtime error|Segmentation|Aborted' stderr; then
		fail "$file: crash or sanitizer report"; head -20 stderr
	elif [ "$rc" != "$want_rc" ]; then
		fail "$file: exit $rc, want $want_rc: $(head -c 300 stderr)"
	elif [ "$rss" -gt 1048576 ]; then
		fail "$file: ${rss} KB max RSS"
	elif [ "$want_rc" = 2 ]; then
		lines=$(wc -l <stderr)
		if [ "$lines" != 1 ] || ! grep -qF "$file" stderr || ! grep -qF -- "$want" stderr; then
			fail "$file: want one line naming the file with '$want': $(cat stderr)"
		elif [ -e out.pb ] || ls -a | grep -q psym-tmp; then
			fail "$file: left an output file behind"
		else
			pass "$file: $(cat stderr)"
		fi
	elif [ "$want" = "-" ]; then
		# A filter: lines that are not frames go through byte for byte.
		if cmp -s stdout "$f"; then
			pass "$file: passed through unchanged"
		else
			fail "$file: output differs from input"
		fi
	elif grep -qF -- "$want" stdout stderr; then
		pass "$file: '$want'"
	else
		fail "$file: no '$want' in: $(head -c 400 stdout stderr)"
	fi
done <table
[ "$n" -ge 50 ] && pass "$n hostile inputs in READERS" || fail "only $n hostile inputs"
# Nothing escaped the cache: no files but the cache's own tree under home.
check "no .deb entry written outside the cache" \
	sh -c '! find home -path "*/escaped" -o -name evil -o -name passwd | grep -q .'
(cd "$bad" && ls -la && cat ./*) | md5sum >after.sum
check "inputs untouched, nothing written next to them" cmp -s before.sum after.sum
finish
