"""Issue 39: a Go-against-Rust pair whose declared parity does not hold (the catalogue's
`parity`: SQLite version and compile options, threading mode, server settings) is
marked in both benchmarks' status reason, and the summary and the site show no ratio
for it. On a fresh machine Go once linked SQLite 3.54.1 against Rust's 3.46.0, and the
sqlite ratios said nothing of it."""

from __future__ import annotations

import copy

from benchpipe import catalogue, history, measures, runner, site, trends
from benchpipe.report import summary
from benchpipe.toolchains import Built
from compare_helpers import bench, doc, key

SQLITE = {"sqlite_version": "3.46.0", "sqlite_compile_options": ["THREADSAFE=2", "DEFAULT_WAL_SYNCHRONOUS=2"],
          "threading_mode": "multi-thread", "journal_mode": "wal", "synchronous": "normal", "busy_timeout_ms": 5000,
          "foreign_keys": True, "pool": 8, "checkout": "one per task"}


def _jobs(tmp_path, go_runtime: dict) -> list[runner.Job]:
    cat = catalogue.load()
    specs = cat.benchmarks("smoke", scenarios=["sqlite"])
    builds = [Built(b, lang, "p", tc, "local", "v", "/bin/true", "head", "c" * 40,
                    paths={"sqlite": "/bin/true"} if b == "go" else {})
              for b, lang, tc in (("go", "go", "go1.26.8"), ("rust-system", "rust", "rust1.95.0"))]
    jobs = runner.make_jobs(specs, builds, tmp_path, False, copied=True)
    for j in jobs:
        j.status = "ok"
        j.records = [{"runtime": dict(go_runtime if j.key["lang"] == "go" else SQLITE), "cpu_user_s": 0.1, "cpu_sys_s": 0.0}]
    return jobs


def test_a_pair_with_the_same_sqlite_is_not_marked(tmp_path):
    jobs = _jobs(tmp_path, SQLITE)
    runner.parity_check(jobs)
    assert all(not j.warnings for j in jobs)


def test_a_pair_on_two_sqlite_builds_is_marked_on_both_sides(tmp_path):
    other = {**SQLITE, "sqlite_version": "3.54.1",
             "sqlite_compile_options": ["THREADSAFE=2", "DEFAULT_WAL_SYNCHRONOUS=1", "OMIT_DEPRECATED"]}
    jobs = _jobs(tmp_path, other)
    runner.parity_check(jobs)
    assert jobs and all(j.warnings for j in jobs), [j.warnings for j in jobs]
    rust = next(j for j in jobs if j.key["lang"] == "rust")
    (w,) = rust.warnings
    assert w.startswith(measures.PARITY_BROKEN) and "sqlite_version: go 3.54.1, rust 3.46.0" in w
    assert "sqlite_compile_options: go 3 options, rust 2 options" in w
    assert rust.to_json()["status"] == "ok" and measures.PARITY_BROKEN in rust.to_json()["reason"]


def _docs_with_broken_parity():
    params = {"tasks": 100, "rows": 1000, "pool": 8}
    go = bench(key("sqlite", "goroutines", "go", **params), wall=[0.010] * 5)
    rs = bench(key("sqlite", "tokio", "rust-system", "rust1.95.0", **params), wall=[0.008] * 5)
    rs["reason"] = f"{measures.PARITY_BROKEN}: rust against go goroutines: sqlite_version: go 3.54.1, rust 3.46.0"
    go["reason"] = f"{measures.PARITY_BROKEN}: go against rust-system tokio: sqlite_version: go 3.54.1, rust 3.46.0"
    return doc([go, rs])


def test_the_summary_shows_no_ratio_for_a_broken_pair():
    d = _docs_with_broken_parity()
    rows = {r.lang: r for r in summary.rows(d)}
    assert rows["rust"].time_ratio is None and rows["rust"].mem_ratio is None
    assert "no ratio: parity broken" in summary.markdown_text(d)
    assert any("no ratio: parity broken (rust against go goroutines" in ln for ln in summary.terminal_lines(d))


def test_the_site_shows_no_ratio_for_a_broken_pair(tmp_path):
    d = _docs_with_broken_parity()
    history.add(tmp_path / "h", [("r", d)])
    cat = catalogue.load()
    model = trends.build(history.load(tmp_path / "h"), cat, detect=False)
    ov = {s["name"]: s for s in site.overview(model, cat)}["sqlite"]
    (row,) = ov["tables"][0]["rows"]
    assert measures.PARITY_BROKEN in row["parity"] and all(v is None for v in row["diff"].values())
    assert not ov["tables"][0]["glance"]        # not counted in the overview's geometric mean
    ok = copy.deepcopy(d)
    for b in ok["benchmarks"]:
        b.pop("reason")
    history.add(tmp_path / "h2", [("r", ok)])
    ov = {s["name"]: s for s in site.overview(trends.build(history.load(tmp_path / "h2"), cat, detect=False), cat)}
    assert ov["sqlite"]["tables"][0]["rows"][0]["diff"]["time"] is not None
