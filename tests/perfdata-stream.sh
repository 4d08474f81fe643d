#!/bin/sh
# A perf.data file streams (issue 50: memory grows with distinct
# locations, not with records). A real recording of tens of MB (perf
# record -c 20000 -g of a CPU loop) is read from the file (psym top) with
# a peak RSS well below its size, and symbolized from the file with a
# peak at least 3/4 of its size below the same bytes read whole from a
# pipe (symbolizing itself, libc's DWARF, costs some 40 MB either way):
# the profile is byte for byte the same both ways and its stacks agree
# with perf script's. With its rounds' ends taken out, --max-memory
# holds the time-order queue to a quarter of it. The reader by
# descriptor (records through a window, some straddling its end) gives
# record for record what `perf report -D` dumps. A file cut or grown after
# it was opened: one line naming the file, the records before kept.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/perfdata-lib.sh"
need g++
[ -x /usr/bin/time ] || skip "GNU time (/usr/bin/time, Debian's time) is not installed"
perf_usable
dump=$top_builddir/tests/perfdata-dump

g++ -O2 -g -fno-omit-frame-pointer -o work "$top_srcdir/tests/perfdata-work.cc" || exit 99
# One sample per 20 us of CPU with its callchain: about 30 MB here. On a
# loaded machine the kernel lowers the sampling rate: the work is then
# scaled up to make up for it, once.
n=250
perf_rec "perf record -q -N --buildid-mmap -e cpu-clock -c 20000 -g -o big.data ./work $n >/dev/null"
size=$(stat -c %s big.data)
if [ "$size" -lt 24000000 ] && [ "$size" -gt 0 ]; then
	n=$((n * 30000000 / size))
	[ "$n" -le 2500 ] || n=2500
	echo "# $size bytes only: recording again with ./work $n"
	perf_rec "perf record -q -N --buildid-mmap -e cpu-clock -c 20000 -g -o big.data ./work $n >/dev/null"
	size=$(stat -c %s big.data)
fi
# psym top's own peak is about 10 MB: the file must be twice that to tell.
[ "$size" -ge 20000000 ] || skip "perf recorded only $size bytes here (throttled?): too small to tell"
echo "# big.data: $size bytes"

/usr/bin/time -f %M -o rss.file "$PSYM" symbolize big.data -o file.pb.gz \
	--kallsyms /proc/kallsyms 2>file.log
rc=$?
check "symbolize from the file: exit 0 ($rc)" test "$rc" = 0
/usr/bin/time -f %M -o rss.pipe sh -c "cat big.data | \"$PSYM\" symbolize - -o pipe.pb.gz \
	--kallsyms /proc/kallsyms" 2>pipe.log
/usr/bin/time -f %M -o rss.top "$PSYM" top big.data >top.txt 2>top.log
rc=$?
check "top from the file: exit 0 ($rc)" test "$rc" = 0
ktop=$(tail -n1 rss.top)
kfile=$(tail -n1 rss.file)
kpipe=$(tail -n1 rss.pipe)
echo "# peak RSS: top $ktop KB; symbolize from the file $kfile KB, from a pipe (whole) $kpipe KB"
check "top from the file: peak RSS $ktop KB below half the file's $((size / 1024)) KB" \
	test $((ktop * 1024)) -lt $((size / 2))
check "symbolize: from the file $kfile KB, at least 3/4 of the file below the whole read's $kpipe KB" \
	test $(((kpipe - kfile) * 1024)) -ge $((size / 4 * 3))
check "the same profile from the file and from the pipe" cmp file.pb.gz pipe.pb.gz
check "from the file: stacks agree with perf script (>= 99.5%)" \
	perf_frames big.data file.pb.gz cpu-clock 99.5

# A file that never ends a round (its FINISHED_ROUND records made
# another type): every record waits in the time-order queue, up to a
# quarter of --max-memory; past it the older half is delivered (as perf's
# ordered events do). The samples are the same either way.
python3 - big.data noround.data <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off, size = struct.unpack_from("<QQ", b, 40)
p = off
while p + 8 <= off + size:
    t, _, s = struct.unpack_from("<IHH", b, p)
    if t == 68:
        struct.pack_into("<I", b, p, 77)
    p += s
open(sys.argv[2], "wb").write(b)
PY
/usr/bin/time -f %M -o rss.nr "$PSYM" top noround.data >nr.txt 2>nr.log
/usr/bin/time -f %M -o rss.nrcap "$PSYM" top --max-memory 32M noround.data >nrcap.txt 2>nrcap.log
knr=$(tail -n1 rss.nr)
knrcap=$(tail -n1 rss.nrcap)
echo "# no rounds: peak RSS $knr KB, with --max-memory 32M $knrcap KB"
check "no rounds: the same top as with them" cmp top.txt nr.txt
check "no rounds, --max-memory 32M: the same top" cmp top.txt nrcap.txt
check "no rounds: --max-memory 32M holds the queue to 8 MB ($knrcap KB, uncapped $knr KB)" \
	test $(((knr - knrcap) * 1024)) -ge $((size / 2))

perf report -D -i big.data >big.D 2>/dev/null
"$dump" --fd big.data >fd.dump 2>&1
check "by descriptor: the reader's records are perf report -D's" \
	python3 "$top_srcdir/tests/perfdata-rawcmp.py" big.D fd.dump
check "by descriptor: ends without error" sh -c 'tail -n1 fd.dump | grep -qx "end 0: "'

# cut DUMP: how many samples the dump has.
samples() { grep -c '^S ' "$1"; }
all=$(samples fd.dump)
cp big.data cut.data
"$dump" --fd cut.data $((size / 2)) >cut.dump 2>&1
check "cut while read: one line naming the file" sh -c \
	"tail -n1 cut.dump | grep -q \"^end -10: 'cut.data': changed while being read (it ends before offset [0-9]* now, it had $size bytes)\$\""
n=$(samples cut.dump)
check "cut while read: the samples before kept ($n of $all)" test "$n" -gt 0 -a "$n" -lt "$all"
cp big.data grown.data
"$dump" --fd grown.data $((size + 4096)) >grown.dump 2>&1
check "grown while read: one line naming the file" sh -c \
	"tail -n1 grown.dump | grep -qx \"end -10: 'grown.data': changed while being read ($size bytes when opened, $((size + 4096)) now)\""
check "grown while read: every sample read ($(samples grown.dump) of $all)" \
	test "$(samples grown.dump)" = "$all"
finish
