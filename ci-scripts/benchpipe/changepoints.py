"""Change points in a benchmark's history: the commits where the level of a series
shifted, with the size of the shift. Detection is MongoDB's E-Divisive means
(signal_processing_algorithms.energy_statistics.e_divisive: a permutation test on
energy statistics, no distribution assumed), run with a fixed seed so the same
series always gives the same answer. This module only prepares the series and
describes what the library found.

API (used by the site and history stages):

    detect(series: list[Point], *, pvalue=0.05, permutations=100, min_change=0.03,
           min_z=6.0, seed=SEED, window=None, step=None, known=None, keys=None) -> list[ChangePoint]

A Point is one run of one benchmark (commit, timestamp, value = e.g. the median wall
time of the run; smaller is better). Points are taken in the given order (sort them by
timestamp first: `sort_points`). A ChangePoint names the first point of the new level:
`index`, `commit`, `timestamp`, `previous_commit` (the last commit of the old level),
`before_median` / `after_median` (medians of the point values in the segments on either
side, bounded by the neighbouring change points), `ratio` = after / before and
`direction` ("regression" when the level went up, "improvement" when it went down).
Shifts smaller than `min_change` (relative) are dropped and the segments merged.

Defaults: pvalue 0.05 for the library's permutation test (its own default; at 0.01 the
binary segmentation misses a level that goes up and comes back, e.g. 20 % for a third
of a 40-point series), 100 permutations (the library's default: p-values in steps of
1/101, fine enough at 0.05, and half the cost of 200, which kept a first site build of a
year of history over a minute), and min_change 3 % (compare's memory threshold; for
time twice compare's 1.5 %, since a history sets nights against each other, not
interleaved pairs), which keeps pure noise of 3 % CV down to about 1 false change point in 40
series of 40 points (tests/test_changepoints.py).

Confirmation (min_z): the site re-analyses every series each night as it grows, and a
few noisy newest nights often look like a new level for a while: replayed night by night
(devtools/cpbench.py --nightly, 10 series of 150 nights, 3 % noise), E-Divisive with the
3 % threshold alone put a change point on 10 series of 10 at some night (243 per 100
series-years), though none survived to the last night. So a change point must also
stand out from the series' own noise: the shift of the segment medians (log scale) must
be at least `min_z` standard errors of their difference, 1.2533 sigma sqrt(1/n_before +
1/n_after), sigma being the robust spread of neighbour-to-neighbour differences
(`noise`). The detector searches every split of every night's series, so the bar is
high: at 4 and 5 standard errors, 3 and 1 of those 10 series still showed a passing
change point; at 6, none. The price is delay, on 20 series at 3 % noise: a 30 % step
is flagged 1 night after it (at most 2), 10 % after 7 (at most 13), 5 % after 27 (16 of
20 within 60 nights). A pull request's own comparison is the fast path.
Over a year (100 series of 365 nights, --nightly, 3 % noise), that still left 3 and 5
false change points per 100 series-years (seeds 1 and 2; seed 1's all on the 8th-10th
night of a series, where the median absolute deviation of 7-9 differences had put sigma
at a fraction of the truth); `noise` now keeps more of the data (a trimmed root mean
square): 1 and 0, with the same detection of 5, 10 and 30 % steps.

Windows (`window`, `step`; the site uses trends.WINDOW = 120 every trends.STEP = 60):
E-Divisive costs O(n^2) a permutation, so a series of ten years of nights (3,650 points)
took 100 times a year's, and the first site build of a ten-year history did not finish
in 18 minutes. Searched in windows, each keeping only what it finds in its middle (so
a point is judged with at least 30 neighbours on either side wherever the series has
them) and confirmed on the
whole series as above, the cost grows with n, and a window's result depends on its
values alone, so it is cached across renders and machines (trends.detect_all,
publish_cache). Measured (devtools/cpbench.py, 100 series x 730 nights, 3 % noise, seed
1), whole series against windows: 0 and 0 false change points in 200 series-years; a
5 % step found at its night in 75 and 74 of 100, 10 % in 99 and 99, 30 % in 100 and
100; 202 s against 31 s.

Replayed night by night as the site runs it (--nightly, 100 series x 365 nights, 3 %
noise, seed 1), the windowed search showed 1 false change point on some night per 100
series-years and none on the last, as the whole-series search did.

`series_from_results(docs, metric)` builds the series from a sequence of results files
(one Point per benchmark and run: env.commit, env.timestamp, the median of the samples).
"""

from __future__ import annotations

import ctypes
import functools
import math
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy.stats import norm
from signal_processing_algorithms.energy_statistics import cext_calculator
from signal_processing_algorithms.energy_statistics import energy_statistics as es

from benchpipe.changepoint_windows import core, valid_candidates, window_keys, windows
from benchpipe.results import key_id

SEED = 1234
PERMUTATIONS = 100
MIN_POINTS = 6            # fewer points: no change point can be told from noise
MIN_Z = 6.0               # confirmation: a shift of at least 6 standard errors (see the docstring)
TRIM = 0.10               # noise(): the share of the largest neighbour differences left out
SAMPLE_FIELDS = {"time": "wall_s", "memory": "peak_rss_bytes", "user": "user_s", "sys": "sys_s"}


@dataclass(frozen=True)
class Point:
    commit: str
    timestamp: str
    value: float
    meta: dict = field(default_factory=dict, compare=False, hash=False)  # anything the caller wants back


class Columns:
    """A series given as columns (commits, timestamps, values), read by `detect` as a
    list of Points: the site's series are columns already, and making a Point of each
    of ten years of nights took 40 % of a series' search (3,650 points, its windows
    known but the newest)."""

    def __init__(self, commits: list[str], timestamps: list[str], values: list[float]):
        if not len(commits) == len(timestamps) == len(values):
            raise ValueError("columns of different lengths")
        self.commits, self.timestamps, self.values = commits, timestamps, values

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, i: int) -> Point:
        return Point(self.commits[i], self.timestamps[i], self.values[i])

    def __iter__(self):
        return map(Point, self.commits, self.timestamps, self.values)


@dataclass(frozen=True)
class ChangePoint:
    index: int               # position in the series of the first point of the new level
    commit: str
    timestamp: str
    previous_commit: str     # the last commit of the old level
    before_median: float
    after_median: float
    ratio: float             # after_median / before_median
    direction: str           # regression (level went up) or improvement
    before_n: int            # points in the segment before / after
    after_n: int

    def to_json(self) -> dict:
        d = asdict(self)
        if not math.isfinite(d["ratio"]):
            d["ratio"] = None
        return d


def sort_points(series: list[Point]) -> list[Point]:
    """Oldest first (ISO 8601 timestamps in UTC sort as text; ties keep their order)."""
    return sorted(series, key=lambda p: p.timestamp)


def _segments(n: int, cps: list[int]) -> list[tuple[int, int]]:
    bounds = [0, *sorted(cps), n]
    return list(zip(bounds, bounds[1:]))


def _describe(points: list[Point] | Columns, values, cps: list[int], medians: dict | None = None) -> list[ChangePoint]:
    """The change points at cps, each with the medians of the segments on either side
    (numpy's median of the values as doubles, statistics.median's value; `medians` keeps
    them by segment across the calls of one confirmation, which drops one point at a time)."""
    arr = np.asarray(values, dtype=np.float64)
    medians = {} if medians is None else medians

    def median(a: int, b: int) -> float:
        m = medians.get((a, b))
        if m is None:
            m = medians[a, b] = _median(arr[a:b])
        return m

    out = []
    segs = _segments(len(arr), cps)
    for (a, b), (_, c) in zip(segs, segs[1:]):
        before = median(a, b)
        after = median(b, c)
        ratio = after / before if before > 0 else (1.0 if after == before else math.inf)
        out.append(ChangePoint(
            index=b, commit=points[b].commit, timestamp=points[b].timestamp,
            previous_commit=points[b - 1].commit, before_median=before, after_median=after, ratio=ratio,
            direction="regression" if after > before else "improvement", before_n=b - a, after_n=c - b))
    return out


def _median(seg: np.ndarray) -> float:
    """np.median's value of finite values (the middle one, or the two middle ones' sum
    halved, as its mean of them is) from one partition, without np.median's layers of
    checks: a third of its time on a ten-year series' segments, a few a series a night."""
    n = len(seg)
    h = n // 2
    if n % 2:
        return float(np.partition(seg, h)[h])
    p = np.partition(seg, (h - 1, h))
    return float((p[h - 1] + p[h]) / 2)


def candidates(values, *, pvalue: float = 0.05, permutations: int = PERMUTATIONS, seed: int = SEED) -> list[int]:
    """E-Divisive's change points of one stretch of values (indices into it), before any
    confirmation; none in fewer than MIN_POINTS or in constant values."""
    arr = np.asarray(values, dtype=np.float64)
    if len(arr) < MIN_POINTS or np.all(arr == arr[0]):
        return []
    # Scale to the median so the statistics do not depend on the unit.
    scale = float(np.median(np.abs(arr))) or 1.0
    # The library's deterministic_numpy_random(seed) draws, from a generator of our own
    # seeded the same way: the global one's state saved and restored took 10 % of a window.
    _DRAWS.seed(seed)
    cps = sorted(int(i) for i in e_divisive(arr / scale, pvalue=pvalue, permutations=permutations,
                                            shuffle=_DRAWS.shuffle, replay=_replay(len(arr), seed)))
    return [i for i in cps if 0 < i < len(arr)]


def e_divisive(series, pvalue: float = 0.05, permutations: int = PERMUTATIONS,
               shuffle=np.random.shuffle, replay: _Replay | None = None) -> list[int]:
    """The library's e_divisive (signal_processing_algorithms 2.1.6, whose distance matrix
    and t statistics it calls), with one change: a permutation test stops as soon as
    more permutations beat the candidate than its p-value allows (more than pvalue x
    (permutations + 1)), since the rest cannot bring it back under pvalue. The answer is
    the library's, change point for change point (tests/test_changepoints.py compares
    them): the permutations drawn until then are the same, and a test that fails ends
    the search, so nothing after it draws from the random state. Most windows of a
    history have no change point and end in one such test, whose permutations are most
    of the search's time: measured in the note of the commit that made this.
    `shuffle`: what draws the permutations (numpy's global generator's, as the library's;
    candidates passes its own generator's, seeded as deterministic_numpy_random seeds).
    `replay`: the first test's draws made before (_Replay, of a generator seeded as the
    one `shuffle` draws from is, and as long as the series), taken instead of drawn."""
    series = es._get_valid_input(series)
    distances = es._get_distance_matrix(series)
    change_points: list[int] = []
    memo: dict[tuple[int, int], tuple[int, float]] = {}
    # as the library's loop: a change point at 0 (none can be) would end it too
    while cp := _next_change_point(distances, change_points, memo, pvalue, permutations, shuffle,
                                   None if change_points else replay):
        change_points.append(cp)
    return change_points


def _next_change_point(distances: np.ndarray, change_points: list[int], memo: dict, pvalue: float,
                       permutations: int, shuffle, replay: _Replay | None = None) -> int | None:
    """The library's _get_next_significant_change_point, stopping its permutations early."""
    bounds = [0, *sorted(change_points), len(distances)]
    spans = list(zip(bounds, bounds[1:]))
    found = []
    for a, b in spans:
        if (a, b) not in memo:
            t = es._calculate_t_stats(distances[a:b, a:b])
            i = int(np.argmax(t))
            memo[a, b] = (i + a, t[i])
        found.append(memo[a, b])
    best = max(found, key=lambda x: x[1])
    better = 0
    # The library's draws (a shuffle of each span, in order) and values (the largest t of
    # the shuffled span, `_Shuffled`, taken as the library takes it, `_top`).
    if replay is not None and len(spans) == 1:
        return _replayed_test(distances, best, replay, pvalue, permutations)
    shufflers = [_Shuffled(distances[a:b, a:b], shuffle) for a, b in spans]
    for _ in range(permutations):
        beaten = []
        for shuffled in shufflers:
            beaten.append(_top(shuffled.t_stats()))
        if max(beaten) >= best[1]:
            better += 1
            if better / (permutations + 1) > pvalue:
                return None
    return best[0]   # every permutation drawn, and never too many beat it: significant


class _Shuffled:
    """One span of a permutation test: each `t_stats()` shuffles the span's rows and
    columns with the library's draw (np.random.shuffle of the span's indices; the draws
    depend on its length alone) and gives the library's t statistics of it, from the
    library's own C function, called on buffers made once a span rather than through
    the library's wrapper, whose argument checks and conversions were half a call's
    time. Same code on the same matrix: the same values, bit for bit.
    The same 200 windows of 60-120 points at 3 % noise, in one run on an idle machine:
    2.8 ms a window with the rows and columns taken in C and the library's wrapper (the code
    before), 1.1-1.4 with these buffers and a generator of its own (candidates)."""

    def __init__(self, span: np.ndarray, shuffle):
        self.shuffle = shuffle
        self.span = np.ascontiguousarray(span, dtype=np.float64)   # what the C code reads
        n = len(span)
        self.order = np.arange(n)
        self.rows = np.empty_like(self.span)
        self.matrix = np.empty_like(self.span)
        self.t = np.empty(n)
        self.call = _T_STAT_VALUES and functools.partial(
            _T_STAT_VALUES, self.matrix.ctypes.data, self.t.ctypes.data, n)

    def t_stats(self) -> np.ndarray:
        order = self.order.copy()   # a fresh arange, as the library shuffles one
        self.shuffle(order)
        # mode="clip": the indices are in range, and "raise" would copy through a buffer
        self.span.take(order, 0, out=self.rows, mode="clip")
        self.rows.take(order, 1, out=self.matrix, mode="clip")
        return self._of_matrix()

    def replayed_t_stats(self, flat: np.ndarray) -> np.ndarray:
        """t_stats of the span permuted by a kept draw (_Replay.flat_order): the matrix
        taken in one step by its flat indices."""
        self.span.ravel().take(flat, out=self.matrix.ravel(), mode="clip")
        return self._of_matrix()

    def _of_matrix(self) -> np.ndarray:
        if self.call is None:
            return es._calculate_t_stats(self.matrix)
        if not self.call():
            raise RuntimeError("the library's t_stat_values failed")
        return self.t


def _top(t: np.ndarray) -> float:
    """The largest t statistic: numpy's max, which is the builtin's but where a t is NaN
    (finite values so large that their sums overflow): then the builtin's, as the library
    takes it."""
    top = t.max()
    return top if top == top else max(t)


def _replayed_test(distances: np.ndarray, best: tuple[int, float], replay: _Replay, pvalue: float,
                   permutations: int) -> int | None:
    """_next_change_point's permutation test of one span, the whole series (a search's
    first), with its draws replayed (_Shuffled.replayed_t_stats), and the generator left
    where drawing them would have left it."""
    span = _Shuffled(distances, None)
    better = 0
    for k in range(permutations):
        if _top(span.replayed_t_stats(replay.flat_order(k))) >= best[1]:
            better += 1
            if better / (permutations + 1) > pvalue:
                replay.finish(k + 1)
                return None
    replay.finish(permutations)
    return best[0]


class _Replay:
    """A search's first permutation test, drawn once for every window of n points: the
    draws of a generator seeded with `seed` depend on n alone (the shuffles of
    arange(n)), and a night's newest windows are mostly of one length, so each shuffle
    is made once a process and kept as the flat indices that take a permuted matrix in
    one step (instead of a shuffle and two takes a permutation: 40 -> 31 us a
    permutation of 90 points, measured). `finish(k)` puts the searching generator
    (`draws`) where k shuffles would have left it, for the tests that may follow."""

    def __init__(self, n: int, seed: int, draws: np.random.RandomState):
        self.n, self.draws = n, draws
        self.rs = np.random.RandomState(seed)
        self.flats: list[np.ndarray] = []
        self.states = [self.rs.get_state()]

    def flat_order(self, k: int) -> np.ndarray:
        while len(self.flats) <= k:
            order = np.arange(self.n)
            self.rs.shuffle(order)
            self.flats.append((order[:, None] * self.n + order).ravel())
            self.states.append(self.rs.get_state())
        return self.flats[k]

    def bytes(self) -> int:
        return len(self.flats) * self.n * self.n * 8

    def finish(self, k: int) -> None:
        self.flat_order(k - 1)
        self.draws.set_state(self.states[k])


_REPLAYS: dict[tuple[int, int], _Replay] = {}   # by (n, seed), least recently used first
REPLAY_BYTES = 64 * 2**20   # kept draws at most (100 permutations of 120 points: 11 MB)


def _replay(n: int, seed: int) -> _Replay | None:
    """The kept draws of a first test of n points (None for a short series, whose matrices
    are cheap): kept for the lengths used last, within REPLAY_BYTES (trends.detect_all
    hands the series out by the length of their newest window)."""
    if n < 24:
        return None
    r = _REPLAYS.pop((n, seed), None) or _Replay(n, seed, _DRAWS)
    _REPLAYS[n, seed] = r
    while len(_REPLAYS) > 1 and sum(x.bytes() for x in _REPLAYS.values()) > REPLAY_BYTES:
        del _REPLAYS[next(iter(_REPLAYS))]
    return r


def _t_stat_values():
    """The library's C t_stat_values, loaded again with plain pointer arguments (its own
    handle keeps its checked ones); None where the library has no C extension."""
    if not cext_calculator.C_EXTENSION_LOADED:
        return None
    fn = ctypes.CDLL(cext_calculator.LIB_E_DIVISIVE._name).t_stat_values
    fn.restype = ctypes.c_bool
    fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
    return fn


_T_STAT_VALUES = _t_stat_values()
_DRAWS = np.random.RandomState()


def detect(series: list[Point] | Columns, *, pvalue: float = 0.05, permutations: int = PERMUTATIONS,
           min_change: float = 0.03, min_z: float = MIN_Z, seed: int = SEED, window: int | None = None,
           step: int | None = None, known: dict[str, list[int]] | None = None,
           keys: list[str] | None = None) -> list[ChangePoint]:
    """Change points of one series, in order. See the module docstring.

    With `window` (and `step`, default window // 2), E-Divisive looks at each of
    `windows(n, window, step)` and keeps what it finds in the window's core (`changepoint_windows.core`);
    the confirmation then judges those candidates on the whole series. The cost grows
    with n rather than n squared, and a window's candidates depend on its values alone:
    `known` maps `window_key` to them (read, and filled with what was computed), so a
    series that grew by a night analyses only its newest window again. `keys`: the
    windows' keys where the caller has them already (trends.detect_all), which must be
    `window_keys(values, windows(n, window, step))` of these values; only their count is
    checked.

    The values are converted to doubles once, in numpy (ten years are 3,650 values a
    series): one that is not a number (None, NaN; the site leaves those points out
    first) means no change points, as a NaN always did."""
    arr = np.asarray(series.values if isinstance(series, Columns) else [p.value for p in series], dtype=np.float64)
    values = arr.tolist()
    if len(values) < MIN_POINTS or not np.isfinite(arr).all():
        return []
    if (arr == arr[0]).all():
        return []
    opts = {"pvalue": pvalue, "permutations": permutations, "seed": seed}
    if window is None:
        cps = candidates(values, **opts)
    else:
        step = step or window // 2
        spans = windows(len(values), window, step)
        if keys is None or len(keys) != len(spans):
            keys = window_keys(values, spans)
        cps = []
        for k, ((a, b), key) in enumerate(zip(spans, keys)):
            found = known.get(key) if known is not None else None
            if not valid_candidates(found, b - a):
                # not known, or not what a search of these b - a values can give (a
                # damaged or hand-made cache): search again
                found = candidates(arr[a:b], **opts)
                if known is not None:
                    known[key] = found
            lo, hi = core(k, len(spans), a, b, window, step)
            cps += [a + i for i in found if lo <= a + i < hi]
    return confirm(series, arr, cps, min_change=min_change, min_z=min_z)


def confirm(series: list[Point] | Columns, values, cps: list[int], *, min_change: float = 0.03,
            min_z: float = MIN_Z) -> list[ChangePoint]:
    """The candidates that pass both bars, described on the whole series."""
    values = np.asarray(values, dtype=np.float64)
    medians: dict = {}
    cps = sorted(set(cps))
    # Drop shifts below the practical size, smallest first, merging the segments around them.
    while cps:
        found = _describe(series, values, cps, medians)
        weakest = min(found, key=lambda c: abs(math.log(c.ratio)) if c.ratio > 0 and math.isfinite(c.ratio) else math.inf)
        if abs(weakest.ratio - 1.0) >= min_change:
            break
        cps.remove(weakest.index)
    # Then those the series' own noise explains, weakest first (see "Confirmation"); the
    # noise (a sort of the whole series' differences) only where a candidate is left.
    sigma = noise(values) if cps else 0.0
    while cps and sigma > 0:
        found = _describe(series, values, cps, medians)
        weakest = min(found, key=lambda c: _z(c, sigma))
        if _z(weakest, sigma) >= min_z:
            break
        cps.remove(weakest.index)
    return _describe(series, values, cps, medians)


def noise(values: list[float]) -> float:
    """The series' point-to-point noise, relative (log scale), from the differences
    between neighbours (a level shift moves only one of them): the root mean square of
    their deviations from the median difference, leaving out the largest TRIM of them
    (at least one: the shift's own), scaled so that normal noise gives its sigma.

    Not the median absolute deviation, which this used before: the MAD keeps only 37 %
    of the information in normal data, and on the 7-10 differences of a new series it
    came out two to three times too small now and then, so that noise passed the 6
    standard errors of the confirmation (devtools/cpbench.py --nightly at 3 % noise: 3
    false change points per 100 series-years, all on nights 8-10)."""
    arr = np.asarray(values, dtype=np.float64)
    logs = np.log(arr[arr > 0])
    if len(logs) < 3:
        return 0.0
    d = np.diff(logs)
    dev = np.sort(np.abs(d - np.median(d)))
    kept = dev[:len(dev) - max(1, round(TRIM * len(dev)))]  # never empty: 3+ points give 2+ differences
    return float(math.sqrt(np.mean(kept ** 2) / _consistency(len(kept), len(dev)) / 2))


@functools.lru_cache(maxsize=4096)
def _consistency(kept: int, of: int) -> float:
    """E[Z^2 | |Z| < c] for a standard normal Z cut at the kept share q = kept / of: a
    function of the series' length alone, kept (scipy's distributions cost more than the
    rest of noise() on a series of ten years)."""
    c = norm.ppf((1 + kept / of) / 2)
    return 1 - 2 * c * norm.pdf(c) / (2 * norm.cdf(c) - 1)


def _z(cp: ChangePoint, sigma: float) -> float:
    """The shift in standard errors of the difference of the two segments' medians
    (a median's standard error: 1.2533 sigma / sqrt(n))."""
    if not (cp.ratio > 0 and math.isfinite(cp.ratio)):
        return math.inf
    se = 1.2533 * sigma * math.sqrt(1 / cp.before_n + 1 / cp.after_n)
    return abs(math.log(cp.ratio)) / se


def series_from_results(docs: list[dict], metric: str = "time") -> dict[str, list[Point]]:
    """Series per benchmark key id from loaded results files (results.load), oldest first.
    Benchmarks that did not run ok are left out; meta holds the key and the sample count."""
    fieldname = SAMPLE_FIELDS[metric]
    out: dict[str, list[Point]] = {}
    for doc in sorted(docs, key=lambda d: d["env"]["timestamp"]):
        env = doc["env"]
        for b in doc["benchmarks"]:
            samples = b["samples"][fieldname]
            if b["status"] != "ok" or not samples:
                continue
            out.setdefault(key_id(b["key"]), []).append(
                Point(env["commit"], env["timestamp"], float(np.median(samples)),
                      {"key": b["key"], "n": len(samples)}))
    return out
