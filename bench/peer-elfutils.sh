#!/bin/sh
# elfutils' own addr2line test cases, run against psym addr
# --compat=addr2line (issue 39's "elfutils" figure).
#
# usage: bench/peer-elfutils.sh ELFUTILS_SRC_DIR [PSYM]
# ELFUTILS_SRC_DIR: an elfutils source tree (one with tests/) or a bare git
# mirror of it (its HEAD's tests/ is used). Nothing of it is copied into
# psym's tree: the scripts and their testfile*.bz2 inputs are read there,
# the cases run in $OUT (a fresh temp dir unless set, printed).
#
# How cases are counted: every 'testrun_compare .../src/addr2line ARGS
# <<EOF expected EOF' of elfutils' tests/run-*.sh is one case, whatever
# the number of addresses it gives (the scripts are those that have one:
# run-addr2line-test.sh, -i-, -i-lex-, -i-demangle-, -C-test.sh,
# run-addr2line-alt-debugpath.sh, run-addrname-test.sh and
# run-prelink-addr-test.sh at elfutils 67199e1c, 52 cases, 228
# addresses). The scripts run as they are, with a test-subr.sh of this
# harness: testfiles unpacks the named inputs, testrun_compare keeps the
# expected text, runs the command and compares with diff -u, testrun runs
# its command (its output checked with cmp by the script is not a case,
# and no failure there stops the script). src/addr2line is a wrapper that
# maps elfutils' options to psym addr's:
#   -e -f -i -C -a -s -j       the same options of psym addr --compat=addr2line
#   --pretty-print (--pretty)  -p
#   --debuginfo-path=DIR       --debug-dir DIR (each of a colon list)
#   -S (symbol+offset)         psym addr --json: the outermost frame's
#                              FunctionName, +0x(Address - StartAddress)
#                              unless 0 (StartAddress: the start of the
#                              symbol holding the address), then the
#                              innermost frame's FILE:LINE or ??:0, each
#                              answer printed here in eu-addr2line's form
# A case that needs what psym addr has no way to do is "not supported"
# (psym is not run): a symbol name as input (foo, bar+0x0), -x (section
# names), -M (a process's maps), --core, -k, -p PID and any other option.
# src/strip (elfutils' own strip, which run-addr2line-alt-debugpath.sh
# uses to make its input) is eu-strip.
#
# Each address of a case is also compared alone: psym answers it alone,
# and the expected text is cut into one answer per address where its form
# allows (-a, --pretty-print, or a fixed number of lines per address);
# where it does not (-f -i without -a: eu-addr2line marks only the
# innermost inlined frame), every address gets the case's verdict.
# Prints per script the cases passed / failed / not supported and the
# addresses equal / equal but for peer quirks (listed below) / different /
# not supported, then each case not supported and each failure with its
# diff; each case's files are kept in $OUT/cases/SCRIPT.N/ (argv,
# expected, got, got.K per address, stderr, diff, na, quirks,
# per-address).
set -eu
E=${1:?usage: $0 ELFUTILS_SRC_DIR [PSYM]}
here=$(cd "$(dirname "$0")/.." && pwd)
PSYM=${2:-$here/psym}
case $PSYM in /*) ;; *) PSYM=$PWD/$PSYM ;; esac
[ -x "$PSYM" ] || { echo "$0: no psym at $PSYM (give it as the second argument)" >&2; exit 2; }
OUT=${OUT:-$(mktemp -d)}

if [ -f "$E/tests/run-addr2line-test.sh" ]; then
	T=$(cd "$E/tests" && pwd)
else
	mkdir -p "$OUT/src"
	git --git-dir="$E" archive HEAD tests | tar -x -C "$OUT/src"
	T=$OUT/src/tests
fi
# shellcheck disable=SC2016
SCRIPTS=$(cd "$T" && grep -l 'testrun_compare ${abs_top_builddir}/src/addr2line' run-*.sh)
[ -n "$SCRIPTS" ] || { echo "no addr2line case in $T" >&2; exit 1; }
H=$OUT/harness
mkdir -p "$H/src" "$OUT/cases" "$OUT/work" "$OUT/cache"

cat >"$H/test-subr.sh" <<'EOF'
# This harness's stand-in for elfutils' tests/test-subr.sh.
testfiles()
{
	for f; do
		bunzip2 -c "$EU_TESTS/$f.bz2" >"$f"
	done
}
tempfiles() { :; }
testrun() { "$@" || true; }
testrun_out() { o=$1; shift; "$@" >"$o" || true; }
cmp() { command cmp -s "$@" || true; }
testrun_compare()
{
	case $1 in */src/addr2line) ;; *) cat >/dev/null; return 0 ;; esac
	# (a count in a file: a case may run in a pipeline's subshell)
	eu_n=$(($(cat "$EU_OUT/n.$EU_SCRIPT" 2>/dev/null || echo 0) + 1))
	echo "$eu_n" >"$EU_OUT/n.$EU_SCRIPT"
	d=$EU_OUT/cases/$EU_SCRIPT.$eu_n
	mkdir -p "$d"
	cat >"$d/expected"
	shift
	printf '%s\n' "$@" >"$d/argv"
	EU_CASE=$d "$abs_top_builddir/src/addr2line" "$@" </dev/null >"$d/got" 2>"$d/stderr" || true
	diff -u "$d/expected" "$d/got" >"$d/diff" || true
}
EOF

cat >"$H/src/strip" <<'EOF'
#!/bin/sh
exec eu-strip "$@"
EOF

cat >"$H/src/addr2line" <<'EOF'
#!/usr/bin/env python3
"""elfutils' addr2line options as psym addr's (see bench/peer-elfutils.sh)."""
import json
import os
import re
import subprocess
import sys

SAME = {"-e": "-e", "--exe": "-e", "--executable": "-e", "-j": "-j", "--section": "-j"}
FLAGS = {"-f": "-f", "--functions": "-f", "-i": "-i", "--inlines": "-i",
         "-C": "-C", "--demangle": "-C", "-a": "-a", "--addresses": "-a",
         "-s": "-s", "--basenames": "-s", "--pretty-print": "-p", "--pretty": "-p"}
NOT = {"-x": "-x (section names)", "--symbols-sections": "-x (section names)",
       "-M": "-M (a process's maps)", "--linux-process-map": "-M (a process's maps)",
       "--core": "--core", "-k": "-k (the running kernel)", "--kernel": "-k",
       "-p": "-p PID", "--pid": "-p PID", "-A": "-A", "--absolute": "-A"}
WITH_ARG = {"-e", "-j", "-M", "-p"}


def expand(argv):
    """Clustered short options (-Cfi) one by one; --opt=val as two."""
    out = []
    for a in argv:
        if a.startswith("--") and "=" in a:
            out += a.split("=", 1)
        elif re.fullmatch(r"-[A-Za-z]{2,}", a):
            for j, c in enumerate(a[1:]):
                if "-" + c in WITH_ARG and j + 2 < len(a):
                    out += ["-" + c, a[j + 2:]]
                    break
                out.append("-" + c)
        else:
            out.append(a)
    return out


def main():
    argv = expand(sys.argv[1:])
    psym = [os.environ["EU_PSYM"], "addr", "--compat=addr2line", "--offline"]
    na, addrs, flags, symoff, inputs = [], [], set(), False, 0
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in SAME:
            psym += [SAME[a], argv[i + 1]]
            i += 2
            continue
        if a == "--debuginfo-path":
            for d in argv[i + 1].split(":"):
                psym += ["--debug-dir", d]
            i += 2
            continue
        if a in ("-S", "--symbols"):
            symoff = True
        elif a in FLAGS:
            psym.append(FLAGS[a])
            flags.add(FLAGS[a])
        elif a in NOT:
            na.append(NOT[a])
            if a in WITH_ARG or a == "--core":
                i += 1
        elif a.startswith("-"):
            na.append("option " + a)
        elif re.fullmatch(r"(0[xX])?[0-9a-fA-F]+", a):
            addrs.append(a if a.lower().startswith("0x") else "0x" + a)
            inputs += 1
        else:
            na.append("a symbol name as input (%s)" % a)
            inputs += 1
        i += 1
    if "-e" not in psym:
        psym += ["-e", "a.out"]
    case = os.environ.get("EU_CASE")
    if case:
        with open(os.path.join(case, "naddrs"), "w") as f:
            f.write("%d\n" % inputs)
    if na:
        if case:
            with open(os.path.join(case, "na"), "w") as f:
                f.write("; ".join(sorted(set(na))) + "\n")
        sys.exit(77)
    if case:
        with open(os.path.join(case, "psym-argv"), "w") as f:
            f.write(" ".join(psym[1:] + addrs) + "\n")
    # Each address alone too (the per-address count), then all at once.
    for k, a in enumerate(addrs if case and len(addrs) > 1 else []):
        with open(os.path.join(case, "got.%d" % (k + 1)), "w") as f:
            answer(psym, [a], flags, symoff, f)
    sys.exit(answer(psym, addrs, flags, symoff, sys.stdout))


def answer(psym, addrs, flags, symoff, out):
    """psym's answers to addrs in eu-addr2line's form on out; psym's exit code."""
    out.flush()
    if not symoff:
        return subprocess.run(psym + addrs, stdout=out).returncode
    # -S from psym's JSON: the outermost frame's FunctionName (mangled
    # unless -C) and Address - StartAddress, the innermost frame's line.
    psym = [a for a in psym if a not in ("--compat=addr2line", "-f", "-i", "-C", "-p")]
    psym += ["--json"] + ([] if "-C" in flags else ["--no-demangle"])
    r = subprocess.run(psym + addrs, stdout=subprocess.PIPE, text=True)
    for ans in json.loads(r.stdout or "[]"):
        fr = ans.get("Symbol") or [{}]
        name, start = fr[-1].get("FunctionName"), fr[-1].get("StartAddress")
        if "-a" in flags:
            print(ans.get("Address", "??"), file=out)
        if not name:
            print("??", file=out)
        elif not start or int(ans["Address"], 16) == int(start, 16):
            print(name, file=out)
        else:
            print("%s+%#x" % (name, int(ans["Address"], 16) - int(start, 16)), file=out)
        line = fr[0].get("Line") or 0
        print("%s:%d" % (fr[0]["FileName"], line) if fr[0].get("FileName") and line
              else "??:0", file=out)
    return r.returncode


main()
EOF
chmod +x "$H/src/strip" "$H/src/addr2line"

unset DEBUGINFOD_URLS
for s in $SCRIPTS; do
	[ -f "$T/$s" ] || { echo "$s: not in $T"; continue; }
	mkdir -p "$OUT/work/$s"
	(cd "$OUT/work/$s" && XDG_CACHE_HOME=$OUT/cache EU_TESTS=$T EU_OUT=$OUT \
		EU_SCRIPT=$s EU_PSYM=$PSYM srcdir=$H abs_top_builddir=$H \
		sh "$T/$s" >"../$s.log" 2>&1) || true
done

# Each failure, and each address of it: which of eu-addr2line's own
# output choices, set aside on both sides, leave the texts equal (the
# smallest such set; "none": a difference of substance):
#   inlined-at  -f -i without --pretty: eu-addr2line's "NAME inlined at
#               FILE:LINE in OUTER" line for the innermost inlined frame,
#               where GNU addr2line (and psym) print NAME alone
#   columns     FILE:LINE:COLUMN whenever the line table has a column,
#               where GNU addr2line prints FILE:LINE
#   no-line     "??:0" for a symbol without a line, GNU addr2line's "??:?"
#   names       a function's name from its DIE's DW_AT_name where the DIE
#               has no linkage name, where GNU addr2line and
#               llvm-symbolizer take the symbol's (_Z3barv, bar() with -C):
#               names compared demangled, without their parameter lists
#   symbol-choice  (per address) which symbol names an address where
#               symbols nest, alias or are zero-size, or none does (its
#               "(.text)+0x31a"): the one line differs, and psym's name (its
#               -S offset aside) is llvm-symbolizer's or GNU addr2line's
cat >"$H/classify.py" <<'PYEOF'
import itertools
import os
import re
import subprocess
import sys


def demangle(text):
    toks = sorted(set(re.findall(r"_Z\w+", text)))
    if not toks:
        return text
    r = subprocess.run(["c++filt"], input="\n".join(toks), stdout=subprocess.PIPE, text=True)
    for t, d in zip(toks, r.stdout.split("\n")):
        text = re.sub(r"\b%s\b" % t, lambda m, d=d: d, text)
    return text


RULES = {
    "inlined-at": lambda t: re.sub(r"(?m)^(\S+) inlined at \S+ in .*$", r"\1", t),
    "columns": lambda t: re.sub(r"(?m)(:\d+):\d+$", r"\1", t),
    "no-line": lambda t: re.sub(r"(?m):\?$", ":0", t),
    "names": lambda t: re.sub(r"([\w:~]+)\([^()]*\)", r"\1", demangle(t)),
}


def quirks(want, got):
    """'' when equal, else the smallest set of quirks that makes them so, or 'none'."""
    if want == got:
        return ""
    for n in range(1, len(RULES) + 1):
        for combo in itertools.combinations(RULES, n):
            w, g = want, got
            for r in combo:
                w, g = RULES[r](w), RULES[r](g)
            if w == g:
                return " ".join(combo)
    return "none"


def first_line(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
    return (r.stdout.splitlines() or [""])[0]


def symbol_choice(d, argv, k, want, got):
    """One line differs, the symbol's, and psym names the address as
    llvm-symbolizer or GNU addr2line does (eu-addr2line's own choice)."""
    w = RULES["no-line"](want).splitlines()
    g = RULES["no-line"](got).splitlines()
    diff = [i for i in range(len(w)) if len(w) == len(g) and w[i] != g[i]]
    if len(diff) != 1 or "-e" not in argv:
        return False
    exe = argv[argv.index("-e") + 1]
    addrs = [a for a in open(os.path.join(d, "psym-argv")).read().split() if a.startswith("0x")]
    cwd = os.path.join(os.path.dirname(os.path.dirname(d)), "work",
                       os.path.basename(d).rsplit(".", 1)[0])
    name = re.sub(r"\+0x[0-9a-f]+$", "", g[diff[0]])
    peers = {first_line(["llvm-symbolizer", "--no-demangle", "-e", exe, addrs[k]], cwd),
             first_line(["addr2line", "-f", "-e", exe, addrs[k]], cwd)}
    return name in peers


def blocks(text, argv, n):
    """eu-addr2line's answer to each of n addresses (None: not told apart)."""
    lines = text.splitlines(True)
    pretty = "--pretty-print" in argv or "--pretty" in argv
    short = "".join(a[1:] for a in argv if re.fullmatch(r"-[A-Za-z]+", a))
    if n == 1:
        return [text]
    out = []
    for ln in lines:
        if pretty:
            new = not ln.startswith(" (inlined by) ")
        elif "a" in short:
            new = re.fullmatch(r"0x[0-9a-fA-F]+\n", ln) is not None
        elif "i" in short and "f" in short:
            new = not out or (len(out[-1]) % 2 == 0 and " inlined at " not in out[-1][-2])
        elif "i" in short:
            return None
        else:
            new = not out or len(out[-1]) == (2 if "f" in short or "S" in short else 1)
        if new:
            out.append([])
        out[-1].append(ln)
    return ["".join(b) for b in out] if len(out) == n else None


def main():
    d = sys.argv[1]
    read = lambda f: open(os.path.join(d, f)).read()
    want, got = read("expected"), read("got")
    n = int(read("naddrs"))
    argv = read("argv").split("\n")
    w = blocks(want, argv, n)
    g = [read("got.%d" % (k + 1)) for k in range(n)] if n > 1 else [got]
    if w is None:
        w, g = [want] * n, [got] * n  # not told apart: the case's verdict
    res = [quirks(a, b) for a, b in zip(w, g)]
    for k, r in enumerate(res):
        if r == "none" and symbol_choice(d, argv, k, w[k], g[k]):
            res[k] = "symbol-choice" + (" no-line" if ":?\n" in g[k] else "")
    # The case's: the kinds its addresses need, "none" if one differs.
    kinds = sorted({q for r in res for q in r.split()})
    with open(os.path.join(d, "quirks"), "w") as f:
        f.write(("none" if "none" in kinds else " ".join(kinds) or "-") + "\n")
    with open(os.path.join(d, "per-address"), "w") as f:
        for k, r in enumerate(res):
            f.write("%d %s\n" % (k + 1, r or "equal"))
    print(sum(r == "" for r in res), sum(r not in ("", "none") for r in res),
          sum(r == "none" for r in res))


main()
PYEOF

# The table: per script the cases passed / failed / not supported, and
# the addresses of those cases: equal, equal once peer quirks are set
# aside, different, not supported (a failed case "by peer quirks alone" has
# no address of the third kind). Then every case not supported and every
# failure with its diff.
tp=0 tf=0 tfq=0 tn=0 ae=0 aq=0 ad=0 an=0
for s in $SCRIPTS; do
	p=0 f=0 fq=0 n=0 e=0 q=0 x=0 m=0
	for d in "$OUT/cases/$s".*; do
		[ -d "$d" ] || continue
		k=$(cat "$d/naddrs" 2>/dev/null || echo 0)
		if [ -f "$d/na" ]; then
			n=$((n + 1)) m=$((m + k))
			continue
		fi
		# shellcheck disable=SC2046
		set -- $(python3 "$H/classify.py" "$d")
		e=$((e + $1)) q=$((q + $2)) x=$((x + $3))
		if [ -s "$d/diff" ]; then
			f=$((f + 1))
			[ "$3" = 0 ] && fq=$((fq + 1))
		else
			p=$((p + 1))
		fi
	done
	echo "$s: cases $p passed, $f failed ($fq by peer quirks alone), $n not supported;" \
		"addresses $e equal, $q peer quirks, $x differ, $m not supported"
	tp=$((tp + p)) tf=$((tf + f)) tfq=$((tfq + fq)) tn=$((tn + n))
	ae=$((ae + e)) aq=$((aq + q)) ad=$((ad + x)) an=$((an + m))
done
echo "total: cases $tp passed, $tf failed ($tfq by peer quirks alone), $tn not supported" \
	"of $((tp + tf + tn));" \
	"addresses $ae equal, $aq peer quirks, $ad differ, $an not supported of" \
	"$((ae + aq + ad + an)) (details in $OUT)"
for d in "$OUT/cases"/*; do
	[ -f "$d/na" ] && echo "not supported: ${d##*/}: $(cat "$d/na")"
done
for d in "$OUT/cases"/*; do
	[ -f "$d/na" ] || [ ! -s "$d/diff" ] && continue
	echo "--- failed: ${d##*/} (peer quirks that account for it: $(cat "$d/quirks"))"
	echo "psym $(cat "$d/psym-argv" 2>/dev/null)"
	grep -v ' equal$' "$d/per-address" | sed 's/^/address /'
	sed 1,2d "$d/diff"
done
