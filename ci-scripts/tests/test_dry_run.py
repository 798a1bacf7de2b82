"""A dry run of the whole bench-then-publish flow on this machine, through the very
`run:` steps of bench.yml and publish.yml (read from the workflow files, their env
filled in as GitHub would), for two legs of the matrix:

  bench.yml   plan -> for each leg: build, run, summary -> "upload" (a copy)
  publish.yml collect: merge-artifacts, validate -> history: publish to a gh-pages
              branch of a local bare repository, the site rendered into $SITE
  then        the branch has the history of both legs, and $SITE (what the workflow
              uploads and deploys to GitHub Pages) a site that shows both.

This machine is Linux, so the second leg (macos-latest) is simulated: it is a real
second run here whose results file says `macos`, re-validated before it is "uploaded".
Everything else is what the runners do. Set BENCH_DRY_RUN_OUT=DIR to keep the site
(open DIR/index.html); BENCH_SKIP_DRY_RUN=1 skips it. Its cost is one release build
into .bench/build (as `bench build` on a runner: cold in a fresh clone) plus two smoke
runs of one scenario."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from benchpipe import results
from test_workflows import ROOT, gh_outputs, load, registered, run_step

NEEDED = {"matrix", "build", "run", "summary", "merge-artifacts", "validate", "publish", "history"}
SIMULATED_OS = {"macos-latest": "macos", "windows-latest": "windows"}


def _applies(step: dict, event: str) -> bool:
    cond = str(step.get("if", ""))
    if "github.event_name == 'pull_request'" in cond:
        return event == "pull_request"
    if "github.event_name != 'pull_request'" in cond:
        return event != "pull_request"
    return True


@pytest.mark.skipif(os.environ.get("BENCH_SKIP_DRY_RUN") == "1", reason="BENCH_SKIP_DRY_RUN=1")
@pytest.mark.skipif(not shutil.which("hyperfine") and not (Path.home() / ".cargo" / "bin" / "hyperfine").exists(),
                    reason="hyperfine is not installed (ci-scripts/bench doctor --install)")
def test_bench_then_publish_dry_run_for_two_os_legs(tmp_path):
    assert NEEDED <= registered(), NEEDED - registered()
    event = "workflow_dispatch"
    inputs = {"preset": "smoke", "scenarios": "cpu", "os": "ubuntu-latest,macos-latest", "go": "stable",
              "rust": "stable", "runners": ""}

    # bench.yml / plan
    gh_out = tmp_path / "plan.out"
    exprs = {"github.event_name": event, **{f"inputs.{k}": v for k, v in inputs.items()}}
    proc = run_step("bench.yml", "plan", "matrix", exprs, {"GITHUB_OUTPUT": str(gh_out)})
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(gh_outputs(gh_out)["matrix"])["include"]
    assert [r["runs-on"] for r in rows] == ["ubuntu-latest", "macos-latest"]

    # bench.yml / bench, once per leg (Build, Run, Summary; the install step is `bench doctor --install`)
    bench_job = load("bench.yml")["jobs"]["bench"]
    artifacts = tmp_path / "bench-artifacts"
    for row in rows:
        ws = tmp_path / "legs" / row["id"]
        exprs = {"github.workspace": str(ws), **{f"matrix.{k}": str(v) for k, v in row.items() if isinstance(v, (str, int))}}
        env = {"GITHUB_STEP_SUMMARY": str(ws / "summary.md"), "RUNNER_NAME": f"dry-run {row['runs-on']}",
               "GITHUB_OUTPUT": str(ws / "out")}
        ws.mkdir(parents=True)
        for step in bench_job["steps"]:
            if "run" not in step or not _applies(step, event) or "doctor" in step["run"]:
                continue
            proc = run_step("bench.yml", "bench", step["name"], exprs, env, timeout=2400)  # a cold release build
            assert proc.returncode == 0, f"{row['id']}: {step['name']}: {proc.stderr[-2000:]}"
        out = ws / ".bench" / "results"
        doc = results.load(out / "results.json")
        assert doc["env"]["preset"] == "smoke" and all(b["status"] == "ok" for b in doc["benchmarks"])
        job_summary = (ws / "summary.md").read_text(encoding="utf-8")
        assert job_summary.count("## Go vs Rust: preset") == 1, job_summary  # one writer, one table
        if row["runs-on"] in SIMULATED_OS:  # this machine is Linux: relabel the second leg's OS
            doc["env"]["os"] = SIMULATED_OS[row["runs-on"]]
            results.write(out / "results.json", doc)
        shutil.copytree(out, artifacts / f"bench-{row['id']}")  # upload-artifact + download-artifact

    # publish.yml / collect and history, into a bare repository standing in for GitHub
    remote = tmp_path / "remote"
    subprocess.run(["git", "init", "-q", "--bare", f"{remote}.git"], check=True)
    pub_exprs = {"github.workspace": str(tmp_path / "ws"), "github.token": "unused", "github.server_url": "file://",
                 "github.repository": str(remote)}
    (tmp_path / "ws").mkdir()
    env = {"GITHUB_OUTPUT": str(tmp_path / "publish.out"), "GITHUB_STEP_SUMMARY": str(tmp_path / "publish.md")}
    for job_id, step_name in (("collect", "merge"), ("collect", "Validate the merged results again"),
                              ("history", "Publish to gh-pages")):
        proc = run_step("publish.yml", job_id, step_name, pub_exprs, env)
        assert proc.returncode == 0, f"{job_id}/{step_name}: {proc.stdout[-1000:]}{proc.stderr[-2000:]}"
    outputs = gh_outputs(tmp_path / "publish.out")
    assert outputs["results"] == "2"
    assert {g["name"].split()[0] for g in json.loads(outputs["benchmark-action"])} == {"linux", "macos"}

    site = tmp_path / "bench-site"  # $SITE: ${{ github.workspace }}/../bench-site
    assert (site / "index.html").is_file()
    html = " ".join(p.read_text(encoding="utf-8", errors="replace") for p in site.rglob("*.html"))
    assert "linux" in html and "macos" in html, "the site shows both legs"
    assert any(site.rglob("*.svg")) or any(site.rglob("*.png")), "charts were rendered"
    keep = os.environ.get("BENCH_DRY_RUN_OUT")
    if keep:
        shutil.rmtree(keep, ignore_errors=True)
        shutil.copytree(site, keep)
    branch = tmp_path / "branch"
    subprocess.run(["git", "clone", "-q", "--branch", "gh-pages", f"{remote}.git", str(branch)], check=True)
    assert not (branch / "index.html").exists(), "the site is not committed"
    check = subprocess.run(["bash", str(ROOT / "ci-scripts" / "bench"), "history", "check", "--history",
                            str(branch / "history")], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
