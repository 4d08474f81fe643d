#!/bin/sh
# The peer suite (issue 50): perf_data_converter's own test recordings
# (src/testdata/*.perf.data, src/quipper/testdata/perf.data.*: perf 3.2 to
# 6.x, x86-64 and ARM, pipe mode, branch stacks, big-endian ones), which
# psym does not ship: PSYM_PERF_PEERS names a directory holding them
# (any depth; their *.pb_* and *.buildids companions are passed over).
# Each must be read by psym top, or refused in exactly one line naming the
# file; never a crash. Prints how many read and every refusal's reason.
. "$top_srcdir/tests/lib.sh"
[ -n "${PSYM_PERF_PEERS:-}" ] || skip "PSYM_PERF_PEERS is not set (a directory of perf_data_converter's test recordings)"
[ -d "$PSYM_PERF_PEERS" ] || skip "PSYM_PERF_PEERS: no directory '$PSYM_PERF_PEERS'"
find "$PSYM_PERF_PEERS" -type f \( -name '*perf.data*' -o -name '*.perf.data' \) \
	! -name '*.pb_*' ! -name '*.buildids' ! -name '*.textproto' | LC_ALL=C sort >files
[ -s files ] || skip "no perf.data files under $PSYM_PERF_PEERS"
read_ok=0 refused=0
while read -r f; do
	rc=0
	timeout 120 "$PSYM" top "$f" >out 2>err || rc=$?
	if grep -qE 'Sanitizer|runtime error|Segmentation|Aborted' err || [ "$rc" -gt 3 ]; then
		fail "$f: crash (exit $rc): $(head -c 300 err)"
	elif [ "$rc" = 0 ]; then
		read_ok=$((read_ok + 1))
		echo "read: $f: $(sed -n 's/.*Total samples = \([^ ]*\).*/\1/p' out | head -1) samples"
	elif [ "$(grep -vc '^psym: note' err)" = 1 ] && grep -qF "$f" err; then
		refused=$((refused + 1))
		echo "refused: $(grep -v '^psym: note' err)"
	else
		fail "$f: exit $rc without one line naming it: $(head -c 300 err)"
	fi
done <files
echo "peer suite: $(wc -l <files) files, $read_ok read, $refused refused with one line"
[ "$n_fail" = 0 ]
