"""Saved-output tests, as benchstat keeps testdata/*.stdout: the Markdown summary and the
compare report of fixed inputs (synthetic, fixed seeds) must match the files under
tests/testdata byte for byte. A change to either report shows up as a diff in review.
After an intended change: BENCH_UPDATE_GOLDEN=1 ci-scripts/test -k saved_output, then
read the diff before committing it."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchpipe import compare
from benchpipe.report import compare_md, summary
from devtools import synthetic

TESTDATA = Path(__file__).resolve().parent / "testdata"
T0 = datetime(2026, 3, 1, 2, 0, tzinfo=timezone.utc)


def _docs() -> tuple[dict, dict]:
    keys = synthetic.keys_for("smoke", scenarios=["cpu", "fanout", "sleep"])
    base = synthetic.results_doc(keys, seed=1, timestamp=T0, commit="a" * 40, message="base", runs=10)
    head = synthetic.results_doc(keys, seed=2, timestamp=T0, commit="b" * 40, message="head", runs=10,
                                 factor=lambda k: 1.1 if k["scenario"] == "cpu" else 1.0)
    return base, head


def _check(name: str, text: str) -> None:
    path = TESTDATA / name
    if os.environ.get("BENCH_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    if not path.exists():
        pytest.fail(f"{path} is missing: run with BENCH_UPDATE_GOLDEN=1 once and review it")
    assert text == path.read_text(encoding="utf-8"), f"{name} changed: diff it against {path}"


def test_summary_markdown():
    base, _ = _docs()
    _check("summary.md", summary.markdown_text(base))


def test_compare_markdown():
    base, head = _docs()
    _check("compare.md", compare_md.render(compare.compare_docs([base, head], ["base.json", "head.json"])))
