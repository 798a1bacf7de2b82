"""The external tools the pipeline needs: where they are, which version, and the exact
command that installs each one. `doctor` reports them; `build`, `run` and
`services` use `which()` so a missing tool is one clear message, not a traceback.
The database servers' tools are declared by their service modules (benchpipe/services).

~/.cargo/bin and ~/go/bin are searched as well: CI shells often lack them on PATH,
and that is where `cargo install` / `go install` put things."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from benchpipe.errors import BenchError

HYPERFINE_MIN = (1, 19)  # 1.19 added per-run memory_usage_byte to the JSON export
HYPERFINE_INSTALL = "cargo install --locked hyperfine@1.20.0"
WINDOWS = sys.platform == "win32"


def extra_dirs() -> list[Path]:
    home = Path.home()
    dirs = [Path(os.environ.get("CARGO_HOME", home / ".cargo")) / "bin"]
    gopath = os.environ.get("GOPATH")
    dirs.append(Path(gopath.split(os.pathsep)[0]) / "bin" if gopath else home / "go" / "bin")
    return dirs


def which(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for d in extra_dirs():
        found = shutil.which(name, path=str(d))
        if found:
            return found
    # Debian puts the MariaDB server in /usr/sbin, which a normal user's PATH lacks.
    for d in ("/usr/sbin", "/usr/local/sbin", "/opt/homebrew/bin", "/usr/local/opt/mysql/bin"):
        found = shutil.which(name, path=d)
        if found:
            return found
    return None


def path_with_extras() -> str:
    """PATH plus the cargo/go bin folders, for the child processes we start."""
    parts = os.environ.get("PATH", "").split(os.pathsep)
    for d in extra_dirs():
        if str(d) not in parts:
            parts.append(str(d))
    return os.pathsep.join(p for p in parts if p)


def version_of(argv: list[str], timeout: float = 30) -> str | None:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if out.returncode == 0 and text else None


def parse_version(text: str | None) -> tuple[int, ...] | None:
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    return tuple(int(g) for g in m.groups() if g is not None) if m else None


@dataclass
class Tool:
    name: str
    purpose: str
    required: bool
    path: str | None = None
    version: str | None = None
    problem: str | None = None  # found but unusable (too old, ...)
    install: str = ""
    apt: str | None = None  # the Debian package, for `doctor --install` as root
    stage: str = "run"  # what needs it: run (build and measure), site (charts), test

    def needed_for(self, stage: str) -> bool:
        """Required for `stage` ("all" = every stage): a missing one fails doctor."""
        return self.required and stage in ("all", self.stage)

    @property
    def ok(self) -> bool:
        return self.path is not None and self.problem is None


def install_hint(apt: str, brew: str, other: str = "") -> str:
    """The command that installs a package on this OS."""
    if sys.platform == "darwin":
        return f"brew install {brew}"
    if WINDOWS:
        return other or f"choco install {brew}"
    return f"sudo apt-get install -y {apt}"


def hyperfine() -> Tool:
    t = Tool("hyperfine", "timing (>= 1.19 for per-run memory)", True, install=HYPERFINE_INSTALL)
    t.path = which("hyperfine")
    if t.path:
        t.version = version_of([t.path, "--version"])
        v = parse_version(t.version)
        if v is None or v[:2] < HYPERFINE_MIN:
            t.problem = f"version {t.version or '?'} is older than 1.19 (no per-run memory figures)"
    return t


def check_all() -> list[Tool]:
    tools = [hyperfine()]

    def simple(name, purpose, required, argv, install, apt=None, names=None, stage="run"):
        t = Tool(name, purpose, required, install=install, apt=apt, stage=stage)
        for cand in names or [name]:
            t.path = which(cand)
            if t.path:
                t.version = version_of([t.path, *argv])
                break
        tools.append(t)

    simple("go", "builds the Go program", True, ["version"], "https://go.dev/dl/ (or your package manager)")
    simple("cargo", "builds the Rust program", True, ["--version"], "curl https://sh.rustup.rs -sSf | sh -s -- -y")
    simple("rustup", "installs Rust toolchains (stable, beta, nightly, 1.90.0)", True, ["--version"],
           "curl https://sh.rustup.rs -sSf | sh -s -- -y")
    simple("gnuplot", "charts of the site", True, ["--version"], install_hint("gnuplot-nox", "gnuplot"), apt="gnuplot-nox",
           stage="site")
    if sys.platform.startswith("linux"):  # Valgrind's home; elsewhere the pass says "not measured on this OS"
        simple("valgrind", "instruction counts beside the wall clock (bench run --instructions)", False, ["--version"],
               install_hint("valgrind", "valgrind"), apt="valgrind")
        simple("objcopy", "the instruction pass's library copies without debug links (else Valgrind reads the "
               "C library's debug symbols at every counted run)", False, ["--version"],
               install_hint("binutils", "binutils"), apt="binutils")
    simple("chromium", "browser tests of the site", False, ["--version"],
           install_hint("chromium", "--cask chromium"), apt="chromium",
           names=["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"], stage="test")
    return tools


def require(name: str) -> str:
    """The path of a required tool, or a BenchError that says how to get it."""
    if name == "hyperfine":
        t = hyperfine()
        if not t.ok:
            raise BenchError(f"hyperfine: {t.problem or 'not found'}; install it with `{HYPERFINE_INSTALL}` (see `ci-scripts/bench doctor`)")
        return t.path
    path = which(name)
    if not path:
        raise BenchError(f"{name} not found on PATH; run `ci-scripts/bench doctor` for how to install it")
    return path
