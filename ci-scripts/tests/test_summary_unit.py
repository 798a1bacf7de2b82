"""The summary's Markdown escapes every string that comes from the input."""

from __future__ import annotations

import re

import cmarkgfm
from cmarkgfm.cmark import Options

from benchpipe.report import md as markdown
from benchpipe.report import summary
from benchpipe.results import key_id


def _doc(reason: str) -> dict:
    key = {"scenario": "cpu", "variant": "x|y", "lang": "rust", "build": "rust-system", "toolchain": "rust1.0.0",
           "params": {"tasks": 4}}
    return {"schema": "gorust-bench.results/1",
            "env": {"os": "linux", "arch": "x86_64", "cpu_model": "<b>CPU</b> `x`", "cores": 2, "memory_bytes": 2**30,
                    "runner": "r", "commit": "abc", "branch": "feat|<script>", "timestamp": "2026-01-01T00:00:00Z",
                    "preset": "smoke", "toolchains": {"rust1.0.0": "rustc 1.0.0"}, "hyperfine": "hyperfine 1.20.0"},
            "benchmarks": [{"id": "i", "key": key, "status": "failed", "reason": reason,
                            "samples": {"wall_s": [], "user_s": [], "sys_s": [], "peak_rss_bytes": []}, "records": []}]}


def test_markdown_escapes_input():
    md = summary.markdown_text(_doc("boom | `rm -rf` <img src=x>\nsecond line"))
    rendered = cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE)
    assert "<script" not in rendered and "<img" not in rendered and "<code" not in rendered
    # Every character Markdown or HTML would act on is backslash-escaped (report/md.py).
    assert "\\<script\\>" in md and "x\\|y" in md and "\\`rm -rf\\`" in md
    row = [ln for ln in md.splitlines() if "boom" in ln][0]
    # The only pipes left delimit exactly the header's columns.
    assert len(re.findall(r"(?<!\\)\|", row)) == len(summary.HEADER) + 1


def test_escape_plain_text_unchanged():
    assert markdown.escape("tasks=4000 shape=burst") == "tasks=4000 shape=burst"


def test_the_terminal_summary_of_the_quick_preset_fits_120_columns():
    """Issue 39: the quick run ended in tables over 200 columns wide whose parameter
    cells folded over five lines. Every benchmark of the quick preset (two toolchains
    of a language too, and a failed one with a long reason) is one line of at most 120."""
    import io

    from rich.console import Console

    from devtools import synthetic
    keys = synthetic.keys_for("quick", toolchains={"go": ["go1.25.5", "go1.26.8"], "rust": ["rust1.95.0"]})
    doc = synthetic.results_doc(keys, preset="quick", failed={key_id(keys[3])})
    doc["benchmarks"][3]["reason"] = "exit 1: " + "a very long reason " * 20
    lines = summary.terminal_lines(doc, details="results/20261126T000000Z/summary.md")
    bench_lines = [ln for ln in lines if ln.startswith("  ")]
    assert len(bench_lines) == len(keys)
    assert max(len(ln) for ln in lines) <= summary.TERMINAL_WIDTH, max(lines, key=len)
    # every Rust line has its ratios with intervals; Go lines their own figures
    rust = [ln for ln in bench_lines if ln.lstrip().startswith("rust-")]
    assert rust and all("window" in ln and "×" in ln and "[" in ln for ln in rust), rust[:3]
    assert any("failed: exit 1: a very long reason" in ln for ln in bench_lines)
    assert "summary.md" in lines[-1]
    # and rendered: a 200-column console (a CI log) still gets 120-column lines
    out = io.StringIO()
    summary.print_terminal(doc, Console(file=out, width=200, force_terminal=False), details="summary.md")
    assert max(len(ln) for ln in out.getvalue().splitlines()) <= summary.TERMINAL_WIDTH
