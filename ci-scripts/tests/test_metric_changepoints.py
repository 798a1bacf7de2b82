"""Change points in the CPU time and peak memory, not only the timed window: a change
that moves one figure is found in that figure's series, at its commit, and the others
stay quiet. Synthetic entries (fixed seed) through trends.build and the real detector."""

from __future__ import annotations

import random
from types import SimpleNamespace

from benchpipe import catalogue, trends
from benchpipe.results import key_id
from benchpipe.stat_columns import StatColumn


def _summary(v: float) -> dict:
    return {"median": v, "ci_low": v * 0.99, "ci_high": v * 1.01, "n": 10}


def _history(shifts: dict[str, dict[str, float]], runs: int = 12, from_run: int = 6, seed: int = 7):
    """shifts: variant -> {metric: factor from run `from_run` on}; noise 1% (time, CPU), 0.3% (memory)."""
    rng = random.Random(seed)
    entries = []
    for i in range(runs):
        for variant, shift in shifts.items():
            key = {"scenario": "cpu", "variant": variant, "lang": "go", "build": "go", "toolchain": "go1.26.8",
                   "params": {"tasks": 8, "items": 100000, "threads": 1}}
            f = {m: (shift.get(m, 1.0) if i >= from_run else 1.0) for m in ("time", "cpu", "memory")}
            entries.append({
                "run": f"r{i}", "id": key_id(key), "key": key, "commit": f"c{i:02d}", "os": "linux",
                "date": f"2026-03-{i + 1:02d}T03:00:00Z",
                "time_s": _summary(0.12 * f["time"] * (1 + rng.gauss(0, 0.01))),
                "window_s": _summary(0.10 * f["time"] * (1 + rng.gauss(0, 0.01))),
                "window_cpu_s": _summary(0.09 * f["cpu"] * (1 + rng.gauss(0, 0.01))),
                "memory_bytes": _summary(8e6 * f["memory"] * (1 + rng.gauss(0, 0.003))),
            })
    return SimpleNamespace(entries=entries, runs={f"r{i}": {"commit_message": f"change {i}"} for i in range(runs)})


def test_a_change_is_found_in_the_figure_it_moved_and_only_there():
    hist = _history({"goroutines": {"cpu": 1.3}, "memory-only": {"memory": 1.3}, "time-only": {"time": 1.3},
                     "unchanged": {}})
    model = trends.build(hist, catalogue.load(), detect=True)
    found = {(r["id"].split("/")[1], r["metric"]): r for r in model.regressions}
    assert set(found) == {("goroutines", "cpu"), ("memory-only", "memory"), ("time-only", "time")}, sorted(found)
    for r in found.values():
        assert (r["previous_commit"], r["commit"]) == ("c05", "c06")
        assert r["direction"] == "regression" and abs(r["ratio"] - 1.3) < 0.05
    series = {s.key["variant"]: s for s in model.series.values()}
    assert [cp["index"] for cp in series["goroutines"].metric_changepoints["cpu"]] == [6]
    assert series["goroutines"].changepoints == []            # the charts' time marks: none
    assert [cp["metric"] for cp in series["time-only"].changepoints] == ["time"]


def test_entries_without_a_figure_are_left_out_of_its_series():
    """Entries written before CPU windows were kept: the CPU series starts where they begin,
    and a change point's index still names the right entry."""
    hist = _history({"goroutines": {"cpu": 1.3}}, runs=14, from_run=9)
    for e in hist.entries[:3]:
        del e["window_cpu_s"]
    model = trends.build(hist, catalogue.load(), detect=True)
    (s,) = model.series.values()
    (cp,) = s.metric_changepoints["cpu"]
    assert cp["index"] == 9 and s.commits[9] == cp["commit"] == "c09"


def test_a_series_keeps_the_points_with_a_figure_above_zero():
    """StatColumn.positive_medians: every median and None when each is a number above 0
    (the series searched as it is), else those that are and their positions; missing
    figures, 0, negatives and NaN left out."""
    nan = float("nan")

    def col(meds):
        return StatColumn([(m, m, m) if m is not None else None for m in meds])

    def meds(got):   # (the values an array of doubles, as the search's digests read them)
        assert got[0].typecode == "d"
        return got[0].tolist(), got[1]
    assert meds(col([1.0, 2.5, 3]).positive_medians()) == ([1.0, 2.5, 3.0], None)
    assert meds(col([1.0, None, 2.0]).positive_medians()) == ([1.0, 2.0], [0, 2])
    assert meds(col([0.0, 1.0, -1.0, 2.0]).positive_medians()) == ([1.0, 2.0], [1, 3])
    assert meds(col([1.0, nan, 2.0]).positive_medians()) == ([1.0, 2.0], [0, 2])
    assert meds(col([nan, 1.0]).positive_medians()) == ([1.0], [1])
    assert meds(col([None]).positive_medians()) == ([], [])
    assert meds(col([]).positive_medians()) == ([], None)
