# Module tests' shared set-up (sourced after lib.sh, in the test's $T).
#
# kmod_headers: HDR, a Debian kernel headers tree to build modules against
#   (linux-headers-amd64), or skip.
# kmod_build DIR [SED]: build tests/kmod/pmod.c as DIR/pmod.ko (SED, a sed
#   script applied to the source first, makes another build of the same
#   module: another build ID). 0 or 1.
# kmod_eu KO: per code section of KO, the file secs (section names),
#   addrsSEC (every instruction's offset, objdump) and eu.SEC (eu-addr2line
#   -a -f -i --section SEC on them, numbered by offset), aliases (names at
#   one address); total instructions into kmod_total.
# kmod_profile KO: kallsyms (each code section placed at an address of its
#   own, as the kernel would), places ("SECTION BASE"), k.pb (a profile of
#   every instruction of the module as kernel frames) and k.txtpb.
SRC=$top_srcdir/tests/kmod

kmod_headers() {
	HDR=
	for d in /usr/src/linux-headers-*-amd64 /usr/src/linux-headers-*-arm64; do
		[ -f "$d/Makefile" ] && HDR=$d && break
	done
	[ -n "$HDR" ] || skip "no kernel headers to build a module (Debian linux-headers-amd64)"
}

kmod_build() {
	mkdir -p "$1"
	cp "$SRC/pmod.c" "$1/"
	[ -z "${2:-}" ] || sed -i "$2" "$1/pmod.c"
	echo 'obj-m := pmod.o' >"$1/Kbuild"
	case $1 in /*) dir=$1 ;; *) dir=$T/$1 ;; esac
	if ! make -s -C "$HDR" M="$dir" modules >"$1.build.log" 2>&1 || [ ! -f "$1/pmod.ko" ]; then
		tail -20 "$1.build.log"
		return 1
	fi
}

kmod_eu() {
	readelf -sW "$1" | awk '$4 == "FUNC" { k = $7 ":" $2; a[k] = a[k] " " $8 } END { for (k in a) print a[k] }' |
		sed 's/\.constprop\.[0-9]*//g' >aliases
	readelf -SW "$1" | sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\) .* \([A-Z]*X[A-Z]*\) .*/\2/p' >secs
	kmod_total=0
	while read -r sec; do
		objdump -d -j "$sec" "$1" | sed -n 's/^ *\([0-9a-f]*\):\t.*/0x\1/p' >"addrs$sec"
		[ -s "addrs$sec" ] || continue
		kmod_total=$((kmod_total + $(wc -l <"addrs$sec")))
		# eu-addr2line -a prints the address in its own layout of the
		# sections: number the answers by the offsets asked instead.
		eu-addr2line -a -f -i -e "$1" --section "$sec" <"addrs$sec" |
			awk 'NR == FNR { a[n++] = $0; next } /^0x[0-9a-f]+$/ { print a[i++]; next } { print }' \
				"addrs$sec" - >"eu.$sec"
	done <secs
}

kmod_profile() {
	base=$((0xffffffffc0a00000))
	: >places
	: >stacks
	{
		echo "ffffffff81000000 T _text"
		echo "ffffffff81000100 T schedule"
	} >kallsyms
	i=0
	while read -r sec; do
		[ -s "addrs$sec" ] || continue
		b=$((base + i * 0x10000))
		i=$((i + 1))
		printf '%s %x\n' "$sec" "$b" >>places
		idx=$(readelf -SW "$1" | sed -n "s/^ *\[ *\([0-9]*\)\] ${sec//./\\.} .*/\1/p")
		readelf -sW "$1" | awk -v n="$idx" '$4 == "FUNC" && $7 == n { print $2, $8 }' |
			while read -r v name; do printf '%x t %s\t[pmod]\n' $((b + 0x$v)) "$name"; done >>kallsyms
		while read -r a; do printf '%x\n' $((b + a)); done <"addrs$sec" >>stacks
	done <secs
	sort -o kallsyms kallsyms
	{ echo "mapping ffffffffc0000000 ffffffffc1000000 0 [kernel.kallsyms]"; cat stacks; } >stacks.in
	: >maps.empty
	python3 "$top_srcdir/tests/mkprofile.py" maps.empty stacks.in >k.txtpb && encode_txtpb k.txtpb k.pb
}

# kmod_identity IN OUT RELEASE: IN (txtpb) with psym-collect's host
# identity line of another host running RELEASE, encoded as OUT.
kmod_identity() {
	nstr=$(grep -c '^string_table' "$1")
	{
		cat "$1"
		echo "comment: $nstr"
		echo "string_table: \"psym-collect: host=elsewhere kernel=$3 boot_id=00000000-0000-0000-0000-000000000000\""
	} >"$2.txtpb"
	encode_txtpb "$2.txtpb" "$2"
}
