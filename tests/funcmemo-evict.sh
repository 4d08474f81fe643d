#!/bin/sh
# The function memo across objects closed for the open cap (issue 37): a
# profile naming more binaries than --limit open-objects lets psym keep
# open closes the least recently used ones as it goes, and the next one
# opened is often mapped where a closed one was. Its strings then sit at
# the addresses a closed binary's strings had; a memo keyed by those
# addresses alone gave the closed binary's function (fb_01 for bin07).
# Every location of every mapping must name what llvm-symbolizer names
# for its own binary, in a single run and in a batch sharing one registry.
# The binaries are built alike (same size, same layout, names of one
# length) so that their symbol tables are laid out byte for byte the same.
. "$top_srcdir/tests/lib.sh"
need gcc
need python3
need protoc
need llvm-symbolizer
MK=$top_srcdir/tests/mkprofile.py

cat >m.c <<'C'
__attribute__((noinline)) int FA(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * n; return s; }
__attribute__((noinline)) int FB(int n) { return FA(n) * 3 + n; }
int main(int argc, char **argv) { (void)argv; return FB(argc) & 1; }
C
# Eight with symbols only (names from the symbol table), eight with DWARF
# (one function name, the source file's name differs).
bins=""
for i in 01 02 03 04 05 06 07 08; do
	gcc -O1 -fpie -pie -Wl,--build-id -DFA=fa_$i -DFB=fb_$i -o sym$i m.c || skip "gcc cannot build a PIE here"
	cp m.c m$i.c
	gcc -g -O1 -fpie -pie -Wl,--build-id -DFA=fa -DFB=fb -o dbg$i m$i.c || skip "gcc cannot build a PIE here"
	bins="$bins sym$i"
done
for i in 01 02 03 04 05 06 07 08; do bins="$bins dbg$i"; done
: >maps.empty
# Mapping k: binary k's text (file offset 0x1000 at vaddr 0x1000) at
# 0x10000000 * k; three addresses in each of its functions.
python3 - "$T" $bins >stacks <<'PY'
import subprocess, sys
d, bins = sys.argv[1], sys.argv[2:]
for k, b in enumerate(bins):
    base = 0x10000000 * (k + 1)
    print("mapping %x %x 1000 %s/%s" % (base + 0x1000, base + 0x2000, d, b))
for k, b in enumerate(bins):
    base = 0x10000000 * (k + 1)
    for l in subprocess.run(["nm", b], capture_output=True, text=True).stdout.splitlines():
        w = l.split()
        if len(w) == 3 and w[1] in "Tt" and w[2].startswith(("fa", "fb", "main")):
            for off in (0, 4, 8):
                print("%x" % (base + int(w[0], 16) + off))
PY
python3 "$MK" maps.empty stacks >p.txtpb && encode_txtpb p.txtpb p.pb

# agree PROFILE: every location's frames, as llvm-symbolizer gives them for
# its mapping's binary (function name always; file and line where it has them).
agree() {
	"$PSYM" show --json "$1" >agree.json || return 1
	python3 - "$T" <<'PY'
import json, subprocess, sys
d = json.load(open("agree.json"))
fn = {f["id"]: f for f in d["functions"]}
maps = {m["id"]: m for m in d["mappings"]}
by_bin = {}
for loc in d["locations"]:
    m = maps[loc["mapping_id"]]
    by_bin.setdefault(m["filename"], []).append((loc, loc["address"] - m["memory_start"] + m["file_offset"]))
good = bad = 0
for path, locs in sorted(by_bin.items()):
    q = "".join("0x%x\n" % a for _, a in locs)
    out = subprocess.run(["llvm-symbolizer", "--inlines", "--no-demangle", "--output-style=JSON",
                          "-e", path], input=q, capture_output=True, text=True).stdout
    for (loc, a), line in zip(locs, out.splitlines()):
        want = [(f["FunctionName"], f["FileName"], f["Line"]) for f in json.loads(line)["Symbol"]]
        got = [(fn[x["function_id"]]["system_name"], fn[x["function_id"]]["filename"], x["line"])
               for x in loc.get("lines", [])]
        if not (want and want[0][1]):  # symbol table only: the name
            want, got = [w[0] for w in want[:1]], [g[0] for g in got]
        if got == want:
            good += 1
        else:
            bad += 1
            if bad <= 5:
                print("%s 0x%x: psym %s, llvm-symbolizer %s" % (path.split("/")[-1], a, got, want))
print(good, "of", good + bad, "locations agree with llvm-symbolizer")
sys.exit(1 if bad or good != len(d["locations"]) else 0)
PY
}

"$PSYM" symbolize --offline --limit open-objects=2 p.pb -o one.pb 2>one.log
tail -1 one.log
check "every location as llvm-symbolizer names it, 16 binaries, 2 open at once" agree one.pb
"$PSYM" symbolize --offline p.pb -o all.pb 2>/dev/null
check "and with all of them open" agree all.pb
cp p.pb q.pb
"$PSYM" symbolize -q -j 2 --offline --limit open-objects=2 p.pb q.pb -o out 2>batch.log
check "a batch of two on one registry, 2 open at once: first" agree out/p.pb
check "a batch of two on one registry, 2 open at once: second" agree out/q.pb
finish
