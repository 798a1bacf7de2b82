"""Calibration: workload scaling (benchpipe.scaling, also for `run --scale`), the judging of
A/A and A/B rounds, calibration.json, and `bench calibrate` on the real Go program (tiny settings)."""

import json
import math
import platform
import random

import numpy as np
import pytest

from benchpipe import calibration, calibration_instructions, catalogue, cli, scaling, stats, tools
from benchpipe.errors import BenchError
from compare_helpers import built_gobench, key
from conftest import unavailable


@pytest.fixture(scope="module")
def cat():
    return catalogue.load()


def spec_of(cat, scenario, **params):
    return next(s for s in cat.benchmarks("quick", scenarios=[scenario], langs=["go"])
                if all(s.params[k] == v for k, v in params.items()))


def test_scale_specs_scales_the_scale_parameter_only(cat):
    specs = cat.benchmarks("quick", scenarios=["cpu", "fanout", "sleep"], langs=["go"])
    scaled = scaling.scale_specs(specs, 1.5)
    for s, t in zip(specs, scaled):
        name = s.scenario.scale
        assert t.params[name] == round(s.params[name] * 1.5)
        assert {k: v for k, v in t.params.items() if k != name} == {k: v for k, v in s.params.items() if k != name}
        assert (t.scenario, t.variant, t.build) == (s.scenario, s.variant, s.build)
    assert specs[0].params != scaled[0].params  # the originals are untouched (pure function)
    assert scaling.scale_specs(specs, 1.5)[0].params == scaled[0].params


def test_scale_is_what_lengthens_the_window(cat):
    """The slowdown `calibrate` makes must be one: sleep's window is its longest sleep
    (1,050 tasks sleep no longer than 1,000), cpu's tasks run in rounds of `threads`
    (16 -> 17 tasks on 2 threads is x1.125, not x1.0625), hashmap's arrivals at a fixed
    rate make a window of tasks / rate: all three scale their per-task work."""
    assert cat.scenarios["sleep"].scale == "max_sleep_ms" and cat.scenarios["cpu"].scale == "items"
    assert cat.scenarios["fanout"].scale == cat.scenarios["fanout"].size == "values"
    # hashmap at shape = rate: more tasks lengthen only the arrival schedule
    assert cat.scenarios["hashmap"].scale == "items" and cat.scenarios["hashmap"].size == "tasks"
    cpu = spec_of(cat, "cpu", threads=2)
    up = scaling.scale_spec(cpu, 1.05)
    assert up.params["tasks"] == cpu.params["tasks"] and up.params["threads"] == 2
    assert scaling.effective_factor(cpu, up) == pytest.approx(1.05)
    sleep = cat.benchmarks("quick", scenarios=["sleep"], langs=["go"])[0]
    up = scaling.scale_spec(sleep, 1.05)
    assert (up.params["tasks"], up.params["max_sleep_ms"]) == (sleep.params["tasks"], 315)


def test_scaling_rounds_and_respects_min(cat):
    sql = cat.benchmarks("quick", scenarios=["sqlite"], langs=["go"])[0]   # tasks = 100
    assert sql.params["tasks"] == 100
    up = scaling.scale_spec(sql, 1.052)
    assert up.params["tasks"] == 105
    assert scaling.effective_factor(sql, up) == pytest.approx(1.05)
    assert scaling.scale_spec(sql, 0.001).params["tasks"] == 1   # min = 1
    with pytest.raises(BenchError):
        scaling.scale_specs([sql], 0)
    with pytest.raises(BenchError):
        scaling.scale_specs([sql], float("nan"))


def test_scale_key(cat):
    k = key(scenario="fanout", variant="channels", values=1000000)
    assert scaling.scale_key(k, 1.05, cat)["params"] == {"values": 1050000}
    assert k["params"] == {"values": 1000000}
    odd = key(scenario="not-in-catalogue", tasks=3)
    assert scaling.scale_key(odd, 2, cat) == odd


def _bench(windows, cpu=None):
    """A results-file benchmark whose records hold these timed windows (and CPU times in
    them: half the window unless given)."""
    cpu = cpu if cpu is not None else [w / 2 for w in windows]
    key = {"scenario": "cpu", "variant": "goroutines", "lang": "go", "build": "go", "toolchain": "go1.26.8",
           "params": {"tasks": 16}}
    return {"id": "x", "key": key, "status": "ok",
            "samples": {"wall_s": [w + 0.01 for w in windows], "user_s": [w for w in windows],
                        "sys_s": [0.0] * len(windows), "peak_rss_bytes": [10_000_000] * len(windows)},
            "records": [{"elapsed_s": w, "window_cpu_s": {"user": c, "sys": 0.0}, "peak_rss_bytes": 10_000_000,
                         "cpu_user_s": w, "cpu_sys_s": 0.0} for w, c in zip(windows, cpu)]}


def _rounds(rng, factor, n_rounds=40, runs=10, sigma=0.01):
    def draw(level):
        return _bench(list(level * np.exp(rng.normal(0, sigma, runs))))
    return [(draw(1.0), draw(1.0), draw(factor)) for _ in range(n_rounds)]


def test_family_result_counts_false_alarms_and_detections(cat):
    rng = np.random.default_rng(20)
    spec = spec_of(cat, "cpu", threads=1)
    fam = calibration.family_result(spec, 1.10, _rounds(rng, 1.10), alpha=0.01, threshold=0.03)
    assert fam["aa"]["comparisons"] == fam["ab"]["comparisons"] == 40
    assert fam["aa"]["flagged"] == 0
    assert fam["ab"]["flagged"] >= 38          # a 10 % change in 1 % noise
    assert fam["robust_cv"] == pytest.approx(0.01, rel=0.3)
    assert fam["aa_cpu"]["flagged"] == 0 and fam["ab_cpu"]["flagged"] == fam["ab"]["flagged"]
    undetectable = calibration.family_result(spec, 1.01, _rounds(rng, 1.01), alpha=0.01, threshold=0.03)
    assert undetectable["ab"]["flagged"] == 0   # below the practical threshold
    assert fam["median_window_s"] == pytest.approx(1.0, rel=0.01) and fam["resolution"] >= 0.03
    assert fam["aa_memory"]["comparisons"] == 40 and fam["aa_memory"]["flagged"] == 0
    doc = calibration.document("quick", 10, 40, 1.10, 0.01, 0.03, [fam, undetectable])
    s = doc["summary"]
    assert s["aa_comparisons"] == 80 and s["false_alarm_rate"] == 0
    assert s["detection_rate"] == pytest.approx((fam["ab"]["flagged"] + 0) / 80)
    assert 0.01 <= s["recommended"]["threshold"] <= 0.1
    assert s["aa_noise_p99"] < 0.03
    assert s["cpu"]["false_alarms"]["comparisons"] == 80 and s["cpu"]["false_alarms"]["rate"] == 0
    assert fam["aa_any"] == {"comparisons": 40, "flagged": 0, "rate": 0.0}
    assert fam["ab_any"]["flagged"] == fam["ab"]["flagged"]   # window and CPU time move together here
    assert s["report"]["detections"]["flagged"] == fam["ab"]["flagged"]
    # the change the scaled side really made, as the data hold it
    assert fam["realised"]["time"] == pytest.approx(1.10, abs=0.005)
    assert fam["realised"]["cpu"] == pytest.approx(1.10, abs=0.005)


def test_realised_says_when_the_window_grew_less_than_the_workload(cat):
    """Half of each window is a fixed cost that scaling the workload leaves alone: x1.10
    lengthens it by 5 %, and the family says so instead of leaving a miss of 5 % to
    read as a miss of 10 %."""
    rng = np.random.default_rng(22)

    def draw(level):
        return _bench(list((0.5 + 0.5 * level) * np.exp(rng.normal(0, 0.01, 10))))
    rounds = [(draw(1.0), draw(1.0), draw(1.10)) for _ in range(20)]
    fam = calibration.family_result(spec_of(cat, "cpu", threads=1), 1.10, rounds, alpha=0.01, threshold=0.02)
    assert fam["effective_factor"] == 1.10
    assert fam["realised"]["time"] == pytest.approx(1.05, abs=0.005)


def test_a_report_sees_what_cpu_time_sees_when_the_window_is_noisy(cat):
    """A busy core: the window scatters by 15 %, the CPU time in it by 0.5 %. The report
    flags the slowdown (a regression on CPU time) where the window alone cannot."""
    rng = np.random.default_rng(21)

    def draw(level):
        cpu = level * np.exp(rng.normal(0, 0.005, 10))
        return _bench(list(cpu * 2 * np.exp(rng.normal(0, 0.15, 10))), list(cpu))
    rounds = [(draw(1.0), draw(1.0), draw(1.05)) for _ in range(20)]
    fam = calibration.family_result(spec_of(cat, "cpu", threads=1), 1.05, rounds, alpha=0.01, threshold=0.02)
    assert fam["ab"]["flagged"] <= 5 and fam["ab_cpu"]["flagged"] >= 18
    assert fam["ab_any"]["flagged"] >= fam["ab_cpu"]["flagged"]
    assert fam["aa_any"]["flagged"] == 0


def test_pairs_needed_is_what_the_report_needs(cat):
    """The projection (from the A/A pairs' scatter) against the report's own judgement of
    simulated comparisons: with the pairs it asks for, a 5 % slowdown is flagged about 19
    times in 20; with the pairs it asks for half the time, about half the time. And a
    change no larger than the practical threshold needs 'never'."""
    spec, tests = spec_of(cat, "cpu", threads=1), 246
    level = 0.01 / tests
    rng = np.random.default_rng(22)
    probe = calibration.family_result(spec, 1.05, _rounds(rng, 1.05, n_rounds=20, runs=40, sigma=0.04),
                                      alpha=0.01, threshold=0.02, tests=tests)
    assert probe["flag_level"] == pytest.approx(level)
    assert probe["pair_scatter"]["time"] == pytest.approx(0.04 * math.sqrt(2), rel=0.1)
    five, two = probe["pairs_needed"]
    assert (five["change"], five["power"], two["change"], two["power"]) == (0.05, 0.95, 0.02, 0.80)
    assert two["time"] is None and two["cpu"] is None       # 2 % at a 2 % threshold: never
    # at the default threshold (1.5 %) a 2 % slowdown can be seen, and significance, not the
    # threshold, sets the pairs it needs: as many as with no threshold at all
    two_default = calibration.pairs_needed(0.04 * math.sqrt(2), 0.02, 0.80, level, stats.DEFAULT_THRESHOLD)
    assert two_default is not None and two_default == calibration.pairs_needed(0.04 * math.sqrt(2), 0.02, 0.80, level, 0.0)
    exact = calibration.pairs_needed(0.04 * math.sqrt(2), 0.05, 0.95, level, 0.02)
    assert 45 <= exact <= 60 and five["time"] == pytest.approx(exact, rel=0.25)
    half = calibration.pairs_needed(0.04 * math.sqrt(2), 0.05, 0.5, level, 0.02)

    def detected(pairs):
        fam = calibration.family_result(spec, 1.05, _rounds(rng, 1.05, n_rounds=60, runs=pairs, sigma=0.04),
                                        alpha=0.01, threshold=0.02, tests=tests)
        return fam["ab"]["rate"]
    assert detected(exact) >= 0.88
    assert 0.3 <= detected(half) <= 0.75
    # the signed-rank test's own floor: never fewer pairs than can reach the level
    assert calibration.pairs_needed(1e-4, 0.05, 0.95, level, 0.02) == 16


def test_load_rejects_other_files(tmp_path):
    p = tmp_path / "c.json"
    p.write_text("{}")
    with pytest.raises(BenchError, match="not a calibration file"):
        calibration.load(p)
    p.write_text("nope")
    with pytest.raises(BenchError, match=str(p)):
        calibration.load(p)
    with pytest.raises(BenchError, match="no such"):
        calibration.load(tmp_path / "missing.json")


def test_calibrate_command_on_the_real_program(tmp_path, tmp_path_factory, capsys):
    """A tiny real calibration: 2 repeats x 3 runs of one cheap family; checks the
    document, not the rates (too few rounds to mean anything)."""
    build_dir = tmp_path_factory.getbasetemp() / "gobuild"
    if not built_gobench(str(build_dir)):
        pytest.skip("go is not installed")
    out = tmp_path / "calibration.json"
    rc = cli.main(["calibrate", "--preset", "smoke", "--scenario", "cpu", "--lang", "go", "--per-scenario", "1",
                   "--repeats", "2", "--runs", "3", "--max-runs", "3", "--factor", "1.5", "--inject", "size",
                   "--builds", str(build_dir), "--out", str(out)])
    assert rc == 0
    doc = calibration.load(out)
    assert doc["runs"] == 3 and doc["repeats"] == 2 and doc["factor"] == 1.5 and doc["inject"] == "size"
    (fam,) = doc["families"]
    assert fam["scenario"] == "cpu" and fam["effective_factor"] == 1.5
    assert fam["aa"]["comparisons"] == fam["ab"]["comparisons"] == 2
    assert len(fam["aa"]["ratios"]) == 2 and fam["median_wall_s"] > fam["median_window_s"] > 0
    # what x1.5 really made of the window (at smoke size a fixed cost dominates: ~+7 % seen)
    assert set(fam["realised"]) == {"time", "cpu"} and fam["realised"]["time"] > 0
    # 3+3 runs (fixed: --max-runs 3) cannot reach p < 0.01: every comparison is "too few
    # samples", never a flag
    assert fam["aa"]["flagged"] == 0 and fam["ab"]["flagged"] == 0
    assert json.loads(out.read_text())["summary"]["aa_comparisons"] == 2
    # Printed to a log, not a terminal: the family's name keeps its room in both tables
    # (the first one used to fold it into pieces of ten characters).
    printed = capsys.readouterr().out
    assert sum(fam["id"] in line for line in printed.splitlines()) == 2, printed


def test_calibrate_stretches_the_window_exactly(tmp_path, tmp_path_factory):
    """The default injection: B is A run with --stretch F, each window held open to F
    times its length. At smoke size x1.5 in size realises much less of the window (its
    fixed part does not grow: above); a stretch realises F, whatever the window holds.
    On the quick preset: the smoke preset's cpu windows last a quarter of a millisecond,
    and ten pairs of those gave a median ratio of 1.67-1.73 in 2 of 12 tries."""
    build_dir = tmp_path_factory.getbasetemp() / "gobuild"
    if not built_gobench(str(build_dir)):
        pytest.skip("go is not installed")
    out = tmp_path / "calibration.json"
    rc = cli.main(["calibrate", "--preset", "quick", "--scenario", "cpu", "--lang", "go", "--per-scenario", "1",
                   "--repeats", "2", "--runs", "5", "--max-runs", "5", "--factor", "1.5", "--builds", str(build_dir),
                   "--out", str(out)])
    assert rc == 0
    doc = calibration.load(out)
    (fam,) = doc["families"]
    assert doc["inject"] == "window" and fam["effective_factor"] == 1.5
    # the median pair ratio of 10 pairs: 1.5 x the ratio of two runs of A (a few %)
    assert 1.35 < fam["realised"]["time"] < 1.65, fam["realised"]
    # the spin is CPU time inside the window: a third of B's window, on one thread
    assert fam["realised"]["cpu"] > 1.1, fam["realised"]
    assert calibration.stretch_argv(1.05) == ["--stretch", "1.05"]
    for bad in (1.0, 0.95, 2.5, float("nan")):
        with pytest.raises(BenchError):
            calibration.stretch_argv(bad)


def test_calibrate_usage_errors(tmp_path):
    assert cli.main(["calibrate", "--repeats", "0", "--out", str(tmp_path / "c.json")]) == 2
    assert cli.main(["calibrate", "--factor", "1", "--out", str(tmp_path / "c.json")]) == 2
    assert cli.main(["calibrate", "--runs", "2", "--out", str(tmp_path / "c.json")]) == 2
    # a window can be held open, not shortened; and no more than doubled
    assert cli.main(["calibrate", "--factor", "0.95", "--out", str(tmp_path / "c.json")]) == 2
    assert cli.main(["calibrate", "--factor", "2.5", "--out", str(tmp_path / "c.json")]) == 2
    with pytest.raises(SystemExit) as exit_:   # argparse's own choice check
        cli.main(["calibrate", "--inject", "other", "--out", str(tmp_path / "c.json")])
    assert exit_.value.code == 2


def _fam(aa, ab):
    """A family from (ratio, p) lists for A/A and A/B (wall time; CPU time the same)."""
    def rates(pairs):
        return {"comparisons": len(pairs), "flagged": 0, "ratios": [r for r, _ in pairs],
                "p_values": [p for _, p in pairs]}
    return {"aa": rates(aa), "ab": rates(ab), "aa_cpu": rates(aa), "ab_cpu": rates(ab)}


def test_threshold_replay_and_recommendation():
    # A/A: 3 of 100 comparisons significant with a 2.5 % difference (a drifting runner)
    aa = [(1.025, 0.005)] * 3 + [(1.0, 0.5)] * 97
    ab = [(1.05, 0.005)] * 90 + [(1.05, 0.05)] * 10
    table = calibration.threshold_table([_fam(aa, ab)], alpha=0.01)
    at = {r["threshold"]: r for r in table}
    assert at[0.02]["false_alarm_rate"] == 0.03 and at[0.03]["false_alarm_rate"] == 0
    assert at[0.03]["detection_rate"] == 0.9 and at[0.05]["detection_rate"] == 0.9 and at[0.075]["detection_rate"] == 0
    assert calibration.replay([_fam(aa, ab)["aa"]], 0.001, 0.02, False) == (0, 100)
    s = calibration.summarise([_fam(aa, ab)], 1.05, 0.01, stats.DEFAULT_THRESHOLD)
    assert s["recommended"]["threshold"] == 0.03          # the smallest with <= 1 % false alarms
    quiet = calibration.summarise([_fam([(1.0, 0.5)] * 100, ab)], 1.05, 0.01, stats.DEFAULT_THRESHOLD)
    assert quiet["recommended"]["threshold"] == stats.DEFAULT_THRESHOLD   # never below the default
    old = calibration.summarise([{"aa": {"comparisons": 1, "flagged": 0, "ratios": [1.0]},
                                  "ab": {"comparisons": 1, "flagged": 0, "ratios": [1.0]}}], 1.05, 0.01, 0.04)
    assert old["by_threshold"] is None and old["recommended"]["threshold"] == 0.04


def test_catalogue_refuses_a_scale_that_is_not_a_number(tmp_path):
    text = catalogue.CATALOGUE_PATH.read_text(encoding="utf-8")
    unknown = text.replace('scale = "max_sleep_ms"', 'scale = "no-such-param"')
    enum = text.replace('scale = "items"\nvariants.go = ["spawn"', 'scale = "shape"\nvariants.go = ["spawn"')
    assert unknown != text and enum != text
    for changed in (unknown, enum):
        broken = tmp_path / "catalogue.toml"
        broken.write_text(changed, encoding="utf-8")
        with pytest.raises(BenchError, match="scale parameter"):
            catalogue.load(broken)


def test_calibrate_takes_the_head_program_bench_build_made_last(tmp_path):
    """The manifest keeps every toolchain built into it, newest last: a head build of
    `stable` from an older commit listed first must not be what is calibrated (it was,
    until this was found: calibrate measured go1.27.4 programs of an older commit)."""
    import dataclasses

    from benchpipe import toolchains
    from benchpipe.commands.calibrate import programs_to_calibrate
    from benchpipe.fsutil import atomic_write_json

    def built(build, request, label, commit):
        exe = tmp_path / label / request / build
        exe.parent.mkdir(parents=True, exist_ok=True)
        exe.write_bytes(b"")
        return toolchains.Built(build, "go", "gobench", "go1.x", request, "v", str(exe), label, commit)

    # as a manifest merged before write_manifest dropped a label's older commits reads
    entries = [built("go", "stable", "head", "old"), built("rust-system", "1.90.0", "head", "old"),
               built("go", "local", "base", "base"), built("go", "local", "head", "new"),
               built("rust-system", "stable", "head", "new"), built("rust-system", "beta", "head", "newer")]
    atomic_write_json(tmp_path / "manifest.json",
                      {"schema": toolchains.MANIFEST_SCHEMA, "builds": [dataclasses.asdict(b) for b in entries]})
    got = programs_to_calibrate(tmp_path)
    assert (got["go"].request, got["go"].commit) == ("local", "new")            # local wins over a later non-local
    assert (got["rust-system"].request, got["rust-system"].commit) == ("beta", "newer")   # no local: the newest
    (tmp_path / "head" / "local" / "go").unlink()                               # a program gone: the next best
    assert programs_to_calibrate(tmp_path)["go"].request == "stable"


def test_calibrate_skips_what_the_programs_were_built_without_before_anything_runs(tmp_path, capsys):
    """`bench run --scenario cpu` builds the lean programs only (no SQL); a later
    calibrate of the whole preset skips the SQL families up front, saying why and what
    to do, instead of failing at their turn after the others had run (nothing kept)."""
    from benchpipe import toolchains
    from benchpipe.fsutil import atomic_write_json

    exe = tmp_path / "gobench"
    exe.write_bytes(b"")
    lean = toolchains.Built("go", "go", "gobench", "go1.x", "local", "v", str(exe), "head", "c",
                            without=["sqlite", "mysql", "postgres"])
    atomic_write_json(tmp_path / "manifest.json", {"schema": toolchains.MANIFEST_SCHEMA,
                                                   "builds": [toolchains._entry(lean)]})
    rc = cli.main(["calibrate", "--preset", "smoke", "--scenario", "sqlite", "--lang", "go",
                   "--builds", str(tmp_path), "--out", str(tmp_path / "c.json")])
    err = capsys.readouterr().err
    assert rc != 0 and "built without the one that runs sqlite" in err and "bench build` without --scenario" in err
    assert "nothing to calibrate" in err and not (tmp_path / "c.json").exists()


def test_the_report_says_how_the_calibration_made_b_slower():
    from benchpipe.report.compare_md import calibration_sentence
    rates = {"comparisons": 90, "flagged": 45, "rate": 0.5}
    doc = {"factor": 1.05, "runs": 10, "timestamp": "2026-11-26T06:00:00Z", "families": [{}] * 18,
           "summary": {"false_alarm_rate": 0.0, "detection_rate": 0.5, "aa_comparisons": 90, "ab_comparisons": 90,
                       "report": {"false_alarms": {**rates, "flagged": 0, "rate": 0.0}, "detections": rates}}}
    window = calibration_sentence({**doc, "inject": "window"})
    assert "a timed window held open 5 % longer flagged as a regression" in window and "heavier" not in window
    for older in (doc, {**doc, "inject": "size"}):          # files written before --inject: sizes
        size = calibration_sentence(older)
        assert "a 5 % heavier workload flagged as a regression" in size and "held open" not in size
    assert "not been calibrated" in calibration_sentence(None)


def test_calibrate_counts_instructions_on_the_real_program(tmp_path, tmp_path_factory, capsys):
    """`--signal instructions`: Go cpu (a count steady to 0.01-0.02 %, beside a busy
    neighbour too) counted 2 x 9 times under real Valgrind, 3 reports of 5 runs a side
    drawn: the A/A flags nothing and 1 % more instructions is flagged in every report, even
    as a lone change among the report's tests; nothing is written to calibration.json,
    which `compare` reads. (While its buffer was allocated inside the window, the count
    came in two modes 0.2 % apart beside a busy neighbour, robust CV 0.12 % in CI, and a
    lone 1 % was missed in one report of three.)"""
    if platform.system() != "Linux":
        pytest.skip("Valgrind runs on Linux only here")
    if not tools.which("valgrind"):
        unavailable("valgrind not installed (apt-get install valgrind)",
                    "valgrind not installed: install-tools.sh installs it on Linux")
    build_dir = tmp_path_factory.getbasetemp() / "gobuild"
    if not built_gobench(str(build_dir)):
        pytest.skip("go is not installed")
    out = tmp_path / "instructions.json"
    rc = cli.main(["calibrate", "--preset", "quick", "--scenario", "cpu", "--lang", "go", "--per-scenario", "1",
                   "--signal", "instructions", "--count-runs", "9", "--repeats", "3", "--builds", str(build_dir),
                   "--out", str(tmp_path / "calibration.json"), "--instructions-out", str(out)])
    assert rc == 0
    assert not (tmp_path / "calibration.json").exists()
    doc = json.loads(out.read_text())
    assert doc["schema"] == calibration_instructions.SCHEMA and doc["count_runs"] == 9
    (fam,) = doc["families"]
    assert fam["scenario"] == "cpu" and fam["judged"] and len(fam["counts"]["a"]) == len(fam["counts"]["a2"]) == 9
    # counted at the pass's sizes, not the timed runs'
    assert fam["counted_params"] == {"items": 200000} and fam["params"]["items"] != 200000
    assert fam["median"] > 1e6 and fam["cv"] < 0.001 and fam["scatter"] < 0.001 and fam["judged_draws"] == 3
    # 9 counts a copy: no second look drawn (it needs twice the 5 a report draws)
    assert fam["aa"] == {"lone": 0, "together": 0, "topped": 0}
    assert fam["x1.01"] == {"lone": 3, "together": 3, "topped": 0}
    r = doc["report"]
    assert r["aa_reports"] == 0 and r["x1.01_lone"] == {"comparisons": 3, "flagged": 3}
    printed = capsys.readouterr().out
    assert fam["id"] in printed and "+1 %" in printed and "a lone change flagged: +1 % 3/3" in printed


def test_calibrate_instruction_usage_errors(tmp_path, capsys):
    out = str(tmp_path / "i.json")
    # the runs a report draws must be counted; the smoke preset's reports count none
    assert cli.main(["calibrate", "--signal", "instructions", "--count-runs", "3", "--instructions-out", out]) == 2
    drawn = catalogue.load().preset("quick").instruction_runs
    assert f"--count-runs must be at least the runs a report draws a side ({drawn})" in capsys.readouterr().err
    assert cli.main(["calibrate", "--preset", "smoke", "--signal", "instructions", "--instructions-out", out]) == 2
    assert "has no instruction pass" in capsys.readouterr().err


def test_instruction_calibration_judges_lone_and_together():
    """calibration_instructions.judge on drawn counts: a steady family (0.05 %) is flagged
    at 1 % and 0.5 % in every report, lone or together, and never in A/A; one at 0.2 %
    is counted a second time at 0.5 % (its first look suggestive, not decisive) and then
    seen alone too; one at 2 % (robust CV of 28 draws: 1.6 %) and a declared
    unsteady one are not deterministic and say why, and a declared one whose counts are
    deterministic after all says the declaration can go; declared ones cost a pull request
    nothing (bench run does not count them), nor does a family whose pass failed, listed
    without counts."""
    ci = calibration_instructions
    rng = random.Random(5)

    def fam(name, cv, unsteady=None):
        draw = [round(1e8 * (1 + rng.gauss(0, cv))) for _ in range(28)]
        return {"id": name, "seconds_per_run": 0.5, "a": draw[:14], "a2": draw[14:], "unsteady": unsteady}
    families = [fam(f"steady{i}", 0.0005) for i in range(20)] + [fam("mid", 0.002), fam("loose", 0.02),
                                                                 fam("declared", 0.0001, "sysmon hands over"),
                                                                 fam("declared-loose", 0.02, "the pool wakes"),
                                                                 {"id": "failed", "warnings": ["exit codes [1]"]}]
    got = ci.judge(families, 7, 20, tests=300)
    by = {f["id"]: f for f in got["families"]}
    for i in range(20):
        f = by[f"steady{i}"]
        assert f["judged"] and f["judged_draws"] == 20 and f["aa"]["lone"] == f["aa"]["together"] == 0
        assert f["x1.01"]["lone"] == f["x1.01"]["together"] == 20 and f["x1.005"]["together"] == 20
        assert f["x1.01"]["topped"] == 0   # decisive at the first look: no second
    # 14 counts a copy: a pair whose first look was suggestive is counted again, and the
    # second look sees 0.5 % alone as well as when every family changed with it
    mid = by["mid"]["x1.005"]
    assert mid["topped"] >= 15 and mid["lone"] >= 15 and mid["together"] >= mid["lone"], mid
    assert got["report"]["x1.005_topped"]["topped"] >= mid["topped"]
    assert not by["loose"]["judged"] and "not deterministic (CV 1." in by["loose"]["why"] and by["loose"]["scatter"] > 0.01
    assert by["loose"]["judged_draws"] < 20
    assert not by["declared"]["judged"] and "yet deterministic" in by["declared"]["why"]
    assert "drop the declaration" in by["declared"]["why"] and by["declared"]["judged_draws"] == 0
    assert not by["declared-loose"]["judged"] and "the pool wakes" in by["declared-loose"]["why"]
    assert "counts" not in by["failed"] and "tries" not in by["failed"]
    r = got["report"]
    assert r["judged"] == 21 and r["aa_reports"] == 0 and r["x1.01_together"]["comparisons"] == 21 * 20
    assert r["pass_s_a_side"] == pytest.approx(0.5 * 22 * 7)
