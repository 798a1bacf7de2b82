"""The compact entries file (history/2): one short row per entry instead of one object
that repeats everything (issue 40: a year of nightly history was 331 MB in history/1).

An entry of history/1 repeats its key, id and channel (the series'), the run's commit,
date, OS, runner, preset and toolchain version (the run record's), and writes each of
its summaries as an object with eight named numbers. A history/2 file says each series
once and each entry as a row:

    {"series":3,"id":"<key id>","key":{...},"channel":"stable"}     a series, once a file
    ["<run id>",3,{"time_s":[median,ci_low,ci_high,n,min,max,mean,stddev],...},"<digest>"]

The row's payload is the entry less what its series and its run record say (a field
that differs from those is kept in the payload, so any entry round-trips), summaries as
arrays in STATS order. Decoding needs the run record (runs/<month>.json): an entry is
whole again only beside it, as the history/1 reader already ignored entries of a run
without one. The digest is the whole entry's, as history/1 wrote it (history.digest_of),
so `history check` proves that a decoded entry is, field for field, the entry that was
written, and that a migrated file lost nothing.

Nothing is rounded or dropped: every number is written as Python's shortest repr
(JSON), the same float that was summarised."""

from __future__ import annotations

SCHEMA = "gorust-bench.history/2"
STATS = ("median", "ci_low", "ci_high", "n", "min", "max", "mean", "stddev")
_STATS_SETS = (frozenset(STATS), frozenset(STATS[:-1]))
# The fields an entry takes from its series (besides id and key) and from its run record.
FROM_SERIES = ("channel",)
FROM_RUN = ("commit", "date", "os", "runner", "preset", "toolchain_version")
ROW_FIELDS = ("run", "id", "key", "digest")


def from_run(run: dict, key: dict) -> dict:
    """What an entry of this run and key takes from the run record (history.entry_records)."""
    tc = key["toolchain"]
    return {"commit": run["commit"], "date": run["date"], "os": run["os"], "runner": run["runner"],
            "preset": run["preset"], "toolchain_version": run["toolchains"].get(tc, tc)}


def is_stats(value) -> bool:
    """A summary (stats.summarize: every statistic, or all but the standard deviation)."""
    return isinstance(value, dict) and frozenset(value) in _STATS_SETS


def _pack(value):
    """A summary (stats.summarize) as an array in STATS order; anything else as it is."""
    if is_stats(value):
        return [value[k] for k in STATS if k in value]
    return value


def _unpack(value):
    if isinstance(value, list):
        return dict(zip(STATS, value))
    return value


class Series:
    """The series rows of one file: id -> (index, its row)."""

    def __init__(self, rows=()):
        self.by_id: dict[str, dict] = {}
        self.by_index: dict[int, dict] = {}
        for row in rows:
            if isinstance(row, dict):
                self.by_id[row["id"]] = row
                self.by_index[row["series"]] = row

    def row_for(self, entry: dict) -> dict | None:
        """The series row to append for this entry's id (None: the file has it already)."""
        if entry["id"] in self.by_id:
            return None
        row = {"series": len(self.by_index), "id": entry["id"], "key": entry["key"]}
        for f in FROM_SERIES:
            if entry.get(f) is not None:
                row[f] = entry[f]
        self.by_id[row["id"]] = row
        self.by_index[row["series"]] = row
        return row


def encode(entry: dict, series: Series, run: dict | None) -> list:
    """The rows (a series row first where the id is new) that hold this entry."""
    out = []
    new = series.row_for(entry)
    if new is not None:
        out.append(new)
    s = series.by_id[entry["id"]]
    given = from_run(run, entry["key"]) if run is not None else {}
    payload = {}
    for k, v in entry.items():
        if k in ROW_FIELDS or (k in given and given[k] == v) or (k in FROM_SERIES and s.get(k) == v):
            continue
        payload[k] = _pack(v)
    for f in FROM_SERIES:  # the series has it, this entry not: say so
        if f in s and f not in entry:
            payload[f] = None
    out.append([entry["run"], s["series"], payload, entry["digest"]])
    return out


def row_run(row: list) -> str:
    return row[0]


def row_id(row: list, series: Series) -> str:
    return series.by_index[row[1]]["id"]


class RowError(ValueError):
    """A row that cannot be an entry (a hand edit): its message is one line."""


def check(row: list, series: Series) -> None:
    """A row decode can read: its series declared, its fields an object that does not
    say what the row itself says (RowError otherwise)."""
    if row[1] not in series.by_index:
        raise RowError(f"series {row[1]!r} is not declared above it")
    if not isinstance(row[2], dict) or not row[2].keys().isdisjoint(ROW_FIELDS):   # (per row: no sets made)
        raise RowError(f"its fields may not say {', '.join(sorted(set(row[2]) & set(ROW_FIELDS)))}"
                       if isinstance(row[2], dict) else "its fields are not an object")


def decode(row: list, series: Series, run: dict | None) -> dict:
    """The entry a row holds (run: its run record; without one, only what the row says)."""
    check(row, series)
    s = series.by_index[row[1]]
    entry = {"run": row[0], "id": s["id"], "key": s["key"]}
    if run is not None:
        entry.update(from_run(run, s["key"]))
    for f in FROM_SERIES:
        if f in s:
            entry[f] = s[f]
    for k, v in row[2].items():
        if v is None and k in FROM_SERIES:
            entry.pop(k, None)
        else:
            entry[k] = _unpack(v)
    entry["digest"] = row[3]
    return entry
