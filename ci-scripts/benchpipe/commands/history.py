"""`bench history add|check|migrate`: append runs to the history (Contract 3) / validate
it / rewrite its history/1 entries files in the compact history/2 format."""

from __future__ import annotations

import sys
from pathlib import Path

from benchpipe import compare, history, results
from benchpipe.errors import one_line
from benchpipe.export import data_js

NAME = "history"
HELP = "append results to the history (add), validate it (check) or compact it (migrate)"


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
    rep = add_results(args.history, args.results)
    if args.data_js:
        data_js.update(args.data_js, rep.new_runs, rep.new_entries, args.repo_url)
    print(f"{args.history}: {len(rep.runs_added)} run(s) added ({rep.entries_added} entries), "
          f"{len(rep.runs_present)} already present")
    return 0
