#!/bin/sh
# Go binaries this machine cannot build (issue 40): esbuild's stripped
# release binaries from npm, built by Go releases with every table layout
# (1.2-1.15, 1.16-1.17, 1.18-1.19, 1.20+) and for other machines: 386 and
# arm (4-byte pointers), s390x (big-endian), ppc64le, mips64le. The oracle
# is each program's own runtime: run it (natively, or under qemu-user) so
# it waits on stdin, send SIGQUIT with GOTRACEBACK=system, and compare
# psym's answer for every pc - 1 of the traceback (function, file:line,
# inlined frames) with what the runtime printed. Where Debian's go tool
# addr2line reads the layout (up to 1.19, any machine), every tenth
# instruction of .text is also compared with it (function, file:line).
# A release built with DWARF (0.5.26) is stripped here first. Skipped when
# npm or the registry cannot be reached; a machine without its qemu-user
# emulator has only the go tool addr2line check.
. "$top_srcdir/tests/lib.sh"
need npm
need python3
CMP=$top_srcdir/tests/compare-gotraceback.py

# spec, how to run it ("-": not run), layout
for pkg in "esbuild-linux-64@0.11.23 native Go 1.16-1.17" \
	"esbuild-linux-64@0.14.54 native Go 1.18-1.19" \
	"@esbuild/linux-x64@0.21.5 native Go 1.20+" \
	"esbuild-linux-64@0.5.26 native Go 1.2-1.15" \
	"esbuild-linux-mips64le@0.8.9 qemu-mips64el Go 1.2-1.15" \
	"esbuild-linux-32@0.7.20 - Go 1.2-1.15" \
	"esbuild-linux-arm@0.8.47 qemu-arm Go 1.16-1.17" \
	"esbuild-linux-s390x@0.14.8 qemu-s390x Go 1.16-1.17" \
	"esbuild-linux-s390x@0.14.54 qemu-s390x Go 1.18-1.19" \
	"esbuild-linux-32@0.14.54 - Go 1.18-1.19" \
	"esbuild-linux-arm@0.14.54 qemu-arm Go 1.18-1.19" \
	"esbuild-linux-ppc64le@0.14.54 qemu-ppc64le Go 1.18-1.19"; do
	set -- $pkg
	spec=$1
	run=$2
	shift 2
	layout="$*"
	d=$(echo "$spec" | tr -c 'a-zA-Z0-9.\n' _)
	mkdir -p "$d"
	tgz=$(cd "$d" && timeout 300 npm pack --silent "$spec" 2>/dev/null | tail -1)
	[ -n "$tgz" ] && [ -f "$d/$tgz" ] || skip "npm pack $spec failed (no registry?)"
	tar -xzf "$d/$tgz" -C "$d" || { fail "$spec: cannot unpack"; continue; }
	prog=$PWD/$d/package/bin/esbuild
	bin=$prog
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
		GOTRACEBACK=system $em "$prog" <"$d/in" >"$d/out" 2>"$d/tb" &
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
