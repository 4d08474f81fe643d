#!/bin/sh
# One trust rule for every file psym reads from a store or a cache
# (psym_stat_trusted: the user's or root's, writable by neither group nor
# others; a directory or a regular file, never a link). A GSYM file planted
# in the index store (STORE/NN/BUILDID.gsym, made from another program
# under this build ID) used to answer with that program's names, exit 0:
# now it is not used when it is another user's, group-writable, or in a
# group-writable STORE/NN, and a warning (and --explain) says why; the
# answer is then llvm-symbolizer's on the same stripped binary (??). A
# group-writable store is refused, as one writable by others was. An index
# in a group-writable STORE/NN, or another user's, is not used. A --debug-pkg
# cache entry of another user (holding a planted debug file) is refused.
# The control: the same files, ours and 0644, are used.
. "$top_srcdir/tests/lib.sh"
need gcc
need objcopy
need strip
need llvm-symbolizer
GS=$(command -v llvm-gsymutil-14 || command -v llvm-gsymutil || true)
[ -n "$GS" ] || skip "llvm-gsymutil is not installed (Debian llvm-14)"
[ "$(id -u)" = 0 ] || skip "needs root, to make files owned by another user (nobody)"
id nobody >/dev/null 2>&1 || skip "no user nobody"

cat >prog.c <<'C'
__attribute__((noinline)) int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * 3; return s; }
int main(int argc, char **argv) { (void)argv; return work(argc) & 1; }
C
sed 's/work/other_program_function/g; s/\* 3/* 5/' prog.c >other.c
gcc -g -O1 -o prog prog.c || { fail "cannot build"; exit 1; }
bid=$(readelf -n prog | sed -n 's/.*Build ID: //p')
nn=$(echo "$bid" | cut -c1-2)
# Another program under the same build ID: what a local user can forge.
gcc -g -O1 -Wl,--build-id=0x"$bid" -o other other.c || { fail "cannot build other"; exit 1; }
[ "$(readelf -n other | sed -n 's/.*Build ID: //p')" = "$bid" ] || { fail "forged build ID"; exit 1; }
strip -o prog.stripped prog
"$GS" --convert prog -o good.gsym >/dev/null 2>&1 || { fail "llvm-gsymutil --convert prog"; exit 1; }
"$GS" --convert other -o planted.gsym >/dev/null 2>&1 || { fail "llvm-gsymutil --convert other"; exit 1; }
a=0x$(nm prog | awk '$3 == "work" { print $1 }')
# Named explicitly, the planted file does answer with the other program's name.
"$PSYM" addr --gsym planted.gsym -e prog.stripped "$a" >named.out 2>/dev/null
grep -q other_program_function named.out || { fail "the planted GSYM does not cover $a: $(cat named.out)"; exit 1; }
llvm-symbolizer --obj=prog.stripped "$a" | head -1 >llvm.stripped
llvm-symbolizer --obj=prog "$a" | head -1 >llvm.dwarf
[ "$(cat llvm.stripped)" = "??" ] && [ "$(cat llvm.dwarf)" = work ] ||
	{ fail "llvm-symbolizer: $(cat llvm.stripped llvm.dwarf)"; exit 1; }

# gsym_case NAME ORACLE WANT_IN_WARNING: the store S as set up, psym's
# function name for $a must be ORACLE's (llvm-symbolizer's), and stderr
# name why the store's GSYM file was not used (no WANT: no warning about it).
gsym_case() {
	"$PSYM" addr --offline --index-store S --no-index-build -e prog.stripped "$a" >g.out 2>g.err
	"$PSYM" addr --offline --index-store S --no-index-build --explain -e prog.stripped "$a" \
		>/dev/null 2>g.explain
	got=$(head -1 g.out)
	if [ "$got" != "$(cat "$2")" ]; then
		fail "$1: psym says '$got', llvm-symbolizer '$(cat "$2")' ($(cat g.err))"
	elif [ -n "$3" ] && ! grep -q "warning: GSYM file '.*$bid.gsym' .*$3" g.err; then
		fail "$1: no warning naming the file and '$3': $(cat g.err)"
	elif [ -n "$3" ] && ! grep -q "$bid.gsym.*$3" g.explain; then
		fail "$1: --explain does not say why: $(cat g.explain)"
	else
		pass "$1: '$got' as llvm-symbolizer${3:+; $(grep -m1 warning g.err)}"
	fi
}
gf=S/$nn/$bid.gsym
mkdir -p S/"$nn"
cp good.gsym "$gf"
gsym_case "the store's own GSYM file (control)" llvm.dwarf ""
cp planted.gsym "$gf"
chown nobody "$gf"
gsym_case "GSYM file planted by nobody" llvm.stripped "owned by uid $(id -u nobody)"
chown root "$gf"
chmod 664 "$gf"
gsym_case "group-writable GSYM file" llvm.stripped "writable by its group"
chmod 644 "$gf"
chmod 775 S/"$nn"
gsym_case "GSYM file in a group-writable S/$nn" llvm.stripped "S/$nn' is not trusted: writable by its group"
chmod 755 S/"$nn"
chmod 775 S
rc=0
"$PSYM" addr --offline --index-store S --no-index-build -e prog.stripped "$a" >gw.out 2>gw.err || rc=$?
if [ $rc = 2 ] && grep -q "index store 'S' is not trusted: writable by its group" gw.err &&
	! grep -q other_program_function gw.out; then
	pass "a group-writable store is refused: $(cat gw.err)"
else
	fail "a group-writable store: exit $rc, $(cat gw.out gw.err)"
fi
chmod 755 S
rm -f "$gf"

# Indexes: one in a group-writable S/NN, or another user's, is not used.
"$PSYM" index --index-store S prog >/dev/null 2>&1 || { fail "psym index"; exit 1; }
objcopy --strip-debug prog prog.nodebug
idx_case() {
	"$PSYM" addr -v --offline --index-store S --no-index-build -e prog.nodebug "$a" >i.out 2>i.err
	if grep -q "from the index" i.err; then
		fail "$1: the index answered: $(cat i.err)"
	elif ! grep -q "warning: index '.*' .*$2" i.err; then
		fail "$1: no warning with '$2': $(cat i.err)"
	else
		pass "$1: not used: $(grep -m1 warning i.err)"
	fi
}
"$PSYM" addr -v --offline --index-store S --no-index-build -e prog.nodebug "$a" >i.out 2>i.err
check "the store's own index answers (control)" grep -q "from the index" i.err
chmod 775 S/"$nn"
idx_case "index in a group-writable S/$nn" "writable by its group"
chmod 755 S/"$nn"
chown nobody S/"$nn"/*.psymidx
idx_case "index owned by nobody" "owned by uid $(id -u nobody)"

# --debug-pkg's cache: an entry of another user, holding another program's
# debug file under this build ID, is refused.
if command -v dpkg-deb >/dev/null; then
	mkdir -p pkg/DEBIAN pkg/usr/lib/debug/.build-id/"$nn"
	dbg=pkg/usr/lib/debug/.build-id/$nn/$(echo "$bid" | cut -c3-).debug
	objcopy --only-keep-debug prog "$dbg"
	printf 'Package: prog-dbg\nVersion: 1.0\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: test\n' >pkg/DEBIAN/control
	dpkg-deb --root-owner-group --build pkg prog.deb >/dev/null 2>&1 || { fail "dpkg-deb"; exit 1; }
	XDG_CACHE_HOME=$T/C "$PSYM" addr --offline --debug-pkg prog.deb -e prog.stripped "$a" >d.out 2>d.err
	check "--debug-pkg answers from its cache (control): $(head -1 d.out)" grep -qx work d.out
	entry=$(ls -d C/psym/debs/prog.deb-*)
	objcopy --only-keep-debug other "$entry/usr/lib/debug/.build-id/$nn/$(echo "$bid" | cut -c3-).debug"
	chown -R nobody "$entry"
	rc=0
	XDG_CACHE_HOME=$T/C "$PSYM" addr --offline --debug-pkg prog.deb -e prog.stripped "$a" >d.out 2>d.err || rc=$?
	if [ $rc != 0 ] && ! grep -q other_program_function d.out &&
		grep -q "package cache '.*C/psym/debs': entry 'prog.deb-.*' is owned by uid $(id -u nobody)" d.err; then
		pass "a cache entry of nobody's is refused: $(cat d.err)"
	else
		fail "a cache entry of nobody's: exit $rc, $(cat d.out d.err)"
	fi
	chown -R root "$entry"
	chmod 775 C/psym/debs
	rc=0
	XDG_CACHE_HOME=$T/C "$PSYM" addr --offline --debug-pkg prog.deb -e prog.stripped "$a" >d.out 2>d.err || rc=$?
	if [ $rc != 0 ] && grep -q "package cache '.*C/psym/debs' is writable by its group" d.err; then
		pass "a group-writable package cache is refused: $(cat d.err)"
	else
		fail "a group-writable package cache: exit $rc, $(cat d.out d.err)"
	fi
else
	echo "# dpkg-deb missing: the --debug-pkg cache cases were not run"
fi
finish
