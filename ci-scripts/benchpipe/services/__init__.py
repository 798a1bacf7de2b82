"""The servers scenarios need (the catalogue's `service = "<name>"`), one module each:
`benchpipe/services/<name>.py` declares

    TITLE = "MariaDB/MySQL"                 # how messages name it
    DSN_VAR = "BENCH_MYSQL_DSN"             # the variable the programs read
    TOOLS = [ServerTool(...), ...]          # what a throwaway server needs here (doctor, install-tools.sh)
    def throwaway():                        # context manager: start one on 127.0.0.1 in a temp
        ...                                 # dir, yield its DSN, stop it and remove everything

and this module starts and stops them all alike: the DSN the environment gives, else a
throwaway server, else the reason its scenarios are skipped. Everything about
database servers lives in this package; the rest of the pipeline asks for a service by
name. Standard library only: install-tools.sh asks it what to install before any
virtual environment exists (`python3 -m benchpipe.services --missing-apt`)."""

from __future__ import annotations

import contextlib
import importlib
import os
import pkgutil
import re
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from benchpipe import tools
from benchpipe.errors import BenchError

# Set to 1 in CI on Linux: a service that cannot be had fails the run instead of
# skipping its scenarios and tests.
REQUIRE_VAR = "BENCH_REQUIRE_SERVICES"


@dataclass(frozen=True)
class ServerTool:
    """A program a throwaway server needs, for `doctor` and install-tools.sh."""
    name: str
    purpose: str
    names: tuple[str, ...] = ()   # the names to look for (default: name)
    apt: str = ""                 # the Debian/Ubuntu package that has it
    brew: str = ""                # the Homebrew formula
    version_argv: tuple[str, ...] | None = ("--version",)  # None: no harmless way to ask
    dirs: tuple[str, ...] = field(default=())  # globbed folders beside PATH (/usr/lib/postgresql/*/bin)

    def find(self) -> str | None:
        return find_program(self.names or (self.name,), self.dirs)


def find_program(names, dirs=()) -> str | None:
    """The first of names on PATH (tools.which: cargo/go bins, sbin folders too), else in
    the globbed dirs, the highest version first (/usr/lib/postgresql/16/bin before 15)."""
    for name in names:
        found = tools.which(name)
        if found:
            return found
    for pattern in dirs:
        for d in sorted(Path("/").glob(pattern.lstrip("/")), key=_version_key, reverse=True):
            for name in names:
                if (d / name).is_file() and os.access(d / name, os.X_OK):
                    return str(d / name)
    return None


def _version_key(path: Path) -> tuple[int, ...]:
    """/usr/lib/postgresql/16/bin after .../9/bin: the numbers in the path, as numbers."""
    return tuple(int(x) for x in re.findall(r"\d+", str(path)))


def names() -> list[str]:
    """Every service module in this package."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def module(name: str) -> ModuleType:
    if name not in names():
        raise BenchError(f"unknown service {name!r} (known: {', '.join(names())}): a service is a module "
                         "benchpipe/services/<name>.py")
    return importlib.import_module(f"{__name__}.{name}")


def required() -> bool:
    return os.environ.get(REQUIRE_VAR) == "1"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


@contextlib.contextmanager
def sigterm_as_interrupt():
    """SIGTERM (CI cancelling a job) unwinds like Ctrl-C, so `finally` blocks run and
    throwaway servers are stopped."""
    if sys.platform == "win32" or signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, None):
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@contextlib.contextmanager
def dsn(name: str, use_env: bool = True):
    """Yield the service's DSN: its variable if set, else a throwaway server's (stopped
    and removed on the way out, SIGTERM included). BenchError says why there is none."""
    mod = module(name)
    if use_env and os.environ.get(mod.DSN_VAR):
        yield os.environ[mod.DSN_VAR]
        return
    if sys.platform == "win32":
        raise BenchError(f"no throwaway {mod.TITLE} server on Windows; set {mod.DSN_VAR}")
    with sigterm_as_interrupt(), mod.throwaway() as value:
        yield value


@dataclass
class Available:
    """What `running` got: service -> DSN, and for the others the reason."""
    dsns: dict[str, str] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)

    def env(self) -> dict[str, str]:
        return {module(n).DSN_VAR: d for n, d in self.dsns.items()}

    def why_not(self, name: str) -> str:
        return self.missing.get(name, "")


@contextlib.contextmanager
def running(wanted, note=lambda text: print(text, file=sys.stderr, flush=True)):
    """Every wanted service at once (each one's DSN from the environment, else a
    throwaway server), all stopped on the way out. A service that cannot be had is
    noted and left out, its reason in `missing`, unless BENCH_REQUIRE_SERVICES=1, where
    that is an error."""
    got = Available()
    with contextlib.ExitStack() as stack:
        for name in dict.fromkeys(wanted):
            mod = module(name)
            given = bool(os.environ.get(mod.DSN_VAR))
            try:
                got.dsns[name] = stack.enter_context(dsn(name))
            except BenchError as err:
                if required():
                    raise BenchError(f"{name}: {err} ({REQUIRE_VAR}=1)") from None
                got.missing[name] = f"no {mod.TITLE} server: {err}"
                note(f"{name}: skipped ({err})")
                continue
            note(f"{name}: {'the server of ' + mod.DSN_VAR if given else 'throwaway server at ' + got.dsns[name]}")
        yield got


def run_with(wanted, cmd: list[str]) -> int:
    """Run CMD with the DSN variable of every wanted service set; its exit code. The
    servers are stopped and removed afterwards, whatever happens."""
    with sigterm_as_interrupt(), running(wanted) as got:
        env = {**os.environ, **got.env()}
        for var, value in got.env().items():
            print(f"services: {var}={value}", file=sys.stderr, flush=True)
        try:
            proc = subprocess.Popen(cmd, env=env)
        except OSError as err:
            raise BenchError(f"cannot run {cmd[0]}: {err}") from None
        try:
            return proc.wait()
        except KeyboardInterrupt:
            # CMD got the terminal's Ctrl-C itself; a SIGTERM aimed at us is passed on.
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
            raise


def doctor_tools() -> list[tools.Tool]:
    """Every service's server tools as `doctor` lists them (optional: without them the
    service's scenarios are skipped)."""
    out = []
    for name in names():
        mod = module(name)
        for st in mod.TOOLS:
            t = tools.Tool(st.name, f"{st.purpose} ({name} scenario; else: skipped)", False,
                           install=tools.install_hint(st.apt, st.brew), apt=st.apt or None)
            t.path = st.find()
            if t.path:
                t.version = tools.version_of([t.path, *st.version_argv]) if st.version_argv is not None else st.name
            out.append(t)
    return out


def missing_apt() -> list[str]:
    """The Debian packages of the services whose server tools are missing here."""
    return sorted({st.apt for name in names() for st in module(name).TOOLS if st.apt and not st.find()})

