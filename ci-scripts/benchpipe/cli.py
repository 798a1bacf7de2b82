"""`ci-scripts/bench <subcommand>`: finds the subcommands in benchpipe/commands/ (one
module each, with NAME, HELP, add_arguments(parser) and run(args) -> int)."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from benchpipe import commands
from benchpipe.errors import BenchError


def _load_commands():
    mods = []
    for info in pkgutil.iter_modules(commands.__path__):
        if info.name.startswith("_"):
            continue
        mods.append(importlib.import_module(f"benchpipe.commands.{info.name}"))
    return sorted(mods, key=lambda m: m.NAME)


class _Parser(argparse.ArgumentParser):
    # argparse's own errors are usage errors: one line, exit 2.
    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="bench", description="Go vs Rust concurrency benchmark pipeline")
    sub = parser.add_subparsers(dest="command", required=True, metavar="<command>", parser_class=_Parser)
    for mod in _load_commands():
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except BenchError as err:
        print(f"bench {args.command}: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print(f"bench {args.command}: interrupted", file=sys.stderr)
        return 130
