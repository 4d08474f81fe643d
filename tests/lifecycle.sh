#!/bin/sh
# What an object learned is acted on also when it is closed for the open
# cap (issue 49): under --limit open-objects=1 a profile of three binaries
# closes two of them before the end. Each one closed must still write its
# answers to the answer cache and run its index policy (before, only the
# one still open at the end got an index: eviction freed the others
# without finish), in a single run and in a batch whose workers close
# them. The build IDs are readelf's. That closing writes no file itself
# (the cache is written by finish, never by a destructor) is checked in
# tests/unit/symcache-test and tests/unit/registry-test.
. "$top_srcdir/tests/lib.sh"
need gcc
need readelf
need python3
need protoc
MK=$top_srcdir/tests/mkprofile.py

cat >m.c <<'C'
__attribute__((noinline)) int FA(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * n; return s; }
int main(int argc, char **argv) { (void)argv; return FA(argc) & 1; }
C
: >maps.empty
: >stacks
ids=""
for k in 1 2 3; do
	gcc -g -O1 -fpie -pie -Wl,--build-id -DFA=fa_$k -o b$k m.c || skip "gcc cannot build a PIE here"
	ids="$ids $(readelf -n b$k | sed -n 's/.*Build ID: *//p')"
	base=$((0x10000000 * k))
	printf 'mapping %x %x 1000 %s/b%s\n' $((base + 0x1000)) $((base + 0x2000)) "$T" $k >>stacks
done
for k in 1 2 3; do
	a=$(nm b$k | awk '$3 ~ /^fa_/ { print $1 }')
	printf '%x\n' $((0x10000000 * k + 0x$a + 4)) >>stacks
done
python3 "$MK" maps.empty stacks >p.txtpb && encode_txtpb p.txtpb p.pb
check "three binaries of three build IDs" [ "$(echo $ids | wc -w)" = 3 ]

# have CACHE STORE: every build ID has its answer cache file and (the
# builds run in the background: waited for) its index.
have() {
	local i n=0 missing
	while :; do
		missing=""
		for i in $ids; do
			ls "$2/$(echo $i | cut -c1-2)/$i".*.psymidx >/dev/null 2>&1 || missing="$missing $i"
		done
		[ -z "$missing" ] && break
		n=$((n + 1))
		[ $n -ge 600 ] && { echo "no index for:$missing"; return 1; }
		sleep 0.2
	done
	for i in $ids; do
		ls "$1"/v*/"$i.psc" >/dev/null 2>&1 || { echo "no answer cache for $i"; return 1; }
	done
}

"$PSYM" symbolize --offline --limit open-objects=1 --cache C1 --index-store S1 p.pb -o o1.pb \
	2>one.log
check "one run, one object open at a time: exit 0" [ $? = 0 ]
check "... every binary has its answers cached and its index built" have C1 S1
check "... and the run says it started three builds" grep -q "3 index builds started" one.log

cp p.pb q.pb
"$PSYM" symbolize -q -j 2 --offline --limit open-objects=1 --cache C2 --index-store S2 p.pb q.pb \
	-o out 2>batch.log
check "a batch of two on two workers, one object open at a time: exit 0" [ $? = 0 ]
check "... every binary has its answers cached and its index built" have C2 S2
finish
