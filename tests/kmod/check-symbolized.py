#!/usr/bin/env python3
"""Check the module frames of a symbolized profile against eu-addr2line.

usage: check-symbolized.py SHOW.json PLACES EU-DIR ALIASES
SHOW.json: `psym show --json` of the symbolized profile. PLACES: lines
"SECTION BASE" (hex): where the test placed each code section of the
module (its kallsyms copy says so). EU-DIR holds, per section, eu.SECTION:
`eu-addr2line -a -f -i --section SECTION` on every instruction offset.
ALIASES: lines of names at one address (init_module pmod_init): any is
right for the outermost frame. Every location in a placed section must
give the chain eu-addr2line gives for its offset (names without GCC clone
suffixes, files, lines); exits 1 otherwise, printing the first 20.
"""
import json
import os
import re
import sys

SUFFIX = re.compile(r"(\.(cold|part|isra|constprop|lto_priv)(\.\d+)?)+$")


def eu_chains(path):
    out, cur = {}, None
    lines = open(path).read().splitlines()
    i = 0
    while i < len(lines):
        if re.fullmatch(r"0x[0-9a-f]+", lines[i]):
            cur = int(lines[i], 16)
            out[cur] = []
            i += 1
            continue
        name = lines[i].split(" inlined at ")[0]
        m = re.match(r"^(.*?):(\d+|\?)(?::\d+)?$", lines[i + 1])
        f, n = (m.group(1), m.group(2)) if m else ("??", "0")
        out[cur].append((SUFFIX.sub("", name), f, int(n) if n.isdigit() else 0))
        i += 2
    return out


def main():
    show = json.load(open(sys.argv[1]))
    places = [(l.split()[0], int(l.split()[1], 16)) for l in open(sys.argv[2]) if l.strip()]
    canon = {}
    for l in open(sys.argv[4]):
        names = l.split()
        for n in names:
            canon[n] = names[0]
    eu = {s: eu_chains(os.path.join(sys.argv[3], "eu." + s)) for s, _ in places}
    funcs = {f["id"]: f for f in show["functions"]}
    checked, bad = 0, []
    for loc in show["locations"]:
        a = loc["address"]
        hit = [(s, b) for s, b in places if a - b in eu[s]]
        if not hit:
            continue
        s, b = hit[0]
        ours = []
        for ln in loc["lines"]:
            f = funcs[ln["function_id"]]
            ours.append((SUFFIX.sub("", f.get("name") or "??"), f.get("filename") or "??",
                         int(ln.get("line") or 0)))
        ref = list(eu[s][a - b])
        if ours and ref:
            ours[-1] = (canon.get(ours[-1][0], ours[-1][0]),) + ours[-1][1:]
            ref[-1] = (canon.get(ref[-1][0], ref[-1][0]),) + ref[-1][1:]
        checked += 1
        if ours != ref:
            bad.append((s, a - b, ours, ref))
    print("module frames checked: %d, disagreeing: %d" % (checked, len(bad)))
    for s, off, o, r in bad[:20]:
        print("  %s+0x%x\n    psym: %s\n    eu:   %s" % (s, off, o, r))
    return 1 if bad or not checked else 0


sys.exit(main())
