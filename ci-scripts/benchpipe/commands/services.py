"""`bench mysql-server -- CMD...`: CMD with BENCH_MYSQL_DSN pointing at a throwaway
MariaDB/MySQL on 127.0.0.1 (or the BENCH_MYSQL_DSN already set); the server is always
stopped and its data removed afterwards. Exit code: CMD's."""

from __future__ import annotations

import argparse

from benchpipe import mysqlserver
from benchpipe.errors import UsageError

NAME = "mysql-server"
HELP = "run a command with BENCH_MYSQL_DSN pointing at a throwaway MariaDB/MySQL server"


def add_arguments(p):
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="the command to run (after --)")


def run(args) -> int:
    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError("no command given (usage: bench mysql-server -- CMD [ARG...])")
    try:
        return mysqlserver.run_with_server(cmd)
    except KeyboardInterrupt:
        return 130
