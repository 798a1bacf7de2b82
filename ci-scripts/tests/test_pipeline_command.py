"""`bench pipeline`, the README's main command, end to end on a small selection: doctor,
two Go toolchains built and run interleaved, their comparison, the history pushed to a
local gh-pages repository and the site rendered from it into a folder, and the summary at
the end. And a bad option: one line,
exit 2, nothing written."""

from __future__ import annotations

import json
import subprocess

from conftest import run_bench


def test_pipeline_end_to_end(tmp_path):
    out, pages, site = tmp_path / "results", tmp_path / "pages.git", tmp_path / "site"
    proc = run_bench("pipeline", "--preset", "smoke", "--scenario", "cpu", "--variant", "goroutines",
                     "--go", "local,go1.25.5", "--lang", "go", "--runs", "3",
                     "--results", out, "--pages", pages, "--site", site, "--build-dir", tmp_path / "build",
                     "--no-install", timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for step in ("[1/4] doctor", "[2/4] build and run", "[3/4] compare", "[4/4] history"):
        assert step in proc.stderr, step
    doc = json.loads((out / "results.json").read_text())
    toolchains = {b["key"]["toolchain"] for b in doc["benchmarks"]}
    assert len(toolchains) == 2 and "go1.25.5" in toolchains
    n = len(doc["benchmarks"])
    assert f"pipeline: {n} benchmarks in" in proc.stdout and f"{n} ok, 0 failed, 0 skipped" in proc.stdout
    # the compare step ran, wrote both reports, and they cover every benchmark of the older toolchain
    verdicts = json.loads((out / "compare.json").read_text())
    assert len(verdicts["benchmarks"]) == n // 2 and sum(verdicts["counts"].values()) == n // 2
    assert "go1.25.5" in (out / "compare.md").read_text()
    # the site folder and the local gh-pages branch hold this run
    assert (site / "index.html").is_file() and (site / "scenario-cpu.html").is_file()
    assert (site / "dev/bench/data.js").is_file() and not (site / "history").exists()  # the history is the branch's
    log = subprocess.run(["git", "-C", str(pages), "log", "--oneline", "gh-pages"], capture_output=True, text=True)
    assert log.returncode == 0 and log.stdout.strip()
    lines = proc.stdout.splitlines()
    for line in ("results:", "summary:", "compare:", "site:"):
        assert any(ln.startswith(line) for ln in lines), line
    # the Go-against-Rust summary once, at the end: below the compare report, above the
    # counts and the paths (`bench run` alone shows it as it ends)
    table = [i for i, ln in enumerate(lines) if ln.startswith("CPU time in the window")]
    compared = [i for i, ln in enumerate(lines) if ln.lstrip().startswith("compare (")]
    done = [i for i, ln in enumerate(lines) if ln.startswith("pipeline: ")]
    assert len(table) == 1 and len(compared) == 1 and len(done) == 1, proc.stdout[-3000:]
    assert compared[0] < table[0] < done[0]


def test_pipeline_bad_option_one_line(tmp_path):
    out, pages, site = tmp_path / "results", tmp_path / "pages.git", tmp_path / "site"
    proc = run_bench("pipeline", "--preset", "smoke", "--scenario", "no-such-scenario", "--results", out,
                     "--pages", pages, "--site", site, "--no-install")
    assert proc.returncode == 2
    err = [ln for ln in proc.stderr.splitlines() if ln.startswith("bench pipeline:")]
    assert len(err) == 1 and "no-such-scenario" in err[0], proc.stderr[-2000:]
    assert not out.exists() and not pages.exists() and not site.exists()
