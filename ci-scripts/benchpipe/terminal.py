"""The console the commands print their tables to."""

from __future__ import annotations

import sys

from rich.console import Console


def wide_console() -> Console:
    """A terminal's own width; 200 columns otherwise: a CI log or a file is not 80 columns
    wide, and rich would fold a benchmark's name into a column of ten characters."""
    return Console(highlight=False, width=None if sys.stdout.isatty() else 200)
