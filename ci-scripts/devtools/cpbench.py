"""Benchmark of the change-point detector (not a test): false change points per 100
series-years of nightly medians on unchanged code, and how often an injected level
shift is found at its night, with the detector's default settings.

    python -m devtools.cpbench [--series 100] [--nights 365] [--cv 0.02] [--shifts 0.05,0.1,0.3]

Each series is lognormal noise around 1 (the night-to-night spread of a benchmark's
median, `--cv`); a shifted copy multiplies every night from a random one on (between
the 10th night and the 10th from the end, or `--at`). A shift counts as found when a change point
falls within `--tolerance` nights of it. Fixed seeds: the same command prints the same
figures."""

from __future__ import annotations

import argparse
import functools
import math
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from benchpipe import changepoints, trends


def _series(seed: int, nights: int, cv: float) -> np.ndarray:
    return np.random.default_rng(seed).lognormal(0.0, math.sqrt(math.log(1 + cv * cv)), nights)


def _detect(values, whole: bool = False) -> list[int]:
    """As the site searches (windows of trends.WINDOW), or the whole series at once."""
    pts = [changepoints.Point(f"c{i}", f"t{i:05d}", float(v)) for i, v in enumerate(values)]
    shape = {} if whole else {"window": trends.WINDOW, "step": trends.STEP}
    return [cp.index for cp in changepoints.detect(pts, **shape)]


def nightly(noise: list, jobs: int | None) -> tuple[int, int]:
    """As the site runs it: every night the series grows by one point and
    trends.detect_all re-analyses it with its cache (only the newest window searched
    again). Returns (change points shown on some night, change points shown on the last)."""
    seen: set[tuple[int, int]] = set()
    last: list = []
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cp.json"
        for n in range(changepoints.MIN_POINTS, len(noise[0]) + 1):
            series = {str(i): ([f"c{j}" for j in range(n)], [f"t{j:05d}" for j in range(n)], [float(v) for v in s[:n]])
                      for i, s in enumerate(noise)}
            found = trends.detect_all(series, cache, jobs)
            last = [(int(sid), cp["index"]) for sid, cps in found.items() for cp in cps]
            seen.update(last)
    return len(seen), len(last)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--series", type=int, default=100)
    p.add_argument("--nights", type=int, default=365)
    p.add_argument("--cv", type=float, default=0.02)
    p.add_argument("--shifts", default="0.05,0.1,0.3")
    p.add_argument("--tolerance", type=int, default=1)
    p.add_argument("--jobs", type=int, default=None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--nightly", action="store_true",
                   help="also replay the nights as the site analyses them (cache, window; slower)")
    p.add_argument("--whole", action="store_true",
                   help="search each series whole, as the site did before it searched in windows (O(n^2))")
    p.add_argument("--at", type=int, help="every shift from this night on (default: a random night per series)")
    a = p.parse_args(argv)
    shifts = [float(x) for x in a.shifts.split(",") if x]
    t0 = time.perf_counter()
    noise = [_series(a.seed * 100_000 + i, a.nights, a.cv) for i in range(a.series)]
    rng = np.random.default_rng(a.seed)
    at = [a.at if a.at is not None else int(rng.integers(10, a.nights - 10)) for _ in range(a.series)]
    jobs = list(noise)
    for s in shifts:
        jobs += [np.where(np.arange(a.nights) >= i, n * (1 + s), n) for n, i in zip(noise, at)]
    with ProcessPoolExecutor(max_workers=a.jobs) as pool:
        found = list(pool.map(functools.partial(_detect, whole=a.whole), jobs, chunksize=4))
    false = sum(len(f) for f in found[:a.series])
    years = a.series * a.nights / 365
    how = "whole series" if a.whole else f"windows of {trends.WINDOW} every {trends.STEP}"
    print(f"change points, default settings ({changepoints.__name__}.detect, {how}), {a.series} series x {a.nights} "
          f"nights, noise CV {a.cv:.1%}, seed {a.seed}")
    print(f"  unchanged code: {false} change point(s) in {years:.0f} series-years = "
          f"{false / years * 100:.1f} per 100 series-years; series with any: "
          f"{sum(1 for f in found[:a.series] if f)}/{a.series}")
    for k, s in enumerate(shifts):
        got = found[a.series * (k + 1):a.series * (k + 2)]
        hit = sum(1 for f, i in zip(got, at) if any(abs(c - i) <= a.tolerance for c in f))
        extra = sum(sum(1 for c in f if abs(c - i) > a.tolerance) for f, i in zip(got, at))
        print(f"  shift +{s:.0%}: found at its night (±{a.tolerance}) in {hit}/{a.series}; "
              f"{extra} other change point(s)")
    if a.nightly:
        ever, final = nightly(noise, a.jobs)
        print(f"  unchanged code, nightly re-analysis (windows of {trends.WINDOW}): {ever} change point(s) shown on "
              f"some night ({ever / years * 100:.1f} per 100 series-years), {final} on the last")
    print(f"  ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
