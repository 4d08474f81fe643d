#!/bin/sh
# An index is keyed by build ID, but files of one build ID can be placed
# differently (issue 39 item 2): each must get its own answers whichever
# file built the index. Index addresses are relative to the file's layout
# and the key names the layout: a program linked at two bases with one
# build ID shares one index, and both answer every instruction as
# llvm-symbolizer does on each, in either order; the same program linked
# with its code placed otherwise gets an index of its own; elfutils'
# prelinked library (its code moved by 0x41000020 inside a segment moved
# by 0x41000000) and the library it was made from answer foo /
# testfile52-32.c:2 as eu-addr2line does, in either order.
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need llvm-symbolizer

cat >p.c <<'C'
static inline __attribute__((always_inline)) int sq(int x) { return x * x + 1; }
__attribute__((noinline)) int alpha(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i) * (i & 3); return s; }
__attribute__((noinline)) int beta(int n) { return alpha(n) * 3 + sq(n); }
__attribute__((noinline)) int gamma_(int n) { return beta(n) - alpha(n + 2); }
int main(int argc, char **argv) { (void)argv; return gamma_(argc) & 1; }
C
bid=0x5ca1ab1e00000000000000000000000000000001
ld_at() { # NAME BASE [LDFLAGS...]: p.c linked at BASE with the one build ID
	n=$1 base=$2
	shift 2
	gcc -O2 -g -fno-pie -no-pie -Wl,--build-id=$bid -Wl,-Ttext-segment=$base "$@" -o "$n" p.c
}
ld_at lo 0x400000 || skip "cannot link p.c at 0x400000"
ld_at hi 0x800000 || skip "cannot link p.c at 0x800000"
# The same build ID with its code placed otherwise inside the file.
ld_at sep 0x400000 -Wl,-z,noseparate-code || skip "cannot link with -z noseparate-code"
for b in lo hi sep; do
	objdump -d --no-show-raw-insn "$b" |
		sed -n 's/^ *\([0-9a-f]\{1,16\}\):.*/0x\1/p' >"$b.insns"
	llvm-symbolizer --inlines --output-style=JSON --obj="$b" <"$b.insns" >"$b.llvm"
done
check "lo and sep place main differently" \
	sh -c "[ \"\$(nm lo | grep ' T main')\" != \"\$(nm sep | grep ' T main')\" ]"

# agree STORE BIN WHAT: BIN's answers from STORE's index = llvm-symbolizer's.
agree() {
	"$PSYM" addr --json -v --index-store "$1" --no-index-build -e "$2" <"$2.insns" >"$2.json" \
		2>"$2.err"
	if ! grep -q "from the index" "$2.err"; then
		fail "$3: the index did not answer: $(head -2 "$2.err")"
	elif python3 "$top_srcdir/tests/compare-symbolizer.py" --start "$2.json" "$2.llvm" 100 \
		>"$2.cmp"; then
		pass "$3: $(head -1 "$2.cmp")"
	else
		fail "$3: $(head -4 "$2.cmp")"
	fi
}
for order in "lo hi sep" "hi sep lo" "sep lo hi"; do
	S=S.$(echo "$order" | tr ' ' -)
	first=${order%% *}
	"$PSYM" index --index-store "$S" "$first" >/dev/null 2>idx.err ||
		fail "psym index $first: $(cat idx.err)"
	for b in $order; do
		# An index for b's layout when it has none yet, as a run would build.
		"$PSYM" index --index-store "$S" "$b" >/dev/null 2>&1
		agree "$S" "$b" "index built from $first first, then $b's: $b answers"
	done
	for b in $order; do
		agree "$S" "$b" "index built from $first first: $b answers again"
	done
	check "index built from $first first: lo and hi share one index, sep has its own" \
		[ "$(ls "$S"/*/*.psymidx | wc -l)" = 2 ]
done

# elfutils' prelinked library and the one it was made from.
E=$top_srcdir/testdata/elfutils
if command -v eu-addr2line >/dev/null && [ -f "$E/testfile52-32.prelink.so" ]; then
	cp "$E/testfile52-32.so" "$E/testfile52-32.prelink.so" "$E/testfile52-32.so.debug" .
	chmod u+w testfile52-32*
	foo_so=0x40e
	foo_pre=0x4100042d
	eu_so=$(eu-addr2line -f -e testfile52-32.so $foo_so | tr '\n' ' ')
	eu_pre=$(eu-addr2line -f -e testfile52-32.prelink.so $foo_pre | tr '\n' ' ')
	check "eu-addr2line: foo in both ($eu_so/ $eu_pre)" \
		sh -c "[ '$eu_so' = '$eu_pre' ] && echo '$eu_so' | grep -q '^foo .*testfile52-32.c:2 '"
	for order in "so prelink" "prelink so"; do
		S=E.$(echo "$order" | tr ' ' -)
		for round in build use; do
			for f in $order; do
				if [ "$f" = so ]; then
					file=testfile52-32.so a=$foo_so want=$eu_so
				else
					file=testfile52-32.prelink.so a=$foo_pre want=$eu_pre
				fi
				if [ $round = build ]; then
					"$PSYM" index --index-store "$S" "$file" >/dev/null 2>&1
				fi
				got=$("$PSYM" addr -v --index-store "$S" --no-index-build -e "$file" $a \
					2>"$f.err" | tr '\n' ' ')
				if [ "$got" = "$want" ] && grep -q "from the index" "$f.err"; then
					pass "$order, $round: $file $a from the index: $got"
				else
					fail "$order, $round: $file $a: '$got', eu-addr2line '$want' ($(head -1 "$f.err"))"
				fi
			done
		done
	done
else
	echo "no eu-addr2line or no testdata/elfutils: the prelinked library is not checked"
fi
finish
