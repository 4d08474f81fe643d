#!/bin/sh
# Where -o points decides how psym writes: a regular file (or nothing yet) is
# replaced atomically (temporary file + rename); a FIFO, a pipe reached
# through a /proc link (/dev/stdout) or a device is written directly and never
# replaced; a symbolic link is followed and its target written, the link
# kept. Every command that takes -o: symbolize, batch symbolize, flame. The
# real /dev is tested in output-dev.sh (root, private mount namespace).
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need protoc
need timeout

cat >p.c <<'C'
__attribute__((noinline)) int work(int x) { return x * 3 + 1; }
int main(void) { return work(2) == 7 ? 0 : 1; }
C
gcc -g -O1 -fno-pie -no-pie -Wl,--build-id -o p p.c
: >maps.empty
addr=$(nm p | sed -n 's/^\([0-9a-f]*\) T work$/\1/p')
printf 'mapping 400000 500000 0 %s\n%s\n' "$PWD/p" "$addr" >stacks
python3 "$top_srcdir/tests/mkprofile.py" maps.empty stacks >a.txtpb && encode_txtpb a.txtpb a.pb
sym() { "$PSYM" symbolize -q --offline --no-cache "$@"; }
sym a.pb -o ref.pb
check "reference output names work()" sh -c "\"$PSYM\" show ref.pb | grep -q work"

# A FIFO with a reader: written through, still a FIFO afterwards.
mkfifo fifo
timeout 20 cat fifo >from-fifo &
reader=$!
timeout 20 "$PSYM" symbolize -q --offline --no-cache a.pb -o fifo
wait "$reader"
check "FIFO output: still a FIFO" test -p fifo
check "FIFO output: the reader got the whole profile" cmp -s from-fifo ref.pb

# A link into /proc (as /dev/stdout is) to a pipe: written into the pipe.
ln -s /proc/self/fd/1 out-link
sym a.pb -o out-link | cat >piped.pb
check "/proc/self/fd/1 link to a pipe: link kept" test -L out-link
check "/proc/self/fd/1 link to a pipe: pipe got the profile" cmp -s piped.pb ref.pb
# ... and to a regular file (the shell's redirection): the file gets it.
sym a.pb -o out-link >redirected.pb
check "/proc/self/fd/1 link to a file: link kept" test -L out-link
check "/proc/self/fd/1 link to a file: file got the profile" cmp -s redirected.pb ref.pb
echo "earlier line" >appended.pb
sym a.pb -o out-link >>appended.pb
check "/proc/self/fd/1 link to a file opened with >>: appended to" \
	sh -c '{ echo "earlier line"; cat ref.pb; } | cmp -s - appended.pb'

# A symbolic link to a regular file, and a dangling one: the target is
# written, the link stays a link.
echo old >target.pb
ln -s target.pb link.pb
sym a.pb -o link.pb
check "link to a file: still a link" test -L link.pb
check "link to a file: target replaced by the profile" cmp -s target.pb ref.pb
mkdir sub links
ln -s ../sub/new.pb links/dangling.pb
sym a.pb -o links/dangling.pb
check "dangling link: still a link" test -L links/dangling.pb
check "dangling link: its target created with the profile" cmp -s sub/new.pb ref.pb
check "no temporaries left" sh -c '! ls -a . sub links | grep -q psym-tmp'
ln -s loop1 loop2 && ln -s loop2 loop1
expect_exit 2 "a link loop is a usage error" sym a.pb -o loop1
check "link loop: nothing written" sh -c '[ "$(ls -a | grep -c loop)" = 2 ] && ! ls -a | grep -q psym-tmp'
mkdir outdir
expect_exit 2 "a directory as -o is a usage error" sym a.pb -o outdir

# flame -o FIFO, and batch outputs that are links or FIFOs.
mkfifo flame.fifo
timeout 20 cat flame.fifo >flame.svg &
reader=$!
timeout 20 "$PSYM" flame ref.pb -o flame.fifo
wait "$reader"
check "flame -o FIFO: still a FIFO" test -p flame.fifo
check "flame -o FIFO: the reader got an SVG" grep -q '</svg>' flame.svg
mkdir in batch-out
cp a.pb in/a.pb && cp a.pb in/b.pb
ln -s ../batch-a.pb batch-out/a.pb
mkfifo batch-out/b.pb
# A batch does not wait for a FIFO's reader: the reader holds it open first.
python3 "$top_srcdir/tests/fifo-reader.py" batch-out/b.pb batch-b.pb reader.ready &
reader=$!
for _ in $(seq 100); do [ -e reader.ready ] && break; sleep 0.1; done
timeout 20 "$PSYM" symbolize -q --offline --no-cache --raw -j 1 in -o batch-out
wait "$reader"
sym --raw a.pb -o ref-raw.pb
check "batch: output link kept" test -L batch-out/a.pb
check "batch: output link's target written" cmp -s batch-a.pb ref-raw.pb
check "batch: output FIFO kept" test -p batch-out/b.pb
check "batch: output FIFO's reader got the profile" cmp -s batch-b.pb ref-raw.pb
finish
