#!/bin/sh
# Legacy pprof inputs (issue 29 item 3): the gperftools CPU profile and the
# heap, growth, contention, thread and Go count text profiles, and Java's
# CPU, heap and contention profiles (issue 43; more in legacy-java.sh) are read
# wherever a profile is read. Oracles: go tool pprof -raw prints the same
# profile for the legacy file and for what psym symbolize writes of it
# (pprof's own test data, from Debian's golang-github-google-pprof-dev,
# fetched here); a CPU profile and a heap
# profile made here by real programs linked with gperftools (libprofiler,
# libtcmalloc): psym top after psym symbolize equals go tool pprof -top
# -symbolize=local on the legacy file wherever pprof names the function.
. "$top_srcdir/tests/lib.sh"
need go "golang-go: go tool pprof"
need gcc
L=$(pprof_testdata 2>pprof.why) || L=

# 1. pprof's test data, each format: same profile for go tool pprof.
[ -n "$L" ] || echo "SKIP part: pprof's test data: $(cat pprof.why)"
if [ -n "$L" ]; then
for f in cppbench.cpu gobench.cpu go.crc32.cpu cppbench.heap gobench.heap cppbench.growth \
	cppbench.contention cppbench.thread cppbench.thread.all cppbench.thread.none go.godoc.thread \
	java.cpu java.heap java.contention; do
	if ! "$PSYM" symbolize -q --offline --no-cache "$L/$f" -o "$f.pb" 2>"$f.err"; then
		fail "$f: psym symbolize failed: $(cat "$f.err")"
		continue
	fi
	go tool pprof -raw "$L/$f" >"$f.want" 2>/dev/null
	go tool pprof -raw "$f.pb" >"$f.got" 2>/dev/null
	check "$f: go tool pprof -raw: psym's profile = the legacy file ($(grep -c . "$f.want") lines)" \
		sh -c "[ -s $f.want ] && cmp -s $f.want $f.got"
	diff "$f.want" "$f.got" | head -5
done
# Read wherever a profile is read: check, show, top, and gzip'd.
check "psym check reads a legacy CPU profile" "$PSYM" check "$L/cppbench.cpu"
gzip -c "$L/cppbench.heap" >heap.gz
"$PSYM" symbolize -q --offline --no-cache heap.gz -o heapgz.pb
go tool pprof -raw heapgz.pb >heapgz.got 2>/dev/null
check "a gzip'd legacy heap profile reads the same" cmp -s cppbench.heap.want heapgz.got
"$PSYM" top "$L/cppbench.contention" >top.contention 2>/dev/null
go tool pprof -top -symbolize=none "$L/cppbench.contention" >top.contention.go 2>/dev/null
sed -n '/flat%/,$p' top.contention >a.rows
sed -n '/flat%/,$p' top.contention.go >b.rows
check "psym top on the legacy contention file: pprof's rows" cmp -s a.rows b.rows
diff a.rows b.rows | head -5
fi
# compare_top LEGACY SYMBOLIZED [SAMPLE_INDEX]: every row pprof names (not
# [module]) is psym's row too, and the header lines match.
compare_top() {
	leg=$1 sym=$2
	"$PSYM" top ${3:+--sample-index "$3"} "$sym" >top.psym 2>top.err
	go tool pprof -top -symbolize=local ${3:+-sample_index="$3"} "$leg" >top.go 2>/dev/null
	python3 - <<'PY'
import sys
psym = open("top.psym").read().split("\n")
go = open("top.go").read().split("\n")
rows_p = [l for l in psym if l.strip() and "%" in l and not l.startswith(("Showing", "Type", "Dropped"))]
rows_g = [l for l in go if l.strip() and "%" in l and not l.startswith(("Showing", "Type", "Dropped"))]
named = [r for r in rows_g[1:] if not r.rstrip().endswith("]")]
missing = [r for r in named if r not in rows_p]
print("%d of pprof's %d named rows in psym's top" % (len(named) - len(missing), len(named)))
for r in missing[:5]: print("  missing:", r)
sys.exit(1 if missing or not named or rows_p[0] != rows_g[0] else 0)
PY
}

# 2. A real program under libprofiler (CPUPROFILE=).
cat >burn.c <<'C'
#include <stdio.h>
#include <time.h>
__attribute__((noinline)) double leaf(double x) { for (int i = 0; i < 2000; i++) x = x * 1.0000001 + 0.5; return x; }
__attribute__((noinline)) double mid(double x) { return leaf(x) + leaf(x / 2); }
__attribute__((noinline)) double other(double x) { for (int i = 0; i < 3000; i++) x = x / 1.0000001 - 0.25; return x; }
int main(void)
{
	struct timespec a, b;
	double s = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 1000; i++) s += mid(i) + other(i);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < 800);
	printf("%g\n", s);
	return 0;
}
C
if gcc -O1 -g -o burn burn.c -Wl,--no-as-needed -lprofiler 2>cc.err; then
	CPUPROFILE=$T/burn.prof CPUPROFILE_FREQUENCY=500 ./burn >/dev/null 2>&1
	check "libprofiler wrote a CPU profile" test -s burn.prof
	"$PSYM" symbolize --no-cache --offline burn.prof -o burn.pb 2>sym.err
	check "psym symbolize on the CPU profile: exit 0, names from burn" \
		sh -c "\"$PSYM\" top burn.pb | grep -q ' leaf$'"
	check "psym top after symbolize = go tool pprof -top -symbolize=local (CPU)" compare_top burn.prof burn.pb
	cat top.psym top.go | head -30
	check "the maps section's mappings: burn and libc named" sh -c \
		"\"$PSYM\" show burn.pb | grep -q '/burn' && \"$PSYM\" show burn.pb | grep -q 'libc.so'"
else
	unbuildable "libprofiler program" "$(head -1 cc.err) (libgoogle-perftools-dev)"
fi

# 3. A real heap profile (libtcmalloc, HEAPPROFILE=): sampled heap_v2.
cat >grow.c <<'C'
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) void *big(size_t n) { void *p = malloc(n); memset(p, 1, n); return p; }
__attribute__((noinline)) void *small(size_t n) { void *p = malloc(n); memset(p, 2, n); return p; }
static void *keep[20000];
int main(void)
{
	for (int i = 0; i < 200; i++) keep[i] = big(1 << 20);
	for (int i = 200; i < 20000; i++) keep[i] = small(4096);
	char *s = getenv("HEAPPROFILE");
	(void)s;
	extern void HeapProfilerDump(const char *);
	HeapProfilerDump("end");
	return keep[5] == 0;
}
C
if gcc -O1 -g -o grow grow.c -Wl,--no-as-needed -ltcmalloc 2>cc2.err; then
	HEAPPROFILE=$T/grow ./grow >/dev/null 2>&1
	hp=$(ls grow.*.heap 2>/dev/null | tail -1)
	if [ -n "$hp" ]; then
		check "tcmalloc wrote a heap profile" grep -q '^heap profile:' "$hp"
		"$PSYM" symbolize --no-cache --offline "$hp" -o heap.pb 2>hsym.err
		go tool pprof -raw "$hp" >heap.want 2>/dev/null
		go tool pprof -raw heap.pb >heap.got 2>/dev/null
		check "heap profile: go tool pprof -raw equal but for the names psym added" python3 -c "
import re
def keep(path):
    # Locations (pprof has no names for them) and the mappings' symbolized flags
    return [re.sub(r' *(\[[A-Z]+\])*$', '', l.rstrip()) for l in open(path)
            if not l.startswith(('Locations', ' ', '\t'))]
w, g = keep('heap.want'), keep('heap.got')
assert w == g, (len(w), len(g))"
		for idx in space objects; do
			check "psym top ($idx) after symbolize = go tool pprof -top -symbolize=local" \
				compare_top "$hp" heap.pb $idx
		done
		cat top.psym top.go | head -20
	else
		fail "tcmalloc wrote no heap profile"
	fi
else
	unbuildable "libtcmalloc program" "$(head -1 cc2.err) (libgoogle-perftools-dev)"
fi
finish
