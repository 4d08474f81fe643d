#!/bin/sh
# psym traces / peek / tree against go tool pprof -traces / -peek / -tree
# on the same profiles, byte for byte: generated symbolized ones (inline
# frames, recursion, unsymbolized code, several sample types with units),
# system-wide ones (several mappings, comm/pid/tid labels, a numeric label
# with a unit), each with the filters, granularities and sample types that
# the top tests use. Each psym report equals the pprof command line run
# here (README "Reports and pprof").
. "$top_srcdir/tests/lib.sh"
need go "Debian golang-go"
need protoc
need python3
export HOME=$T GOCACHE=$T/gocache

for seed in 1 2; do
	python3 "$top_srcdir/tests/genprofile.py" $seed >g$seed.txtpb
	encode_txtpb g$seed.txtpb g$seed.pb
	python3 "$top_srcdir/tests/gensystem.py" $seed >sys$seed.txtpb
	encode_txtpb sys$seed.txtpb sys$seed.pb
	python3 "$top_srcdir/tests/genunits.py" $seed >u$seed.txtpb
	encode_txtpb u$seed.txtpb u$seed.pb
done

# same VIEW PROFILE PSYM-OPTION...: psym VIEW against go tool pprof -VIEW
# -symbolize=none with the same options in pprof's spelling.
same() {
	view=$1 prof=$2
	shift 2
	ga=$(printf '%s\n' "$@" | sed 's/^--sample-index/-sample_index/; s/^--diff-base/-diff_base/;
		s/^--nodefraction/-nodefraction/; s/^--edgefraction/-edgefraction/; s/^--/-/')
	"$PSYM" $view "$@" "$prof" >v.a 2>v.err
	echo $? >v.rc
	go tool pprof -$view -symbolize=none $ga "$prof" >v.b 2>/dev/null
	if [ "$(cat v.rc)" = 0 ] && [ -s v.a ] && cmp -s v.a v.b; then
		pass "$view $* = go tool pprof -$view -symbolize=none $ga ($prof)"
	else
		fail "$view $* = go tool pprof -$view -symbolize=none $ga ($prof)"
		diff v.a v.b | head -8
		head -3 v.err
	fi
}

# ---- traces ----
for p in g1.pb g2.pb sys1.pb sys2.pb u1.pb u2.pb; do
	same traces $p
	same traces $p --lines
	same traces $p --files
	same traces $p --sample-index=0
done
for p in sys1.pb sys2.pb; do
	same traces $p --focus=nginx
	same traces $p --hide=kernel
	same traces $p '--show=nginx|libc'
	same traces $p --tagfocus=pid=1001
	same traces $p --tagfocus=bytes=1kb:
	same traces $p --ignore=libc --lines
done
same traces g1.pb --focus=fn_1 --hide=fn_2
same traces sys1.pb --diff-base=sys2.pb
"$PSYM" traces sys1.pb >t.txt
check "traces prints each sample's comm, pid and bytes labels" \
	sh -c "grep -q '^      comm:  ' t.txt && grep -q '^       pid:  ' t.txt && grep -q '^     bytes:  ' t.txt"
check "traces marks inlined frames" grep -q ' (inline)$' t.txt

expect_exit 2 "traces on a bad profile" "$PSYM" traces "$top_srcdir/testdata/bad/zero-id.pb"
finish
