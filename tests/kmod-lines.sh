#!/bin/bash
# Kernel modules with lines: a module built here against Debian's kernel
# headers (linux-headers-amd64, ~14 MB: a linux-image-*-dbg package is
# ~1 GB) with its DWARF. Oracle: eu-addr2line, which applies a module's
# relocations itself.
#  1. psym addr on the .ko, .ko.xz, .ko.zst and .ko.gz, every instruction
#     of every code section (--section), against eu-addr2line --section.
#  2. psym symbolize of a profile whose kernel frames are in the module,
#     loaded (as the test's kallsyms copy says) at addresses of its own
#     per section: the module is found by name under --modules-dir (a
#     tree, the file .ko.zst), in DEBUGDIR/lib/modules/RELEASE, its
#     sections placed through kallsyms; every frame's chain must equal
#     eu-addr2line's for its section offset.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/kmod-lib.sh"
need eu-addr2line "elfutils"
need make
need python3
need xz
need zstd
kmod_headers
CMPEU=$top_srcdir/tests/compare-eu-addr2line.py

if ! kmod_build mod; then
	fail "building the module against $HDR"
	finish 2>/dev/null || exit 1
fi
KO=mod/pmod.ko
check "the module has DWARF and debug relocations" grep -q '.rela.debug_info' <(readelf -SW $KO)
xz -k $KO && zstd -q -k $KO && gzip -k $KO

# Per code section: every instruction's offset and eu-addr2line's answers.
kmod_eu $KO
total=$kmod_total
while read -r sec; do
	[ -s "addrs$sec" ] || continue
	for f in $KO $KO.xz $KO.zst $KO.gz; do
		"$PSYM" addr -a -e "$f" --section "$sec" <"addrs$sec" >"psym$sec.${f##*.}" 2>err ||
			fail "psym addr $f --section $sec: exit $?: $(head -2 err)"
	done
	if python3 "$CMPEU" "psym$sec.ko" "eu.$sec" 100 aliases >"cmp$sec"; then
		pass "$sec: eu-addr2line agrees ($(head -1 "cmp$sec"))"
	else
		fail "$sec: eu-addr2line disagrees"
		cat "cmp$sec"
	fi
	for z in xz zst gz; do
		check "$sec: the .ko.$z answers as the .ko" cmp -s "psym$sec.ko" "psym$sec.$z"
	done
done <secs
echo "# $total instructions of the module compared"
[ "$total" -gt 100 ] || fail "only $total instructions"

# ---- 2. module frames of a profile --------------------------------------------
# Each code section at a load address of its own, as the kernel would.
kmod_profile $KO || fail "making the profile"
mkdir -p tree/kernel/extra && cp $KO.zst tree/kernel/extra/
"$PSYM" symbolize --kallsyms kallsyms --modules-dir tree k.pb -o k.sym.pb 2>sym.log ||
	fail "psym symbolize: exit $?: $(head -3 sym.log)"
"$PSYM" show --json k.sym.pb >k.json
if python3 "$SRC/check-symbolized.py" k.json places . aliases >chk; then
	pass "module frames by --modules-dir: $(head -1 chk)"
else
	fail "module frames by --modules-dir"
	cat chk
fi
# The module is searched once per run (issue 30: its file is kept in the
# kernel entry of the located-object table): a profile whose kernel frames
# are split over two [kernel.kallsyms] mappings, with a file mapping between
# them, and --limit open-objects=1, so that the kernel's resolver is closed
# and opened again; the second time the recorded file is reopened, with no
# new search, and still answers as eu-addr2line.
cat >split.py <<'PY'
import sys
lines = sys.stdin.read().splitlines()
nstr = sum(1 for l in lines if l.startswith("string_table"))
locs, out = 0, []
for l in lines:
    if l.startswith("location"):
        locs += 1
        if locs % 2:
            l = l.replace("mapping_id: 1 ", "mapping_id: 3 ")
    out.append(l)
    if l.startswith("mapping { id: 1 "):
        out.append("mapping { id: 2 memory_start: 4194304 memory_limit: 4259840 "
                   "file_offset: 0 filename: %d build_id: 0 }" % nstr)
        out.append(l.replace("id: 1 ", "id: 3 ", 1))
        out.append("location { id: 999999 mapping_id: 2 address: 4194400 }")
out.append('string_table: "%s"' % sys.argv[1])
print("\n".join(out))
PY
python3 split.py "$PSYM" <k.txtpb >k8.txtpb &&
	encode_txtpb k8.txtpb k8.pb || fail "making the profile of two kernel mappings"
"$PSYM" symbolize --offline --no-cache --limit open-objects=1 --explain --kallsyms kallsyms \
	--modules-dir tree k8.pb -o k8.sym.pb 2>sym8.log ||
	fail "psym symbolize (two kernel mappings): exit $?: $(head -3 sym8.log)"
n_ks=$(grep -c "tried 'kallsyms': kernel symbols used" sym8.log)
n_ko=$(grep -c "pmod.ko.zst" sym8.log)
check "the kernel's resolver was opened twice ($n_ks)" [ "$n_ks" -ge 2 ]
check "the module was searched once ($n_ko candidates said)" [ "$n_ko" = 1 ]
"$PSYM" show --json k8.sym.pb >k8.json
if python3 "$SRC/check-symbolized.py" k8.json places . aliases >chk8; then
	pass "module frames of both kernel mappings: $(head -1 chk8)"
else
	fail "module frames of both kernel mappings"
	cat chk8
fi
# The debug dir's lib/modules/RELEASE (the release psym-collect records).
mkdir -p dbg/lib/modules/6.1.0-test/kernel/extra && cp $KO.xz dbg/lib/modules/6.1.0-test/kernel/extra/
# The release comes from the profile's host identity line (another host).
kmod_identity k.txtpb k2.pb 6.1.0-test || fail "making the profile with a host identity"
"$PSYM" symbolize --kallsyms kallsyms --debug-dir dbg k2.pb -o k2.sym.pb 2>sym2.log ||
	fail "psym symbolize (debug dir): exit $?: $(head -3 sym2.log)"
"$PSYM" show --json k2.sym.pb >k2.json
if python3 "$SRC/check-symbolized.py" k2.json places . aliases >chk2; then
	pass "module frames by DEBUGDIR/lib/modules/RELEASE: $(head -1 chk2)"
else
	fail "module frames by DEBUGDIR/lib/modules/RELEASE"
	cat chk2
fi
# By the build ID psym-collect records (FILE.d/modules): a .build-id tree,
# then debuginfod, when no tree holds the module by name.
bid=$(readelf -n $KO | sed -n 's/.*Build ID: *//p')
if [ -n "$bid" ]; then
	mkdir -p bid/.build-id/${bid:0:2} && cp $KO "bid/.build-id/${bid:0:2}/${bid:2}.debug"
	mkdir -p k4.pb.d && cp kallsyms k4.pb.d/kallsyms && cp k2.pb k4.pb
	printf 'pmod %s %x\nother 0123 0\n' "$bid" "$base" >k4.pb.d/modules
	"$PSYM" symbolize --debug-dir bid k4.pb -o k4.sym.pb 2>sym4.log ||
		fail "psym symbolize (build-id tree): exit $?: $(head -3 sym4.log)"
	"$PSYM" show --json k4.sym.pb >k4.json
	if python3 "$SRC/check-symbolized.py" k4.json places . aliases >chk4; then
		pass "module frames by the recorded build ID (.build-id tree): $(head -1 chk4)"
	else
		fail "module frames by the recorded build ID"
		cat chk4
	fi
	# kallsyms names the module's code but none of the .ko's symbols (an
	# unexported-symbols kallsyms, a renamed function): .text goes where
	# psym-collect recorded it.
	mkdir -p k7.pb.d && cp k4.pb k7.pb && cp k4.pb.d/modules k7.pb.d/
	{ echo "ffffffff81000000 T _text"; printf '%x t not_in_the_ko\t[pmod]\n' "$base"; } >k7.pb.d/kallsyms
	grep '^\.text ' places >places.text
	"$PSYM" symbolize --debug-dir bid k7.pb -o k7.sym.pb 2>sym7.log
	"$PSYM" show --json k7.sym.pb >k7.json
	if python3 "$SRC/check-symbolized.py" k7.json places.text . aliases >chk7; then
		pass "module .text at the recorded address: $(head -1 chk7)"
	else
		fail "module .text at the recorded address"
		cat chk7
	fi
	# A module file of another build under --modules-dir is not used.
	mkdir -p other/x && cp mod/pmod.c mod/Kbuild other/x/ && sed -i 's/bye/bye!/' other/x/pmod.c
	if make -s -C "$HDR" M="$T/other/x" modules >build2.log 2>&1; then
		"$PSYM" symbolize --modules-dir other --explain k4.pb -o k5.sym.pb 2>sym5.log
		check "a module of another build ID is refused" grep -q "build ID is not the loaded module's" sym5.log
	fi
	if command -v debuginfod >/dev/null; then
		mkdir -p dfiles && cp $KO dfiles/
		start_debuginfod "$T/dfiles" "$bid"
		"$PSYM" symbolize --debuginfod "$url" k4.pb -o k6.sym.pb 2>sym6.log
		"$PSYM" show --json k6.sym.pb >k6.json
		if python3 "$SRC/check-symbolized.py" k6.json places . aliases >chk6; then
			pass "module frames by the recorded build ID (debuginfod): $(head -1 chk6)"
		else
			fail "module frames by the recorded build ID (debuginfod)"
			cat chk6
		fi
		kill "$server" 2>/dev/null
		server=
	fi
fi
# Without the module's file: kallsyms names only, said per module.
"$PSYM" symbolize --kallsyms kallsyms k.pb -o k3.sym.pb 2>sym3.log
check "no module file: kallsyms names stay" grep -q '"pmod_hash"' <("$PSYM" show --json k3.sym.pb)
[ "$n_fail" = 0 ]
