#!/usr/bin/env python3
"""The layer check: which file of src/ may use which, from the objects and the includes.

    python3 tests/layers.py --rules docs/layers.txt --src src --obj build/obj [--nm nm]

A file's folder is its directory under --src (`top` for --src itself). The rules file says
which folders each folder may use (docs/layers.txt opens with its format). The check reads

- the objects under --obj (`nm -g -P` on each OBJ/<dir>/<name>.o, whose source is
  SRC/<dir>/<name>.c): every undefined symbol that another object defines is an edge from
  this file to that one; symbols no object defines (libc, libm, pthread) are ignored;
- every `#include "..."` of every .c and .h under --src, resolved as the compiler would (the
  including file's directory, the public header directories, --src, then each -I).

It fails (exit 1), one line per problem, on a cycle between files (each strongly connected
component, with every edge inside it and the symbols that make it), on a symbol edge or an
include from a folder to a folder the rules do not let it use, on an include of a header
restricted to other folders, and on what makes the check itself unsound (a folder with no
rule, a symbol two objects define, an include it cannot resolve or that leaves --src and the
public headers, an include line for a header that does not exist). Bad arguments or a
malformed rules file exit 2. On success it prints one summary line and exits 0. --edges
prints every symbol edge first (`a.c -> b.c: symbols`), to see what a rule would cut.
Python 3 standard library only.
"""

import argparse
import os
import re
import subprocess
import sys

TOP = "top"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


class InputError(Exception):
    """Bad input to the check itself (arguments, rules file, nm): exit 2."""


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


# ---------------------------------------------------------------- the rules

class Rules:
    def __init__(self, path):
        self.path = path
        self.uses = {}       # folder -> set of folders it may use (itself not included)
        self.line = {}       # folder -> line number of its rule
        self.include = {}    # header path under src -> set of folders that may include it
        self.include_line = {}


def split_names(text):
    return [w for w in re.split(r"[\s,]+", text.strip()) if w]


def read_rules(path):
    """Parse the rules file; raise InputError naming path:line on any malformed line."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError("cannot read the rules file %s: %s" % (path, e.strerror))
    rules = Rules(path)
    pending = []  # (lineno, kind, owner, names) checked once every folder is known
    for n, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        if ":" not in text:
            raise InputError("%s:%d: expected 'folder: folders' or "
                             "'include FOLDER/HEADER.h: folders', got %r" % (path, n, raw.strip()))
        head, tail = text.split(":", 1)
        head = head.strip()
        names = split_names(tail)
        words = head.split()
        if len(words) == 2 and words[0] == "include":
            header = words[1]
            if header in rules.include:
                raise InputError("%s:%d: a second include line for %s (the first is line %d)"
                                 % (path, n, header, rules.include_line[header]))
            if not header.endswith(".h") or "/" not in header:
                raise InputError("%s:%d: an include line names a header as FOLDER/NAME.h, "
                                 "got %r" % (path, n, header))
            rules.include[header] = set(names)
            rules.include_line[header] = n
            pending.append((n, "include", header, names))
        elif len(words) == 1:
            folder = words[0].strip("/")
            if folder in rules.uses:
                raise InputError("%s:%d: a second line for folder %s (the first is line %d)"
                                 % (path, n, folder, rules.line[folder]))
            rules.uses[folder] = set(names) - {folder}
            rules.line[folder] = n
            pending.append((n, "folder", folder, names))
        else:
            raise InputError("%s:%d: expected 'folder: folders' or "
                             "'include FOLDER/HEADER.h: folders', got %r" % (path, n, raw.strip()))
    if not rules.uses:
        raise InputError("%s: no folder lines" % path)
    for n, kind, owner, names in pending:
        for name in names:
            if name not in rules.uses:
                raise InputError("%s:%d: %s names folder %s, which has no line of its own"
                                 % (path, n, owner, name))
        if kind == "include":
            home = folder_of(owner)
            if home not in rules.uses:
                raise InputError("%s:%d: %s is in folder %s, which has no line of its own"
                                 % (path, n, owner, home))
            for name in names:
                if name != home and home not in rules.uses[name]:
                    raise InputError("%s:%d: %s may include %s, but the rules do not let %s "
                                     "use %s" % (path, n, name, owner, name, home))
    return rules


def folder_of(rel):
    """The folder of a path relative to src: its directory, or `top`."""
    return os.path.dirname(rel) or TOP


# ---------------------------------------------------------------- the objects

def nm_symbols(nm, obj):
    """(defined, undefined) external symbols of one object: defined is {name: type}."""
    try:
        p = subprocess.run([nm, "-g", "-P", obj], capture_output=True, text=True)
    except OSError as e:
        raise InputError("cannot run %s: %s" % (nm, e.strerror))
    if p.returncode != 0:
        raise InputError("%s -g -P %s failed: %s" % (nm, obj, p.stderr.strip()))
    defined, undefined = {}, set()
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        else:
            defined[name] = kind
    return defined, undefined


def rank(kind):
    """Which definition the linker takes: strong before common before weak."""
    if kind in ("W", "V"):
        return 0
    if kind == "C":
        return 1
    return 2


def find_objects(src, obj):
    """[(name under src, object path)] of every object whose source exists; stale ones apart."""
    found, stale = [], []
    for root, dirs, files in os.walk(obj):
        dirs.sort()
        for fn in sorted(files):
            if not fn.endswith(".o"):
                continue
            path = os.path.join(root, fn)
            rel = os.path.relpath(path, obj)[:-2] + ".c"
            rel = rel.replace(os.sep, "/")
            if os.path.isfile(os.path.join(src, rel)):
                found.append((rel, path))
            else:
                stale.append(path)
    return found, stale


def symbol_graph(objects, nm, out):
    """{(from, to): set of symbols} over the files of the objects."""
    defs = {}   # symbol -> [(rank, file)]
    undef = {}
    for rel, path in objects:
        d, u = nm_symbols(nm, path)
        undef[rel] = u
        for name, kind in d.items():
            defs.setdefault(name, []).append((rank(kind), rel))
    owner = {}
    for name, ds in sorted(defs.items()):
        best = max(r for r, _ in ds)
        files = sorted(f for r, f in ds if r == best)
        if best == 2 and len(files) > 1:
            out.add("other", "duplicate symbol: %s is defined in %s"
                    % (name, " and ".join(files)))
        owner[name] = files
    edges = {}
    for rel, names in undef.items():
        for name in names:
            for to in owner.get(name, ()):
                edges.setdefault((rel, to), set()).add(name)
    return edges


def strongly_connected(nodes, edges):
    """Tarjan's components of more than one file, each sorted, in sorted order."""
    succ = {n: [] for n in nodes}
    for a, b in edges:
        succ[a].append(b)
    for n in succ:
        succ[n].sort()
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ[v]:
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
                comps.append(sorted(comp))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * len(nodes) + 100))
    try:
        for n in sorted(nodes):
            if n not in index:
                visit(n)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(comps)


# ---------------------------------------------------------------- the includes

def source_files(src):
    out = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for fn in sorted(files):
            if fn.endswith((".c", ".h")):
                out.append(os.path.relpath(os.path.join(root, fn), src).replace(os.sep, "/"))
    return out


def resolve(name, rel, src, public, extra):
    """Where a quoted include of file rel finds name, in the compiler's order (the including
    file's directory, the public directories, src, each extra one): ('public', path under
    its directory), ('src', path under src), ('outside', path), or None."""
    here = os.path.dirname(os.path.join(src, rel))
    for d in [here] + public + [src] + extra:
        path = os.path.abspath(os.path.join(d, name))
        if not os.path.isfile(path):
            continue
        for p in public:
            p = os.path.abspath(p)
            if os.path.commonpath([path, p]) == p:
                return ("public", os.path.relpath(path, p).replace(os.sep, "/"))
        s = os.path.abspath(src)
        if os.path.commonpath([path, s]) == s:
            return ("src", os.path.relpath(path, s).replace(os.sep, "/"))
        return ("outside", path)
    return None


def check_includes(src, sources, rules, public, extra, out):
    """Check every quoted include of the files under src; return how many there are."""
    count = 0
    for rel in sources:
        try:
            with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError as e:
            raise InputError("cannot read %s: %s" % (os.path.join(src, rel), e.strerror))
        me = folder_of(rel)
        for n, line in enumerate(lines, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            count += 1
            where = "%s:%d" % (rel, n)
            r = resolve(m.group(1), rel, src, public, extra)
            if r is None:
                out.add("other", 'missing include: %s includes "%s", which is neither under %s '
                        'nor a public header' % (where, m.group(1), src))
                continue
            kind, target = r
            if kind == "public":
                continue
            if kind == "outside":
                out.add("other", 'outside include: %s includes "%s" from %s, outside %s and '
                        'the public headers' % (where, m.group(1), target, src))
                continue
            to = folder_of(target)
            if me not in rules.uses:
                continue  # its folder is reported once, as unknown
            if to != me and to not in rules.uses[me]:
                out.add("forbidden", "forbidden include: %s includes %s (%s may not use %s)"
                        % (where, target, me, to))
            elif target in rules.include and me != to and me not in rules.include[target]:
                allowed = sorted(rules.include[target] | {to})
                out.add("forbidden", "restricted include: %s includes %s (only %s may "
                        "include it)" % (where, target, " and ".join(allowed)))
    return count


# ---------------------------------------------------------------- the check

class Problems:
    """The problem lines, counted by kind: cycles (components), forbidden edges, the rest."""

    def __init__(self):
        self.lines = []
        self.cycles = self.forbidden = self.other = 0

    def add(self, kind, line):
        self.lines.append(line)
        setattr(self, kind, getattr(self, kind) + 1)


def run(args):
    for what, d in (("--src", args.src), ("--obj", args.obj)):
        if not os.path.isdir(d):
            raise InputError("%s %s: no such directory" % (what, d))
    public = args.public
    if public is None:
        default = os.path.join(os.path.dirname(os.path.abspath(args.src)), "include")
        public = [default] if os.path.isdir(default) else []
    for p in public + args.I:
        if not os.path.isdir(p):
            raise InputError("%s: no such directory" % p)
    rules = read_rules(args.rules)
    out = Problems()

    for header, line in sorted(rules.include_line.items()):
        if not os.path.isfile(os.path.join(args.src, header)):
            out.add("other", "stale rule: %s:%d restricts %s, which is not under %s"
                    % (args.rules, line, header, args.src))

    objects, stale = find_objects(args.src, args.obj)
    for path in stale:
        print("layers: ignoring %s: it has no source under %s (stale? make clean)"
              % (path, args.src), file=sys.stderr)
    if not objects:
        raise InputError("no objects of %s under %s (build first)" % (args.src, args.obj))

    sources = source_files(args.src)
    folders = sorted({folder_of(f) for f in sources})
    for folder in folders:
        if folder not in rules.uses:
            first = next(f for f in sources if folder_of(f) == folder)
            out.add("other", "unknown folder: %s (of %s) has no line in %s"
                    % (folder, first, args.rules))

    files = [rel for rel, _ in objects]
    edges = symbol_graph(objects, args.nm, out)
    comps = strongly_connected(files, edges)
    for comp in comps:
        out.cycles += 1
        members = set(comp)
        name = "{" + " ".join(comp) + "}"
        for (a, b), syms in sorted(edges.items()):
            if a in members and b in members:
                out.lines.append("cycle %s: %s -> %s: %s"
                                 % (name, a, b, ", ".join(sorted(syms))))

    for (a, b), syms in sorted(edges.items()):
        fa, fb = folder_of(a), folder_of(b)
        if fa == fb or fa not in rules.uses or fb in rules.uses[fa]:
            continue
        out.add("forbidden", "forbidden: %s -> %s (%s may not use %s): %s"
                % (a, b, fa, fb, ", ".join(sorted(syms))))

    if args.edges:
        for (a, b), syms in sorted(edges.items()):
            print("layers: edge %s -> %s: %s" % (a, b, ", ".join(sorted(syms))))

    includes = check_includes(args.src, sources, rules, public, args.I, out)

    counts = "%s, %s, %s, %s" % (plural(len(files), "file"), plural(len(edges), "edge"),
                                 plural(len(folders), "folder"), plural(includes, "include"))
    for line in out.lines:
        print("layers: " + line)
    if out.lines:
        print("layers: FAILED: %s, %s, %d forbidden, %s"
              % (counts, plural(out.cycles, "cycle"), out.forbidden,
                 plural(out.other, "other problem")))
        return 1
    print("layers: %s, no cycles, 0 forbidden" % counts)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", required=True, help="the rules file (docs/layers.txt)")
    ap.add_argument("--src", required=True, help="the source tree (src)")
    ap.add_argument("--obj", required=True, help="the objects of that tree (build/obj)")
    ap.add_argument("--nm", default="nm", help="the nm to run (default nm)")
    ap.add_argument("--public", action="append", default=None, metavar="DIR",
                    help="a directory of public headers, always allowed (default: include/ "
                         "beside --src); repeatable")
    ap.add_argument("-I", action="append", default=[], metavar="DIR",
                    help="one more directory quoted includes are searched in; repeatable")
    ap.add_argument("--edges", action="store_true",
                    help="print every symbol edge between files first")
    args = ap.parse_args(argv)
    try:
        return run(args)
    except InputError as e:
        print("layers: error: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
