#!/bin/sh
# psym symbolize --manifest / --resume / --results: the batch primitives an
# outside engine (tests/dask.sh) drives. Outputs equal the single-file runs'
# (themselves checked against llvm-symbolizer here); results are one valid
# JSON line per input with counts that match the profile; --resume redoes
# only missing and cut-short outputs (inode and mtime of complete ones
# unchanged) and removes the temporaries of dead psyms, not of live ones;
# concurrent psyms share one results file without torn lines.
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need readelf
need nm
need protoc

cat >v.c <<'C'
static inline __attribute__((always_inline)) int sq(int x) { return x * x + VARIANT; }
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i) ^ VARIANT; return s; }
__attribute__((noinline)) int beta(int n) { return alpha(n) * (3 + VARIANT) + sq(n); }
int main(int argc, char **argv) { (void)argv; return beta(argc) & 1; }
C
for n in 1 2 3; do
	gcc -g -O2 -fno-pie -no-pie -Wl,--build-id -DVARIANT=$n -o bin$n v.c
done
python3 "$top_srcdir/tests/genbatch.py" in 30 bin1 bin2 bin3 >manifest
mkdir -p out
# A comment and an empty line are allowed.
{ echo "# thirty profiles"; echo; cat manifest; } >manifest.c
"$PSYM" symbolize -j 2 --offline --manifest manifest.c --results res.jsonl 2>run.log
rc=$?
check "manifest run exits 0 ($rc)" [ "$rc" = 0 ]
check "summary line" grep -q "30/30 profiles written, 0 failed" run.log
same=0
for i in $(seq 0 29); do
	f=$(printf p%05d.pb "$i")
	"$PSYM" symbolize -q --offline "in/$f" -o "single-$f"
	cmp -s "out/$f" "single-$f" && same=$((same + 1))
done
check "every output equals the single run's ($same/30)" [ "$same" = 30 ]
check "outputs agree with llvm-symbolizer (bin1)" llvm_agree out/p00000.pb bin1
check "outputs agree with llvm-symbolizer (bin2)" llvm_agree out/p00001.pb bin2

# One JSON line per input; counts from the profile itself (psym show --json
# of the output, decoded by Python's json).
check_results() { # FILE N: N lines, valid JSON, fields typed, one per input
	python3 - "$@" <<'PY'
import json, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
want = int(sys.argv[2])
rows = [json.loads(l) for l in lines]
assert len(rows) == want, (len(rows), want)
assert len({(r["input"], r["output"]) for r in rows}) == want
for r in rows:
    assert r["status"] in ("ok", "skipped", "failed"), r
    assert isinstance(r["pid"], int) and r["host"], r
    assert isinstance(r["seconds"], float) and r["seconds"] >= 0, r
    assert r["indexes_built"] == 0 or isinstance(r["indexes_built"], int)
    assert (r["error"] is None) == (r["status"] != "failed"), r
    assert r["resolved"] + r["unresolved"] <= r["locations"], r
    assert isinstance(r["unverified"], int) and r["unverified"] >= 0, r
PY
}
check "results: 30 valid JSON lines" check_results res.jsonl 30
"$PSYM" show --json out/p00007.pb >show7.json
python3 - >counts.txt <<'PY'
import json
rows = {r["input"]: r for r in map(json.loads, open("res.jsonl"))}
show = json.load(open("show7.json"))
r = rows["in/p00007.pb"]
print(r["locations"], len(show["locations"]), r["status"], r["written"], r["line"])
PY
read -r nloc nshow st wr ln <counts.txt
check "results: locations of p00007 = psym show's ($nloc = $nshow), $st, written $wr, line $ln" \
	[ "$nloc" = "$nshow" -a "$st" = ok -a "$wr" = True -a "$ln" = 10 ]

# ---- --resume
rm out/p00003.pb out/p00011.pb
head -c 50 single-p00005.pb >out/p00005.pb # cut short by another writer
: >out/p00006.pb
deadpid=$(sh -c 'echo $$')
: >"out/.p00008.pb.psym-tmp-$deadpid-AbCdEf" # a killed psym's temporary
: >"out/.p00009.pb.psym-tmp-$$-AbCdEf"       # a live writer's (this shell)
ls -i --full-time out | grep -v -e p00003 -e p00011 -e p00005 -e p00006 -e psym-tmp -e "^total" >before
"$PSYM" symbolize -j 2 --offline --manifest manifest --resume --results res2.jsonl 2>resume.log
rc=$?
check "resume exits 0 ($rc)" [ "$rc" = 0 ]
check "resume summary" grep -q "4/30 profiles written, 26 skipped (complete), 0 failed" resume.log
ls -i --full-time out | grep -v -e p00003 -e p00011 -e p00005 -e p00006 -e psym-tmp -e "^total" >after
check "complete outputs untouched (inode, mtime)" cmp -s before after
written=$(python3 -c "
import json
print(' '.join(sorted(r['input'] for r in map(json.loads, open('res2.jsonl')) if r['written'])))")
check "only the 4 missing or partial written ($written)" \
	[ "$written" = "in/p00003.pb in/p00005.pb in/p00006.pb in/p00011.pb" ]
check "a partial output is redone with a note" sh -c \
	"grep 'p00005' res2.jsonl | grep -q 'redone: the existing output was incomplete'"
same=0
for f in p00003.pb p00005.pb p00006.pb p00011.pb; do
	cmp -s "out/$f" "single-$f" && same=$((same + 1))
done
check "redone outputs equal the single runs' ($same/4)" [ "$same" = 4 ]
check "a dead psym's temporary removed" [ ! -e "out/.p00008.pb.psym-tmp-$deadpid-AbCdEf" ]
check "a live writer's temporary kept" [ -e "out/.p00009.pb.psym-tmp-$$-AbCdEf" ]
rm -f "out/.p00009.pb.psym-tmp-$$-AbCdEf"

# ---- failures are per input, in the results, with the exit code of the worst
printf 'in/p00001.pb\tfail/a.pb\nmissing.pb\tfail/b.pb\nin/p00002.pb\tnodir/x/c.pb\n' >m3
mkdir -p fail
rc=0
"$PSYM" symbolize -q --offline --manifest - --results res3.jsonl <m3 2>fail.log || rc=$?
check "one missing input, one unwritable output: exit 3 ($rc)" [ "$rc" = 3 ]
check "the good input written" [ -s fail/a.pb ]
python3 - >st3.txt <<'PY'
import json
print(" ".join(r["status"] for r in sorted(map(json.loads, open("res3.jsonl")), key=lambda r: r["line"])))
PY
check "statuses ok failed failed ($(cat st3.txt))" [ "$(cat st3.txt)" = "ok failed failed" ]
check "the failure says which file" grep -q "cannot open 'missing.pb'" res3.jsonl

# ---- concurrent writers: one results file, no torn or lost line
for k in 1 2 3 4; do
	sed "s|out/|par$k/|" manifest >m.$k
	mkdir -p par$k
	"$PSYM" symbolize -q -j 2 --offline --manifest m.$k --results shared.jsonl &
done
wait
check "4 processes x 30 inputs: 120 whole JSON lines" check_results shared.jsonl 120

# ---- one output under two spellings (issue 38 item 4): refused up front,
# one line naming both lines, nothing written (the first output's old
# content stays)
mkdir -p two/real
ln -s real two/link
echo "old output" >two/real/out.pb.gz
n=0
for spelled in "two/link/out.pb.gz" "./two/real/out.pb.gz" "two/real/../real/out.pb.gz" \
	"$PWD/two/real/out.pb.gz"; do
	n=$((n + 1))
	printf 'in/p00001.pb\ttwo/real/out.pb.gz\nin/p00002.pb\t%s\n' "$spelled" >two.m$n
	rc=0
	"$PSYM" symbolize -q --offline --manifest two.m$n --results two.r$n 2>two.log$n || rc=$?
	check "two spellings ($spelled): exit 2 ($rc)" [ "$rc" = 2 ]
	check "two spellings ($spelled): one line naming both lines ($(cat two.log$n))" \
		sh -c "[ \$(wc -l <two.log$n) = 1 ] && grep -q 'two.m$n:2: output .* is also written by line 1' two.log$n"
	check "two spellings ($spelled): the output is not replaced" grep -qx "old output" two/real/out.pb.gz
done
# An output that is another line's input under another spelling.
printf 'in/p00001.pb\ttwo/real/x.pb\ntwo/link/x.pb\ttwo/real/y.pb\n' >two.mx
cp in/p00003.pb two/real/x.pb
rc=0
"$PSYM" symbolize -q --offline --manifest two.mx 2>two.logx || rc=$?
check "an output read by another line as 'two/link/x.pb': exit 2 ($(cat two.logx))" \
	sh -c "[ $rc = 2 ] && grep -q 'two.mx:2: input .two/link/x.pb. is the output of line 1' two.logx"
check "nothing written" test ! -e two/real/y.pb

# ---- --results after a run killed mid-line (issue 38 item 14): every line
# this run appends parses; the partial one is ended, not continued
printf '{"input":"in/p00001.pb","output":"cut' >partial.jsonl
printf 'in/p00001.pb\tpart/a.pb\n' >mp
mkdir -p part
"$PSYM" symbolize -q --offline --manifest mp --results partial.jsonl 2>part.log ||
	fail "symbolize --results failed: $(cat part.log)"
python3 - >part.txt <<'PY'
import json
ok = bad = 0
for l in open("partial.jsonl").read().splitlines():
    try:
        r = json.loads(l); ok += r["output"] == "part/a.pb" and r["status"] == "ok"
    except ValueError:
        bad += 1
print(ok, bad)
PY
check "after a partial line: the new record parses, the partial one stays apart ($(cat part.txt))" \
	[ "$(cat part.txt)" = "1 1" ]

# ---- usage errors
expect_exit 2 "--manifest with IN" "$PSYM" symbolize --manifest manifest in/p00001.pb
expect_exit 2 "--resume without --manifest" "$PSYM" symbolize --resume in/p00001.pb -o x.pb
"$PSYM" symbolize --manifest nosuch.txt 2>nosuch.log
check "a missing manifest named" grep -q "nosuch.txt" nosuch.log
finish
