"""The summarised month (issue 40): a closed month of one scenario on one OS, kept as
what the site, compare, change points and the compiler-versions page read, compressed.

Ten years of nightly history in history/2 would be ~1.3 GB of files (358 bytes an
entry, 3.5 million entries); GitHub Pages and repositories stay under 1 GB. A month
whose last day is more than KEEP_DAYS days before the newest run is rewritten by
`bench history compact` (and by `bench publish`, which then squashes the branch) as
`<os>/<scenario>/<YYYY-MM>.json.xz`.

What it holds are rows: a history/2 row (history_rows) with three things left out, each
summary's min, max, mean and standard deviation (nothing the site or an analysis reads;
the median, its 95 % interval and the count stay), the entry's digest (the file carries
one digest of its whole content instead, so a hand edit is still reported by `history
check`), and, since history-summary/3, the interval, p-value and resolution of each
metric of the toolchain verdict (`versus`: its older toolchain and channel, its verdict
and each metric's ratio and verdict stay; VERSUS_KEPT), except in each series' points
of the month's newest date (summarised_rows). Of an old verdict the site reads only the
time ratio and the older side (the Compiler versions page's trail and charts); its table
shows each series' newest verdict whole, and a series that stopped 90 days ago has its
newest point in a summary, which keeps it whole. Those figures were a tenth of a
summarised month (docs/gh-pages-history.md). Every other field stays
as written: settings, metrics, latency, warnings, CPU medians, every number at full
precision. Compaction
proves, entry by entry, that each row decodes beside its run record to the entry as
written less what was left out (`project`) before the full file is removed. Run records
are never summarised.

In memory (history.read_doc) a summarised month is its rows, the form every check and
decode reads:

    {"schema":..,"kind":"summary","os":..,"scenario":..,"month":..,"count":N,"digest":..,"rows":[
    {"series":3,"id":"<key id>","key":{...},"channel":"stable"}        as history/2
    ["<run id>",3,{"time_s":[median,ci_low,ci_high,n],...}]            a row per entry
    ]}

On disk, history-summary/2 and /3 write the same rows as columns (`to_columns`), each series
once with its points' runs and one column per field, since the site reads ten years of
them every night (an OS: ~1,080 files, 1.2 million rows) and a column of numbers parses
about three times as fast as the same numbers in a row object each:

    {"schema":"gorust-bench.history-summary/3","kind":"summary",..,"count":N,"digest":..,
     "runs":["<run id>",...],                     the month's runs, by date
     "series":[{"series":3,"id":..,"key":{...},"channel":..,
                "runs":[0,2,...],                 each point's run (an index into runs, rising)
                "fields":{"time_s":{"arrays":[[medians],[ci_lows],[ci_highs],[ns]]},
                          "cpu_s":{"object":{"user_median":{"values":[...]},...}},
                          "versus":{"values":[...],"rows":[4,9]}}}, ...]}

A column is "values" (each point's value as the row had it), "arrays" (arrays of one
length, transposed) or "object" (objects with the same keys, a column a key), with
"rows" (the points that have the field, rising) where not every point has it. The rows
form of a history-summary/2 or /3 file is ordered: series rows by number, then entry rows by
run and series; its digest is history.digest_of of that rows form, so a digest names the
content, whatever encodes it. history-summary/1 files (rows on disk) and /2 files (whole
verdicts) are read as they are and rewritten as /3 by `bench history compact` (and so by
publish), each row as row_of makes it.
Measured on a ten-year history (one OS, 1,053 files): text 30.2 -> 17.2 MB, xz 4.8 ->
4.0 MB, parsed in 1.18 -> 0.39 s a tenth of them (README)."""

from __future__ import annotations

import lzma
import re

from benchpipe import history_rows, results
from benchpipe.errors import BenchError

SCHEMA = "gorust-bench.history-summary/3"    # columns on disk, verdicts cut to VERSUS_KEPT
SCHEMA_2 = "gorust-bench.history-summary/2"  # columns, whole verdicts: read, and rewritten as /3 by compact
SCHEMA_1 = "gorust-bench.history-summary/1"  # rows on disk: read, and rewritten as /3 by compact
SCHEMAS = (SCHEMA, SCHEMA_2, SCHEMA_1)
COLUMN_SCHEMAS = (SCHEMA, SCHEMA_2)
LEGACY = "summary/old"   # peek_kind of a history-summary/1 or /2 file (compact rewrites it)
KIND = "summary"
SUFFIX = ".json.xz"
KEPT = history_rows.STATS[:4]   # median, ci_low, ci_high, n
KEEP_DAYS = 90                  # every entry of the last 90 days stays whole
VERSUS_KEPT = ("ratio", "verdict")   # of each metric of a toolchain verdict
_KEPT_SET = frozenset(KEPT)


def is_summary(doc) -> bool:
    return isinstance(doc, dict) and doc.get("kind") == KIND


def row_of(row: list, whole_versus: bool = False) -> list:
    """The summarised row of a history/2 entry row (or of a summarised row of an older
    version: the same cuts again change nothing else): its summaries cut to KEPT, its
    verdict to VERSUS_KEPT (unless whole_versus), no digest."""
    payload = {k: (v[:len(KEPT)] if isinstance(v, list) else v) for k, v in row[2].items()}
    if "versus" in payload and not whole_versus:
        payload["versus"] = cut_versus(payload["versus"])
    return [row[0], row[1], payload]


def newest_of_series(rows: list, runs: dict[str, dict]) -> list[bool]:
    """For each entry row (series rows skipped), whether it is of its series' newest date
    in the month (its own date, else its run record's)."""
    def date(r):
        own = r[2].get("date")
        return own if type(own) is str else (runs.get(r[0]) or {}).get("date", "")
    entry_rows = [r for r in rows if isinstance(r, list)]
    dates = [date(r) for r in entry_rows]
    newest: dict = {}
    for r, d in zip(entry_rows, dates):
        newest[r[1]] = max(newest.get(r[1], ""), d)
    return [d == newest[r[1]] for r, d in zip(entry_rows, dates)]


def summarised_rows(rows: list, runs: dict[str, dict]) -> list:
    """Series rows as they are and each entry row as row_of makes it, those of each
    series' newest date in the month (newest_of_series) keeping their whole verdict."""
    last = iter(newest_of_series(rows, runs))
    return [r if isinstance(r, dict) else row_of(r, next(last)) for r in rows]


def project(entry: dict, whole_versus: bool = False) -> dict:
    """What a summarised month keeps of a whole entry: the entry without its digest,
    each summary cut to KEPT, its verdict to VERSUS_KEPT unless whole_versus (of its
    series' newest date in the month: summarised_rows); what `decode` of its row gives
    back."""
    return {k: ({s: x for s, x in v.items() if s in _KEPT_SET} if history_rows.is_stats(v) else
                v if k != "versus" or whole_versus else cut_versus(v))
            for k, v in entry.items() if k != "digest"}


def projections(entries: list[dict]) -> list[dict]:
    """project of each of one month's entries (one OS and scenario), each series' newest
    date keeping its whole verdict (summarised_rows)."""
    newest: dict = {}
    for e in entries:
        newest[e["id"]] = max(newest.get(e["id"], ""), e["date"])
    return [project(e, e["date"] == newest[e["id"]]) for e in entries]


def cut_versus(v):
    """A toolchain verdict with each metric cut to VERSUS_KEPT; anything not shaped as
    one is left as it is (for the checks to report)."""
    if type(v) is not dict or type(v.get("metrics")) is not dict or \
            any(type(m) is not dict for m in v["metrics"].values()):
        return v
    return {**v, "metrics": {name: {k: m[k] for k in VERSUS_KEPT if k in m} for name, m in v["metrics"].items()}}


def check(row: list, series: history_rows.Series) -> None:
    """A summarised row decode can read (history_rows.RowError otherwise)."""
    if not isinstance(row, list) or len(row) != 3:
        raise history_rows.RowError("a summarised row is [run, series, fields]")
    history_rows.check(row, series)


def decode(row: list, series: history_rows.Series, run: dict | None) -> dict:
    """The (projected) entry a summarised row holds, beside its run record."""
    check(row, series)
    entry = history_rows.decode([*row, None], series, run)
    del entry["digest"]
    return entry


def as_entry(entry: dict) -> dict:
    """A summarised entry in the shape of a whole one, for the entry schema to validate
    everything it kept: each dropped statistic stands in as the median (stddev 0), a
    digest of zeros. Used only to check; never written or shown."""
    full = {k: ({**{s: v["median"] for s in ("min", "max", "mean")}, "stddev": 0, **v}
                if isinstance(v, dict) and frozenset(v) == _KEPT_SET else v)
            for k, v in entry.items()}
    full["digest"] = "0" * 16
    return full


def compress(text: str) -> bytes:
    # xz: a month of the standard preset on one OS, ~1.1 MB of history/2, becomes ~110 KB;
    # gzip would leave 30 % more (README)
    return lzma.compress(text.encode("utf-8"), format=lzma.FORMAT_XZ, preset=9)


# the exact starts of the kinds as written (canonical JSON: keys sorted, no spaces); a
# columns file says its schema after the month's run ids
_SUMMARY_START = rb'^\{"count":[0-9]+,"digest":"[0-9a-f]+","kind":"summary","month":"[0-9]{4}-[0-9]{2}","os":"[a-z0-9-]*",'
_RUNS = rb'"runs":\[(?:"[0-9A-Za-z._-]*"(?:,"[0-9A-Za-z._-]*")*)?\],"scenario":"[a-z0-9-]*",'
_STARTS = {"entries": re.compile(rb'^\{"kind":"entries","month":"'),
           KIND: re.compile(_SUMMARY_START + _RUNS + rb'"schema":"gorust-bench\.history-summary/3",'),
           LEGACY: re.compile(_SUMMARY_START + rb'(?:"scenario":"[a-z0-9-]*","schema":"gorust-bench\.history-summary/1",'
                              rb'"rows":\[|' + _RUNS + rb'"schema":"gorust-bench\.history-summary/2",)')}
PEEK_BYTES = 64 * 1024
PEEK_TEXT = 16 * 1024   # a month's run ids (~24 bytes each) fit, hundreds of them


def peek_kind(data: bytes) -> str | None:
    """The kind of a closed month's file ("summary"; LEGACY: summarised by an older
    version, to be rewritten as history-summary/3; or "entries": whole) from the start of
    its text alone, so that years of summaries need not be decompressed to find the few
    that are not; None when the start is not one written here (read the file then: a
    hand-made header, a repeated key, is never taken on trust)."""
    dec = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
    try:
        head = dec.decompress(data[:PEEK_BYTES], max_length=4096)   # (4 KiB: a third of the time of 16)
        kind = next((kind for kind, start in _STARTS.items() if start.match(head)), None)
        if kind is None and len(head) == 4096:   # a month of more runs than usual
            head += dec.decompress(b"", max_length=PEEK_TEXT - len(head))
            kind = next((kind for kind, start in _STARTS.items() if start.match(head)), None)
    except (lzma.LZMAError, EOFError):
        return None
    return kind


def decompress(data: bytes, what: str, max_bytes: int) -> str:
    """The text of a closed month's file (summarised or whole); one BenchError for
    anything that is not one xz stream of UTF-8 text within max_bytes (a decompression
    bomb stops at the limit)."""
    dec = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
    try:
        out = dec.decompress(data, max_length=max_bytes + 1)
    except lzma.LZMAError as err:
        raise BenchError(f"{what}: not an xz file: {err}") from None
    if len(out) > max_bytes:
        raise BenchError(f"{what}: more than {max_bytes} bytes once decompressed")
    if not dec.eof:
        raise BenchError(f"{what}: a truncated xz file")
    if dec.unused_data:   # a second stream or trailing bytes: not one file as written here
        raise BenchError(f"{what}: data after the end of the xz stream")
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError as err:
        raise BenchError(f"{what}: not UTF-8 text: {err}") from None


# --------------------------------------------------------------------------- columns (history-summary/2, /3)

def is_columns(doc) -> bool:
    """A summarised month as its file holds it (history-summary/2 or /3), not yet as rows."""
    return is_summary(doc) and doc.get("schema") in COLUMN_SCHEMAS and "rows" not in doc


def to_columns(doc: dict, runs: dict[str, dict] | None = None) -> dict:
    """The columns file of a summarised month in rows form (any version; a /2 month
    stays /2, any other is labelled /3: its rows are as they are, row_of makes them /3):
    the month's runs in the order of their run records' dates (runs; else as the rows
    first name them), each series' points by run."""
    table = history_rows.Series(doc["rows"])
    rows = [r for r in doc["rows"] if isinstance(r, list)]
    order = list(dict.fromkeys(r[0] for r in rows))
    if runs is not None:
        order.sort(key=lambda r: (runs[r]["date"] if r in runs else "", r))
    at = {r: i for i, r in enumerate(order)}
    points: dict[int, list[list]] = {i: [] for i in table.by_index}
    for r in rows:
        points[r[1]].append(r)
    series = []
    for i in sorted(table.by_index):
        mine = sorted(points[i], key=lambda r: at[r[0]])
        series.append({**table.by_index[i], "runs": [at[r[0]] for r in mine],
                       "fields": _field_columns([r[2] for r in mine])})
    schema = SCHEMA_2 if doc.get("schema") == SCHEMA_2 else SCHEMA
    return {**{k: v for k, v in doc.items() if k != "rows"}, "schema": schema, "runs": order, "series": series}


def _field_columns(payloads: list[dict]) -> dict:
    out = {}
    for name in sorted({k for p in payloads for k in p}):
        where = [j for j, p in enumerate(payloads) if name in p]
        col = _column([payloads[j][name] for j in where])
        if len(where) < len(payloads):
            col["rows"] = where
        out[name] = col
    return out


def _column(values: list) -> dict:
    first = values[0]
    if type(first) is list and first and all(type(v) is list and len(v) == len(first) for v in values):
        return {"arrays": [list(c) for c in zip(*values)]}
    if type(first) is dict and first and all(type(v) is dict and v.keys() == first.keys() for v in values):
        return {"object": {k: _column([v[k] for v in values]) for k in first}}
    return {"values": values}


class ColumnError(ValueError):
    """A columns file whose columns do not make rows (a hand edit): one line."""


def _rising(xs, below: int, what: str) -> list[int]:
    if type(xs) is not list or any(type(x) is not int for x in xs) or \
            any(not a < b for a, b in zip(xs, xs[1:])) or (xs and not 0 <= xs[0] <= xs[-1] < below):
        raise ColumnError(f"{what}: not rising whole numbers below {below}")
    return xs


def _kind(col, n: int, what: str) -> str:
    """Which of values, arrays or object a column of n values is (ColumnError: none)."""
    if type(col) is not dict:
        raise ColumnError(f"{what}: not a column")
    kinds = [k for k in ("values", "arrays", "object") if k in col]
    if len(kinds) != 1 or len(col) > 1 + ("rows" in col):
        raise ColumnError(f"{what}: a column is one of values, arrays or object (and rows)")
    got = col[kinds[0]]
    if kinds[0] == "values":
        if type(got) is not list or len(got) != n:
            raise ColumnError(f"{what}.values: not {n} values")
    elif kinds[0] == "arrays":
        if type(got) is not list or not got or any(type(a) is not list or len(a) != n for a in got):
            raise ColumnError(f"{what}.arrays: not arrays of {n} values")
    else:
        if type(got) is not dict or not got:
            raise ColumnError(f"{what}.object: not an object of columns")
        for k, c in got.items():
            _kind(c, n, f"{what}.object.{k}")
            if "rows" in c:
                raise ColumnError(f"{what}.object: its columns have every row")
    return kinds[0]


def _values(col: dict) -> list:
    """A checked column's values."""
    if "values" in col:
        return col["values"]
    if "arrays" in col:
        return [list(t) for t in zip(*col["arrays"])]
    keys = list(col["object"])
    return [dict(zip(keys, t)) for t in zip(*(_values(col["object"][k]) for k in keys))]


def _value(col: dict, j: int):
    """A checked column's value j."""
    if "values" in col:
        return col["values"][j]
    if "arrays" in col:
        return [a[j] for a in col["arrays"]]
    return {k: _value(c, j) for k, c in col["object"].items()}


def _where(col: dict, n: int, what: str) -> list[int] | range:
    return _rising(col["rows"], n, f"{what}.rows") if "rows" in col else range(n)


def check_field(col, n: int, what: str) -> None:
    """A field's column over a series of n points, checked (ColumnError otherwise)."""
    if type(col) is not dict:
        raise ColumnError(f"{what}: not a column")
    _kind(col, len(_where(col, n, what)), what)


def field_values(col: dict, n: int) -> tuple[list[int] | range, list]:
    """A checked field's column over a series of n points: (the points that have it,
    their values)."""
    return (col["rows"] if "rows" in col else range(n)), _values(col)


def check_columns(doc: dict) -> None:
    """What to_rows and the site's columns (trends) read, checked (ColumnError otherwise):
    run ids, series numbered in order, each point's run rising, columns of the right
    length, no field that a row says itself."""
    runs = doc.get("runs")
    if type(runs) is not list or any(type(r) is not str for r in runs) or len(set(runs)) != len(runs):
        raise ColumnError("$.runs: not distinct run ids")
    series = doc.get("series")
    if type(series) is not list:
        raise ColumnError("$.series: not a list")
    for i, s in enumerate(series):
        what = f"$.series[{i}]"
        if type(s) is not dict or s.get("series") != i or type(s.get("fields")) is not dict \
                or type(s.get("key")) is not dict or type(s.get("id")) is not str:
            raise ColumnError(f"{what}: not series {i} with an id, a key, runs and fields")
        problem = _series_problem(s)
        if problem:
            raise ColumnError(f"{what}: {problem}")
        n = len(_rising(s.get("runs"), len(runs), f"{what}.runs"))
        for name, col in s["fields"].items():
            if name in history_rows.ROW_FIELDS:
                raise ColumnError(f"{what}.fields: a field may not be {name!r}")
            check_field(col, n, f"{what}.fields.{name}")


_NAME = re.compile(r"[A-Za-z0-9._+-]{1,64}")   # results.schema.json's names (a channel's too)


def _series_problem(s: dict) -> str:
    """What of a series' key and channel the site could not read ('' if nothing): the
    site takes a summarised month's series as written, so their shape is checked here, as
    cheaply as ten years of them allow (not the schema, which `history check` applies):
    the key makes the series' id, its language is one of the two, the channel is a name."""
    key, chan = s["key"], s.get("channel")
    try:
        made = results.key_id(key)
    except (TypeError, KeyError, IndexError, AttributeError):
        return "its key is not a benchmark key"
    if made != s["id"]:
        return "its key does not make its id"
    if key.get("lang") not in ("go", "rust"):
        return "its key's lang is not go or rust"
    if chan is not None and not (type(chan) is str and _NAME.fullmatch(chan)):
        return "its channel is not a name"
    return ""


def to_rows(doc: dict) -> dict:
    """A columns file as rows (its in-memory form, which its digest is of):
    series rows by number, then entry rows by run and series. ColumnError for columns
    that do not make rows."""
    check_columns(doc)
    runs = doc["runs"]
    head, points = [], []
    for i, s in enumerate(doc["series"]):
        head.append(series_row(s))
        payloads = [{} for _ in s["runs"]]
        for name, col in s["fields"].items():
            where, values = field_values(col, len(payloads))
            for j, v in zip(where, values):
                payloads[j][name] = v
        points.extend((a, i, p) for a, p in zip(s["runs"], payloads))
    points.sort(key=lambda t: (t[0], t[1]))
    return {**{k: v for k, v in doc.items() if k not in ("runs", "series")},
            "rows": [*head, *([runs[a], i, p] for a, i, p in points)]}


def series_row(series: dict) -> dict:
    """A series of a columns file as its series row (history_rows)."""
    return {k: v for k, v in series.items() if k not in ("runs", "fields")}


def row_at(doc: dict, i: int, j: int) -> list:
    """The row of series i's point j (a checked columns file)."""
    s = doc["series"][i]
    payload = {}
    for name, col in s["fields"].items():
        if "rows" not in col:
            payload[name] = _value(col, j)
        elif j in col["rows"]:
            payload[name] = _value(col, col["rows"].index(j))
    return [doc["runs"][s["runs"][j]], i, payload]
