#!/bin/sh
# Go binaries this machine cannot build (issue 40): esbuild's stripped
# release binaries from npm, built by Go releases with the 1.16-1.17,
# 1.18-1.19 and 1.20+ table layouts. The oracle is each program's own
# runtime: run it so it waits on stdin, send SIGQUIT with
# GOTRACEBACK=system, and compare psym's answer for every pc - 1 of the
# traceback (function, file:line, inlined frames) with what the runtime
# printed. Where Debian's go tool addr2line reads the layout (up to 1.18),
# every tenth instruction of .text is also compared with it (function,
# file:line). Skipped when npm or the registry cannot be reached.
. "$top_srcdir/tests/lib.sh"
need npm
need python3
CMP=$top_srcdir/tests/compare-gotraceback.py

for pkg in "esbuild-linux-64@0.11.23 Go 1.16-1.17" "esbuild-linux-64@0.14.54 Go 1.18-1.19" \
	"@esbuild/linux-x64@0.21.5 Go 1.20+"; do
	set -- $pkg
	spec=$1
	shift
	layout="$*"
	d=$(echo "$spec" | tr -c 'a-zA-Z0-9.\n' _)
	mkdir -p "$d"
	tgz=$(cd "$d" && timeout 300 npm pack --silent "$spec" 2>/dev/null | tail -1)
	[ -n "$tgz" ] && [ -f "$d/$tgz" ] || skip "npm pack $spec failed (no registry?)"
	tar -xzf "$d/$tgz" -C "$d" || { fail "$spec: cannot unpack"; continue; }
	bin=$d/package/bin/esbuild
	# It waits reading stdin (the fifo, held open by fd 3) until SIGQUIT.
	mkfifo "$d/in"
	GOTRACEBACK=system "$bin" <"$d/in" >"$d/out" 2>"$d/tb" &
	pid=$!
	exec 3>"$d/in"
	sleep 2
	kill -QUIT "$pid"
	wait "$pid"
	exec 3>&-
	python3 "$CMP" "$d/tb" pcs >"$d/pcs"
	check "$spec: the traceback has pcs" test -s "$d/pcs"
	timeout 300 "$PSYM" addr --json --explain -e "$bin" <"$d/pcs" >"$d/psym.json" 2>"$d/explain"
	check "$spec: --explain says symbols from .gopclntab ($layout layout)" \
		grep -q "symbols from .gopclntab ($layout layout)" "$d/explain"
	python3 "$CMP" "$d/tb" "$d/psym.json" >"$d/cmp"
	rc=$?
	echo "$spec ($layout): $(tail -1 "$d/cmp")"
	[ $rc = 0 ] || cat "$d/cmp"
	expect_exit 0 "$spec: every pc's inline chain as the runtime printed it" sh -c "exit $rc"
	case $layout in *1.20*) continue ;; esac
	command -v go >/dev/null 2>&1 && command -v objdump >/dev/null 2>&1 || continue
	objdump -d --no-show-raw-insn -j .text "$bin" |
		sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' | awk 'NR % 10 == 0' >"$d/insns"
	timeout 600 "$PSYM" addr --json -e "$bin" <"$d/insns" >"$d/all.json" 2>/dev/null
	GOCACHE=$T/gocache timeout 600 go tool addr2line "$bin" <"$d/insns" >"$d/goa"
	python3 "$top_srcdir/tests/compare-go.py" "$d/all.json" - "$d/goa" "$d/insns" >"$d/goa.cmp"
	rc=$?
	echo "$spec: $(grep 'go tool' "$d/goa.cmp")"
	expect_exit 0 "$spec: every tenth instruction as go tool addr2line says" sh -c "exit $rc"
done
finish
