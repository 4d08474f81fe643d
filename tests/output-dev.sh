#!/bin/sh
# -o /dev/null and -o /dev/stdout must not replace the device node or the
# link by a regular file (as root, rename() would do it). Runs in a private
# mount namespace with a tmpfs on /dev holding its own null node and stdout
# link: the real /dev is never touched, even when psym gets it wrong.
. "$top_srcdir/tests/lib.sh"
[ "$(id -u)" = 0 ] || skip "needs root (mknod, mount)"
need unshare
need gcc
need python3
need protoc
unshare -m --propagation private true 2>/dev/null || skip "unshare -m is not permitted here"

cat >p.c <<'C'
__attribute__((noinline)) int work(int x) { return x * 3 + 1; }
int main(void) { return work(2) == 7 ? 0 : 1; }
C
gcc -g -O1 -fno-pie -no-pie -Wl,--build-id -o p p.c
: >maps.empty
addr=$(nm p | sed -n 's/^\([0-9a-f]*\) T work$/\1/p')
printf 'mapping 400000 500000 0 %s\n%s\n' "$PWD/p" "$addr" >stacks
python3 "$top_srcdir/tests/mkprofile.py" maps.empty stacks >a.txtpb && encode_txtpb a.txtpb a.pb
"$PSYM" symbolize -q --offline --no-cache a.pb -o ref.pb
mkdir in && cp a.pb in/a.pb

# Inside the namespace: results as lines "NAME ok|bad", checked outside.
PSYM=$PSYM unshare -m --propagation private sh -c '
	mount -t tmpfs psym-test-dev /dev || exit 1
	mknod -m 666 /dev/null c 1 3 && ln -s /proc/self/fd/1 /dev/stdout || exit 1
	sym() { "$PSYM" symbolize -q --offline --no-cache "$@" </dev/null; }
	r() { if eval "$2"; then echo "$1 ok"; else echo "$1 bad"; fi; }
	sym a.pb -o /dev/null; r symbolize-null "test -c /dev/null"
	"$PSYM" flame ref.pb -o /dev/null; r flame-null "test -c /dev/null"
	mkdir out && ln -s /dev/null out/a.pb
	sym -j 1 in -o out; r batch-null "test -c /dev/null && test -L out/a.pb"
	sym a.pb -o /dev/stdout | cat >piped.pb; r stdout-link "test -L /dev/stdout"
	r stdout-pipe "cmp -s piped.pb ref.pb"
	r no-tmp "! ls -a /dev | grep -q psym-tmp"
' >results 2>errors || { cat errors; fail "cannot set up the private /dev"; }
cat errors
for t in symbolize-null flame-null batch-null stdout-link stdout-pipe no-tmp; do
	check "$t" grep -qx "$t ok" results
done
check "the real /dev/null is still a character device" test -c /dev/null
finish
