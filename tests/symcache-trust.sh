#!/bin/sh
# The symbol cache trusts nothing it did not write for this object: a cache
# file copied (or planted) under another build ID's name is ignored with one
# warning and the answers come from DWARF; cache directories and files of
# another user, or writable by group or others, are ignored and not written
# (the rule of ssh and git); a symbolic link planted at CACHE/vN is refused
# and nothing is written through it; a --cache that is itself a symbolic
# link to a trusted directory still works. The oracle is llvm-symbolizer
# (through llvm_agree) and psym's --no-cache answers.
. "$top_srcdir/tests/lib.sh"
need gcc
need objcopy
need python3
need protoc
need llvm-symbolizer
MK=$top_srcdir/tests/mkprofile.py
v=$(sed -n 's/^#define PSYM_SYMCACHE_VERSION //p' "$top_srcdir/src/resolve/symcache.h")

# Two programs of the same shape at the same addresses, different functions.
for p in a b; do
	cat >$p.c <<C
__attribute__((noinline)) int ${p}_one(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * $((${#p} + 2)); return s; }
__attribute__((noinline)) int ${p}_two(int n) { return ${p}_one(n) * 3 + n; }
int main(int argc, char **argv) { (void)argv; return ${p}_two(argc) & 1; }
C
	gcc -g -O1 -fno-pie -no-pie -Wl,--build-id -o $p $p.c || { fail "cc $p"; finish; exit 1; }
done
bida=$(readelf -n a | sed -n 's/.*Build ID: //p')
bidb=$(readelf -n b | sed -n 's/.*Build ID: //p')
[ "$bida" != "$bidb" ] || { fail "same build IDs"; finish; exit 1; }
: >maps.empty
for p in a b; do
	{
		echo "mapping 400000 500000 0 $PWD/$p"
		objdump -d $p | sed -n "/<${p}_one>:/,/^\$/p" | sed -n 's/^  \(4[0-9a-f]*\):.*/\1/p'
		objdump -d $p | sed -n "/<${p}_two>:/,/^\$/p" | sed -n 's/^  \(4[0-9a-f]*\):.*/\1/p'
	} >stacks.$p
	python3 "$MK" maps.empty stacks.$p >$p.txtpb && encode_txtpb $p.txtpb $p.pb
	"$PSYM" symbolize --offline --no-cache $p.pb -o ref-$p.pb 2>/dev/null
done
sym() { "$PSYM" symbolize --offline "$@"; }

# ---- a file copied under another build ID's name
sym --cache sc a.pb -o a1.pb 2>/dev/null
sym --cache sc b.pb -o b1.pb 2>/dev/null
[ -s "sc/v$v/$bida.psc" ] && [ -s "sc/v$v/$bidb.psc" ] || { fail "no cache files written"; finish; exit 1; }
cp "sc/v$v/$bidb.psc" "sc/v$v/$bida.psc"
sym --cache sc a.pb -o a2.pb 2>a2.log
if cmp -s a2.pb ref-a.pb && llvm_agree a2.pb a; then
	pass "copied file: answers from DWARF, equal to llvm-symbolizer's"
else
	fail "copied file: wrong answers: $("$PSYM" show a2.pb 2>&1 | grep -m2 b_)"
fi
if [ "$(grep -c "warning: symbol cache '.*$bida.psc' ignored (written for another object ($bidb)" a2.log)" = 1 ]; then
	pass "copied file: one warning: $(cat a2.log | grep warning)"
else
	fail "copied file: want one warning naming $bidb: $(cat a2.log)"
fi
if grep -q "from the symbol cache" a2.log; then
	fail "copied file: said to come from the symbol cache"
else
	pass "copied file: not said to come from the cache"
fi
sym --cache sc a.pb -o a3.pb 2>a3.log
if cmp -s a3.pb ref-a.pb && grep -q "from the symbol cache" a3.log && ! grep -q warning a3.log; then
	pass "copied file: rewritten for a, used by the next run"
else
	fail "copied file: next run: $(cat a3.log)"
fi

# ---- permissions: group/other-writable file, directory, root
# trust_case NAME PATH_TO_CHMOD MODE WANT: an untrusted directory is not
# written; an untrusted file in a trusted one is replaced by a file of ours.
trust_case() {
	name=$1 target=$2 mode=$3 want=$4
	rm -rf tc && cp -a sc tc && chmod go-w tc "tc/v$v" "tc/v$v"/*
	cp "tc/v$v/$bidb.psc" "tc/v$v/$bida.psc" # wrong answers, if it were read
	touch -d '2000-01-01' "tc/v$v/$bida.psc"
	chmod "$mode" "$target"
	sym --cache tc a.pb -o t.pb 2>t.log
	if cmp -s t.pb ref-a.pb && grep -q "ignored (.*$want" t.log && [ "$(grep -c warning t.log)" = 1 ]; then
		pass "$name: ignored with one warning: $(grep warning t.log)"
	else
		fail "$name: $(cat t.log)"
	fi
	if [ -d "$target" ]; then
		if [ "$(find "tc/v$v/$bida.psc" -newermt 2001-01-01 | wc -l)" = 0 ]; then
			pass "$name: not written"
		else
			fail "$name: the cache file was rewritten in an untrusted place"
		fi
	elif [ "$(stat -c %a "$target")" = 600 ]; then
		pass "$name: replaced by a file only we can write"
	else
		fail "$name: still mode $(stat -c %a "$target")"
	fi
}
trust_case "file writable by others" "tc/v$v/$bida.psc" 0666 "writable by others"
trust_case "cache dir writable by its group" "tc/v$v" 0775 "writable by its group"
trust_case "cache root writable by others" tc 0777 "writable by others"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	rm -rf tc && cp -a sc tc
	cp "tc/v$v/$bidb.psc" "tc/v$v/$bida.psc"
	chown nobody "tc/v$v/$bida.psc"
	sym --cache tc a.pb -o t.pb 2>t.log
	if cmp -s t.pb ref-a.pb && grep -q "ignored (owned by uid" t.log; then
		pass "file of another user: ignored: $(grep warning t.log)"
	else
		fail "file of another user: $(cat t.log)"
	fi
	# root writes through no link: a planted CACHE/vN -> a directory elsewhere
	rm -rf tc elsewhere && mkdir -p tc elsewhere
	ln -s ../elsewhere "tc/v$v"
	sym --cache tc a.pb -o t.pb 2>t.log
	if cmp -s t.pb ref-a.pb && [ -z "$(ls elsewhere)" ] && grep -q "symbolic link" t.log; then
		pass "planted CACHE/v$v symlink: refused, nothing written through it: $(grep warning t.log)"
	else
		fail "planted CACHE/v$v symlink: $(cat t.log); elsewhere: $(ls elsewhere)"
	fi
else
	echo "# not root: the other-user and root-symlink cases need root (chown)"
	rm -rf tc elsewhere && mkdir -p tc elsewhere
	ln -s ../elsewhere "tc/v$v"
	sym --cache tc a.pb -o t.pb 2>t.log
	[ -z "$(ls elsewhere)" ] && pass "planted symlink: nothing written through it" ||
		fail "planted symlink: written through it"
fi

# ---- --cache naming a symbolic link to a trusted directory: resolved once
mkdir real && ln -s real link
sym --cache link a.pb -o l1.pb 2>l1.log
sym --cache link a.pb -o l2.pb 2>l2.log
if cmp -s l2.pb ref-a.pb && [ -s "real/v$v/$bida.psc" ] && grep -q "from the symbol cache" l2.log; then
	pass "--cache through a symlink to a trusted dir works"
else
	fail "--cache through a symlink: $(cat l1.log l2.log)"
fi
finish
