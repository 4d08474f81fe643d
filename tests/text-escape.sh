#!/bin/sh
# Names from input cannot forge lines or drive the terminal (issue 53
# defect 3 and the policy on control characters): text output escapes C0
# control characters and DEL (\n, \x1b...), in psym stack (a core whose
# NT_FILE path holds a newline: one thread line, not two) and in every
# report (a profile whose names hold \x1b[31m and a bell): each report
# equals go tool pprof's own, its control characters escaped the same way
# by an independent transform here, while the profile psym writes (merge)
# keeps the bytes (protoc --decode).
. "$top_srcdir/tests/lib.sh"
need python3
need protoc
export HOME=$T GOCACHE=$T/gocache

# nocntrl FILE: FILE holds no control character but newlines and tabs
# (pprof's own tree legend has tabs; the names here have none).
nocntrl() {
	! tr -d '\t\n' <"$1" | LC_ALL=C grep -q '[[:cntrl:]]'
}

# ---- a core with a newline in an NT_FILE path ----
python3 "$top_srcdir/tests/mkcore.py" nl.core \
	--path '/usr/lib/evil\nthread 1 (crashed: SIGFAKE):' --comm 'ev\x1bil'
"$PSYM" stack nl.core >nl.txt 2>nl.err
check "stack: a newline in an NT_FILE path forges no thread line" \
	sh -c 'test $(grep -c "^thread" nl.txt) = 1'
check "stack: the path and the comm shown escaped (backslash n, backslash x1b)" \
	sh -c "grep -qF '(/usr/lib/evil\\nthread 1 (crashed: SIGFAKE):)' nl.txt && grep -qF '(ev\\x1bil)' nl.txt"
check "stack: no control character reaches the output" \
	nocntrl nl.txt
"$PSYM" stack --json nl.core >nl.json 2>/dev/null
check "stack --json: the path keeps its newline (a JSON escape)" \
	python3 -c 'import json,sys; d=json.load(open("nl.json")); assert "/usr/lib/evil\nthread 1" in json.dumps(d, ensure_ascii=False) or any("evil\nthread" in (f.get("module") or "") for t in d["threads"] for f in t["frames"]), d'

# ---- a profile with control characters in names ----
cat >esc.txtpb <<'P'
string_table: ""
string_table: "red\033[31mX"
string_table: "bell\007b"
string_table: "src/e\033vil.c"
string_table: "samples"
string_table: "count"
string_table: "comm"
string_table: "c\033[2Jx"
string_table: "/bin/\033]0;titlebin"
sample_type { type: 4 unit: 5 }
mapping { id: 1 memory_start: 4096 memory_limit: 65536 filename: 8 has_functions: true }
function { id: 1 name: 1 system_name: 1 filename: 3 start_line: 1 }
function { id: 2 name: 2 system_name: 2 filename: 3 start_line: 5 }
location { id: 1 mapping_id: 1 address: 4096 line { function_id: 1 line: 3 } }
location { id: 2 mapping_id: 1 address: 4112 line { function_id: 2 line: 6 } line { function_id: 1 line: 2 } }
sample { location_id: [1, 2] value: [5] label { key: 6 str: 7 } }
sample { location_id: [2] value: [3] label { key: 6 str: 7 } }
comment: 6
P
encode_txtpb esc.txtpb esc.pb

# esc: the escape psym documents, applied to pprof's output (its own
# newlines kept): C0 but \n, and DEL, as \t, \r or \xNN.
cat >esc.py <<'PY'
import re, sys
d = sys.stdin.buffer.read()
def one(m):
    c = m.group(0)[0]
    return {9: b"\\t", 13: b"\\r"}.get(c, b"\\x%02x" % c)
sys.stdout.buffer.write(re.sub(rb"[\x00-\x08\x0b-\x1f\x7f]", one, d))
PY
for v in top traces tree peek; do
	case $v in peek) pa=-peek=red re=red ;; *) pa=-$v re= ;; esac
	"$PSYM" $v $re esc.pb >$v.a 2>$v.err
	check "$v: no control character in the output" nocntrl $v.a
	if command -v go >/dev/null 2>&1; then
		go tool pprof $pa -symbolize=none esc.pb 2>/dev/null | python3 esc.py >$v.b
		check "$v = go tool pprof $pa, its control characters escaped" cmp $v.a $v.b
	fi
done
"$PSYM" folded --comm esc.pb >folded.a
check "folded: names and comm frames escaped" \
	sh -c "grep -qF 'c\\x1b[2Jx;' folded.a && grep -qF 'red\\x1b[31mX' folded.a"
check "folded: no control character" nocntrl folded.a
mkdir -p src && printf 'a\nb\nc\nd\ne\n\tf\033[1m\ng\nh\n' >'src/e'"$(printf '\033')"'vil.c'
"$PSYM" list bell esc.pb >list.a 2>list.err
check "list: routine names, file and source lines escaped (tabs kept)" \
	sh -c "grep -qF 'ROUTINE ======================== bell\\x07b in src/e\\x1bvil.c' list.a && grep -qF '	f\\x1b[1m' list.a"
check "list: no control character but the source's tabs" nocntrl list.a
if command -v go >/dev/null 2>&1; then
	go tool pprof -list=bell -symbolize=none esc.pb 2>/dev/null | python3 esc.py >list.b
	check "list = go tool pprof -list, its control characters escaped" cmp list.a list.b
fi
"$PSYM" flame esc.pb -o f.svg
check "flame: the SVG parses as XML (no raw control character) and names red\\x1b[31mX" \
	python3 -c 'import xml.etree.ElementTree as E; t=E.parse("f.svg"); assert any((x.text or "").startswith("red\\x1b[31mX") for x in t.iter() if x.tag.endswith("title")), "no title"'
"$PSYM" show esc.pb >show.a
check "show: strings escaped" \
	sh -c "grep -qF 'red\\x1b[31mX' show.a"
check "show: no control character" nocntrl show.a
"$PSYM" merge esc.pb -o kept.pb && decode_pb kept.pb >kept.txt
check "the pprof psym writes keeps the bytes" grep -qF 'red\033[31mX' kept.txt
finish
