"""Series that survive a compiler release, verdicts between compiler versions in the
history, and shards of one commit kept together for github-action-benchmark.

Histories are synthetic (fixed seeds) and go through the real `history.add`, the real
change-point detector, gnuplot and the github-action-benchmark data.js writer."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from benchpipe import catalogue, charts, history, results, stats, trends, versions
from benchpipe.commands.history import add_results
from benchpipe.export import data_js
from devtools import synthetic
from factories import make_results

T0 = datetime(2026, 3, 1, 3, 0, tzinfo=timezone.utc)


def _keys(scenarios=("cpu",), toolchains=None):
    return synthetic.keys_for("smoke", scenarios=list(scenarios), toolchains=toolchains or {"go": ("go1.26.8",),
                                                                                               "rust": ("rust1.95.0",)})


def _with_channel(path, channel_of):
    """Rewrite a results file so every benchmark records the channel it was asked for."""
    doc = results.load(path)
    for b in doc["benchmarks"]:
        b["channel"] = channel_of(b["key"])
    results.write(path, doc)
    return path


def _retool(keys, lang, toolchain):
    return [dict(k, toolchain=toolchain) if k["lang"] == lang else k for k in keys]


# --------------------------------------------------------------------------- a series across a release

def test_a_release_is_a_point_on_its_channel_series(tmp_path):
    """Rust stable moves from 1.95.0 to 1.96.0 on night 8 and is 30% slower from then on:
    one series per channel continues across the bump, the chart marks it, and the change
    point says it came with the compiler."""
    old = _keys()
    new = _retool(old, "rust", "rust1.96.0")
    files = []
    for night in range(16):
        keys = old if night < 8 else new
        f = make_results(tmp_path / f"r{night}.json", night, keys=keys, runs=7,
                         timestamp=T0 + timedelta(days=night),
                         factor=lambda k: 1.3 if k["toolchain"] == "rust1.96.0" else 1.0)
        files.append(_with_channel(f, lambda k: "stable"))
    add_results(tmp_path / "h", files)
    model = trends.build(history.load(tmp_path / "h"), catalogue.load(), cache_path=None)

    rust = [s for s in model.series.values() if s.key["lang"] == "rust"]
    assert rust and all(len(s) == 16 and s.channel == "stable" for s in rust)  # one series, not two
    assert all(s.bumps() == [(8, "rust1.95.0", "rust1.96.0")] for s in rust)
    assert all(s.key["toolchain"] == "rust1.96.0" for s in rust)  # the series' newest point
    # the tables show the channel's current release only
    assert {e["key"]["toolchain"] for e in model.latest.values() if e["key"]["lang"] == "rust"} == {"rust1.96.0"}

    found = [r for r in model.regressions if r["lang"] == "rust" and r["metric"] == "time"]
    assert len(found) == len(rust) and all(r["direction"] == "regression" for r in found)
    # the CPU time inside the window moved with it (the synthetic factor scales both)
    assert len([r for r in model.regressions if r["lang"] == "rust" and r["metric"] == "cpu"]) == len(rust)
    assert all(r["toolchain_change"] == "rust 1.95.0 -> 1.96.0" and r["date"][:10] == "2026-03-09" for r in found)
    # Go did not change: no change point, and nothing is blamed on a compiler
    assert not [r for r in model.regressions if r["lang"] == "go"]

    # the trend chart draws one line per channel and a mark at the bump
    scripts = {c.name: c.script for c in charts.trend_charts(model, tmp_path)}
    script = scripts[trends.trend_chart_name(rust[0].key, "linux")]
    assert "'rust1.96.0' at '2026-03-09T03:00:00Z'" in script and "new compiler release" in script
    assert "stable (rust1.96.0) median" in script


def test_entries_without_a_channel_keep_their_old_series(tmp_path):
    """Histories written before channels were recorded: each exact toolchain stays its own
    series, as it was."""
    files = [make_results(tmp_path / f"r{i}.json", i, keys=_keys() if i < 2 else _retool(_keys(), "go", "go1.27.0"),
                          timestamp=T0 + timedelta(days=i)) for i in range(4)]
    add_results(tmp_path / "h", files)
    model = trends.build(history.load(tmp_path / "h"), catalogue.load(), detect=False)
    go = sorted(s.sid for s in model.series.values() if s.key["lang"] == "go")
    assert len(go) == 2 * len([k for k in _keys() if k["lang"] == "go"])
    assert all(not s.bumps() for s in model.series.values())


# --------------------------------------------------------------------------- verdicts between versions

def test_history_keeps_the_verdict_of_each_newer_toolchain(tmp_path):
    """A run that measured two Go toolchains: every newer-toolchain entry carries its
    comparison with the older one (paired, same run), and the Compiler versions page
    lists them, regressions first."""
    keys = _keys(toolchains={"go": ("go1.25.9", "go1.26.8"), "rust": ("rust1.95.0",)})
    slow = lambda k: 1.25 if (k["toolchain"] == "go1.26.8" and k["variant"] == "goroutines") else 1.0  # noqa: E731
    f = make_results(tmp_path / "r.json", 1, keys=keys, runs=12, factor=slow)
    _with_channel(f, lambda k: {"go1.25.9": "oldstable", "go1.26.8": "stable"}.get(k["toolchain"], "stable"))
    add_results(tmp_path / "h", [f])
    h = history.load(tmp_path / "h")
    newer = [e for e in h.entries if e["key"]["toolchain"] == "go1.26.8"]
    assert newer and all(e["versus"]["toolchain"] == "go1.25.9" and e["versus"]["channel"] == "oldstable"
                         for e in newer)
    assert not [e for e in h.entries if e["key"]["toolchain"] != "go1.26.8" and "versus" in e]
    for e in newer:
        t = e["versus"]["metrics"]["time"]
        assert t["ci_low"] <= t["ratio"] <= t["ci_high"]
        if e["key"]["variant"] == "goroutines":
            assert e["versus"]["verdict"] == stats.REGRESSION and 1.15 < t["ratio"] < 1.35
    assert history.check(tmp_path / "h") == []  # what add wrote passes the schema

    model = trends.build(h, catalogue.load(), detect=False)
    rows = versions.rows(model)["linux"]
    assert [r["verdict"] for r in rows][0] == stats.REGRESSION
    assert {(r["older"], r["newer"]) for r in rows} == {("go1.25.9", "go1.26.8")}
    assert rows[0]["older_channel"] == "oldstable" and rows[0]["newer_channel"] == "stable"


def test_ab_runs_and_single_toolchain_runs_carry_no_verdict(tmp_path):
    f = make_results(tmp_path / "r.json", 1, keys=_keys())
    add_results(tmp_path / "h", [f])
    assert not [e for e in history.load(tmp_path / "h").entries if "versus" in e]


# --------------------------------------------------------------------------- shards

def _sharded_night(tmp_path, night, factor=None):
    """One commit measured in three shards (three jobs of one workflow run)."""
    groups = (("cpu",), ("sleep",), ("fanout",))
    out = []
    for i, scen in enumerate(groups):
        f = make_results(tmp_path / f"n{night}-s{i}.json", night * 10 + i, keys=_keys(scen), commit=f"{night:040x}",
                         timestamp=T0 + timedelta(days=night, minutes=20 * i), runs=7, factor=factor)
        out.append(_with_channel(f, lambda k: "stable"))
    return out


def _action_alerts(data: dict, name: str, threshold: float = 1.5) -> list[str]:
    """What github-action-benchmark does with a set: compare the newest entry's benches
    with the previous entry's, by name (customSmallerIsBetter: ratio new / previous),
    and alert above the threshold."""
    series = data["entries"][name]
    prev = {b["name"]: b["value"] for b in series[-2]["benches"]}
    return [b["name"] for b in series[-1]["benches"] if b["name"] in prev and prev[b["name"]] > 0
            and b["value"] / prev[b["name"]] >= threshold]


def test_three_shards_of_a_commit_are_one_entry_and_a_regressed_shard_is_flagged(tmp_path):
    store = tmp_path / "dev/bench/data.js"
    nights = 7
    for night in range(nights):
        # shard 1 (cpu) twice as slow from night 4 on
        files = _sharded_night(tmp_path, night, factor=lambda k, n=night: 2.0 if (n >= 4 and k["scenario"] == "cpu")
                               else 1.0)
        rep = add_results(tmp_path / "h", files)
        data_js.update(store, rep.new_runs, rep.new_entries)
    data = data_js.read(store)
    every = {k["scenario"] for k in _keys(("cpu", "sleep", "fanout"))}
    for name in ("linux go stable", "linux rust stable"):
        series = data["entries"][name]
        assert len(series) == nights  # one entry per commit, not one per shard
        scen = {b["name"].split("/")[0] for b in series[-1]["benches"]}
        assert scen == every  # every shard's series in it
    # night 4 against night 3, as the action compares: cpu flagged, nothing else
    trimmed = {name: s[:5] for name, s in data["entries"].items()}
    alerts = [a for name in trimmed for a in _action_alerts({"entries": trimmed}, name)]
    assert alerts and all(a.startswith("cpu/") and a.endswith(" time") for a in alerts)
    # our history: the change point at night 4 in every cpu series, none elsewhere
    model = trends.build(history.load(tmp_path / "h"), catalogue.load(), cache_path=None)
    cpu_series = {s.sid for s in model.series.values() if s.key["scenario"] == "cpu"}
    hits = {f"linux|{r['family']}|stable" for r in model.regressions if r["date"][:10] == "2026-03-05"}
    assert hits == cpu_series
    assert not [r for r in model.regressions if r["scenario"] != "cpu"]


def test_shards_published_one_at_a_time_join_their_commit_entry(tmp_path):
    """A shard that arrives in a later publish (re-run) joins its commit's entry."""
    store = tmp_path / "data.js"
    for f in _sharded_night(tmp_path, 0):
        rep = add_results(tmp_path / "h", [f])
        data_js.update(store, rep.new_runs, rep.new_entries)
    data = data_js.read(store)
    series = data["entries"]["linux rust stable"]
    assert len(series) == 1
    assert {b["name"].split("/")[0] for b in series[0]["benches"]} == {"cpu", "sleep", "fanout"}
    # adding the same shards again adds nothing
    before = json.dumps(data, sort_keys=True)
    for f in _sharded_night(tmp_path, 0):
        rep = add_results(tmp_path / "h", [f])
        data_js.update(store, rep.new_runs, rep.new_entries)
    after = data_js.read(store)
    after["lastUpdate"] = data["lastUpdate"]
    assert json.dumps(after, sort_keys=True) == before


def test_one_exporter_the_run_files_match_what_data_js_holds(tmp_path):
    """What `run` writes for the action, what merge-artifacts gives it and what data.js
    holds on gh-pages: the same sets, the same bench names and values."""
    from benchpipe.export import benchmark_action

    f = _with_channel(make_results(tmp_path / "r.json", 1, keys=_keys(("cpu", "sleep"))), lambda k: "stable")
    doc = results.load(f)
    rep = add_results(tmp_path / "h", [f])
    data_js.update(tmp_path / "data.js", rep.new_runs, rep.new_entries)
    data = data_js.read(tmp_path / "data.js")
    files = benchmark_action.write_sets(tmp_path / "ba", [doc])
    assert {x["name"] for x in files} == set(data["entries"]) == {"linux go stable", "linux rust stable"}
    for x in files:
        mine = json.loads((tmp_path / "ba" / x["file"]).read_text())
        theirs = data["entries"][x["name"]][-1]["benches"]
        assert [(b["name"], b["value"]) for b in mine] == [(b["name"], b["value"]) for b in theirs]
