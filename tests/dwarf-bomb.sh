#!/bin/sh
# A compressed .debug_info that claims far more than its bytes could hold
# of real DWARF (zeros, about 1000:1) is refused from its header, by ratio
# (--limit dwarf-compress-ratio, default 200:1, for sections over 16 MiB),
# before anything is allocated or inflated: psym addr still answers from
# the symbol table, in little memory. psym addr has symbolize's memory cap
# (--max-memory, default 8G) for what passes the ratio. A gzip'd profile
# that inflates more than 200 times is refused as early.
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need nm
cat >p.c <<'EOF2'
int __attribute__((noinline)) bomb_function(int x) { return x * 7 + 1; }
int main(int argc, char **argv) { (void)argv; return bomb_function(argc); }
EOF2
gcc -g -O1 -o p p.c || { fail "cc"; finish; exit 1; }
python3 "$top_srcdir/tests/bomb/mkbomb.py" p bomb $((512 << 20)) || { fail "mkbomb"; finish; exit 1; }
addr=0x$(nm p | awk '$3 == "bomb_function" { print $1 }')
echo "# bomb: $(wc -c <bomb) bytes, .debug_info claims 512 MiB"

rc=0
/usr/bin/time -f "%e %M" -o tm "$PSYM" addr -e bomb "$addr" >out 2>err || rc=$?
read -r secs kb <tm
echo "# defaults: exit $rc, $secs s, $kb KB max RSS"
if grep -qF "'bomb': .debug_info claims 536870912 bytes from" err &&
	grep -qF "over the ratio limit of 200:1 (--limit dwarf-compress-ratio=N)" err; then
	pass "refused by ratio: $(cat err)"
else
	fail "no ratio refusal: $(cat err)"
fi
[ "$rc" = 0 ] && [ "$(head -1 out)" = bomb_function ] &&
	pass "still answered from the symbol table" || fail "exit $rc: $(cat out)"
# Inflating it would take 512 MB; being refused from the header takes little.
[ "$kb" -lt 102400 ] && pass "under 100 MB ($kb KB)" || fail "$kb KB max RSS"

# Past the ratio, addr's memory cap refuses it too, naming --max-memory.
rc=0
"$PSYM" addr --limit dwarf-compress-ratio=2000 --max-memory 256M -e bomb "$addr" >out 2>err || rc=$?
if grep -qF "over the memory cap of 268435456 (--max-memory)" err; then
	pass "addr --max-memory: $(cat err)"
else
	fail "addr --max-memory not applied: exit $rc: $(cat err)"
fi

# The same rule for a gzip'd profile (bench/mutate: a 600 MiB bomb took
# over 5 s at nice 19 to be refused at the 512 MiB cap): past 64 MiB, more
# than 200 times the input read is refused at once.
python3 -c '
import zlib
c = zlib.compressobj(9, zlib.DEFLATED, 31)
z = bytes(1 << 20)
open("bomb.pb.gz", "wb").write(b"".join([c.compress(z) for _ in range(200)] + [c.flush()]))'
rc=0
/usr/bin/time -f "%e %M" -o tm "$PSYM" show bomb.pb.gz >out 2>err || rc=$?
echo "# profile bomb ($(wc -c <bomb.pb.gz) bytes, 200 MiB of zeros): exit $rc, $(tail -n1 tm) (s, KB)"
if [ "$rc" = 2 ] && grep -qF "'bomb.pb.gz': decompresses to more than 200 times its size" err; then
	pass "gzip'd profile bomb refused by ratio: $(cat err)"
else
	fail "gzip'd profile bomb: exit $rc: $(head -c 300 err)"
fi
finish
