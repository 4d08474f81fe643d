#!/bin/sh
# psym-collect --rotate with --stack-copy (issue 42): with a CPU hog on
# every core, a -O2 -fomit-frame-pointer program profiled in 1 s windows.
# Every window is a self-contained profile: its own OUT.d/ustacks.gz
# (finished, no temporary left) that starts the program's process record
# again before its samples, valid for psym check, each window symbolized
# alone (one also copied elsewhere by itself) unwound to the program's main
# (go tool pprof -traces), read by go tool pprof -raw; no window missing,
# and the samples over the windows (go tool pprof -raw) sum to the run's
# stack copies (the collector's summary) within 3%. No timing assertion:
# the run is stopped by a count of windows written, under a hang guard.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need python3
need go "go tool pprof reads the windows"
collector_need "BPF stack copies" --stack-copy 8192
collector_hogs
gcc -O2 -g -fomit-frame-pointer -o prog "$top_srcdir/tests/unwind/prog.c"
./prog 1000000000 20000 >/dev/null &
prog=$!
collector_bg $prog
# bail WHY: a failure the rest cannot go on from.
bail() {
	fail "$*"
	finish
	exit 1
}
pprof() { HOME=$T GOCACHE=$T/gocache go tool pprof "$@"; }

mkdir win
"$C" -p $prog --rotate 1s --stack-copy 8192 -F 199 -v -o 'win/cpu-%Y%m%dT%H%M%SZ.pb.gz' 2>win.log &
cp=$!
collector_bg $cp
i=0
# win.log is made by the background job's redirection, perhaps after this
# first look: no file yet is 0 windows.
windows_done() {
	n=$(grep -c "window .* done" win.log 2>/dev/null)
	echo "${n:-0}"
}
while [ "$(windows_done)" -lt 6 ]; do
	i=$((i + 1))
	[ $i -gt 2400 ] && bail "no 6 windows written: $(tail -3 win.log)"
	# Ended already (not waited for yet: a zombie, which kill -0 still finds)?
	grep -q '^State:[[:space:]]*[ZX]' /proc/$cp/status 2>/dev/null || [ ! -e /proc/$cp ] &&
		bail "psym-collect stopped: $(tail -3 win.log)"
	sleep 0.1
done
kill -TERM $cp
i=0
while kill -0 $cp 2>/dev/null && [ $i -lt 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -0 $cp 2>/dev/null && { kill -KILL $cp; bail "psym-collect hung after SIGTERM"; }
wait $cp
rc=$?
check "--rotate --stack-copy: SIGTERM ends the run with status 0" test $rc = 0
grep "stack copies:" win.log | sed 's/^/# /'

grep -o -- '-> win/[^ ]*' win.log | sed 's/^-> win\///' | sort >reported
ls win | grep -v '\.d$' | sort >ondisk
check "every window reported is on disk, and nothing else ($(wc -l <ondisk) files)" cmp reported ondisk
check "at least 7 windows (6 + the one SIGTERM ends)" test "$(wc -l <reported)" -ge 7
check "each window has its own finished stack copies (ustacks.gz, no temporary)" sh -c \
	'for f in win/*.pb.gz; do test -s "$f.d/ustacks.gz" || exit 1; done; ! ls win/*.d/*.tmp 2>/dev/null'

# pid_first WINDOW.d/ustacks.gz PID: "process" when PID's first record in
# the file is its process record (maps and build IDs), else what it is.
pid_first() {
	python3 - "$1" "$2" <<'PY'
import gzip, struct, sys
raw = gzip.open(sys.argv[1]).read()
pid, off, what = int(sys.argv[2]), 32, "none"
while off + 12 <= len(raw):
    t, l = struct.unpack_from("<II", raw, off)
    if struct.unpack_from("<I", raw, off + 8)[0] == pid and t in (1, 2):
        what = "process" if t == 1 else "sample"
        break
    off += 8 + l
print(what)
PY
}

bad= badmain= badraw= total=0
for f in win/*.pb.gz; do
	"$PSYM" check -q "$f" || bad="$bad $f"
	first=$(pid_first "$f.d/ustacks.gz" $prog)
	# A window in which the program was never sampled (the last second of a
	# loaded machine) has no record of it at all: nothing to unwind there.
	[ "$first" = process ] || [ "$first" = none ] || bad="$bad $f(no process record first)"
	"$PSYM" symbolize "$f" -o "$f.sym" 2>"$f.sym.log" || bad="$bad $f(symbolize)"
	pprof -raw "$f.sym" >"$f.raw" 2>/dev/null || badraw="$badraw $f"
	n=$(awk '/^Samples:/ { s = 1; next } s && /^ +[0-9]+ +[0-9]+:/ { n += $1 } /^Locations/ { s = 0 }
		END { print n + 0 }' "$f.raw")
	total=$((total + n))
	# The share of the window's CPU time whose stack reaches main.
	share=$(pprof -traces "$f.sym" 2>/dev/null | awk '
		function ns(v) {
			if (v ~ /ns$/) return v + 0; if (v ~ /us$/) return v * 1e3
			if (v ~ /ms$/) return v * 1e6; return v * 1e9
		}
		/^-+\+-+$/ { if (t) { all += t; if (m) hit += t }; t = 0; m = 0; next }
		$1 ~ /^[0-9.]+(ns|us|ms|s)$/ && NF >= 2 { t = ns($1); if ($2 == "main") m = 1; next }
		t && $1 == "main" && NF == 1 { m = 1 }
		END { if (t) { all += t; if (m) hit += t }; printf "%d", all ? 100 * hit / all : 0 }')
	echo "# $f: $n samples, $share% of its time reaches main"
	if [ "$first" = none ]; then
		[ "$n" = 0 ] || bad="$bad $f($n samples, no record of the program)"
		continue
	fi
	[ "$share" -ge 90 ] || badmain="$badmain $f($share%)"
done
check "every window is a valid profile, its stack copies start with the process's maps${bad:+ (not:$bad)}" test -z "$bad"
check "go tool pprof -raw reads every symbolized window${badraw:+ (not:$badraw)}" test -z "$badraw"
check "every window symbolized alone is unwound: 90% of its time reaches main${badmain:+ (not:$badmain)}" test -z "$badmain"

# One window by itself, away from the others and the shared directory.
mid=$(sed -n 3p reported)
mkdir alone
cp -r "win/$mid" "win/$mid.d" alone/
"$PSYM" symbolize "alone/$mid" -o alone.sym 2>alone.log
check "a window copied alone elsewhere unwinds to main" sh -c \
	"HOME=$T GOCACHE=$T/gocache go tool pprof -traces alone.sym 2>/dev/null | grep -qx ' *main'"

run=$(sed -n 's/.*stack copies: \([0-9]*\) samples.*/\1/p' win.log)
echo "# samples over $(wc -l <reported) windows: $total; the run's stack copies: ${run:-?}"
check "the windows' samples sum to the run's within 3% ($total of ${run:-?})" \
	awk -v a="$total" -v b="${run:-0}" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d * 100 <= 3 * b) }'
finish
