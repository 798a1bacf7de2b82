"""The `postgres` service: a throwaway PostgreSQL server on 127.0.0.1.

    with services.dsn("postgres") as dsn:   # postgres://bench:bench@127.0.0.1:PORT/bench
        ...

If BENCH_POSTGRES_DSN is set it is used as is and nothing is started (benchpipe.services).
Otherwise, throwaway(): the
server binaries of the OS packages (Debian and Ubuntu: /usr/lib/postgresql/<version>/bin,
the newest; Homebrew: `postgres` on PATH or the newest postgresql@N), a cluster made by initdb in a temp
directory (C locale, UTF-8), started on a free port of 127.0.0.1 with its unix socket in
the temp dir and nothing from the machine's own clusters or their configuration, a role
bench/bench (password login over TCP, scram-sha-256) and its database `bench` created
through the socket, and on exit - normal, exception, Ctrl-C or SIGTERM - a fast
shutdown and the temp dir removed.

initdb and postgres refuse to run as root: as root they run as the `postgres` system
user that Debian's package makes (else `nobody`), the temp dir belonging to it.

The server settings are the package's defaults (durable commits: fsync and
synchronous_commit on) except the two initdb would otherwise size from the machine,
pinned in SETTINGS; the programs read the settings back into every record."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from benchpipe import services, tools
from benchpipe.errors import BenchError

TITLE = "PostgreSQL"
DSN_VAR = "BENCH_POSTGRES_DSN"
START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 60
# Where Debian and Ubuntu put each major version's server (not on PATH).
DEBIAN_ROOT = Path("/usr/lib/postgresql")
# Homebrew's versioned formulae (postgresql@16) are keg-only: off PATH too.
HOMEBREW_OPT = (Path("/opt/homebrew/opt"), Path("/usr/local/opt"))
BINARIES = ("initdb", "postgres", "psql")
_DIRS = ("/usr/lib/postgresql/*/bin", "/opt/homebrew/opt/postgresql@*/bin", "/usr/local/opt/postgresql@*/bin")
TOOLS = [
    services.ServerTool("postgres", "the throwaway server", apt="postgresql", brew="postgresql@16", dirs=_DIRS),
    services.ServerTool("initdb", "initialises the throwaway server's cluster", apt="postgresql",
                        brew="postgresql@16", dirs=_DIRS),
]
SUPERUSER = "postgres"
# Pinned rather than left to initdb's probe of the machine: the pool may be as large as
# the catalogue's maximum (1024) beside setup's connection and the superuser's reserve;
# 128MB is PostgreSQL's own default for the buffer cache.
SETTINGS = {"max_connections": "1100", "shared_buffers": "128MB"}


def _version_key(d: Path) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", d.parent.name)) or (0,)


def _candidate_dirs() -> list[Path]:
    """PATH's first, then the newest of each packaged layout."""
    dirs = []
    found = tools.which("postgres")
    if found:
        dirs += [Path(found).parent, Path(found).resolve().parent]
    dirs += sorted(DEBIAN_ROOT.glob("*/bin"), key=_version_key, reverse=True)
    for opt in HOMEBREW_OPT:
        dirs += sorted(opt.glob("postgresql@*/bin"), key=_version_key, reverse=True)
    return dirs


def bin_dir() -> Path | None:
    """The folder holding initdb, postgres and psql of one installation, or None."""
    for d in _candidate_dirs():
        if all(os.access(d / name, os.X_OK) for name in BINARIES):
            return d
    return None


def _find() -> Path:
    d = bin_dir()
    if d is None:
        raise BenchError("no PostgreSQL server binaries (initdb, postgres, psql) found; install postgresql "
                         f"(see `ci-scripts/bench doctor`) or set {DSN_VAR}")
    return d


def _server_user():
    """The unprivileged user the server runs as when we are root (pwd entry), else None."""
    if not (hasattr(os, "geteuid") and os.geteuid() == 0):
        return None
    import pwd
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise BenchError("running as root, and initdb and postgres refuse root, but there is no `postgres` or `nobody` "
                     f"user to run them as; create one (useradd --system postgres) or set {DSN_VAR}")


def _clean_env() -> dict[str, str]:
    """Our environment without libpq's PG* variables (PGDATA, PGPORT, PGOPTIONS, ...),
    which would otherwise reach initdb, the server and psql."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["LC_ALL"] = "C"
    return env


def _reason(text: str, n: int = 3) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return " | ".join(lines[-n:])


class _Server:
    def __init__(self, settings: dict[str, str] | None = None):
        self.bin = _find()
        self.user = _server_user()
        self.settings = {**SETTINGS, **(settings or {})}
        self.base = Path(tempfile.mkdtemp(prefix="bench-postgres-"))
        self.datadir = self.base / "data"
        self.log = self.base / "server.log"
        self.port = services.free_port()
        self.proc: subprocess.Popen | None = None
        self.env = _clean_env()

    def _as_user(self) -> dict:
        """Popen arguments that run the child as the unprivileged user (as root)."""
        if self.user is None:
            return {}
        return {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}

    def init(self) -> None:
        if self.user is not None:
            os.chown(self.base, self.user.pw_uid, self.user.pw_gid)
        os.chmod(self.base, 0o700)
        argv = [str(self.bin / "initdb"), "-D", str(self.datadir), "-U", SUPERUSER, "--auth-local=trust",
                "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync"]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=180, env=self.env, cwd=self.base,
                             stdin=subprocess.DEVNULL, **self._as_user())
        if res.returncode != 0:
            raise BenchError(f"initialising the throwaway PostgreSQL cluster failed: {_reason(res.stderr or res.stdout)}")

    def start(self) -> None:
        argv = [str(self.bin / "postgres"), "-D", str(self.datadir), "-p", str(self.port),
                "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.base}"]
        for name, value in self.settings.items():
            argv += ["-c", f"{name}={value}"]
        with open(self.log, "wb") as log:
            # Own session: a Ctrl-C in the terminal reaches us, and we stop the server in order.
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         env=self.env, cwd=self.base, start_new_session=True, **self._as_user())
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"the throwaway PostgreSQL server exited at start (code {self.proc.returncode}): "
                                 f"{_reason(self._log_text())}")
            if self._psql("SELECT 1", quiet=True):
                return
            time.sleep(0.2)
        raise BenchError(f"the throwaway PostgreSQL server did not accept connections within {START_TIMEOUT_S} s: "
                         f"{_reason(self._log_text())}")

    def _log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def _psql(self, *commands: str, quiet=False) -> bool:
        """Each command through the socket as the superuser, one transaction each
        (CREATE DATABASE cannot share one)."""
        argv = [str(self.bin / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", str(self.base),
                "-p", str(self.port), "-U", SUPERUSER, "-d", "postgres"]
        for c in commands:
            argv += ["-c", c]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=30, env=self.env, stdin=subprocess.DEVNULL)
        if res.returncode != 0 and not quiet:
            raise BenchError(f"setting up the throwaway PostgreSQL server failed: {_reason(res.stderr, 1)}")
        return res.returncode == 0

    def create_user(self) -> None:
        self._psql("CREATE ROLE bench LOGIN PASSWORD 'bench'", "CREATE DATABASE bench OWNER bench")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            # SIGINT: fast shutdown (sessions ended, a checkpoint, exit); SIGQUIT:
            # immediate shutdown, if that takes too long.
            for sig, wait in ((signal.SIGINT, STOP_TIMEOUT_S), (signal.SIGQUIT, 30)):
                self.proc.send_signal(sig)
                try:
                    self.proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
            else:
                self.proc.kill()
                self.proc.wait(timeout=30)
        shutil.rmtree(self.base, ignore_errors=True)

    @property
    def dsn(self) -> str:
        return f"postgres://bench:bench@127.0.0.1:{self.port}/bench"


@contextlib.contextmanager
def throwaway(settings: dict[str, str] | None = None):
    """Start a server (settings: `-c name=value` beside SETTINGS), yield its DSN; stop it
    and remove its cluster on the way out."""
    srv = _Server(settings)
    try:
        srv.init()
        srv.start()
        srv.create_user()
        yield srv.dsn
    finally:
        srv.stop()
