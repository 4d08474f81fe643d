#!/bin/sh
# Frames that live in no file: JIT code through a real Node.js perf map
# (later lines win), kernel addresses through this machine's kallsyms
# (module symbols too), the vDSO through a dumped image; hostile perf maps
# and kallsyms copies stay bounded. Oracles: Python readings of the same
# files and readelf on the vDSO image.
. "$top_srcdir/tests/lib.sh"
need python3
need protoc
MK=$top_srcdir/tests/mkprofile.py

# sym_names PROFILE: "address name" per location (first line's function).
names() {
	"$PSYM" show --json "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
f = {x["id"]: x["name"] for x in d["functions"]}
for l in d["locations"]:
    print("%x %s" % (l["address"], f[l["lines"][0]["function_id"]] if l["lines"] else "-"))'
}
: >maps.empty

# jit_agree ENTS GOT: every "address name" of GOT is the name of the last
# entry ("START SIZE INDEX NAME", hex) covering it, or "-" when none does.
jit_agree() {
	python3 - "$1" "$2" <<'PY'
import sys
ents = []
for l in open(sys.argv[1]):
    a, n, i, name = l.rstrip("\n").split(" ", 3)
    ents.append((int(a, 16), int(n, 16), int(i), name))
bad = n = 0
for line in open(sys.argv[2]):
    a, name = line.split(" ", 1)
    a = int(a, 16); name = name.rstrip("\n")
    cover = [e for e in ents if e[0] <= a < e[0] + e[1]]
    want = max(cover, key=lambda e: e[2])[3] if cover else "-"
    n += 1
    if want != name:
        bad += 1
        if bad < 5: print(hex(a), "got", name, "want", want)
print(n, "addresses,", bad, "wrong")
sys.exit(1 if bad or n < 20 else 0)
PY
}

# ---- JIT: a real Node.js perf map -----------------------------------------
if command -v node >/dev/null; then
	cat >hot.js <<'EOF2'
function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i); return s; }
function other(n) { return hotLoop(n) + 1; }
let t = 0; for (let k = 0; k < 200; k++) t += other(1e5);
console.log(t > 0 ? "done" : "x");
EOF2
	node --perf-basic-prof hot.js >/dev/null
	map=$(ls /tmp/perf-*.map 2>/dev/null | xargs ls -t 2>/dev/null | head -1)
	[ -n "$map" ] && cp "$map" node.map && rm -f "$map"
	if [ -s node.map ]; then
		# Re-emitted code: later lines win. Append new names over a few entries.
		cp node.map over.map
		awk 'NR % 50 == 0 {printf "%s %s REEMITTED_%d\n", $1, $2, NR}' node.map >>over.map
		python3 - over.map >stacks.jit <<'PY'
import sys
ents = []
for line in open(sys.argv[1]):
    w = line.rstrip("\n").split(" ", 2)
    if len(w) == 3:
        ents.append((int(w[0], 16), int(w[1], 16)))
lo = min(s for s, n in ents); hi = max(s + n for s, n in ents)
print("mapping %x %x 0" % (lo & ~0xfff, (hi + 0xfff) & ~0xfff))
for s, n in ents[::7]:
    for a in (s, s + n // 2, s + n - 1, s + n):
        print("%x" % a)
PY
		python3 "$MK" maps.empty stacks.jit >jit.txtpb && encode_txtpb jit.txtpb jit.pb
		"$PSYM" symbolize --perf-map over.map jit.pb -o jit.sym.pb.gz 2>jit.log
		names jit.sym.pb.gz >jit.got
		# "START SIZE INDEX NAME" per entry, as jit_agree reads them.
		awk 'NF >= 3 && $2 != "0" {n = $3; for (i = 4; i <= NF; i++) n = n " " $i; print $1, $2, NR, n}' \
			over.map >over.ents
		check "JIT names equal the map's, later lines winning" jit_agree over.ents jit.got
		check "re-emitted entries resolve to the later name" grep -q REEMITTED jit.got
	else
		echo "note: node wrote no perf map here: JIT checks skipped"
	fi
	# A real jitdump: V8's --perf-prof writes jit-PID.dump in the current
	# directory. Read independently here (JIT_CODE_LOAD records, later
	# records win) and compared address by address; found by pid too.
	mkdir -p jd && (cd jd && node --perf-prof ../hot.js >/dev/null 2>&1)
	dump=$(ls jd/jit-*.dump 2>/dev/null | head -1)
	if [ -n "$dump" ]; then
		jpid=$(basename "$dump" .dump | sed 's/^jit-//')
		python3 - "$dump" >stacks.jd <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
assert struct.unpack_from("<I", b, 0)[0] == 0x4A695444
off = struct.unpack_from("<I", b, 8)[0]
ents = []
while off + 16 <= len(b):
    rid, size = struct.unpack_from("<II", b, off)
    if size < 16 or off + size > len(b): break
    if rid == 0:
        pid, tid, vma, addr, csize, idx = struct.unpack_from("<IIQQQQ", b, off + 16)
        name = b[off + 56:b.index(b"\0", off + 56)].decode("utf-8", "replace")
        ents.append((addr, csize, len(ents), name))
    off += size
with open("jd.ents", "w") as f:
    for e in ents: f.write("%x %x %d %s\n" % e)
lo = min(e[0] for e in ents); hi = max(e[0] + e[1] for e in ents)
print("mapping %x %x 0" % (lo & ~0xfff, (hi + 0xfff) & ~0xfff))
for e in ents:
    if e[1] and (e[2] % 5 == 0 or "hotLoop" in e[3]):
        for a in (e[0], e[0] + e[1] // 2, e[0] + e[1] - 1):
            print("%x" % a)
PY
		python3 "$MK" maps.empty stacks.jd >jd.txtpb && encode_txtpb jd.txtpb jd.pb
		"$PSYM" symbolize --perf-map "$dump" jd.pb -o jd.sym.pb 2>jd.log
		names jd.sym.pb >jd.got
		check "real jitdump (node --perf-prof, $(wc -l <jd.ents) code loads): names as read independently" \
			jit_agree jd.ents jd.got
		check "JS function names present" grep -q hotLoop jd.got
		"$PSYM" symbolize --pid "$jpid" --perf-map-dir jd jd.pb -o jd2.sym.pb 2>jd2.log
		names jd2.sym.pb >jd2.got
		check "jit-PID.dump found by pid in --perf-map-dir" cmp -s jd.got jd2.got
	else
		echo "note: node wrote no jitdump here: jitdump checks skipped"
	fi
else
	echo "note: node not installed: JIT checks skipped"
fi

# ---- kernel: this machine's kallsyms ----------------------------------------
if [ "$(id -u)" = 0 ] && awk '$1 != "0000000000000000" {f=1} END {exit !f}' /proc/kallsyms; then
	cp /proc/kallsyms ksyms
	python3 - ksyms >stacks.k <<'PY'
import random, sys
syms = []
for line in open(sys.argv[1]):
    w = line.split()
    if len(w) >= 3 and w[1] in "tTwW":
        syms.append((int(w[0], 16), w[2], w[3] if len(w) > 3 else ""))
syms.sort()
addrs = {}
for i in range(len(syms) - 1):
    addrs.setdefault(syms[i][0], []).append(i)
r = random.Random(7)
core = [i for i in range(len(syms) - 1) if not syms[i][2] and len(addrs[syms[i][0]]) == 1
        and syms[i + 1][0] > syms[i][0] + 4]
mods = [i for i in range(len(syms) - 1) if syms[i][2] and len(addrs[syms[i][0]]) == 1
        and syms[i + 1][0] > syms[i][0] + 4]
pick = r.sample(core, min(200, len(core))) + r.sample(mods, min(50, len(mods)))
lo = min(syms[i][0] for i in pick); hi = max(syms[i + 1][0] for i in pick)
print("mapping %x %x 0 [kernel.kallsyms]_text" % (lo, hi + 1))
for i in pick:
    print("%x" % (syms[i][0] + (syms[i + 1][0] - syms[i][0]) // 2))
open("kpick", "w").write("\n".join("%x %s %s" % (syms[i][0] + (syms[i + 1][0] - syms[i][0]) // 2, syms[i][1], syms[i][2]) for i in pick))
PY
	python3 "$MK" maps.empty stacks.k >k.txtpb && encode_txtpb k.txtpb k.pb
	"$PSYM" symbolize --kallsyms ksyms k.pb -o k.sym.pb.gz 2>k.log
	names k.sym.pb.gz >k.got
	check "kernel names equal kallsyms ($(wc -l <kpick) addresses)" python3 -c "
want = {l.split()[0]: l.split()[1] for l in open('kpick') if l.strip()}
got = {l.split()[0]: l.split()[1] for l in open('k.got')}
bad = [a for a in want if got.get(a) != want[a]]
print(len(bad), 'wrong', bad[:5])
assert not bad"
	if grep -q '\[' kpick; then
		pass "module symbols included ($(grep -c '\[' kpick))"
	else
		echo "note: no modules loaded: module check skipped"
	fi
	# The side directory next to a profile is used without options.
	mkdir -p side.pb.d && cp ksyms side.pb.d/kallsyms && cp k.pb side.pb
	"$PSYM" symbolize side.pb -o side.sym.pb.gz 2>side.log
	check "collector side directory picked up automatically" grep -q "(kernel)$" side.log
	# A copy taken without root has only zeros.
	awk '{$1 = "0000000000000000"; print}' ksyms >kzero
	"$PSYM" symbolize --kallsyms kzero k.pb -o kz.pb.gz 2>kz.log
	check "zeroed kallsyms copy: clear reason" grep -q "has no addresses (taken without root?)" kz.log
	# Module symbols as /proc/kallsyms lists them ("[module]" column), for
	# machines without loaded modules: a copy with two modules appended.
	cp ksyms kmods
	printf 'ffffffffc0a01000 t mod_probe\t[fake_mod]\nffffffffc0a01100 T mod_exit\t[fake_mod]\nffffffffc0a02000 t other_fn\t[other_mod]\n' >>kmods
	printf 'mapping ffffffffc0000000 ffffffffc1000000 0 [kernel.kallsyms]\nffffffffc0a01010\nffffffffc0a01180\nffffffffc0a02004\n' >stacks.km
	python3 "$MK" maps.empty stacks.km >km.txtpb && encode_txtpb km.txtpb km.pb
	"$PSYM" symbolize --kallsyms kmods km.pb -o km.sym.pb 2>km.log
	names km.sym.pb >km.got
	check "module symbols from the [module] column" sh -c \
		'grep -q "^ffffffffc0a01010 mod_probe$" km.got && grep -q "^ffffffffc0a01180 mod_exit$" km.got && grep -q "^ffffffffc0a02004 other_fn$" km.got'
	"$PSYM" show km.sym.pb | grep -q "fake_mod" && pass "module name kept as the frame's file ([fake_mod])" ||
		fail "module name not kept: $("$PSYM" show km.sym.pb | grep mod_probe)"
else
	echo "note: not root or kallsyms hidden: kernel checks skipped"
fi

# ---- kernel frames from a vmlinux with DWARF, relocated for KASLR ----------------
# A small kernel-like image (linked at 0xffffffff81000000 with _text, built
# here with inlines); the profile's addresses carry a random KASLR slide.
# Every instruction is compared with llvm-symbolizer on the image itself.
cat >k.c <<'EOF2'
static int counter;
static inline __attribute__((always_inline)) int deep_helper(int x) { counter += x; return counter * 3; }
static inline __attribute__((always_inline)) int mid_helper(int x) { return deep_helper(x + 1) + 7; }
__attribute__((noinline)) int sched_tick(int x) { return mid_helper(x) ^ 5; }
__attribute__((noinline)) int do_syscall_64(int x) { int r = 0; for (int i = 0; i < x; i++) r += sched_tick(i); return r; }
void _start(void) { do_syscall_64(3); for (;;) ; }
EOF2
printf 'SECTIONS {\n . = 0xffffffff81000000;\n .text : { _text = .; *(.text*) }\n .data : { *(.data*) *(.bss*) }\n}\n' >k.lds
if gcc -O2 -g -mcmodel=kernel -fno-pie -no-pie -nostdlib -static -ffreestanding \
	-Wl,--build-id -Wl,-T,k.lds -o vmlinux k.c 2>/dev/null; then
	kbid=$(readelf -n vmlinux | sed -n 's/.*Build ID: //p')
	mkdir -p kdbg/.build-id/$(echo "$kbid" | cut -c1-2)
	cp vmlinux "kdbg/.build-id/$(echo "$kbid" | cut -c1-2)/$(echo "$kbid" | cut -c3-).debug"
	text=$(nm vmlinux | awk '$3 == "_text" {print $1}')
	# Every instruction start of the image, with a random page-aligned slide.
	objdump -d vmlinux | awk -F: '/^ *ffffffff8[0-9a-f]*:/ {gsub(/ /, "", $1); print $1}' >kinsns
	python3 - "$text" "$kbid" <<'PY'
import random, sys
text = int(sys.argv[1], 16); bid = sys.argv[2]
slide = random.Random().randrange(1, 512) << 21
ins = [int(l, 16) for l in open("kinsns") if l.strip()]
with open("kslide", "w") as f: f.write("%x\n" % slide)
def prof(name, start, offset, build_id):
    with open(name, "w") as f:
        f.write("sample_type { type: 1 unit: 2 }\n")
        for i, a in enumerate(ins):
            f.write("sample { location_id: [%d] value: 1 }\n" % (i + 1))
        f.write("mapping { id: 1 memory_start: %d memory_limit: %d file_offset: %d filename: 3 build_id: 4 }\n"
                % (start, text + slide + 0x100000, offset))
        for i, a in enumerate(ins):
            f.write("location { id: %d mapping_id: 1 address: %d }\n" % (i + 1, a + slide))
        for s in ["", "samples", "count", "[kernel.kallsyms]", build_id]:
            f.write('string_table: "%s"\n' % s)
prof("kv.txtpb", text + slide, 0, bid)             # psym-collect: start = runtime _text
prof("kv-nostart.txtpb", 0xffff800000000000, 0, bid)  # _text unknown to the collector
prof("kv-wrongbid.txtpb", text + slide, 0, "00" * 20)
with open("kv.kallsyms", "w") as f:
    f.write("%016x T _text\n%016x T do_syscall_64\n" % (text + slide, text + slide + 0x20))
PY
	for v in kv kv-nostart kv-wrongbid; do encode_txtpb $v.txtpb $v.pb; done
	slide=$(cat kslide)
	"$PSYM" symbolize --debug-dir kdbg kv.pb -o kv.sym.pb 2>kv.log
	check "vmlinux by build ID, KASLR slide 0x$slide: every instruction as llvm-symbolizer (inlines, lines)" llvm_agree kv.sym.pb vmlinux "$slide"
	"$PSYM" symbolize --vmlinux vmlinux kv.pb -o kv2.sym.pb 2>kv2.log
	check "--vmlinux FILE: the same" llvm_agree kv2.sym.pb vmlinux "$slide"
	"$PSYM" symbolize --vmlinux vmlinux --kallsyms kv.kallsyms kv-nostart.pb -o kv3.sym.pb 2>kv3.log
	check "runtime _text from the kallsyms copy when the mapping lacks it" llvm_agree kv3.sym.pb vmlinux "$slide"
	"$PSYM" symbolize --vmlinux vmlinux kv-nostart.pb -o kv4.sym.pb 2>kv4.log
	check "runtime _text unknown: said, not guessed" grep -q "runtime _text unknown (KASLR)" kv4.log
	"$PSYM" symbolize --vmlinux vmlinux kv-wrongbid.pb -o kv5.sym.pb 2>kv5.log
	check "vmlinux of another kernel (build ID) refused with the reason" \
		grep -q "is not the profiled kernel's" kv5.log
else
	echo "note: cannot link a kernel-like image here: vmlinux checks skipped"
fi

# ---- vDSO: the running vDSO dumped and resolved --------------------------------
"$top_builddir/tests/dump-vdso" vdso.so >vdso.range
read -r vbase vlimit <vdso.range
off=$(readelf -Ws vdso.so | awk '{sub(/@.*/, "", $8)} $8 == "__vdso_clock_gettime" {print $2; exit}')
if [ -n "$off" ]; then
	names_at=$(readelf -Ws vdso.so | awk -v o="$off" '$2 == o && $4 == "FUNC" {sub(/@.*/, "", $8); print $8}' | sort -u | tr '\n' ' ')
	printf 'mapping %s %s 0 [vdso]\n%x\n' "$vbase" "$vlimit" $((0x$vbase + 0x$off + 4)) >stacks.v
	python3 "$MK" maps.empty stacks.v >v.txtpb && encode_txtpb v.txtpb v.pb
	"$PSYM" symbolize --vdso vdso.so v.pb -o v.sym.pb.gz 2>v.log
	got=$(names v.sym.pb.gz | awk '{print $2}')
	case " $names_at" in
	*" $got "*) pass "vDSO address resolved to $got (readelf: $names_at)" ;;
	*) fail "vDSO: got '$got', readelf says one of: $names_at"; cat v.log ;;
	esac
	# The collector's compressed, content-addressed copy in the side directory.
	if command -v zstd >/dev/null; then
		vz=vdso-$(sha256sum <vdso.so | cut -c1-64).so.zst
		mkdir -p vz.pb.d && zstd -q -c vdso.so >"vz.pb.d/$vz" && cp v.pb vz.pb
		"$PSYM" symbolize vz.pb -o vz.sym.pb.gz 2>vz.log
		got=$(names vz.sym.pb.gz | awk '{print $2}')
		case " $names_at" in
		*" $got "*) pass "vDSO from the side directory's $vz: $got" ;;
		*) fail "vDSO from $vz: got '$got', readelf says one of: $names_at"; cat vz.log ;;
		esac
		# Hostile copies: other content than the name says, truncated, a bomb.
		printf 'x' | cat vdso.so - | zstd -q -c >"vz.pb.d/$vz"
		"$PSYM" symbolize --explain vz.pb -o vz2.sym.pb.gz >vz2.log 2>&1
		check "vDSO copy whose content is not its name's: refused ($(grep -o -m1 'not this image, refused' vz2.log))" \
			grep -q "not this image, refused" vz2.log
		head -c 300 vdso.so | zstd -q -c | head -c 100 >"vz.pb.d/$vz"
		rc=0; "$PSYM" symbolize --explain vz.pb -o vz3.sym.pb.gz >vz3.log 2>&1 || rc=$?
		check "truncated vDSO copy: no crash (exit $rc), said" sh -c '[ "$1" -lt 128 ] && grep -q "vz.pb.d/vdso-.*zstd\|vz.pb.d/vdso-.*truncated" vz3.log' sh "$rc"
		head -c 50000000 /dev/zero | zstd -q -19 -c >"vz.pb.d/$vz"
		rc=0; "$PSYM" symbolize --explain vz.pb -o vz4.sym.pb.gz >vz4.log 2>&1 || rc=$?
		check "vDSO bomb: refused at the cap (exit $rc)" sh -c '[ "$1" -lt 128 ] && grep -q "vz.pb.d/vdso-.*\(cap\|limit\|larger\)" vz4.log' sh "$rc"
	fi
else
	echo "note: no __vdso_clock_gettime in this vDSO: vDSO check skipped"
fi

# ---- hostile perf maps and kallsyms: bounded, never a crash ----------------------
cp "$top_srcdir/testdata/bad/perfmap-garbage.map" garbage.map
printf 'mapping 1000 100000 0\n100c\n1004\n1110\n2004\n' >stacks.h
python3 "$MK" maps.empty stacks.h >h.txtpb && encode_txtpb h.txtpb h.pb
rc=0; "$PSYM" symbolize --perf-map garbage.map h.pb -o h.sym.pb.gz 2>h.log || rc=$?
check "garbage perf map: finishes (exit $rc)" [ "$rc" = 0 ]
names h.sym.pb.gz >h.got
check "garbage perf map: valid line used" grep -q "^100c good_one$" h.got
check "garbage perf map: overlapping later line wins" grep -q "^1004 overlapping_later$" h.got
check "garbage perf map: 0x-prefixed line used" grep -q "^1110 hex_prefixed$" h.got
check "garbage perf map: malformed line ignored" grep -q "^2004 -$" h.got
# The collector's compressed snapshot (perf-PID.map.zst): read the same way.
if command -v zstd >/dev/null; then
	zstd -q -c garbage.map >garbage.map.zst
	"$PSYM" symbolize --perf-map garbage.map.zst h.pb -o hz.sym.pb.gz 2>hz.log
	names hz.sym.pb.gz >hz.got
	check "compressed perf map: the same lines used" sh -c \
		'grep -q "^100c good_one$" hz.got && grep -q "^1004 overlapping_later$" hz.got && grep -q "^2004 -$" hz.got'
	head -c 40 garbage.map.zst >trunc.map.zst
	rc=0; "$PSYM" symbolize --perf-map trunc.map.zst h.pb -o hz2.sym.pb.gz 2>hz2.log || rc=$?
	check "truncated compressed perf map: no crash (exit $rc), said" sh -c \
		'[ "$1" -lt 128 ] && grep -q "trunc.map.zst.*\(truncated\|zstd\)" hz2.log' sh "$rc"
	head -c 300000000 /dev/zero | zstd -q -19 -c >bomb.map.zst
	rc=0; "$PSYM" symbolize --perf-map bomb.map.zst h.pb -o hz3.sym.pb.gz 2>hz3.log || rc=$?
	check "compressed perf map bomb: refused at the cap (exit $rc)" sh -c \
		'[ "$1" -lt 128 ] && grep -q "bomb.map.zst.*limit" hz3.log' sh "$rc"
fi
printf '1000 20 sparse_entry\n' >sparse.map
truncate -s 3G sparse.map
printf '\n2000 20 after_sparse\n' >>sparse.map
# Over the default perfmap-bytes cap (1 GiB): refused unread, the cap named.
"$PSYM" symbolize --perf-map sparse.map h.pb -o s.pb.gz 2>s.log
check "3 GB sparse perf map: refused at the default cap" \
	grep -q "'sparse.map': [0-9]* bytes, larger than .*(--limit perfmap-bytes=N)" s.log
# With the cap raised it is streamed in bounded memory.
if command -v /usr/bin/time >/dev/null; then
	/usr/bin/time -f "%M" -o rss.txt "$PSYM" symbolize --limit perfmap-bytes=4G --perf-map sparse.map h.pb -o s.pb.gz 2>s.log
	rss=$(tail -1 rss.txt)
	check "3 GB sparse perf map: bounded memory (${rss} KB max RSS)" [ "$rss" -lt 200000 ]
else
	"$PSYM" symbolize --limit perfmap-bytes=4G --perf-map sparse.map h.pb -o s.pb.gz 2>s.log
fi
names s.pb.gz >s.got
check "3 GB sparse perf map: the line before the hole is found" grep -q sparse_entry s.got
check "3 GB sparse perf map: the line after the hole is found" grep -q after_sparse s.got
for f in "$top_srcdir"/testdata/bad/kallsyms-*; do
	rc=0; "$PSYM" symbolize --kallsyms "$f" k.pb -o kb.pb.gz 2>kb.log || rc=$?
	[ -f k.pb ] || break
	check "hostile kallsyms $(basename "$f"): no crash (exit $rc)" [ "$rc" = 0 ]
done
finish
