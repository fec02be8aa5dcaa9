#!/usr/bin/env python3
"""Fails on a module cycle among the direct children of any module directory of the host
(plugin/, builtin/, mcp_client/, ...): docs/ARCHITECTURE.md allows a module and its own
children to depend on each other, and nothing else. A dependency is a `super::x` path from a
child, a `crate::<area>::x` path, or a grouped `use super::{x, ..}`, outside test code and
comments. With no argument it checks every directory under host/src that has a mod.rs."""
import os, re, sys
from collections import defaultdict

def children(area):
    out = {}
    for name in os.listdir(area):
        p = os.path.join(area, name)
        if name.endswith('.rs') and name != 'mod.rs':
            out.setdefault(name[:-3], []).append(p)
        elif os.path.isdir(p):
            out.setdefault(name, [])
            for root, _, files in os.walk(p):
                out[name] += [os.path.join(root, f) for f in files if f.endswith('.rs')]
    return out

def deps(area, crate_path, mods):
    graph = defaultdict(set)
    for m, files in mods.items():
        for f in files:
            s = open(f).read()
            s = re.sub(r'#\[cfg\(test\)\]\s*mod\s+\w+\s*\{.*', '', s, flags=re.S)  # ignore inline tests
            s = re.sub(r'//[^\n]*', '', s)  # comments and doc comments are not dependencies
            if re.search(r'(_tests\.rs|/tests\.rs|/tests/)', f):
                continue
            depth = os.path.relpath(f, area).count('/')
            # super:: from a direct child file refers to area; from deeper files, count supers
            for match in re.finditer(r'((?:super::)+)(\w+)', s):
                n = match.group(1).count('super::')
                # file at depth d (0 = area/x.rs, area/x/mod.rs counts as 0 too)
                d = depth - (1 if f.endswith('mod.rs') else 0)
                if n == d + 1:
                    graph[m].add(match.group(2))
            for match in re.finditer(re.escape(crate_path) + r'::(\w+)', s):
                graph[m].add(match.group(1))
            # grouped: use super::{a, b::c}
            for match in re.finditer(r'use ((?:super::)+)\{([^}]*)\}', s, flags=re.S):
                n = match.group(1).count('super::')
                d = depth - (1 if f.endswith('mod.rs') else 0)
                if n == d + 1:
                    for item in re.findall(r'(\w+)(?:::|\s*,|\s*$)', match.group(2)):
                        graph[m].add(item)
    for m in graph:
        graph[m] = {x for x in graph[m] if x in mods and x != m}
    return graph

def sccs(graph, nodes):
    index, low, stack, on, res, i = {}, {}, [], set(), [], [0]
    def strong(v):
        index[v] = low[v] = i[0]; i[0] += 1; stack.append(v); on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: res.append(sorted(comp))
    for v in nodes:
        if v not in index: strong(v)
    return res

bad = 0
areas = sys.argv[1:] or sorted(
    root for root, _, files in os.walk('host/src') if 'mod.rs' in files and root != 'host/src'
)
for area in areas:
    crate_path = 'crate::' + os.path.relpath(area, 'host/src').replace('/', '::')
    mods = children(area)
    g = deps(area, crate_path, mods)
    for comp in sccs(g, sorted(mods)):
        bad += 1
        print(f'{area}: cycle among {comp}')
        for m in comp:
            print('   ', m, '->', sorted(x for x in g[m] if x in comp))
print(f'module cycles: {bad} in {len(areas)} module directories')
sys.exit(1 if bad else 0)
