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

# ---- generated: sparse files far over the size caps (too big to keep in
# testdata). Each is refused from its size, naming the file, the size and
# the option that raises the cap, without reading it: well under 20 s and,
# outside ASan builds, in 1 GB of address space. Reading them through took
# 30 s (kallsyms, perf map) or a 2 GiB buffer (a profile).
truncate -s 4G sparse-4g && cp --sparse=always sparse-4g sparse-4g.dump
vlimit=1048576
if ldd "$top_builddir/.libs/psym" "$PSYM" 2>/dev/null | grep -q -e libasan -e libubsan; then
	vlimit=unlimited # ASan reserves terabytes of address space
fi
# huge NAME WANT_RC WANT_TEXT ARGS...: one run under the guards.
huge() {
	name=$1 want_rc=$2 want=$3
	shift 3
	rm -f out.pb
	rc=0
	(ulimit -v $vlimit && exec timeout 20 "$PSYM" "$@") >stdout 2>stderr || rc=$?
	if [ "$rc" != "$want_rc" ]; then
		fail "$name: exit $rc, want $want_rc: $(head -c 300 stderr)"
	elif ! grep -qF -- "$want" stderr; then
		fail "$name: no '$want' in: $(head -c 400 stderr)"
	elif [ "$want_rc" = 2 ] && { [ "$(wc -l <stderr)" != 1 ] || [ -e out.pb ]; }; then
		fail "$name: want one line and no output: $(cat stderr)"
	else
		pass "$name: $(grep -F -- "$want" stderr | head -c 300)"
	fi
}
huge "4 GiB sparse kallsyms copy" 0 \
	"'$PWD/sparse-4g': 4294967296 bytes, larger than the limit of 268435456 bytes (--limit kallsyms-bytes=N)" \
	symbolize --kallsyms "$PWD/sparse-4g" kernel.pb -o out.pb
huge "4 GiB sparse perf map" 0 \
	"'$PWD/sparse-4g': 4294967296 bytes, larger than the limit of 1073741824 bytes (--limit perfmap-bytes=N)" \
	symbolize --perf-map "$PWD/sparse-4g" jit.pb -o out.pb
huge "4 GiB sparse jitdump" 0 \
	"'$PWD/sparse-4g.dump': 4294967296 bytes, larger than the limit of 1073741824 bytes (--limit perfmap-bytes=N)" \
	symbolize --perf-map "$PWD/sparse-4g.dump" jit.pb -o out.pb
huge "4 GiB sparse profile" 2 \
	"'sparse-4g': 4294967296 bytes, larger than the limit of 1073741824 bytes (--max-input-size N)" \
	symbolize sparse-4g -o out.pb
huge "4 GiB sparse profile, raised cap still checked" 2 \
	"'sparse-4g': 4294967296 bytes, larger than the limit of 2147483648 bytes (--max-input-size N)" \
	top --max-input-size 2G sparse-4g
# A pipe has no size: read up to the cap, then refused.
rc=0
head -c 3000000 /dev/zero | (ulimit -v $vlimit && exec timeout 20 "$PSYM" top --max-input-size 1M -) \
	>stdout 2>stderr || rc=$?
check "profile on a pipe over --max-input-size: exit 2, cap and option named" \
	sh -c "[ $rc = 2 ] && grep -qxF \"psym: '<stdin>': larger than the limit of 1048576 bytes (--max-input-size N)\" stderr"
# /proc/kallsyms has no size either: refused once past the cap.
if [ -r /proc/kallsyms ] && [ "$(head -c 2000 /proc/kallsyms | wc -c)" = 2000 ]; then
	huge "/proc/kallsyms past --limit kallsyms-bytes=1K" 0 \
		"'/proc/kallsyms': larger than the limit of 1024 bytes (--limit kallsyms-bytes=N)" \
		symbolize --limit kallsyms-bytes=1K --kallsyms /proc/kallsyms kernel.pb -o out.pb
fi
# Nothing escaped the cache: no files but the cache's own tree under home.
check "no .deb entry written outside the cache" \
	sh -c '! find home -path "*/escaped" -o -name evil -o -name passwd | grep -q .'
(cd "$bad" && ls -la && cat ./*) | md5sum >after.sum
check "inputs untouched, nothing written next to them" cmp -s before.sum after.sum
finish
