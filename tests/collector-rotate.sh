#!/bin/sh
# psym-collect --rotate (issue 42): with a CPU hog on every core and a
# churn of short-lived programs, one complete profile per window, each
# valid for psym check, protoc and go tool pprof -raw, none missing (every
# window the log reports is on disk, and no other file); --keep 3 leaves
# the newest 3; SIGHUP ends a window early (a 1-hour window, SIGHUP twice
# and SIGTERM: three files); files that only look like another program's
# are never removed. The shared copies (.psym-shared/, linked into every
# window's side directory) count once against --max-disk (the windows
# kept fit the budget so counted, find's sum over distinct inodes, and
# would not fit counted per window); once windows are removed, so are the
# shared copies no side directory links any more, and nothing else there.
# No timing assertion: the runs are stopped by counts of windows written,
# under hang guards.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/collector-lib.sh"
need gcc
need protoc
need python3
collector_need "BPF and perf events"
collector_hogs
gcc -O1 -g -fno-omit-frame-pointer -o shortlived "$top_srcdir/bench/shortlived.c"
./shortlived --churn 200 100 1 2>churn.log &
collector_bg $!

# wait_windows LOG N: wait (at most 240 s) until LOG reports N windows written.
# LOG is made by the background job's redirection, which may come after the
# first look on a loaded machine: no file yet is 0 windows, not an error
# (the error ended the loop at once, so the collector was stopped before
# writing any window).
windows_done() {
	n=$(grep -c "window .* done" "$1" 2>/dev/null)
	echo "${n:-0}"
}
wait_windows() {
	i=0
	while [ "$(windows_done "$1")" -lt "$2" ]; do
		i=$((i + 1))
		[ $i -gt 2400 ] && return 1
		sleep 0.1
	done
}
# stop_collector PID SIG: send SIG, wait for the exit (a hang guard: SIGKILL
# after 120 s); its status in $rc. The collector runs without `timeout`
# around it, which would take the signals (SIGHUP) meant for it.
stop_collector() {
	kill -"$2" "$1"
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 1200 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 "$1" 2>/dev/null && { kill -KILL "$1"; fail "psym-collect hung after SIG$2"; }
	wait "$1"
	rc=$?
}
# valid FILE: psym check, protoc and (when there) go tool pprof read it.
valid() {
	"$PSYM" check -q "$1" && decode_pb "$1" >/dev/null &&
		{ ! command -v go >/dev/null 2>&1 || HOME=$T GOCACHE=$T/gocache go tool pprof -raw -symbolize=none "$1" >/dev/null 2>&1; }
}

mkdir all
"$C" --rotate 1s -F 199 -v -o 'all/cpu-%Y%m%dT%H%M%SZ.pb.gz' 2>all.log &
cp=$!
collector_bg $cp
wait_windows all.log 6 || fail "no 6 windows written: $(tail -3 all.log)"
stop_collector $cp TERM
check "--rotate: SIGTERM ends the run with status 0" test $rc = 0
grep -o -- '-> all/[^ ]*' all.log | sed 's/^-> all\///' | sort >reported
ls all | grep -v '\.d$' | sort >ondisk
cat reported
check "every window reported is on disk, and nothing else ($(wc -l <ondisk) files)" cmp reported ondisk
check "at least 7 windows (6 + the one SIGTERM ends)" test "$(wc -l <reported)" -ge 7
bad=
for f in all/*.pb.gz; do
	valid "$f" || bad="$bad $f"
done
check "every window's file is a valid profile${bad:+ (not:$bad)}" test -z "$bad"
# kernel_locs FILE: how many of the profile's locations are in its kernel mapping.
kernel_locs() {
	"$PSYM" show --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
k = {m["id"] for m in d["mappings"] if m["filename"] == "[kernel.kallsyms]"}
print(sum(1 for l in d["locations"] if l.get("mapping_id") in k))'
}
# A window with kernel frames has its own subset (one link: not shared);
# one without (the short window SIGTERM ends can have none) has no copy.
bad=
for f in all/*.pb.gz; do
	n=$(kernel_locs "$f")
	if [ "${n:-0}" -gt 0 ]; then
		[ -d "$f.d" ] && [ "$(stat -c %h "$f.d"/kallsyms.subset.zst 2>/dev/null)" = 1 ] || bad="$bad $f($n)"
	else
		[ -d "$f.d" ] && [ ! -e "$f.d"/kallsyms.subset.zst ] || bad="$bad $f(none)"
	fi
done
check "each window has its side directory, and its own kallsyms subset where it has kernel frames${bad:+ (not:$bad)}" test -z "$bad"
total=0
for f in all/*.pb.gz; do
	n=$("$PSYM" check "$f" | sed -n 's/.*ok (\([0-9]*\) samples.*/\1/p')
	total=$((total + ${n:-0}))
done
echo "# samples over $(wc -l <ondisk) windows: $total"
check "the windows have samples" test "$total" -gt 0

mkdir keep
: >keep/cpu-notours.pb.gz.txt
"$C" --rotate 1s --keep 3 -F 199 -v -o 'keep/cpu-%Y%m%dT%H%M%SZ.pb.gz' 2>keep.log &
cp=$!
collector_bg $cp
wait_windows keep.log 6 || fail "no 6 windows written: $(tail -3 keep.log)"
stop_collector $cp INT
check "--keep 3: SIGINT ends the run with status 0" test $rc = 0
grep -o -- '-> keep/[^ ]*' keep.log | sed 's/^-> keep\///' | tail -3 | sort >newest
ls keep | grep '\.pb\.gz$' | sort >kept
check "--keep 3 leaves the newest 3 windows ($(tr '\n' ' ' <kept))" cmp newest kept
check "--keep: the old windows' side directories are gone too" test "$(ls -d keep/*.d | wc -l)" = 3
check "--keep never removes a file the pattern did not make" test -e keep/cpu-notours.pb.gz.txt

mkdir disk
"$C" --rotate 1s --max-disk 1 -F 199 -v -o 'disk/cpu-%Y%m%dT%H%M%SZ.pb.gz' 2>disk.log &
cp=$!
collector_bg $cp
wait_windows disk.log 3 || fail "no 3 windows written: $(tail -3 disk.log)"
stop_collector $cp TERM
check "--max-disk 1 (byte): only the newest window stays ($(ls disk | tr '\n' ' '))" \
	test "$(ls disk | grep -c '\.pb\.gz$')" = 1
check "... the last one written" test -e "disk/$(grep -o -- '-> disk/[^ ]*' disk.log | tail -1 | sed 's/^-> disk\///')"

mkdir hup
"$C" --rotate 1h -F 199 -v -o 'hup/cpu-%Y%m%dT%H%M%SZ.pb.gz' 2>hup.log &
cp=$!
collector_bg $cp
# Wait for sampling to run before each signal.
i=0
until grep -q "sampling" hup.log || [ $i -gt 2400 ]; do sleep 0.1; i=$((i + 1)); done
kill -HUP $cp
wait_windows hup.log 1 || fail "SIGHUP wrote no window"
kill -HUP $cp
wait_windows hup.log 2 || fail "the second SIGHUP wrote no window"
stop_collector $cp TERM
check "SIGHUP ends windows early: 2 SIGHUPs and SIGTERM make 3 files (same-second names kept apart)" \
	test "$(ls hup | grep -c '\.pb\.gz$')" = 3
bad=
for f in hup/*.pb.gz; do
	valid "$f" || bad="$bad $f"
done
check "the SIGHUP windows are valid${bad:+ (not:$bad)}" test -z "$bad"

# bytes [-u] FILE...: the bytes of the files (and of the regular files in
# each FILE.d/), each inode once with -u (find, not psym).
bytes() {
	u=cat
	[ "$1" = -u ] && { u="sort -u -k1,2"; shift; }
	for f; do
		find "$f" "$f.d" -maxdepth 1 -type f -printf '%D %i %s\n' 2>/dev/null
	done | $u | awk '{ n += $3 } END { print n + 0 }'
}
# The shared copies' size and a window's own bytes, from windows with the
# whole kallsyms table (--kallsyms full: a shared copy of the boot's; the
# default subset is each window's own), no limit.
mkdir full
"$C" --rotate 1s --kallsyms full -F 199 -v -o 'full/cpu-%Y%m%dT%H%M%SZ.pb.gz' 2>full.log &
cp=$!
collector_bg $cp
wait_windows full.log 3 || fail "no 3 windows written with --kallsyms full: $(tail -3 full.log)"
stop_collector $cp TERM
set -- full/*.pb.gz
shared=$(find full/.psym-shared -maxdepth 1 -type f -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')
own=$(for f; do find "$f" "$f.d" -maxdepth 1 -type f -links 1 -printf '%s\n'; done | awk -v n=$# '{ s += $1 } END { print int(s / n) }')
echo "# shared copies: $shared bytes; a window's own files: $own bytes on average"
[ "$shared" -gt $((8 * own)) ] || fail "the shared copies ($shared bytes) are too small against a window ($own) to tell"
budget=$((shared + 6 * own))
mkdir budget
"$C" --rotate 1s --kallsyms full --max-disk $budget -F 199 -v -o 'budget/cpu-%Y%m%dT%H%M%SZ.pb.gz' 2>budget.log &
cp=$!
collector_bg $cp
wait_windows budget.log 10 || fail "no 10 windows written: $(tail -3 budget.log)"
stop_collector $cp TERM
set -- budget/*.pb.gz
once=$(bytes -u "$@")
each=$(bytes "$@")
echo "# --max-disk $budget: $# windows kept, $once bytes (each file once), $each counted per window"
check "--max-disk: the windows kept fit the budget, each file counted once ($once <= $budget)" test "$once" -le "$budget"
check "--max-disk: the shared copies count once: more windows kept than per-window counting allows ($# windows, $each > $budget)" \
	sh -c "[ $# -ge 2 ] && [ $each -gt $budget ]"
check "--max-disk: old windows were removed (the budget bound)" grep -q "removed the old window" budget.log

# Shared copies no window links: one of an earlier boot with no link left,
# one linked only from an old window (removed below), besides one linked
# from outside, a name not ours and a symbolic link with our name.
sh=budget/.psym-shared
hex() { printf "%064d" "$1"; }
: >"$sh/kallsyms-00000000-0000-0000-0000-000000000000-$(hex 1).zst"
: >"$sh/vdso-$(hex 2).so.zst"
old=budget/cpu-20000101T000000Z.pb.gz
cp "$1" $old
mkdir $old.d
ln "$sh/vdso-$(hex 2).so.zst" $old.d/vdso-$(hex 2).so.zst
touch -d 2000-01-01 $old $old.d
: >"$sh/vdso-$(hex 3).so.zst"
ln "$sh/vdso-$(hex 3).so.zst" linked-elsewhere
: >"$sh/notours.zst"
: >target
ln -s "$PWD/target" "$sh/kallsyms-00000000-0000-0000-0000-000000000000-$(hex 4).zst"
"$C" --rotate 1s --kallsyms full --keep 2 -F 199 -v -o 'budget/cpu-%Y%m%dT%H%M%SZ.pb.gz' 2>keep2.log &
cp=$!
collector_bg $cp
wait_windows keep2.log 3 || fail "no 3 windows written: $(tail -3 keep2.log)"
stop_collector $cp TERM
check "--keep 2 over an earlier run: 2 windows left" test "$(ls budget | grep -c '\.pb\.gz$')" = 2
check "a shared copy no window links is removed" test ! -e "$sh/kallsyms-00000000-0000-0000-0000-000000000000-$(hex 1).zst"
check "a shared copy whose last window was removed is removed" test ! -e "$sh/vdso-$(hex 2).so.zst"
check "a shared copy linked from elsewhere is kept" test -e "$sh/vdso-$(hex 3).so.zst"
check "a file in .psym-shared with a name not ours is kept" test -e "$sh/notours.zst"
check "a symbolic link there is kept, and what it names" sh -c "test -L '$sh/kallsyms-00000000-0000-0000-0000-000000000000-$(hex 4).zst' && test -e target"
bad=
for f in "$sh"/kallsyms-*.zst "$sh"/vdso-*.so.zst; do
	[ -L "$f" ] && continue
	case $f in *"$(hex 1)"* | *"$(hex 2)"* | *"$(hex 3)"* | *"$(hex 4)"*) continue ;; esac
	n=$(stat -c %h "$f")
	[ "$n" -ge 2 ] || bad="$bad $f:$n"
done
check "the shared copies the kept windows link stay (each has its links${bad:+; not:$bad})" test -z "$bad"
bad=
for f in budget/*.pb.gz; do # a window without kernel frames has no copy (see above)
	[ "$(kernel_locs "$f")" -gt 0 ] || continue
	ls "$f.d"/kallsyms-*.zst >/dev/null 2>&1 || bad="$bad $f"
done
check "... and the kept windows with kernel frames still have their kallsyms copy${bad:+ (not:$bad)}" test -z "$bad"

"$C" --rotate 1s -o 'cpu.pb.gz' 2>nopat.log
check "--rotate with no time conversion in -o: usage error" test $? = 2
"$C" --keep 3 -o x.pb.gz 2>nokeep.log
check "--keep without --rotate: usage error" test $? = 2
finish
