#!/bin/bash
# Kernel modules from --debug-pkg alone (no --modules-dir, no --debug-dir):
# a module built here against Debian's kernel headers is packed with
# dpkg-deb --build in the layout of Debian's linux-image-RELEASE-dbg
# (usr/lib/debug/lib/modules/RELEASE/kernel/..., .build-id links only for
# the vDSO), beside decoys: the same module name built differently, in
# another release and in the same release. The module is found by name and
# the release the profile's host identity names, or by the build ID that
# psym-collect recorded (FILE.d/modules); only it is extracted; every frame
# of every instruction must equal eu-addr2line's chain on the module. A
# module placed for a run is never entered in the index store (its
# build-ID key would give psym addr that run's addresses).
# Hostile packages (a module member that claims a huge size, a 1 GiB bomb,
# a .ko.xz bomb) end in a one-line error naming the file, or leave the
# kallsyms names, never a crash.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/kmod-lib.sh"
need eu-addr2line "elfutils"
need dpkg-deb
need make
need python3
need xz
need zstd
kmod_headers
kmod_build mod || { fail "building the module against $HDR"; finish; exit 1; }
kmod_build decoy 's/bye/bye!/' || { fail "building the decoy module"; finish; exit 1; }
KO=mod/pmod.ko
bid() { readelf -n "$1" | sed -n 's/.*Build ID: *//p'; }
kbid=$(bid $KO)
dbid=$(bid decoy/pmod.ko)
[ -n "$kbid" ] && [ "$kbid" != "$dbid" ] || skip "the module builds have no distinct build IDs"
kmod_eu $KO
[ "$kmod_total" -gt 100 ] || fail "only $kmod_total instructions"
kmod_profile $KO || fail "making the profile"
REL=6.1.0-test
kmod_identity k.txtpb k2.pb $REL || fail "making the profile with a host identity"

# pkg NAME [-Z...]: build NAME.deb from the tree pkg/ (then removed).
pkg() {
	mkdir -p pkg/DEBIAN
	printf 'Package: linux-image-%s-dbg\nVersion: 1.0\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: test\n' \
		"$REL" >pkg/DEBIAN/control
	dpkg-deb "${@:2}" --root-owner-group --build pkg "$1.deb" >/dev/null 2>"$1.deb.log" ||
		{ cat "$1.deb.log"; fail "dpkg-deb --build $1"; }
	rm -rf pkg
}
D=pkg/usr/lib/debug
# Debian's own: vmlinux under boot/, the vDSO linked by build ID.
debian_rest() {
	mkdir -p $D/boot $D/.build-id/4c $D/lib/modules/$REL/vdso
	echo "not the kernel" >$D/boot/System.map-$REL
	cp /bin/true $D/lib/modules/$REL/vdso/vdso64.so
	ln -s ../../lib/modules/$REL/vdso/vdso64.so $D/.build-id/4c/0949030000000000000000000000000000000.debug
}
sym() { "$PSYM" symbolize --offline --cache cache "$@"; }
checksym() { # NAME JSON-FROM: the module frames against eu-addr2line
	"$PSYM" show --json "$2" >"$1.json"
	if python3 "$SRC/check-symbolized.py" "$1.json" places . aliases >"$1.chk"; then
		pass "$1: $(head -1 "$1.chk")"
	else
		fail "$1"
		head -20 "$1.chk"
	fi
}

# ---- 1. by name and release: a .ko.xz, a decoy of another release -----------
mkdir -p $D/lib/modules/$REL/kernel/extra $D/lib/modules/6.1.0-other/kernel/extra
xz -c $KO >$D/lib/modules/$REL/kernel/extra/pmod.ko.xz
cp decoy/pmod.ko $D/lib/modules/6.1.0-other/kernel/extra/
debian_rest
pkg xzpkg
sym --kallsyms kallsyms --debug-pkg xzpkg.deb --explain k2.pb -o a.sym.pb 2>a.log ||
	fail "symbolize with the .ko.xz package: exit $?: $(head -3 a.log)"
checksym "by name and release, .ko.xz from the package" a.sym.pb
check "--explain says the module came from the package" \
	grep -q "pmod.ko.xz.*kernel module used (from package 'xzpkg.deb')" a.log
entry=$(echo cache/debs/xzpkg.deb-*)
n=$(find "$entry" -name 'pmod*' | wc -l)
check "only the wanted module is extracted ($n files)" [ "$n" = 1 ]
check "the other release's module stays in the package" test ! -e "$entry/usr/lib/debug/lib/modules/6.1.0-other"
check "nothing else is extracted" test ! -e "$entry/usr/lib/debug/boot"
check "the entry's index records the module want" grep -q "^ko $REL pmod - usr/lib/debug/lib/modules/$REL/kernel/extra/pmod.ko.xz$" "$entry/.psym-build-ids"
# A module is placed where one run's kernel loaded it: never indexed by its
# build ID (psym addr's section offsets, or another run's load addresses,
# would get that run's answers). The index store marks a file at first sight.
sym --kallsyms kallsyms --debug-pkg xzpkg.deb --index-store store k2.pb -o s.sym.pb 2>s.log
check "no index store entry for the placed module" test ! -e "store/${kbid:0:2}/$kbid.seen"
printf '0x0\n' | "$PSYM" addr --index-store store -e $KO --section .text >/dev/null 2>&1
check "  (psym addr on the module file marks it: the check sees the store)" \
	test -e "store/${kbid:0:2}/$kbid.seen"
# Precedence: a --debug-dir given by the user comes before the package.
mkdir -p mine/lib/modules/$REL/kernel && cp $KO mine/lib/modules/$REL/kernel/
sym --kallsyms kallsyms --debug-dir mine --debug-pkg xzpkg.deb --explain k2.pb -o p.sym.pb 2>p.log
check "a --debug-dir module comes before the package's" grep -q "mine/lib/modules/$REL/kernel/pmod.ko.*kernel module used$" p.log
# Another release on the profile: the package's module is not this kernel's.
kmod_identity k.txtpb k3.pb 6.1.0-none
sym --kallsyms kallsyms --debug-pkg xzpkg.deb k3.pb -o n.sym.pb 2>n.log
check "another release: kallsyms names only" grep -q '"pmod_hash"' <("$PSYM" show --json n.sym.pb)
"$PSYM" show n.sym.pb >n.txt
check "another release: no file line from the package" sh -c "! grep -q 'pmod\.c' n.txt"

# ---- 2. by the recorded build ID: a decoy of the same name and release ------
mkdir -p $D/lib/modules/$REL/kernel/drivers $D/lib/modules/$REL/kernel/extra
cp decoy/pmod.ko $D/lib/modules/$REL/kernel/drivers/
cp $KO $D/lib/modules/$REL/kernel/extra/
debian_rest
pkg kopkg -Zxz
mkdir -p k4.pb.d && cp kallsyms k4.pb.d/ && cp k2.pb k4.pb
printf 'pmod %s %x\nother 0123 0\n' "$kbid" "$base" >k4.pb.d/modules
sym --debug-pkg kopkg.deb --explain k4.pb -o b.sym.pb 2>b.log ||
	fail "symbolize with the .ko package: exit $?: $(head -3 b.log)"
checksym "by the recorded build ID, decoy of the same release in the package" b.sym.pb
entry=$(echo cache/debs/kopkg.deb-*)
check "the module is kept at its path" test -f "$entry/usr/lib/debug/lib/modules/$REL/kernel/extra/pmod.ko"
check "the decoy (another build ID, same name and release) is not kept" \
	test ! -e "$entry/usr/lib/debug/lib/modules/$REL/kernel/drivers/pmod.ko"
check "the module is linked by its build ID" cmp -s $KO "$entry/usr/lib/debug/.build-id/${kbid:0:2}/${kbid:2}.debug"
# No identity line: this machine's release, which the package lacks; the
# module is found by the recorded build ID (its .build-id link).
mkdir -p k5.pb.d && cp k4.pb.d/* k5.pb.d/ && cp k.pb k5.pb
sym --debug-pkg kopkg.deb k5.pb -o c.sym.pb 2>c.log
checksym "this machine's release, module by build ID" c.sym.pb

# psym addr on the stripped module (kept name, build ID): its debug file
# from the package by name and build ID, any release.
mkdir -p stripped && objcopy --strip-debug $KO stripped/pmod.ko && xz -k stripped/pmod.ko
for f in stripped/pmod.ko stripped/pmod.ko.xz; do
	"$PSYM" addr --debug-pkg kopkg.deb -a -e $f --section .text <addrs.text >addr.out 2>addr.err ||
		fail "psym addr -e $f --debug-pkg: exit $?: $(head -2 addr.err)"
	if python3 "$top_srcdir/tests/compare-eu-addr2line.py" addr.out eu..text 100 aliases >addr.cmp; then
		pass "psym addr -e $f (stripped) --debug-pkg: eu-addr2line agrees ($(head -1 addr.cmp))"
	else
		fail "psym addr -e $f (stripped) --debug-pkg"
		head -20 addr.cmp
	fi
done

# ---- 3. hostile packages ------------------------------------------------------
# A module member whose tar header claims 1 TiB (the package is a few KB).
python3 - <<'PY'
import io, lzma, tarfile
ti = tarfile.TarInfo("./usr/lib/debug/lib/modules/6.1.0-test/kernel/extra/pmod.ko")
ti.size = 1 << 40
data = ti.tobuf(format=tarfile.GNU_FORMAT) + b"\x7fELF" + bytes(508)
xz = lzma.compress(data)
def member(name, body):
    h = b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name.encode(), 0, 0, 0, b"100644", len(body))
    return h + body + (b"\n" if len(body) % 2 else b"")
open("huge.deb", "wb").write(b"!<arch>\n" + member("debian-binary", b"2.0\n") + member("data.tar.xz", xz))
PY
sym --kallsyms kallsyms --debug-pkg huge.deb k2.pb -o h.sym.pb 2>h.err && rc=0 || rc=$?
check "a member claiming 1 TiB: exit 2" [ "$rc" = 2 ]
check "  in one line naming the file and the bomb" sh -c "[ \$(wc -l <h.err) = 1 ] && grep -q \"'huge.deb'.*pmod.ko.*decompression bomb\" h.err"
check "  no output" test ! -e h.sym.pb
# 1 GiB of zeros as the module (a ~40 KB package).
mkdir -p $D/lib/modules/$REL/kernel/extra
truncate -s 1G $D/lib/modules/$REL/kernel/extra/pmod.ko
pkg bomb -Zzstd
sym --kallsyms kallsyms --debug-pkg bomb.deb k2.pb -o z.sym.pb 2>z.err && rc=0 || rc=$?
check "a 1 GiB zero module ($(wc -c <bomb.deb) bytes): exit 2, one line naming the file" \
	sh -c "[ $rc = 2 ] && [ \$(wc -l <z.err) = 1 ] && grep -q \"'bomb.deb'.*decompression bomb\" z.err"
check "  nothing left in the cache" sh -c "! find cache -name '.psym-tmp-*' | grep -q . && ! ls cache/debs | grep -q bomb"
# A .ko.xz bomb (testdata/bad) as the module: extracted (small), refused when opened.
mkdir -p $D/lib/modules/$REL/kernel/extra
cp "$top_srcdir/testdata/bad/kmod-bomb.ko.xz" $D/lib/modules/$REL/kernel/extra/pmod.ko.xz
pkg xzbomb
sym --kallsyms kallsyms --debug-pkg xzbomb.deb --explain k2.pb -o x.sym.pb 2>x.log && rc=0 || rc=$?
check "a .ko.xz bomb in the package: exit 0" [ "$rc" = 0 ]
check "  refused, said with the file's name" grep -q "pmod.ko.xz.*limit" x.log
check "  kallsyms names stay" grep -q '"pmod_hash"' <("$PSYM" show --json x.sym.pb)
finish
