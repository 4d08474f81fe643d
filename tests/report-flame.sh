#!/bin/sh
# The flame graph's drawing: each kind of frame (user, inlined, JIT,
# kernel, unknown) in a colour family of its own that the legend shows,
# neighbouring functions in distinguishable colours (each name its own
# shade of its kind's family, as flamegraph.pl does), inline frames marked, a diff (--diff-base) coloured by the sign of
# each frame's change (checked against folded --diff-base), a width that
# follows the window (percentages; rendered by headless Chromium at two
# window widths when it is installed), and every frame's place and width as
# an oracle computes them from go tool pprof -raw.
. "$top_srcdir/tests/lib.sh"
need protoc
need python3

for seed in 1 2; do
	python3 "$top_srcdir/tests/genprofile.py" $seed >g$seed.txtpb
	encode_txtpb g$seed.txtpb g$seed.pb
	python3 "$top_srcdir/tests/gensystem.py" $seed >sys$seed.txtpb
	encode_txtpb sys$seed.txtpb sys$seed.pb
done

# The colour families as the help and the legend name them: hue ranges
# (degrees) and a grey for code without symbols. The oracle of both
# colour checks.
cat >families.py <<'PY'
import colorsys
HUES = {"user": (0, 30), "inlined": (42, 65), "JIT": (90, 140), "kernel": (190, 225)}
def family_of(fill):
    """The family of colour "#rrggbb", or None when in none."""
    r, g, b = (int(fill[i:i + 2], 16) / 255 for i in (1, 3, 5))
    h, l, s = colorsys.rgb_to_hls(r, g, b)
    if s < 0.06:
        return "unknown"
    for name, (lo, hi) in HUES.items():
        if s >= 0.4 and lo <= h * 360 <= hi:
            return name
    return None
PY

"$PSYM" flame sys1.pb -o s.svg
check "flame: neighbours differ in colour, kinds keep their palettes, inline frames marked" \
	python3 - s.svg <<'PY'
import re, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert root.get("width") == "100%" and not root.get("height", "").endswith("%")
gs = [g for g in root.iter(ns + "g") if g.get("class") == "f"]
frames = []
for g in gs:
    r = g.find(ns + "rect")
    assert r.get("x").endswith("%") and r.get("width").endswith("%"), r.attrib
    frames.append((int(g.get("data-d")), float(g.get("data-x")), g.find(ns + "text").get("data-n"),
                   r.get("fill"), g.get("data-k"), g.get("data-i"), g.find(ns + "title").text))
pairs = same = 0
bydepth = {}
for f in frames:
    bydepth.setdefault(f[0], []).append(f)
for d, fs in bydepth.items():
    fs.sort(key=lambda f: f[1])
    for a, b in zip(fs, fs[1:]):
        if a[2] != b[2]:
            pairs += 1
            same += a[3] == b[3]
assert pairs > 100 and same <= pairs // 20, (pairs, same)
names = {}
for f in frames:  # one colour per name (and inline mark: inlined code has its family)
    names.setdefault((f[2], f[5]), set()).add(f[3])
assert all(len(c) == 1 for c in names.values())
sys.path.insert(0, ".")
from families import family_of
for f in frames:  # gensystem.py's kernel functions, unsymbolized code, the rest
    want = ("kernel",) if re.match(r"(do_|sys_|__x64_|vfs_)k[0-9]+$", f[2]) else \
        ("unknown",) if f[2].startswith("[") else ("user", "inlined")
    assert family_of(f[3]) in want, f
inl = [f for f in frames if f[5]]
assert inl and all("(inline)" in f[6] for f in inl)
assert not any("(inline)" in f[6] for f in frames if not f[5])
print(len(frames), "frames,", pairs, "neighbour pairs,", same, "same colour,", len(inl), "inline")
PY

# Every kind of frame in its own colour family, named by the legend: a
# profile whose function names say their kind (genkinds.py): the kernel and
# a module, JIT code (anonymous memory, a perf map's, node's JS: names),
# inlined user code, unsymbolized code, and the rest user code.
python3 "$top_srcdir/tests/genkinds.py" 1 >k.txtpb
encode_txtpb k.txtpb k.pb
"$PSYM" flame k.pb -o k.svg
check "flame: each kind of frame in its kind's colour family, the legend the same families" \
	python3 - k.svg <<'PY'
import re, sys, xml.etree.ElementTree as ET
sys.path.insert(0, ".")
from families import family_of
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
def kind(name):
    if name.startswith("["):
        return "unknown"
    if name.startswith("k_"):
        return "kernel"
    if name.startswith("jit_") or name.startswith("JS:"):
        return "JIT"
    if name.startswith("inl_"):
        return "inlined"
    assert name.startswith("user_"), name
    return "user"
seen, shades = {}, {}
for g in root.iter(ns + "g"):
    if g.get("class") != "f":
        continue
    name = g.find(ns + "text").get("data-n")
    fill = g.find(ns + "rect").get("fill")
    want = kind(name)
    assert family_of(fill) == want, (name, fill, family_of(fill), want)
    if name.startswith("k_inl_"):  # inlined kernel code: the kernel's colour, outlined
        assert g.get("data-i") and "(inline)" in g.find(ns + "title").text, name
    seen[want] = seen.get(want, 0) + 1
    shades.setdefault(want, set()).add(fill)
assert set(seen) == {"user", "inlined", "JIT", "kernel", "unknown"}, seen
# Names get shades of their family (not one colour for all).
assert all(len(shades[k]) >= 3 for k in ("user", "inlined", "JIT", "kernel")), shades
legend = [g for g in root.iter(ns + "g") if g.get("class") == "key"]
got = [(g.find(ns + "text").text, family_of(g.find(ns + "rect").get("fill"))) for g in legend]
assert sorted(got) == sorted((k, k) for k in seen), got
print(seen, "frames; legend:", [(g.find(ns + "text").text, g.find(ns + "rect").get("fill")) for g in legend])
PY

# psym flame --help lists every option psym flame takes: each long option
# of the report commands' table (cli/cmd_report.c, cli/cli.h's limits) is
# tried on flame; each one accepted must be in the help, each one refused
# must be refused as a usage error (exit 2) naming it.
"$PSYM" flame --help >flame.help
check "flame --help lists --lines" grep -q -- "--lines" flame.help
sed -n '/^static const struct option report_opts\[\]/,/^};/p' "$top_srcdir/cli/cmd_report.c" >opts.c
sed -n '/^#define LIMIT_OPTIONS/,/^$/p' "$top_srcdir/cli/cli.h" >>opts.c
grep -o '"[a-z-]*", [a-z_]*_argument' opts.c | tr -d '",' | sort -u >opts
check "options of the report commands found in the sources ($(wc -l <opts))" \
	[ "$(wc -l <opts)" -ge 20 ]
while read -r o kind; do
	case $o in help | output) continue ;; esac
	case $o in
	sample-index) a=cpu ;; diff-base | base) a=k.pb ;; nodefraction | edgefraction) a=0.1 ;;
	max-*) a=1G ;; nodes | nodecount | pids) a=3 ;; source-path | trim-path) a=. ;;
	*) a=user ;;
	esac
	if [ "$kind" = no_argument ] || [ "$kind" = optional_argument ]; then
		set -- "--$o"
	else
		set -- "--$o" "$a"
	fi
	"$PSYM" flame "$@" k.pb -o opt.svg >opt.out 2>opt.err && rc=0 || rc=$?
	if [ $rc = 0 ]; then
		check "flame $*: taken, and in --help" grep -q -- "--$o\b" flame.help
	else
		check "flame $*: refused as a usage error naming it (exit $rc)" \
			sh -c '[ '$rc' = 2 ] && grep -q -- "--'"$o"'" opt.err'
	fi
done <opts

# A diff: red where a frame grew, blue where it shrank; each root's change
# as folded --diff-base sums it.
"$PSYM" flame --diff-base g1.pb g2.pb -o d.svg
"$PSYM" folded --diff-base g1.pb g2.pb >d.folded
check "flame --diff-base: coloured by the sign of each frame's change" python3 - d.svg d.folded <<'PY'
import re, sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "hrs": 3600e9}
change = {}
for l in open(sys.argv[2]):
    st, v = l.rstrip("\n").rsplit(" ", 1)
    root = st.split(";")[0]
    change[root] = change.get(root, 0) + int(v)
up = down = 0
for g in ET.parse(sys.argv[1]).getroot().iter(ns + "g"):
    if g.get("class") != "f":
        continue
    t = g.find(ns + "title").text
    m = re.search(r"change (\+?-?[0-9.]+)([a-z]*)\)$", t)
    assert m, t
    v = float(m.group(1)) * UNITS.get(m.group(2), 1)
    r, gg, b = (int(g.find(ns + "rect").get("fill")[i:i + 2], 16) for i in (1, 3, 5))
    if v > 0:
        assert r == 255 and b < 255, t; up += 1
    elif v < 0:
        assert b == 255 and r < 255, t; down += 1
    if g.get("data-d") == "0":
        name = g.find(ns + "text").get("data-n")
        assert abs(v - change.get(name, 0)) <= 0.006 * abs(change.get(name, 0)) + 1e4, (name, v, change.get(name))
assert up and down, (up, down)
print(up, "grew,", down, "shrank")
PY
check "flame --diff-base: the legend says grew and shrank" grep -q ">grew<.*>shrank<" d.svg

# Width follows the window: rendered at 1000 and 1800 pixels, frames reach
# both edges both times.
if command -v chromium >/dev/null; then
	for w in 1000 1800; do
		timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$T/chrome" --screenshot="$T/s$w.png" --window-size=$w,600 \
			"file://$T/s.svg" >chrome.log 2>&1
		check "flame at a $w-pixel window: frames span the width" \
			python3 - s$w.png $w "$top_srcdir/tests" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
from pngrows import rows, size
w, h = size(sys.argv[1])
assert w == int(sys.argv[2]), w
# the first row of frames (y 52..68 in the drawing): frame pixels (not the
# #fdf6e3 background) near both edges of the window
row = rows(sys.argv[1], 120)[60]
def frame(x):
    return sum(abs(row[x][i] - c) for i, c in enumerate((0xfd, 0xf6, 0xe3))) > 40
left = sum(frame(x) for x in range(0, w // 10))
right = sum(frame(x) for x in range(w - w // 10, w))
print(w, "px: frame pixels left", left, "right", right)
assert left > w // 40 and right > w // 40
PY
	done
else
	echo "note: chromium not installed: render check skipped"
fi
# The layout against an independent oracle: every frame drawn (depth, name,
# left edge and width as fractions of the total) computed here from the
# samples and locations Go's own reader prints (go tool pprof -raw): stacks
# root first, a location's inline lines outermost first, a binary's
# nameless code as [binary], children by name with the stacks that end at
# a frame before its callees, frames under 0.1 px of the default drawing
# left out.
if command -v go >/dev/null; then
	cat >oracle.py <<'PY'
import re, sys, os
import xml.etree.ElementTree as ET
raw, svg = open(sys.argv[1]).read().splitlines(), sys.argv[2]
sec, types, samples, locs, maps, cur = None, [], [], {}, {}, None
for l in raw:
    if l in ("Samples:", "Locations", "Mappings"):
        sec = l; continue
    if sec == "Samples:":
        m = re.match(r"^\s+(-?\d+(?:\s+-?\d+)*):((?:\s+\d+)*)\s*$", l)
        if m:
            samples.append((int(m.group(1).split()[-1]), [int(x) for x in m.group(2).split()]))
    elif sec == "Locations":
        m = re.match(r"^\s+(\d+): 0x[0-9a-f]+ M=(\d+)\s*(\S*)", l)
        if m:
            cur = int(m.group(1)); locs[cur] = (int(m.group(2)), [m.group(3)] if m.group(3) else [])
        elif l.strip():
            locs[cur][1].append(l.split()[0])
    elif sec == "Mappings":
        m = re.match(r"^(\d+): \S+ (\S+)", l)
        if m:
            maps[int(m.group(1))] = m.group(2)
def names(lid):
    m, lines = locs[lid]
    if lines:
        return list(reversed(lines))  # outermost first
    return ["[%s]" % os.path.basename(maps[m])] if m in maps else ["<unknown>"]
root = {}
total = 0
for v, ids in samples:
    if v == 0:
        continue
    total += abs(v)
    node = root
    for lid in reversed(ids):
        for n in names(lid):
            e = node.setdefault(n, [0, {}])
            e[0] += v
            node = e[1]
want = []
def walk(node, d, x):
    for n in sorted(node, key=lambda s: s.encode()):
        v, kids = node[n]
        want.append((d, x / total, v / total, n))
        # The stacks that end here sort before the longer ones: the
        # frame's own value is at its left edge, its callees after it.
        walk(kids, d + 1, x + v - sum(k[0] for k in kids.values()))
        x += v
walk(root, 0, 0)
ns = "{http://www.w3.org/2000/svg}"
got = []
for g in ET.parse(svg).getroot().iter(ns + "g"):
    if g.get("class") != "f":
        continue
    got.append((int(g.get("data-d")), float(g.get("data-x")), float(g.get("data-w")),
                g.find(ns + "text").get("data-n")))
px = 1 / 1180.0
drawn = [w for w in want if w[2] >= 0.1 * px * 1.01]
maybe = {(w[0], w[3], round(w[1], 6)) for w in want if 0.1 * px * 0.99 <= w[2] < 0.1 * px * 1.01}
gs = sorted(got, key=lambda t: (t[0], t[1], t[3]))
ws = sorted(drawn, key=lambda t: (t[0], t[1], t[3]))
gs = [g for g in gs if (g[0], g[3], round(g[1], 6)) not in maybe or any(abs(g[1]-w[1]) < 1e-8 and g[0] == w[0] and g[3] == w[3] for w in ws)]
bad = 0
if len(gs) != len(ws):
    print("frames drawn: %d, expected %d" % (len(gs), len(ws))); bad += 1
for g, w in zip(gs, ws):
    if g[0] != w[0] or g[3] != w[3] or abs(g[1] - w[1]) > 2e-9 or abs(g[2] - w[2]) > 2e-9:
        print("differs: got %s, want %s" % (g, w)); bad += 1
        if bad > 5: break
print("%d frames drawn, %d differ from the oracle's" % (len(ws), bad))
sys.exit(1 if bad else 0)
PY
	for p in g1 g2 sys1 sys2; do
		idx=
		case $p in g*) idx="--sample-index cpu" ;; esac
		go tool pprof -raw $p.pb >$p.raw 2>/dev/null
		# shellcheck disable=SC2086 # idx: words on purpose
		"$PSYM" flame $idx $p.pb -o $p.oracle.svg
		check "flame $p: every frame as computed from go tool pprof -raw" python3 oracle.py $p.raw $p.oracle.svg
	done
else
	echo "note: go not installed: the layout's oracle check skipped"
fi
finish
