#!/bin/sh
# Hostile perf.data files (testdata/bad/PERFDATA): each is read as far as
# it goes, with one line naming the file and the first bad record's
# offset, and the profile of what came before it kept; or refused in one
# line when nothing can be read. Never a crash, a sanitizer report or more
# than 1 GB. The synthetic good files are checked against perf itself
# when it is installed: perf reads the same samples.
. "$top_srcdir/tests/lib.sh"
bad=$top_srcdir/testdata/bad
tool=$top_builddir/tests/perf-topprof
grep -v '^#' "$bad/PERFDATA" | grep . >table
n=0
while IFS='	' read -r file want_rc want; do
	n=$((n + 1))
	rm -f out.pb.gz
	rc=0
	timeout 60 /usr/bin/time -f "%M" -o rss "$tool" "$bad/$file" out.pb.gz >stdout 2>stderr || rc=$?
	rss=$(tail -n1 rss 2>/dev/null || echo 0)
	case $rss in *[!0-9]*|"") rss=0 ;; esac
	samples=0
	[ -s out.pb.gz ] && samples=$("$PSYM" traces --sample-index cpu-clock_sample out.pb.gz 2>/dev/null |
		awk '$1 ~ /^[0-9]+$/ && NF >= 2 {n += $1} END {print n + 0}')
	if grep -qE 'Sanitizer|runtime error|Segmentation|Aborted' stderr; then
		fail "$file: crash or sanitizer report"; head -20 stderr
	elif [ "$rc" != "$want_rc" ]; then
		fail "$file: exit $rc, want $want_rc: $(head -c 300 stderr)"
	elif [ "$rss" -gt 1048576 ]; then
		fail "$file: ${rss} KB max RSS"
	elif [ "$want_rc" = 0 ]; then
		if [ "$samples" = "$want" ] && [ ! -s stderr ]; then
			pass "$file: read, $samples samples"
		else
			fail "$file: $samples samples, want $want: $(cat stderr)"
		fi
	elif [ "$(wc -l <stderr)" != 1 ] || ! grep -qF "$file" stderr || ! grep -qF -- "$want" stderr; then
		fail "$file: want one line naming the file with '$want': $(cat stderr)"
	elif [ "$want_rc" = 2 ] && [ -e out.pb.gz ]; then
		fail "$file: refused, yet a profile was written"
	elif [ "$want_rc" = 1 ] && [ "$samples" -lt 1 ]; then
		fail "$file: the samples before the bad record were lost"
	else
		pass "$file: $(cat stderr)${samples:+ ($samples samples kept)}"
	fi
done <table
[ "$n" -ge 14 ] && pass "$n hostile perf.data files" || fail "only $n hostile perf.data files"

# The command line keeps its promise too: psym symbolize writes what was
# read (exit 1, the one line) or refuses (exit 2, nothing written); the
# reports read the same way.
while IFS='	' read -r file want_rc want; do
	[ "$want_rc" = 0 ] && continue
	rm -f cli.pb.gz
	rc=0
	"$PSYM" symbolize --offline -q "$bad/$file" -o cli.pb.gz 2>stderr || rc=$?
	if [ "$rc" != "$want_rc" ] || [ "$(wc -l <stderr)" != 1 ] || ! grep -qF -- "$want" stderr; then
		fail "psym symbolize $file: exit $rc, want $want_rc: $(cat stderr)"
	elif [ "$want_rc" = 1 ] && ! "$PSYM" check cli.pb.gz >/dev/null 2>&1; then
		fail "psym symbolize $file: exit 1 but no valid profile of what was read"
	elif [ "$want_rc" = 2 ] && [ -e cli.pb.gz ]; then
		fail "psym symbolize $file: refused, yet a profile was written"
	else
		pass "psym symbolize $file: exit $rc, one line"
	fi
	rc=0
	"$PSYM" top "$bad/$file" >/dev/null 2>stderr || rc=$?
	[ "$rc" = "$want_rc" ] && grep -qF -- "$want" stderr &&
		pass "psym top $file: exit $rc" || fail "psym top $file: exit $rc, want $want_rc: $(cat stderr)"
done <table

# The generator's good files are perf.data to perf itself, with the same samples.
if command -v perf >/dev/null 2>&1; then
	for f in perf-good.data perf-good-pipe.data; do
		got=$(perf script -i "$bad/$f" -F pid,tid,ip 2>/dev/null | grep -c '^ *100/100')
		check "$f: perf script reads the same 3 samples ($got)" test "$got" = 3
	done
fi
[ "$n_fail" = 0 ]
