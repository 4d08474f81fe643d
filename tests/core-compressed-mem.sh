#!/bin/sh
# A compressed core is read within --max-memory (issue 53 defect 1): it is
# inflated as a stream into an unlinked temporary file ($TMPDIR), zeros as
# holes, not into memory. A .zst core of 1.5 GiB (mostly a segment of
# zeros, as real cores are) under --max-memory 256M peaks below 400 MB of
# RSS (GNU time's %M; psym held the whole core before: about 1.6 GB), and
# .xz and .gz ones of 320 MiB below 150 MB; each gives the thread, signal
# and pid mkcore.py wrote. A core that inflates past --limit core-bytes is
# refused with one line naming the limit; a truncated one with one line;
# no temporary file is left behind.
. "$top_srcdir/tests/lib.sh"
need python3
need zstd
need xz
need gzip
test -x /usr/bin/time || skip "GNU time (/usr/bin/time) is not installed"
mkdir tmp
export TMPDIR=$T/tmp
MK=$top_srcdir/tests/mkcore.py

# rss CMD...: run CMD (its output to out.txt, err.txt), its peak RSS in KB to rss.
rss() {
	/usr/bin/time -o rss.t -f %M "$@" >out.txt 2>err.txt
	echo $? >rc
	tail -1 rss.t >rss
}
# read_ok NAME: out.txt shows the core mkcore.py wrote.
read_ok() {
	check "$1: the core's pid, signal and thread" \
		sh -c "grep -q '^core .*: pid 4242 (prog), SIGSEGV (11), 1 thread\$' out.txt &&
			grep -q '^#0   0x0000000000400123 ' out.txt"
}

python3 "$MK" - --zeros $((1536 << 20)) | zstd -q -T1 -o big.core.zst
rss "$PSYM" stack --max-memory 256M big.core.zst
read_ok ".zst of 1.5 GiB"
check ".zst of 1.5 GiB under --max-memory 256M: peak RSS $(cat rss) KB < 400 MB" \
	test "$(cat rss)" -lt 409600

python3 "$MK" - --zeros $((320 << 20)) >mid.core
xz -1 -T1 -c mid.core >mid.core.xz
gzip -1 -c mid.core >mid.core.gz
rm mid.core
for z in xz gz; do
	rss "$PSYM" stack --max-memory 256M mid.core.$z
	read_ok ".$z of 320 MiB"
	check ".$z of 320 MiB: peak RSS $(cat rss) KB < 150 MB" test "$(cat rss)" -lt 153600
done

"$PSYM" stack --limit core-bytes=1G big.core.zst >out.txt 2>err.txt
echo $? >rc
check "past --limit core-bytes: exit 2, one line naming the limit" \
	sh -c "test \$(cat rc) = 2 && test \$(wc -l <err.txt) = 1 &&
		grep -q \"big.core.zst': decompresses to more than the limit of 1073741824 bytes (--limit core-bytes=N)\" err.txt"

head -c 30000 big.core.zst >cut.core.zst
"$PSYM" stack cut.core.zst >out.txt 2>err.txt
echo $? >rc
check "a truncated .zst core: exit 2, one line" \
	sh -c "test \$(cat rc) = 2 && test \$(wc -l <err.txt) = 1 && grep -q 'cut.core.zst.: truncated zstd data' err.txt"
check "no temporary file left in \$TMPDIR" test -z "$(ls -A tmp)"
finish
