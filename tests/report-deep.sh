#!/bin/sh
# Deep stacks are kept whole by folded, traces and flame (they kept only
# the 4,096 innermost frames, silently: issue 53): a 5,000-frame stack's
# folded root is its outermost function, traces on 100,000-frame stacks
# equal go tool pprof -traces byte for byte, folded's stacks equal
# pprof's, the flame graph draws the root, and stacks beyond the
# profile's memory cap (--max-memory) are refused naming the cap.
. "$top_srcdir/tests/lib.sh"
need protoc
need python3
export HOME=$T GOCACHE=$T/gocache

python3 "$top_srcdir/tests/gendeep.py" 5000 3 >d5k.txtpb && encode_txtpb d5k.txtpb d5k.pb
"$PSYM" folded d5k.pb >f.txt
check "folded: a 5,000-frame stack's root is f4999" \
	sh -c "test \$(wc -l <f.txt) = 3 && ! grep -v '^f4999;' f.txt"
check "folded: the whole stack, leaf f0 (5,000 frames + the inlined ones)" \
	sh -c "grep -q ';f0 1\$' f.txt && test \$(head -1 f.txt | tr ';' '\n' | wc -l) -gt 5000"
"$PSYM" flame d5k.pb -o d.svg
check "flame: the root f4999 drawn at depth 0, the leaf at the deepest" \
	sh -c "grep -q 'data-d=\"0\"[^>]*><title>f4999 ' d.svg && grep -q 'data-d=\"$(head -1 f.txt | tr ';' '\n' | wc -l | awk '{print $1 - 1}')\"' d.svg"

if command -v go >/dev/null 2>&1; then
	python3 "$top_srcdir/tests/gendeep.py" 100000 10 >d100k.txtpb && encode_txtpb d100k.txtpb d100k.pb
	"$PSYM" traces d100k.pb >t.a 2>t.err
	go tool pprof -traces -symbolize=none d100k.pb >t.b 2>/dev/null
	check "traces on 100,000-frame stacks = go tool pprof -traces ($(wc -l <t.b) lines)" \
		sh -c 'test $(wc -l <t.b) -gt 1000000 && cmp t.a t.b'
	"$PSYM" folded d100k.pb >f100k.txt
	check "folded on 100,000-frame stacks: pprof's stacks and values" \
		python3 "$top_srcdir/tests/cmp-folded.py" f100k.txt t.b
else
	echo "# skip: the comparisons with go tool pprof need Debian golang-go"
fi

# One location of 100 frames (inline lines) repeated 100,000 times: 10
# million frames, 50 MB of stacks from a profile of a few MB.
python3 - >wide.txtpb <<'PY'
print('string_table: ""')
print('string_table: "g"')
print('string_table: "samples"')
print('string_table: "count"')
print('sample_type { type: 2 unit: 3 }')
print('function { id: 1 name: 1 }')
print('location { id: 1 %s }' % " ".join("line { function_id: 1 line: %d }" % i for i in range(100)))
print('sample { location_id: [%s] value: [1] }' % ", ".join(["1"] * 100000))
PY
encode_txtpb wide.txtpb wide.pb
"$PSYM" folded --max-memory 20M wide.pb >w.txt 2>w.err
echo $? >w.rc
check "folded: stacks beyond --max-memory refused, naming the cap" \
	sh -c 'test "$(cat w.rc)" != 0 && grep -q "memory cap of 20971520 bytes (--max-memory)" w.err && test $(wc -l <w.err) = 1'
"$PSYM" folded wide.pb >w2.txt
check "folded: the same stack kept whole under the default cap (10,000,000 frames)" \
	sh -c "test \$(tr ';' '\n' <w2.txt | wc -l) = 10000000"
finish
