#!/bin/sh
# Side files (IN.d/) that are symbolic links out of the side directory are
# refused, with one warning naming the file (issue 53's policy): a kallsyms
# copy linked to a file elsewhere (as to /etc/shadow) is not read. Links
# that stay in the side directory, or lead into the shared directory beside
# the profile (.psym-shared, where psym-collect keeps a boot's copy; it
# links them with hard links, which are regular files), are read as before.
# The kernel frame's name is checked against the kallsyms text written here.
. "$top_srcdir/tests/lib.sh"
need protoc
need zstd
need sha256sum

encode_txtpb "$top_srcdir/testdata/bad/host-kernel.txtpb" p.pb
printf 'ffffffff81000000 T _text\nffffffff81000080 T side_links_func\nffffffff81000200 T after_it\n' >ks
# name FILE: the kernel frame's function in the symbolized profile FILE.
name() {
	"$PSYM" top "$1" 2>/dev/null | awk 'NR > 3 && $6 != "" { print $6 }' | head -1
}
# run CASE: symbolize p.pb with the side directory as set up; out CASE.pb, CASE.err.
run() {
	"$PSYM" symbolize --offline p.pb -o "$1.pb" 2>"$1.err"
}

mkdir p.pb.d outside
cp ks p.pb.d/kallsyms
run regular
check "a regular kallsyms copy is read (side_links_func)" test "$(name regular.pb)" = side_links_func

cp ks outside/kallsyms
rm p.pb.d/kallsyms && ln -s ../outside/kallsyms p.pb.d/kallsyms
run out
check "a kallsyms symlink out of the side directory: not read" test "$(name out.pb)" != side_links_func
check "... one warning naming it" \
	sh -c "test \$(grep -c 'warning: side file .p.pb.d/kallsyms. refused: a symbolic link out of the side directory' out.err) = 1"

rm p.pb.d/kallsyms && ln -s "$PWD/outside/kallsyms" p.pb.d/kallsyms
run abs
check "an absolute symlink out of the side directory: not read" test "$(name abs.pb)" != side_links_func
check "... warned" grep -q "p.pb.d/kallsyms' refused" abs.err

rm p.pb.d/kallsyms && ln -s /nonexistent/kallsyms p.pb.d/kallsyms
run dangling
check "a dangling symlink: warned" grep -q "p.pb.d/kallsyms' refused: a symbolic link that does not resolve" dangling.err

rm p.pb.d/kallsyms && cp ks p.pb.d/ks.real && ln -s ks.real p.pb.d/kallsyms
run inside
check "a symlink inside the side directory is read" test "$(name inside.pb)" = side_links_func
check "... without a warning" sh -c '! grep -q refused inside.err'

rm p.pb.d/kallsyms p.pb.d/ks.real
sha=$(sha256sum ks | cut -d' ' -f1)
mkdir .psym-shared
zstd -q ks -o .psym-shared/kallsyms-unknown-$sha.zst
ln -s ../.psym-shared/kallsyms-unknown-$sha.zst p.pb.d/kallsyms-unknown-$sha.zst
run shared
check "a symlink into .psym-shared beside the profile is read" test "$(name shared.pb)" = side_links_func
check "... without a warning" sh -c '! grep -q refused shared.err'
rm p.pb.d/kallsyms-unknown-$sha.zst
ln .psym-shared/kallsyms-unknown-$sha.zst p.pb.d/kallsyms-unknown-$sha.zst
run hard
check "a hard link (what psym-collect makes) is read" test "$(name hard.pb)" = side_links_func
finish
