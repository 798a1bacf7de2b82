"""The `mysql` service: a throwaway MariaDB (or MySQL) server on 127.0.0.1.

    with services.dsn("mysql") as dsn:   # mysql://bench:bench@127.0.0.1:PORT/bench
        ...

If BENCH_MYSQL_DSN is set it is used as is and nothing is started (benchpipe.services).
Otherwise, throwaway(): a temp data directory initialised by mariadb-install-db (MySQL: mysqld --initialize-insecure),
the server started with --no-defaults (the machine's my.cnf must not leak in) on a free
port and a socket inside the temp dir, a database `bench` and user bench/bench@127.0.0.1
created through the socket as root, and on exit - normal, exception, Ctrl-C or
SIGTERM - the server is stopped and the temp dir removed. As root the data directory
belongs to the `mysql` user and the server runs with --user=mysql (mariadbd refuses
to run as root)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from benchpipe import services, tools
from benchpipe.errors import BenchError

TITLE = "MariaDB/MySQL"
DSN_VAR = "BENCH_MYSQL_DSN"
TOOLS = [
    services.ServerTool("mariadbd", "the throwaway server", ("mariadbd", "mysqld"), apt="mariadb-server",
                        brew="mariadb"),
    # no harmless --version: mariadb-install-db would initialise the default data directory
    services.ServerTool("mariadb-install-db", "initialises the throwaway server's data directory",
                        ("mariadb-install-db", "mysql_install_db", "mysqld"), apt="mariadb-server", brew="mariadb",
                        version_argv=None),
]
START_TIMEOUT_S = 60


def _find() -> dict:
    server = tools.which("mariadbd") or tools.which("mysqld")
    if not server:
        raise BenchError("no MariaDB/MySQL server binary (mariadbd or mysqld) found; install mariadb-server "
                         f"(see `ci-scripts/bench doctor`) or set {DSN_VAR}")
    client = tools.which("mariadb") or tools.which("mysql")
    if not client:
        raise BenchError("no MariaDB/MySQL client (mariadb or mysql) found; install mariadb-client or set " + DSN_VAR)
    install_db = tools.which("mariadb-install-db") or tools.which("mysql_install_db")
    mariadb = "mariadb" in Path(server).name or bool(tools.which("mariadb-install-db"))
    return {"server": server, "client": client, "install_db": install_db, "mariadb": mariadb}


def _tail(path: Path) -> str:
    try:
        return " | ".join(_reason_lines(path.read_text(errors="replace")))
    except OSError:
        return ""


# mariadb-install-db says why it stopped in a paragraph (the server's log: in its last lines)
INSTALL_REASON_LINES = 6


def _reason_lines(text: str, n: int = 3) -> list[str]:
    """The last n lines that say something: mariadb-install-db ends every failure with
    the same two lines of where to read more, which would hide the reason."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    said = [ln for ln in lines if not ln.startswith(("The latest information about", "https://mariadb.com/"))]
    return said[-n:]


class _Server:
    def __init__(self):
        self.bins = _find()
        self.base = Path(tempfile.mkdtemp(prefix="bench-mysql-"))
        self.datadir = self.base / "data"
        self.sock = self.base / "mysqld.sock"
        self.log = self.base / "server.log"
        self.port = services.free_port()
        self.proc: subprocess.Popen | None = None
        self.as_root = services.is_root()

    def _chown(self) -> None:
        if self.as_root:
            shutil.chown(self.base, "mysql", "mysql")
            os.chmod(self.base, 0o750)

    def init(self) -> None:
        self._chown()
        user = ["--user=mysql"] if self.as_root else []
        if self.bins["mariadb"] and self.bins["install_db"]:
            argv = [self.bins["install_db"], "--no-defaults", f"--datadir={self.datadir}", *user,
                    "--auth-root-authentication-method=normal", "--skip-test-db",
                    # no host-name lookups, as the server runs: on a machine without
                    # /etc/hosts (a bare chroot) the script's resolveip check of
                    # `localhost` fails, and only --force skips that check
                    "--skip-name-resolve", "--force"]
            server_dir = Path(self.bins["server"]).resolve().parent.parent
            if (server_dir / "share").is_dir():
                argv.append(f"--basedir={server_dir}")
        else:
            argv = [self.bins["server"], "--no-defaults", "--initialize-insecure", f"--datadir={self.datadir}", *user]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=180)
        if res.returncode != 0:
            tail = " | ".join(_reason_lines(res.stderr or res.stdout, INSTALL_REASON_LINES))
            raise BenchError(f"initialising the throwaway MySQL data directory failed: {tail}")

    def start(self) -> None:
        user = ["--user=mysql"] if self.as_root else []
        argv = [self.bins["server"], "--no-defaults", f"--datadir={self.datadir}", f"--socket={self.sock}",
                f"--port={self.port}", "--bind-address=127.0.0.1", f"--pid-file={self.base / 'mysqld.pid'}",
                f"--log-error={self.log}", "--skip-name-resolve", "--max-connections=1000", *user]
        # Own session: a Ctrl-C in the terminal reaches us, and we stop the server in order.
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"the throwaway MySQL server exited at start (code {self.proc.returncode}): {_tail(self.log)}")
            if self._sql("SELECT 1", quiet=True):
                return
            time.sleep(0.2)
        raise BenchError(f"the throwaway MySQL server did not accept connections within {START_TIMEOUT_S} s: {_tail(self.log)}")

    def _sql(self, sql: str, quiet=False) -> bool:
        argv = [self.bins["client"], "--no-defaults", "-uroot", f"--socket={self.sock}", "-e", sql]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        if res.returncode != 0 and not quiet:
            raise BenchError(f"setting up the throwaway MySQL server failed: {res.stderr.strip().splitlines()[-1:]}")
        return res.returncode == 0

    def create_user(self) -> None:
        self._sql("CREATE DATABASE IF NOT EXISTS bench; "
                  "CREATE USER IF NOT EXISTS 'bench'@'127.0.0.1' IDENTIFIED BY 'bench'; "
                  "CREATE USER IF NOT EXISTS 'bench'@'localhost' IDENTIFIED BY 'bench'; "
                  "GRANT ALL PRIVILEGES ON bench.* TO 'bench'@'127.0.0.1'; "
                  "GRANT ALL PRIVILEGES ON bench.* TO 'bench'@'localhost'; FLUSH PRIVILEGES;")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: a clean shutdown
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        shutil.rmtree(self.base, ignore_errors=True)

    @property
    def dsn(self) -> str:
        return f"mysql://bench:bench@127.0.0.1:{self.port}/bench"


@contextlib.contextmanager
def throwaway():
    """Start a server, yield its DSN; stop it and remove its data on the way out."""
    srv = _Server()
    try:
        srv.init()
        srv.start()
        srv.create_user()
        yield srv.dsn
    finally:
        srv.stop()
