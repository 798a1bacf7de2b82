"""The windows a long series is searched for change points in (changepoints.detect):
which stretches, which part of each counts, and the key a window's result is cached
under. Apart from changepoints so that the site's cache bookkeeping (trends) does not
import the detector's libraries."""

from __future__ import annotations

import hashlib
from array import array


def windows(n: int, window: int, step: int) -> list[tuple[int, int]]:
    """[start, end) of the windows a series of n points is analysed in: `window` points
    long, starting every `step` points from the series' first, the last ending at n (so
    it holds more than window - step points). One window when n <= window."""
    if not 1 <= step <= window:
        raise ValueError(f"windows of {window} every {step}: want 1 <= step <= window (no point left out)")
    if n <= window:
        return [(0, n)]
    last = -(-(n - window) // step)
    return [(k * step, min(k * step + window, n)) for k in range(last + 1)]


def core(k: int, count: int, start: int, end: int, window: int, step: int) -> tuple[int, int]:
    """The part of window k (of count) whose candidates are kept: the middle `step`
    points, the first window's from its start, the last one's to its end. The cores
    tile the series, and every point but those of the series' first and last
    (window - step) / 2 has that many of its window on either side, so no change point
    is judged from the edge of a window where the series goes on beyond it."""
    margin = (window - step) // 2
    return (start if k == 0 else start + margin), (end if k == count - 1 else start + margin + step)


def window_key(values) -> str:
    """What a window's candidates depend on: its values (and the options, checked by
    the caller's cache)."""
    return window_keys(values, [(0, len(values))])[0]


def window_keys(values, spans) -> list[str]:
    """window_key of each [start, end) of values: the SHA-256 of its values as doubles,
    hashed from one buffer of them all (a night computes the keys of every window of
    every series that grew, about 60 a series of ten years)."""
    data = memoryview(doubles(values))
    return [hashlib.sha256(data[a:b]).hexdigest()[:24] for a, b in spans]


def doubles(values) -> array:
    """The values as an array of doubles: the array itself if they are one (a caller
    that digests them twice converts them once)."""
    return values if isinstance(values, array) and values.typecode == "d" else array("d", values)


def valid_candidates(v, length: int = 2**31) -> bool:
    """A window's cached entry as a search of `length` values can give it: a list of
    positions inside the window (anything else, from a damaged cache, is searched again)."""
    return isinstance(v, list) and (not v or all(type(i) is int and 0 < i < length for i in v))
