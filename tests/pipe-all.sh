#!/bin/sh
# A reader of standard output that goes away is no error, for every command
# and every way a command writes (psym(1), EXIT STATUS): exit 0 and nothing
# on stderr. Each command runs 20 times into `head -1` (`head -c 1` for
# binary output) on outputs larger than a pipe's buffer, so that psym is
# writing, blocks and gets EPIPE; and once into a pipe whose reader is gone
# before psym writes anything (every output size). psym's own exit status
# is taken inside the pipe ({ psym; echo $? >rc; } | head -1). The core for
# psym stack is made by gdb (generate-core-file) from a program with many
# threads deep in recursion; a /dev/full write stays exit 3.
. "$top_srcdir/tests/lib.sh"
need gcc
need gdb
need python3
need protoc
gdb -q -batch -ex run --args /bin/true >/dev/null 2>&1 || skip "gdb cannot run programs here (ptrace)"

cat >deep.c <<'EOF'
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
static volatile int ready;
__attribute__((noinline)) static int deep(int n)
{
	if (n == 0) {
		__sync_fetch_and_add(&ready, 1);
		for (;;)
			pause();
	}
	return deep(n - 1) + 1;
}
static void *run(void *a)
{
	return (void *)(long)deep(40);
}
int main(void)
{
	pthread_t t;
	for (int i = 0; i < 48; i++)
		pthread_create(&t, NULL, run, NULL);
	while (ready < 48)
		usleep(1000);
	abort();
}
EOF
gcc -g -O0 -pthread -o deep deep.c || skip "cannot build the test program"
timeout 300 gdb -q -batch -ex run -ex "generate-core-file core" --args ./deep >gdb.log 2>&1
[ -s core ] || skip "gdb made no core: $(tail -n 2 gdb.log | tr '\n' ' ')"

# A symbolized profile with many functions and stacks (reports), their
# sources (list), and addresses of deep.
python3 - <<'PY' >g.txtpb
import os, random
r = random.Random(7)
strings, index = [""], {"": 0}
def s(x):
    if x not in index:
        index[x] = len(strings)
        strings.append(x)
    return index[x]
out = []
os.makedirs("src", exist_ok=True)
for f in range(20):
    with open("src/file_%d.c" % f, "w") as fp:
        fp.write("".join("int line_%d_%d;\n" % (f, i) for i in range(400)))
nf, nl = 2000, 4000
for i in range(1, nf + 1):
    out.append("function { id: %d name: %d filename: %d start_line: %d }"
               % (i, s("function_number_%d" % i), s("src/file_%d.c" % (i % 20)), 1 + i % 300))
out.append("mapping { id: 1 memory_start: 4194304 memory_limit: 8388608 filename: %d has_functions: true }"
           % s("/bin/generated"))
for lid in range(1, nl + 1):
    out.append("location { id: %d mapping_id: 1 address: %d line { function_id: %d line: %d } }"
               % (lid, 0x400000 + lid * 0x40, r.randrange(1, nf + 1), 1 + r.randrange(399)))
for _ in range(4000):
    st = ", ".join(str(r.randrange(1, nl + 1)) for _ in range(r.randrange(1, 30)))
    out.append("sample { location_id: [%s] value: [%d] }" % (st, r.randrange(1, 100)))
out.insert(0, "sample_type { type: %d unit: %d }" % (s("samples"), s("count")))
for x in strings:
    out.append('string_table: "%s"' % x)
print("\n".join(out))
PY
encode_txtpb g.txtpb g.pb
nm deep | awk '$2 ~ /^[tT]$/ { print "0x" $1 }' >syms
: >addrs
for i in $(seq 1 400); do cat syms >>addrs; done
args=$(head -n 3000 addrs | tr '\n' ' ')
sed 's/^/#0 pc /; s/$/ in deep/' addrs >crash.log
ln -s "$PSYM" addr2line

ok_pipe() { # NAME: psym's status in rc, its stderr in err
	if [ "$(cat rc)" = 0 ] && [ ! -s err ]; then pass "$1"; else
		fail "$1 (exit $(cat rc), stderr: $(head -c 300 err))"; fi
}

# NAME|MODE|COMMAND (MODE: text or bin; stdin: addrs for addr, crash.log for --filter).
cat >cmds <<EOF
show|text|$PSYM show g.pb
show --json|text|$PSYM show --json g.pb
check|text|$PSYM check g.pb g.pb g.pb
top|text|$PSYM top -n 100000 --lines g.pb
folded|text|$PSYM folded --lines g.pb
traces|text|$PSYM traces g.pb
tree|text|$PSYM tree -n 0 --nodefraction 0 g.pb
peek|text|$PSYM peek . g.pb
graph|text|$PSYM graph -n 0 --nodefraction 0 g.pb
list|text|$PSYM list --source-path . function_number_1 g.pb
flame|text|$PSYM flame -o - g.pb
symbolize|bin|$PSYM symbolize -q --raw g.pb -o -
merge|bin|$PSYM merge --raw g.pb g.pb -o -
addr arguments|text|$PSYM addr -f -i -e deep $args
addr stdin|text|$PSYM addr -f -e deep
addr --json|text|$PSYM addr --json -e deep
addr --filter|text|$PSYM addr --filter -e deep
addr2line|text|./addr2line -f -e deep
stack|text|$PSYM stack core
stack --json|text|$PSYM stack --json core
help|text|$PSYM stack --help
EOF
while IFS='|' read -r name mode cmd; do
	case $name in
	"addr --filter") input=crash.log ;;
	addr* | addr2line) input=addrs ;;
	*) input=/dev/null ;;
	esac
	[ "$mode" = bin ] && take="head -c 1" || take="head -n 1"
	bad=0
	for i in $(seq 1 20); do
		# shellcheck disable=SC2086
		{ $cmd <"$input" 2>err; echo $? >rc; } | $take >/dev/null
		if [ "$(cat rc)" != 0 ] || [ -s err ]; then
			bad=$((bad + 1))
			cp err err.first 2>/dev/null
			cp rc rc.first
		fi
	done
	if [ $bad = 0 ]; then pass "$name | $take, 20 times: exit 0, no message"; else
		fail "$name | $take: $bad of 20 runs not quiet (exit $(cat rc.first), stderr: $(head -c 300 err.first))"; fi
	# shellcheck disable=SC2086
	{ sleep 1; $cmd <"$input" 2>err; echo $? >rc; } | true
	ok_pipe "$name into a pipe already closed: exit 0, no message"
	# The output is large enough for the first test to mean something.
	# shellcheck disable=SC2086
	$cmd <"$input" 2>/dev/null | wc -c >size
	[ "$name" = help ] || [ "$name" = check ] ||
		check "$name writes more than a pipe's buffer ($(cat size) bytes)" test "$(cat size)" -gt 65536
done <cmds

if [ -w /dev/full ]; then
	expect_exit 3 "stack into a full disk is still an error" sh -c "'$PSYM' stack core >/dev/full 2>/dev/null"
	expect_exit 3 "show into a full disk is still an error" sh -c "'$PSYM' show g.pb >/dev/full 2>/dev/null"
	"$PSYM" stack core >/dev/full 2>full.err
	check "the full disk is said once" test "$(wc -l <full.err)" = 1
fi
finish
