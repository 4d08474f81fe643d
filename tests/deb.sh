#!/bin/sh
# Debian debug packages: psym extracts exactly the usr/lib/debug files that
# dpkg-deb extracts (the oracle), for xz, zstd, gzip and uncompressed
# data.tar members; hostile packages never write outside the cache.
. "$top_srcdir/tests/lib.sh"
need dpkg-deb
need gcc
need objcopy
X=$top_builddir/tests/deb-extract

cat >prog.c <<'C'
int work(int x) { return x * 3 + 1; }
int main(void) { return work(2) == 7 ? 0 : 1; }
C
gcc -g -O1 -Wl,--build-id -o prog prog.c
bid=$(readelf -n prog | sed -n 's/.*Build ID: //p')
mkdir -p pkg/DEBIAN pkg/usr/lib/debug/.build-id/${bid%"${bid#??}"} pkg/usr/share/doc/prog-dbg
objcopy --only-keep-debug prog "pkg/usr/lib/debug/.build-id/${bid%"${bid#??}"}/${bid#??}.debug"
echo "not debug" >pkg/usr/share/doc/prog-dbg/README
: >pkg/usr/lib/debug/empty-file
ln -s ../../../../../etc/passwd pkg/usr/lib/debug/evil-link
printf 'Package: prog-dbg\nVersion: 1.0\nArchitecture: amd64\nMaintainer: t <t@t>\nDescription: test\n' >pkg/DEBIAN/control

for z in xz zstd gzip none; do
	dpkg-deb -Z$z --root-owner-group --build pkg prog-$z.deb >/dev/null 2>&1 ||
		{ echo "dpkg-deb cannot write $z here"; continue; }
	root=$("$X" prog-$z.deb cache 2>err) || { fail "$z: $(cat err)"; continue; }
	mkdir -p ref-$z && dpkg-deb -x prog-$z.deb ref-$z
	if diff -r --no-dereference ref-$z/usr/lib/debug "$root" >diff.out 2>&1 ||
	   { grep -v evil-link diff.out | grep -q . ; [ $? = 1 ]; }; then
		pass "$z: extracted tree equals dpkg-deb's (links excepted)"
	else
		fail "$z: trees differ"; cat diff.out
	fi
	check "$z: build-id file is byte-identical" cmp "$root/.build-id/${bid%"${bid#??}"}/${bid#??}.debug" \
		"ref-$z/usr/lib/debug/.build-id/${bid%"${bid#??}"}/${bid#??}.debug"
	check "$z: no symlink written" test ! -e "$root/evil-link" -a ! -L "$root/evil-link"
	check "$z: files outside usr/lib/debug not extracted" sh -c "! find cache -name README | grep -q ."
	check "$z: second run reuses the cache" sh -c "[ \"\$('$X' prog-$z.deb cache)\" = '$root' ]"
done

# Hostile packages, made by hand: traversal, absolute names, truncation.
python3 - <<'PY'
import io, tarfile, lzma, random
def deb(name, entries, truncate=None):
    tb = io.BytesIO()
    with tarfile.open(fileobj=tb, mode="w", format=tarfile.GNU_FORMAT) as t:
        for path, data in entries:
            ti = tarfile.TarInfo(path); ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
    data = lzma.compress(tb.getvalue())
    if truncate: data = data[:truncate]
    out = io.BytesIO(); out.write(b"!<arch>\n")
    for mname, body in ((b"debian-binary", b"2.0\n"), (b"data.tar.xz", data)):
        out.write(mname.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6)
                  + b"100644".ljust(8) + str(len(body)).encode().ljust(10) + b"`\n")
        out.write(body + (b"\n" if len(body) % 2 else b""))
    open(name, "wb").write(out.getvalue())
deb("traversal.deb", [("./usr/lib/debug/../../../../escaped", b"x"),
                      ("usr/lib/debug/ok.debug", b"fine")])
deb("absolute.deb", [("/usr/lib/debug/abs.debug", b"abs"), ("/etc/evil", b"x")])
deb("truncated.deb", [("usr/lib/debug/big.debug", random.Random(1).randbytes(100000))], truncate=5000)
open("notadeb.deb", "wb").write(b"hello world, not an archive\n")
PY
root=$("$X" traversal.deb cache2) && [ -f "$root/ok.debug" ] && [ ! -e escaped ] &&
	! find / -xdev -name escaped -newer prog.c 2>/dev/null | grep -q . &&
	pass "'..' entries are skipped, the rest extracted" || fail "traversal"
root=$("$X" absolute.deb cache3) && [ "$(cat "$root/abs.debug")" = abs ] && [ ! -e "$T/cache3/etc" ] &&
	pass "absolute names are kept inside the cache" || fail "absolute names"
expect_exit 2 "truncated package is an error" "$X" truncated.deb cache4
check "truncated package leaves no partial cache entry" sh -c '! ls -A cache4 | grep -q . && ! find cache4 -name ".psym-tmp-*" | grep -q .'
expect_exit 2 "not a deb" "$X" notadeb.deb cache5
finish
