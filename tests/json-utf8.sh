#!/bin/sh
# Every JSON psym writes is valid UTF-8 (issue 53 defect 4): invalid
# sequences become U+FFFD as llvm-symbolizer's JSON does. A binary whose
# symbol holds 0xff, an escape, an overlong pair and a cut 3-byte
# sequence (objcopy --redefine-sym): addr --json equals llvm-symbolizer
# --output-style=JSON byte for byte and decodes as strict UTF-8; addr's
# text shows the escape, not sends it. stack --json on a core whose
# NT_FILE path and comm hold 0xff, show --json on a profile whose names
# do, and --results lines of an input named with 0xff all decode as
# strict UTF-8.
. "$top_srcdir/tests/lib.sh"
need gcc
need objcopy
need python3
need protoc

# strict FILE...: each file is JSON (one document, or one per line) in strict UTF-8.
cat >strict.py <<'PY'
import json, sys
for f in sys.argv[1:]:
    text = open(f, "rb").read().decode("utf-8")  # strict: raises on invalid bytes
    if f.endswith(".jsonl"):
        for line in text.splitlines():
            json.loads(line)
    else:
        json.loads(text)
PY

cat >t.c <<'C'
int target(int x) { return x * 3 + 1; }
int main(int c, char **v) { (void)v; return target(c); }
C
gcc -O1 -fno-inline -c t.c -o t.o
objcopy --redefine-sym target="$(printf 'bad\377x\033[31m\300\200z\341\200')" t.o
gcc t.o -o t
addr=0x$(nm t | LC_ALL=C grep -a ' bad' | awk '{print $1}')
"$PSYM" addr --json -e t "$addr" >a.json 2>a.err
check "addr --json: strict UTF-8 JSON" python3 strict.py a.json
check "addr --json: U+FFFD for each invalid sequence" \
	python3 -c 'import json; d=json.load(open("a.json", encoding="utf-8")); n=d[0]["Symbol"][0]["FunctionName"]; assert n == "bad\ufffdx\x1b[31m\ufffd\ufffdz\ufffd", ascii(n)'
if command -v llvm-symbolizer >/dev/null 2>&1; then
	llvm-symbolizer --output-style=JSON --obj=t "$addr" >l.json
	check "addr --json = llvm-symbolizer --output-style=JSON" cmp a.json l.json
fi
"$PSYM" addr -f -e t "$addr" >a.txt 2>/dev/null
check "addr text: the escape shown, not sent" \
	sh -c "LC_ALL=C grep -qF 'x\\x1b[31m' a.txt && ! LC_ALL=C grep -q \"\$(printf '\\033')\" a.txt"

python3 "$top_srcdir/tests/mkcore.py" ff.core --path '/usr/lib/b\xffad\xc3.so' --comm 'c\xffm'
"$PSYM" stack --json ff.core >s.json 2>/dev/null
check "stack --json: strict UTF-8 JSON" python3 strict.py s.json
check "stack --json: the path's 0xff is U+FFFD" \
	python3 -c 'import json; d=json.load(open("s.json", encoding="utf-8")); assert d["executable"] == "/usr/lib/b\ufffdad\ufffd.so" or any(f["module"] == "/usr/lib/b\ufffdad\ufffd.so" for t in d["threads"] for f in t["frames"]), d'

cat >ff.txtpb <<'P'
string_table: ""
string_table: "f\377n\300"
string_table: "samples"
string_table: "count"
sample_type { type: 2 unit: 3 }
function { id: 1 name: 1 system_name: 1 }
location { id: 1 line { function_id: 1 line: 3 } }
sample { location_id: [1] value: [5] }
P
encode_txtpb ff.txtpb ff.pb 2>/dev/null # protoc warns of the invalid UTF-8, and encodes it
"$PSYM" show --json ff.pb >sh.json
check "show --json: strict UTF-8 JSON" python3 strict.py sh.json
check "show --json: the name's invalid bytes are U+FFFD" \
	python3 -c 'import json; d=json.load(open("sh.json", encoding="utf-8")); assert d["functions"][0]["name"] == "f\ufffdn\ufffd", d["functions"]'

in=$(printf 'p\377.pb')
cp ff.pb "$in"
printf 'junk' >"$(printf 'q\377.pb')"
mkdir out
printf '%s\tout/a.pb\n%s\tout/b.pb\n' "$in" "$(printf 'q\377.pb')" >man
"$PSYM" symbolize -q --offline --manifest man --results res.jsonl 2>/dev/null
check "--results: two lines of strict UTF-8 JSON" \
	sh -c 'test $(wc -l <res.jsonl) = 2 && python3 strict.py res.jsonl'
check "--results: the input's 0xff is U+FFFD, as in the other JSON" \
	python3 -c 'import json; r=[json.loads(l) for l in open("res.jsonl", encoding="utf-8")]; assert {x["input"] for x in r} == {"p\ufffd.pb", "q\ufffd.pb"}, r'
finish
