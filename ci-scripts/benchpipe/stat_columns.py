"""A trend series' figures of one metric, a point each: (median, ci_low, ci_high) or None.

Kept as three arrays of doubles, NaN where a point has no figures (the history's schema
has the three together or none), not as a tuple a point: ten years are 3.7 million
points on three OSes and four metrics, 15 million tuples that the series cache spent
most of its read making (215 of 355 MiB), and most of them are never looked at again:
a night's change points read the medians (one C copy here), the trend charts the newest
year's points and the weeks not kept yet. Written to the series cache as bytes."""

from __future__ import annotations

import math
from array import array
from typing import Iterable

import numpy as np

NAN = math.nan


class StatColumn:
    """A list-like column of (median, ci_low, ci_high) | None."""
    __slots__ = ("med", "low", "high")

    def __init__(self, triples: Iterable[tuple | None] = ()):
        self.med, self.low, self.high = array("d"), array("d"), array("d")
        self.extend(triples)

    @classmethod
    def fromlists(cls, med: list, low: list, high: list) -> StatColumn:
        """Three lists of numbers, a point each (TypeError: a None among them)."""
        if not len(med) == len(low) == len(high):
            raise TypeError("columns of different lengths")
        c = cls()
        c.med, c.low, c.high = array("d", med), array("d", low), array("d", high)
        return c

    @classmethod
    def frombytes(cls, parts, n: int | None = None) -> StatColumn:
        """What tobytes gave (a copy of each array's bytes, no value made), or a list of
        what it gave for stretches one after another (the series cache's chunks); only
        the first n points, if n is given (ValueError: it has fewer)."""
        c = cls()
        left = n
        for part in parts if type(parts) is list else (parts,):
            if type(part) is int:   # that many points, none with figures
                k = part if left is None else min(part, left)
                nan = array("d", [NAN]) * k
                c.med += nan
                c.low += nan
                c.high += nan
            else:
                before = len(c.med)
                for a, b in zip((c.med, c.low, c.high), part):
                    a.frombytes(b if left is None else memoryview(b)[:left * a.itemsize])
                if not len(c.med) == len(c.low) == len(c.high):
                    raise ValueError("columns of different lengths")
                k = len(c.med) - before
            if left is not None:
                left -= k
        if n is not None and len(c.med) != n:
            raise ValueError("fewer points than asked for")
        return c

    def tobytes(self, start: int = 0, end: int | None = None) -> tuple[bytes, bytes, bytes] | int:
        """The three arrays' bytes (of the points from start to end); or, where no point
        has figures (a metric a benchmark does not measure: a quarter of ten years'
        columns), just how many points."""
        med = np.frombuffer(self.med, dtype=np.float64)[start:end]
        if np.isnan(med).all():
            return len(med)
        return tuple(memoryview(a)[start:end].tobytes() for a in (self.med, self.low, self.high))

    def __len__(self) -> int:
        return len(self.med)

    def append(self, t: tuple | None) -> None:
        if t:
            self.med.append(t[0])
            self.low.append(t[1])
            self.high.append(t[2])
        else:
            self.med.append(NAN)
            self.low.append(NAN)
            self.high.append(NAN)

    def extend(self, other: Iterable[tuple | None]) -> None:
        if isinstance(other, StatColumn):
            self.med += other.med
            self.low += other.low
            self.high += other.high
            return
        for t in other:
            self.append(t)

    def __iadd__(self, other: Iterable[tuple | None]) -> StatColumn:
        self.extend(other)
        return self

    def __getitem__(self, i):
        if isinstance(i, slice):
            return _triples(self.med[i], self.low[i], self.high[i])
        m = self.med[i]
        return None if m != m else (m, self.low[i], self.high[i])

    def __iter__(self):
        return iter(self.triples())

    def triples(self) -> list[tuple | None]:
        """Every point's figures as tuples (zip in C, then a pass for the missing)."""
        return _triples(self.med, self.low, self.high)

    def take(self, order: Iterable[int]) -> StatColumn:
        """The points at these positions, in that order."""
        c = StatColumn()
        for a, b in zip((self.med, self.low, self.high), (c.med, c.low, c.high)):
            b.extend(map(a.__getitem__, order))
        return c

    def medians(self) -> list[float | None]:
        """Each point's median, None where it has none."""
        m = self.med.tolist()
        if _complete(self.med):
            return m
        return [None if v != v else v for v in m]

    def positive_medians(self) -> tuple[array, list[int] | None]:
        """The medians that are above 0 (not missing, 0 or below), as an array of
        doubles (a copy), and their positions, None when they are every point's (the
        common case): what a change-point search reads. In numpy: a Python pass over
        each of ten years' 4,104 columns took 1.6 s a night, most of it over the quarter
        with no figures at all; and doubles, which the search's digests and numpy read
        as they are, not Python floats (a list of 3,650 made, then read back into doubles,
        took ~0.1 ms a series: ~0.3 s a night on three OSes)."""
        med = np.frombuffer(self.med, dtype=np.float64)
        above = med > 0   # (NaN > 0 is False)
        if above.all():
            return array("d", self.med), None
        idx = np.flatnonzero(above)
        out = array("d")
        out.frombytes(med[idx].tobytes())
        return out, idx.tolist()

    def __eq__(self, other) -> bool:
        if isinstance(other, StatColumn):
            return self.triples() == other.triples()
        if isinstance(other, list):
            return self.triples() == other
        return NotImplemented

    def __repr__(self) -> str:
        return f"StatColumn({self.triples()!r})"


def _triples(med: array, low: array, high: array) -> list[tuple | None]:
    out = list(zip(med, low, high))
    if _complete(med):
        return out
    return [None if t[0] != t[0] else t for t in out]


def _complete(med: array) -> bool:
    """No point without figures: no NaN among the medians, told by their sum (in C; the
    figures are finite, so only a NaN makes it NaN)."""
    total = sum(med)
    return total == total
