"""`bench compare`: pairing of benchmarks (two files, labels, toolchains, builds, scaled
runs), missing and failed sides, the Markdown and JSON reports, exit codes."""

import json
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from benchpipe import cli, results, stats
from benchpipe.compare import FAILED, MISSING, Settings, compare_docs, toolchain_order
from benchpipe.errors import UsageError
from benchpipe.report import compare_md
from benchpipe.report.md import escape
from compare_helpers import bench, doc, key

# 10 runs a side: 5+5 can reach p < 0.01 for one test, not after the correction across
# the tests of a report (multitest).
SAME = (1.0, 1.01, 0.99, 1.0, 1.02) * 2
SLOW = (1.2, 1.21, 1.19, 1.2, 1.22) * 2


def write(tmp_path, name, d):
    path = tmp_path / name
    results.write(path, d)
    return path


def by_id(report):
    return {c.id: c for c in report.comparisons}


def test_two_files_regression_missing_failed(tmp_path):
    k1, k2, k3, k4 = key(tasks=16), key(tasks=32), key(tasks=64), key(tasks=128)
    a = doc([bench(k1), bench(k2), bench(k3), bench(k4, status="failed", reason="exit 1: out of files")])
    b = doc([bench(k1, wall=SLOW), bench(k2), bench(k4, wall=SAME)])
    r = compare_docs([a, b], ["a.json", "b.json"])
    assert r.mode == "files"
    got = by_id(r)
    assert got[results.key_id(k1)].verdict == stats.REGRESSION
    assert got[results.key_id(k2)].verdict == stats.NO_CHANGE
    assert got[results.key_id(k3)].verdict == MISSING and "b.json" in got[results.key_id(k3)].note
    assert got[results.key_id(k4)].verdict == FAILED and "out of files" in got[results.key_id(k4)].note
    assert r.comparisons[0].verdict == stats.REGRESSION  # worst first
    assert [c.id for c in r.regressions] == [results.key_id(k1)]


def test_skipped_on_one_side():
    k = key()
    r = compare_docs([doc([bench(k, status="skipped", reason="no MySQL server")]), doc([bench(k)])], ["a", "b"])
    (c,) = r.comparisons
    assert c.verdict == "skipped" and "skipped in a: no MySQL server" == c.note and not c.flagged


def test_missing_on_the_base_side(tmp_path):
    k1, k2 = key(tasks=16), key(tasks=32)
    r = compare_docs([doc([bench(k1)]), doc([bench(k1), bench(k2)])], ["base", "head"])
    c = by_id(r)[results.key_id(k2)]
    assert c.verdict == MISSING and "base" in c.note and not c.metrics


def test_memory_regression_alone_flags_the_benchmark():
    k = key()
    r = compare_docs([doc([bench(k, rss=[10_000_000] * 10)]), doc([bench(k, rss=[13_000_000] * 10)])], ["a", "b"])
    c = r.comparisons[0]
    assert c.metrics["time"].verdict == stats.NO_CHANGE
    assert c.metrics["memory"].verdict == stats.REGRESSION
    assert c.verdict == stats.REGRESSION


def test_cpu_time_is_compared():
    k = key()
    r = compare_docs([doc([bench(k, user=SAME)]), doc([bench(k, user=SLOW)])], ["a", "b"])
    c = r.comparisons[0]
    assert c.metrics["cpu"].verdict == stats.REGRESSION and c.metrics["cpu"].ratio == pytest.approx(1.2)
    assert c.metrics["time"].verdict == stats.NO_CHANGE
    assert c.verdict == stats.REGRESSION


def test_labels_in_one_file():
    base, head = key(label="base"), key(label="head")
    d = doc([bench(base), bench(head, wall=SLOW)], labels={"base": "b" * 40, "head": "c" * 40})
    r = compare_docs([d], ["ab.json"])
    assert r.mode == "labels"
    (c,) = r.comparisons
    assert (c.base, c.head, c.verdict) == ("base", "head", stats.REGRESSION)
    assert c.id == results.key_id(key())  # the id without the label


def test_toolchain_order():
    order = sorted(["nightly", "rust1.95.0", "beta", "rust1.90.0", "stable"], key=toolchain_order)
    assert order == ["rust1.90.0", "rust1.95.0", "stable", "beta", "nightly"]
    assert sorted(["go1.26.8", "go1.25.5", "go1.26rc1", "go1.9.1"], key=toolchain_order) == \
        ["go1.9.1", "go1.25.5", "go1.26rc1", "go1.26.8"]
    assert sorted(["rust1.97.0-nightly", "rust1.96.0-beta.2", "rust1.95.0"], key=toolchain_order) == \
        ["rust1.95.0", "rust1.96.0-beta.2", "rust1.97.0-nightly"]


def test_toolchains_in_one_file_newer_against_older():
    # written newest first, to show the order comes from the versions, not the file
    g_new, g_old = key(toolchain="go1.26.8"), key(toolchain="go1.25.5")
    r_old = key(scenario="cpu", variant="tokio", build="rust-system", toolchain="rust1.90.0")
    r_mid = key(scenario="cpu", variant="tokio", build="rust-system", toolchain="rust1.95.0")
    r_new = key(scenario="cpu", variant="tokio", build="rust-system", toolchain="rust1.97.0-nightly")
    d = doc([bench(g_new, wall=SLOW), bench(g_old), bench(r_new), bench(r_mid, wall=SLOW), bench(r_old, wall=SLOW)])
    r = compare_docs([d], ["tc.json"])
    assert r.mode == "toolchains"
    pairs = {(c.base, c.head): c.verdict for c in r.comparisons}
    assert pairs == {("go1.25.5", "go1.26.8"): stats.REGRESSION,
                     ("rust1.90.0", "rust1.95.0"): stats.NO_CHANGE,
                     ("rust1.95.0", "rust1.97.0-nightly"): stats.IMPROVEMENT}


def test_two_files_with_different_toolchains_pair_by_family():
    old, new = key(toolchain="go1.25.5"), key(toolchain="go1.26.8")
    r = compare_docs([doc([bench(old)]), doc([bench(new, wall=SLOW)])], ["old", "new"])
    (c,) = r.comparisons
    assert c.verdict == stats.REGRESSION


def test_builds_named_with_base_and_head():
    sysk = key(scenario="cpu", variant="tokio", build="rust-system", toolchain="rust1.95.0")
    mik = key(scenario="cpu", variant="tokio", build="rust-mimalloc", toolchain="rust1.95.0")
    d = doc([bench(sysk, wall=SLOW), bench(mik), bench(key())])
    r = compare_docs([d], ["f"], base="rust-system", head="rust-mimalloc")
    assert r.mode == "builds"
    (c,) = r.comparisons
    assert (c.base, c.head, c.verdict) == ("rust-system", "rust-mimalloc", stats.IMPROVEMENT)


def test_one_file_without_sides_is_a_usage_error():
    with pytest.raises(UsageError, match="nothing to compare"):
        compare_docs([doc([bench(key())])], ["one.json"])
    with pytest.raises(UsageError, match="not two labels"):
        compare_docs([doc([bench(key())])], ["one.json"], base="x", head="y")


def test_scaled_head_pairs_with_the_scaled_keys():
    base = key(scenario="cpu", variant="goroutines", tasks=16, items=1000000, threads=1)
    head = key(scenario="cpu", variant="goroutines", tasks=16, items=1500000, threads=1)  # cpu scales items
    r = compare_docs([doc([bench(base)]), doc([bench(head, wall=SLOW)])], ["a", "b"], head_scale=1.5)
    (c,) = r.comparisons
    assert c.verdict == stats.REGRESSION and r.head_scale == 1.5
    # the scale can come from env.scale (written by `run --scale`)
    da, db = doc([bench(base)]), doc([bench(head, wall=SLOW)])
    db["env"]["scale"] = 1.5
    assert compare_docs([da, db], ["a", "b"]).comparisons[0].verdict == stats.REGRESSION


NASTY = "x|y`z<script>alert(1)</script>&*_[a](b)@here\n# h"


def test_markdown_report_order_marker_and_escaping():
    k_reg, k_ok, k_fail = key(tasks=16, shape=NASTY), key(tasks=32), key(tasks=64)
    a = doc([bench(k_reg), bench(k_ok), bench(k_fail)])
    b = doc([bench(k_reg, wall=SLOW), bench(k_ok), bench(k_fail, status="failed", reason=NASTY)])
    b["env"]["runner"] = NASTY
    md = compare_md.render(compare_docs([a, b], ["a", "b"]))
    assert md.splitlines()[0] == compare_md.MARKER
    assert md.index("### Flagged") < md.index("### Failed, missing or skipped") < md.index("<details>")
    # nothing from input acts: rendered by GitHub's renderer, no tag, link, code or mention
    assert escape(NASTY) in md
    html = cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE)
    for raw in ("<script", "<a ", "@here", "<code>x"):
        assert raw not in html, raw
    # every table row has as many cells as its header
    for block in re.findall(r"((?:^\|.*\|$\n?)+)", md, flags=re.M):
        rows = block.strip().splitlines()
        assert len({len(re.findall(r"(?<!\\)\|", r)) for r in rows}) == 1, rows
    flagged_row = next(line for line in md.splitlines() if "regression" in line and line.startswith("|"))
    assert "1.200" in flagged_row and "10+10" in flagged_row and "9.4e-04" in flagged_row  # p corrected
    assert "p < 0.01" in md and "not been calibrated" in md


def test_markdown_states_calibration():
    cal = {"schema": "gorust-bench.calibration/1", "timestamp": "2026-11-22T03:00:00Z", "factor": 1.05, "runs": 5,
           "machine": {"runner": "ci-1", "cpu_model": "EPYC"}, "families": [{}] * 6,
           "summary": {"false_alarm_rate": 0.003, "detection_rate": 0.97, "aa_comparisons": 300,
                       "ab_comparisons": 300, "detectable_change": 0.025, "recommended": {"alpha": 0.01, "threshold": 0.025}}}
    md = compare_md.render(compare_docs([doc([bench(key())]), doc([bench(key())])], ["a", "b"], calibration=cal))
    assert "0.3% of 300 A/A" in md and "97.0% of 300" in md and "5 % heavier" in md
    assert "5 % and more are reliably flagged" in md and "CPU time: " not in md
    cal["summary"]["cpu"] = {"false_alarms": {"rate": 0.0025}, "detections": {"rate": 0.19}}
    md = compare_md.render(compare_docs([doc([bench(key())]), doc([bench(key())])], ["a", "b"], calibration=cal))
    assert "CPU time: 0.2% false alarms, 19.0% detected" in md
    cal["summary"]["detection_rate"] = 0.6
    md = compare_md.render(compare_docs([doc([bench(key())]), doc([bench(key())])], ["a", "b"], calibration=cal))
    assert "missed 40% of the time" in md
    # a calibration that counted the report's view of a benchmark: that is the headline
    cal["summary"]["report"] = {"false_alarms": {"comparisons": 100, "flagged": 0, "rate": 0.0},
                                "detections": {"comparisons": 100, "flagged": 96, "rate": 0.96}}
    md = compare_md.render(compare_docs([doc([bench(key())]), doc([bench(key())])], ["a", "b"], calibration=cal))
    assert "flagged (on any metric) in 0.0% of 100 A/A" in md
    assert "flagged as a regression (timed window or CPU time) in 96.0% of 100" in md
    assert "Timed window alone: false alarms in 0.3% of 300" in md and "flagged in 60.0% of 300" in md
    assert "5 % and more are reliably flagged" in md and "missed" not in md


def test_escape():
    assert escape("a|b") == "a\\|b"
    assert escape("<b>&") == "\\<b\\>\\&"
    assert "\n" not in escape("a\nb")


# ---------------------------------------------------------------- the command

def test_cli_outputs_and_fail_on_regression(tmp_path, capsys):
    k = key()
    a = write(tmp_path, "a.json", doc([bench(k)]))
    b = write(tmp_path, "b.json", doc([bench(k, wall=SLOW)]))
    md, js = tmp_path / "out.md", tmp_path / "out.json"
    argv = ["compare", str(a), str(b), "--markdown", str(md), "--json", str(js), "--calibration", "none"]
    assert cli.main(argv) == 0
    assert cli.main(argv + ["--fail-on-regression"]) == 1
    assert cli.main(["compare", str(a), str(a), "--fail-on-regression", "--calibration", "none"]) == 0
    out = json.loads(js.read_text())
    assert out["schema"] == "gorust-bench.compare/1" and out["counts"]["regression"] == 1
    (bj,) = out["benchmarks"]
    assert bj["verdict"] == "regression" and bj["metrics"]["time"]["ratio"] == pytest.approx(1.2)
    assert bj["metrics"]["time"]["n_base"] == 10 and 0 < bj["metrics"]["time"]["p_value"] < 0.01
    assert bj["metrics"]["time"]["p_value"] <= bj["metrics"]["time"]["p_adjusted"] < 0.01
    assert md.read_text().startswith(compare_md.MARKER)
    assert "regression" in capsys.readouterr().out


def test_cli_thresholds_and_calibration_defaults(tmp_path):
    k = key()
    a = write(tmp_path, "a.json", doc([bench(k)]))
    b = write(tmp_path, "b.json", doc([bench(k, wall=SLOW)]))
    js = tmp_path / "o.json"
    assert cli.main(["compare", str(a), str(b), "--threshold", "0.5", "--json", str(js), "--calibration", "none",
                     "--fail-on-regression"]) == 0
    cal = tmp_path / "cal.json"
    cal.write_text(json.dumps({"schema": "gorust-bench.calibration/1",
                               "summary": {"recommended": {"alpha": 0.05, "threshold": 0.4}}}))
    cli.main(["compare", str(a), str(b), "--json", str(js), "--calibration", str(cal)])
    settings = json.loads(js.read_text())["settings"]
    assert settings["alpha"] == 0.05 and settings["threshold"]["time"] == 0.4


def test_cli_bad_inputs_are_one_line_errors(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    good = write(tmp_path, "good.json", doc([bench(key())]))
    assert cli.main(["compare", str(bad), str(good)]) == 1
    err = capsys.readouterr().err.strip()
    assert str(bad) in err and "not JSON" in err and len(err.splitlines()) == 1
    assert cli.main(["compare", str(good)]) == 2  # one file, no sides: usage error
    assert cli.main(["compare", str(good), str(good), str(good)]) == 2
    badcal = tmp_path / "cal.json"
    badcal.write_text("[]")
    assert cli.main(["compare", str(good), str(good), "--calibration", str(badcal)]) == 1
    assert "not a calibration file" in capsys.readouterr().err


def test_settings_defaults_are_documented_values():
    s = Settings()
    assert (s.alpha, s.threshold) == (stats.DEFAULT_ALPHA, stats.DEFAULT_THRESHOLD)


def test_json_of_every_verdict_validates_against_the_schema(tmp_path):
    from benchpipe import schema
    ks = [key(tasks=t) for t in (1, 2, 3, 4, 5, 6)]
    a = doc([bench(ks[0]), bench(ks[1], status="failed"), bench(ks[2]), bench(ks[3], wall=[0.0] * 5),
             bench(ks[4], wall=[1.0, 1.1])])
    b = doc([bench(ks[0], wall=SLOW), bench(ks[1]), bench(ks[3]), bench(ks[4], wall=[1.0, 1.1]), bench(ks[5])])
    out = compare_docs([a, b], ["a", "b"]).to_json()
    assert schema.problems(out, "compare") == []
    verdicts = {x["verdict"] for x in out["benchmarks"]}
    assert verdicts == {"regression", "failed", "missing", "too few samples"}
    zero = next(x for x in out["benchmarks"] if x["key"]["params"]["tasks"] == 4)
    assert zero["metrics"]["time"]["ratio"] is None  # infinite ratio as null
