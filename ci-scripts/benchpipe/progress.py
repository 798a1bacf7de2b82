"""Progress of a long run: benchmark i of N, elapsed, ETA, the current benchmark.
A live `rich` bar on a terminal; plain lines (one per finished benchmark) when stderr
is not a TTY or CI is set, because a live bar turns into noise in CI logs."""

from __future__ import annotations

import os
import sys
import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


def _fmt(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


class Reporter:
    def __init__(self, total: int, live: bool | None = None):
        self.total = total
        self.done = 0
        self.start = time.monotonic()
        if live is None:
            live = sys.stderr.isatty() and not os.environ.get("CI")
        self.console = Console(stderr=True, highlight=False)
        self._progress = None
        if live:
            self._progress = Progress(
                TextColumn("[bold]bench run[/]"), BarColumn(), MofNCompleteColumn(),
                TextColumn("elapsed"), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                TextColumn("{task.description}"), console=self.console, transient=False,
            )
            self._task = self._progress.add_task("", total=total)

    def __enter__(self):
        if self._progress:
            self._progress.start()
        return self

    def __exit__(self, *exc):
        if self._progress:
            self._progress.stop()

    def begin(self, name: str) -> None:
        if self._progress:
            self._progress.update(self._task, description=name)

    def end(self, name: str, status: str, detail: str = "", count: int = 1) -> None:
        self.done += count
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        line = f"[{self.done}/{self.total}] {status:<7} {name}" + (f"  {detail}" if detail else "")
        if self._progress:
            self._progress.update(self._task, advance=count)
            if status != "ok":  # keep problems visible above the bar
                self._progress.console.print(line, markup=False)
        else:
            print(f"{line}  (elapsed {_fmt(elapsed)}, eta {_fmt(eta)})", file=sys.stderr, flush=True)

    def note(self, text: str) -> None:
        if self._progress:
            self._progress.console.print(text, markup=False)
        else:
            print(text, file=sys.stderr, flush=True)
