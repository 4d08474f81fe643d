#!/bin/sh
# Temporaries psym writes cannot be redirected by another local user's
# links. The host may have fs.protected_symlinks=0 (many containers do), so
# a dangling link planted in a shared $TMPDIR at a name psym would use is
# followed by a root run unless psym never uses a guessable name there.
#
# 1. An HTTP index store: the index is built before its PUT. Links are
#    planted, owned by 'nobody', at every name the old scheme
#    ($TMPDIR/psym-idx-BUILDID-PID.psymidx) could take for the next pids;
#    the root-owned victim they point at must stay as it was, and the index
#    must still reach the server.
# 2. psym-collect's side directory OUT.d: one that another user made (or a
#    link to one) is refused, not written into.
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/index-lib.sh"
need gcc
need python3
[ "$(id -u)" = 0 ] || skip "needs root (files owned by another user)"
id nobody >/dev/null 2>&1 || skip "no user 'nobody'"

stop_all() {
	[ -f "$T/nginx.pid" ] && kill "$(cat "$T/nginx.pid")" 2>/dev/null
	cleanup
}
trap stop_all EXIT INT TERM

cat >c.c <<'C'
__attribute__((noinline)) int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * n; return s; }
int main(int argc, char **argv) { (void)argv; return work(argc) & 1; }
C
gcc -O1 -g -o prog c.c
bid=$(readelf -n prog | sed -n 's/.*Build ID: //p')
[ -n "$bid" ] || fail "prog has no build ID"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start_dav_nginx "$port"

# A shared temporary directory, as /tmp is: world-writable and sticky
# (and the test's directory passable, so that 'nobody' reaches it).
chmod 711 "$T"
mkdir shared
chmod 1777 shared
printf 'root secret\n' >victim
chmod 600 victim
cp victim victim.orig
# The links, as 'nobody' would plant them, for the pids that come next
# (the build runs in psym's own process for 'psym index'): one process
# plants them all, so that planting uses up no pids itself.
setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 -c '
import os, sys
me = os.getpid()
for p in range(me + 1, me + 3000):
    os.symlink(sys.argv[1], "%s/psym-idx-%s-%d.psymidx" % (sys.argv[2], sys.argv[3], p))
' "$T/victim" "$T/shared" "$bid" 2>links.err ||
	skip "cannot act as nobody here: $(head -1 links.err)"
[ "$(find shared -type l | wc -l)" = 2999 ] || skip "could not plant links as nobody: $(head -1 links.err)"
TMPDIR=$T/shared "$PSYM" index --index-store "http://127.0.0.1:$port/idx" prog >put.out 2>put.err
check "psym index PUTs the index ($(cat put.out put.err | head -2))" grep -q "^$bid [0-9]" put.out
check "the victim a planted link points at is unchanged" cmp -s victim victim.orig
check "...and still mode 600" [ "$(stat -c %a victim)" = 600 ]
check "nothing psym made is left in the shared temporary directory" \
	[ -z "$(find shared -mindepth 1 ! -type l)" ]

# An output named in a shared directory where another user planted a link
# (to a file, to a device): not followed, one line, nothing written; the
# user's own link there is still followed, as the shell's '>' follows it.
IN=$top_srcdir/testdata/sample.pb.gz
setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$T/victim" "$T/shared/out.txt"
setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s /dev/null "$T/shared/dev.txt"
"$PSYM" merge "$IN" -o "$T/shared/out.txt" >o1.out 2>o1.err
rc=$?
check "an output through another user's link in a shared directory is refused (exit $rc: $(cat o1.err))" \
	sh -c '[ "$1" = 2 ] && [ "$(wc -l <o1.err)" = 1 ] && grep -q "link of another user" o1.err' sh "$rc"
check "...and the file it points at is unchanged" cmp -s victim victim.orig
"$PSYM" merge "$IN" -o "$T/shared/dev.txt" >o2.out 2>o2.err
check "...also when it points at a device ($(cat o2.err))" grep -q "link of another user" o2.err
ln -s "$T/mine.txt" "$T/shared/mine-link.txt"
"$PSYM" merge "$IN" -o "$T/shared/mine-link.txt" 2>o3.err
check "the user's own link there is followed ($(cat o3.err))" [ -s mine.txt ]

# The side directory of psym-collect's output: made by another user, or a
# link to such a directory, it is not written into. The collector needs BPF;
# its side-directory check runs before any BPF work, so it is exercised
# whether or not BPF is available here.
COLLECT=${PSYM_COLLECT:-$top_builddir/psym-collect}
if [ -x "$COLLECT" ]; then
	mkdir -p out
	setpriv --reuid=nobody --regid=nogroup --clear-groups mkdir "$T/shared/cpu.pb.gz.d"
	setpriv --reuid=nobody --regid=nogroup --clear-groups ln -s "$T/victim" "$T/shared/cpu.pb.gz.d/kallsyms"
	"$COLLECT" -d 1 -o "$T/shared/cpu.pb.gz" >col.out 2>col.err
	rc=$?
	check "psym-collect refuses a side directory another user made (exit $rc: $(head -1 col.err))" \
		sh -c '[ "$1" != 0 ] && grep -q "cpu.pb.gz.d" col.err' sh "$rc"
	check "...and writes nothing through its links" cmp -s victim victim.orig
else
	echo "SKIP part: psym-collect is not built (--disable-collector)"
fi
finish
