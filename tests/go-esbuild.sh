#!/bin/sh
# Go binaries this machine cannot build (issues 40, 52): esbuild's stripped
# release binaries from npm, built by Go releases with every table layout
# (1.2-1.15, 1.16-1.17, 1.18-1.19, 1.20+) and for other machines: 386 and
# arm (4-byte pointers), s390x (big-endian), ppc64le, mips64le; and the
# newest Go programs npm ships, one per Go release from 1.20 to 1.27
# (esbuild, buf's protoc plugin, tsgo: Go 1.26 moved the moduledata to
# .go.module and the inline trees into .gopclntab, 1.27 moved gofunc in
# the moduledata again; bench/GO.md). The oracle
# is each program's own runtime: run it (natively, or under qemu-user) so
# it waits on stdin, send SIGQUIT with GOTRACEBACK=system, and compare
# psym's answer for every pc - 1 of the traceback (function, file:line,
# inlined frames) with what the runtime printed. Where Debian's go tool
# addr2line reads the layout (up to 1.19, any machine), every tenth
# instruction of .text is also compared with it (function, file:line).
# A release built with DWARF (0.5.26) is stripped here first. Skipped when
# npm or the registry cannot be reached; a machine without its qemu-user
# emulator has only the go tool addr2line check. The Go release each was
# built by is checked (runtime.buildVersion's string), so the table of
# releases stays true. On Go 1.26's esbuild with its moduledata hidden
# (the section renamed), psym warns once that inline frames are missing
# and gives the outer function, without the inlined body's line.
. "$top_srcdir/tests/lib.sh"
need npm
need python3
need strings
CMP=$top_srcdir/tests/compare-gotraceback.py

# spec, the program in the package (",": its arguments; it must wait on
# stdin), the Go release that built it ("-": not checked), how to run it
# ("-": not run), layout
for pkg in "esbuild-linux-64@0.11.23 bin/esbuild - native Go 1.16-1.17" \
	"esbuild-linux-64@0.14.54 bin/esbuild - native Go 1.18-1.19" \
	"@esbuild/linux-x64@0.21.5 bin/esbuild go1.20.12 native Go 1.20+" \
	"@bufbuild/buf-linux-x64@1.28.1 bin/protoc-gen-buf-lint go1.21.4 native Go 1.20+" \
	"@esbuild/linux-x64@0.23.1 bin/esbuild go1.22.5 native Go 1.20+" \
	"@esbuild/linux-x64@0.25.12 bin/esbuild go1.23.12 native Go 1.20+" \
	"@bufbuild/buf-linux-x64@1.55.1 bin/protoc-gen-buf-lint go1.24.4 native Go 1.20+" \
	"@esbuild/linux-x64@0.27.0 bin/esbuild go1.25.4 native Go 1.20+" \
	"@esbuild/linux-x64@0.28.2 bin/esbuild go1.26.5 native Go 1.20+" \
	"@typescript/native-preview-linux-x64@7.0.0-dev.20260707.2 lib/tsgo,--lsp,--stdio go1.26.4 native Go 1.20+" \
	"@bufbuild/buf-linux-x64@1.75.0 bin/protoc-gen-buf-lint go1.27.3 native Go 1.20+" \
	"esbuild-linux-64@0.5.26 bin/esbuild - native Go 1.2-1.15" \
	"esbuild-linux-mips64le@0.8.9 bin/esbuild - qemu-mips64el Go 1.2-1.15" \
	"esbuild-linux-32@0.7.20 bin/esbuild - - Go 1.2-1.15" \
	"esbuild-linux-arm@0.8.47 bin/esbuild - qemu-arm Go 1.16-1.17" \
	"esbuild-linux-s390x@0.14.8 bin/esbuild - qemu-s390x Go 1.16-1.17" \
	"esbuild-linux-s390x@0.14.54 bin/esbuild - qemu-s390x Go 1.18-1.19" \
	"esbuild-linux-32@0.14.54 bin/esbuild - - Go 1.18-1.19" \
	"esbuild-linux-arm@0.14.54 bin/esbuild - qemu-arm Go 1.18-1.19" \
	"esbuild-linux-ppc64le@0.14.54 bin/esbuild - qemu-ppc64le Go 1.18-1.19"; do
	set -- $pkg
	spec=$1
	path=${2%%,*}
	args=$(echo "$2," | cut -d, -f2- | tr , ' ')
	gover=$3
	run=$4
	shift 4
	layout="$*"
	d=$(echo "$spec" | tr -c 'a-zA-Z0-9.\n' _)
	mkdir -p "$d"
	tgz=$(cd "$d" && timeout 300 npm pack --silent "$spec" 2>/dev/null | tail -1)
	[ -n "$tgz" ] && [ -f "$d/$tgz" ] || skip "npm pack $spec failed (no registry?)"
	tar -xzf "$d/$tgz" -C "$d" || { fail "$spec: cannot unpack"; continue; }
	prog=$PWD/$d/package/$path
	bin=$prog
	rm -f "$d/$tgz"
	[ "$gover" = - ] || check "$spec: built by $gover" \
		sh -c "strings -n 6 '$prog' | grep -m1 -x 'go1\.[0-9.]*' | grep -qx '$gover'"
	if readelf -SW "$prog" | grep -q '\.z*debug_info'; then
		need objcopy
		objcopy --strip-all "$prog" "$d/stripped" || { fail "$spec: cannot strip"; continue; }
		bin=$PWD/$d/stripped # the table answers, not the DWARF
	fi
	case $run in
	-) # Go's 386 runtime fails under qemu-i386 ("bad g in signal handler", "lock count")
		echo "note: $spec is not run: its runtime fails under qemu-user" ;;
	native | qemu-*)
		em=
		if [ "$run" != native ]; then
			em=$run
			command -v "$em" >/dev/null 2>&1 || {
				echo "note: $spec: no $em (qemu-user): its runtime traceback is not checked"
				em=-
			}
		fi
		[ "$em" = - ] && run=-
		;;
	esac
	if [ "$run" != - ]; then
		# It waits reading stdin (the fifo, held open by fd 3) until SIGQUIT.
		mkfifo "$d/in"
		GOTRACEBACK=system $em "$prog" $args <"$d/in" >"$d/out" 2>"$d/tb" &
		pid=$!
		exec 3>"$d/in"
		sleep 3
		kill -QUIT "$pid"
		wait "$pid"
		exec 3>&-
		if [ "$(head -1 "$d/tb")" != "SIGQUIT: quit" ] && [ -n "$em" ]; then
			# the emulator's failing, not the table's: said, not compared
			echo "note: $spec under $run did not take SIGQUIT: $(head -1 "$d/tb")"
			run=-
		fi
	fi
	if [ "$run" != - ]; then
		python3 "$CMP" "$d/tb" pcs >"$d/pcs"
		check "$spec: the traceback ($run) has pcs" test -s "$d/pcs"
		timeout 300 "$PSYM" addr --json --explain -e "$bin" <"$d/pcs" >"$d/psym.json" \
			2>"$d/explain"
		check "$spec: --explain says symbols from .gopclntab ($layout layout)" \
			grep -q "symbols from .gopclntab ($layout layout)" "$d/explain"
		python3 "$CMP" "$d/tb" "$d/psym.json" >"$d/cmp"
		rc=$?
		echo "$spec ($layout, $run): $(tail -1 "$d/cmp")"
		[ $rc = 0 ] || cat "$d/cmp"
		expect_exit 0 "$spec: every pc's inline chain as the runtime printed it" \
			sh -c "exit $rc"
		check "$spec: no warning" sh -c "! grep -q warning $d/explain"
	fi
	if [ "$gover" = go1.26.5 ] && [ "$run" != - ]; then
		need objcopy
		objcopy --rename-section .go.module=.go.hidden "$prog" "$d/hidden" ||
			{ fail "$spec: cannot rename .go.module"; continue; }
		timeout 300 "$PSYM" addr --json -e "$d/hidden" <"$d/pcs" >"$d/hidden.json" \
			2>"$d/hidden.err"
		check "$spec, moduledata hidden: one warning that inline frames are missing" \
			sh -c "test \$(grep -c 'warning: .*no inline frames: no moduledata found.*inlined calls are missing' $d/hidden.err) = 1"
		python3 "$CMP" "$d/tb" "$d/hidden.json" outer >"$d/cmp"
		rc=$?
		echo "$spec, moduledata hidden: $(tail -1 "$d/cmp")"
		[ $rc = 0 ] || cat "$d/cmp"
		expect_exit 0 "$spec, moduledata hidden: outer functions, no inlined body's line" \
			sh -c "exit $rc"
		rm -f "$d/hidden"
	fi
	case $layout in *1.20*) continue ;; esac
	command -v go >/dev/null 2>&1 && command -v llvm-objdump >/dev/null 2>&1 || {
		echo "note: no go or llvm-objdump: $spec not compared with go tool addr2line"
		continue
	}
	llvm-objdump -d --no-show-raw-insn -j .text "$bin" |
		sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' | awk 'NR % 10 == 0' >"$d/insns"
	timeout 600 "$PSYM" addr --json --explain -e "$bin" <"$d/insns" >"$d/all.json" \
		2>"$d/all.err"
	check "$spec: every tenth instruction: symbols from .gopclntab ($layout layout), no warning" \
		sh -c "grep -q 'symbols from .gopclntab ($layout layout)' $d/all.err &&
			! grep -q warning $d/all.err"
	GOCACHE=$T/gocache timeout 600 go tool addr2line "$bin" <"$d/insns" >"$d/goa"
	python3 "$top_srcdir/tests/compare-go.py" "$d/all.json" - "$d/goa" "$d/insns" >"$d/goa.cmp"
	rc=$?
	echo "$spec: $(grep 'go tool' "$d/goa.cmp") of $(wc -l <"$d/insns")"
	[ $rc = 0 ] || cat "$d/goa.cmp"
	expect_exit 0 "$spec: every tenth instruction as go tool addr2line says" sh -c "exit $rc"
	rm -f "$d/insns" "$d/all.json" "$d/goa"
done
finish
