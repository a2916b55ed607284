#!/usr/bin/env python3
"""Checks the crate's module structure: no circle of references between modules at any depth, no
module references one in a higher layer, and no module reaches up into lib.rs for an item.

At the top level: the modules directly under src/ (files and folders), placed in LAYERS. In every
folder under src/ (at every depth): its files and sub-folders, which must not reference each other
in a circle of any length (a strongly connected component of two or more); the folders of
SUBMODULE_LAYERS also keep their files' layers. A reference from a file resolves to the module it
names (`super::x`, `super::super::x`, `crate::a::b`, `crate::a::{b, c::d}`, `super::{x, y}`), and
counts in the deepest folder both ends share: `harness/runner/judge.rs` naming
`crate::harness::runner::summary::Row` is judge -> summary in harness/runner/.

Reads src/**/*.rs (the library; src/bin is the top layer and may use anything), and records each
reference from one top-level module to another: `use crate::X...`, `crate::{X, Y::z}` groups and
`crate::X::` paths in code (comments and doc comments, intra-doc links included, are not
references). Exits 1 naming each offending pair with a file:line of each direction, 0 otherwise.

Layers, lowest first (after the project's design notes): a module may reference its own layer or a
lower one, never a higher one, and never one that references it back. src/bin, the command line,
is the top layer and is not read. Exceptions live in ALLOW, each with why.

Inside a module of SUBMODULE_LAYERS (src/<module>/*.rs), each file is a layer's member the same
way: a reference is `super::x`, `super::{x, y}` or `crate::<module>::x` to a sibling file `x`.
mod.rs (the module's root: declarations, re-exports, and items every file shares) and tests.rs
(unit tests that need the whole module) are in no layer and not read.
"""

import os
import re
import sys

# The layer of every top-level module; a module missing here is an error, so a new module must be
# placed deliberately.
LAYERS = [
    ["files", "json", "ports", "error", "http", "percent", "sys", "chromium_features"],  # the shipped files, shared helpers
    ["catalog", "ws"],  # the catalog: browsers, locations, homes, origins; WebSocket plumbing
    ["protected", "corpus", "vectors"],  # concepts built on the catalog: the files typed
    ["guard"],  # the guard: policy (on the matcher) and the proxy around it
    # engines and checks over those; harness runs a vector file against a guard
    ["discovery", "conformance", "validate", "launch", "harness"],
]
LAYER = {m: i for i, group in enumerate(LAYERS) for m in group}

# Known findings that are tolerated for now, each with why. Keep it empty when possible: every
# entry is a structural debt. Entries are (from, to) pairs of top-level modules.
ALLOW = {}

# The layers of the files inside a module, lowest first, as for LAYERS. A file of the module missing
# here is an error.
SUBMODULE_LAYERS = {
    "protected": [
        ["reason", "syntax"],  # what a finding says; URL text split the WHATWG and Chromium ways
        ["host", "pattern"],  # hosts, IPs and extra origins; host patterns with unknown parts
        ["protect"],  # the user's sites, host patterns and origins (--protect), read once
        ["rules"],  # the compiled protectedOrigins and the questions asked of them
        ["fast", "divergence"],  # the byte-level fast paths; every fail-closed divergence judgment
        ["matcher"],  # Matcher, the public face: rules 1 to 4 and targets, cookies, storage keys
        ["vectors"],  # protected.json's vectors (feature corpus)
    ],
}

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "src")

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# A path that starts at the crate root or climbs with super: `crate::a::b`, `super::super::x`,
# either possibly ending in a `::{` group.
PATH_START = re.compile(r"(?<![A-Za-z0-9_:])(crate|super)((?:::" + NAME + r")*)(::\{)?")


def strip_comments(line, in_block):
    """The code of one line, without // comments and /* */ blocks (string contents kept)."""
    out = []
    i = 0
    in_str = False
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i = end + 2
            in_block = False
            continue
        c = line[i]
        if in_str:
            out.append(c)
            if c == "\\":
                out.append(line[i + 1 : i + 2])
                i += 2
                continue
            if c == '"':
                in_str = False
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_block = True
            i += 2
            continue
        else:
            if c == '"':
                in_str = True
            out.append(c)
        i += 1
    return "".join(out), in_block


def code_of(path):
    """The lines of a file without comments."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    code = []
    in_block = False
    for line in lines:
        c, in_block = strip_comments(line, in_block)
        code.append(c)
    return code



def module_tree():
    """{module path (tuple of names): file} for every module file of the library (not src/bin)."""
    mods = {}
    for dirpath, dirs, files in os.walk(SRC):
        dirs[:] = sorted(d for d in dirs if not (dirpath == SRC and d == "bin"))
        rel = os.path.relpath(dirpath, SRC)
        folder = () if rel == "." else tuple(rel.split(os.sep))
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            if folder == () and name in ("lib.rs", "main.rs"):
                mods[()] = os.path.join(dirpath, name)
            elif name == "mod.rs":
                mods[folder] = os.path.join(dirpath, name)
            else:
                mods[folder + (name[:-3],)] = os.path.join(dirpath, name)
    # A folder without mod.rs (none today) is still a module.
    for m in list(mods):
        for i in range(1, len(m)):
            mods.setdefault(m[:i], None)
    return mods


def group_paths(text, start):
    """The full paths (lists of names) of the items of the `{...}` group opening at `start`,
    nested groups expanded."""
    out = []
    i = start + 1
    prefix = []
    item = ""
    stack = []  # prefixes of the enclosing groups
    base = []
    while i < len(text):
        c = text[i]
        if c == "{":
            stack.append(base)
            base = base + [n for n in item.split("::") if n.strip()]
            base = [n.strip() for n in base]
            item = ""
        elif c in ",}":
            names = [n.strip() for n in item.split("::") if n.strip()]
            if names:
                out.append(base + names)
            item = ""
            if c == "}":
                if not stack:
                    break
                base = stack.pop()
        else:
            item += c
        i += 1
    del prefix
    return [[re.match(r"[A-Za-z_0-9*]*", n).group(0) for n in p] for p in out]


def raw_references(text):
    """(position, root, names) for each `crate::`/`super::` path of `text`; root is "crate" or
    the number of supers."""
    found = []
    for m in PATH_START.finditer(text):
        segs = [n for n in m.group(2).split("::") if n]
        root = m.group(1)
        if root == "super":
            ups = 1
            while segs and segs[0] == "super":
                ups += 1
                segs = segs[1:]
            root = ups
        if m.group(3):
            for g in group_paths(text, m.end() - 1):
                found.append((m.start(), root, segs + g))
        else:
            found.append((m.start(), root, segs))
    return found


def resolve(here, root, names, mods):
    """The module path a reference names (its longest prefix that is a module), or None."""
    if root == "crate":
        base = ()
    else:
        if root > len(here):
            return None
        base = here[: len(here) - root]
    path = base
    for n in names:
        if path + (n,) in mods:
            path = path + (n,)
        else:
            break
    return path


def references(mods):
    """{folder: {(a, b): (file, line)}}: the first reference from each child a of a folder to a
    sibling b, at every depth (folder () is the top level); and the lib.rs reach-ups."""
    edges = {}
    reach_up = []
    for here, path in sorted(mods.items()):
        if path is None or here == ():
            continue
        code = code_of(path)
        text = "\n".join(code)
        is_tests = here[-1] == "tests" and not path.endswith("mod.rs")
        for pos, root, names in raw_references(text):
            line = text.count("\n", 0, pos) + 1
            at = (os.path.relpath(path, ROOT), line)
            if root == "crate" and names and (names[0],) not in mods and names[0] not in ("self",):
                reach_up.append((at, "crate::" + names[0]))
                continue
            target = resolve(here, root, names, mods)
            if target is None:
                continue
            k = 0
            while k < min(len(here), len(target)) and here[k] == target[k]:
                k += 1
            if k >= len(here) or k >= len(target):
                continue  # a module and its own ancestor or descendant
            if is_tests and k == len(here) - 1:
                continue  # tests.rs uses the whole module
            folder = here[:k]
            key = (here[k], target[k])
            bucket = edges.setdefault(folder, {})
            if key not in bucket or at < bucket[key]:
                bucket[key] = at
    return edges, reach_up


def circles(bucket):
    """The strongly connected components of two or more nodes of a folder's reference graph."""
    graph = {}
    for a, b in bucket:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index = {}
    low = {}
    on = set()
    stack = []
    out = []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def folder_name(folder):
    return "src/" + "/".join(folder) + ("/" if folder else "")


def main():
    mods = module_tree()
    edges, reach_up = references(mods)
    problems = []
    top = {m[0] for m in mods if len(m) == 1}
    for mod in sorted(top - set(LAYER)):
        problems.append(f"module `{mod}` has no layer in LAYERS (scripts/module-cycles.py)")
    for at, item in reach_up:
        problems.append(f"reach-up: {at[0]}:{at[1]} names `{item}`, an item of lib.rs; name it in its own module")
    layers = {(): LAYERS}
    for module, ls in SUBMODULE_LAYERS.items():
        layers[(module,)] = ls
    for folder, ls in layers.items():
        layer = {m: i for i, group in enumerate(ls) for m in group}
        children = {m[len(folder)] for m in mods if len(m) > len(folder) and m[: len(folder)] == folder}
        children -= {"mod", "tests"}
        for c in sorted(children - set(layer)):
            problems.append(f"{folder_name(folder)}: `{c}` has no layer (scripts/module-cycles.py)")
        for (a, b), (f, n) in sorted(edges.get(folder, {}).items()):
            if a in layer and b in layer and layer[a] < layer[b]:
                problems.append(
                    f"{folder_name(folder)}: layer: {a} (layer {layer[a]}) references higher {b} "
                    f"(layer {layer[b]}) at {f}:{n}"
                )
    total = 0
    for folder, bucket in sorted(edges.items()):
        total += len(bucket)
        for comp in circles(bucket):
            members = set(comp)
            shown = ", ".join(
                f"{a} -> {b} at {f}:{n}" for (a, b), (f, n) in sorted(bucket.items()) if a in members and b in members
            )
            problems.append(f"{folder_name(folder)}: circle: {' <-> '.join(comp)}: {shown}")
    for p in problems:
        print(f"module-cycles: {p}", file=sys.stderr)
    if problems:
        print(f"module-cycles: {len(problems)} problem(s) in {total} references", file=sys.stderr)
        return 1
    print(
        f"module-cycles: ok: {total} references between sibling modules in {len(edges)} folders "
        f"(top level: {len(edges.get((), {}))}), no circle at any depth, no upward reference, "
        f"no reach-up into lib.rs"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
