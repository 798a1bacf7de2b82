"""The site folder's cache of every summarised month read as series (`.cache/series.marshal`).

A summarised month never changes once written (until compaction rewrites it), and the
months summarised change once a month; yet every render turned ten years of them into
series again: at ten years 1,053 files and 1.2 million points an OS, most of a night's
load even with their columns cached (columns_cache). So the series the summarised months
make (trends._add_summarised: each series' stretch, its newest summarised point as an
entry, each month's point count) are kept in one file, under a key of everything they
were made from: each month's name, the SHA-256 of its file's bytes and its month's run
records, in order. A render whose summarised months are those reads that one file.

Derived data only, in columns_cache's frame (the first line says the format, Python's
version, a digest of the code that makes the series and the key; then the payload's
CRC-32): anything else (another key, a torn write, other code) is a miss, and the months
are read as before, then kept anew. Trusted as far as the site folder it is in."""

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
def _start() -> str:
    return columns_cache.frame_line("bench-series/1", _CODE)


def key(months) -> str | None:
    """The key of these summarised months (history.SummarisedMonth, in the order they are
    read): each one's month, its file's digest and its run records'. None where a file
    cannot be read (the months are read as before, which says why)."""
    h = hashlib.sha256()
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
        h.update(len(name).to_bytes(8, "little") + name + digest + runs[id(m.runs)])
    return h.hexdigest()


def get(path: Path, k: str) -> dict | None:
    """The series kept under key k at path, or None."""
    doc = columns_cache.read_framed(path, f"{_start()} key {k}\n".encode(), MAX_BYTES)
    return doc if type(doc) is dict else None


def put(path: Path, k: str, doc: dict) -> None:
    """Keep doc under key k at path (replacing what was there, and what a render killed
    while writing it left)."""
    columns_cache.replace_framed(path, f"{_start()} key {k}\n".encode(), doc)
