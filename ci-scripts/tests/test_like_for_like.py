"""Numbers people quote: each Rust variant is set against the Go variant the catalogue
pairs it with, the program's own timed window is the primary time everywhere, and an
open loop that was not held says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchpipe import catalogue, compare, history, measures, runner, site, trends
from benchpipe.report import summary
from conftest import scenario_env


def _rec(key, window, cpu, *, p99=None, metrics=None, rss=10_000_000):
    lat = None
    if p99 is not None:
        lat = {q: {"n": 10, "mean": p99 / 2, "p50": p99 / 4, "p99": p99, "max": p99 * 1.1} for q in ("sojourn", "service")}
    return {"schema": "gorust-bench.record/1", "lang": key["lang"],
            "program": {"go": "gobench", "rust-system": "rsbench", "rust-mimalloc": "rsbench-mimalloc"}[key["build"]],
            "build": key["build"], "toolchain": key["toolchain"], "scenario": key["scenario"],
            "variant": key["variant"], "params": key["params"], "checksum": 7, "elapsed_s": window,
            "window_cpu_s": {"user": cpu, "sys": 0.0}, "latency_us": lat, "peak_rss_bytes": rss,
            "baseline_rss_bytes": 2_000_000, "cpu_user_s": cpu * 2, "cpu_sys_s": 0.0,
            "runtime": {"os": "linux", "arch": "x86_64", "num_cpu": 2}, "metrics": metrics or {}}


def _bench(scenario, variant, build, params, window, wall, *, p99=None, metrics=None, reason="", runs=10):
    lang = "go" if build == "go" else "rust"
    key = {"scenario": scenario, "variant": variant, "lang": lang, "build": build,
           "toolchain": "go1.26.8" if lang == "go" else "rust1.95.0", "params": params}
    from benchpipe.results import key_id
    b = {"id": key_id(key), "key": key, "status": "ok",
         "samples": {"wall_s": [wall] * runs, "user_s": [0.1] * runs, "sys_s": [0.0] * runs,
                     "peak_rss_bytes": [10_000_000] * runs},
         "records": [_rec(key, window * (1 + i / 1000), window / 2, p99=p99, metrics=metrics) for i in range(runs)]}
    if reason:
        b["reason"] = reason
    return b


def _doc(benches):
    return {"schema": "gorust-bench.results/1",
            "env": {"os": "linux", "arch": "x86_64", "cpu_model": "cpu", "cores": 2, "memory_bytes": 2**30,
                    "runner": "r", "commit": "a" * 40, "branch": "main", "timestamp": "2026-11-01T00:00:00Z",
                    "preset": "quick", "toolchains": {"go1.26.8": "go1.26.8", "rust1.95.0": "rustc 1.95.0"},
                    "hyperfine": "hyperfine 1.20.0"},
            "benchmarks": benches}


FAN = {"values": 1000000, "workers": 3, "buffer": 1000, "batch": 1000}


def _fanout_doc():
    # Go batched is far faster than Go channels: "Go's fastest" would set Rust threads
    # against batched (the 8.21x of the issue); the catalogue pairs it with channels.
    return _doc([
        _bench("fanout", "channels", "go", FAN, 0.080, 0.090, metrics={"values_per_s": 1.25e7}),
        _bench("fanout", "batched", "go", FAN, 0.003, 0.010, metrics={"values_per_s": 3.3e8}),
        _bench("fanout", "threads", "rust-system", FAN, 0.040, 0.045, metrics={"values_per_s": 2.5e7}),
        _bench("fanout", "batched", "rust-system", FAN, 0.006, 0.010, metrics={"values_per_s": 1.6e8}),
    ])


def test_catalogue_declares_one_go_counterpart_per_rust_variant():
    cat = catalogue.load()
    for sc in cat.scenarios.values():
        for rv in sc.variants["rust"]:
            assert sc.go_counterpart(rv) in sc.variants["go"], (sc.name, rv)
    fan = cat.scenarios["fanout"]
    assert (fan.go_counterpart("threads"), fan.go_counterpart("tokio"), fan.go_counterpart("batched")) == \
        ("channels", "channels", "batched")


def test_async_single_runs_only_at_one_thread():
    cat = catalogue.load()
    for preset in catalogue.PRESETS:
        specs = [s for s in cat.benchmarks(preset, scenarios=["cpu"]) if s.variant == "async-single"]
        assert specs and all(s.params["threads"] == 1 for s in specs), preset
    # the other variants keep every thread count of the grid
    quick = cat.benchmarks("quick", scenarios=["cpu"], variants=["tokio"])
    assert {s.params["threads"] for s in quick} == {1, 2}


def test_a_catalogue_without_a_pair_is_refused(tmp_path):
    text = catalogue.CATALOGUE_PATH.read_text(encoding="utf-8").replace('threads = "channels"\n', "")
    bad = tmp_path / "catalogue.toml"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(Exception, match="pairs.threads must name the Go variant"):
        catalogue.load(bad)


def test_summary_pairs_fanout_threads_with_go_channels():
    rows = {(r.variant, r.build): r for r in summary.rows(_fanout_doc())}
    threads = rows[("threads", "rust-system")]
    assert threads.pair == "channels"
    assert threads.time_ratio == pytest.approx(0.040 / 0.080, rel=0.01)   # not 0.040 / 0.003
    assert rows[("batched", "rust-system")].pair == "batched"
    md = summary.markdown_text(_fanout_doc())
    assert "0.50× (channels)" in md and "13.33×" not in md


def test_summary_shows_the_window_cpu_wall_and_scenario_figures():
    r = {(r.variant, r.build): r for r in summary.rows(_fanout_doc())}[("channels", "go")]
    assert r.time_med == pytest.approx(0.080, rel=0.01)   # the window, not the 0.090 wall
    assert r.wall_med == pytest.approx(0.090)
    assert r.cpu_med == pytest.approx(0.040, rel=0.01)
    assert r.metric == "12.5 M values/s"
    md = summary.markdown_text(_fanout_doc())
    for header in ("window (median)", "CPU in window", "process wall", "sojourn p50 / p99", "scenario figure"):
        assert header in md


def test_summary_parallel_efficiency_and_p99():
    p1 = {"tasks": 16, "items": 1000000, "threads": 1}
    p2 = {**p1, "threads": 2}
    doc = _doc([_bench("cpu", "goroutines", "go", p1, 0.400, 0.41, p99=80000.0),
                _bench("cpu", "goroutines", "go", p2, 0.250, 0.26, p99=50000.0)])
    rows = {r.key["params"]["threads"]: r for r in summary.rows(doc)}
    assert rows[2].metric == "efficiency 0.80"          # 0.400 / (0.250 * 2)
    assert rows[2].p99 == pytest.approx(50000.0)
    assert "50.0 ms" in summary.markdown_text(doc)
    # issue 39: at a one-thread window of 80 ms the figure would mostly be start-up: not shown
    short = _doc([_bench("cpu", "goroutines", "go", p1, 0.080, 0.09), _bench("cpu", "goroutines", "go", p2, 0.050, 0.06)])
    rows = {r.key["params"]["threads"]: r for r in summary.rows(short)}
    assert rows[2].metric == "efficiency not shown: 1-thread window 80.4 ms, too short to mean it"


def test_rate_warning_below_95_percent_of_the_offered_rate():
    held = [{"metrics": {"offered_rate_per_ms": 10.0, "achieved_spawn_rate_per_ms": 9.7}}] * 3
    short = [{"metrics": {"offered_rate_per_ms": 10.0, "achieved_spawn_rate_per_ms": 2.5}}] * 3
    assert measures.rate_warning(held) is None
    w = measures.rate_warning(short)
    assert w.startswith("warning: open loop not held") and "2.50 of the 10 tasks/ms" in w
    assert measures.rate_warning([{"metrics": {}}]) is None   # burst: nothing offered


def test_runner_marks_an_open_loop_that_was_not_held(tmp_path):
    key = {"scenario": "hashmap", "variant": "spawn", "lang": "go", "build": "go", "toolchain": "go1.26.8",
           "params": {"tasks": 10, "items": 10, "shape": "rate", "rate": 10.0, "workers": 2}}
    job = runner.Job(spec=None, built=None, key=key, id="x", command=[], prepare=None, workdir=tmp_path)
    job.records = [_rec(key, 0.5, 0.2, metrics={"offered_rate_per_ms": 10.0, "achieved_spawn_rate_per_ms": 3.0})] * 3
    job.times = [0.6] * 3
    job.memory = [10_000_000] * 3
    runner._finish(job)
    assert job.status == "ok"
    assert "open loop not held" in job.to_json()["reason"]


def test_compare_uses_the_window_not_the_process_wall():
    base = _fanout_doc()
    head = json.loads(json.dumps(base))
    for b in head["benchmarks"]:
        for r in b["records"]:
            r["elapsed_s"] *= 1.20        # the window got 20% slower ...
        b["samples"]["wall_s"] = [w * 1.0 for w in b["samples"]["wall_s"]]   # ... the process wall did not
    rep = compare.compare_docs([base, head], ["base.json", "head.json"])
    assert rep.count("regression") == 4
    assert all(c.metrics["time"].ratio == pytest.approx(1.2, rel=0.01) for c in rep.comparisons)


def test_history_keeps_window_latency_figures_and_warning(tmp_path):
    doc = _fanout_doc()
    doc["benchmarks"][0]["reason"] = "warning: something to know"
    rep = history.add(tmp_path / "h", [("r", doc)])
    assert not history.check(tmp_path / "h")
    e = {x["key"]["variant"] + x["key"]["build"]: x for x in rep.new_entries}["channelsgo"]
    assert e["window_s"]["median"] == pytest.approx(0.080, rel=0.01)
    assert e["time_s"]["median"] == pytest.approx(0.090)
    assert e["window_cpu_s"]["median"] == pytest.approx(0.040, rel=0.01)
    assert e["metrics"]["values_per_s"] == pytest.approx(1.25e7)
    assert e["metrics"]["baseline_rss_bytes"] == 2_000_000
    assert e["warning"] == "warning: something to know"
    assert history.primary_time(e) is e["window_s"]


def test_site_overview_pairs_from_the_catalogue(tmp_path):
    root = tmp_path / "h"
    history.add(root, [("r", _fanout_doc())])
    cat = catalogue.load()
    model = trends.build(history.load(root), cat, detect=False)
    ov = {s["name"]: s for s in site.overview(model, cat)}["fanout"]
    rows = ov["tables"][0]["rows"]
    pairs = {(r["go_variant"], r["rust_variant"]) for r in rows}
    assert ("channels", "threads") in pairs and ("batched", "batched") in pairs
    assert ("batched", "threads") not in pairs
    threads = [r for r in rows if r["rust_variant"] == "threads"][0]
    assert threads["diff"]["time"] == pytest.approx(0.5, rel=0.01)   # window against window


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="VmHWM is Linux's")
@pytest.mark.parametrize("build", ["go", "rust-system", "rust-mimalloc"])
def test_peak_memory_is_the_programs_own_not_its_parents(programs, build):
    """ru_maxrss survives execve: a program forked by a 200 MiB parent reported a 213 MiB
    peak. The programs read their own image's peak (VmHWM) instead."""
    import subprocess
    exe = str(programs[build].path)
    ballast = bytearray(200 * 2**20)
    ballast[::4096] = b"x" * len(ballast[::4096])  # touch every page: resident
    out = subprocess.run([exe, "fanout", "--variant", "batched", "--values", "100"],
                         capture_output=True, text=True, check=True).stdout
    rec = json.loads(out.strip().splitlines()[-1])
    assert rec["peak_rss_bytes"] < 100 * 2**20, rec["peak_rss_bytes"]
    assert 0 < rec["baseline_rss_bytes"] <= rec["peak_rss_bytes"]
    del ballast


def test_memory_is_the_programs_own_not_hyperfines_running_maximum(tmp_path):
    """hyperfine 1.20's memory_usage_byte is a running maximum over one invocation's
    runs (measured on Go hashmap spawn: 49, 49, 109, 109, ... MiB for runs that peaked
    at 49, 33, 109, 39, ...). The reports take each run's own figure."""
    MiB = 2**20
    own = [49, 33, 109, 39, 37]
    hf = [49, 49, 109, 109, 109]
    b = _bench("hashmap", "spawn", "go", {"tasks": 4000, "items": 1000, "shape": "burst", "rate": 10.0,
                                         "workers": 2}, 0.5, 0.6, runs=5)
    b["samples"]["peak_rss_bytes"] = [m * MiB for m in hf]
    for r, m in zip(b["records"], own):
        r["peak_rss_bytes"] = m * MiB
    assert measures.memory_bytes(b) == [m * MiB for m in own]
    row = summary.rows(_doc([b]))[0]
    assert row.mem_med == 39 * MiB                     # not hyperfine's 109
    e = history.add(tmp_path / "h", [("r", _doc([b]))]).new_entries[0]
    assert e["memory_bytes"]["median"] == 39 * MiB
    # the runner's cross-check accepts the running maximum, and still catches a
    # program that reports more than hyperfine saw
    job = runner.Job(spec=None, built=None, key=b["key"], id="x", command=[], prepare=None, workdir=tmp_path)
    job.records, job.times, job.memory = b["records"], [0.6] * 5, b["samples"]["peak_rss_bytes"]
    runner._finish(job)
    assert job.status == "ok" and "reason" not in job.to_json()
    job = runner.Job(spec=None, built=None, key=b["key"], id="y", command=[], prepare=None, workdir=tmp_path)
    job.records, job.times, job.memory = b["records"], [0.6] * 5, [20 * MiB] * 5
    runner._finish(job)
    assert "hyperfine measured a peak of" in job.to_json()["reason"]


SQL_SAME = ("sqlite_version", "sqlite_compile_options", "journal_mode", "synchronous", "busy_timeout_ms",
            "foreign_keys", "threading_mode", "pool", "checkout")


def _sql_records(programs, scenario, tmp_path, env, tasks=300, pool=4):
    import os
    import subprocess
    env = {**os.environ, **env}
    recs = {}
    for build in ("go", "rust-system"):
        exe = str(programs[build].path_for(scenario))
        variant = "goroutines" if build == "go" else "tokio"
        db = ["--db", str(tmp_path / f"{build}.sqlite")] if scenario == "sqlite" else []
        subprocess.run([exe, "setup", scenario, "--rows", "1000", *db], env=env, check=True, capture_output=True)
        out = subprocess.run([exe, scenario, "--variant", variant, "--tasks", str(tasks), "--rows", "1000",
                              "--pool", str(pool), *db], env=env, check=True, capture_output=True, text=True)
        recs[build] = json.loads(out.stdout.strip().splitlines()[-1])
    return recs


def test_sqlite_one_checkout_per_task_and_one_sqlite_on_both_sides(programs, tmp_path):
    """Both sides check a connection out once per task (sqlx did it per statement), and
    run the same SQLite (the library the Rust build compiled, linked into Go) with the
    same settings, read back from the connections."""
    recs = _sql_records(programs, "sqlite", tmp_path, {})
    go, rust = recs["go"], recs["rust-system"]
    for rec in recs.values():
        assert rec["metrics"]["checkouts"] == 300
        assert rec["runtime"]["threading_mode"] == "multi-thread"
        assert rec["runtime"]["foreign_keys"] is True
        assert len(rec["runtime"]["sqlite_compile_options"]) > 10
    for field in SQL_SAME:
        assert go["runtime"][field] == rust["runtime"][field], field
    assert go["checksum"] == rust["checksum"]


@pytest.mark.parametrize("scenario", [name for name, sc in catalogue.load().scenarios.items() if sc.service])
def test_server_scenarios_check_out_once_per_task(cat, programs, servers, scenario, tmp_path):
    recs = _sql_records(programs, scenario, tmp_path, scenario_env(servers, cat.scenarios[scenario]))
    for rec in recs.values():
        assert rec["metrics"]["checkouts"] == 300
    assert recs["go"]["runtime"]["checkout"] == recs["rust-system"]["runtime"]["checkout"]
    assert recs["go"]["checksum"] == recs["rust-system"]["checksum"]


HM = {"tasks": 4000, "items": 1000, "shape": "burst", "rate": 10.0, "workers": 2}


def _hasher_doc():
    # Rust's hasher is its own parameter: both Rust runs are set against the one Go run.
    return _doc([
        _bench("hashmap", "spawn", "go", HM, 0.100, 0.110),
        _bench("hashmap", "spawn", "rust-system", {**HM, "hasher": "std"}, 0.080, 0.090),
        _bench("hashmap", "spawn", "rust-system", {**HM, "hasher": "foldhash"}, 0.050, 0.060),
    ])


def test_a_rust_only_parameter_keeps_the_go_pair():
    cat = catalogue.load()
    sc = cat.scenarios["hashmap"]
    assert sc.params["hasher"].lang == "rust"
    assert "hasher" not in sc.key_params({}, "go") and sc.key_params({}, "rust")["hasher"] == "std"
    rows = {r.key["params"].get("hasher"): r for r in summary.rows(_hasher_doc(), cat)}
    assert rows["std"].time_ratio == pytest.approx(0.8, rel=0.01)
    assert rows["foldhash"].time_ratio == pytest.approx(0.5, rel=0.01)


def test_site_overview_sets_each_hasher_against_the_one_go_run(tmp_path):
    root = tmp_path / "h"
    history.add(root, [("r", _hasher_doc())])
    cat = catalogue.load()
    model = trends.build(history.load(root), cat, detect=False)
    rows = [r for r in {s["name"]: s for s in site.overview(model, cat)}["hashmap"]["tables"][0]["rows"]]
    assert len(rows) == 2, [(r["other"], r["go"] is not None) for r in rows]   # no Go-only row
    assert all(r["go"] is not None for r in rows)
    assert sorted(round(r["diff"]["time"], 2) for r in rows) == [0.5, 0.8]


def test_standard_grid_runs_the_seeds_five_workers_per_cpu_and_both_hashers():
    import os
    cat = catalogue.load()
    specs = [s for s in cat.benchmarks("standard", scenarios=["hashmap"]) if s.variant == "pool"]
    go = [s.params for s in specs if s.build.lang == "go"]
    rust = [s.params for s in specs if s.build.name == "rust-system"]
    assert len(go) == 4 and len(rust) == 8          # shape x workers (x hasher for Rust)
    assert {p["workers"] for p in go} == {"cpus", "5cpus"}
    assert {p["hasher"] for p in rust} == {"std", "foldhash"}
    five = [s for s in specs if s.params["workers"] == "5cpus"][0]
    argv = five.argv("prog")
    assert argv[argv.index("--workers") + 1] == str(5 * (os.cpu_count() or 1))
    assert runner.resolve_params(five.params)["workers"] == 5 * (os.cpu_count() or 1)


def test_settings_that_explain_a_number_reach_the_history_and_the_site(tmp_path):
    """mimalloc's version and options (\"defaults\" when none are set), the hasher and
    the SQLite settings travel from the records to the history entry and the site row."""
    doc = _hasher_doc()
    for b in doc["benchmarks"]:
        for r in b["records"]:
            r["runtime"].update({"hasher": "foldhash" if b["key"]["params"].get("hasher") == "foldhash" else "std",
                                 "mimalloc_version": "3.3.2", "mimalloc_options": {}, "allocator": "mimalloc",
                                 "sqlite_compile_options": ["X"] * 50})
    assert measures.settings(doc["benchmarks"][2]) == {
        "allocator": "mimalloc", "mimalloc_version": "3.3.2", "mimalloc_options": "defaults", "hasher": "foldhash"}
    doc["benchmarks"][1]["records"][0]["runtime"]["mimalloc_options"] = {"MIMALLOC_ALLOW_THP": "0"}
    assert measures.settings(doc["benchmarks"][1])["mimalloc_options"] == "MIMALLOC_ALLOW_THP=0"
    root = tmp_path / "h"
    history.add(root, [("r", doc)])
    hist = history.load(root)
    assert all(e["settings"]["mimalloc_version"] == "3.3.2" for e in hist.entries)
    assert history.check(root) == []   # the schema takes the settings
    model = trends.build(hist, catalogue.load(), detect=False)
    rows = site.scenario_data(model, "hashmap", "tasks")["rows"]
    assert any("hasher: foldhash" in r["settings"] and "mimalloc options: MIMALLOC_ALLOW_THP=0" not in r["settings"]
               for r in rows)
    assert any("mimalloc options: MIMALLOC_ALLOW_THP=0" in r["settings"] for r in rows)


def test_programs_run_from_fresh_copies_in_the_work_folder(tmp_path):
    """Memory counts mapped file pages, which depend on how the file sits in the page
    cache: every program of a run is copied alike and run from the copy."""
    import os

    from benchpipe.toolchains import Built
    exe = tmp_path / "gobench"
    exe.write_bytes(b"#!/bin/sh\necho hi\n")
    exe.chmod(0o755)
    built = Built("go", "go", "gobench", "go1.26.8", "local", "go version", str(exe), "head", "c" * 40)
    cat = catalogue.load()
    work = tmp_path / "work"
    jobs = runner.make_jobs(cat.benchmarks("smoke", scenarios=["files-read"], builds=["go"]), [built], work, False)
    assert jobs
    for j in jobs:
        prog = j.command[0]
        assert prog != str(exe) and prog.startswith(str(work)) and os.access(prog, os.X_OK)
        assert open(prog, "rb").read() == exe.read_bytes()
        assert j.prepare[0] == prog          # setup runs the same copy
        assert j.built.path == prog


def test_byte_identical_programs_of_two_sides_run_from_one_copy(tmp_path):
    """An A/A (or a program a pull request did not change): both sides run the same file,
    so where the kernel put a copy's pages cannot tell them apart; a changed program gets
    a copy of its own."""
    from benchpipe.toolchains import Built

    def built(label, body, name="rsbench"):
        exe = tmp_path / label / name
        exe.parent.mkdir(exist_ok=True)
        exe.write_bytes(body)
        exe.chmod(0o755)
        return Built("rust-system", "rust", name, "rust1.95.0", "local", "rustc", str(exe), label, "c" * 40)

    same = runner.fresh_copies([built("base", b"#!/bin/sh\necho A\n"), built("head", b"#!/bin/sh\necho A\n")],
                               tmp_path / "w1")
    assert same[0].path == same[1].path and Path(same[0].path).is_relative_to(tmp_path / "w1")
    assert [b.label for b in same] == ["base", "head"]
    changed = runner.fresh_copies([built("base", b"#!/bin/sh\necho A\n"), built("head", b"#!/bin/sh\necho B\n")],
                                  tmp_path / "w2")
    assert changed[0].path != changed[1].path
    assert [Path(b.path).read_bytes() for b in changed] == [b"#!/bin/sh\necho A\n", b"#!/bin/sh\necho B\n"]
    # The same bytes under another program name (rsbench-mimalloc) stay a program of their own.
    other = runner.fresh_copies([built("base", b"x"), built("head", b"x", name="rsbench-mimalloc")], tmp_path / "w3")
    assert Path(other[0].path).name == "rsbench" and Path(other[1].path).name == "rsbench-mimalloc"


def test_trend_chart_dates_show_the_time_when_runs_share_a_day():
    from benchpipe import charts

    same_day = ["2026-11-01T01:00:00Z", "2026-11-01T05:00:00Z", "2026-11-02T09:00:00Z"]
    assert charts._date_format(same_day) == "%m-%d %H:%M"
    assert charts._date_format(["2026-10-01T01:00:00Z", "2026-11-01T05:00:00Z"]) == "%Y-%m-%d"
    assert charts._date_format(["not a date", "x"]) == "%Y-%m-%d"


def test_sql_scenarios_run_in_the_split_program_and_the_others_in_the_lean_one(tmp_path):
    """Item 14: a Go scenario that uses no database runs in the lean gobench (no SQL
    driver, no cgo); the split ones (sqlite, mysql, ...) run in gobench-sql, each from
    its fresh copy."""
    from benchpipe.toolchains import Built
    progs = {}
    for name in ("gobench", "gobench-sql"):
        progs[name] = tmp_path / name
        progs[name].write_bytes(f"#!/bin/sh\necho {name}\n".encode())
        progs[name].chmod(0o755)
    cat = catalogue.load()
    split = cat.builds["go"].split_scenarios
    assert {"sqlite", "mysql"} <= set(split)
    built = Built("go", "go", "gobench", "go1.26.8", "local", "go version", str(progs["gobench"]), "head", "c" * 40,
                  paths={sc: str(progs["gobench-sql"]) for sc in split})
    jobs = runner.make_jobs(cat.benchmarks("smoke", scenarios=["fanout", *split], builds=["go"]),
                            [built], tmp_path / "work", False)
    by = {j.key["scenario"]: j for j in jobs}
    assert set(by) == {"fanout", *split}
    for sc, j in by.items():
        want = "gobench-sql" if sc in split else "gobench"
        assert j.command[0].endswith("/" + want) and j.command[0].startswith(str(tmp_path / "work"))
        assert open(j.command[0], "rb").read() == progs[want].read_bytes()
        if j.prepare:
            assert j.prepare[0] == j.command[0]


def test_the_lean_go_program_holds_less_at_start(programs):
    """Item 14, measured: the lean gobench's resident memory before any scenario code
    is well below what the program with the SQL drivers and cgo holds (3 vs 8 MB here)."""
    import subprocess
    go = programs["go"]
    assert go.path_for("sqlite") != go.path
    base = {}
    for exe in (go.path, go.path_for("sqlite")):
        out = subprocess.run([exe, "fanout", "--variant", "batched", "--values", "100"],
                             capture_output=True, text=True, check=True).stdout
        base[exe] = json.loads(out.strip().splitlines()[-1])["baseline_rss_bytes"]
    assert base[go.path] < 0.75 * base[go.path_for("sqlite")], base
