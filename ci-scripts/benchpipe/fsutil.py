"""Atomic file writes: write a sibling temp file, flush it to disk, rename over the
target. A reader (or a killed writer) sees the old file or the new one, never half.
And a lock that serialises writers of one directory on one machine."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, doc, indent: int | None = 1) -> None:
    # allow_nan=False: NaN and Infinity are not JSON; nothing here writes them
    atomic_write_text(path, json.dumps(doc, indent=indent, sort_keys=False, allow_nan=False) + "\n")


@contextlib.contextmanager
def file_lock(root: Path):
    """Serialise writers of one directory on one machine (several `history add` into one history)."""
    root.mkdir(parents=True, exist_ok=True)
    fh = open(root / ".lock", "a+")
    try:
        try:
            import fcntl
            fcntl.flock(fh, fcntl.LOCK_EX)
        except ImportError:  # Windows: msvcrt locks a byte range
            import msvcrt
            msvcrt.locking(fh.fileno(), msvcrt.LK_LOCK, 1)
        yield
    finally:
        fh.close()
