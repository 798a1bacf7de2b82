"""`bench validate FILE...`: check results files (e.g. downloaded artifacts, which are
untrusted) against Contract 2; one line per bad file, exit 1 if any is bad."""

from __future__ import annotations

import sys

from benchpipe import results
from benchpipe.errors import BenchError, one_line

NAME = "validate"
HELP = "check results files against the results schema"


def add_arguments(p):
    p.add_argument("files", nargs="+", metavar="FILE", help="results files")


def run(args) -> int:
    bad = 0
    for path in args.files:
        try:
            doc = results.load(path)
        except BenchError as err:
            print(one_line(f"bench validate: {err}"), file=sys.stderr)
            bad += 1
            continue
        print(one_line(f"{path}: ok ({len(doc['benchmarks'])} benchmarks)"))
    return 1 if bad else 0
