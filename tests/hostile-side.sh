#!/bin/sh
# Side files of psym-collect --stack-copy that used to hang psym symbolize
# or make it run for a long time (issue 26): a FIFO at IN.d/ustacks.gz is
# refused by its type with one line naming it, never opened for reading;
# CFI whose rows cost ~100,000 CFA steps each, as a loop of signal frames
# or as a deep chain, ends quickly with the reason (no-progress, or the
# budget naming its --limit) while memoized rows still let later samples
# unwind whole; many processes, each with its own PROCESS record, over a
# binary with 20,000 FDEs and no .eh_frame_hdr, index its CFI and search
# its symbols once (counted in instructions). Wall time is printed, not
# asserted (bench/ holds speed goals); a timeout of 120 s catches the old
# behaviour (hours).
. "$top_srcdir/tests/lib.sh"
need protoc
need timeout
need gcc
need python3
MKH=$top_srcdir/tests/unwind/mkhostile.py

# A provisional profile that asks for unwinding (psym-collect's comment).
cat >p.txtpb <<'TXT'
sample_type { type: 1 unit: 2 }
sample { location_id: [1] value: 1 }
mapping { id: 1 memory_start: 4096 memory_limit: 1048576 file_offset: 0 filename: 3 build_id: 0 }
location { id: 1 mapping_id: 1 address: 4108 }
string_table: ""
string_table: "samples"
string_table: "count"
string_table: "/nonexistent/prog"
string_table: "psym-collect: user stacks need unwinding: stack copies in OUT.d/ustacks.gz"
comment: 4
TXT
encode_txtpb p.txtpb p.pb

# ---- a FIFO at IN.d/ustacks.gz
mkdir p.pb.d
mkfifo p.pb.d/ustacks.gz
rc=0
timeout 20 "$PSYM" symbolize --offline p.pb -o out.pb >stdout 2>stderr || rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <stderr)" = 1 ] && grep -qF "p.pb.d/ustacks.gz': not a regular file" stderr; then
	pass "FIFO side file: refused at once: $(cat stderr)"
else
	fail "FIFO side file: exit $rc (124: hung): $(head -c 300 stderr)"
fi
[ ! -e out.pb ] && pass "FIFO side file: no output" || fail "FIFO side file: output written"
rm p.pb.d/ustacks.gz

# ---- a PROCESS record claiming 39,425 mappings (bench/mutate seed 26,
# input 1287): malformed, exit 2 naming the file, not "out of memory" (3).
printf 'PSYMUSTK' >side.raw
python3 - >>side.raw <<'PY'
import struct, sys
hdr = struct.pack("<6I", 1, 62, 17, 1, 65536, 0)
rec = struct.pack("<II", 1000, 39425) + struct.pack("<QQQ", 0x400000, 0x800000, 0)
rec += struct.pack("<B", 0) + struct.pack("<H", 5) + b"/prog"
sys.stdout.buffer.write(hdr + struct.pack("<II", 1, len(rec)) + rec)
PY
gzip -c side.raw >p.pb.d/ustacks.gz
rc=0
timeout 20 "$PSYM" symbolize --offline p.pb -o out.pb >stdout 2>stderr || rc=$?
if [ "$rc" = 2 ] && grep -qF "p.pb.d/ustacks.gz': record 0 is malformed" stderr; then
	pass "too many mappings in a PROCESS record: $(cat stderr)"
else
	fail "too many mappings: exit $rc: $(head -c 300 stderr)"
fi
# ... and one mapping followed by 8 stray bytes (seed 26, input 3247).
printf 'PSYMUSTK' >side.raw
python3 - >>side.raw <<'PY'
import struct, sys
hdr = struct.pack("<6I", 1, 62, 17, 1, 65536, 0)
rec = struct.pack("<II", 1000, 1) + struct.pack("<QQQ", 0x400000, 0x800000, 0)
rec += struct.pack("<B", 0) + struct.pack("<H", 5) + b"/prog" + bytes(8)
sys.stdout.buffer.write(hdr + struct.pack("<II", 1, len(rec)) + rec)
PY
gzip -c side.raw >p.pb.d/ustacks.gz
rc=0
timeout 20 "$PSYM" symbolize --offline p.pb -o out.pb >stdout 2>stderr || rc=$?
if [ "$rc" = 2 ] && grep -qF "p.pb.d/ustacks.gz': record 0 is malformed" stderr; then
	pass "stray bytes after a PROCESS record's mappings: $(cat stderr)"
else
	fail "stray bytes after the mappings: exit $rc: $(head -c 300 stderr)"
fi
rm p.pb.d/ustacks.gz

# link NAME KIND N STEPS: a static non-PIE program from mkhostile.py asm.
link() {
	python3 "$MKH" asm "$2" "$3" "$4" >"$1.s" && gcc -c "$1.s" -o "$1.o" &&
		gcc -nostdlib -static -no-pie -Wl,--build-id -o "$1" "$1.o"
}
addr() { nm "$1" | awk -v n="$2" '$3 == n { print $1 }'; }
# unwind NAME ARGS...: psym symbolize p.pb (side file in place) under the
# guards; $rc, $secs and the log in NAME.log.
unwind() {
	name=$1
	shift
	rc=0
	/usr/bin/time -f "%e %M" -o tm timeout 120 "$PSYM" symbolize --offline "$@" p.pb \
		-o out.pb >"$name.log" 2>&1 || rc=$?
	# shellcheck disable=SC2046
	set -- $(tail -n1 tm)
	secs=${1:-?} kb=${2:-0}
	case $kb in *[!0-9]*) kb=0 ;; esac
	echo "# $name: exit $rc, $secs s, $kb KB"
}

# ---- a loop of signal frames: rip from [rsp], rsp unchanged, 99,000 steps a row
link loop loop 1 99000 || { fail "build loop"; finish; exit 1; }
f0=$(addr loop f0)
python3 "$MKH" side p.pb.d/ustacks.gz "$PWD/loop" "$(readelf -n loop | sed -n 's/.*Build ID: //p')" \
	20 1 400000 800000 "$f0" "$f0" "$f0"
unwind loop
if [ "$rc" = 0 ] && grep -q "unwound 20 samples, 40 frames.*no-progress 20" loop.log; then
	pass "signal-frame loop: stops as no-progress after one repeat: $(head -1 loop.log)"
else
	fail "signal-frame loop: exit $rc: $(head -c 400 loop.log)"
fi

# ---- a chain of 40 frames of 99,000 steps each (4 M steps a stack)
link chain chain 40 99000 || { fail "build chain"; finish; exit 1; }
words=""
for i in $(seq 1 39); do words="$words $(printf '%x' $((0x$(addr chain f$i) + 1)))"; done
# shellcheck disable=SC2086
python3 "$MKH" side p.pb.d/ustacks.gz "$PWD/chain" "$(readelf -n chain | sed -n 's/.*Build ID: //p')" \
	50 1 400000 800000 "$(addr chain f0)" $words
unwind chain
if [ "$rc" = 0 ] && grep -q "budget 3;" chain.log &&
	grep -q "out-of-stack 47" chain.log &&
	grep -qF "the sample's budget of 1048576 CFA steps is spent (--limit unwind-sample-steps=N)" chain.log; then
	pass "deep chain: 3 samples cut by the per-sample budget, the other 47 whole from memoized rows"
else
	fail "deep chain: exit $rc: $(head -c 500 chain.log)"
fi
unwind chain-run --limit unwind-steps=2M
if [ "$rc" = 0 ] && grep -q "budget 50;" chain-run.log &&
	grep -qF "the run's budget of 2097152 CFA steps is spent (--limit unwind-steps=N)" chain-run.log; then
	pass "deep chain: the run's budget ends every later sample: $(head -1 chain-run.log)"
else
	fail "deep chain, --limit unwind-steps=2M: exit $rc: $(head -c 500 chain-run.log)"
fi

# ---- many processes over a binary with 20,000 FDEs and 20,000 symbols and
# no .eh_frame_hdr: its CFI is indexed once for the run, not once per
# PROCESS record, and its symbols are not searched for the AArch64 signal
# trampoline, an x86-64 binary's (that search, per record, made each cost
# 2 ms: 160,000 took 115 s).
# Asserted on work done, counted by callgrind (instructions, whatever the
# machine's load): the instructions a PROCESS record and its sample add,
# from 100 to 400 records, stay under 200,000 (about 1,000,000 each
# before). The big run is 20,000 processes (5,000 in a sanitizer build),
# checked for every sample unwound.
san=no
ldd "$top_builddir/.libs/psym" "$PSYM" 2>/dev/null | grep -q -e libasan -e libubsan && san=yes
np=20000
[ "$san" = yes ] && np=5000
link many chain 20000 0 || { fail "build many"; finish; exit 1; }
if readelf -SW many | grep -q eh_frame_hdr; then
	fail "many has an .eh_frame_hdr"
fi
side() {
	python3 "$MKH" side p.pb.d/ustacks.gz "$PWD/many" "$(readelf -n many | sed -n 's/.*Build ID: //p')" \
		"$1" "$1" 400000 2000000 "$(addr many f0)" "$(printf '%x' $((0x$(addr many f1) + 1)))"
}
side "$np"
echo "# side file: $(wc -c <p.pb.d/ustacks.gz) bytes"
unwind many
if [ "$rc" = 0 ] && grep -q "unwound $np samples" many.log; then
	pass "$np processes: every sample unwound: $(head -1 many.log)"
else
	fail "$np processes: exit $rc: $(head -c 400 many.log)"
fi
# Memory a PROCESS record and its sample add (bench/RELIABILITY.md, memory
# budget): max RSS over $np processes against one. About 2,000 bytes each
# before (a 686-byte copy of each mapping, the profile encoded and decoded
# again, a space and two hash slots a process); about 480 after that, then
# about 330 once samples shared their equal labels (each had its own copy
# of its comm label), processes with the same maps as the record before
# held one copy of them, and the unwinder kept no second table of pids.
# Most of the rest is the sample's own in the unwound profile (240 bytes)
# and collectprof's record of the process (104). Not in a sanitizer build.
# Measured as the slope below, 387 to 407 bytes (392 to 399 before the
# stack set kept each stack's 4-byte hash, which spares rehashing every
# sample as it grows): the budget is 450, over the 400 that such runs
# reached now and then against one record.
# Measured as the slope between $np records and a tenth of them, so the
# run's fixed part (a few hundred KB of start-up allocations, which vary
# from build to build) does not count per record as it did against one.
kbmany=$kb
nfew=$((np / 10))
side "$nfew"
unwind few
if [ "$san" = yes ] || [ "$kbmany" = 0 ] || [ "$kb" = 0 ]; then
	echo "# memory per PROCESS record not checked (a sanitizer build, or no max RSS)"
else
	per=$(((kbmany - kb) * 1024 / (np - nfew)))
	if [ "$per" -lt 450 ]; then
		pass "a PROCESS record and its sample cost $per bytes of RSS ($kbmany KB for $np, $kb KB for $nfew)"
	else
		fail "a PROCESS record and its sample cost $per bytes of RSS ($kbmany KB for $np, $kb KB for $nfew)"
	fi
fi
# instructions N: callgrind's count for a run over N processes.
instructions() {
	side "$1"
	valgrind --tool=callgrind --callgrind-out-file=cg.out "$PSYM" symbolize --offline p.pb \
		-o out.pb >cg.log 2>&1 || return 1
	sed -n 's/.*I *refs: *//p' cg.log | tr -d ,
}
if [ "$san" = yes ] || ! command -v valgrind >/dev/null 2>&1; then
	echo "# work per PROCESS record not counted (no valgrind, or a sanitizer build)"
else
	i100=$(instructions 100) i400=$(instructions 400)
	case "$i100$i400" in
	'' | *[!0-9]*) fail "callgrind: $(tail -c 300 cg.log)" ;;
	*)
		per=$(((i400 - i100) / 300))
		if [ "$per" -lt 200000 ]; then
			pass "a PROCESS record costs $per instructions (100: $i100, 400: $i400)"
		else
			fail "a PROCESS record costs $per instructions (100: $i100, 400: $i400)"
		fi
		;;
	esac
fi
finish
