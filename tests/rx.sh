#!/bin/sh
# Report filter regular expressions (src/base/rx.c) against Go's regexp,
# which go tool pprof compiles -focus/-ignore/-hide/-show/-tagfocus with:
# - every pattern x every subject of the lists below gives the same yes/no
#   as regexp.MatchString (an unanchored search), and every refused pattern
#   the same error text, from a Go program built here (stdlib only, offline);
# - psym top with RE2-only syntax ((?:...), \Q..\E, \x41, (?P<n>...),
#   (?i:...), {,n} literal) prints what go tool pprof -top prints;
# - hostile patterns (issue 38 item 9) are refused as pprof refuses them,
#   with a one-line error and exit 2, or run within bounded memory
#   (/usr/bin/time's maximum RSS; no timing assertions).
. "$top_srcdir/tests/lib.sh"
need go "Debian golang-go"
need protoc
need python3
export HOME=$T GOCACHE=$T/gocache GOFLAGS=-mod=mod GOPROXY=off GO111MODULE=off

cat >oracle.go <<'EOF'
// For every pattern: "I error MESSAGE" or "I J 0|1" for every subject J.
// A byte 0x01 in a subject stands for a newline.
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
)

func lines(path string, nl bool) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	v := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i := range v {
		if nl {
			v[i] = strings.ReplaceAll(v[i], "\x01", "\n")
		}
	}
	return v
}

func main() {
	pats := lines(os.Args[1], false)
	subs := lines(os.Args[2], true)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for i, p := range pats {
		re, err := regexp.Compile(p)
		if err != nil {
			fmt.Fprintf(w, "%d error %s\n", i, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
			continue
		}
		for j, s := range subs {
			m := 0
			if re.MatchString(s) {
				m = 1
			}
			fmt.Fprintf(w, "%d %d %d\n", i, j, m)
		}
	}
}
EOF

# Patterns, one a line (the first is empty). Not here: \pL and the other
# Unicode classes (psym refuses them), (?<name>...) (Go 1.22 has it, this
# Go not), (?i) on letters past Latin-1 (psym folds ASCII and Latin-1 only).
cat >pats <<'EOF'

a
abc
^abc$
^a
c$
a.c
a.*c
.
^.$
^..$
^...$
[abc]
[^abc]
[a-c]+
[^a-z]
^[a-z]+$
[]a]
[^]a]
[a-]
[-a]
[a\-z]
[\]]
[\\]
[\d]
[\D]
\d+
\D
\w+
^\w+$
\W
\s
\S
[\s\d]
[^\s]
[[:alpha:]]+
^[[:alpha:]]+$
[[:^alpha:]]
[[:digit:][:upper:]]
[[:punct:]]
[[:space:]]
[[:word:]]
[[:xdigit:]]{2}
[[:foo:]]
[[:alpha:]
[z-a]
[a
a]
(a
a)
()
(?:)
(a|b)
a|b|c
a|
|a
(|a)
abc|def
^(abc|def)$
(?:ab)+
(ab)*c
a*
a+
a?
a*?
a+?
a??
a{2}
a{2,}
a{2,3}
^a{2,3}$
a{0}
^a{0}b
a{,3}
a{
a{x}
a{01}
x{1001}
x{1000}
x{2,1}
a**
a*+
a+*
a??*
a{2}{3}
a{2}*
*a
+
?
{2}
a|*
(*a)
((a{255}){255}){255}
(a{30}){30}
(a{30}){40}
(a{10}){10}{10}
((a{10}){10}){10}
((a{10}){10}){11}
(a{0}){2000}
(a*){1000}
(.*)\1
(a)\1
\1
\8
\12
\101
\0
\x41
\x{263a}
\x{110000}
\x4
\xg1
\a
\t
\n
\.
\*
\_
\-
\e
\Z
\C
\A
\z
\Aab
ab\z
\bfoo\b
\Bfoo
foo\B
\b
\B
\Qa.b\E
\Qa.b
a\Q\E*
(?i)abc
(?i)ABC
(?i:a)bc
(?i)k
(?i)s
(?i)K
(?i)[k]
(?i)[^k]
(?i)[a-z]+
(?i)\W
(?i)[[:lower:]]
(?i)é
(?i)É
(?i)ÿ
(?i)Ÿ
(?i)ß
(?i)µ
(?i)Å
(?-i)a
(?i)a(?-i)b
(?i-)a
(?)
(?i)
(?m)^bar
(?m)foo$
^bar
foo$
(?s).
(?s)o.b
o.b
(?U)a+
(?x)a
(?i:(?-i:a)A)
(?P<name>a)
(?P<na me>a)
(?P<>a)
(?P<name
(?P=name)
(?=a)
(?!a)
(?<=a)
(?<!a)
(?#c)
é
^é$
^.$
[é]
[^é]
\x{FFFD}
^\x{FFFD}$
^[^a]$
日本
[本-語]
a\
\\
main\.
runtime\.(malloc|gc)
^std::
::push_back$
lib(c|m)\.so
fn_[12]
(?i)NGINX
^do_
nginx|libc
\.so\.\d+$
^/usr/lib
(a+)+b
(a|a)*b
(a*)*b
(x+x+)+y
((a*)*|b)*c
a{1000}
(a|b){1000}c
.{3}
^.{3}$
^.{3,}$
[a-c]{2}[0-9]
EOF
# Subjects, one a line; \001 is a newline, then some bytes that are not UTF-8.
cat >subs <<'EOF'

a
b
c
abc
ABC
aBc
xabcx
abcabc
aaaa
aaaaaaaaaaaaaaaaaaaaaaaaaab
aa
a.c
a-c
a]
]
-
\
a\b
main.foo
runtime.mallocgc
std::vector<int>::push_back
/usr/lib/x86_64-linux-gnu/libc.so.6
/usr/lib/libm.so
fn_1
fn_3
nginx
NGINX
do_syscall
foo bar
x_y
123
1a
 
	
K
k
K
S
s
ſ
é
É
ÿ
Ÿ
ß
ẞ
µ
μ
Μ
Å
å
Å
日本語
a{
{2}
a**
(x)
foo
foobar
bar
xxxxxxxxxxxxxxxxxxxxy
ab*
a.b
Ab
AB
hello world
EOF
printf 'foo\001bar\n\001\nfoo\001\no\001b\na\001\n' >>subs
printf 'a\377b\n\377\n\355\240\200\n\300\200\n\342\202\n\n' >>subs

if go run oracle.go pats subs >go.out 2>go.err; then :; else
	cat go.err
	skip "go run cannot build a stdlib-only program here"
fi
"$top_builddir/tests/rx-match" pats subs >psym.out
np=$(wc -l <pats)
ns=$(wc -l <subs)
if cmp -s go.out psym.out; then
	pass "$np patterns x $ns subjects: psym's answers and errors = Go's regexp"
else
	fail "$np patterns x $ns subjects: psym's answers and errors = Go's regexp"
	diff go.out psym.out | head -20
	diff go.out psym.out | awk '/^[<>]/{print $2}' | sort -un | head -10 | while read -r i; do
		echo "  pattern $i: $(sed -n "$((i + 1))p" pats)"
	done
fi

# psym top = go tool pprof -top with syntax only RE2 has (the old glibc
# translation refused or misread each of these).
python3 "$top_srcdir/tests/gensystem.py" 1 >sys.txtpb
encode_txtpb sys.txtpb sys.pb
same() {
	"$PSYM" top "$@" sys.pb >top.a 2>top.err
	go tool pprof -top -nodecount=100000 -nodefraction=0 -edgefraction=0 -symbolize=none \
		"$(printf '%s' "$1" | sed 's/^--/-/')" sys.pb >top.b 2>/dev/null
	if [ -s top.b ] && cmp -s top.a top.b; then pass "top $1 = pprof -top"; else
		fail "top $1 = pprof -top"; diff top.a top.b | head -8; cat top.err; fi
}
same '--focus=(?:nginx|bash)_parse1$'
same '--focus=\Qlibc_parse1\E'
same '--focus=\x6eginx'
same '--focus=(?P<n>bash)_(?i:READ)'
same '--ignore=^(?:do|__x64)_k\d'
same '--hide=(?i)LIBC'
same '--show=_parse1{,2}|[[:digit:]]{2}$'
same '--focus=\bparse\d+\z'
same '--tagfocus=comm=(?:ngi|bas)'

# Hostile patterns: refused by pprof, and by psym with one line and exit 2,
# within bounded memory. The first two are issue 38's (glibc: 16.4 s and
# 3.48 GB; 8 to 20 s).
rss_ok() { # rss_ok KB: under 200 MB
	[ "$1" -lt 204800 ]
}
big=$(python3 -c "print('\\\\w{1000}' * 700)") # 700k instructions: over the 8 MB cap
for re in '((a{255}){255}){255}' '(.*)(.*)(.*)(.*)(.*)\5\4\3\2\1Z' '(a{1000}){1000}' \
	'x{1001}' '(?=a)' '(?<!a)' '(a)\1'; do
	short=$(printf '%.40s' "$re")
	go tool pprof -top -symbolize=none "-focus=$re" sys.pb >/dev/null 2>&1 && gst=0 || gst=$?
	/usr/bin/time -f %M -o rss timeout 120 "$PSYM" top "--focus=$re" sys.pb >out 2>err && st=0 || st=$?
	if [ "$gst" -ne 0 ] && [ "$st" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
		grep -q "bad focus regular expression" err && rss_ok "$(tail -n1 rss)"; then
		pass "--focus='$short' refused as pprof refuses it ($(tail -n1 rss) KB): $(cut -c1-60 err)"
	else
		fail "--focus='$short' refused as pprof refuses it (psym exit $st, pprof $gst, $(tail -n1 rss) KB)"
		head -c 300 err
	fi
done
# pprof (Go 1.19) has no cap on the program: psym's is its own.
/usr/bin/time -f %M -o rss "$PSYM" top "--focus=$big" sys.pb >out 2>err && st=0 || st=$?
if [ "$st" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "too large.*8 MB" err &&
	rss_ok "$(tail -n1 rss)"; then
	pass "700 x \\w{1000} refused, the cap named ($(tail -n1 rss) KB): $(cut -c 1-40 err)...$(grep -o ': expression.*' err)"
else
	fail "700 x \\w{1000} refused, the cap named (exit $st, $(tail -n1 rss) KB)"
	cat err
fi

# Accepted, and the biggest programs under the cap: bounded memory.
for re in "x$(python3 -c "print('\\\\w{1000}' * 600)")" "$(python3 -c "print('(?:a|b|\\\\w?){300}' * 20)")Z" \
	'(x+x+)+y' '(a|aa)*b' '(a*)*$' '(?:(?:(?:a{10}){10}){10})'; do
	short=$(printf '%.40s' "$re")
	/usr/bin/time -f %M -o rss timeout 300 "$PSYM" top "--focus=$re" sys.pb >out 2>err && st=0 || st=$?
	if [ "$st" -eq 0 ] && rss_ok "$(tail -n1 rss)"; then
		pass "--focus='$short' runs in bounded memory ($(tail -n1 rss) KB)"
	else
		fail "--focus='$short' runs in bounded memory (exit $st, $(tail -n1 rss) KB)"
		head -c 300 err
	fi
done
# A long name through an ambiguous pattern: linear, and the right answer.
python3 - >long.txt <<'EOF'
print("a" * 200000)
EOF
printf '(a|aa)*b\n(a|aa)*$\n(a*)*a{1000}$\n' >lpats
/usr/bin/time -f %M -o rss "$top_builddir/tests/rx-match" lpats long.txt >long.out
check "200 kB of 'a' through (a|aa)*b, (a|aa)*\$, (a*)*a{1000}\$: no, yes, yes ($(tail -n1 rss) KB)" \
	sh -c "printf '0 0 0\n1 0 1\n2 0 1\n' | cmp -s - long.out"
finish
