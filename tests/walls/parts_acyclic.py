#!/usr/bin/env python3
"""parts_acyclic.py OBJECT...: the sandbox's parts (sandbox.c and sb_*.c in
runtime/luahost) use each other without a circle (docs/architecture.md,
"Walls"): from the objects' symbols (nm), which part uses which, and no
strongly connected group of more than one. sandbox.c is on top: it opens
the libraries through the parts, and no part calls it."""
import os
import subprocess
import sys


def part(path):
    name = os.path.basename(path)
    for ext in (".c.o", ".o"):
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def main(argv):
    objs = [o for o in argv[1:] if part(o) == "sandbox" or part(o).startswith("sb_")]
    if len(objs) < 2 or not any(part(o) == "sandbox" for o in objs):
        print("parts_acyclic: no sandbox objects among the arguments")
        return 1
    defs, uses = {}, {}
    for o in objs:
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        d, u = set(), set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBRVC":
                d.add(f[2])
            elif len(f) == 2 and f[0] == "U":
                u.add(f[1])
        defs[part(o)], uses[part(o)] = d, u
    graph = {p: sorted(q for q in defs if q != p and uses[p] & defs[q]) for p in defs}
    # Tarjan's strongly connected components.
    index, low, stack, on, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            g = []
            while True:
                w = stack.pop()
                on.discard(w)
                g.append(w)
                if w == v:
                    break
            groups.append(sorted(g))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    circles = [g for g in groups if len(g) > 1]
    for p in sorted(graph):
        print(f"{p} -> {' '.join(graph[p]) or '(nothing)'}")
    callers = sorted(p for p in graph if "sandbox" in graph[p])
    for g in circles:
        print("FAIL: these parts use each other in a circle:", " ".join(g))
    if callers:
        print("FAIL: parts that call sandbox.c:", " ".join(callers))
    bad = len(circles) + len(callers)
    print(f"{2 - min(bad, 2)} passed, {min(bad, 2)} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
