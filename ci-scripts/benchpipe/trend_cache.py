"""The site folder's cache of the trend charts' rows (`.cache/trend-weeks.marshal`,
`.cache/trend-days.marshal`).

Before its newest 120 days a trend chart draws one point an ISO week back to two years,
one a calendar month before that (the medians of the week's or month's figures), and in
the newest 120 days each night's point (charts.drawn_points). At ten years that is ~96
months, ~87 weeks and 120 nights a series, and taking the medians and writing every point's row
as text was most of the chart stage's Python every night, for points that had not
changed. So the site folder keeps them (a month is kept as a week is; the months end
at a month's first day, and when that moves on the points of the same weeks and months
are taken from here all the same: charts._kept_groups):

- weeks: each series' complete weeks (date, figures, the row written and the scale
  factors it was written at), under the span of points they cover: its first and last
  point (run and date), how many points and weeks. Runs are named by a digest of their
  whole results (history.run_id_of) and the history only ever gains entries, so weeks
  that span as many points from the same first to the same last hold the same points; a
  late run that lands in one makes them a miss. A night adds a point to the week at the
  edge of the weekly part, which is not kept; a week later it is complete, and taken then
  (the weeks kept before it are those of that span). So this file is rewritten only when
  a week completes or a family's scale changes, about one night in seven.
- days: each series' rows of the points drawn alone, with the index, run and date of
  the first and last and the scale factors. A series is in date order and only gains
  points, so where the same points are at those two indices, none came in between (one
  would have moved the last along) and the rows from tonight's first point to the kept
  last are the same; the rest are written. Rewritten every night.

Derived data only, in columns_cache's frame (the first line says the format, Python's
version, a digest of the code that makes the rows and the metrics drawn): anything else
is a miss, and the rows are made again. Trusted as far as the site folder it is in. A
render keeps only the series it drew."""

from __future__ import annotations

import functools
from pathlib import Path

from benchpipe import columns_cache

WEEKS = "trend-weeks.marshal"
DAYS = "trend-days.marshal"
MAX_BYTES = 2 * 2**30   # ten years of one OS: ~35 MiB of weeks, ~15 MiB of days
# what makes a trend chart's points and rows (charts._trend_chart and what it calls)
_CODE = ("trend_cache.py", "charts.py", "metrics.py", "trends.py", "units.py")


@functools.cache
def _start(kind: str, metrics: tuple[str, ...]) -> bytes:
    return f"{columns_cache.frame_line(f'bench-trend-{kind}/1', _CODE)} metrics {','.join(metrics)}\n".encode()


class _Kept:
    """One file's series: those kept (none: no folder, or a file that does not check)
    and those this render drew, which save() keeps in their place."""

    def __init__(self, path: Path | None, start: bytes):
        self.path, self.start = path, start
        kept = columns_cache.read_framed(path, start, MAX_BYTES) if path is not None else None
        self.kept: dict = kept if type(kept) is dict else {}
        self.used: dict = {}
        self.changed = False   # rows made or rewritten: the file is out of date

    def get(self, sid: str, size: int) -> tuple | None:
        v = self.kept.get(sid)
        return v if type(v) is tuple and len(v) == size else None

    def put(self, sid: str, value: tuple, new: bool) -> None:
        if self.path is not None:
            self.used[sid] = value
            self.changed |= new

    def save(self) -> None:
        if self.path is not None and (self.changed or self.used.keys() != self.kept.keys()):
            columns_cache.write_framed(self.path, self.start, self.used)


class TrendCache:
    """The trend charts' kept weeks and days in folder (None: nothing kept)."""

    def __init__(self, folder: Path | None, metrics: tuple[str, ...]):
        folder = Path(folder) if folder is not None else None
        self.weeks = _Kept(folder / WEEKS if folder else None, _start("weeks", metrics))
        self.days = _Kept(folder / DAYS if folder else None, _start("days", metrics))

    def kept_weeks(self, sid: str) -> tuple[tuple, list] | None:
        """A series' kept weeks: (the span's key, [[date, figures per metric, scale
        factors, row], ...] a week), or None."""
        return self.weeks.get(sid, 2)

    def keep_weeks(self, sid: str, span: tuple, weeks: list, new: bool) -> None:
        """Keep a series' complete weeks (new: not those kept before)."""
        self.weeks.put(sid, (span, weeks), new)

    def day_rows(self, sid: str, dates: list[str], runs: list[str], first: int, factors: tuple,
                 make) -> list[str]:
        """The rows of series sid's points first.. (dates, runs: its columns), written at
        these scale factors: those kept where the same points are at the kept first and
        last index, make(i) of the rest; kept for the next render."""
        n = len(dates)
        old = self.days.get(sid, 8)
        rows, start = [], first
        if old is not None:
            a, run_a, date_a, b, run_b, date_b, at, kept = old
            if at == factors and a <= first < b <= n and len(kept) == b - a and (runs[a], dates[a]) == (run_a, date_a) \
                    and (runs[b - 1], dates[b - 1]) == (run_b, date_b):
                rows, start = kept[first - a:], b
        rows += [make(i) for i in range(start, n)]
        if first < n:
            self.days.put(sid, (first, runs[first], dates[first], n, runs[n - 1], dates[n - 1], factors, rows),
                          new=old is None or (old[0], old[3], old[6]) != (first, n, factors))
        return rows

    def save(self) -> None:
        """Keep what this render drew, each file only if it is not what it holds already."""
        self.weeks.save()
        self.days.save()
