"""Repeats (runner.RepeatPlan): a benchmark whose window is short runs the scenario K
times in each process (`--repeat K`), its sample the median of the windows after the
first.

Unit: how K is chosen from a group's warm-up window, and that one family (scenario and
params) runs warm or cold as a whole, so a Go-against-Rust ratio never sets a warm
window against a cold one. End to end, on the real programs: every side of a group runs
the same K, the record's window is the median of its windows after the first, the
results file says so, and Go and Rust of one family are measured alike."""

from __future__ import annotations

import dataclasses
import re
import statistics

import pytest

from benchpipe import catalogue, cli, results, runner, tools
from benchpipe.commands import matrix
from compare_helpers import built_gobench


def test_k_is_how_many_windows_fit_in_the_target():
    plan = runner.RepeatPlan(0.2)
    assert plan.choose(("cpu", "a"), 0.02) == 10
    assert plan.choose(("cpu", "b"), 0.0001) == runner.MAX_REPEAT   # capped
    assert plan.choose(("cpu", "c"), 0.0) == runner.MAX_REPEAT      # a window too short to measure
    assert plan.choose(("cpu", "d"), 0.07) == 1                     # 2 fit: not worth a process's start
    assert plan.choose(("cpu", "e"), 0.066) == 3


def test_a_family_runs_warm_or_cold_as_a_whole():
    """The family's first group decides; later groups follow, whatever their window."""
    plan = runner.RepeatPlan(0.2)
    fanout = ("fanout", "values=1000000")
    assert plan.choose(fanout, 0.027) == 7        # Rust threads first: warm
    assert plan.choose(fanout, 0.096) == 2        # tokio would fit 2 only, but its family is warm
    assert plan.choose(fanout, 5.0) == 2          # however long: never a cold window beside warm ones
    files = ("files-rw", "tasks=10000")
    assert plan.choose(files, 0.15) == 1          # first group too long: the family runs cold
    assert plan.choose(files, 0.01) == 1          # even a short member of it
    assert plan.to_json() == {"target_s": 0.2, "min": runner.MIN_REPEAT, "max": runner.MAX_REPEAT}
    assert runner.repeat_plan(0) is None


def test_the_family_leaves_out_a_parameter_only_one_language_takes(cat, tmp_path):
    specs = cat.benchmarks("smoke", scenarios=["hashmap"])
    go = [s for s in specs if s.build.lang == "go"][0]
    rust = [s for s in specs if s.build.name == "rust-system" and s.variant == go.variant
            and s.params["shape"] == go.params["shape"]]
    assert {s.params["hasher"] for s in rust} == {"std", "foldhash"}
    built = {b: _built(b) for b in ("go", "rust-system")}
    jobs = runner.make_jobs([go, *rust], list(built.values()), tmp_path, ab=False)
    assert len({runner.family(j) for j in jobs}) == 1


def test_no_preset_repeats_by_default(cat):
    # measured (catalogue.toml, quick): at the same time budget, repeats cost a short
    # benchmark more pairs than their noise saves; and standard and full feed the
    # history, where a change of method would be a step in every short series
    assert [cat.preset(p).repeat_s for p in catalogue.PRESETS] == [0, 0, 0, 0]


def test_the_matrix_estimate_counts_the_repeated_windows():
    assert matrix.process_s(0.04, 0.2) == 0.2      # a short benchmark: K windows, about the target
    assert matrix.process_s(0.12, 0.2) == 0.12     # too long to repeat
    assert matrix.process_s(0.04, 0.0) == 0.04     # no repeats on this preset


def test_repeat_s_is_checked():
    assert cli.main(["run", "--preset", "smoke", "--repeat-s", "-1", "--no-summary"]) == 2
    assert cli.main(["run", "--preset", "smoke", "--repeat-s", "11", "--no-summary"]) == 2


def _built(build: str, path: str = "/bin/true", label: str = "head"):
    from benchpipe import toolchains
    lang = "go" if build == "go" else "rust"
    return toolchains.Built(build, lang, {"go": "gobench", "rust-system": "rsbench"}[build],
                            "go1.26.8" if lang == "go" else "rust1.95.0", "local", lang, path, label, "c" * 40)


# ---------------------------------------------------------------- real programs


def _windows(rec: dict) -> list[float]:
    return [w["elapsed_s"] for w in rec["repeat"]["windows"]]


def test_every_side_of_a_group_runs_the_same_k_and_reports_the_median_window(tmp_path_factory):
    program = built_gobench(str(tmp_path_factory.getbasetemp() / "gobuild"))
    if not program:
        pytest.skip("go is not installed")
    from benchpipe import toolchains
    cat = catalogue.load()
    (spec,) = [s for s in cat.benchmarks("smoke", scenarios=["files-rw"], langs=["go"]) if s.params["tasks"] == 100]
    built = toolchains.Built("go", "go", "gobench", toolchains.program_toolchain(program), "local", "go", program,
                             "a", "c" * 40)
    work = tmp_path_factory.mktemp("repeat")
    jobs = [runner.make_jobs([spec], [dataclasses.replace(built, label=label)], work / label, ab=True)[0]
            for label in ("a", "b")]
    plan = runner.RepeatPlan(0.05)
    runner.run_group(jobs, tools.require("hyperfine"), cat.preset("smoke"), 4, 600, {}, repeats=plan)
    assert [j.status for j in jobs] == ["ok", "ok"], [j.reason for j in jobs]
    (k,) = {j.repeat for j in jobs}
    assert 2 <= k <= runner.MAX_REPEAT
    for j in jobs:
        out = j.to_json()
        assert out["command"][-2:] == ["--repeat", str(k)]
        assert len(out["records"]) == 4 == len(out["samples"]["wall_s"])
        for rec in out["records"]:
            # files-rw appends: the setup between the runs of one process keeps the checksum
            assert rec["repeat"]["count"] == k and len(_windows(rec)) == k
            assert rec["elapsed_s"] == pytest.approx(statistics.median(_windows(rec)[1:]), abs=1e-9)
        assert len({rec["checksum"] for rec in out["records"]}) == 1


def test_bench_run_records_the_plan_and_measures_go_and_rust_of_a_family_alike(programs, tmp_path, capsys):
    """A run of Go and Rust (system allocator) at smoke size with a repeat target: the
    plan is in env, each benchmark's command and records carry its K, the progress line
    and the summary say it, and within a family all run warm (K >= 2) or all cold."""
    from benchpipe import toolchains
    manifest = toolchains.write_manifest(tmp_path, [programs[b] for b in ("go", "rust-system")])
    out = tmp_path / "run"
    rc = cli.main(["run", "--preset", "smoke", "--scenario", "cpu,files-read", "--build", "go,rust-system",
                   "--variant", "goroutines,threads,tokio", "--manifest", str(manifest), "--repeat-s", "0.05",
                   "--out", str(out)])
    assert rc == 0
    err = capsys.readouterr()
    assert re.search(r"of \d+ runs of \d+ windows each \(median window ", err.err)
    doc = results.load(out / "results.json")
    assert doc["env"]["repeat"] == {"target_s": 0.05, "min": runner.MIN_REPEAT, "max": runner.MAX_REPEAT}
    families: dict[tuple, set[int]] = {}
    for b in doc["benchmarks"]:
        assert b["status"] == "ok", b.get("reason")
        counts = {(r.get("repeat") or {}).get("count", 1) for r in b["records"]}
        assert len(counts) == 1
        (k,) = counts
        assert (b["command"][-2:] == ["--repeat", str(k)]) == (k > 1)
        families.setdefault((b["key"]["scenario"], results.format_params(b["key"]["params"])), set()).add(k > 1)
    assert len(families) == 4 and all(len(warm) == 1 for warm in families.values()), families
    # smoke windows are a few ms: at 0.05 s every family fits three or more
    assert all(warm == {True} for warm in families.values())
    assert re.search(r"\d+ x \d+", (out / "summary.md").read_text())


def test_the_pr_comment_says_how_short_windows_were_measured():
    from benchpipe.report import compare_md
    (line,) = compare_md.repeat_sentence({"target_s": 0.2, "min": 3, "max": 50})
    assert "under 66.7 ms" in line and "about 200 ms" in line and "Go and Rust alike" in line
    # a run without repeats, or an env.repeat that is not one, adds nothing
    assert compare_md.repeat_sentence(None) == [] == compare_md.repeat_sentence({"target_s": "x"})
