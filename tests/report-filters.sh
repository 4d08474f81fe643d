#!/bin/sh
# psym top / folded / flame filters (--focus --ignore --hide --show
# --tagfocus --tagignore, -n) against go tool pprof with the same options on
# the same files: generated symbolized profiles and system-wide ones with
# comm/pid/tid labels and a numeric label with a unit. top must be byte
# for byte what pprof -top prints; folded must have pprof -traces' stacks.
# --comms/--pids (perf's options, not pprof's) against pprof's tagfocus
# with the equivalent anchored expressions.
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
done

# same PROFILE PSYM-OPTION...: psym top vs pprof -top, psym folded vs
# pprof -traces, each with the options given (pprof's spelling derived).
same() {
	prof=$1
	shift
	ga=$(printf '%s\n' "$@" | sed 's/^--sample-index/-sample_index/; s/^--/-/')
	"$PSYM" top "$@" "$prof" >top.a 2>top.err
	go tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -symbolize=none \
		$ga "$prof" >top.b 2>/dev/null
	if cmp -s top.a top.b; then pass "top $* = pprof -top ($prof)"; else
		fail "top $* = pprof -top ($prof)"; diff top.a top.b | head -8; cat top.err; fi
	case "$*" in *-n*|*--cum*|*--lines*|*--files*|*sample-index*) return ;; esac
	# -traces prints scaled values: compare the counts.
	"$PSYM" folded --sample-index=0 "$@" "$prof" >folded.a 2>/dev/null
	go tool pprof -traces -symbolize=none -sample_index=0 $ga "$prof" >traces.b 2>/dev/null
	check "folded $* = pprof -traces ($prof)" python3 "$top_srcdir/tests/cmp-folded.py" \
		folded.a traces.b
}

for p in g1.pb g2.pb; do
	same $p --focus=fn_1
	same $p --ignore=fn_1
	same $p --hide=fn_0
	same $p --show='fn_[12]'
	same $p --focus=file_3 --hide=fn_2
	same $p --focus=generated
	same $p --tagfocus=comm=a
	same $p --tagignore=pid=100
	same $p --tagfocus=pid=150:
done
for p in sys1.pb sys2.pb; do
	same $p --focus=nginx
	same $p --focus=k3 --ignore=libc
	same $p --hide=kernel
	same $p '--hide=^do_'
	same $p '--show=nginx|libc'
	same $p --tagfocus=comm=nginx
	same $p --tagfocus=pid=1001
	same $p --tagfocus=pid=1000:2500
	same $p --tagfocus=bytes=1kb:
	same $p --tagfocus=bytes=:2kb
	same $p --tagfocus=bytes=2kb:1mb
	same $p --tagignore=comm=bash,python
	same $p "--tagfocus=comm:ngin,x$"
	same $p '--focus=(?i)NGINX' --sample-index=samples
	same $p '--show=\d' --cum
	same $p --focus=libc --sample-index=0 --lines
	same $p --ignore=kernel --files
	same $p --focus=parse --nodecount=5
	same $p --tagfocus=comm=nginx "--hide=^sys_" --nodecount=7 --cum
done

# perf's --comms / --pids: the samples pprof's anchored tagfocus selects.
for p in sys1.pb sys2.pb; do
	"$PSYM" top --comms=nginx,bash $p | grep -v '^Active filters:\|^   comms=' >c.a
	go tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -symbolize=none \
		'-tagfocus=comm=^nginx$,^bash$' $p 2>/dev/null | grep -v '^Active filters:\|^   tagfocus=' >c.b
	check "top --comms=nginx,bash = pprof -tagfocus=comm=^nginx\$,^bash\$ ($p)" cmp c.a c.b
	"$PSYM" top --pid=1001,2001 $p | grep -v '^Active filters:\|^   pids=' >c.a
	go tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -symbolize=none \
		'-tagfocus=pid=1001' $p 2>/dev/null | grep -v '^Active filters:\|^   tagfocus=' >c1
	check "top --pid=1001,2001 keeps more than pid 1001 alone ($p)" sh -c "! cmp -s c.a c1"
	"$PSYM" folded --sample-index=0 --pids=1001 $p >f.a
	go tool pprof -traces -sample_index=0 -symbolize=none '-tagfocus=pid=1001' $p >t.b 2>/dev/null
	check "folded --pids=1001 = pprof -traces -tagfocus=pid=1001 ($p)" \
		python3 "$top_srcdir/tests/cmp-folded.py" f.a t.b
	"$PSYM" folded --comm=python3 --comm $p >f.a
	check "folded --comm=python3 --comm: every stack starts with python3" \
		sh -c "test -s f.a && ! grep -v '^python3;' f.a"
done

# --nodecount N on folded and flame: only the frames of top -n N's rows;
# each kept stack's value stays whole (on its innermost kept frame).
for p in sys1.pb sys2.pb; do
	for opt in "" --cum; do
		"$PSYM" top --nodecount=6 $opt $p | sed -n '/flat%/,$p' | tail -n +2 |
			sed 's/ (\(partial-\)\{0,1\}inline)$//; s/.*%  *//' | sort >rows.txt
		"$PSYM" folded --nodecount=6 $opt $p >f.a
		"$PSYM" folded $opt $p >f.all
		check "folded --nodecount=6 $opt: frames are top's 6 rows ($p)" python3 - rows.txt f.a f.all <<'PY'
import sys
rows = set(open(sys.argv[1]).read().split("\n")) - {""}
frames, keptsum = set(), 0
for l in open(sys.argv[2]):
    st, v = l.rstrip("\n").rsplit(" ", 1)
    frames |= set(st.split(";"))
    keptsum += int(v)
assert len(rows) == 6 and frames == rows, (rows, frames)
# every stack with a kept frame keeps its whole value
want = sum(int(l.rsplit(" ", 1)[1]) for l in open(sys.argv[3])
           if set(l.rsplit(" ", 1)[0].split(";")) & rows)
assert keptsum == want, (keptsum, want)
PY
	done
done
"$PSYM" flame --nodecount=3 sys1.pb -o n.svg
check "flame --nodecount=3 draws three names" python3 - n.svg <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
names = {g.find(ns + "text").get("data-n") for g in ET.parse(sys.argv[1]).getroot().iter(ns + "g")
         if g.get("class") == "f"}
assert len(names) == 3, names
PY

# flame with a filter: its roots' widths are the filtered folded stacks'.
"$PSYM" flame --focus=nginx --hide=kernel sys1.pb -o f.svg
"$PSYM" folded --focus=nginx --hide=kernel sys1.pb >f.folded
check "flame --focus --hide: roots as the filtered folded stacks" python3 - f.svg f.folded <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
gs = [g for g in ET.parse(sys.argv[1]).getroot().iter(ns + "g") if g.get("class") == "f"]
byroot, total = {}, 0
for l in open(sys.argv[2]):
    st, v = l.rstrip("\n").rsplit(" ", 1)
    byroot[st.split(";")[0]] = byroot.get(st.split(";")[0], 0) + int(v)
    total += int(v)
d0 = {g.find(ns + "text").get("data-n"): float(g.get("data-w")) for g in gs if g.get("data-d") == "0"}
assert set(d0) == set(byroot), (set(d0) ^ set(byroot))
for k, w in d0.items():
    assert abs(w - byroot[k] / total) < 1e-6, (k, w)
assert not any("kallsyms" in (g.find(ns + "text").get("data-n") or "") for g in gs)
print(len(gs), "frames", len(d0), "roots")
PY

# Bad filters: a one-line usage error, exit 2 (pprof refuses them too).
expect_exit 2 "a bad --focus expression" "$PSYM" top '--focus=a(' g1.pb
expect_exit 2 "a bad --tagfocus expression" "$PSYM" folded '--tagfocus=comm=[' g1.pb
expect_exit 2 "a bad --pids list" "$PSYM" top --pids=12x g1.pb
"$PSYM" top '--focus=a(' g1.pb 2>err.txt
check "the error names the option and the expression" grep -q "focus.*'a('" err.txt
finish
