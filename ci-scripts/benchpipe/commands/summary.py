"""`bench summary RESULTS [--markdown FILE]`: Go against Rust per scenario and size
(median time with spread, median peak memory, ratios to Go) on the terminal, and as
Markdown into FILE (the workflow passes "$GITHUB_STEP_SUMMARY": the job summary's one
writer)."""

from __future__ import annotations

from pathlib import Path

from benchpipe import fsutil, results, terminal
from benchpipe.report import summary

NAME = "summary"
HELP = "Go against Rust per scenario and size from a results file (terminal and Markdown)"


def add_arguments(p):
    p.add_argument("results", help="a results.json written by `bench run`")
    p.add_argument("--markdown", metavar="FILE", help="also write the Markdown summary to FILE")


def run(args) -> int:
    doc = results.load(args.results)  # validated: a corrupt file is one line, nothing written
    md = summary.markdown_text(doc)
    summary.print_terminal(doc, terminal.wide_console(), details=str(args.markdown or "--markdown FILE"))
    if args.markdown:
        fsutil.atomic_write_text(Path(args.markdown), md + "\n")
    return 0
