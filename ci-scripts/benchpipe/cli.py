"""`ci-scripts/bench <subcommand>`: finds the subcommands in benchpipe/commands/ (one
module each, with NAME, HELP, add_arguments(parser) and run(args) -> int; the module
file is NAME with dashes as underscores).

Only the module of the subcommand being run is imported: some pull in scipy, which
costs seconds, and every workflow step and test starts this CLI."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from benchpipe import commands
from benchpipe.errors import BenchError, one_line


def command_names() -> list[str]:
    """Every subcommand, without importing any."""
    return sorted(info.name.replace("_", "-") for info in pkgutil.iter_modules(commands.__path__)
                  if not info.name.startswith("_"))


def _load_commands(only: str | None = None):
    names = [only] if only in command_names() else command_names()
    mods = [importlib.import_module(f"benchpipe.commands.{name.replace('-', '_')}") for name in names]
    return sorted(mods, key=lambda m: m.NAME)


class _Parser(argparse.ArgumentParser):
    # argparse's own errors are usage errors: one line, exit 2.
    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole CLI, or just the subcommand `only` (an unknown name gets them all, so
    argparse can list the choices)."""
    parser = _Parser(prog="bench", description="Go vs Rust concurrency benchmark pipeline")
    sub = parser.add_subparsers(dest="command", required=True, metavar="<command>", parser_class=_Parser)
    for mod in _load_commands(only):
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except BenchError as err:
        print(one_line(f"bench {args.command}: {err}"), file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print(f"bench {args.command}: interrupted", file=sys.stderr)
        return 130
