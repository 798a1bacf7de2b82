"""The site folder's cache of every summarised month read as series (`.cache/series.marshal`).

A summarised month never changes once written (until compaction rewrites it), and the
months summarised change once a month; yet every render turned ten years of them into
series again: at ten years 1,053 files and 1.2 million points an OS, most of a night's
load even with their columns cached (columns_cache). So the series the summarised months
make (trends._add_summarised: each series' stretch, its newest summarised point as an
entry, each month's point count) are kept in one file, beside a key of each month they
were made from (its name, the SHA-256 of its file's bytes and of its month's run
records), in order. A render whose months are those reads that one file. Where only the
newest months differ (the two nights a month that summarise a month or close one: the
last three or four of ten years'), the series are cut back to the months before the first
that differs (each series' point count at each month it has points in is kept for that,
and the month that holds its newest point so far) and only the months from there on are
read: at ten years those nights rebuilt every series from the columns cache, 20 s.

Derived data only, in columns_cache's frame (the first line says the format, Python's
version and a digest of the code that makes the series; then the payload's CRC-32):
anything else (a torn write, other code, a first month that differs) is a miss, and the
months are read as before, then kept anew. Trusted as far as the site folder it is in."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from benchpipe import columns_cache

NAME = "series.marshal"
MAX_BYTES = 2 * 2**30   # ten years of one OS's series are ~100 MiB
# what turns a summarised month into series (trends._add_summarised and what it calls)
_CODE = (*columns_cache._CODE, "series_cache.py", "trends.py", "stat_columns.py", "metrics.py",
         "results.py")


@functools.cache
def _start() -> bytes:
    return f"{columns_cache.frame_line('bench-series/2', _CODE)}\n".encode()


def month_keys(months) -> list[bytes] | None:
    """The key of each of these summarised months (history.SummarisedMonth, in the order
    they are read): the SHA-256 of its month's name, its file's digest and its run
    records'. None where a file cannot be read (the months are read as before, which
    says why)."""
    keys = []
    runs: dict[int, bytes] = {}   # the months of one calendar month share their run records
    for m in months:
        digest = m.digest   # (taken where load read the file for its kind: kinds_cache)
        if digest is None:
            try:
                digest = hashlib.sha256(m.path.read_bytes()).digest()
            except OSError:
                return None
        if id(m.runs) not in runs:
            runs[id(m.runs)] = columns_cache.runs_digest(m.runs)
        name = m.month.encode("utf-8", "surrogatepass")
        keys.append(hashlib.sha256(len(name).to_bytes(8, "little") + name + digest + runs[id(m.runs)]).digest())
    return keys


def kept_months(doc: dict, keys: list[bytes]) -> int:
    """How many of these months, from the first, the kept series were made of (0: none
    can be reused)."""
    old = doc.get("months")
    if type(old) is not list:
        return 0
    return next((i for i, (a, b) in enumerate(zip(old, keys)) if a != b), min(len(old), len(keys)))


def get(path: Path) -> dict | None:
    """The series kept at path, or None."""
    doc = columns_cache.read_framed(path, _start(), MAX_BYTES)
    return doc if type(doc) is dict else None


def put(path: Path, doc: dict) -> None:
    """Keep doc at path (replacing what was there, and what a render killed while
    writing it left)."""
    columns_cache.replace_framed(path, _start(), doc)
