"""One SQLite for both languages.

The Rust build compiles SQLite from the amalgamation libsqlite3-sys bundles (the one
sqlx pins), with that crate's compile options. The Go build then links that very
static library (`-tags libsqlite3`, mattn's switch for an external SQLite) instead of
the different release mattn bundles, so the sqlite scenario compares the drivers and
runtimes, not two SQLite versions. Where the Rust build left no `libsqlite3.a` (MSVC
names it `sqlite3.lib`, which Go's gcc cannot link), Go keeps mattn's bundled SQLite;
every record names the version and compile options it ran, so the difference shows."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

GO_TAGS = "libsqlite3"


@dataclass(frozen=True)
class SqliteLib:
    lib_dir: Path  # holds libsqlite3.a
    include_dir: Path  # holds the matching sqlite3.h

    def go_env(self, env: dict) -> dict:
        """CGO flags that make mattn's libsqlite3 build link this library (statically:
        the directory holds only the .a, and -L dirs are searched before the system's)."""
        def add(name: str, flags: str) -> str:
            return f"{env[name]} {flags}" if env.get(name) else flags
        return {
            "CGO_CFLAGS": add("CGO_CFLAGS", _flag(f"-I{self.include_dir}")),
            "CGO_LDFLAGS": add("CGO_LDFLAGS", f"{_flag(f'-L{self.lib_dir}')} -lm"),
        }


def _flag(flag: str) -> str:
    """One field of a CGO_*FLAGS variable, which go splits at spaces but for a field in
    quotes (a build folder such as "My Projects" would otherwise cut the path in two)."""
    if not any(c.isspace() for c in flag):
        return flag
    quote = "'" if "'" not in flag else '"'
    return f"{quote}{flag}{quote}"


def _host(rustc: str, plus: list[str], env: dict) -> str | None:
    try:
        out = subprocess.run([rustc, *plus, "-vV"], env=env, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return next((line.split(":", 1)[1].strip() for line in out.stdout.splitlines() if line.startswith("host:")), None)


def _include_dir(cargo: str, rustc: str, plus: list[str], rust_src: Path, env: dict) -> Path | None:
    """The amalgamation's directory in cargo's registry. Filtered to the host, cargo
    metadata needs no download (unfiltered it wants every platform's crates)."""
    host = _host(rustc, plus, env)
    if not host:
        return None
    try:
        out = subprocess.run([cargo, *plus, "metadata", "--format-version", "1", "--locked", "--offline",
                              "--filter-platform", host],
                             cwd=rust_src, env=env, capture_output=True, text=True, timeout=120)
        packages = json.loads(out.stdout)["packages"] if out.returncode == 0 else []
    except (OSError, subprocess.SubprocessError, ValueError, KeyError):
        return None
    for p in packages:
        if p.get("name") == "libsqlite3-sys":
            inc = Path(p["manifest_path"]).parent / "sqlite3"
            if (inc / "sqlite3.h").is_file():
                return inc
    return None


def find(target_dir: Path, cargo: str, rustc: str, plus: list[str], rust_src: Path, env: dict) -> SqliteLib | None:
    """The SQLite library a finished `cargo build --release` in target_dir compiled."""
    libs = sorted((target_dir / "release" / "build").glob("libsqlite3-sys-*/out/libsqlite3.a"),
                  key=lambda p: p.stat().st_mtime)
    if not libs:
        return None
    inc = _include_dir(cargo, rustc, plus, rust_src, env)
    return SqliteLib(libs[-1].parent, inc) if inc else None
