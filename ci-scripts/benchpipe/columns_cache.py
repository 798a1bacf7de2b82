"""The site folder's cache of summarised months read as columns (`.cache/columns/`).

A summarised month's file changes only when compaction rewrites it, yet every render
reads it again: at ten years about 1,050 files an OS, whose xz and strict JSON were most
of a night's load. So the checked columns of each file (history.SummarisedMonth.columns)
are kept here, keyed by the SHA-256 of the file's bytes, in Python's marshal format
(plain data: dicts, lists, text, numbers; read back many times faster than xz and JSON).

Derived data only: the history is the record. An entry is used only if its header and
the digest of its payload check; anything else (a torn write, another Python, a file
from elsewhere) is a miss, and the file is read from the history as before. Written
without fsync (a lost entry costs one read), each by a rename, so two renders at once
never see half of one. A render keeps only the entries it used (prune)."""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from pathlib import Path

# marshal's format is Python's own: the version in the magic, so another Python misses
MAGIC = f"bench-columns/1 marshal {marshal.version} py{sys.version_info[0]}.{sys.version_info[1]}\n".encode()
SUFFIX = ".marshal"
_DIGEST = 32   # bytes of SHA-256


def key(data: bytes) -> str:
    """The cache key of a summarised month's file: the digest of its bytes."""
    return hashlib.sha256(data).hexdigest()


def _path(folder: Path, k: str) -> Path:
    return folder / f"{k}{SUFFIX}"


def get(folder: Path, k: str) -> dict | None:
    """The columns kept under key k, or None (no entry, or one that does not check)."""
    try:
        blob = _path(folder, k).read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + _DIGEST
    if not blob.startswith(MAGIC) or hashlib.sha256(memoryview(blob)[head:]).digest() != blob[len(MAGIC):head]:
        return None
    try:
        doc = marshal.loads(memoryview(blob)[head:])
    except (ValueError, EOFError, TypeError):
        return None
    return doc if type(doc) is dict else None


def put(folder: Path, k: str, doc: dict) -> None:
    """Keep doc under key k; a folder that cannot be written is no cache (nothing raised)."""
    try:
        payload = marshal.dumps(doc)
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{k}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(MAGIC + hashlib.sha256(payload).digest())
                fh.write(payload)
            os.replace(tmp, _path(folder, k))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except (OSError, ValueError):   # ValueError: a value marshal cannot write (none here)
        pass


def prune(folder: Path, keep: set[str]) -> int:
    """Remove the entries (and stray temp files) of keys not in keep: files that
    compaction has since rewritten. Returns how many went."""
    gone = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        if name.endswith(SUFFIX) and name[:-len(SUFFIX)] in keep:
            continue
        if name.endswith(SUFFIX) or name.endswith(".tmp"):
            try:
                (folder / name).unlink()
                gone += 1
            except OSError:
                pass
    return gone
