"""The package's exceptions."""

from __future__ import annotations

import re
from typing import Optional

_WHERE = re.compile(r"^(.*?):(\d+):(\d+): error: ", re.M)


class Error(Exception):
    """An athene error. ``str(e)`` is the library's diagnostic text: ``file:line:col: error:
    message`` lines, each followed by the source line and a caret. ``filename``, ``line`` and
    ``col`` locate the first error (None where the text has no location)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
        m = _WHERE.search(message)
        self.filename: Optional[str] = m.group(1) if m else None
        self.line: Optional[int] = int(m.group(2)) if m else None
        self.col: Optional[int] = int(m.group(3)) if m else None


class CompileError(Error):
    """A kernel failed to parse, check or compile for the sizes and layouts it was bound to."""


class RunError(Error):
    """A kernel failed while running (a data-dependent index out of range, say). Inputs are
    untouched and out= arrays are not written."""
