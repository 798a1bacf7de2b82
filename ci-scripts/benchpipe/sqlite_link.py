"""One SQLite for both languages.

The Rust build compiles SQLite from the amalgamation libsqlite3-sys bundles (the one
sqlx pins), with that crate's compile options. The Go build then links that very
static library (`-tags libsqlite3`, mattn's switch for an external SQLite) instead of
the different release mattn bundles, so the sqlite scenario compares the drivers and
runtimes, not two SQLite versions. Where the Rust build left no `libsqlite3.a` (MSVC
names it `sqlite3.lib`, which Go's gcc cannot link), Go keeps mattn's bundled SQLite;
every record names the version and compile options it ran, so the difference shows."""

from __future__ import annotations

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


def _include_dir(build_dir: Path) -> Path | None:
    """The directory of the amalgamation's sqlite3.h, as libsqlite3-sys's build script
    told cargo (`cargo:include=...` in its `output` file, beside the `out/` folder that
    holds the library). Read from the build itself, it needs nothing else: `cargo
    metadata --offline` found it in cargo's registry before, and failed on every fresh
    machine (a registry holding only what the build downloaded lacks the crates of the
    other targets and dev-dependencies), so the Go program linked its own SQLite and
    the sqlite pair compared two SQLite builds."""
    try:
        lines = (build_dir / "output").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        for prefix in ("cargo:include=", "cargo::metadata=include="):
            if line.startswith(prefix):
                inc = Path(line[len(prefix):].strip())
                if (inc / "sqlite3.h").is_file():
                    return inc
    return None


def find(target_dir: Path) -> SqliteLib | None:
    """The SQLite library a finished `cargo build --release` in target_dir compiled, and
    its header (the newest build of libsqlite3-sys there)."""
    libs = sorted((target_dir / "release" / "build").glob("libsqlite3-sys-*/out/libsqlite3.a"),
                  key=lambda p: p.stat().st_mtime)
    if not libs:
        return None
    inc = _include_dir(libs[-1].parent.parent)
    return SqliteLib(libs[-1].parent, inc) if inc else None
