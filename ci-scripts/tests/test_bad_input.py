"""Bad input: one clear line on stderr, a non-zero exit (2 for usage), nothing written."""

from __future__ import annotations

import json

import pytest

from conftest import run_bench


def _one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize("args, needle", [
    (["--preset", "huge"], "unknown preset 'huge'"),
    (["--preset", "smoke", "--scenario", "nosuch"], "unknown scenario 'nosuch'"),
    (["--preset", "smoke", "--variant", "nosuch"], "unknown variant 'nosuch'"),
    (["--preset", "smoke", "--lang", "cobol"], "unknown language 'cobol'"),
    (["--preset", "smoke", "--build", "rust-jemalloc"], "unknown build 'rust-jemalloc'"),
    (["--preset", "smoke", "--go", "go1.26.8,gcc"], "unknown go toolchain 'gcc'"),
    (["--preset", "smoke", "--rust", "stabel"], "unknown rust toolchain 'stabel'"),
    (["--preset", "smoke", "--timeout", "inf"], "--timeout must be seconds above 0"),
    (["--preset", "smoke", "--timeout", "-3"], "--timeout must be seconds above 0"),
    (["--preset", "smoke", "--timeout", "nan"], "--timeout must be seconds above 0"),
])
def test_run_rejects_unknown_names(tmp_path, args, needle):
    out = tmp_path / "out"
    res = run_bench("run", *args, "--out", out, timeout=60)
    assert res.returncode == 2, res.stderr
    assert needle in _one_line(res.stderr)
    assert not out.exists()


def test_build_rejects_an_unknown_scenario_before_building(tmp_path):
    out = tmp_path / "build"
    res = run_bench("build", "--scenario", "cpu,nosuch", "--out", out, timeout=60)
    assert res.returncode == 2, res.stderr
    assert "unknown scenario 'nosuch'" in _one_line(res.stderr)
    assert not out.exists()


def test_run_says_when_the_manifest_lacks_the_program_a_scenario_needs(tmp_path):
    """A build made for some scenarios only (`bench build --scenario cpu`) has no SQL
    program: asked to run sqlite, the run stops before anything runs, saying so."""
    program = tmp_path / "gobench"
    program.write_text("#!/bin/sh\nexit 1\n")
    program.chmod(0o755)
    manifest = tmp_path / "build" / "manifest.json"
    manifest.parent.mkdir()
    manifest.write_text(json.dumps({"schema": "gorust-bench.manifest/2", "builds": [{
        "build": "go", "lang": "go", "program": "gobench", "toolchain": "go1.26.0", "request": "local",
        "version": "go version go1.26.0", "path": str(program), "label": "head", "commit": "c1", "channel": "local",
        "paths": {}, "without": ["sqlite", "mysql", "postgres"]}]}))
    out = tmp_path / "out"
    res = run_bench("run", "--preset", "smoke", "--scenario", "sqlite", "--build", "go", "--manifest", manifest,
                    "--out", out, timeout=60)
    assert res.returncode == 2, res.stderr
    assert "go (local, head) was built without the program that runs sqlite" in _one_line(res.stderr)
    assert "build that toolchain and label again with --scenario sqlite" in res.stderr
    assert not out.exists()


def test_run_rejects_unwritable_out_before_running(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    out = blocker / "results"  # a folder inside a regular file: cannot exist, even for root
    res = run_bench("run", "--preset", "smoke", "--out", out, "--scenario", "cpu", timeout=60)
    assert res.returncode == 1
    line = _one_line(res.stderr)
    assert "--out" in line and "not writable" in line
    assert "build:" not in res.stderr  # nothing was built or run
    assert blocker.read_text() == "x"


@pytest.mark.parametrize("content, needle", [
    ("{not json", "not JSON"),
    (json.dumps({"schema": "gorust-bench.results/1", "env": {}, "benchmarks": []}), "not a valid results document"),
    ("", "not JSON"),
])
def test_summary_and_validate_reject_corrupt_results(tmp_path, content, needle):
    bad = tmp_path / "results.json"
    bad.write_text(content)
    md = tmp_path / "summary.md"
    res = run_bench("summary", bad, "--markdown", md, timeout=60)
    assert res.returncode == 1
    line = _one_line(res.stderr)
    assert needle in line and str(bad) in line
    assert not md.exists()
    res = run_bench("validate", bad, timeout=60)
    assert res.returncode == 1
    assert needle in _one_line(res.stderr)


def test_validate_missing_file(tmp_path):
    res = run_bench("validate", tmp_path / "nope.json", timeout=60)
    assert res.returncode == 1
    assert "no such results file" in _one_line(res.stderr)


def test_services_without_command():
    res = run_bench("services", timeout=60)
    assert res.returncode == 2
    assert "no command given" in _one_line(res.stderr)
