#!/bin/bash
# psym addr on relocatable objects (ET_REL): the .rela.debug_* relocations
# are applied, addresses are section offsets. Objects are built here from
# tests/reloc/ with gcc, g++, clang, clang++, llvm-mc and the aarch64 cross
# gcc (x86-64 and AArch64 relocation types; compressed debug sections;
# DWARF 4 and 5; one section per function and per COMDAT group), then
# every instruction of every code section is answered by psym and by
# binutils addr2line -j SECTION (exact chains, tests/reloc/compare-a2l.py),
# and every instruction offset by llvm-symbolizer as it reads an object
# (the first code section long enough; tests/compare-symbolizer.py).
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need objdump
need readelf
need addr2line
LLVM_SYM=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer) || skip "llvm-symbolizer is not installed"
SRC=$top_srcdir/tests/reloc
CMP=$top_srcdir/tests/compare-symbolizer.py
CMPA=$SRC/compare-a2l.py

# build NAME CMD...: make NAME.o with CMD (skipped when the compiler is missing).
objs=
build() {
	local name=$1
	shift
	command -v "$1" >/dev/null 2>&1 || { echo "# $1 not installed: no $name"; return 0; }
	if "$@" -o "$name.o" 2>"$name.err"; then
		objs="$objs $name"
	else
		fail "build $name: $(head -3 "$name.err")"
	fi
}
build gcc-o2 gcc -O2 -g -c "$SRC/inl.c"
build gcc-dw4 gcc -O2 -gdwarf-4 -c "$SRC/inl.c"
build gcc-fs gcc -O2 -g -ffunction-sections -fdata-sections -c "$SRC/inl.c"
build gcc-gz gcc -O2 -g -gz=zlib -c "$SRC/inl.c"
build gxx g++ -O2 -g -c "$SRC/tmpl.cc"
# (no vector code: clang's constant-pool labels would be named by
# llvm-symbolizer 14 in place of the function, see below)
build clang-o2 clang -O2 -g -fno-vectorize -fno-slp-vectorize -c "$SRC/inl.c"
# Split DWARF: the skeleton's .debug_addr is relocated, the .dwo is read as it is.
build clang-split clang -O2 -g -gsplit-dwarf -fno-vectorize -fno-slp-vectorize -c "$SRC/inl.c"
build clang-dw4 clang -O2 -gdwarf-4 -ffunction-sections -c "$SRC/inl.c"
build clangxx clang++ -O2 -g -c "$SRC/tmpl.cc"
build a64-gcc aarch64-linux-gnu-gcc -O2 -g -c "$SRC/inl.c"
build a64-fs aarch64-linux-gnu-gcc -O2 -g -ffunction-sections -c "$SRC/inl.c"
build mc-dw5 llvm-mc-14 -filetype=obj -g -dwarf-version=5 -triple x86_64-linux-gnu "$SRC/hand.s"
build mc-dw4 llvm-mc-14 -filetype=obj -g -dwarf-version=4 -triple x86_64-linux-gnu "$SRC/hand.s"

total=0
for o in $objs; do
	case $o in
	a64-*)
		OBJDUMP=aarch64-linux-gnu-objdump A2L=aarch64-linux-gnu-addr2line
		command -v $A2L >/dev/null || { echo "# no $A2L: $o against llvm only"; A2L=; }
		;;
	*) OBJDUMP=objdump A2L=addr2line ;;
	esac
	case $o in gxx | clangxx) dem=-C ;; *) dem= ;; esac
	# binutils 2.40 addr2line is no oracle for C++ objects (it drops
	# inlined operator() frames and, in DWARF 5, names the wrong file) nor
	# for clang's DWARF 5 objects (no inline frames from DW_FORM_rnglistx):
	# llvm-symbolizer alone checks those.
	case $o in gxx | clangxx | clang-o2 | clang-split) A2L= ;; esac
	check "$o is ET_REL" grep -q 'REL (Relocatable' <(readelf -h "$o.o")
	: >"$o.all"
	# Every code section: index and name.
	readelf -SW "$o.o" | sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\) .* \([A-Z]*X[A-Z]*\) .*/\1 \2/p' >"$o.secs"
	while read -r idx sec; do
		$OBJDUMP -d -j "$sec" "$o.o" | sed -n 's/^ *\([0-9a-f]*\):\t.*/0x\1/p' >"$o.$idx.addrs"
		[ -s "$o.$idx.addrs" ] || continue
		cat "$o.$idx.addrs" >>"$o.all"
		total=$((total + $(wc -l <"$o.$idx.addrs")))
		[ -n "$A2L" ] || continue
		readelf -sW "$o.o" | awk -v n="$idx" '$4 == "FUNC" && $7 == n { print "0x" $2, $3 }' >"$o.$idx.syms"
		$A2L -a -f -i -j "$sec" -e "$o.o" <"$o.$idx.addrs" >"$o.$idx.a2l"
		"$PSYM" addr -a --section "$sec" -e "$o.o" <"$o.$idx.addrs" >"$o.$idx.psym" 2>"$o.$idx.err" ||
			fail "$o $sec: psym exit $?: $(head -2 "$o.$idx.err")"
		if python3 "$CMPA" "$o.$idx.psym" "$o.$idx.a2l" "$o.$idx.syms" >"$o.$idx.cmp"; then
			pass "$o $sec: addr2line -j agrees ($(head -1 "$o.$idx.cmp"))"
		else
			fail "$o $sec: addr2line -j disagrees"
			cat "$o.$idx.cmp"
		fi
	done <"$o.secs"
	case $o in
	mc-* | *-fs | clang-dw4)
		# llvm-symbolizer takes the outermost name from any symbol at
		# the offset, of whichever section (a function of another
		# .text.*, a data object, a constant-pool label: LLVM's own
		# use-symbol-table.s test expects a .bss variable's name for
		# code); psym names code by the code symbols of its section.
		# Only the one-code-section objects are compared with it;
		# addr2line -j above is the oracle for these.
		continue
		;;
	esac
	sort -u "$o.all" >"$o.uniq"
	# C++: mangled names (the two demanglers spell lambdas and clones
	# differently).
	"$LLVM_SYM" --obj="$o.o" --inlines --output-style=JSON ${dem:+--no-demangle} <"$o.uniq" >"$o.llvm.json"
	"$PSYM" addr --json ${dem:+--no-demangle} -e "$o.o" <"$o.uniq" >"$o.psym.json" 2>"$o.err" ||
		fail "$o: psym exit $?: $(head -2 "$o.err")"
	if python3 "$CMP" --start "$o.psym.json" "$o.llvm.json" 100 >"$o.cmp"; then
		pass "$o: llvm-symbolizer agrees ($(head -1 "$o.cmp"))"
	else
		fail "$o: llvm-symbolizer disagrees"
		cat "$o.cmp"
	fi
done
echo "# $total instructions compared"
[ "$total" -gt 500 ] || fail "only $total instructions compared"

# --section: a name that is no allocated section is refused; an address
# past every code section is answered ??.
expect_exit 2 "--section of a missing section" "$PSYM" addr -e gcc-o2.o --section .nope 0
check "offset past the code is ??" grep -q '^??:0' <("$PSYM" addr -e gcc-o2.o 0x100000)

[ "$n_fail" = 0 ]
