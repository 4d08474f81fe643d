#!/bin/sh
# Fault injection: fail every allocation and every output operation of a
# psym run one at a time (LD_PRELOAD shim tests/faultinject.so). Each run
# must end with a clean error (exit 2 or 3, one line on stderr) or succeed;
# never crash; the previous output stays intact or is replaced by a valid
# profile; no temporary file is left behind.
. "$top_srcdir/tests/lib.sh"
shim=$top_builddir/tests/faultinject.so
[ -f "$shim" ] || skip "fault-injection shim not built"
if ldd "$PSYM" 2>/dev/null | grep -q -e libasan -e libubsan; then
	skip "sanitizer build: ASan must own malloc, the LD_PRELOAD shim cannot interpose"
fi
S=$top_srcdir/testdata/sample.pb.gz
MAX=${PSYM_FI_MAX:-300}

# fi_cmd NAME OUTPUT -- ARGS...: run psym ARGS once per injected fault.
fi_cmd() {
	name=$1 out=$2
	shift 3
	"$PSYM" "$@" >/dev/null 2>&1 || { fail "$name: does not succeed without faults"; return; }
	[ "$out" = - ] || cp "$out" good.ref
	PSYM_FI_COUNT=counts LD_PRELOAD=$shim "$PSYM" "$@" >/dev/null 2>&1
	read -r nm nio <counts
	for kind in MALLOC IO; do
		[ $kind = MALLOC ] && total=$nm || total=$nio
		step=1
		[ "$total" -gt "$MAX" ] && step=$((total / MAX + 1))
		bad=0 i=1
		while [ $i -le "$total" ]; do
			[ "$out" = - ] || cp good.ref "$out"
			rc=0
			env PSYM_FI_$kind=$i LD_PRELOAD="$shim" "$PSYM" "$@" >stdout 2>stderr || rc=$?
			if [ $rc -ge 128 ] || { [ $rc != 0 ] && [ $rc != 2 ] && [ $rc != 3 ]; }; then
				echo "  $kind #$i: exit $rc"; head -5 stderr; bad=1
			elif [ $rc != 0 ] && [ "$(wc -l <stderr)" != 1 ]; then
				echo "  $kind #$i: $(wc -l <stderr) lines on stderr"; head -5 stderr; bad=1
			elif [ "$out" != - ] && ! "$PSYM" check -q "$out" >/dev/null 2>&1; then
				echo "  $kind #$i: output corrupted"; bad=1
			elif ls -a | grep -q psym-tmp; then
				echo "  $kind #$i: temporary file left behind"; bad=1
			fi
			i=$((i + step))
		done
		if [ $bad = 0 ]; then pass "$name: $total ${kind} faults"; else fail "$name: ${kind} faults"; fi
	done
}

fi_cmd "check" - -- check "$S"
fi_cmd "show" - -- show "$S"
fi_cmd "show --json" - -- show --json "$S"
fi_cmd "symbolize" out.pb.gz -- symbolize -q "$S" -o out.pb.gz
finish
