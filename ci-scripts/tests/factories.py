"""Factories of valid results documents (Contract 2) for the tests; thin wrappers over
devtools.synthetic so the site benchmark and the tests share one generator."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchpipe.results import write as write_results
from devtools import synthetic

keys_for = synthetic.keys_for
results_doc = synthetic.results_doc


def small_keys(scenarios=("sleep", "files-read")) -> list[dict]:
    """The smoke-preset keys of a few scenarios, one toolchain per language."""
    return synthetic.keys_for("smoke", scenarios=list(scenarios))


def make_results(path: Path, n: int = 0, keys=None, **kw) -> Path:
    """Write results file number n (distinct commit, timestamp and samples) to path, validated."""
    keys = keys if keys is not None else small_keys()
    kw.setdefault("timestamp", datetime(2026, 3, 1, 2, 0, tzinfo=timezone.utc) + timedelta(hours=n))
    kw.setdefault("seed", n)
    kw.setdefault("commit", f"{n:040x}")
    kw.setdefault("message", f"change number {n}")
    doc = results_doc(keys, **kw)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_results(path, doc)
    return path


def read_json(path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))
