"""Synthetic results files (Contract 2) for the workflow tests: what a bench job
uploads as its artifact, built from the catalogue so the names are real."""

from __future__ import annotations

import random
from pathlib import Path

from benchpipe import catalogue, results

TOOLCHAINS = {"go": "go1.26.8", "rust": "rust1.95.0"}


def _record(spec, toolchain: str, wall: float, rss: int, os_name: str) -> dict:
    return {
        "schema": "gorust-bench.record/1", "lang": spec.build.lang, "program": spec.build.program,
        "build": spec.build.name, "toolchain": toolchain, "scenario": spec.scenario.name,
        "variant": spec.variant, "params": dict(spec.params), "checksum": 12345,
        "elapsed_s": wall * 0.9, "window_cpu_s": {"user": wall * 0.85, "sys": wall / 12},
        "latency_us": None, "peak_rss_bytes": rss, "baseline_rss_bytes": min(rss, 2_000_000),
        "cpu_user_s": wall, "cpu_sys_s": wall / 10,
        "runtime": {"os": os_name, "arch": "amd64", "num_cpu": 2}, "metrics": {},
    }


def results_doc(os_name="linux", scenarios=("cpu",), preset="smoke", ab=False, commit="a" * 40,
                timestamp="2026-11-20T10:00:00Z", seed=1, slowdown=1.0, runner="runner-1", runs=10) -> dict:
    """A valid results document; with ab=True, every benchmark twice (base and head,
    head `slowdown` times slower). 10 runs: enough for a flag after compare's correction
    across tests, which 5+5 runs cannot reach."""
    rnd = random.Random(seed)
    cat = catalogue.load()
    benches = []
    labels = ("base", "head") if ab else (None,)
    for spec in cat.benchmarks(preset, scenarios=list(scenarios)):
        tc = TOOLCHAINS[spec.build.lang]
        for label in labels:
            factor = slowdown if label == "head" else 1.0
            walls = [round(0.1 * factor * (1 + rnd.uniform(-0.02, 0.02)), 6) for _ in range(runs)]
            rss = [20_000_000 + rnd.randrange(100_000) for _ in range(runs)]
            key = {"scenario": spec.scenario.name, "variant": spec.variant, "lang": spec.build.lang,
                   "build": spec.build.name, "toolchain": tc, "params": dict(spec.params)}
            if label:
                key["label"] = label
            benches.append({
                "id": results.key_id(key), "key": key, "status": "ok",
                "samples": {"wall_s": walls, "user_s": walls, "sys_s": [w / 10 for w in walls], "peak_rss_bytes": rss},
                "records": [_record(spec, tc, w, r, os_name) for w, r in zip(walls, rss)],
            })
    env = {
        "os": os_name, "arch": "x86_64", "cpu_model": "Test CPU", "cores": 2, "memory_bytes": 8 * 2**30,
        "runner": runner, "commit": commit, "commit_message": "test commit", "branch": "main",
        "timestamp": timestamp, "preset": preset,
        "toolchains": {TOOLCHAINS["go"]: "go version go1.26.8", TOOLCHAINS["rust"]: "rustc 1.95.0"},
        "hyperfine": "1.20.0",
    }
    if ab:
        env["labels"] = {"base": "b" * 40, "head": commit}
    return {"schema": results.RESULTS_SCHEMA, "env": env, "benchmarks": benches}


def write_artifact(root: Path, name: str, doc: dict) -> Path:
    """root/<artifact name>/results.json (+ what a bench job uploads beside it)."""
    path = Path(root) / name / "results.json"
    results.write(path, doc)
    (path.parent / "summary.md").write_text("# summary\n", encoding="utf-8")
    (path.parent / "benchmark-action").mkdir(exist_ok=True)
    return path
