"""The summarised month (issue 40): a closed month of one scenario on one OS, kept as
what the site, compare, change points and the compiler-versions page read, compressed.

Ten years of nightly history in history/2 would be ~1.3 GB of files (358 bytes an
entry, 3.5 million entries); GitHub Pages and repositories stay under 1 GB. A month
whose last day is more than KEEP_DAYS days before the newest run is rewritten by
`bench history compact` (and by `bench publish`, which then squashes the branch) as
`<os>/<scenario>/<YYYY-MM>.json.xz`:

    {"schema":"gorust-bench.history-summary/1","kind":"summary","os":..,"scenario":..,
     "month":..,"count":N,"digest":"<the file's own>","rows":[
    {"series":3,"id":"<key id>","key":{...},"channel":"stable"}        as history/2
    ["<run id>",3,{"time_s":[median,ci_low,ci_high,n],...}]            a row per entry
    ]}

A row is a history/2 row (history_rows) with two things left out: each summary's min,
max, mean and standard deviation (nothing the site or an analysis reads; the median, its
95 % interval and the count stay), and the entry's digest (the file carries one digest
of its whole content instead, so a hand edit is still reported by `history check`).
Every other field stays as written: settings, metrics, latency, the toolchain verdicts,
warnings, CPU medians, every number at full precision. Compaction proves, entry by
entry, that each row decodes beside its run record to the entry as written less what
was left out (`project`) before the full file is removed. Run records are never
summarised. Measured (devtools/exp in the README): 49 bytes an entry gzipped, 38 with
xz, against 358 in history/2 and ~930 in history/1."""

from __future__ import annotations

import lzma
import re

from benchpipe import history_rows
from benchpipe.errors import BenchError

SCHEMA = "gorust-bench.history-summary/1"
KIND = "summary"
SUFFIX = ".json.xz"
KEPT = history_rows.STATS[:4]   # median, ci_low, ci_high, n
KEEP_DAYS = 90                  # every entry of the last 90 days stays whole
_KEPT_SET = frozenset(KEPT)


def is_summary(doc) -> bool:
    return isinstance(doc, dict) and doc.get("kind") == KIND


def row_of(row: list) -> list:
    """The summarised row of a history/2 entry row: its summaries cut to KEPT, no digest."""
    payload = {k: (v[:len(KEPT)] if isinstance(v, list) else v) for k, v in row[2].items()}
    return [row[0], row[1], payload]


def project(entry: dict) -> dict:
    """What a summarised month keeps of a whole entry: the entry without its digest,
    each summary cut to KEPT (what `decode` of its row gives back)."""
    return {k: ({s: x for s, x in v.items() if s in _KEPT_SET} if history_rows.is_stats(v) else v)
            for k, v in entry.items() if k != "digest"}


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


# the exact starts of the two kinds as written (canonical JSON: keys sorted, no spaces)
_STARTS = {"entries": re.compile(rb'^\{"kind":"entries","month":"'),
           KIND: re.compile(rb'^\{"count":[0-9]+,"digest":"[0-9a-f]+","kind":"summary","month":"')}
PEEK_BYTES = 64 * 1024


def peek_kind(data: bytes) -> str | None:
    """The kind of a closed month's file ("summary", or "entries": whole) from the start
    of its text alone, so that years of summaries need not be decompressed to find the
    few that are not; None when the start is not one written here (read the file then:
    a hand-made header, a repeated key, is never taken on trust)."""
    try:
        head = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(data[:PEEK_BYTES], max_length=4096)
    except (lzma.LZMAError, EOFError):
        return None
    return next((kind for kind, start in _STARTS.items() if start.match(head)), None)


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
