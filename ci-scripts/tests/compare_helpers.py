"""Valid results documents (Contract 2) with chosen samples, for the compare tests."""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path

from benchpipe.results import key_id

PROGRAM = {"go": "gobench", "rust-system": "rsbench", "rust-mimalloc": "rsbench-mimalloc"}


def key(scenario="cpu", variant="goroutines", build="go", toolchain="go1.26.8", label=None, **params) -> dict:
    k = {"scenario": scenario, "variant": variant, "lang": "go" if build == "go" else "rust", "build": build,
         "toolchain": toolchain, "params": params or {"tasks": 16}}
    if label:
        k["label"] = label
    return k


def bench(k: dict, wall=(1.0, 1.01, 0.99, 1.0, 1.02) * 2, rss=None, status="ok", reason=None, user=None) -> dict:
    wall = list(wall)
    user = list(user) if user is not None else [0.1] * len(wall)
    rss = list(rss) if rss is not None else [10_000_000] * len(wall)
    def rec(w, u, m):
        # The program's own window follows the wall time (a fixed 5% of start-up outside it).
        return {"schema": "gorust-bench.record/1", "lang": k["lang"], "program": PROGRAM[k["build"]],
                "build": k["build"], "toolchain": k["toolchain"], "scenario": k["scenario"], "variant": k["variant"],
                "params": k["params"], "checksum": 1, "elapsed_s": w * 0.95, "window_cpu_s": {"user": u * 0.95, "sys": 0.0},
                "latency_us": None, "peak_rss_bytes": m, "baseline_rss_bytes": 1, "cpu_user_s": u,
                "cpu_sys_s": 0.0, "runtime": {"os": "linux", "arch": "x86_64", "num_cpu": 2}, "metrics": {}}
    b = {"id": key_id(k), "key": k, "status": status,
         "samples": {"wall_s": wall if status == "ok" else [], "user_s": user if status == "ok" else [],
                     "sys_s": [0.0] * len(wall) if status == "ok" else [],
                     "peak_rss_bytes": rss if status == "ok" else []},
         "records": [rec(w, u, m) for w, u, m in zip(wall, user, rss)] if status == "ok" else []}
    if status != "ok":
        b["reason"] = reason or "boom"
    return b


def doc(benches: list, commit="a" * 40, timestamp="2026-11-22T02:00:00Z", labels=None) -> dict:
    env = {"os": "linux", "arch": "x86_64", "cpu_model": "Test CPU", "cores": 2, "memory_bytes": 1 << 30,
           "runner": "test-runner", "commit": commit, "branch": "main", "timestamp": timestamp, "preset": "smoke",
           "toolchains": {}, "hyperfine": "1.20.0"}
    if labels:
        env["labels"] = labels
    return {"schema": "gorust-bench.results/1", "env": env, "benchmarks": benches}


# ---------------------------------------------------------------- real program runs


@functools.lru_cache(maxsize=None)
def built_gobench(out_dir: str) -> str | None:
    """Build gobench once per test session (None when Go is not installed)."""
    from benchpipe import ROOT, catalogue, toolchains, tools
    if not tools.which("go"):
        return None
    (built,) = toolchains.build_go(catalogue.load(), ROOT, "local", Path(out_dir), "head", quiet=True)
    toolchains.write_manifest(Path(out_dir), [built])
    return built.path


def record_of(argv: list[str], cwd: Path) -> dict:
    out = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def measured_docs(program: str, specs, factor: float, runs: int, work: Path) -> tuple[dict, dict, dict]:
    """Real runs through `bench run`'s engine (runner.run_group, interleaved rounds, the
    programs' own records): results documents for A, A again, and A with its workload
    scaled by factor."""
    import dataclasses

    from benchpipe import catalogue, runner, scaling, toolchains, tools
    hf = tools.require("hyperfine")
    preset = catalogue.load().preset("quick")
    built = toolchains.Built("go", "go", "gobench", toolchains.program_toolchain(program), "local", "go", program,
                             "a", "c" * 40)
    sides = ([], [], [])
    for i, spec in enumerate(specs):
        scaled = scaling.scale_spec(spec, factor)
        jobs = [runner.make_jobs([s], [dataclasses.replace(built, label=label)], work / f"{i}-{label}", ab=True)[0]
                for s, label in ((spec, "a"), (spec, "a2"), (scaled, "b"))]
        runner.run_group(jobs, hf, preset, runs, 600, {})
        for side, job in zip(sides, jobs):
            assert job.status == "ok", job.reason
            side.append(job.to_json())
    return tuple(doc(s) for s in sides)
