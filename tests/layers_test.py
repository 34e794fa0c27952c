"""tests/layers.py on small C trees built here: a clean one passes with exact counts, and
each kind of violation fails with the line that names it (files, symbols, folders)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
TOOL = HERE / "layers.py"
CC = os.environ.get("CC", "cc")

sys.path.insert(0, str(HERE))
import layers  # noqa: E402  (the tool itself, for its rules parser)

RULES = """\
# a comment, then the folders
base:                 # nothing
front: base
top: base, front      # commas or blanks
include front/front.h: top
"""

# base <- front <- top, through calls and a global; libc calls and a static helper of the
# same name in two files, which must make no edge.
CLEAN = {
    "include/pub.h": "int pub_api(int x);\n",
    "src/base/base.h": "int base_add(int a, int b);\nextern int base_count;\n",
    "src/base/util.c": """\
#include <stdio.h>
#include "base.h"
int base_count = 1;
static int helper(void) { return puts("u"); }
int base_add(int a, int b) { return a + b + helper(); }
""",
    "src/front/front.h": '#include "../base/base.h"\nint front_parse(int x);\n',
    "src/front/parse.c": """\
#include <stdio.h>
#include "front.h"
#include "base/base.h"
int front_depth = 2;
static int helper(void) { return puts("p"); }
int front_parse(int x) { return base_add(x, base_count) + helper(); }
""",
    "src/api.c": """\
#include "pub.h"
#include "front/front.h"
int pub_api(int x) { return front_parse(x) + base_add(x, 1); }
""",
}
CLEAN_SUMMARY = "layers: 3 files, 3 edges, 3 folders, 6 includes, no cycles, 0 forbidden"


def build(tmp, files, rules=RULES, cflags=()):
    """Write files under tmp, compile every .c under tmp/src to tmp/obj/<same path>.o."""
    files = {**CLEAN, **files}
    for rel, text in files.items():
        p = tmp / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (tmp / "layers.txt").write_text(rules)
    for c in sorted((tmp / "src").rglob("*.c")):
        rel = c.relative_to(tmp / "src").with_suffix(".o")
        o = tmp / "obj" / rel
        o.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([CC, "-std=c11", "-O1", "-Iinclude", "-Isrc", *cflags, "-c",
                        str(c.relative_to(tmp)), "-o", str(o.relative_to(tmp))],
                       cwd=tmp, check=True)


def check(tmp, *extra):
    p = subprocess.run([sys.executable, str(TOOL), "--rules", "layers.txt", "--src", "src",
                        "--obj", "obj", *extra], cwd=tmp, capture_output=True, text=True)
    return p.returncode, p.stdout.splitlines(), p.stderr


def problems(lines):
    """The problem lines, without the prefix; the summary last line apart."""
    assert lines and lines[-1].startswith("layers: FAILED: "), lines
    return [l[len("layers: "):] for l in lines[:-1]]


def test_clean_tree_passes(tmp_path):
    build(tmp_path, {})
    rc, out, err = check(tmp_path)
    assert (rc, out, err) == (0, [CLEAN_SUMMARY], "")
    rc, out, _ = check(tmp_path, "--edges")
    assert (rc, out) == (0, ["layers: edge api.c -> base/util.c: base_add",
                             "layers: edge api.c -> front/parse.c: front_parse",
                             "layers: edge front/parse.c -> base/util.c: base_add, base_count",
                             CLEAN_SUMMARY])


def test_two_file_cycle(tmp_path):
    build(tmp_path, {
        "src/base/a.c": "int b_g(void);\nint a_f(void) { return b_g(); }\n",
        "src/base/b.c": "int a_f(void);\nint b_g(void) { return a_f() + 1; }\n",
    })
    rc, out, _ = check(tmp_path)
    assert rc == 1
    assert problems(out) == [
        "cycle {base/a.c base/b.c}: base/a.c -> base/b.c: b_g",
        "cycle {base/a.c base/b.c}: base/b.c -> base/a.c: a_f",
    ]
    assert out[-1] == ("layers: FAILED: 5 files, 5 edges, 3 folders, 6 includes, "
                       "1 cycle, 0 forbidden, 0 other problems")


def test_three_file_cycle(tmp_path):
    # x -> y -> z -> x, and api.c -> x from outside: only the three closing edges are printed.
    build(tmp_path, {
        "src/front/x.c": "int y_f(int);\nint x_f(int n) { return n ? y_f(n - 1) : 0; }\n",
        "src/front/y.c": "int z_f(int);\nint y_f(int n) { return n ? z_f(n - 1) : 1; }\n",
        "src/front/z.c": "int x_f(int);\nint z_f(int n) { return n ? x_f(n - 1) : 2; }\n",
        "src/api.c": CLEAN["src/api.c"] + "int x_f(int);\nint api_x(void) { return x_f(3); }\n",
    })
    rc, out, _ = check(tmp_path)
    assert rc == 1
    comp = "cycle {front/x.c front/y.c front/z.c}: "
    assert problems(out) == [
        comp + "front/x.c -> front/y.c: y_f",
        comp + "front/y.c -> front/z.c: z_f",
        comp + "front/z.c -> front/x.c: x_f",
    ]
    assert ", 1 cycle, 0 forbidden, 0 other problems" in out[-1]


def test_forbidden_call(tmp_path):
    build(tmp_path, {
        "src/base/bad.c": "int front_parse(int);\nint bad(void) { return front_parse(1); }\n",
    })
    rc, out, _ = check(tmp_path)
    assert rc == 1
    assert problems(out) == [
        "forbidden: base/bad.c -> front/parse.c (base may not use front): front_parse"]
    assert ", no cycles" not in out[-1] and ", 0 cycles, 1 forbidden, 0 other" in out[-1]


def test_forbidden_global(tmp_path):
    build(tmp_path, {
        "src/base/bad.c": "extern int front_depth;\nint bad(void) { return front_depth; }\n",
    })
    rc, out, _ = check(tmp_path)
    assert rc == 1
    assert problems(out) == [
        "forbidden: base/bad.c -> front/parse.c (base may not use front): front_depth"]


def test_forbidden_edge_lists_every_symbol(tmp_path):
    build(tmp_path, {
        "src/base/bad.c": "extern int front_depth;\nint front_parse(int);\n"
                          "int bad(void) { return front_parse(front_depth); }\n",
    })
    rc, out, _ = check(tmp_path)
    assert rc == 1
    assert problems(out) == ["forbidden: base/bad.c -> front/parse.c (base may not use front): "
                             "front_depth, front_parse"]


def test_forbidden_include(tmp_path):
    # The header alone, no symbol: the include is the edge.
    build(tmp_path, {
        "src/base/bad.c": '#include "base.h"\n#include "../front/front.h"\n'
                          "int bad(int x) { return x; }\n",
    })
    rc, out, _ = check(tmp_path)
    assert rc == 1
    assert problems(out) == [
        "forbidden include: base/bad.c:2 includes front/front.h (base may not use front)"]


def test_header_restricted_to_other_folders(tmp_path):
    rules = RULES.replace("top: base, front", "analysis: base front\ntop: base front analysis")
    build(tmp_path, {
        "src/front/ast.h": "typedef struct Node { int op; } Node;\n",
        "src/analysis/lower.c": '#include "front/ast.h"\n#include "front/front.h"\n'
                                "int lower(Node *n) { return front_parse(n->op); }\n",
    }, rules=rules)
    rc, out, _ = check(tmp_path)
    assert rc == 1
    # analysis may use front and include its AST header, but not front.h.
    assert problems(out) == ["restricted include: analysis/lower.c:2 includes front/front.h "
                             "(only front and top may include it)"]


def test_unknown_folder(tmp_path):
    build(tmp_path, {"src/cpu/exec.c": "int exec_run(void) { return 0; }\n"})
    rc, out, _ = check(tmp_path)
    assert rc == 1
    assert problems(out) == ["unknown folder: cpu (of cpu/exec.c) has no line in layers.txt"]


def test_duplicate_symbol(tmp_path):
    build(tmp_path, {"src/base/again.c": "int base_add(int a, int b) { return a - b; }\n"})
    rc, out, _ = check(tmp_path)
    assert rc == 1
    assert problems(out) == [
        "duplicate symbol: base_add is defined in base/again.c and base/util.c"]


def test_missing_include(tmp_path):
    build(tmp_path, {"src/base/gone.h": "int gone(void);\n",
                     "src/base/bad.c": '#include "gone.h"\nint bad(void) { return 0; }\n'})
    (tmp_path / "src/base/gone.h").unlink()
    rc, out, _ = check(tmp_path)
    assert rc == 1
    assert problems(out) == ['missing include: base/bad.c:1 includes "gone.h", which is '
                             'neither under src nor a public header']


def test_outside_include(tmp_path):
    build(tmp_path, {"tests/testlib.h": "int check(void);\n",
                     "src/base/bad.c": '#include "../../tests/testlib.h"\n'
                                       "int bad(void) { return 0; }\n"})
    rc, out, _ = check(tmp_path)
    assert rc == 1
    assert problems(out) == ['outside include: base/bad.c:1 includes "../../tests/testlib.h" from '
                             '%s, outside src and the public headers'
                             % os.path.abspath(tmp_path / "tests/testlib.h")]


def test_stale_rule(tmp_path):
    build(tmp_path, {}, rules=RULES + "include base/gone.h:\n")
    rc, out, _ = check(tmp_path)
    assert rc == 1
    assert problems(out) == [
        "stale rule: layers.txt:6 restricts base/gone.h, which is not under src"]


def test_stale_object_is_ignored(tmp_path):
    # An object left from a file that moved (obj/util.o beside obj/base/util.o) is not linked.
    build(tmp_path, {"src/util.c": "int base_add(int a, int b) { return a * b; }\n"})
    (tmp_path / "src/util.c").unlink()
    rc, out, err = check(tmp_path)
    assert (rc, out) == (0, [CLEAN_SUMMARY])
    assert "ignoring obj/util.o: it has no source under src" in err


def test_bad_input_is_a_clear_error(tmp_path):
    build(tmp_path, {}, rules=RULES + "cpu: base gpu\n")
    rc, out, err = check(tmp_path)
    assert (rc, out) == (2, [])
    assert err == ("layers: error: layers.txt:6: cpu names folder gpu, "
                   "which has no line of its own\n")

    (tmp_path / "layers.txt").write_text(RULES + "include front/front.h: base\n")
    rc, _, err = check(tmp_path)
    assert rc == 2 and "layers.txt:6: a second include line for front/front.h" in err

    (tmp_path / "layers.txt").write_text("base:\nfront: base\ninclude front/front.h: base\n")
    rc, _, err = check(tmp_path)
    assert rc == 2
    assert "base may include front/front.h, but the rules do not let base use front" in err

    (tmp_path / "layers.txt").write_text("base front\n")
    rc, _, err = check(tmp_path)
    assert rc == 2 and "layers.txt:1: expected 'folder: folders'" in err

    (tmp_path / "layers.txt").write_text(RULES)
    rc, _, err = check(tmp_path, "--nm", "no-such-nm")
    assert rc == 2 and "layers: error: cannot run no-such-nm" in err

    rc, _, err = check(tmp_path, "--nm", "false")
    assert rc == 2 and "false -g -P obj/" in err

    for o in (tmp_path / "obj").rglob("*.o"):
        o.unlink()
    rc, _, err = check(tmp_path)
    assert rc == 2 and "no objects of src under obj (build first)" in err


def test_the_project_rules_parse():
    rules = layers.read_rules(str(HERE.parent / "docs" / "layers.txt"))
    assert rules.uses["base"] == set()
    assert "top" in rules.uses


def test_include_search_dirs(tmp_path):
    # "base.h" from front/ resolves only through -I src/base, as the compiler would.
    build(tmp_path, {"src/front/lex.c": '#include "base.h"\n'
                                        "int lex(void) { return base_count; }\n"},
          cflags=["-Isrc/base"])
    rc, out, _ = check(tmp_path)
    assert rc == 1
    assert problems(out) == ['missing include: front/lex.c:1 includes "base.h", which is '
                             'neither under src nor a public header']
    rc, out, _ = check(tmp_path, "-I", "src/base")
    assert (rc, out) == (0, [CLEAN_SUMMARY.replace("3 files, 3 edges", "4 files, 4 edges")
                                          .replace("6 includes", "7 includes")])
