# Index checks shared by the DWARF tests (source after tests/lib.sh).
#
# index_compare BINARY ADDRFILE: build BINARY's index with `psym index`,
# then answer every address of ADDRFILE twice: from the DWARF (--no-index,
# on BINARY) and from the index alone (on a copy of BINARY without its
# debug sections: same build ID, no lines of its own). Both outputs
# (JSON, with columns and discriminators, and addr2line text) must be
# byte-identical. Extra psym options (--debug-dir ...) follow in $IDX_OPTS.
index_compare() {
	ic_bin=$1
	ic_addrs=$2
	ic_store=$T/index-store
	ic_n=$(wc -l <"$ic_addrs")
	# shellcheck disable=SC2086
	if ! "$PSYM" index --index-store "$ic_store" ${IDX_OPTS:-} "$ic_bin" >"$ic_bin.idx.out" \
		2>"$ic_bin.idx.err"; then
		fail "$ic_bin: psym index failed: $(head -3 "$ic_bin.idx.err")"
		return
	fi
	objcopy --strip-debug "$ic_bin" "$ic_bin.nodebug" 2>/dev/null ||
		cp "$ic_bin" "$ic_bin.nodebug"
	for ic_fmt in --json ""; do
		# shellcheck disable=SC2086
		"$PSYM" addr $ic_fmt --no-index ${IDX_OPTS:-} -e "$ic_bin" <"$ic_addrs" \
			>"$ic_bin.dw$ic_fmt" 2>/dev/null
		# Text: the index alone (no debug file can be found). JSON: with the
		# same options, since its StartAddress comes from the symbol table,
		# which a stripped binary has in its debug file; -v says the index
		# answered all the same.
		# shellcheck disable=SC2086
		"$PSYM" addr $ic_fmt ${ic_fmt:+-v ${IDX_OPTS:-}} --index-store "$ic_store" --offline \
			-e "$ic_bin.nodebug" <"$ic_addrs" >"$ic_bin.ix$ic_fmt" 2>"$ic_bin.ix.err"
		if [ -n "$ic_fmt" ] && ! grep -q "from the index" "$ic_bin.ix.err"; then
			fail "$ic_bin: the index did not answer: $(head -3 "$ic_bin.ix.err")"
		fi
		# The JSON names its module (-e): BINARY and BINARY.nodebug.
		if [ -n "$ic_fmt" ]; then
			for ic_f in "$ic_bin.dw$ic_fmt" "$ic_bin.ix$ic_fmt"; do
				sed 's/"ModuleName":"[^"]*"//' "$ic_f" >"$ic_f.t" && mv "$ic_f.t" "$ic_f"
			done
		fi
		if cmp -s "$ic_bin.dw$ic_fmt" "$ic_bin.ix$ic_fmt"; then
			pass "$ic_bin: index answers ${ic_fmt:-text} = DWARF answers ($ic_n addresses, index $(cut -d' ' -f2 "$ic_bin.idx.out") bytes)"
		else
			fail "$ic_bin: index answers ${ic_fmt:-text} differ from the DWARF's:"
			diff "$ic_bin.dw$ic_fmt" "$ic_bin.ix$ic_fmt" >"$ic_bin.diff"
			head -1 "$ic_bin.diff"
			grep -m1 '^<' "$ic_bin.diff" | cut -c1-600
			grep -m1 '^>' "$ic_bin.diff" | cut -c1-600
		fi
	done
}
