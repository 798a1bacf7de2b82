"""What the charts and the site show, computed from the history: series per benchmark,
OS and channel (a compiler release is a point on its channel's series, the exact
version on every point), the latest result per series, the headline toolchain per
language, Go-vs-Rust pairs, the compiler-version verdicts, and change points (through
a small adapter over benchpipe.changepoints).

Change points are found on a series of medians per (benchmark, OS, channel) and metric
(benchpipe.metrics, those with `changepoints`: the timed window, the CPU time inside it
and peak memory), searched in windows (changepoints.detect), in parallel processes, with
a cache kept beside the site (each window's candidates keyed by its values, each series'
result by its content), so re-rendering an unchanged history searches nothing again and
one more night searches each series' newest window only."""

from __future__ import annotations

import bisect
import functools
import gc
import hashlib
import itertools
import json
import multiprocessing
import operator
import os
import re
import sys
import time
from array import array
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from benchpipe import columns_cache, history_rows, history_summary, series_cache, strictjson
from benchpipe.changepoint_windows import doubles, valid_candidates, window_keys, windows
from benchpipe.errors import BenchError
from benchpipe.fsutil import atomic_write_json
from benchpipe.history import channel
from benchpipe.metrics import HEADLINE, METRICS, with_changepoints
from benchpipe.results import family_id, format_params, key_id
from benchpipe.stat_columns import StatColumn

# --------------------------------------------------------------------------- change-point adapter

WINDOW = 120  # E-Divisive looks at windows of this many points (changepoints.detect)
STEP = 60     # starting every STEP points: inner points are judged with 30 or more on either side
CACHE_VERSION = 2  # bump when what changepoints.candidates finds for the same values changes
MAX_CACHE_BYTES = 256 * 2**20  # ~60 bytes a window: far beyond ten years of nights


def _detect_one(args) -> tuple[list[dict], dict[str, list[int]]]:
    """detect(values) -> (change points as dicts (index, ratio, direction, before/after
    medians, commit, previous_commit), the windows' candidates it computed). The adapter
    over benchpipe.changepoints.detect (E-Divisive means, windowed), given the candidates
    of the windows already known."""
    # imported where change points are looked for: with it (signal_processing_algorithms,
    # structlog, scipy.spatial) `bench --help` took 0.07 s more CPU, for nothing
    from benchpipe import changepoints

    cid, options, known, window, step, keys = args
    commits, dates, values = _FORKED[cid] if isinstance(cid, str) else cid
    had = dict(known)
    cps = [cp.to_json() for cp in changepoints.detect(changepoints.Columns(commits, dates, values), **options,
                                                      window=window, step=step, known=known, keys=keys)]
    return cps, {k: v for k, v in known.items() if had.get(k) is not v}  # searched now (a bad entry replaced)


def _fork_context():
    """The fork start method where it is safe to use (Linux), else None: macOS has it but
    spawns by default (system libraries' threads do not survive a fork), Windows lacks it."""
    return multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None


def _pool_map(fn, items: list, jobs: int, chunksize: int, what: str, initializer=None, meanwhile=None) -> list:
    """fn over items in `jobs` worker processes (forked on Linux: they share the parent's
    memory until they write to it), in order; `meanwhile()` is called in this process
    once the work is handed out. A collection in a worker writes to every
    object it visits, so the parent's are frozen meanwhile. On an error the work not begun
    is cancelled; a worker the system killed (out of memory) is one line."""
    gc.freeze()
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=initializer, mp_context=_fork_context())
    try:
        results = pool.map(fn, items, chunksize=chunksize)   # (every chunk submitted, the workers started)
        if meanwhile is not None:
            meanwhile()
        return list(results)
    except BrokenProcessPool:
        raise BenchError(f"{what}: a worker process died (out of memory?); try again with --jobs 1") from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        gc.unfreeze()


# The series a pool of forked workers searches, set before the fork: the workers read
# them from the memory they share with the parent instead of having ten years of commits
# and dates pickled to them (1,368 series of 3,650 nights an OS, ~200 MB a render).
_FORKED: dict[str, tuple[list, list, list]] = {}


def _hash(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:24]


def _series_hash(commits: list[str], dates: list[str], values: list[float], axes: bytes | None = None) -> str:
    """What a series' change points depend on, hashed: the values as doubles and their
    count, and the commits and dates (_axes_digest; `axes`: theirs, where the caller has
    it). Ten years of nights are 1,368 series of 3,650 points an OS: _hash of all three
    took 3.7 s a render, then the commits and dates as JSON 1.5 s of this."""
    h = hashlib.sha256(axes or _axes_digest(commits, dates))
    h.update(len(values).to_bytes(8, "little"))
    h.update(doubles(values))
    return h.hexdigest()[:24]


def _axes_digest(commits: list[str], dates: list[str]) -> bytes:
    """The commits and the dates (hex and ISO 8601 in a valid history: no NULs) joined by
    NULs, each text's length first, hashed: once a series, not once each of its metrics,
    whose series of values share them (148 of a series' 177 KB at ten years)."""
    text = ["\0".join(commits), "\0".join(dates)]
    joined = all(t.count("\0") == max(0, len(c) - 1) for t, c in zip(text, (commits, dates)))
    if not joined:   # a NUL in one (no valid history has any): as JSON, which cannot be misread
        text = [json.dumps([commits, dates])]
    h = hashlib.sha256(b"T" if joined else b"J")
    for n in (len(commits), len(dates), *map(len, text)):
        h.update(n.to_bytes(8, "little"))
    for t in text:
        h.update(t.encode("utf-8", "surrogatepass"))
    return h.digest()


# A site folder's cache is kept in columns_cache's frame (`.marshal`: at ten years on three
# OSes 8.6 MB, which as JSON took ~0.3 s a night to read and write); the branch's shared
# copy (publish_cache) and any other path stay JSON, which a diff can show. The frame has
# no code digest: what the entries stand for is the stamp's (the code's CACHE_VERSION, the
# libraries' versions), as in the JSON, so that an edit of the search's modules that finds
# the same does not throw ten years of windows away.
def _cache_frame() -> bytes:
    return f"{columns_cache.frame_line('bench-changepoints/1')}\n".encode()


def _read_cache_doc(path: Path):
    """The document at path (framed marshal by its suffix, else strict JSON), or None."""
    if path.is_symlink() or not path.is_file():
        return None
    if path.suffix == columns_cache.SUFFIX:
        return columns_cache.read_framed(path, _cache_frame(), MAX_CACHE_BYTES)
    try:
        return strictjson.read(path, max_bytes=MAX_CACHE_BYTES)
    except BenchError:
        return None


def _write_cache_doc(path: Path, doc: dict) -> bool:
    """doc written at path (framed marshal by its suffix, else JSON); False where the
    framed file could not be written (no cache: nothing raised)."""
    if path.suffix == columns_cache.SUFFIX:
        return columns_cache.replace_framed(path, _cache_frame(), doc)
    atomic_write_json(path, doc, indent=None)
    return True


def _stamped_doc(path: Path | None, stamp: dict) -> dict | None:
    """The cache document at path (or, for a missing `.marshal`, at the JSON path beside
    it) if written with this stamp, its entries unchecked; else None."""
    if not path:
        return None
    cache = _read_cache_doc(path)
    if cache is None and path.suffix == columns_cache.SUFFIX and not path.exists():
        cache = _read_cache_doc(path.with_suffix(".json"))
    return cache if isinstance(cache, dict) and {k: cache.get(k) for k in stamp} == stamp else None


def read_cache(path: Path | None, stamp: dict) -> dict:
    """A cache written with these options and this code, else {} (missing, damaged,
    another layout: start afresh); entries of the wrong form are left out. A site's
    `.marshal` cache that is missing is read from the JSON file beside it that the code
    before 2026-12-06 kept (the first render after an upgrade searches no more)."""
    cache = _stamped_doc(path, stamp)
    if cache is None:
        return {}
    out = dict(stamp)
    for part in ("windows", "newest"):
        got = cache.get(part)
        out[part] = {k: v for k, v in got.items() if valid_candidates(v)} if isinstance(got, dict) else {}
    got = cache.get("series")
    out["series"] = {sid: c for sid, c in got.items()
                     if isinstance(c, dict) and isinstance(c.get("hash"), str)
                     and isinstance(c.get("windows"), list) and all(isinstance(k, str) for k in c["windows"])
                     and isinstance(c.get("cps"), list) and all(isinstance(cp, dict) and type(cp.get("index")) is int
                                                                 for cp in c["cps"])} \
        if isinstance(got, dict) else {}
    return out


def cache_stamp(options: dict | None = None, window: int = WINDOW, step: int = STEP) -> dict:
    """What a cache must have been written with to be used: the options, the windows and
    the code that searched them (the detector's library and numpy, whose versions could
    change what a search finds, and CACHE_VERSION for changes of ours)."""
    return {"version": CACHE_VERSION, "options": options or {}, "window": window, "step": step,
            "code": _code_versions()}


@functools.cache
def _code_versions() -> str:
    from importlib.metadata import PackageNotFoundError, version
    out = []
    for dist in ("signal-processing-algorithms", "numpy", "scipy"):
        try:
            out.append(f"{dist} {version(dist)}")
        except PackageNotFoundError:
            out.append(f"{dist} ?")
    return ", ".join(out)


def detect_all(series: dict[str, tuple[list, list, list]], cache_path: Path | None, jobs: int | None = None,
               options: dict | None = None, window: int = WINDOW, step: int = STEP,
               meanwhile=None) -> dict[str, list[dict]]:
    """Change points of many series {sid: (commits, dates, values)}, in parallel, cached.

    Each series is analysed in windows (changepoints.detect: `window` points every
    `step`), so a series of ten years costs ten times one of a year, not a hundred. The
    cache (a file beside the site) keeps each window's candidates by the window's
    values ("windows": the full windows, which a series that grows keeps; "newest": the
    shorter last ones) and each series' change points by its content: an unchanged series
    is not analysed again, and one that grew by a night only in its newest window. What
    the cache holds never changes the answer: a render without it finds the same.
    `meanwhile()`: called while worker processes search (only then, once)."""
    options = options or {}
    stamp = cache_stamp(options, window, step)
    cache = read_cache(cache_path, stamp)
    known_windows: dict[str, list[int]] = {**cache.get("newest", {}), **cache.get("windows", {})}
    known_series = cache.get("series", {})
    out, todo, keys_of, full_keys, hashes, axes, by_content, prefixes = {}, [], {}, set(), {}, {}, {}, {}
    for sid, (commits, dates, values) in series.items():
        spans = windows(len(values), window, step)
        # (a series' metrics share its commits and dates: the same lists, alive meanwhile;
        # and the series of one OS and channel have the same nights: equal lists, told
        # apart as tuples by the strings' cached hashes, 3 times faster than hashing them)
        ax = axes.get((id(commits), id(dates)))
        if ax is None:
            content = (tuple(commits), tuple(dates))
            ax = by_content.get(content) or by_content.setdefault(content, _axes_digest(commits, dates))
            axes[id(commits), id(dates)] = ax
        data = doubles(values)   # (both digests read the values as doubles)
        full = hashes[sid] = _series_hash(commits, dates, data, ax)
        c = known_series.get(sid)
        if c and c["hash"] == full and len(c["windows"]) == len(spans) \
                and all(0 < cp["index"] < len(values) for cp in c["cps"]):
            out[sid], keys_of[sid] = c["cps"], c["windows"]
            v = c.get("values")
            prefixes[sid] = v if _counted(v) and v[0] == len(data) else \
                [len(data), hashlib.sha256(data).hexdigest()[:24]]
        else:
            keys_of[sid], prefixes[sid] = _window_keys(data, spans, c, window, step)
            known = {k: known_windows[k] for k in keys_of[sid] if k in known_windows}
            todo.append((sid, [(commits, dates, values), options, known, window, step, keys_of[sid]]))
        full_keys.update(k for k, (a, b) in zip(keys_of[sid], spans) if b - a == window)
    computed: dict[str, list[int]] = {}
    if todo:
        # searched by the length of their newest window, so that a process searches the
        # windows of one length together (changepoints._replay keeps their draws)
        order = [sid for sid, _ in todo]
        todo.sort(key=lambda t: -operator.sub(*windows(len(t[1][0][2]), window, step)[-1]))
        jobs = jobs or os.cpu_count() or 1
        if jobs > 1 and len(todo) > 8:
            forked = _fork_context() is not None
            if forked:   # the workers read each series from _FORKED by its id
                _FORKED.update((sid, args[0]) for sid, args in todo)
                for sid, args in todo:
                    args[0] = sid
            try:
                # (the site pauses the collector while it works, gcpause; the workers need it)
                found = _pool_map(_detect_one, [t[1] for t in todo], jobs, max(1, len(todo) // (jobs * 4)),
                                  "the change-point search", initializer=gc.enable, meanwhile=meanwhile)
            finally:
                _FORKED.clear()
        else:
            found = [_detect_one(t[1]) for t in todo]
        got = {sid: cps for (sid, _), (cps, _new) in zip(todo, found)}
        out.update((sid, got[sid]) for sid in order)   # in the series' order, as before
        for _cps, new in found:
            computed.update(new)
    if cache_path is not None:
        # the windows the series have now; those of series gone or grown past them go
        every = {**known_windows, **computed}
        now = sorted({k for ks in keys_of.values() for k in ks if k in every})
        doc = {**stamp, "windows": {k: every[k] for k in now if k in full_keys},
               "newest": {k: every[k] for k in now if k not in full_keys},
               "series": {sid: {"hash": hashes[sid], "cps": out[sid], "windows": keys_of[sid], "values": prefixes[sid]}
                          for sid in series}}
        if _write_cache_doc(cache_path, doc) and cache_path.suffix == columns_cache.SUFFIX:
            cache_path.with_suffix(".json").unlink(missing_ok=True)   # the older code's, read above
    return out


def _window_keys(data, spans: list[tuple[int, int]], kept: dict | None, window: int,
                 step: int) -> tuple[list[str], list]:
    """window_keys of a series' windows, and [count, digest] of its values as doubles
    (what the cache keeps with it): the keys of the windows it had when it was cached
    taken from there when its values then are still the first of its values now (a
    series that grew by a night hashes its newest window or two, not its 60 windows of
    ten years: 0.1 ms a series, ~0.3 s a night on three OSes, before the search starts)."""
    h = hashlib.sha256()
    old = kept.get("values") if kept else None
    reuse = 0
    if _counted(old) and old[0] <= len(data):
        mem = memoryview(data)
        h.update(mem[:old[0]])
        if h.hexdigest()[:24] == old[1]:
            before = windows(old[0], window, step)
            while reuse < min(len(before), len(spans), len(kept["windows"])) and before[reuse] == spans[reuse]:
                reuse += 1
        h.update(mem[old[0]:])
    else:
        h.update(data)
    return (kept["windows"][:reuse] if reuse else []) + window_keys(data, spans[reuse:]), \
        [len(data), h.hexdigest()[:24]]


def _counted(v) -> bool:
    """A cached series' [count, digest] of its values, as _window_keys keeps it."""
    return isinstance(v, list) and len(v) == 2 and type(v[0]) is int and v[0] > 0 and isinstance(v[1], str)


def shared_cache(path: Path, options: dict | None = None, window: int = WINDOW, step: int = STEP) -> dict | None:
    """What of a site's change-point cache is worth keeping with the history (publish
    commits it, so that a render on a fresh machine searches only the newest windows):
    the full windows' candidates, which change only when a series fills a new window
    (every `step` nights), not the newest windows or the per-series results, which change
    every night. None when there is no usable cache."""
    cache = read_cache(path, cache_stamp(options, window, step))
    if not cache:
        return None
    return {**cache_stamp(options, window, step), "windows": cache.get("windows", {})}


def seed_cache(path: Path, shared: dict) -> None:
    """Start a site's cache from a shared one (shared_cache's form, this code's stamp),
    unless it has one: its well-formed window entries only."""
    stamp = cache_stamp()
    # (read_cache: a site cache it cannot use, of other options or damaged, is none; one
    # that older code kept as JSON beside a missing .marshal is the site's own)
    if _stamped_doc(path, stamp) is not None or {k: shared.get(k) for k in stamp} != stamp \
            or not isinstance(shared.get("windows"), dict):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    windows = {k: v for k, v in shared["windows"].items() if isinstance(k, str) and valid_candidates(v)}
    _write_cache_doc(path, {**stamp, "windows": windows})


# --------------------------------------------------------------------------- model



def version_tuple(toolchain: str) -> tuple:
    nums = tuple(int(x) for x in re.findall(r"\d+", toolchain.split("-")[0]))
    stable = 0 if "-" in toolchain else 1
    return (stable, nums, toolchain)


def headline_toolchain(toolchains) -> str:
    """The toolchain a language is shown with by default: the newest release (prereleases
    such as beta/nightly only when nothing else exists)."""
    return max(toolchains, key=version_tuple)


def slug(text: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]
    return f"{s}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


def series_id(entry: dict) -> str:
    """OS, benchmark family (scenario, variant, build, params) and channel."""
    return _series_id(entry["os"], entry["key"], channel(entry))


def _series_id(os_: str, key: dict, chan: str) -> str:
    return f"{os_}|{family_id(key)}|{chan}"


def version_text(toolchain: str) -> str:
    """go1.26.8 -> 1.26.8, rust1.95.0 -> 1.95.0 (the language is said beside it)."""
    return re.sub(r"^(go|rust)", "", toolchain)


def summary_triple(v) -> tuple | None:
    """A summary's median and 95 % interval: from an entry's (a dict) or a summarised
    row's (an array in history_rows.STATS order); None where there is none."""
    if not v:
        return None
    if isinstance(v, list):
        return (v[0], v[1], v[2])
    return (v.get("median"), v.get("ci_low"), v.get("ci_high"))


def versus_point(v) -> tuple[str | None, float | None]:
    """What the site reads of a point's toolchain verdict: its older side (its channel,
    else its toolchain: versions.older_side) and its headline ratio, (None, None) where it
    has none (the Compiler versions trail and charts; a series' newest verdict is read
    whole from Series.last). Kept as two plain columns, not a dict a point: ten years of
    1.9 million small dicts were a quarter of the series cache (109 of 413 MiB on three
    OSes) and most of the time reading it."""
    if not v or type(v) is not dict:
        return (None, None)
    m = v.get("metrics")
    h = m.get(HEADLINE.name) if type(m) is dict else None
    return (v.get("channel") or v.get("toolchain"), h.get("ratio") if type(h) is dict else None)


@dataclass
class Series:
    """One benchmark (key without label) on one OS and channel, over time. key: the
    newest point's key (its exact toolchain).

    A point per run, oldest first, as columns: ten years are 1.2 million points an OS,
    and a summarised month's rows are read straight into them (build), never made into
    entries. `last` is the newest point as a whole entry (what the tables show)."""
    sid: str
    os: str
    key: dict
    channel: str = ""
    dates: list[str] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    keys: list[dict] = field(default_factory=list)               # each point's key (its toolchain)
    versus_older: list[str | None] = field(default_factory=list)    # each point's compiler-version verdict: its older side
    versus_ratio: list[float | None] = field(default_factory=list)  # and its headline ratio (versus_point; None: none)
    stats: dict[str, StatColumn] = field(default_factory=lambda: {m: StatColumn() for m in METRICS})  # metric -> (median, ci_low, ci_high)
    last: dict | None = None
    metric_changepoints: dict[str, list[dict]] = field(default_factory=dict)  # metric name -> its change points

    def __len__(self) -> int:
        return len(self.dates)

    def add(self, e: dict) -> None:
        """An entry as the newest point."""
        self.append(e["date"], e["commit"], e["run"], e["key"], e)
        self.last = e

    def append(self, date: str, commit: str, run: str, key: dict, fields: dict) -> None:
        """A point as the newest: fields, an entry or a summarised row's (its summaries,
        `versus`)."""
        self.dates.append(date)
        self.commits.append(commit)
        self.runs.append(run)
        self.keys.append(key)
        older, ratio = versus_point(fields.get("versus"))
        self.versus_older.append(older)
        self.versus_ratio.append(ratio)
        for m in METRICS.values():
            self.stats[m.name].append(summary_triple(m.summary_of(fields)))
        self.key = key

    def extend(self, newer: Series) -> None:
        """Another stretch of this series (a summarised month's), its points newer, as
        the newest."""
        for col in COLUMNS:
            getattr(self, col).extend(getattr(newer, col))
        for name, col in newer.stats.items():
            self.stats[name] += col
        self.key = newer.key

    @classmethod
    def of(cls, entries: list[dict], sid: str = "") -> Series:
        """A series of these entries (by date)."""
        e = entries[0]
        s = cls(sid or series_id(e), e["os"], e["key"], channel(e))
        for e in entries:
            s.add(e)
        return s

    @property
    def changepoints(self) -> list[dict]:
        """Those of the headline metric, the timed window (the trend charts' headline)."""
        return self.metric_changepoints.get(HEADLINE.name, [])

    def bumps(self) -> list[tuple[int, str, str]]:
        """(index, older, newer toolchain) where the channel moved to another version."""
        ks = self.keys
        # only where the key is another dict (found in C; a summarised month's points share
        # theirs: ~120 of ten years' 3,650), the toolchains compared; each chart asks
        changed = itertools.compress(range(1, len(ks)), map(operator.is_not, ks, ks[1:]))
        return [(i, a, b) for i in changed if (a := ks[i - 1]["toolchain"]) != (b := ks[i]["toolchain"])]

    @property
    def label(self) -> str:
        """`stable (go1.27.4)`; the toolchain alone when no channel was recorded."""
        tc = self.key["toolchain"]
        return tc if self.channel in ("", tc) else f"{self.channel} ({tc})"


# a Series' columns of one value a point besides its stats, in its fields' order (what
# the series cache keeps of it, what _in_order reorders)
COLUMNS = ("dates", "commits", "runs", "keys", "versus_older", "versus_ratio")


@dataclass
class Model:
    scenarios: dict[str, dict]                     # scenario -> {oses, toolchains{lang:[..]}, variants, sizes, size_param}
    series: dict[str, Series]                      # sid -> series
    latest: dict[tuple[str, str], dict]            # (os, key id) -> latest entry
    runs: dict[str, dict]
    headline: dict[tuple[str, str], str]           # (os, lang) -> toolchain
    regressions: list[dict]
    read_s: float = 0.0                            # seconds spent reading summarised months (build)

    def headline_latest(self):
        """(os, entry) for each series' newest entry built by its language's headline
        toolchain on that OS: what the Go-against-Rust tables and charts show."""
        for (os_, _kid), e in self.latest.items():
            if e["key"]["toolchain"] == self.headline.get((os_, e["key"]["lang"])):
                yield os_, e


def _month_columns(month) -> tuple[int, dict[str, Series], dict[str, tuple], str | None]:
    """A summarised month (history.SummarisedMonth) as its stretch of each series, read
    from its columns (history-summary/2, /3): its committed point count, {series id: Series
    of its points here}, {series id: (sort key, (row, series table, run record)) of its
    newest point here, what decoding that point's entry takes} and its key in the
    columns cache (None: not cached). No row or entry is made but that one; what a point
    does not say comes from its own month's run record, as decode reads it."""
    doc, cached = month.columns()
    try:
        return (*_read_columns(doc, month.runs), cached)
    except (TypeError, KeyError, IndexError, AttributeError, ValueError) as err:
        # a value of a shape the checks above do not look at (a point's date that is a
        # number, ...): one line naming the file and what tripped, never a traceback
        # (chained, for whoever debugs it: the month's run records are read here too)
        said = " ".join(f"{type(err).__name__}: {err}".split())[:200]
        raise BenchError(f"{month.path}: its columns or its month's run records cannot be read ({said}); "
                         "run `bench history check`") from err


def _read_columns(doc: dict, recs: dict) -> tuple[int, dict[str, Series], dict[str, tuple]]:
    run_ids = doc["runs"]
    # a month kept whole: its series' newest points as whole rows (history.SummarisedMonth)
    whole_rows = {(r[0], r[1]): r for r in doc["whole"]} if "whole" in doc else {}
    out: dict[str, Series] = {}
    tails: dict[str, tuple] = {}
    count, resort = 0, set()
    for i, s in enumerate(doc["series"]):
        at, fields, key = s["runs"], s["fields"], s["key"]
        n = len(at)
        keep = [j for j, a in enumerate(at) if run_ids[a] in recs]   # committed points only
        count += len(keep)
        if not keep or key.get("label"):   # A/B sides are PR artefacts, not trends
            continue
        runs = [run_ids[at[j]] for j in keep]
        said = {f: _point_values(fields[f], n, keep) for f in ("os", "channel", "date", "commit") if f in fields}
        for f, vs in said.items():   # (rare: points that say their own) text, or no channel
            if not all(type(v) is str or v is _ABSENT or (v is None and f == "channel") for v in vs):
                raise TypeError(f"a point's {f} that is not text")
        oses = [recs[r]["os"] if v is _ABSENT else v for r, v in zip(runs, said["os"])] if "os" in said else \
            None if len({recs[r]["os"] for r in runs}) == 1 else [recs[r]["os"] for r in runs]   # (one: as written)
        chans = ([s.get("channel") if v is _ABSENT else v for v in said["channel"]] if "channel" in said
                 else None)
        dates = [recs[r]["date"] if v is _ABSENT else v for r, v in zip(runs, said["date"])] if "date" in said \
            else [recs[r]["date"] for r in runs]
        commits = [recs[r]["commit"] if v is _ABSENT else v for r, v in zip(runs, said["commit"])] \
            if "commit" in said else [recs[r]["commit"] for r in runs]
        versus = [versus_point(None if v is _ABSENT else v) for v in _point_values(fields["versus"], n, keep)] \
            if "versus" in fields else [(None, None)] * len(keep)
        v_older, v_ratio = [o for o, _ in versus], [r for _, r in versus]
        stats = {m.name: _metric_triples(fields, m.fields, n, keep) for m in METRICS.values()}
        # the points by OS and channel (one group, unless a point says its own)
        if oses is None and chans is None:
            groups = {(recs[runs[0]]["os"], s.get("channel")): range(len(keep))}
        else:
            groups = {}
            for p, (o, c) in enumerate(zip(oses or [recs[r]["os"] for r in runs], chans or [s.get("channel")] * len(keep))):
                groups.setdefault((o, c), []).append(p)
            resort.update(_series_id(o, key, c or key["toolchain"]) for o, c in groups)
        for (os_, ch), ps in groups.items():
            chan = ch or key["toolchain"]   # as history.channel
            sid = _series_id(os_, key, chan)
            g = out.get(sid)
            if g is None:
                g = out[sid] = Series(sid, os_, key, chan)
            elif g.keys[-1] is not key:   # points of two keys (toolchains) of one channel: by date
                resort.add(sid)
            whole = len(ps) == len(keep)
            pick = (lambda col: col) if whole else (lambda col: [col[p] for p in ps])
            g.dates += pick(dates)
            g.commits += pick(commits)
            g.runs += pick(runs)
            g.keys += [key] * len(ps)
            g.versus_older += pick(v_older)
            g.versus_ratio += pick(v_ratio)
            for name, col in stats.items():
                g.stats[name] += col if whole else col.take(ps)
            g.key = key
            p = max(ps, key=lambda p: (dates[p], runs[p]))
            order = (dates[p], runs[p], s["id"])
            if sid not in tails or tails[sid][0] < order:
                tails[sid] = (order, (whole_rows.get((runs[p], i)) or history_summary.row_at(doc, i, keep[p]),
                                      history_rows.Series([history_summary.series_row(s)]),
                                      recs[runs[p]]))
    if any("date" in s["fields"] for s in doc["series"]):   # a point that says its own date (hand-made)
        resort = set(out)
    for sid in resort & out.keys():
        _in_order(out[sid], always=True)
    return count, out, tails


_ABSENT = object()   # a point without the field (None is a value a field may have)


def _point_values(col: dict, n: int, keep: list[int]) -> list:
    """A field's value at each kept point (_ABSENT where it has none)."""
    where, values = history_summary.field_values(col, n)
    if len(where) == n:
        return values if len(keep) == n else [values[j] for j in keep]
    full = [_ABSENT] * n
    for j, v in zip(where, values):
        full[j] = v
    return [full[j] for j in keep]


def _metric_triples(fields: dict, names: tuple, n: int, keep: list[int]) -> StatColumn:
    """A metric's (median, ci_low, ci_high) at each kept point: the first of its fields
    a point has a summary in (metrics.Metric.summary_of), none where none."""
    for f in names:   # the common case: its first field, at every point, as arrays
        if f in fields:
            col = fields[f]
            if "rows" not in col and "arrays" in col and len(col["arrays"]) >= 3:
                try:   # (straight into doubles, in C; a None among them: the general way)
                    got = StatColumn.fromlists(*col["arrays"][:3])
                except TypeError:
                    break
                return got if len(keep) == n else got.take(keep)
            break
    full: list[tuple | None] = [None] * n
    for f in reversed(names):   # the first field with a summary wins
        if f in fields:
            where, values = history_summary.field_values(fields[f], n)
            for j, v in zip(where, values):
                if v:
                    full[j] = summary_triple(v)
    return StatColumn(full if len(keep) == n else [full[j] for j in keep])


# Below this many summarised month files (an OS and scenario a month), read in this
# process: a pool costs more than it saves.
PARALLEL_MONTHS = 24


def _add_summarised(series: dict[str, Series], hist, jobs: int | None = None,
                    columns_cache_dir: Path | None = None, series_cache_path: Path | None = None) -> dict[str, tuple]:
    """Each summarised month's rows as points of their series (oldest month first, rows by
    date), read as columns, the months in `jobs` processes at once (through the columns
    cache in columns_cache_dir, if given: only the entries used are kept); from
    series_cache_path (series_cache), where given, whatever it kept of the same first
    months (all of them, most nights), so that only the months after those are read.
    Returns, per series, its newest row's sort key and entry (decoded: a series' newest
    point in a summarised month)."""
    months = hist.summarised
    keys = series_cache.month_keys(months) if series_cache_path is not None else None
    kept = series_cache.get(series_cache_path) if keys else None
    for m in months:
        m.cache = columns_cache_dir
    reused = _kept_series(kept, keys, months) if kept is not None else None
    if reused is not None and reused.months == len(months) and len(kept["months"]) == len(months):
        series.update(reused.series)   # every month as kept: nothing to read, nothing to write
        return reused.tails
    # (order, point, decoded): each series' newest point so far; kept ones are entries
    newest_of: dict[str, tuple] = {}
    if reused is not None:
        newest_of = {sid: (order, entry, True) for sid, (order, entry) in reused.tails.items()}
        try:
            for at, sids in reused.tails_in.items():   # newest points in a month kept whose newer ones are read again
                _, _, newest, ckey = _month_columns(months[at])
                reused.ckeys[at] = ckey or reused.ckeys[at]   # (read through the columns cache: keep its entry)
                for sid in sids:
                    newest_of[sid] = (*newest[sid], False)
        except KeyError:   # (a cache its months' keys match, though it does not match them: read them all)
            reused = None
    if reused is None:
        reused, newest_of = _Kept(0, {}, {}, {}, {}, []), {}
    series.update(reused.series)
    first = reused.months
    todo = months[first:]
    jobs = min(jobs or os.cpu_count() or 1, max(1, len(todo)))
    if jobs > 1 and len(todo) >= PARALLEL_MONTHS and _fork_context() is not None:
        # (forked only: a spawned worker would start by importing the pipeline, for a month)
        read = _pool_map(_month_columns, todo, jobs, max(1, len(todo) // (jobs * 8)), "reading the summarised months")
    else:
        read = [_month_columns(m) for m in todo]
    ckeys = reused.ckeys + [k for *_, k in read]
    if columns_cache_dir is not None:
        columns_cache.prune(columns_cache_dir, {k for k in ckeys if k})
    spans = reused.spans
    for i, (month, (count, groups, newest, _)) in enumerate(zip(todo, read), first):
        month.count = count
        for sid, g in groups.items():
            s = series.get(sid)
            if s is None:
                s = series[sid] = Series(sid, g.os, g.keys[0], g.channel)
            s.extend(g)
            ahead = sid not in newest_of or newest_of[sid][0] < newest[sid][0]
            if ahead:
                newest_of[sid] = (*newest[sid], False)
            at, count_at, tail_at = spans.setdefault(sid, (array("q"), array("q"), array("q")))
            at.append(i)
            count_at.append(len(s))
            tail_at.append(i if ahead else tail_at[-1])
    tails = {sid: (order, point if decoded else _tail_entry(*point)) for sid, (order, point, decoded) in newest_of.items()}
    if keys is not None:   # (before build adds the entries to these series)
        _keep_series(series_cache_path, kept, first, months, keys, ckeys, tails, spans, series)
    return tails


@dataclass
class _Kept:
    """What of the series cache stands for the months read now (_kept_series)."""
    months: int                            # the first this many months are the ones it was made of
    series: dict[str, Series]              # each series' points in those months
    tails: dict[str, tuple]                # (sort key, entry) of the newest, where it is the one kept
    tails_in: dict[int, list[str]]         # month index -> the series whose newest point there is to be read
    spans: dict[str, tuple]                # series id -> (month indices, point counts after each, month of the newest so far)
    ckeys: list                            # each of those months' key in the columns cache (None: not cached)


def _keep_series(path: Path, kept: dict | None, first: int, months, keys: list[bytes], ckeys: list,
                 tails: dict, spans: dict, series: dict[str, Series]) -> None:
    """Write the series cache's chunks (series_cache) from the first that does not stand
    as kept (series_cache.first_to_write; called only where the months are not all as
    kept)."""
    n = len(months)
    starts = series_cache.chunks([m.month for m in months])
    ends = [*starts[1:], n]
    w = series_cache.first_to_write(kept, starts, n, first)
    counts = [m.count for m in months]
    docs = []
    for start, end in zip(starts[w:], ends[w:]):
        doc = {"prev": series_cache.prev_id(keys[:start]), "months": keys[start:end], "counts": counts[start:end],
               "ckeys": ckeys[start:end], "spans": {}, "series": {}}
        for sid, s in series.items():
            at, count_at, tail_at = spans[sid]
            i, j = bisect.bisect_left(at, start), bisect.bisect_left(at, end)
            if i == j:   # none of its points in these months
                continue
            c0, c1 = count_at[i - 1] if i else 0, count_at[j - 1]
            doc["spans"][sid] = tuple(a[i:j].tobytes() for a in (at, count_at, tail_at))
            doc["series"][sid] = (s.os, s.keys[c1 - 1], s.channel, *(getattr(s, c)[c0:c1] for c in COLUMNS),
                                  {name: col.tobytes(c0, c1) for name, col in s.stats.items()})
        docs.append(doc)
    if docs:
        docs[-1]["tails"] = tails
        series_cache.put(path, docs, w)


def _kept_series(kept: dict, keys: list[bytes], months) -> _Kept | None:
    """The series cache cut back to the months before the first that differs from those
    it was made of (None: none of it stands, or a payload of another shape, though its
    CRC checks: a miss). A series' newest point is taken from the cache where it lies in
    those months (one whose newest point was in a later month is given the month its
    newest point before that lies in: tails_in)."""
    first = series_cache.kept_months(kept, keys)
    if first == 0:
        return None
    try:
        counts, ckeys, kept_tails, kept_spans = kept["counts"], kept["ckeys"], kept["tails"], kept["spans"]
        if type(counts) is not list or len(counts) != len(kept["months"]) or type(ckeys) is not list \
                or len(ckeys) != len(counts) or not all(type(c) is int and c >= 0 for c in counts) \
                or not all(k is None or type(k) is str for k in ckeys):
            return None
        out = _Kept(first, {}, {}, {}, {}, ckeys[:first])
        whole = first == len(counts)
        for sid, cols in kept["series"].items():
            at, count_at, tail_at = span = tuple(array("q", b) for b in kept_spans[sid])
            if not len(at) == len(count_at) == len(tail_at) or not at:
                return None
            j = len(at) if whole else bisect.bisect_left(at, first)
            if j == 0:   # none of its points in the months kept
                continue
            if not whole and not _span_checks(at, count_at, tail_at, j):
                return None
            n = count_at[j - 1]
            os_, key, chan, *lists, stats = cols
            if len(lists) != len(COLUMNS) or any(len(c) != count_at[-1] for c in lists) \
                    or type(stats) is not dict or stats.keys() != METRICS.keys():
                return None
            cut = j < len(at)
            columns = {name: StatColumn.frombytes(b, n if cut else None) for name, b in stats.items()}
            if any(len(c) != n for c in columns.values()):
                return None   # (a whole series' columns must be as long as its points)
            s = out.series[sid] = Series(sid, os_, key, chan, *(c[:n] if cut else c for c in lists), columns)
            s.key = s.keys[-1]
            out.spans[sid] = tuple(a[:j] for a in span) if cut else span
            if tail_at[j - 1] != tail_at[-1]:
                out.tails_in.setdefault(tail_at[j - 1], []).append(sid)
                continue
            t = kept_tails[sid]
            if type(t) is not tuple or len(t) != 2 or type(t[0]) is not tuple or type(t[1]) is not dict:
                return None
            out.tails[sid] = t
        for month, count in zip(months, counts[:first]):
            month.count = count
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None
    return out


def _span_checks(at: array, count_at: array, tail_at: array, j: int) -> bool:
    """Whether a series' spans, up to its j-th month, are what _add_summarised writes:
    month indices rising from 0, point counts rising from 1, the month of its newest point
    so far either that month or the one before's (a cache whose CRC checks but is not:
    a miss, never a month read that is not one of those kept)."""
    if at[0] < 0 or count_at[0] < 1 or tail_at[0] != at[0]:
        return False
    for i in range(1, j):
        if not (at[i - 1] < at[i] and count_at[i - 1] < count_at[i] and tail_at[i] in (at[i], tail_at[i - 1])):
            return False
    return True


def _tail_entry(row: list, table: history_rows.Series, run: dict) -> dict:
    """A series' newest point in a closed month as its entry: whole from a month kept
    whole (its row has a digest), else the projection a summarised row holds."""
    return history_rows.decode(row, table, run) if len(row) == 4 else history_summary.decode(row, table, run)


def _in_order(s: Series, always: bool = False) -> None:
    """The points by (date, run, id), as history.load orders entries: a no-op unless a
    whole entry is older than a summarised row (a hand-made history), or `always`.
    (Sorted already: the dates equal to their sorted copy, which timsort finds in one
    pass, in C.)"""
    if not always and s.dates == sorted(s.dates):
        return
    order = sorted(range(len(s)), key=lambda i: (s.dates[i], s.runs[i], key_id(s.keys[i])))
    for col in (getattr(s, c) for c in COLUMNS):
        col[:] = [col[i] for i in order]
    s.stats = {name: col.take(order) for name, col in s.stats.items()}
    s.key = s.keys[-1]


def build(hist, cat, detect: bool = True, cache_path: Path | None = None, jobs: int | None = None,
          cp_options: dict | None = None, columns_cache_dir: Path | None = None,
          series_cache_path: Path | None = None, while_searching=None) -> Model:
    """The site's model of the history. `while_searching(model)`: called, in this
    process, while worker processes search the change points (only then), with the model
    whose series have none yet and no regressions: the site writes the charts' data
    meanwhile (charts.ChartWork.prepare), which needs neither."""
    series: dict[str, Series] = {}
    t0 = time.perf_counter()
    tails = _add_summarised(series, hist, jobs, columns_cache_dir, series_cache_path) \
        if getattr(hist, "summarised", None) else {}
    read_s = time.perf_counter() - t0
    for e in hist.entries:  # sorted by date
        if e["key"].get("label"):  # A/B sides are PR artefacts, not trends
            continue
        sid = series_id(e)
        s = series.get(sid)
        if s is None:
            s = series[sid] = Series(sid, e["os"], e["key"], channel(e))
        s.add(e)
    for sid, (order, entry) in tails.items():
        s = series[sid]
        if s.last is None or (s.last["date"], s.last["run"], s.last["id"]) < order:
            s.last = entry
        _in_order(s)
    if tails:   # in the order of each series' first point, as when every point was an entry
        series = dict(sorted(series.items(), key=lambda kv: (kv[1].dates[0], kv[1].runs[0], key_id(kv[1].keys[0]))))
    # What the tables show: each series' newest point (a channel that moved on to a new
    # release no longer shows the old one).
    latest: dict[tuple[str, str], dict] = {}
    for s in series.values():
        e = s.last
        old = latest.get((s.os, e["id"]))
        if old is None or old["date"] <= e["date"]:
            latest[(s.os, e["id"])] = e
    scen: dict[str, dict] = {}
    toolchains_by_os: dict[tuple[str, str], set] = {}
    for (os_, _kid), e in sorted(latest.items(), key=lambda kv: kv[1]["date"]):
        key = e["key"]
        sc = key["scenario"]
        info = scen.setdefault(sc, {"oses": set(), "toolchains": {}, "variants": {}, "sizes": set(), "builds": set()})
        info["oses"].add(os_)
        info["toolchains"].setdefault(key["lang"], set()).add(key["toolchain"])
        info["variants"].setdefault(key["lang"], set()).add(key["variant"])
        info["builds"].add(key["build"])
        size_param = cat.scenarios[sc].size if sc in cat.scenarios else None
        if size_param and size_param in key["params"]:
            info["sizes"].add(key["params"][size_param])
        toolchains_by_os.setdefault((os_, key["lang"]), set()).add(key["toolchain"])
    headline = {k: headline_toolchain(v) for k, v in toolchains_by_os.items()}
    regressions = []
    model = Model(scen, series, latest, hist.runs, headline, regressions, read_s)
    if detect:
        inputs, where = {}, {}
        for sid, s in series.items():
            # each metric with change points, its own series of medians per run; a run
            # without the figure (an entry written before windows were kept, a program
            # that reported no memory, a benchmark an optional metric does not measure)
            # is left out of that metric's series
            for metric in with_changepoints():
                values, idx = s.stats[metric.name].positive_medians()
                # (the headline keeps the plain series id: its cached analyses stay valid)
                cid = sid if metric is HEADLINE else f"{sid}|{metric.name}"
                if idx is None:
                    idx = range(len(values))
                    inputs[cid] = (s.commits, s.dates, values)
                else:
                    inputs[cid] = (list(map(s.commits.__getitem__, idx)), list(map(s.dates.__getitem__, idx)), values)
                where[cid] = (sid, metric.name, idx)
        found = detect_all(inputs, cache_path, jobs, cp_options,
                           meanwhile=while_searching and (lambda: while_searching(model)))
        for cid, cps in found.items():
            sid, metric, idx = where[cid]
            s = series[sid]
            cps = [{**cp, "index": idx[cp["index"]], "metric": metric} for cp in cps]
            s.metric_changepoints[metric] = cps
            for cp in cps:
                i = cp["index"]
                key, before = s.keys[i], s.keys[i - 1] if i > 0 else s.keys[i]
                bump = ""
                if before["toolchain"] != key["toolchain"]:
                    # a level shift where the channel moved to a new release: the compiler's
                    bump = (f"{key['lang']} {version_text(before['toolchain'])} -> "
                            f"{version_text(key['toolchain'])}")
                regressions.append({
                    "date": s.dates[i], "os": s.os, "scenario": s.key["scenario"], "id": key_id(key),
                    "family": family_id(s.key), "toolchain": key["toolchain"], "lang": s.key["lang"],
                    "channel": s.channel, "toolchain_change": bump, "metric": metric,
                    "commit": cp["commit"], "previous_commit": cp["previous_commit"], "ratio": cp["ratio"],
                    "before": cp["before_median"], "after": cp["after_median"], "direction": cp["direction"],
                    "run": s.runs[i], "message": hist.runs.get(s.runs[i], {}).get("commit_message", ""),
                    "chart": trend_chart_name(s.key, s.os),
                })
        # newest first, then in the registry's order (time, CPU, memory)
        order = list(METRICS)
        regressions.sort(key=lambda r: (r["date"], r["id"], -order.index(r["metric"])), reverse=True)
    return model


def trend_chart_name(key: dict, os_: str) -> str:
    """One trend chart per benchmark family (toolchains together) and OS."""
    return f"{key['scenario']}/trend-{os_}-{slug(family_id(key))}"


def other_params(key: dict, size_param: str | None, vary: set | None = None) -> str:
    """The key's parameters besides the size (only those in `vary`, when given)."""
    return format_params({k: v for k, v in key["params"].items() if k != size_param and (vary is None or k in vary)})


def varying_params(keys, size_param: str | None) -> set:
    """The parameters (besides the size) whose values differ between these keys: the
    ones worth naming in a legend or a table row."""
    values: dict[str, set] = {}
    for k in keys:
        for name, v in k["params"].items():
            values.setdefault(name, set()).add(str(v))
    return {n for n, vs in values.items() if len(vs) > 1 and n != size_param}


def pair_variants(scenario, go_variants, rust_variants) -> list[tuple[str, str]]:
    """(Go variant, Rust variant) rows of the overview, from the catalogue's `pairs`
    (scenario: a catalogue.Scenario, or None for a scenario the catalogue does not know:
    then only same-named variants pair). Go variants no Rust variant pairs with get a
    row of their own."""
    out = []
    for rv in sorted(rust_variants):
        gv = scenario.go_counterpart(rv) if scenario is not None else (rv if rv in go_variants else None)
        if gv in go_variants:
            out.append((gv, rv))
    for gv in sorted(set(go_variants) - {g for g, _ in out}):
        out.append((gv, None))
    return out
