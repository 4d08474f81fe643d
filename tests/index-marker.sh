#!/bin/sh
# The .building marker of an index build: a build that fails (a full disk)
# removes its own marker, so that the next build of that build ID, once
# there is space, succeeds (a marker left behind made every build report
# "another process is building" for 600 s); a marker whose builder is gone
# (a process of this host, this boot and PID namespace that no longer
# exists) or that was left before this host's last boot is taken over at
# once; a live builder's marker, and a fresh one of another host, are
# still respected. The disk is a small tmpfs mounted by the test (root),
# and every output operation of a build failed in turn with ENOSPC by the
# fault-injection shim (tests/faultinject.so). The oracle for the index
# built afterwards is llvm-symbolizer.
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need llvm-symbolizer

python3 - <<'PY'
with open("prog.c", "w") as f:
    for i in range(400):
        f.write("__attribute__((noinline)) int f%d(int n) { int s = 0; for (int i = 0; i < n; i++) s += (i ^ %d) * (i & %d); return s; }\n" % (i, i, i + 1))
    f.write("int main(int c, char **v) { (void)v; return (%s) & 1; }\n" % " + ".join("f%d(c)" % i for i in range(400)))
PY
gcc -g -O1 -o prog prog.c || { fail "cannot build"; exit 1; }
bid=$(readelf -n prog | sed -n 's/.*Build ID: //p')
nn=$(echo "$bid" | cut -c1-2)
a=0x$(nm prog | awk '$3 == "f200" { print $1 }')
want=$(llvm-symbolizer --obj=prog "$a" | head -1)
"$PSYM" index --index-store S0 prog >/dev/null 2>&1 || { fail "psym index"; exit 1; }
name=$(basename "$(ls S0/"$nn"/*.psymidx)")
key=${name%.psymidx}
size=$(wc -c <S0/"$nn"/"$name")

# built STORE: the store's index of prog answers f200 as llvm-symbolizer.
built() {
	"$PSYM" addr -v --index-store "$1" --no-index-build -e prog "$a" >b.out 2>b.err &&
		grep -q "from the index" b.err && [ "$(head -1 b.out)" = "$want" ]
}
# no_leftovers STORE: neither a marker nor a temporary file.
no_leftovers() {
	! ls -a "$1/$nn" 2>/dev/null | grep -q -e '\.building$' -e psym-tmp
}

# ---- a full disk: a tmpfs with no room left
mkdir S
if mount -t tmpfs -o size=1m,mode=0755 tmpfs S 2>/dev/null; then
	trap 'umount "$T/S" 2>/dev/null; cleanup' EXIT
	head -c 2M /dev/zero >S/fill 2>/dev/null
	rc=0
	"$PSYM" index --index-store S prog >f.out 2>f.err || rc=$?
	if [ $rc != 0 ] && grep -q "cannot write" f.err; then
		pass "full disk: the build fails ($size bytes to write): $(cat f.err)"
	else
		fail "full disk: exit $rc, $(cat f.err)"
	fi
	check "full disk: no marker or temporary file left: $(ls -a S/"$nn" | tr '\n' ' ')" no_leftovers S
	rm -f S/fill
	rc=0
	"$PSYM" index --index-store S prog >f.out 2>f.err || rc=$?
	check "space freed: the next build succeeds ($(cat f.err))" [ $rc = 0 ]
	check "...and its index answers $want" built S
	umount S
else
	echo "# cannot mount a tmpfs here: the fault-injection shim alone plays the full disk"
fi

# ---- every output operation of a build failing with ENOSPC in turn
shim=$top_builddir/tests/faultinject.so
if [ -f "$shim" ] && ! ldd "$PSYM" 2>/dev/null | grep -q -e libasan -e libubsan; then
	rm -rf F
	PSYM_FI_COUNT=counts LD_PRELOAD=$shim "$PSYM" index --index-store F prog >/dev/null 2>&1
	read -r _ nio <counts
	bad="" nfail=0
	i=1
	while [ "$i" -le "$nio" ]; do
		rm -rf F
		rc=0
		PSYM_FI_IO=$i LD_PRELOAD=$shim "$PSYM" index --index-store F prog >/dev/null 2>fi.err || rc=$?
		if [ $rc != 0 ]; then
			nfail=$((nfail + 1))
			no_leftovers F || bad="$bad #$i($(ls -a F/"$nn" | tr '\n' ' '))"
			"$PSYM" index --index-store F prog >/dev/null 2>fi2.err || bad="$bad #$i: next build: $(cat fi2.err)"
			built F || bad="$bad #$i: no index after"
		fi
		i=$((i + 1))
	done
	if [ -z "$bad" ] && [ $nfail -gt 0 ]; then
		pass "ENOSPC at each of $nio output operations ($nfail builds failed): no marker left, the next build succeeds"
	else
		fail "ENOSPC ($nfail of $nio failed):$bad"
	fi
else
	echo "# fault-injection shim not usable in this build: those cases not run"
fi

# ---- markers by hand, in the format store.h gives
host=$(uname -n)
boot=$(cat /proc/sys/kernel/random/boot_id)
pidns=$(readlink /proc/self/ns/pid)
mark() { # PID HOST BOOT: S/NN/KEY.building
	rm -rf M && mkdir -p M/"$nn"
	printf 'pid %s\nhost %s\nboot %s\npidns %s\n' "$1" "$2" "$3" "$pidns" >M/"$nn"/"$key".building
}
dead=$(sh -c 'echo $$')
mark "$dead" "$host" "$boot"
rc=0
"$PSYM" index --index-store M prog >m.out 2>m.err || rc=$?
check "a marker of a process gone (pid $dead, this host and boot) is taken over at once: $(cat m.err)" \
	sh -c "[ $rc = 0 ] && [ ! -e M/$nn/$key.building ]"
check "...and the index answers $want" built M
mark "$dead" "$host" "00000000-0000-0000-0000-000000000000"
rc=0
"$PSYM" index --index-store M prog >m.out 2>m.err || rc=$?
check "a marker left before this host's last boot is taken over: $(cat m.err)" [ $rc = 0 ]
mark $$ "$host" "$boot"
rc=0
"$PSYM" index --index-store M prog >m.out 2>m.err || rc=$?
if [ $rc != 0 ] && grep -q "another process is building .*(pid $$ on $host)" m.err &&
	[ -e M/"$nn"/"$key".building ]; then
	pass "a live builder's marker is respected: $(cat m.err)"
else
	fail "a live builder's marker: exit $rc, $(cat m.err)"
fi
mark "$dead" "another-host.example" "$boot"
rc=0
"$PSYM" index --index-store M prog >m.out 2>m.err || rc=$?
check "a fresh marker of another host is respected: $(cat m.err)" \
	sh -c "[ $rc != 0 ] && grep -q 'another process is building' m.err"
# A marker that is a directory (no builder's, and unlink cannot remove it)
# was reported as "another process is building" (found by
# bench/mutate-stores, reader "kinds"): now the error says what is there.
rm -rf M/"$nn"/"$key".building
mkdir M/"$nn"/"$key".building
rc=0
"$PSYM" index --index-store M prog >m.out 2>m.err || rc=$?
check "a directory at the marker's path is named as such: $(cat m.err)" \
	sh -c "[ $rc != 0 ] && grep -q 'cannot remove the stale marker .*$key.building' m.err && ! grep -q 'another process' m.err"
rmdir M/"$nn"/"$key".building
finish
