#!/bin/sh
# Bash completion (doc/bash-completion/): psym-collect's options come from
# its --help, -p offers running PIDs, -o files; psym's commands.
. "$top_srcdir/tests/lib.sh"
need bash
[ -x "$top_builddir/psym-collect" ] || skip "psym-collect not built (configure --disable-collector)"
PATH=$top_builddir:$PATH
export PATH top_srcdir
sl=
trap '[ -n "$sl" ] && kill $sl 2>/dev/null; cleanup' EXIT INT TERM

# complete WORDS...: what bash would offer for the last word.
complete_line() {
	bash -c '. "$top_srcdir/doc/bash-completion/psym"
		. "$top_srcdir/doc/bash-completion/psym-collect"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		case $1 in psym) _psym ;; *) _psym_collect ;; esac
		printf "%s\n" "${COMPREPLY[@]}"' bash "$@"
}

complete_line psym-collect --st >got
printf '%s\n' --stack-copy --stack-entries >want
check "psym-collect --st: the --stack-* options of --help" diff -u want got
missing=
for o in $(psym-collect --help | grep -o -- '--[a-z-]*' | sort -u); do
	complete_line psym-collect "$o" | grep -qx -- "$o" || missing="$missing $o"
done
check "psym-collect: every option of --help is offered${missing:+ (not:$missing)}" test -z "$missing"
sleep 30 &
sl=$!
complete_line psym-collect -p "" >pids
check "psym-collect -p: running PIDs (this test's sleep $sl)" grep -qx "$sl" pids
kill $sl
wait $sl 2>/dev/null
sl=
touch out.pb.gz
complete_line psym-collect -o out >got
check "psym-collect -o: files" grep -qx out.pb.gz got
complete_line psym sym >got
check "psym sym: symbolize" grep -qx symbolize got
complete_line psym arc >got
check "psym arc: archive" grep -qx archive got
complete_line psym archive --ex >got
check "psym archive --ex: --exclude-path (from its --help)" grep -qx -- --exclude-path got
complete_line psym-collect --mmap-pages "" >got
check "psym-collect --mmap-pages: powers of two" grep -qx 64 got
finish
