"""Synthetic results files (Contract 2) and histories, for tests and for the site
benchmark: plausible times and memory that grow with the size parameter, Go and Rust
builds that differ, noise, and a few level shifts so change points exist.

    results_doc(...)            one valid results document
    nightly(days, ...)          a sequence of results documents, one per day x OS
    python -m devtools.synthetic --days 365 --out DIR   writes a history directly
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import sys
import time
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

from benchpipe import catalogue
from benchpipe.results import key_id


def sequential_job(windows, status: str = "ok") -> SimpleNamespace:
    """The little of a runner.Job that runner.Sequential.decided reads: one side's
    timed windows so far (as records and samples) and its status."""
    bench = {"records": [{"elapsed_s": float(w)} for w in windows],
             "samples": {"wall_s": [float(w) for w in windows], "user_s": [], "sys_s": [], "peak_rss_bytes": []}}
    return SimpleNamespace(records=bench["records"], status=status, to_json=lambda: bench)

GO_TOOLCHAINS = ("go1.25.9", "go1.26.8")
RUST_TOOLCHAINS = ("rust1.94.1", "rust1.95.0")
OSES = ("linux", "macos", "windows")
# the channel each synthetic toolchain was asked for (runner: Built.channel)
CHANNELS = {"go1.25.9": "oldstable", "go1.26.8": "stable", "rust1.94.1": "1.94.1", "rust1.95.0": "stable"}
# What the real figures resolve, so that synthetic numbers are no harder to compress than
# real ones: CPU times come from getrusage (microseconds) on Linux and macOS and from
# GetProcessTimes (100 ns) on Windows; peak memory on Linux from ru_maxrss (hyperfine) and
# VmHWM (the programs), both counted in KiB (really whole 4 KiB pages: 1024 errs on the
# fine side), on macOS from ru_maxrss in bytes but whole pages (16 KiB on the arm64
# runners), on Windows from PeakWorkingSetSize (4 KiB pages). Wall times: nanoseconds.
CPU_DIGITS = {"linux": 6, "macos": 6, "windows": 7}
RSS_UNIT = {"linux": 1024, "macos": 16384, "windows": 4096}


def _cpu(seconds: float, os_: str) -> float:
    return round(seconds, CPU_DIGITS[os_])


def _rss(nbytes: float, os_: str) -> int:
    unit = RSS_UNIT[os_]
    return max(unit, round(nbytes / unit) * unit)


@lru_cache(maxsize=None)
def _program(build: str) -> str:
    return catalogue.load().builds[build].program


def _unit(*parts) -> float:
    """A deterministic number in [0, 1) from the parts."""
    h = hashlib.sha256("/".join(map(str, parts)).encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64


def model(scenario: str, variant: str, build: str, toolchain: str, os_: str, size: float) -> tuple[float, float]:
    """(wall seconds, peak bytes) of a benchmark: a power law of the size per build."""
    lang = "go" if build == "go" else "rust"
    t0 = 0.002 * (1 + 3 * _unit("t", scenario, variant, lang))
    alpha = 0.75 + 0.25 * _unit("a", scenario, variant, lang)
    m0 = 3.5e6 * (1 + _unit("m", scenario, lang))
    mb = 200 + 2000 * _unit("mb", scenario, variant, lang)
    t = t0 * (size / 100) ** alpha
    mem = m0 + mb * size
    if build == "rust-mimalloc":
        t *= 0.93
        mem *= 1.08
    if toolchain in (GO_TOOLCHAINS[0], RUST_TOOLCHAINS[0]):
        t *= 1.03
    t *= {"linux": 1.0, "macos": 0.9, "windows": 1.2}[os_]
    return t, mem


def _latency(key: dict, wall: float) -> dict | None:
    """Task sojourn and service times (µs) for scenarios with tasks (not cpu's compute tasks)."""
    tasks = key["params"].get("tasks")
    if not isinstance(tasks, int) or key["scenario"] == "cpu":
        return None
    us = wall * 1e6

    def lat(f):
        return {"n": tasks, "mean": round(0.45 * us * f, 3), "p50": round(0.4 * us * f, 3),
                "p99": round(0.9 * us * f, 3), "max": round(0.95 * us * f, 3)}
    return {"sojourn": lat(1.0), "service": lat(0.8)}


def record(key: dict, os_: str, wall: float, rss: int, cores: int = 4) -> dict:
    lang = key["lang"]
    return {
        "schema": "gorust-bench.record/1", "lang": lang, "program": _program(key["build"]), "build": key["build"],
        "toolchain": key["toolchain"], "scenario": key["scenario"], "variant": key["variant"],
        "params": dict(key["params"]), "checksum": 12345, "elapsed_s": round(wall * 0.95, 9),
        "window_cpu_s": {"user": _cpu(wall * 0.75, os_), "sys": _cpu(wall * 0.09, os_)},
        "latency_us": _latency(key, wall),
        "peak_rss_bytes": rss, "baseline_rss_bytes": min(rss, _rss(2_000_000, os_)),
        "cpu_user_s": _cpu(wall * 0.8, os_), "cpu_sys_s": _cpu(wall * 0.1, os_),
        "runtime": {"os": os_, "arch": "x86_64", "num_cpu": cores}, "metrics": {},
    }


def benchmark(key: dict, os_: str, runs: int, rng: random.Random, factor: float = 1.0,
              status: str = "ok", reason: str = "", records: bool = True) -> dict:
    size = float(key["params"].get(_size_param(key["scenario"]), 1000))
    t, mem = model(key["scenario"], key["variant"], key["build"], key["toolchain"], os_, size)
    t *= factor
    walls = [t * math.exp(rng.gauss(0, 0.02)) for _ in range(runs)]
    rss = [_rss(mem * math.exp(rng.gauss(0, 0.01)), os_) for _ in range(runs)]
    b = {"id": key_id(key), "key": key, "status": status}
    if key["toolchain"] in CHANNELS:
        b["channel"] = CHANNELS[key["toolchain"]]
    b |= {"command": [_program(key["build"]), key["scenario"], "--variant", key["variant"]]}
    if status == "ok":
        b["samples"] = {"wall_s": [round(w, 9) for w in walls], "user_s": [_cpu(w * 0.8, os_) for w in walls],
                        "sys_s": [_cpu(w * 0.1, os_) for w in walls], "peak_rss_bytes": rss}
        b["records"] = [record(key, os_, w, r) for w, r in zip(walls, rss)] if records else []
    else:
        b["reason"] = reason or "exit 1: synthetic failure"
        b["samples"] = {"wall_s": [], "user_s": [], "sys_s": [], "peak_rss_bytes": []}
        b["records"] = []
    return b


_SIZE_CACHE: dict[str, str] = {}


def _size_param(scenario: str) -> str:
    if not _SIZE_CACHE:
        for name, sc in catalogue.load().scenarios.items():
            _SIZE_CACHE[name] = sc.size
    return _SIZE_CACHE.get(scenario, "tasks")


def keys_for(preset: str = "smoke", scenarios=None, toolchains=None, builds=None) -> list[dict]:
    """Benchmark keys of a catalogue preset, once per toolchain of each language."""
    toolchains = toolchains or {"go": GO_TOOLCHAINS[-1:], "rust": RUST_TOOLCHAINS[-1:]}
    out = []
    for spec in catalogue.load().benchmarks(preset, scenarios=scenarios, builds=builds):
        for tc in toolchains[spec.build.lang]:
            out.append({"scenario": spec.scenario.name, "variant": spec.variant, "lang": spec.build.lang,
                        "build": spec.build.name, "toolchain": tc, "params": dict(spec.params)})
    return out


def results_doc(keys: list[dict], *, os_: str = "linux", commit: str | None = None, message: str = "a commit",
                timestamp: datetime | None = None, runner: str = "synthetic-runner", preset: str = "smoke",
                runs: int = 5, seed: int = 0, factor=None, failed: set[str] | None = None,
                records: bool = True) -> dict:
    """One valid results document. `factor(key) -> float` scales times (regressions).
    records=False leaves the programs' records out (not valid then, but enough for
    history.add, and much faster for a year of history)."""
    rng = random.Random(seed)
    timestamp = timestamp or datetime(2026, 1, 1, tzinfo=timezone.utc)
    commit = commit or hashlib.sha1(f"{seed}".encode()).hexdigest()
    tcs = sorted({k["toolchain"] for k in keys})
    toolchains = {tc: (f"go version {tc} {os_}/amd64" if tc.startswith("go") else f"rustc {tc[4:]} (synthetic)") for tc in tcs}
    benches = []
    for k in keys:
        kid = key_id(k)
        if failed and kid in failed:
            benches.append(benchmark(k, os_, runs, rng, status="failed", reason="exit 1: boom"))
        else:
            benches.append(benchmark(k, os_, runs, rng, factor(k) if factor else 1.0, records=records))
    return {
        "schema": "gorust-bench.results/1",
        "env": {"os": os_, "arch": "x86_64", "cpu_model": "Synthetic CPU @ 3.0GHz", "cores": 4,
                "memory_bytes": 16 * 2**30, "runner": runner, "commit": commit, "commit_message": message,
                "branch": "main", "timestamp": timestamp.strftime("%Y-%m-%dT%H:%M:%SZ"), "preset": preset,
                "toolchains": toolchains, "hyperfine": "hyperfine 1.19.0"},
        "benchmarks": benches,
    }


def shift(key: dict, os_: str, day: int) -> float:
    """Level shifts: some series get slower (or faster) from some day on."""
    u = _unit("shift", key_id(key), os_)
    if u < 0.08:
        start = 60 + int(250 * _unit("day", key_id(key), os_))
        if day >= start:
            return 1.25 if u < 0.05 else 0.85
    return 1.0


START = datetime(2025, 11, 1, 2, 0, tzinfo=timezone.utc)   # night 0 of `nightly`


def nightly(days: int, keys: list[dict], oses=OSES, start: datetime | None = None, runs: int = 10,
            preset: str = "standard", records: bool = True, first_day: int = 0):
    """Yield one results document per day and OS (a year of nightly runs)."""
    start = start or START
    for day in range(first_day, first_day + days):
        commit = hashlib.sha1(f"commit-{day}".encode()).hexdigest()
        for i, os_ in enumerate(oses):
            yield results_doc(keys, os_=os_, commit=commit, message=f"nightly change {day}",
                              timestamp=start + timedelta(days=day, minutes=7 * i), runner=f"gh-{os_}-latest",
                              preset=preset, runs=runs, seed=day * 10 + i,
                              factor=lambda k, d=day, o=os_: shift(k, o, d), records=records)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="write a synthetic history (a year of nightly runs)")
    p.add_argument("--days", type=int, default=365)
    p.add_argument("--preset", default="standard", help="catalogue preset whose benchmarks are used")
    p.add_argument("--toolchains", type=int, default=2, help="toolchains per language (1 or 2)")
    p.add_argument("--runs", type=int, default=10, help="samples per benchmark")
    p.add_argument("--out", type=Path, required=True, help="history directory to write")
    a = p.parse_args(argv)
    from benchpipe import history

    keys = keys_for(a.preset, toolchains={"go": GO_TOOLCHAINS[-a.toolchains:], "rust": RUST_TOOLCHAINS[-a.toolchains:]})
    t0 = time.time()
    batch = []
    n_runs = 0
    for doc in nightly(a.days, keys, runs=a.runs, preset=a.preset, records=False):
        batch.append(("synthetic", doc))
        if len(batch) >= 90:  # one month of 3 OS: each shard written once per batch
            history.add(a.out, batch)
            n_runs += len(batch)
            batch = []
            print(f"{n_runs} runs written ({time.time() - t0:.0f} s)", file=sys.stderr)
    if batch:
        history.add(a.out, batch)
        n_runs += len(batch)
    print(f"{a.out}: {n_runs} runs x {len(keys)} benchmarks in {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
