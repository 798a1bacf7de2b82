"""`bench services [--service NAME ...] -- CMD...`: CMD with the DSN variable of every
service the catalogue's scenarios need (BENCH_MYSQL_DSN, ...) pointing at a throwaway
server on 127.0.0.1, or at the server the variable already names; the servers are
always stopped and their data removed afterwards. A service that cannot be had is
noted and its variable left unset (its tests skip), unless BENCH_REQUIRE_SERVICES=1.
Exit code: CMD's."""

from __future__ import annotations

import argparse

from benchpipe import catalogue, services
from benchpipe.commands.catalogue import split_list
from benchpipe.errors import UsageError

NAME = "services"
HELP = "run a command with every scenario's server (throwaway MariaDB, PostgreSQL, ...) and its DSN variable"


def add_arguments(p):
    p.add_argument("--service", action="append", metavar="NAME",
                   help="only these services (repeatable or comma-separated; default: every one a scenario needs)")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="the command to run (after --)")


def wanted(cat: catalogue.Catalogue) -> list[str]:
    """The services the catalogue's scenarios need, in catalogue order."""
    return list(dict.fromkeys(sc.service for sc in cat.scenarios.values() if sc.service))


def run(args) -> int:
    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError("no command given (usage: bench services [--service NAME] -- CMD [ARG...])")
    names = split_list(args.service) or wanted(catalogue.load())
    unknown = [n for n in names if n not in services.names()]
    if unknown:
        raise UsageError(f"unknown service {', '.join(unknown)} (known: {', '.join(services.names())})")
    try:
        return services.run_with(names, cmd)
    except KeyboardInterrupt:
        return 130
