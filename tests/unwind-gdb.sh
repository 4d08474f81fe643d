#!/bin/sh
# The CFI unwinder on real stacks, checked against gdb: a C and a C++
# program built -O2 -fomit-frame-pointer (recursion, a callback from glibc's
# qsort, a signal handler, a PLT stub) and Debian's own xz (no frame
# pointers, stripped) are stopped under gdb; at each stop gdb writes the
# registers, the mappings and the top 16 KiB of the stack, and its own
# backtrace. psym's unwinder (tests/unwind/unwind-replay) must find the
# same physical frames, in order, all the way to _start.
. "$top_srcdir/tests/lib.sh"
need gdb
need python3
need gcc
need g++
U=$top_srcdir/tests/unwind
REPLAY=$top_builddir/tests/unwind/unwind-replay
# gdb must be allowed to trace its child (containers may forbid ptrace).
gdb -q -batch -ex run --args /bin/true >/dev/null 2>&1 || skip "gdb cannot run programs here"

# capture NAME BREAKS STOPS CMD...: dumps in NAME/
capture() {
	name=$1 breaks=$2 stops=$3
	shift 3
	mkdir -p "$name"
	PSYM_OUT=$T/$name PSYM_BREAKS=$breaks PSYM_STOPS=$stops \
		timeout 300 gdb -q -batch -x "$U/gdbdump.py" --args "$@" >"$name.log" 2>&1
}

# compare NAME MINSTOPS: every dump of NAME agrees with gdb
compare() {
	name=$1 min=$2 n=0 bad=0
	for d in "$name"/*.dump; do
		[ -e "$d" ] || break
		b=${d%.dump}
		n=$((n + 1))
		if ! "$REPLAY" "$d" >"$b.ours" 2>"$b.err"; then
			echo "# $d: unwind-replay failed: $(head -n 3 "$b.err")"
			bad=$((bad + 1))
			continue
		fi
		if ! python3 "$U/compare.py" "$b.ours" "$b.gdb" >"$b.cmp"; then
			echo "# $d:"; sed 's/^/#   /' "$b.cmp"
			bad=$((bad + 1))
		fi
	done
	if [ "$n" -lt "$min" ]; then
		fail "$name: only $n stops captured (gdb log: $(tail -n 3 "$name.log" | tr '\n' ' '))"
	elif [ "$bad" -ne 0 ]; then
		fail "$name: $bad of $n stacks differ from gdb"
	else
		pass "$name: $n stacks agree with gdb ($(cat "$name"/0.cmp))"
	fi
}

gcc -O2 -g -fomit-frame-pointer -o progc "$U/prog.c" || fail "build C program"
g++ -x c++ -O2 -g -fomit-frame-pointer -o progcc "$U/prog.c" || fail "build C++ program"
capture c "leaf,'puts@plt',getpid" 24 ./progc 2
compare c 20
capture cc "leaf,'puts@plt'" 24 ./progcc 2
compare cc 20

if [ -x /usr/bin/xz ] && ldd /usr/bin/xz | grep -q liblzma; then
	head -c 3000000 /dev/urandom | od -An -x >input
	# lzma_code is liblzma's entry, called from xz's own (stripped) code.
	capture xz "lzma_code,lzma_crc64" 12 /usr/bin/xz -9 -k -c input
	compare xz 5
else
	echo "# no dynamically linked /usr/bin/xz: skipped"
fi
finish
