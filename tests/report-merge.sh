#!/bin/sh
# psym merge against go tool pprof with several inputs (the merged profile
# pprof -raw prints the same as pprof -raw of the inputs: same mappings,
# locations, functions, samples and ids), protoc --decode, and --diff-base
# on top / folded against pprof's -diff_base.
. "$top_srcdir/tests/lib.sh"
need go "Debian golang-go"
need protoc
need python3
export HOME=$T GOCACHE=$T/gocache

for seed in 1 2 3; do
	python3 "$top_srcdir/tests/genprofile.py" $seed >g$seed.txtpb
	encode_txtpb g$seed.txtpb g$seed.pb
	python3 "$top_srcdir/tests/gensystem.py" $seed >sys$seed.txtpb
	encode_txtpb sys$seed.txtpb sys$seed.pb
done
python3 "$top_srcdir/tests/genunits.py" 1 >u1.txtpb
encode_txtpb u1.txtpb u1.pb

pp() { go tool pprof -symbolize=none "$@" 2>/dev/null; }

merged() { # NAME INPUT...
	name=$1
	shift
	expect_exit 0 "merge $name" "$PSYM" merge "$@" -o m.pb.gz
	pp -raw "$@" >raw.b
	pp -raw m.pb.gz >raw.a
	check "merge $name: pprof -raw of the merged profile = pprof -raw of the inputs" cmp raw.a raw.b
	"$PSYM" top m.pb.gz >top.a
	pp -top -nodecount=100000 -nodefraction=0 -edgefraction=0 "$@" >top.b
	check "merge $name: psym top = pprof -top of the inputs" cmp top.a top.b
	check "merge $name: protoc --decode reads it" sh -c "gzip -dc m.pb.gz | protoc \
		--proto_path='$top_srcdir/proto' --decode=perftools.profiles.Profile profile.proto >/dev/null"
}
merged "of two system-wide profiles" sys1.pb sys2.pb
merged "of three" sys1.pb sys2.pb sys3.pb
merged "of three generated ones" g1.pb g2.pb g3.pb
merged "of a profile with itself" g1.pb g1.pb
merged "of one profile (compaction)" sys2.pb
"$PSYM" merge g1.pb g1.pb -o twice.pb
check "merging a profile with itself doubles each value" python3 - twice.pb g1.pb "$PSYM" <<'PY'
import json, subprocess, sys
def load(f):
    return json.loads(subprocess.run([sys.argv[3], "show", "--json", f], capture_output=True, text=True, check=True).stdout)
a, b = load(sys.argv[1]), load(sys.argv[2])
sa = sum(s["values"][0] for s in a["samples"]); sb = sum(s["values"][0] for s in b["samples"])
assert sa == 2 * sb, (sa, sb)
assert len(a["samples"]) <= len(b["samples"])
PY
expect_exit 0 "merge --raw" "$PSYM" merge --raw sys1.pb sys2.pb -o m.pb
check "merge --raw writes an uncompressed protobuf" sh -c "protoc --proto_path='$top_srcdir/proto' \
	--decode=perftools.profiles.Profile profile.proto <m.pb >/dev/null"

# Different sample types: refused as pprof refuses them; OUT left alone.
echo keep >out.pb
expect_exit 2 "merge of profiles with different sample types" "$PSYM" merge g1.pb u1.pb -o out.pb
check "the refused merge left OUT as it was" grep -qx keep out.pb
"$PSYM" merge g1.pb u1.pb -o out.pb 2>err.txt
check "the error names the file and says what differs" grep -q "u1.pb.*sample or period types" err.txt
expect_exit 2 "merge without -o" "$PSYM" merge g1.pb
expect_exit 2 "merge of a bad profile" "$PSYM" merge g1.pb "$top_srcdir/testdata/bad/zero-id.pb" -o x.pb
check "no output from a failed merge" test ! -e x.pb

# --diff-base: pprof's -diff_base (BASE negated, percentages of its total).
for pair in "g2.pb g1.pb" "g1.pb g3.pb" "sys2.pb sys1.pb" "sys3.pb sys1.pb"; do
	set -- $pair
	"$PSYM" top --diff-base $2 $1 >d.a
	pp -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -diff_base=$2 $1 >d.b
	check "top --diff-base $2 $1 = pprof -top -diff_base" cmp d.a d.b
	"$PSYM" top --diff-base $2 --focus=fn_1\|nginx --cum -n 9 $1 >d.a
	pp -top -nodefraction=0 -edgefraction=0 -diff_base=$2 -focus='fn_1|nginx' -cum -nodecount=9 $1 >d.b
	check "top --diff-base --focus --cum -n 9 ($2 $1) = pprof" cmp d.a d.b
	"$PSYM" folded --sample-index=0 --diff-base $2 $1 >f.a
	pp -traces -sample_index=0 -diff_base=$2 $1 >t.b
	check "folded --diff-base $2 $1: each stack's change as pprof -traces -diff_base" \
		python3 - f.a t.b <<'PY'
import collections, re, sys
ours = {}
for l in open(sys.argv[1]):
    st, v = l.rstrip("\n").rsplit(" ", 1)
    ours[st] = ours.get(st, 0) + int(v)
theirs, block = collections.defaultdict(int), []
def flush():
    if block:
        theirs[";".join(reversed([f for f in block[1:]]))] += int(block[0])
for l in open(sys.argv[2]):
    if l.startswith("-----------+"):
        flush(); block = []; continue
    m = re.match(r"^\s*(-?\d+)\s+(\S.*)$", l)
    if m and not block:
        block = [m.group(1), re.sub(r" \((partial-)?inline\)$", "", m.group(2).strip())]; continue
    m = re.match(r"^\s{10,}(\S.*)$", l)
    if m and block:
        block.append(re.sub(r" \((partial-)?inline\)$", "", m.group(1).strip()))
flush()
theirs = {k: v for k, v in theirs.items() if v}
assert any(v < 0 for v in ours.values()) and any(v > 0 for v in ours.values())
bad = [(k, ours.get(k), theirs.get(k)) for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k)]
print(len(ours), "stacks,", len(bad), "differ", bad[:3])
assert not bad
PY
done
expect_exit 2 "--diff-base with different sample types" "$PSYM" top --diff-base u1.pb g1.pb
finish
