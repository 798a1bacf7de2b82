"""The summary's Markdown escapes every string that comes from the input."""

from __future__ import annotations

import re

import cmarkgfm
from cmarkgfm.cmark import Options

from benchpipe.report import md as markdown
from benchpipe.report import summary


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
