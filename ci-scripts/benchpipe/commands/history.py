"""`bench history add|check|migrate|compact`: append runs to the history (Contract 3) /
validate it / rewrite its history/1 entries files in the compact history/2 format /
summarise its months older than 90 days (history_summary)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchpipe import compare, history, history_summary, results
from benchpipe.errors import BenchError, one_line
from benchpipe.export import data_js

NAME = "history"
HELP = "append results to the history (add), validate it (check), migrate or compact it"


def add_arguments(p):
    sub = p.add_subparsers(dest="action", required=True, metavar="<action>", parser_class=type(p))
    a = sub.add_parser("add", help="append the runs of results files (validated, atomic, idempotent)")
    a.add_argument("--history", required=True, type=Path, help="the history directory")
    a.add_argument("--data-js", type=Path, help="also append to github-action-benchmark's data.js (e.g. dev/bench/data.js)")
    a.add_argument("--repo-url", default="", help="repository URL for data.js commit links")
    a.add_argument("results", nargs="+", type=Path, help="results files (results.json)")
    c = sub.add_parser("check", help="validate every history file; report path and problem, exit 1 if any")
    c.add_argument("--history", required=True, type=Path, help="the history directory")
    m = sub.add_parser("migrate", help="rewrite history/1 entries files as history/2, each proven to read back "
                                       "entry for entry (refuses a history that does not check)")
    m.add_argument("--history", required=True, type=Path, help="the history directory")
    k = sub.add_parser("compact", help="summarise each month that ended more than --keep-days before the newest run: "
                                       "medians, intervals, counts and every other field kept, min/max/mean/stddev "
                                       "and entry digests dropped, xz-compressed (each entry proven first); a month that "
                                       "has ended but is younger is kept whole, xz-compressed; a summary of an older "
                                       "version (history-summary/1, /2) is rewritten as /3, its toolchain verdicts cut "
                                       "to each metric's ratio and verdict")
    k.add_argument("--history", required=True, type=Path, help="the history directory")
    k.add_argument("--keep-days", type=_days, default=history_summary.KEEP_DAYS,
                   help=f"days of whole entries kept (default: {history_summary.KEEP_DAYS})")


def _days(text: str) -> int:
    try:
        days = int(text)
    except ValueError:
        days = -1
    if days < 30:
        raise argparse.ArgumentTypeError(f"must be a whole number of days, at least 30, not {text!r}")
    return days


def add_results(root: Path, paths) -> history.AddReport:
    """What `history add` does: every results file validated before any write, each run's
    toolchain verdicts (compare: the history only stores them), appended."""
    docs = [(str(p), results.load(p)) for p in paths]
    return history.add(root, docs, [compare.toolchain_verdicts(doc) for _, doc in docs])


def run(args) -> int:
    if args.action == "check":
        problems = history.check(args.history)
        for line in ([] if problems else history.uncommitted(args.history)):
            print(one_line(f"warning: {line}"), file=sys.stderr)
        for line in problems:
            print(one_line(line), file=sys.stderr)
        if problems:
            print(f"bench history check: {len(problems)} problem(s) in {args.history}", file=sys.stderr)
            return 1
        files = len(history.history_files(args.history))
        print(f"{args.history}: {files} history file(s), all valid")
        return 0
    if args.action == "migrate":
        mig = history.migrate(args.history)
        print(f"{args.history}: {mig.files} file(s) migrated to history/2 ({mig.entries} entries, "
              f"{mig.bytes_before / 2**20:.1f} MiB -> {mig.bytes_after / 2**20:.1f} MiB); every entry reads back "
              "as it was; `bench history check` verifies it")
        return 0
    if args.action == "compact":
        if not args.history.is_dir():
            raise BenchError(f"{args.history}: no such history directory")
        rep = history.compact(args.history, args.keep_days)
        if not rep.files and not rep.closed_files and not rep.upgraded and not rep.not_upgraded:
            print(f"{args.history}: no month to summarise (every month ended within {args.keep_days} days of the "
                  "newest run, or is summarised already) and no ended month to compress")
            return 0
        if rep.files:
            dropped = f"; {rep.left_out} entries of runs without a run record left out" if rep.left_out else ""
            print(f"{args.history}: {rep.files} file(s) of {len(rep.months)} month(s) ({', '.join(rep.months)}) "
                  f"summarised, {rep.entries} entries, {rep.bytes_before / 2**20:.1f} MiB -> "
                  f"{rep.bytes_after / 2**20:.2f} MiB{dropped}; every entry proven to read back less its min, max, "
                  "mean, stddev and digest")
        if rep.closed_files:
            print(f"{args.history}: {rep.closed_files} file(s) of {len(rep.closed_months)} ended month(s) "
                  f"({', '.join(rep.closed_months)}) kept whole, compressed, {rep.closed_before / 2**20:.1f} MiB -> "
                  f"{rep.closed_after / 2**20:.2f} MiB; each read back as written")
        if rep.upgraded:
            print(f"{args.history}: {rep.upgraded} summarised month(s) of an older version (history-summary/1, /2) "
                  f"rewritten as /3, {rep.upgraded_before / 2**20:.1f} MiB -> {rep.upgraded_after / 2**20:.1f} MiB; "
                  "each holds the same rows, its toolchain verdicts cut to each metric's ratio and verdict, proven "
                  "before it was written")
        for why in rep.not_upgraded:
            print(f"{args.history}: left as it is (read as it is): {why}")
        return 0
    rep = add_results(args.history, args.results)
    if args.data_js:
        data_js.update(args.data_js, rep.new_runs, rep.new_entries, args.repo_url)
    print(f"{args.history}: {len(rep.runs_added)} run(s) added ({rep.entries_added} entries), "
          f"{len(rep.runs_present)} already present")
    return 0
