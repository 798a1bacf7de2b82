"""End to end on real runs of the Go program.

1. `bench run --ab-base <this checkout>` on the smoke preset: the same build run as base
   and head, interleaved, through the real pipeline; `bench compare` flags nothing.
2. A against A with its workload scaled by 1.5 (scaling.scale_spec, what
   `run --scale` uses; measured by the runner's engine, interleaved) flags exactly the
   scaled benchmarks as regressions.

Scaled benchmarks: the quick preset's cpu (threads 1 and 2): compute-bound, so 1.5x the
items (the catalogue's `scale` for cpu) is about 1.5x the CPU time (wall time too, on an idle machine; under heavy load
from other processes wall time alone may not reach significance, CPU time does). Smoke sizes are a few milliseconds, dominated by process
start, where a 1.5x workload is not a 1.5x time; channel-heavy scenarios (fanout) are
too noisy on a 2-core machine shared with compilers. Runs: 10 a side, interleaved. The A/A
half uses alpha 0.001 so that it flakes well under 1 % of the time; the scaled half uses
the default alpha (0.01), as a PR comparison would."""

import json
import platform
import re

import pytest

from benchpipe import ROOT, catalogue, cli, instructions, results, tools
from compare_helpers import built_gobench, measured_docs


def test_smoke_run_of_the_same_build_as_base_and_head_flags_nothing(tmp_path, capsys, monkeypatch):
    if not tools.which("go"):
        pytest.skip("go is not installed")
    # Linux with Valgrind: 3 counted runs; the same build on both sides is one program
    # (one copy), so counted once and shared, and no second look is taken even where one
    # would be wanted (forced: an A/A's first look is seldom suggestive)
    counting = platform.system() == "Linux" and bool(tools.which("valgrind"))
    if counting:
        monkeypatch.setattr(instructions, "top_up_wanted", lambda a, b: True)
    out = tmp_path / "run"
    rc = cli.main(["run", "--preset", "smoke", "--scenario", "cpu", "--lang", "go", "--ab-base", str(ROOT),
                   "--runs", "8", "--build-dir", str(tmp_path / "build"), "--out", str(out), "--no-summary",
                   "--instructions", "3" if counting else "0"])
    assert rc == 0
    if counting:
        benches = results.load(out / "results.json")["benchmarks"]
        assert len(benches) == 4 and all("looks" not in b["instructions"] and len(b["instructions"]["counts"]) == 3
                                         for b in benches), [b.get("instructions") for b in benches]
        by_id = {b["id"]: b for b in benches}
        heads = [b for b in benches if b["key"]["label"] == "head"]
        assert len(heads) == 2 and all(
            by_id[h["instructions"]["same_as"]]["key"]["label"] == "base"
            and by_id[h["instructions"]["same_as"]]["instructions"]["counts"] == h["instructions"]["counts"]
            for h in heads), [h["instructions"] for h in heads]
    # the progress line says how many runs sampling until sure took for each side
    assert re.search(r"ok .*cpu .*median [0-9.e-]+ s of (8|16|24) runs", capsys.readouterr().err)
    js = tmp_path / "cmp.json"
    # alpha 0.001, as for the A/A half below: at the default 0.01 an A/A of two
    # benchmarks x three metrics at smoke size (windows of a few ms) flags about 2% of
    # the time (seen once in CI: cpu threads=1, time 0.90 at p = 0.002 over 18 pairs)
    assert cli.main(["compare", str(out / "results.json"), "--calibration", "none", "--json", str(js),
                     "--alpha", "0.001", "--fail-on-regression"]) == 0
    got = json.loads(js.read_text())
    assert got["mode"] == "labels" and len(got["benchmarks"]) == 2
    assert {b["verdict"] for b in got["benchmarks"]} == {"no change"}, \
        [(b["id"], {m: v["verdict"] for m, v in b["metrics"].items()}) for b in got["benchmarks"]]
    # sampled until sure: looks at 8, 16 and 24 pairs (runner.Sequential), the design recorded.
    # 8 runs, not 6: the run's design (alpha 0.01) may stop a group at its first look,
    # and 6 pairs (6+6 unpaired: smallest p 0.0022) can never reach 0.001, so such a
    # group came out "too few samples" (seen in CI: 1 group in 24 stops at 6); 8+8 can
    # (smallest p 0.00016).
    assert results.load(out / "results.json")["env"]["sequential"]["looks"] == [8, 16, 24]
    assert all(b["metrics"]["time"]["n_base"] == b["metrics"]["time"]["n_head"] in (8, 16, 24)
               for b in got["benchmarks"])


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    program = built_gobench(str(tmp_path_factory.getbasetemp() / "gobuild"))
    if not program:
        pytest.skip("go is not installed")
    cat = catalogue.load()
    specs = cat.benchmarks("quick", scenarios=["cpu"], langs=["go"])
    assert sorted(s.params["threads"] for s in specs) == [1, 2]
    work = tmp_path_factory.mktemp("e2e")
    a, a2, b = measured_docs(program, specs, 1.5, 10, work)
    paths = []
    for name, d in (("a.json", a), ("a2.json", a2), ("scaled.json", b)):
        results.write(work / name, d)
        paths.append(work / name)
    return paths


def _compare(tmp_path, base, head, *extra):
    js = tmp_path / "out.json"
    rc = cli.main(["compare", str(base), str(head), "--calibration", "none",
                   "--json", str(js), "--fail-on-regression", *extra])
    return rc, json.loads(js.read_text())


def test_same_build_flags_nothing(docs, tmp_path):
    a, a2, _ = docs
    rc, out = _compare(tmp_path, a, a2, "--alpha", "0.001")
    assert rc == 0
    assert len(out["benchmarks"]) == 2
    assert [b["verdict"] for b in out["benchmarks"]] == ["no change", "no change"], out


def test_scaled_workload_flags_the_scaled_benchmarks(docs, tmp_path):
    a, _, scaled = docs
    rc, out = _compare(tmp_path, a, scaled, "--scaled", "1.5")
    assert rc == 1
    got = {b["key"]["params"]["threads"]: b for b in out["benchmarks"]}
    assert set(got) == {1, 2}
    # the catalogue's scale parameter for cpu is items (tasks, threads unchanged)
    base_items = {b["key"]["params"]["threads"]: b["key"]["params"]["items"] for b in results.load(a)["benchmarks"]}
    for t, b in got.items():
        assert b["key"]["params"]["items"] == round(base_items[t] * 1.5)
        assert b["key"]["params"]["tasks"] == 16
    for b in got.values():
        assert b["verdict"] == "regression"
        cpu, wall = b["metrics"]["cpu"], b["metrics"]["time"]
        assert cpu["verdict"] == "regression" and cpu["ratio"] > 1.3 and cpu["p_value"] < 0.01
        # wall time: slower too; whether significant depends on the other load on the machine
        assert wall["ratio"] > 1.2


def test_the_engine_takes_the_late_looks_a_cheap_group_affords_and_no_more(tmp_path_factory):
    """runner.run_group on real runs of one cheap group (gobench cpu at smoke size, a few
    ms a run) that no look decides: looks at 3, 6, 9 rounds free, then 18 and 36 within
    the budget. A budget of minutes takes it to 36 rounds; a budget smaller than what 18
    rounds cost stops it at the 9 free ones."""
    import dataclasses

    from benchpipe import runner, toolchains

    program = built_gobench(str(tmp_path_factory.getbasetemp() / "gobuild"))
    if not program:
        pytest.skip("go is not installed")

    class Undecided(runner.Sequential):
        def decided(self, group, last=None):
            return False

    cat = catalogue.load()
    (spec,) = [s for s in cat.benchmarks("smoke", scenarios=["cpu"], langs=["go"]) if s.params["threads"] == 1]
    built = toolchains.Built("go", "go", "gobench", toolchains.program_toolchain(program), "local", "go", program,
                             "a", "c" * 40)
    hf = tools.require("hyperfine")
    for budget, rounds in ((600.0, 36), (0.001, 9)):
        base = runner.sequential_design(3, 36, tests=1, budget_s=budget)
        seq = Undecided(base.looks, base.alpha, base.threshold, tests=1, free=base.free, budget_s=base.budget_s)
        assert seq.looks == (3, 6, 9, 18, 36)
        work = tmp_path_factory.mktemp(f"late{rounds}")
        jobs = [runner.make_jobs([spec], [dataclasses.replace(built, label=label)], work / label, ab=True)[0]
                for label in ("a", "b")]
        runner.run_group(jobs, hf, cat.preset("smoke"), 3, 600, {}, seq)
        assert [j.status for j in jobs] == ["ok", "ok"], [j.reason for j in jobs]
        assert [len(j.times) for j in jobs] == [rounds, rounds]
