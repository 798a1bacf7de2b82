"""Shared by the site and publish tests: a small history with two OSes, two toolchains
per language, a level shift (change points) and hostile strings where free text is
allowed: a commit message, a runner name and a program's runtime facts (shown as the
build's settings). Benchmark names follow the name contract, so they cannot carry one."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchpipe import results
from benchpipe.commands.history import add_results
from devtools import synthetic
from factories import make_results

XSS = "<script>alert(1)</script>"


def site_keys() -> list[dict]:
    return synthetic.keys_for("smoke", scenarios=["sleep", "cpu"],
                              toolchains={"go": ("go1.25.9", "go1.26.8"), "rust": ("rust1.94.1", "rust1.95.0")})


def _hostile_facts(path: Path) -> None:
    """The sleep benchmarks' records name an allocator `x<script>...`: free text that
    reaches the site as the build's settings."""
    doc = results.load(path)
    for b in doc["benchmarks"]:
        if b["key"]["scenario"] == "sleep":
            for r in b["records"]:
                r["runtime"]["allocator"] = f"x{XSS}"
    results.write(path, doc)


def make_history(tmp: Path, days: int = 10, oses=("linux", "windows")) -> Path:
    keys = site_keys()
    files = []
    for i in range(days):
        for j, os_ in enumerate(oses):
            msg = f"fix {XSS} & more" if i == days - 1 else f"change {i}"
            files.append(make_results(
                tmp / "results" / f"r{i:03d}-{os_}.json", i * 10 + j, keys=keys, os_=os_, message=msg,
                runner=f"runner {XSS}",
                timestamp=datetime(2026, 3, 1, tzinfo=timezone.utc) + timedelta(days=i, minutes=j),
                factor=lambda k, i=i: 1.3 if (i >= days // 2 and k["build"] == "rust-system") else 1.0))
            _hostile_facts(files[-1])
    add_results(tmp / "history", files)
    return tmp / "history"
