"""The site folder's cache of each closed month file's kind (`.cache/kinds.marshal`).

history.load (summaries="rows") must know whether a closed month's file is summarised or
kept whole before it defers it, and found out by decompressing its start
(history_summary.peek_kind): at ten years 3,240 files, 0.35-0.4 s of every night's
render for an answer that never changes while the file does not. The series cache
(series_cache.month_keys) digests every one of those files anyway, so load digests each file
once, takes its kind from here by that digest (exact: the kind is a function of the
bytes), peeks only at files not seen before, and hands the digests on.

Derived data only, in columns_cache's frame (format, Python's version, a digest of the
code that peeks; the payload's CRC-32): anything else is a miss, and every file is
peeked at as before. Trusted as far as the site folder it is in. A render keeps only the
digests of the files it read."""

from __future__ import annotations

import functools
from pathlib import Path

from benchpipe import columns_cache

NAME = "kinds.marshal"
MAX_BYTES = 16 * 2**20   # ten years are ~3,300 entries of ~45 bytes
_CODE = ("kinds_cache.py", "history_summary.py")   # what says a file's kind (peek_kind)


@functools.cache
def _start() -> bytes:
    return f"{columns_cache.frame_line('bench-kinds/1', _CODE)}\n".encode()


def read(path: Path | None) -> dict[bytes, str | None]:
    """The kinds kept at path (file digest -> kind), empty where there are none."""
    if path is None:
        return {}
    doc = columns_cache.read_framed(path, _start(), MAX_BYTES)
    if type(doc) is not dict or not all(type(k) is bytes and (v is None or type(v) is str) for k, v in doc.items()):
        return {}
    return doc


def write(path: Path | None, kinds: dict[bytes, str | None]) -> None:
    """Keep these kinds at path (replacing what was there, and what a render killed while
    writing it left; nothing raised)."""
    if path is not None:
        columns_cache.replace_framed(path, _start(), kinds)
