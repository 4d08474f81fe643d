#!/bin/sh
# psym list --source-path DIRS reads only files inside DIRS (issue 53's
# policy): a profile naming /etc/passwd, ../../etc/passwd (a file planted
# above DIR) or a symbolic link in DIR out of it gets an Error line, not
# the file; a file inside DIR is read as before. Without --source-path,
# list reads what the profile names, as go tool pprof -list does (the
# same output as pprof's, checked when go is installed).
. "$top_srcdir/tests/lib.sh"
need protoc
test -r /etc/passwd || skip "no readable /etc/passwd"
export HOME=$T GOCACHE=$T/gocache

mkdir -p top/etc top/a/b/src
printf 'PLANTED SECRET 1\nPLANTED SECRET 2\nPLANTED SECRET 3\n' >top/etc/passwd
printf 'ok line 1\nok line 2\nok line 3\n' >top/a/b/src/ok.c
ln -s /etc/passwd top/a/b/src/link.c
cat >p.txtpb <<'P'
string_table: ""
string_table: "samples"
string_table: "count"
string_table: "fn_abs"
string_table: "/etc/passwd"
string_table: "fn_up"
string_table: "../../etc/passwd"
string_table: "fn_ok"
string_table: "src/ok.c"
string_table: "fn_link"
string_table: "src/link.c"
sample_type { type: 1 unit: 2 }
function { id: 1 name: 3 filename: 4 start_line: 1 }
function { id: 2 name: 5 filename: 6 start_line: 1 }
function { id: 3 name: 7 filename: 8 start_line: 1 }
function { id: 4 name: 9 filename: 10 start_line: 1 }
location { id: 1 line { function_id: 1 line: 1 } }
location { id: 2 line { function_id: 2 line: 1 } }
location { id: 3 line { function_id: 3 line: 2 } }
location { id: 4 line { function_id: 4 line: 1 } }
sample { location_id: [1] value: [1] }
sample { location_id: [2] value: [1] }
sample { location_id: [3] value: [1] }
sample { location_id: [4] value: [1] }
P
encode_txtpb p.txtpb p.pb
first=$(head -1 /etc/passwd)
dir=$PWD/top/a/b

"$PSYM" list --source-path "$dir" fn_ p.pb >c.txt 2>c.err
check "--source-path: /etc/passwd not read" \
	grep -qxF " Error: file /etc/passwd is outside --source-path $dir: not read" c.txt
check "--source-path: ../../etc/passwd (planted above DIR) not read" \
	sh -c '! grep -q "PLANTED SECRET" c.txt && grep -qF " Error: file ../../etc/passwd is outside --source-path" c.txt'
check "--source-path: a symbolic link in DIR to /etc/passwd not read" \
	sh -c "! grep -qF '$first' c.txt && grep -qF ' Error: file src/link.c is outside --source-path' c.txt"
check "--source-path: a file inside DIR is read" grep -q ':ok line 2$' c.txt

# Without --source-path, what the profile names is read (pprof's behaviour).
(cd top/a/b && "$PSYM" list fn_abs "$T/p.pb") >n.txt 2>/dev/null
check "no --source-path: /etc/passwd read, as pprof -list does" grep -qF ":$first" n.txt
if command -v go >/dev/null 2>&1; then
	(cd top/a/b && go tool pprof -list=fn_abs -symbolize=none "$T/p.pb") >n.b 2>/dev/null
	check "no --source-path: = go tool pprof -list" cmp n.txt n.b
fi
finish
