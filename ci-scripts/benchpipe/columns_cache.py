"""The site folder's cache of closed months read as columns (`.cache/columns/`).

A summarised month's file changes only when compaction rewrites it, yet every render
reads it again: at ten years about 1,050 files an OS, whose xz and strict JSON were most
of a night's load; a closed month kept whole (the last 90 days) never changes either,
and two or three of them were half of it at a year (100,000 entries on 3 OSes). So the
checked columns of each file (history.SummarisedMonth.columns) are kept here, keyed by the SHA-256 of the file's bytes, in Python's marshal format
(plain data: dicts, lists, text, numbers; read back many times faster than xz and JSON).

Derived data only: the history is the record. An entry is used only if its header (the
format, Python's version and a digest of the code that reads and checks a file: a change
there makes every entry a miss) and the CRC-32 of its payload check; anything else (a
torn write, another Python, a file from elsewhere) is a miss, and the file is read from
the history as before. The CRC finds accidents (a torn or zeroed file), not forgeries: an entry is trusted as
far as the site folder it is in (whoever can write it can write the site), and one
larger than any file could make is not read. Written without fsync (a lost entry costs
one read), each by a rename, so two renders at once never see half of one. A render
keeps only the entries it used (prune)."""

from __future__ import annotations

import functools
import hashlib
import json
import marshal
import os
import re
import sys
import zlib
from pathlib import Path

from benchpipe.fsutil import atomic_write_bytes

SUFFIX = ".marshal"
MAX_BYTES = 512 * 2**20   # twice the largest text a history file may decompress to
_DIGEST = 4   # bytes of the payload's CRC-32 (in C, 3 times SHA-256's speed: the series cache is ~400 MiB at ten years)
_NAME = re.compile(r"[0-9a-f]{64}" + re.escape(SUFFIX))
_TEMP = re.compile(r"\.[0-9a-f]{64}" + re.escape(SUFFIX) + r"\..*\.tmp")
# what reads and checks a summarised month's file (history.SummarisedMonth.columns)
_CODE = ("columns_cache.py", "history.py", "history_summary.py", "history_rows.py", "strictjson.py")


@functools.cache
def magic() -> bytes:
    """An entry's first line: the format, marshal's and Python's versions (marshal's
    format is Python's own), and a digest of the code whose checks an entry stands for."""
    return f"{frame_line('bench-columns/2', _CODE)}\n".encode()


def frame_line(fmt: str, code=None) -> str:
    """The start of a framed cache file's first line: its format, marshal's and Python's
    versions (marshal's format is Python's own) and a digest of the code (these modules)
    whose work an entry stands for (None: a cache whose entries say that themselves);
    each cache adds what else it is kept under."""
    line = f"{fmt} marshal {marshal.version} py{sys.version_info[0]}.{sys.version_info[1]}"
    return line if code is None else f"{line} code {code_digest(code)}"


def key(data: bytes, runs: dict | None = None) -> str:
    """The cache key of a closed month's file: the digest of its bytes (and, for a month
    kept whole, whose columns depend on them, of its month's run records)."""
    h = hashlib.sha256(data)
    if runs is not None:
        h.update(b"\nruns " + runs_digest(runs))
    return h.hexdigest()


def runs_digest(runs: dict) -> bytes:
    """The SHA-256 of a month's run records (as canonical JSON)."""
    text = json.dumps(runs, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _path(folder: Path, k: str) -> Path:
    return folder / f"{k}{SUFFIX}"


def get(folder: Path, k: str) -> dict | None:
    """The columns kept under key k, or None (no entry, or one that does not check)."""
    doc = read_framed(_path(folder, k), magic())
    return doc if type(doc) is dict else None


def put(folder: Path, k: str, doc: dict) -> None:
    """Keep doc under key k; a folder that cannot be written is no cache (nothing raised)."""
    write_framed(_path(folder, k), magic(), doc)


def read_framed(path: Path, start: bytes, max_bytes: int = MAX_BYTES):
    """What write_framed kept at path, or None: no file, one larger than max_bytes, or
    one whose first line is not `start` or whose payload's CRC-32 does not check."""
    try:
        if path.stat().st_size > max_bytes:
            return None
        blob = path.read_bytes()
    except OSError:
        return None
    head = len(start) + _DIGEST
    if not blob.startswith(start) or _crc(memoryview(blob)[head:]) != blob[len(start):head]:
        return None
    try:
        return marshal.loads(memoryview(blob)[head:])
    except (ValueError, EOFError, TypeError):
        return None


def write_framed(path: Path, start: bytes, obj) -> bool:
    """obj in marshal's format after the line `start` and its payload's CRC-32, by a
    rename; a folder that cannot be written is no cache (nothing raised: False)."""
    try:
        payload = marshal.dumps(obj)
        atomic_write_bytes(path, start + _crc(payload) + payload, fsync=False)
    except (OSError, ValueError):   # ValueError: a value marshal cannot write (none here)
        return False
    return True


def replace_framed(path: Path, start: bytes, obj) -> bool:
    """write_framed for a cache of one file (its folder made if need be), first removing
    what a render killed while writing it left (publish carries the whole .cache/ over,
    by hard links); a folder that cannot be written is no cache (nothing raised)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    for tmp in path.parent.glob(f".{path.name}.*.tmp"):
        try:
            tmp.unlink()
        except OSError:
            pass
    return write_framed(path, start, obj)


def _crc(data) -> bytes:
    return zlib.crc32(data).to_bytes(4, "little")


def code_digest(names) -> str:
    """A digest of these modules' source (files beside this one)."""
    here = Path(__file__).resolve().parent
    return hashlib.sha256(b"".join((here / name).read_bytes() for name in names)).hexdigest()[:16]


def prune(folder: Path, keep: set[str]) -> int:
    """Remove the entries (and their temp files) of keys not in keep: files that
    compaction has since rewritten. Returns how many went."""
    gone = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        entry, temp = _NAME.fullmatch(name), _TEMP.fullmatch(name)   # temp: being written, or left by a killed render
        if (entry or temp) and name.lstrip(".")[:64] not in keep:
            try:
                (folder / name).unlink()
                gone += 1
            except OSError:
                pass
    return gone
