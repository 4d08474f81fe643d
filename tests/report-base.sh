#!/bin/sh
# psym's --base, --normalize, --addresses and --filefunctions against go
# tool pprof's -base, -normalize, -addresses and -filefunctions on the same
# profiles, byte for byte: generated symbolized ones (inline frames,
# recursion, unsymbolized locations, two sample types), system-wide ones
# (several mappings, unsymbolized code, labels), and a base much smaller
# than the profile (so -normalize's scaling rounds many values).
. "$top_srcdir/tests/lib.sh"
need go "Debian golang-go"
need protoc
need python3
export HOME=$T GOCACHE=$T/gocache

for f in g1 g2 sys1 sys2 u1; do
	gen=$(echo ${f%[0-9]} | sed 's/^g$/genprofile/; s/^sys$/gensystem/; s/^u$/genunits/')
	python3 "$top_srcdir/tests/$gen.py" ${f#${f%[0-9]}} >$f.txtpb && encode_txtpb $f.txtpb $f.pb
done
# small: g2's first 5 samples (its total a few per cent of g1's).
awk '/^sample \{/ { if (++n > 5) next } { print }' g2.txtpb >small.txtpb
encode_txtpb small.txtpb small.pb
# tiny: 5 samples of [count/50, 1 ns] against g1's [count, ns]: normalized
# to it, g1's nanoseconds all round to 0 and its smaller counts too, so
# pprof's ScaleN drops those samples.
t=$(sed -n 's/.*value: \[\([0-9]*\),.*/\1/p' g1.txtpb | awk '{ s += $1 } END { printf "%d", s / 50 }')
awk -v t=$t '/^sample \{/ { if (++n > 5) next; sub(/value: \[[^]]*\]/, "value: [" t ", 1]") } { print }' \
	g2.txtpb >tiny.txtpb
encode_txtpb tiny.txtpb tiny.pb

# same VIEW PROFILE PSYM-OPTION...: psym VIEW against go tool pprof -VIEW
# -symbolize=none with the same options in pprof's spelling (top: with
# -nodefraction=0 -edgefraction=0, psym top's defaults).
same() {
	view=$1 prof=$2
	shift 2
	ga=$(printf '%s\n' "$@" | sed 's/^--sample-index/-sample_index/; s/^--diff-base/-diff_base/;
		s/^--/-/' | tr '\n' ' ')
	extra=
	[ "$view" = top ] && extra="-nodefraction=0 -edgefraction=0"
	"$PSYM" $view "$@" "$prof" >v.a 2>v.err
	echo $? >v.rc
	go tool pprof -$view -symbolize=none $extra $ga "$prof" >v.b 2>/dev/null
	if [ "$(cat v.rc)" = 0 ] && [ -s v.a ] && cmp -s v.a v.b; then
		pass "$view $* = go tool pprof -$view -symbolize=none $extra $ga ($prof)"
	else
		fail "$view $* = go tool pprof -$view -symbolize=none $extra $ga ($prof)"
		diff v.a v.b | head -8
		head -3 v.err
	fi
}

# refused NAME PATTERN CMD...: CMD exits 2 with one line on stderr that
# matches PATTERN (grep -E).
refused() {
	name=$1 pat=$2
	shift 2
	"$@" >/dev/null 2>err.txt && rc=0 || rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -Eq -- "$pat" err.txt; then
		pass "$name"
	else
		fail "$name (exit $rc)"
		cat err.txt
	fi
}

# ---- --base: BASE subtracted, unlabelled (pprof's -base) ----
for pair in "sys1.pb sys2.pb" "sys2.pb sys1.pb" "g1.pb g2.pb" "g1.pb small.pb"; do
	set -- $pair
	same top $1 --base=$2
	same top $1 --base=$2 --cum --sample-index=0
	same top $1 --base=$2 --lines
	same traces $1 --base=$2
done
same top sys1.pb --base=sys2.pb --focus=nginx --hide=kernel
# tree: calls of equal |weight| and opposite signs tie in pprof's edge
# order, left to Go's map order (two pprof runs differ): compare with each
# caller and callee block sorted, as report-views.sh does for --diff-base.
sort_blocks() {
	python3 -c '
import sys
out, blk = [], []
for l in open(sys.argv[1]):
    if l.endswith("|   " + l.split("|   ", 1)[-1]) and l.startswith(" " * 40):
        blk.append(l); continue
    out += sorted(blk) + [l]; blk = []
out += sorted(blk)
sys.stdout.write("".join(out))' "$1"
}
for args in "--base=sys2.pb" "--base=sys2.pb --normalize" "--diff-base=sys2.pb --normalize" \
	"--base=sys2.pb --addresses"; do
	"$PSYM" tree $args sys1.pb >d.a
	go tool pprof -tree -symbolize=none $(echo $args | sed 's/--diff-base/-diff_base/; s/--/-/g') \
		sys1.pb >d.b 2>/dev/null
	sort_blocks d.a >d.a.s
	sort_blocks d.b >d.b.s
	check "tree $args = pprof -tree (tied calls' order aside)" sh -c "test -s d.a && cmp d.a.s d.b.s"
done
# A profile minus itself is empty: every stack cancels.
same top g1.pb --base=g1.pb
check "the base subtracted is not the diff base" \
	sh -c "! cmp -s v.a /dev/null && '$PSYM' top --base=sys2.pb sys1.pb >b1 &&
		'$PSYM' top --diff-base=sys2.pb sys1.pb >b2 && ! cmp -s b1 b2"

# flame --base: what the subtraction leaves negative has no width (as a
# diff base's samples), so frames never overlap; coloured by the sign of
# each frame's change, each root's change as folded --base sums it.
"$PSYM" flame --base=sys2.pb sys1.pb -o b.svg
"$PSYM" folded --base=sys2.pb sys1.pb >b.folded
check "flame --base: no overlapping frames, coloured by sign, roots' changes as folded" \
	python3 - b.svg b.folded <<'PY'
import collections, re, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "hrs": 3600e9}
change = collections.Counter()
for l in open(sys.argv[2]):
    st, v = l.rstrip("\n").rsplit(" ", 1)
    change[st.split(";")[0]] += int(v)
assert any(v < 0 for v in change.values()) and any(v > 0 for v in change.values())
rows, up, down = collections.defaultdict(list), 0, 0
for g in ET.parse(sys.argv[1]).getroot().iter(ns + "g"):
    if g.get("class") != "f":
        continue
    t = g.find(ns + "title").text
    m = re.search(r"change (\+?-?[0-9.]+)([a-z]*)\)$", t)
    assert m, t
    v = float(m.group(1)) * UNITS.get(m.group(2), 1)
    rect = g.find(ns + "rect")
    r, b = int(rect.get("fill")[1:3], 16), int(rect.get("fill")[5:7], 16)
    if v > 0:
        assert r == 255 and b < 255, t; up += 1
    elif v < 0:
        assert b == 255 and r < 255, t; down += 1
    x, w = float(g.get("data-x")), float(g.get("data-w"))
    assert w >= 0 and x >= 0 and x + w <= 1 + 1e-6, t
    rows[g.get("data-d")].append((x, w, t))
    if g.get("data-d") == "0":
        name = g.find(ns + "text").get("data-n")
        want = change.get(name, 0)
        assert abs(v - want) <= 0.006 * abs(want) + 1e4, (name, v, want)
for y, fr in rows.items():
    fr.sort()
    for a, b2 in zip(fr, fr[1:]):
        assert a[0] + a[1] <= b2[0] + 1e-6, ("overlap", a, b2)
assert up and down, (up, down)
print(up, "grew,", down, "shrank,", sum(map(len, rows.values())), "frames")
PY

# ---- --normalize: FILE scaled to BASE's total first, rounded as pprof ----
for pair in "sys1.pb sys2.pb" "g1.pb g2.pb" "g1.pb small.pb" "g1.pb tiny.pb"; do
	set -- $pair
	same top $1 --diff-base=$2 --normalize
	same top $1 --diff-base=$2 --normalize --sample-index=0
	same top $1 --base=$2 --normalize
	same top $1 --base=$2 --normalize --sample-index=0 --cum
	same traces $1 --diff-base=$2 --normalize --sample-index=0
	same traces $1 --base=$2 --normalize
done
"$PSYM" top --diff-base=small.pb g1.pb >n1
"$PSYM" top --diff-base=small.pb --normalize g1.pb >n2
"$PSYM" traces --sample-index=0 g1.pb | grep -c '^-----------+' >c1
"$PSYM" traces --sample-index=0 --base=tiny.pb --normalize g1.pb | grep -c '^-----------+' >c2
check "--normalize drops the samples scaled to 0 ($(cat c1) -> $(cat c2) stacks)" \
	sh -c "test $(cat c2) -gt 1 && test $(cat c2) -lt $(cat c1)"
check "--normalize changes a diff whose totals differ" sh -c "test -s n1 && test -s n2 && ! cmp -s n1 n2"

# ---- --addresses, --filefunctions: pprof's granularities ----
for p in g1.pb g2.pb sys1.pb sys2.pb u1.pb; do
	for g in --addresses --filefunctions; do
		same top $p $g
		same top $p $g --cum --sample-index=0
		same traces $p $g
		same tree $p $g
	done
done
# A real symbolized profile (testdata/sample.pb.gz: fib, its header lines).
cp "$top_srcdir/testdata/sample.pb.gz" real.pb.gz
for g in --addresses --filefunctions; do
	same top real.pb.gz $g
	same traces real.pb.gz $g
	same top sys1.pb $g --focus=nginx --hide=kernel
	same top g1.pb $g --nodefraction=0.005 --edgefraction=0.001 --nodecount=20
	same top sys1.pb $g --base=sys2.pb --normalize
	same traces sys1.pb $g --tagfocus=pid=1001
done
# peek: REGEX before FILE, as pprof takes -peek=REGEX.
for pr in "g1.pb fn_1" "g1.pb fn_0[0-9] src" "sys1.pb nginx|libc" "sys1.pb do_k[0-9] kernel"; do
	p=${pr%% *} re=${pr#* }
	for g in --addresses --filefunctions; do
		"$PSYM" peek $g "$re" $p >p.a 2>/dev/null
		go tool pprof -peek="$re" -symbolize=none -${g#--} $p >p.b 2>/dev/null
		check "peek $g '$re' = go tool pprof -peek -${g#--} ($p)" \
			sh -c "test -s p.a && cmp -s p.a p.b"
	done
done
# By address a node's name starts with its address, as pprof's: '^fn'
# matches none, and pprof finds nothing either.
refused "peek --addresses '^do_k' finds nothing (names start with the address)" \
	"no matches found for regexp: \\^do_k" "$PSYM" peek --addresses '^do_k' sys1.pb
"$PSYM" top --addresses g1.pb >a.txt
check "--addresses names nodes by address, inline frames apart" \
	sh -c "grep -Eq ' [0-9a-f]{16} fn_[0-9]+ src/[^ ]+:[0-9]+ \(inline\)$' a.txt &&
		grep -Eq ' [0-9a-f]{16} \[[^]]+\]$' a.txt"
# (counts: -traces prints scaled values)
"$PSYM" folded --sample-index=0 --addresses g1.pb >f.a
go tool pprof -traces -sample_index=0 -symbolize=none -addresses g1.pb >t.b 2>/dev/null
check "folded --addresses = pprof -traces -addresses (g1.pb)" \
	python3 "$top_srcdir/tests/cmp-folded.py" f.a t.b
"$PSYM" folded --sample-index=0 --filefunctions sys1.pb >f.a
go tool pprof -traces -sample_index=0 -symbolize=none -filefunctions sys1.pb >t.b 2>/dev/null
check "folded --filefunctions = pprof -traces -filefunctions (sys1.pb)" \
	python3 "$top_srcdir/tests/cmp-folded.py" f.a t.b
check "flame --addresses draws address frames" \
	sh -c "'$PSYM' flame --addresses g1.pb -o f.svg && grep -Eq '>[0-9a-f]{16} fn_' f.svg"

# ---- bad combinations: one line saying why, exit 2 ----
refused "--normalize without a base" "normalize needs --base or --diff-base" \
	"$PSYM" top --normalize g1.pb
refused "--base with --diff-base" "--base and --diff-base cannot both be given" \
	"$PSYM" top --base=g2.pb --diff-base=g2.pb g1.pb
refused "list refuses --addresses (by line, as pprof -list)" "list is by source line" \
	"$PSYM" list --addresses fn_1 g1.pb
refused "--base with other sample types" "u1.pb.*sample or period types.*differ" \
	"$PSYM" top --base=u1.pb g1.pb
refused "--normalize with other sample types" "u1.pb.*sample or period types.*differ" \
	"$PSYM" top --diff-base=u1.pb --normalize g1.pb
check "top --help lists the new options" \
	sh -c "'$PSYM' top --help | grep -q -- --normalize && '$PSYM' top --help | grep -q -- --addresses &&
		'$PSYM' traces --help | grep -q -- --filefunctions && '$PSYM' tree --help | grep -q -- '--base BASE'"
finish
