"""Atomic file writes: write a sibling temp file, flush it to disk, rename over the
target. A reader (or a killed writer) sees the old file or the new one, never half.
Likewise a whole directory swapped for a new one. And a lock that serialises writers of
one directory on one machine; a file's digest."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from benchpipe.errors import BenchError


def sha256_file(path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def atomic_write_bytes(path: Path, data: bytes, fsync: bool = True) -> None:
    """fsync=False: for derived data a crash may lose (a cache), not for the record."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if fsync:
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


def swap_dir(new: Path, target: Path) -> None:
    """Replace directory target by new (a sibling) with two renames: a reader sees the
    old one or the new one, whole."""
    old = target.with_name(f".{target.name}-old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    new.rename(target)
    shutil.rmtree(old, ignore_errors=True)


LOCK_WAIT_S = 600.0  # how long a writer waits for another, on every OS


def _try_lock(fh) -> bool:
    """One non-blocking attempt: flock on Unix, a one-byte msvcrt range lock on Windows."""
    try:
        import fcntl  # imported here: there is no fcntl on Windows, and no msvcrt elsewhere
    except ImportError:
        import msvcrt
        try:
            fh.seek(0)
            msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


@contextlib.contextmanager
def file_lock(root: Path, wait_s: float = LOCK_WAIT_S):
    """Serialise writers of one directory on one machine (several `history add` into one
    history). Every OS waits the same bounded time (msvcrt's own blocking lock gives up
    after 10 s, flock would wait for ever), then fails with a one-line error."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    fh = open(root / ".lock", "a+")
    try:
        deadline = time.monotonic() + wait_s
        delay = 0.01
        while not _try_lock(fh):
            if time.monotonic() >= deadline:
                raise BenchError(f"{root}: another writer has held the lock for more than {wait_s:g} s "
                                 f"({root / '.lock'}); nothing was written, try again")
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
        yield
    finally:
        fh.close()
