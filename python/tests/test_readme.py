"""python/README.md: its Python example runs as written and prints what the README shows."""

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def blocks():
    text = README.read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    shown = re.search(r"```python\n.*?```\s*\nprints\n\n```text\n(.*?)```", text, re.S).group(1)
    return code, shown


def test_readme_example_prints_what_it_shows(tmp_path):
    code, shown = blocks()
    script = tmp_path / "example.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == shown
