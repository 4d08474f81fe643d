#!/bin/sh
# pprof's -tagroot and -tagleaf (issue 54): pseudo frames named by each
# sample's label values, above the root or below the leaf, in every
# report. top, traces and tree byte for byte against go tool pprof on
# random profiles with string labels (comm), numeric ones (pid, tid) and
# a numeric label with a unit (bytes, scaled as pprof scales it), one key
# and several, roots and leaves together, a key no sample has (pprof's
# warning, and a frame named ""); folded and flame get the frames too.
. "$top_srcdir/tests/lib.sh"
need go
need protoc
need python3

for g in genprofile:1 gensystem:1 gensystem:2; do
	python3 "$top_srcdir/tests/${g%:*}.py" "${g#*:}" >p.txtpb && encode_txtpb p.txtpb "${g#*:}$g.pb" ||
		{ fail "cannot make $g"; continue; }
	prof=${g#*:}$g.pb
	for o in "tagroot=comm" "tagleaf=pid" "tagroot=comm,pid" "tagleaf=bytes,tid" \
		"tagroot=pid tagleaf=comm" "tagroot=nokey" "tagleaf=,comm,"; do
		pa="" ga=""
		for w in $o; do pa="$pa --$w"; ga="$ga -$w"; done
		for r in top traces tree; do
			case $r in
			top) gx="-top -nodecount=100000 -nodefraction=0 -edgefraction=0" ;;
			*) gx="-$r" ;;
			esac
			"$PSYM" $r $pa "$prof" >a 2>a.err
			go tool pprof $gx -symbolize=none $ga "$prof" >b 2>b.err
			if [ -s a ] && cmp -s a b; then pass "$r$pa = pprof ($g)"; else
				fail "$r$pa = pprof ($g)"; diff a b | head -6; fi
		done
		case $o in *nokey*)
			if grep -q "TagRoot expression matched no samples" a.err &&
				grep -q "TagRoot expression matched no samples" b.err; then
				pass "--tagroot nokey: pprof's warning ($g)"
			else fail "--tagroot nokey: no warning ($g): $(cat a.err)"; fi ;;
		esac
	done
done
# folded: the frames at both ends of each stack, as pprof -traces has them.
"$PSYM" folded --sample-index 0 --tagroot comm --tagleaf pid 1gensystem:1.pb >f 2>/dev/null
go tool pprof -traces -sample_index=0 -symbolize=none -tagroot=comm -tagleaf=pid 1gensystem:1.pb >t 2>/dev/null
check "folded --tagroot comm --tagleaf pid = pprof -traces" python3 "$top_srcdir/tests/cmp-folded.py" f t
finish
