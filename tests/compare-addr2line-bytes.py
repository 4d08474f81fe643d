#!/usr/bin/env python3
"""psym run as addr2line against GNU addr2line, byte for byte, on a list of
addresses, with the differences classified.

usage: compare-addr2line-bytes.py PSYM_AS_ADDR2LINE BINARY ADDRS OPTIONS...

Both tools answer ADDRS (one address a line) in one run with OPTIONS; the
outputs must be identical. Where they are not, both are run again with -a
added (the same queries in the same order) to find the addresses whose
answers differ, and each such address is asked of each tool alone: GNU
addr2line's answer to an address can depend on the addresses asked before
it in the same run (what binutils read and cached by then), so an address
that both tools answer alike when asked alone is counted as a query-order
difference, reason given. Any other difference fails (exit 1). Prints one
summary line, then up to 5 examples of each kind.
"""
import subprocess
import sys

A2L = "addr2line"


def run(tool, binary, opts, addrs):
    return subprocess.run([tool] + opts + ["-e", binary], input=addrs, capture_output=True,
                          text=True, errors="replace").stdout


def blocks(text):
    """-a output: address -> its lines (the address line included)."""
    out, order, cur = {}, [], None
    for line in text.split("\n"):
        if line.startswith("0x") and all(c in "0123456789abcdef" for c in line[2:]) and line[2:]:
            cur = line
            order.append(cur)
            out[cur] = [line]
        elif cur is not None and line:
            out[cur].append(line)
    return out, order


def main():
    psym, binary, addrfile = sys.argv[1:4]
    opts = sys.argv[4:]
    addrs = open(addrfile).read()
    gnu, ours = run(A2L, binary, opts, addrs), run(psym, binary, opts, addrs)
    nlines = gnu.count("\n")
    if gnu == ours:
        print("%d lines, identical" % nlines)
        return 0
    # One block per address (-a, without -p's one-line form): the same
    # queries in the same order, so the same answers.
    aopts = ["-a"] + [o for o in opts if o not in ("-a", "-p", "--pretty-print")]
    gb, order = blocks(run(A2L, binary, aopts, addrs))
    pb, _ = blocks(run(psym, binary, aopts, addrs))
    differ = [a for a in order if gb[a] != pb.get(a)]
    # Lines of those answers (-a form) that differ; a missing or extra frame counts.
    bad_lines = sum(sum(1 for g, p in zip(gb[a], pb.get(a, [])) if g != p) +
                    abs(len(gb[a]) - len(pb.get(a, []))) for a in differ)
    order_dep, real = [], []
    for a in differ:
        alone_g = run(A2L, binary, aopts, a + "\n")
        alone_p = run(psym, binary, aopts, a + "\n")
        (order_dep if alone_g == alone_p else real).append((a, gb[a], pb.get(a), alone_g))
    print("%d of %d lines differ, at %d addresses: %d where addr2line's answer depends on the "
          "addresses asked before (asked alone, addr2line and psym agree), %d other"
          % (bad_lines, nlines, len(differ), len(order_dep), len(real)))
    for a, g, p, alone in real[:5]:
        print("  differs: %s\n    addr2line: %s\n    psym:      %s" % (a, g[1:], (p or [])[1:]))
    for a, g, p, alone in order_dep[:5]:
        print("  query order: %s\n    addr2line in the run: %s\n    both alone:           %s"
              % (a, g[1:], alone.split("\n")[1:-1]))
    return 1 if real or not differ and gnu != ours else 0


if __name__ == "__main__":
    sys.exit(main())
