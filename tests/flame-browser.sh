#!/bin/sh
# The flame graph in a real browser: headless Chromium opens the SVG that
# psym flame writes (as a file, the way a user opens it), with a test
# script added at its end that acts as a user would (clicks a frame,
# hovers, presses Ctrl-F and Escape, clicks "Search" and "Reset zoom";
# only the browser's prompt dialog is answered by the script) and writes
# what the browser then shows into the DOM, which --dump-dom prints:
#   - every frame has a tooltip; hovering shows it on the bottom line, with
#     the frame's value as psym folded sums it;
#   - every label fits inside its rectangle (the browser's own text
#     measure), shows the whole name when the name fits, else a prefix
#     and "..";
#   - a click on a frame makes it as wide as the graph, its callees wider
#     by the same factor, hides the rest; the labels are re-fitted;
#   - "Reset zoom" restores the first view exactly;
#   - a search (Ctrl-F, and the "Search" control) highlights the frames
#     that match and says "Matched: X%", X computed here from psym folded
#     with awk (a sample under several matching frames counts once);
#     "Reset search" and Escape clear it.
# Screenshots (--screenshot) of the plain view, a zoomed view and a search
# are read back: the legend's swatches in the frames' families' colours,
# the zoomed frame across the window, the search's highlight colour only
# in the search's picture. Each Chromium runs in a process group of its
# own, stopped at the end with what it started; no Chromium is left.
. "$top_srcdir/tests/lib.sh"
need protoc
need python3
need awk
need setsid
CHROME=$(command -v chromium || command -v chromium-browser) ||
	skip "chromium is not installed (apt-get install chromium)"
# Chromium's crash database and settings under $T, not in ~.
HOME=$T/home
export HOME
mkdir -p "$HOME"

python3 "$top_srcdir/tests/genkinds.py" 2 >k.txtpb
encode_txtpb k.txtpb k.pb
"$PSYM" flame k.pb -o k.svg --title "kinds"
"$PSYM" folded k.pb >k.folded

# Every process of Chromium runs started, also its crash handlers (in
# sessions of their own, found by the test's mark in their environment).
chrome_left() {
	{
		[ -n "${chrome_pg:-}" ] && pgrep -g "$chrome_pg"
		for p in $(marked); do
			case $(cat /proc/"$p"/comm 2>/dev/null) in
			chrom*) echo "$p" ;;
			esac
		done
	} 2>/dev/null | sort -u | tr '\n' ' '
}
# Stop them: TERM to the group and the crash handlers, KILL what is left.
stop_chrome() {
	local left
	[ -n "${chrome_pg:-}" ] || return 0
	kill -TERM -- -"$chrome_pg" 2>/dev/null
	for _ in $(seq 50); do
		left=$(chrome_left)
		[ -z "$left" ] && return 0
		# shellcheck disable=SC2086 # pids: words on purpose
		kill -TERM $left 2>/dev/null
		sleep 0.2
	done
	# shellcheck disable=SC2086
	kill -KILL -- -"$chrome_pg" $left 2>/dev/null
}
# chrome OUT ARGS...: headless Chromium in a new session and process
# group (its id in $chrome_pg), its standard output in OUT; stopped after.
chrome() {
	local out=$1
	shift
	rm -f pgid
	# timeout --foreground stays in the group (plain timeout makes its own).
	setsid -w sh -c 'echo $$ >pgid; exec "$@"' sh timeout --foreground 300 "$CHROME" \
		--headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-extensions --user-data-dir="$T/chrome" --window-size=1200,800 \
		--virtual-time-budget=10000 "$@" >"$out" 2>>chrome.log &
	wait $!
	chrome_pg=$(cat pgid 2>/dev/null)
	stop_chrome
}

# The frame to zoom on: a caller (depth 1) with callees, 5 to 50% wide.
python3 - k.svg >target <<'PY'
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
gs = [g for g in ET.parse(sys.argv[1]).getroot().iter(ns + "g") if g.get("class") == "f"]
fr = [(int(g.get("data-d")), float(g.get("data-x")), float(g.get("data-w"))) for g in gs]
for i, (d, x, w) in enumerate(fr):
    kids = [f for f in fr if f[0] == d + 1 and x <= f[1] < x + w]
    if d == 1 and 0.05 <= w <= 0.5 and len(kids) >= 2:
        print(i)
        break
PY
target=$(cat target)
check "a frame to zoom on ($target)" [ -n "$target" ]

# add FILE.svg OUT.svg SCRIPT: the SVG with SCRIPT run after its own
# onload (on the window's load), as a user's actions would come.
add() {
	python3 - "$1" "$2" "$3" <<'PY'
import sys
svg, out, js = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
s = open(svg).read()
i = s.rindex("</svg>")
open(out, "w").write(s[:i] + "<script type=\"text/ecmascript\"><![CDATA[\n"
                     "window.addEventListener('load', function() {\n" + js + "\n});\n"
                     "]]></script>\n" + s[i:])
PY
}

RE1='^k_'
RE2='jit_|JS:'
# The test: measure the view after each action, into <text id="result">.
cat >act.js <<EOF
var S = {}, G = Array.prototype.slice.call(document.querySelectorAll('g.f')), T = G[$target];
var svg = document.documentElement, pp = +svg.getAttribute('data-pad');
function el(id) { return document.getElementById(id); }
function measure() {
	return G.map(function(g) {
		var r = g.querySelector('rect'), t = g.querySelector('text'), b, full = -1;
		if (g.style.display === 'none')
			return null;
		b = r.getBoundingClientRect();
		if (t.textContent !== t.dataset.n) {
			var keep = t.textContent;
			t.textContent = t.dataset.n;
			full = t.getComputedTextLength();
			t.textContent = keep;
		}
		return [b.left, b.width, t.textContent, t.getComputedTextLength(), full,
			t.getBoundingClientRect().left - b.left];
	});
}
function ev(target, type) { target.dispatchEvent(new MouseEvent(type, {bubbles: true})); }
function key(k, ctrl) {
	window.dispatchEvent(new KeyboardEvent('keydown', {key: k, ctrlKey: !!ctrl, bubbles: true}));
}
function matched() {
	return [el('matched').textContent, G.filter(function(g) {
		return g.classList.contains('hl');
	}).map(function(g) { return g.querySelector('text').dataset.n; })];
}
// Each step on its own: one that throws is said, the others still run.
function step(name, f) {
	try {
		f();
	} catch (e) {
		S.errors = (S.errors || []).concat([name + ': ' + e]);
	}
}
step('measure', function() {
	S.inner = svg.getBoundingClientRect().width * (1 - 2 * pp / 100);
	S.titles = G.map(function(g) { return g.querySelector('title').textContent; });
	S.plain = measure();
});
step('hover', function() {
	ev(T, 'mouseover');
	S.tip = el('details').textContent;
	ev(T, 'mouseout');
	S.tipout = el('details').textContent;
});
step('zoom', function() {
	ev(T, 'click');
	S.zoom = measure();
});
step('reset', function() {
	ev(el('reset'), 'click');
	S.reset = measure();
});
step('search', function() {
	window.prompt = function() { return '$RE1'; };
	key('f', true);
	S.s1 = matched();
	ev(el('search'), 'click');
	S.s1clear = matched();
	window.prompt = function() { return '$RE2'; };
	ev(el('search'), 'click');
	S.s2 = matched();
	key('Escape');
	S.esc = matched();
});
var out = document.createElementNS('http://www.w3.org/2000/svg', 'text');
out.setAttribute('id', 'result');
out.textContent = JSON.stringify(S);
document.documentElement.appendChild(out);
EOF
add k.svg act.svg act.js
chrome dom.xml --dump-dom "file://$T/act.svg"
check "Chromium ran the test script" grep -q '<text id="result">' dom.xml

for re in "$RE1" "$RE2"; do
	awk -v re="$re" '{
		v = $NF; st = $0; sub(/ [^ ]*$/, "", st)
		n = split(st, f, ";"); m = 0
		for (i = 1; i <= n; i++) if (f[i] ~ re) m = 1
		t += v; if (m) s += v
	} END { printf "%.4f\n", 100 * s / t }' k.folded
done >want.matched

cat >checks.py <<'PY'
import html, json, re, sys
dom, svg, target, folded, wantm = sys.argv[1:6]
target = int(target)
S = json.loads(html.unescape(re.search(r'<text id="result">(.*?)</text>', open(dom).read(), re.S).group(1)))
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
gs = [g for g in ET.parse(svg).getroot().iter(ns + "g") if g.get("class") == "f"]
F = [(int(g.get("data-d")), float(g.get("data-x")), float(g.get("data-w")), g.find(ns + "text").get("data-n"))
     for g in gs]
inner = S["inner"]
what = sys.argv[6]
bad = []
for e in S.get("errors", []):
    print("script error:", e)

def labels_fit(view, name):
    """Every label inside its rectangle; whole when the name fits, else cut with '..'."""
    n = cut = 0
    for (d, x, w, nm), m in zip(F, view):
        if m is None:
            continue
        left, width, label, tlen, full, off = m
        if label:
            n += 1
            if off + tlen > width + 0.5:
                bad.append("%s: label %r (%.1f px at +%.1f) wider than its frame (%.1f px)"
                           % (name, label, tlen, off, width))
        if label != nm:
            cut += 1
            if label and not (label.endswith("..") and nm.startswith(label[:-2])):
                bad.append("%s: label %r is not a prefix of %r and '..'" % (name, label, nm))
            # 3 px either side of the text
            if 3 + full + 3 <= width - 0.5:
                bad.append("%s: %r (%.1f px) fits in %.1f px but is cut to %r" % (name, nm, full, width, label))
    return n, cut

need = {"tooltip": ("titles", "tip", "tipout"), "labels": ("plain",), "zoom": ("plain", "zoom"),
        "reset": ("plain", "reset"), "search": ("s1", "s1clear", "s2", "esc")}[what]
if any(k not in S for k in need):
    print("%s: the browser gave no %s" % (what, [k for k in need if k not in S]))
    sys.exit(1)
if what == "tooltip":
    # Every frame has a tooltip "NAME[ (inline)] (VALUE, PCT%)"; hovering the
    # target shows its tooltip, leaving clears it; its value as folded sums it.
    for (d, x, w, nm), t in zip(F, S["titles"]):
        if not re.match(r"^%s( \(inline\))? \([0-9.]+[a-z]*, [0-9.]+%%\)$" % re.escape(nm), t):
            bad.append("tooltip %r of %r" % (t, nm))
    d, x, w, nm = F[target]
    parent = [f for f in F if f[0] == 0 and f[1] <= x + 1e-9 and x + w <= f[1] + f[2] + 1e-9][0][3]
    v = tot = 0
    for l in open(folded):
        st, n = l.rstrip("\n").rsplit(" ", 1)
        st = st.split(";")
        tot += int(n)
        if st[:2] == [parent, nm]:
            v += int(n)
    m = re.search(r", ([0-9.]+)%\)$", S["tip"])
    if S["tip"] != S["titles"][target] or not m or abs(float(m.group(1)) - 100 * v / tot) > 0.006:
        bad.append("hover: %r, want %s (%.2f%%)" % (S["tip"], S["titles"][target], 100 * v / tot))
    if S["tipout"].strip():
        bad.append("tooltip line not cleared: %r" % S["tipout"])
    print("%d tooltips; hover shows %r" % (len(F), S["tip"]))
elif what == "labels":
    n, cut = labels_fit(S["plain"], "plain")
    print("plain view: %d labels, %d cut or left out, all inside their frames" % (n, cut))
    if cut == 0:
        bad.append("no label was cut: the profile tests nothing")
elif what == "zoom":
    d0, x0, w0, nm0 = F[target]
    P, Z = S["plain"], S["zoom"]
    for i, ((d, x, w, nm), p, z) in enumerate(zip(F, P, Z)):
        inside = d >= d0 and x >= x0 - 1e-9 and x + w <= x0 + w0 + 1e-9
        above = d < d0 and x <= x0 + 1e-9 and x + w >= x0 + w0 - 1e-9
        if (z is not None) != (inside or above):
            bad.append("zoom: %r (depth %d) %s" % (nm, d, "shown" if z else "hidden"))
        elif inside and abs(z[1] - p[1] / w0) > 1.0:
            bad.append("zoom: %r %.1f px wide, want %.1f / %.4f" % (nm, z[1], p[1], w0))
        elif above and abs(z[1] - inner) > 1.0:
            bad.append("zoom: caller %r %.1f px, want the graph's %.1f" % (nm, z[1], inner))
    if abs(Z[target][1] - inner) > 1.0:
        bad.append("zoom: the target is %.1f px, want %.1f" % (Z[target][1], inner))
    n, cut = labels_fit(Z, "zoomed")
    longer = sum(1 for p, z in zip(P, Z) if z and len(z[2]) > len(p[2]))
    if not longer:
        bad.append("zoom: no label got longer")
    print("zoomed on %r (%.1f%%): %d frames shown, %d labels longer, all inside their frames"
          % (nm0, 100 * w0, sum(1 for z in Z if z), longer))
elif what == "reset":
    if S["reset"] != S["plain"]:
        diff = [(F[i][3], p, r) for i, (p, r) in enumerate(zip(S["plain"], S["reset"])) if p != r]
        bad.append("reset: %d frames differ from the first view, e.g. %s" % (len(diff), diff[:2]))
    print("reset: the first view again (%d frames)" % len(S["reset"]))
elif what == "search":
    want = [float(l) for l in open(wantm)]
    for key, rx, wm in (("s1", r"^k_", want[0]), ("s2", r"jit_|JS:", want[1])):
        text, hl = S[key]
        m = re.match(r"^Matched: ([0-9.]+)%$", text)
        if not m or abs(float(m.group(1)) - wm) > 0.006:
            bad.append("search %s: %r, want Matched: %.2f%%" % (rx, text, wm))
        exp = sorted(nm for d, x, w, nm in F if re.search(rx, nm))
        if sorted(hl) != exp or not exp:
            bad.append("search %s: %d frames highlighted, want %d" % (rx, len(hl), len(exp)))
        print("search %s: %r (folded and awk: %.4f%%), %d frames highlighted" % (rx, text, wm, len(hl)))
    for key in ("s1clear", "esc"):
        if S[key][0].strip() or S[key][1]:
            bad.append("%s: search not cleared: %r" % (key, S[key]))
for b in bad[:10]:
    print(b)
sys.exit(1 if bad else 0)
PY
for what in tooltip labels zoom reset search; do
	check "browser: $what" python3 checks.py dom.xml k.svg "$target" k.folded want.matched $what
done

# Screenshots: the plain view, zoomed on the target, a search.
cat >zoom.js <<EOF
document.querySelectorAll('g.f')[$target].dispatchEvent(new MouseEvent('click', {bubbles: true}));
EOF
cat >search.js <<EOF
window.prompt = function() { return '$RE1'; };
window.dispatchEvent(new KeyboardEvent('keydown', {key: 'f', ctrlKey: true}));
EOF
add k.svg zoom.svg zoom.js
add k.svg search.svg search.js
for v in k zoom search; do
	chrome /dev/null --screenshot="$T/$v.png" "file://$T/$v.svg"
	check "screenshot of $v.svg" test -s $v.png
done

check "screenshots: legend, zoomed frame across the window, search highlight" \
	python3 - k.svg "$target" "$top_srcdir/tests" <<'PY'
import sys, xml.etree.ElementTree as ET
sys.path.insert(0, sys.argv[3])
from pngrows import rows, near
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
hexc = lambda s: tuple(int(s[i:i + 2], 16) for i in (1, 3, 5))
plain, zoom, search = rows("k.png"), rows("zoom.png"), rows("search.png")
bad = []
# The legend's swatches, drawn in their colours where the SVG puts them.
for g in root.iter(ns + "g"):
    if g.get("class") != "key":
        continue
    r = g.find(ns + "rect")
    x, y, c = int(float(r.get("x"))) + 5, int(float(r.get("y"))) + 5, hexc(r.get("fill"))
    if not near(plain[y][x], c):
        bad.append("legend %s: %s at (%d, %d), want %s" % (g.get("data-k"), plain[y][x], x, y, c))
# Zoomed: the target's colour across its row (90% of it at least).
gs = [g for g in root.iter(ns + "g") if g.get("class") == "f"]
t = gs[int(sys.argv[2])]
rect = t.find(ns + "rect")
y, c = int(float(rect.get("y")) + 1.5), hexc(rect.get("fill"))  # above the text
w = len(zoom[y])
span = sum(1 for p in zoom[y] if near(p, c))
if span < 0.9 * w * (1 - 2 * 10 / 1200):
    bad.append("zoom: %d of %d pixels of row %d in the target's colour %s" % (span, w, y, c))
plain_span = sum(1 for p in plain[y] if near(p, c))
# The search: the highlight colour, only there.
HL = (0xe0, 0x40, 0xfb)
hs = sum(1 for r in search for p in r if near(p, HL))
hp = sum(1 for r in plain for p in r if near(p, HL))
if hs < 1000 or hp:
    bad.append("highlight pixels: %d in the search, %d in the plain view" % (hs, hp))
print("target row: %d px in its colour zoomed, %d plain; %d highlight pixels" % (span, plain_span, hs))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY

[ -n "${FLAME_SHOTS:-}" ] && cp k.png zoom.png search.png "$FLAME_SHOTS"/
check "no Chromium process left" [ -z "$(chrome_left)" ]
finish
