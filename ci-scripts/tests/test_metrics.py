"""The compared metrics are declared once (benchpipe/metrics.py) and every stage loops
over them. The proof: a metric registered here, in the test, and nowhere else (a
stand-in written before the real instruction counts of benchpipe/instructions.py, which
it replaces in the registry for these tests: its own unit and threshold, measured on
Linux only, absent from some benchmarks, read from the records) is judged by compare, calibrated, kept in the
history, searched for change points, shown on the Compiler versions page, charted and
put on the site. The one other file such a metric touches is the history's schema (its
name and the entry field of its summary), which the schema test below keeps equal to the
registry; the fixture makes that edit in a copy."""

from __future__ import annotations

import json
import math
import random
import shutil
from datetime import datetime, timedelta, timezone

import pytest

from benchpipe import calibration, catalogue, compare, history, metrics, schema, site, stats, trends, versions
from benchpipe.commands.compare import print_report
from benchpipe.report import compare_md
from devtools import synthetic


def _schemas():
    return {name: json.loads((schema.SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
            for name in ("history", "compare")}


def test_the_schemas_name_every_metric_and_its_summary_field():
    docs = _schemas()
    defs = docs["history"]["$defs"]
    assert defs["metric_name"]["enum"] == list(metrics.METRICS)
    entry = defs["entry"]["properties"]
    for m in metrics.METRICS.values():
        for f in m.fields:
            assert entry[f]["$ref"] == "#/$defs/stats", (m.name, f)
    versus = entry["versus"]["properties"]["metrics"]["propertyNames"]
    bench = docs["compare"]["$defs"]["benchmark"]["properties"]["metrics"]["propertyNames"]
    threshold = docs["compare"]["properties"]["settings"]["properties"]["threshold"]["propertyNames"]
    assert versus == {"$ref": "#/$defs/metric_name"}
    assert bench == threshold == {"$ref": "history.schema.json#/$defs/metric_name"}


def test_settings_and_the_registry_agree_on_the_thresholds():
    s = compare.Settings()
    for m in metrics.METRICS.values():
        assert s.threshold_for(m.name) == m.threshold, m.name


# ------------------------------------------------------------------ one more metric, declared only here

def _instructions(bench: dict) -> list[float]:
    return [float(r["instructions"]) for r in bench.get("records", ()) if "instructions" in r]


INSTRUCTIONS = metrics.Metric(
    "instructions", label="instructions", short="instr.", column="instructions",
    description="user-space instructions under Valgrind", reading="instruction counts (*instructions*)",
    unit="instructions", samples=_instructions, fields=("instructions",), threshold=0.005, optional=True)


@pytest.fixture
def instructions(monkeypatch, tmp_path):
    """The registry with INSTRUCTIONS in it, and the history schema as a developer adding
    it would edit it: its name, its summary field."""
    monkeypatch.setitem(metrics.METRICS, INSTRUCTIONS.name, INSTRUCTIONS)
    copy = tmp_path / "schemas"
    shutil.copytree(schema.SCHEMAS, copy)
    doc = json.loads((copy / "history.schema.json").read_text(encoding="utf-8"))
    doc["$defs"]["metric_name"]["enum"].append(INSTRUCTIONS.name)
    doc["$defs"]["entry"]["properties"][INSTRUCTIONS.fields[0]] = {"$ref": "#/$defs/stats"}
    (copy / "history.schema.json").write_text(json.dumps(doc), encoding="utf-8")
    caches = (schema._registry, schema._validator, schema._def_validator, schema._id)
    monkeypatch.setattr(schema, "SCHEMAS", copy)
    for cached in caches:
        cached.cache_clear()
    yield INSTRUCTIONS
    monkeypatch.undo()
    for cached in caches:
        cached.cache_clear()


def _count(doc: dict, factor=lambda key: 1.0, seed: int = 0) -> dict:
    """The doc's cpu benchmarks' records with an instruction count (0.05 % noise, times
    factor(key)); the other scenarios' without one, as a metric some benchmarks lack."""
    rng = random.Random(seed)
    for b in doc["benchmarks"]:
        if b["key"]["scenario"] != "cpu":
            continue
        for r in b["records"]:
            r["instructions"] = round(2e9 * factor(b["key"]) * (1 + rng.gauss(0, 0.0005)))
    return doc


def test_compare_judges_it_and_the_report_shows_it(instructions, capsys):
    keys = synthetic.keys_for("smoke", scenarios=["cpu", "sleep"])
    base = _count(synthetic.results_doc(keys, seed=1, runs=10), seed=1)
    head = _count(synthetic.results_doc(keys, seed=2, runs=10), lambda k: 1.02, seed=2)
    report = compare.compare_docs([base, head], ["base.json", "head.json"])
    cpu = [c for c in report.comparisons if c.key["scenario"] == "cpu"]
    sleep = [c for c in report.comparisons if c.key["scenario"] == "sleep"]
    assert cpu and sleep
    # a 2 % change in a figure that scatters 0.05 %, beyond its own 0.5 % threshold
    assert all(c.metrics["instructions"].verdict == stats.REGRESSION for c in cpu)
    assert all(c.verdict == stats.REGRESSION for c in cpu)
    # where it was not measured it is not judged, and the benchmark is judged on the rest
    assert not any("instructions" in c.metrics for c in sleep)
    assert all(c.verdict != stats.TOO_FEW and set(c.metrics) == {"time", "cpu", "memory"} for c in sleep)
    out = report.to_json()
    assert out["settings"]["threshold"]["instructions"] == 0.005
    schema.validate(out, "compare", "compare.json")
    md = compare_md.render(report)
    assert "instructions ratio" in md and "| instructions |" in md and " G instructions |" in md
    assert "±0.5 % for instruction counts (*instructions*)" in md
    print_report(report)
    assert "instructions ratio [CI]" in capsys.readouterr().out


def _bench(level: float, rng, runs: int = 10) -> dict:
    windows = [level * math.exp(rng.gauss(0, 0.01)) for _ in range(runs)]
    return {"id": "x", "key": {"scenario": "cpu"}, "status": "ok",
            "samples": {"wall_s": windows, "user_s": windows, "sys_s": [0.0] * runs, "peak_rss_bytes": [10**7] * runs},
            "records": [{"elapsed_s": w, "window_cpu_s": {"user": w, "sys": 0.0}, "peak_rss_bytes": 10**7,
                         "instructions": 2e9 * level * math.exp(rng.gauss(0, 0.0005))} for w in windows]}


def test_calibrate_judges_it(instructions):
    rng = random.Random(3)
    spec = next(iter(catalogue.load().benchmarks("quick", scenarios=["cpu"], langs=["go"])))
    rounds = [(_bench(1.0, rng), _bench(1.0, rng), _bench(1.05, rng)) for _ in range(10)]
    fam = calibration.family_result(spec, 1.05, rounds, alpha=0.01, threshold=0.02)
    assert fam["aa_instructions"]["comparisons"] == fam["ab_instructions"]["comparisons"] == 10
    assert fam["aa_instructions"]["flagged"] == 0 and fam["ab_instructions"]["flagged"] == 10
    assert fam["realised"]["instructions"] == pytest.approx(1.05, abs=0.002)
    assert fam["pair_scatter"]["instructions"] < 0.002
    assert "instructions" in fam["pairs_needed"][0]
    doc = calibration.document("quick", 10, 10, 1.05, 0.01, 0.02, [fam])
    assert doc["summary"]["instructions"]["detections"]["flagged"] == 10


def _night(day: int, keys) -> dict:
    """One night, go1.25.9 against go1.26.8 and two Rust versions: the newer Go runs 10 %
    more instructions, and from night 5 on 25 % more again (a change point)."""
    doc = synthetic.results_doc(keys, commit=f"{day:040x}", message=f"night {day}", runs=10, seed=day,
                                timestamp=datetime(2026, 3, 1, 2, tzinfo=timezone.utc) + timedelta(days=day))

    def factor(key):
        return (1.1 if key["toolchain"] == "go1.26.8" else 1.0) * (1.25 if day >= 5 and key["lang"] == "go" else 1.0)
    return _count(doc, factor, seed=day)


def test_history_change_points_compiler_versions_charts_and_site(instructions, tmp_path):
    keys = synthetic.keys_for("smoke", scenarios=["cpu", "sleep"],
                              toolchains={"go": ("go1.25.9", "go1.26.8"), "rust": ("rust1.94.1", "rust1.95.0")})
    docs = [(f"night {d}", _night(d, keys)) for d in range(10)]
    root = tmp_path / "history"
    history.add(root, docs, [compare.toolchain_verdicts(doc) for _, doc in docs])
    assert history.check(root) == []
    hist = history.load(root)
    cpu = [e for e in hist.entries if e["key"]["scenario"] == "cpu"]
    assert cpu and all(e["instructions"]["median"] > 1e9 for e in cpu)
    assert not any("instructions" in e for e in hist.entries if e["key"]["scenario"] == "sleep")

    model = trends.build(hist, catalogue.load(), detect=True)
    shifts = [r for r in model.regressions if r["metric"] == "instructions"]
    assert shifts and {r["lang"] for r in shifts} == {"go"} and {r["commit"] for r in shifts} == {f"{5:040x}"}
    assert all(r["ratio"] == pytest.approx(1.25, abs=0.01) for r in shifts)

    rows = versions.rows(model)["linux"]
    go_cpu = [r for r in rows if r["lang"] == "go" and r["scenario"] == "cpu"]
    assert go_cpu and all(r["metrics"]["instructions"]["ratio"] == pytest.approx(1.1, abs=0.01) for r in go_cpu)
    assert all(r["metrics"]["instructions"]["ratio"] is None for r in rows if r["scenario"] == "sleep")

    out = tmp_path / "site"
    rep = site.render(root, out, jobs=2, keep_chart_sources=tmp_path / "chart-sources")
    data = json.loads((out / "data/cpu.js").read_text().split(" = ", 2)[2].rstrip().rstrip(";"))
    assert "instructions" in [m["name"] for m in data["metrics"]]
    assert all(r["values"]["instructions"][0] > 1e9 for r in data["rows"])
    sleep = json.loads((out / "data/sleep.js").read_text().split(" = ", 2)[2].rstrip().rstrip(";"))
    assert all(r["values"]["instructions"] is None for r in sleep["rows"])
    assert ">instructions</th>" in (out / "scenario-cpu.html").read_text()
    assert "<th>instr. ratio</th>" in (out / "compilers.html").read_text()
    changes = (out / "regressions.html").read_text()
    assert "<td>instructions</td>" in changes and " G instructions → " in changes
    # charted: a panel of the bars and of the trends; sleep, which lacks it, gets no size chart of it
    bars = [c for c in rep.charts["bars"] if c.startswith("cpu/bars-linux-")]
    assert bars and "instructions (G instructions)" in (out / f"charts/{bars[0]}.svg").read_text()
    trend = next(c for c in rep.charts["trend"] if c.startswith("cpu/trend-linux-"))
    assert ": instructions (median, band: 95% CI)" in (out / f"charts/{trend}.svg").read_text()
    assert "sleep/size-linux-time" in rep.charts["size"] and "sleep/size-linux-instructions" not in rep.charts["size"]
    # and an overview column of it, Go against Rust
    index = (out / "index.html").read_text()
    assert "<th>instr.</th>" in index and "Go's instr." in index
