#!/usr/bin/env python3
"""Checks the crate's module structure: no two top-level modules reference each other, and no
module references one in a higher layer; inside the modules of SUBMODULE_LAYERS, the same for
their files.

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
    ["json", "ports", "error", "http"],  # shared helpers, no concept of their own
    ["catalog"],  # the catalog: browsers, locations, homes, origins
    ["protected", "corpus", "guard"],  # concepts built on the catalog
    ["discovery", "conformance", "validate", "launch"],  # engines and checks over those
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
        ["rules"],  # the compiled protectedOrigins and the questions asked of them
        ["fast", "divergence"],  # the byte-level fast paths; every fail-closed divergence judgment
        ["matcher"],  # Matcher, the public face: rules 1 to 4 and targets, cookies, storage keys
        ["vectors"],  # protected.json's vectors (feature corpus)
    ],
}

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "src")

GROUP = re.compile(r"\bcrate::\{")
PATH = re.compile(r"\bcrate::([a-z_][a-z0-9_]*)")


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


def group_names(text, start):
    """The first path segment of every item of the `crate::{...}` group opening at `start`."""
    depth = 0
    names = []
    item = ""
    for c in text[start:]:
        if c == "{":
            depth += 1
            if depth == 1:
                continue
        elif c == "}":
            depth -= 1
            if depth == 0:
                break
        if depth == 1 and c == ",":
            names.append(item)
            item = ""
        else:
            item += c
    names.append(item)
    out = []
    for n in names:
        m = re.match(r"\s*([a-z_][a-z0-9_]*)", n)
        if m:
            out.append(m.group(1))
    return out


def module_of(path):
    """The top-level module a file under src/ belongs to, or None (lib.rs, src/bin)."""
    rel = os.path.relpath(path, SRC).replace(os.sep, "/")
    if rel.startswith("bin/") or rel == "lib.rs":
        return None
    return rel.split("/")[0].removesuffix(".rs")


def top_level_modules():
    """The crate's top-level modules: the .rs files and dirs directly under src/ (not bin)."""
    out = set()
    for name in os.listdir(SRC):
        if name.endswith(".rs") and name not in ("lib.rs", "main.rs"):
            out.add(name[:-3])
        elif os.path.isdir(os.path.join(SRC, name)) and name != "bin":
            out.add(name)
    return out


def references():
    """{(from, to): (file, line)} for each first reference between two top-level modules."""
    modules = top_level_modules()
    refs = {}
    for dirpath, dirs, files in os.walk(SRC):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            here = module_of(path)
            if here is None:
                continue
            code = code_of(path)
            text = "\n".join(code)
            starts = [0]
            for c in code:
                starts.append(starts[-1] + len(c) + 1)

            def line_at(pos):
                lo, hi = 0, len(starts) - 1
                while lo < hi:
                    mid = (lo + hi + 1) // 2
                    if starts[mid] <= pos:
                        lo = mid
                    else:
                        hi = mid - 1
                return lo + 1

            found = [(m.start(), m.group(1)) for m in PATH.finditer(text)]
            for m in GROUP.finditer(text):
                for n in group_names(text, m.end() - 1):
                    found.append((m.start(), n))
            for pos, target in found:
                # Items of the crate root (constants and re-exports in lib.rs) are not modules.
                if target == here or target not in modules:
                    continue
                key = (here, target)
                at = (os.path.relpath(path, ROOT), line_at(pos))
                if key not in refs or at < refs[key]:
                    refs[key] = at
    return refs


SUPER = re.compile(r"\b((?:super::)+)([a-z_][a-z0-9_]*)")
SUPER_GROUP = re.compile(r"\bsuper::\{")


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


def submodule_references(module):
    """{(from, to): line} for each first reference between two files of `module`, and the set
    of its files (without mod.rs and tests.rs)."""
    base = os.path.join(SRC, module)
    files = {}
    for name in sorted(os.listdir(base)):
        full = os.path.join(base, name)
        if name.endswith(".rs") and name not in ("mod.rs", "tests.rs"):
            files[name[:-3]] = full
        elif os.path.isdir(full):
            files[name] = os.path.join(full, "mod.rs")
    own = re.compile(r"\bcrate::" + module + r"::([a-z_][a-z0-9_]*)")
    own_group = re.compile(r"\bcrate::" + module + r"::\{")
    refs = {}
    for here, path in files.items():
        if not os.path.exists(path):
            continue
        text = "\n".join(code_of(path))
        found = [(m.start(), m.group(2)) for m in SUPER.finditer(text)]
        found += [(m.start(), m.group(1)) for m in own.finditer(text)]
        for m in list(SUPER_GROUP.finditer(text)) + list(own_group.finditer(text)):
            found += [(m.start(), n) for n in group_names(text, m.end() - 1)]
        for pos, target in found:
            if target != here and target in files:
                at = (os.path.relpath(path, ROOT), text.count("\n", 0, pos) + 1)
                if (here, target) not in refs or at < refs[(here, target)]:
                    refs[(here, target)] = at
    return refs, set(files)


def check_submodules():
    """Problems in the layering of the files of each module of SUBMODULE_LAYERS."""
    problems = []
    count = 0
    for module, layers in SUBMODULE_LAYERS.items():
        layer = {m: i for i, group in enumerate(layers) for m in group}
        refs, files = submodule_references(module)
        count += len(refs)
        for f in sorted(files - set(layer)):
            problems.append(f"{module}: file `{f}` has no layer in SUBMODULE_LAYERS (scripts/module-cycles.py)")
        for (a, b), (f, n) in sorted(refs.items()):
            if (b, a) in refs and a < b:
                g, m = refs[(b, a)]
                problems.append(
                    f"{module}: cycle: {a} <-> {b}: {a} -> {b} at {f}:{n}, {b} -> {a} at {g}:{m}"
                )
            if a in layer and b in layer and layer[a] < layer[b]:
                problems.append(
                    f"{module}: layer: {a} (layer {layer[a]}) references higher {b} "
                    f"(layer {layer[b]}) at {f}:{n}"
                )
    return problems, count


def main():
    refs = references()
    problems = []
    for mod in sorted(top_level_modules() - set(LAYER)):
        problems.append(f"module `{mod}` has no layer in LAYERS (scripts/module-cycles.py)")
    tolerated = []
    for (a, b), (f, n) in sorted(refs.items()):
        if a not in LAYER or b not in LAYER:
            continue
        msgs = []
        if (b, a) in refs and a < b:
            g, m = refs[(b, a)]
            msgs.append(f"cycle: {a} <-> {b}: {a} -> {b} at {f}:{n}, {b} -> {a} at {g}:{m}")
        if LAYER[a] < LAYER[b]:
            msgs.append(f"layer: {a} (layer {LAYER[a]}) references higher {b} (layer {LAYER[b]}) at {f}:{n}")
        for msg in msgs:
            if (a, b) in ALLOW or (b, a) in ALLOW and msg.startswith("cycle"):
                tolerated.append(f"{msg}  [allowed: {ALLOW.get((a, b)) or ALLOW.get((b, a))}]")
            else:
                problems.append(msg)
    sub_problems, sub_edges = check_submodules()
    problems += sub_problems
    for t in tolerated:
        print(f"module-cycles: tolerated {t}")
    for p in problems:
        print(f"module-cycles: {p}", file=sys.stderr)
    edges = len(refs)
    if problems:
        print(f"module-cycles: {len(problems)} problem(s) in {edges} module references", file=sys.stderr)
        return 1
    print(
        f"module-cycles: ok: {edges} references between top-level modules, no cycle, "
        f"no upward reference ({len(tolerated)} tolerated by ALLOW); {sub_edges} references "
        f"between the files of {', '.join(SUBMODULE_LAYERS)}, no cycle, no upward reference"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
