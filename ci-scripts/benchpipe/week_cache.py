"""The site folder's cache of the trend charts' weekly points (`.cache/week-points.marshal`).

Before its newest year a trend chart draws one point an ISO week, the medians of that
week's figures (charts.drawn_points). At ten years that is ~470 weeks a series, and
taking their medians and writing them as text was most of the chart stage's Python
every night, for weeks that had not changed. So each complete week's point is kept: its
date, its figures and the row written for it (with the scale factors it was written at).

A series' weeks are kept together, under the span of points they cover: its first and
last point (run and date), how many points and weeks. Runs are named by a digest of their
whole results (history.run_id_of) and the history only ever gains entries, so weeks that
span as many points from the same first to the same last hold the same points; a late
run that lands in one makes them a miss. A night adds a point to the week at the edge of
the weekly part, which is not kept; a week later it is complete, and taken then (the
weeks kept before it are those of that span). So the file is rewritten only when a week
completes or a family's scale changes, about one night in seven.

Derived data only, in columns_cache's frame (the first line says the format, Python's
version, a digest of the code that makes a week's point and the metrics drawn): anything
else is a miss, and the weeks are taken again. Trusted as far as the site folder it is
in. A render keeps only the weeks it drew."""

from __future__ import annotations

import functools
import marshal
import sys
from pathlib import Path

from benchpipe import columns_cache

NAME = "week-points.marshal"
MAX_BYTES = 2 * 2**30   # ten years of one OS are ~40 MiB
# what makes a week's point and its row (charts._trend_chart and what it calls)
_CODE = ("week_cache.py", "charts.py", "metrics.py", "trends.py", "units.py")


@functools.cache
def _start(metrics: tuple[str, ...]) -> bytes:
    return (f"bench-weeks/1 marshal {marshal.version} py{sys.version_info[0]}.{sys.version_info[1]} "
            f"code {columns_cache.code_digest(_CODE)} metrics {','.join(metrics)}\n").encode()


class WeekCache:
    """The weeks kept at path (none: path None, or a file that does not check), and the
    weeks this render draws, which save() keeps in their place."""

    def __init__(self, path: Path | None, metrics: tuple[str, ...]):
        self.path, self.metrics = path, metrics
        kept = columns_cache.read_framed(path, _start(metrics), MAX_BYTES) if path is not None else None
        self.kept: dict = kept if type(kept) is dict else {}
        self.used: dict = {}
        self.changed = False   # weeks taken or rewritten: the file is out of date

    def get(self, sid: str) -> tuple[tuple, list] | None:
        """A series' kept weeks: (the span's key, [[date, figures per metric, scale
        factors, row], ...] a week), or None."""
        w = self.kept.get(sid)
        return w if type(w) is tuple and len(w) == 2 else None

    def put(self, sid: str, span: tuple, weeks: list, new: bool) -> None:
        """Keep a series' complete weeks (new: not those kept before)."""
        if self.path is not None:
            self.used[sid] = (span, weeks)
            self.changed |= new

    def save(self) -> None:
        """Keep the weeks this render drew, if they are not what the file holds already."""
        if self.path is not None and (self.changed or self.used.keys() != self.kept.keys()):
            columns_cache.write_framed(self.path, _start(self.metrics), self.used)
