"""A pytest plugin (`-p leave_out`, with tests/ on the path): `--leave-out=FILE` deselects the
tests whose node ids FILE lists, one per line, as `pytest --collect-only -q` prints them. Both
runs need the same `--rootdir` (node ids are relative to it), and the `=` form: pytest takes a
separate argument that names a file as a path when it chooses the root directory.
`make test-rest` lists what `make test` collects and leaves it out of what ATHENE_TEST_ALL=1
collects, so that CI, which runs both, runs no test twice."""


def pytest_addoption(parser):
    parser.addoption("--leave-out", metavar="FILE", default=None,
                     help="deselect the tests whose node ids FILE lists (one per line)")


def pytest_collection_modifyitems(config, items):
    path = config.getoption("--leave-out")
    if path is None:
        return
    with open(path, encoding="utf-8") as f:
        ids = {line.strip() for line in f if "::" in line}
    if not ids:
        raise RuntimeError(f"--leave-out {path}: no node ids in it (an empty list would leave nothing out)")
    drop = [it for it in items if it.nodeid in ids]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = [it for it in items if it.nodeid not in ids]
