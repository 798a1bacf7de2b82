"""The site folder's cache of the open months' entries (`.cache/entries.marshal`).

An open month's file (history/2 rows, one OS and scenario) only grows, by rows appended
at its end (history.serialise: one record per line; history.add refuses to append to a
file in any other layout). Yet every render parsed each one whole and decoded every
row into an entry: at ten years on three OSes, by a month's 29th night, 27 files of
27 MB, 0.7 s of strict JSON and decoding a render. So a render keeps, per file, the
entries its records decoded to, under the SHA-256 of the bytes they were read from (the
file up to its closing bracket) and of the run records they were decoded beside; the
next render whose file starts with those bytes (and whose run records for them are the
same) parses and decodes only the rows after them (history._load).

A record is made only of a file in the history's own layout (checked once, whole, then
row by row as rows are appended), so that its bytes up to the closing bracket are the
rows array's elements and nothing else: the rows after them, parsed as an array, are
exactly the rows the whole file's parse would add.

Derived data only, in columns_cache's frame (format, Python's version, a digest of the
code that reads and decodes the files; the payload's CRC-32): anything else is a miss,
and the files are read whole as before. Trusted as far as the site folder it is in. A
render keeps only the records of the files it read."""

from __future__ import annotations

import functools
from pathlib import Path

from benchpipe import columns_cache

NAME = "entries.marshal"
MAX_BYTES = 2**30   # a month of ten years' nights on three OSes is ~30 MiB
# what reads an open month's file and decodes its rows (history._load and what it calls)
_CODE = ("entries_cache.py", *columns_cache._CODE)
# a record's fields: the bytes it was read from (their length and SHA-256), the file's
# header (every field but the rows), its series rows, the runs its rows name (in order of
# first use), the SHA-256 of their records (history._runs_sha), the entries decoded
FIELDS = ("size", "sha", "header", "table", "runs", "runs_sha", "entries")


@functools.cache
def _start() -> bytes:
    return f"{columns_cache.frame_line('bench-entries/1', _CODE)}\n".encode()


def read(path: Path | None) -> dict[str, dict]:
    """The records kept at path (a file's path in the history -> its record), those of
    the right form only; empty where there are none."""
    if path is None:
        return {}
    doc = columns_cache.read_framed(path, _start(), MAX_BYTES)
    if type(doc) is not dict:
        return {}
    return {rel: r for rel, r in doc.items() if type(rel) is str and _valid(r)}


def _valid(r) -> bool:
    return type(r) is dict and tuple(r) == FIELDS and type(r["size"]) is int and type(r["sha"]) is bytes \
        and type(r["header"]) is dict and type(r["table"]) is list and type(r["runs"]) is list \
        and type(r["runs_sha"]) is bytes and type(r["entries"]) is list


def write(path: Path | None, records: dict[str, dict]) -> None:
    """Keep these records at path (replacing what was there, and what a render killed
    while writing it left; nothing raised)."""
    if path is not None:
        columns_cache.replace_framed(path, _start(), records)
