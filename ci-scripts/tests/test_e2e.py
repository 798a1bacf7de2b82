"""End to end: `bench run --preset smoke` with the real programs and real hyperfine
(the database scenarios against the session's servers), then the outputs checked
against their contracts."""

from __future__ import annotations

import json
import math
import re
from collections import Counter

import pytest

from benchpipe import measures, results, runner
from conftest import run_bench


@pytest.fixture(scope="module")
def smoke_run(programs, servers, build_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("smoke") / "out"
    res = run_bench("run", "--preset", "smoke", "--build-dir", build_dir, "--out", out,
                    env={**servers.env(), "CI": "true"})
    return res, out


def test_smoke_run_succeeds(smoke_run, cat):
    res, out = smoke_run
    assert res.returncode == 0, res.stderr[-3000:]
    doc = results.load(out / "results.json")  # schema, unique ids, ids match keys
    expected = cat.benchmarks("smoke")
    assert len(doc["benchmarks"]) == len(expected)
    assert Counter(b["key"]["scenario"] for b in doc["benchmarks"]) == Counter(s.scenario.name for s in expected)
    for b in doc["benchmarks"]:
        assert b["status"] == "ok", (b["id"], b.get("reason"))
        # the declared parity (catalogue `parity`) holds for every pair built the pipeline's way
        assert measures.PARITY_BROKEN not in b.get("reason", ""), (b["id"], b["reason"])
        n = cat.presets["smoke"].runs
        assert len(b["records"]) == n
        for k in ("wall_s", "user_s", "sys_s", "peak_rss_bytes"):
            assert len(b["samples"][k]) == n, (b["id"], k)
        # The records are the benchmark's own: right scenario, variant, build, params.
        for r in b["records"]:
            assert (r["scenario"], r["variant"], r["build"]) == (b["key"]["scenario"], b["key"]["variant"], b["key"]["build"])
            assert r["toolchain"] == b["key"]["toolchain"]
            for p, v in b["key"]["params"].items():
                assert r["params"][p] == v, (b["id"], p)
        # The program never reports more than hyperfine saw (hyperfine's figure is a
        # running maximum over the invocation's runs, so it may be larger), and where
        # hyperfine's maximum rose, that run set it: the two agree there.
        hfs, own = b["samples"]["peak_rss_bytes"], [r["peak_rss_bytes"] for r in b["records"]]
        for i, (hf, mine) in enumerate(zip(hfs, own)):
            assert mine - hf <= max(runner.MEM_TOLERANCE_REL * mine, runner.MEM_TOLERANCE_ABS), b["id"]
            if i and hf > hfs[i - 1]:
                assert math.isclose(hf, mine, rel_tol=runner.MEM_TOLERANCE_REL,
                                    abs_tol=runner.MEM_TOLERANCE_ABS), b["id"]
        # The warnings a healthy smoke run may carry, both about the machine: at 20 ms of
        # arrivals a busy 2-core machine can leave an open-loop spawner short of 95 %, and a
        # busy machine is a contended one (each told, not hidden).
        # (Job.to_json joins warnings with "; " and each begins "warning: ": split there.)
        for w in re.split(r"; (?=warning: )", b["reason"]) if b.get("reason") else ():
            assert w.startswith(("warning: open loop not held", measures.CONTENDED)), b["reason"]
    env = doc["env"]
    assert env["preset"] == "smoke" and env["cores"] >= 1 and env["hyperfine"].startswith("hyperfine 1.")
    assert set(env["toolchains"]) == {b["key"]["toolchain"] for b in doc["benchmarks"]}
    assert "labels" not in env


def test_smoke_checksums_agree_across_languages(smoke_run):
    _, out = smoke_run
    doc = json.loads((out / "results.json").read_text())
    by = {}
    for b in doc["benchmarks"]:
        key = (b["key"]["scenario"], json.dumps(b["key"]["params"], sort_keys=True))
        by.setdefault(key, set()).update(r["checksum"] for r in b["records"])
    assert all(len(v) == 1 for v in by.values()), {k: v for k, v in by.items() if len(v) > 1}


def test_benchmark_action_files(smoke_run):
    """One file per github-action-benchmark set (OS, language, channel), named as on gh-pages."""
    _, out = smoke_run
    doc = json.loads((out / "results.json").read_text())
    files = sorted((out / "benchmark-action").iterdir())
    assert [f.name for f in files] == ["linux-go-local.json", "linux-rust-local.json"]
    entries = [e for f in files for e in json.loads(f.read_text())]
    assert isinstance(entries, list) and len(entries) == 2 * len(doc["benchmarks"])
    names = [e["name"] for e in entries]
    assert len(set(names)) == len(names)
    for e in entries:
        assert set(e) == {"name", "unit", "value", "range", "extra"}
        assert isinstance(e["value"], (int, float)) and e["value"] > 0
        assert e["unit"] == ("s" if e["name"].endswith(" time") else "MiB")
        assert e["name"].endswith((" time", " peak memory")) and e["extra"].startswith(("go1.", "rust1."))
    assert any(n.startswith("hashmap/spawn/go/") for n in names)


def test_summary_markdown(smoke_run, cat):
    res, out = smoke_run
    md = (out / "summary.md").read_text()
    for scenario in cat.scenarios:
        assert f"### {scenario}" in md
    assert "window / Go" in md and "0 failed" in md
    # every Rust ratio names the Go variant the catalogue pairs it with
    assert "(channels)" in md and "(goroutines)" in md
    assert "results.json" in res.stdout
    # `bench summary` renders the same file again.
    again = run_bench("summary", out / "results.json", "--markdown", out / "again.md")
    assert again.returncode == 0, again.stderr
    assert (out / "again.md").read_text().strip() == md.strip()
