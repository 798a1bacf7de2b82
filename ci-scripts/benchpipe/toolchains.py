"""Building the programs once per toolchain, and the build manifest.

Go: `GOTOOLCHAIN=<ver> go build -o <out> .` in <source>/go (`local` = the go on PATH;
a named version is fetched by the go command itself, the standard way). Channels
(`stable`, `oldstable`, `previous`: the minor before the local Go's, `1.25.x`) are
resolved to the newest release they name from the Go module proxy's list of toolchains
(`go list -m -versions golang.org/toolchain`), the list the go command itself
downloads toolchains from.
Rust: `cargo +<tc> build --release --target-dir <per-toolchain dir>` in <source>/rust,
after `rustup toolchain install <tc> --profile minimal` when <tc> is missing
(`local` = the cargo on PATH with its default toolchain).

Target dirs are kept between builds: cargo and go decide what is stale, we never wipe.
The manifest (<out>/manifest.json) lists every program built: build name from the
catalogue, lang, toolchain id as the program prints it (go1.26.8, rust1.95.0), the full
version string, the channel it was asked for (what a trend series is keyed by, so a
compiler release is a point on a series: stable, oldstable, beta, nightly, 1.25.x, a
pinned 1.90.0, local), the absolute path, the label (head/base) and the source commit.

Asked for some scenarios only (`bench build --scenario`, `bench run`), a build leaves out
the split program (the SQL one) when none of them needs it: it is the larger half of a
cold build (sqlx and SQLite for Rust, cgo for Go). Its manifest entry lists the
scenarios it was built without (`without`), and asking it to run one of them is a
one-line error, not the lean program failing on a scenario it lacks."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchpipe import fsutil, sqlite_link, tools
from benchpipe.catalogue import Catalogue
from benchpipe.errors import BenchError, UsageError

MANIFEST_SCHEMA = "gorust-bench.manifest/2"  # 2: `paths` (a build's split program)
EXE = ".exe" if sys.platform == "win32" else ""
GO_NAME = re.compile(r"^(local|stable|oldstable|previous|go\d+\.\d+(\.\d+|\.x)?((rc|beta)\d+)?|\d+\.\d+(\.\d+|\.x))$")
RUST_NAME = re.compile(r"^(local|stable|beta|nightly(-\d{4}-\d{2}-\d{2})?|\d+\.\d+(\.\d+)?)$")


@dataclass
class Built:
    build: str  # catalogue build name: go, rust-system, rust-mimalloc
    lang: str
    program: str  # gobench, rsbench, rsbench-mimalloc
    toolchain: str  # the id the program prints: go1.26.8, rust1.95.0
    request: str  # what was asked for: local, go1.26.8, stable, 1.90.0
    version: str  # `go version` / `rustc --version`
    path: str  # absolute path of the executable
    label: str
    commit: str
    channel: str = ""  # stable, oldstable, beta, nightly, 1.25.x, 1.90.0, local (see channel_of)
    paths: dict[str, str] = field(default_factory=dict)  # scenario -> the build's split program (gobench-sql)
    without: list[str] = field(default_factory=list)  # split scenarios whose program was not built

    def path_for(self, scenario: str) -> str:
        """The executable that runs this scenario."""
        if scenario in self.without:
            raise UsageError(f"{self.build} ({self.request}, {self.label}) was built without the program that runs "
                             f"{scenario}: build that toolchain and label again with --scenario {scenario} "
                             "(or without --scenario, for every program)")
        return self.paths.get(scenario, self.path)


def split_wanted(b, scenarios: set[str] | None) -> bool:
    """Whether catalogue build b's split program is built for these scenarios (None: all)."""
    return bool(b.split_program) and (scenarios is None or bool(scenarios & set(b.split_scenarios)))


def _without(b, scenarios: set[str] | None) -> list[str]:
    """The split scenarios of catalogue build b left without their program."""
    return list(b.split_scenarios) if b.split_program and not split_wanted(b, scenarios) else []


def parse_list(text: str | None, lang: str) -> list[str]:
    """`go1.26.8,local` -> ['go1.26.8', 'local']; a malformed name is a usage error."""
    if not text:
        return []
    out = []
    for name in (t.strip() for t in text.split(",")):
        if not name:
            continue
        rx = GO_NAME if lang == "go" else RUST_NAME
        if not rx.match(name):
            example = ("stable, oldstable, previous, 1.25.x, go1.26.8 or local" if lang == "go"
                       else "stable, beta, nightly, 1.90.0 or local")
            raise UsageError(f"unknown {lang} toolchain {name!r} (expected e.g. {example})")
        if name not in out:
            out.append(name)
    return out


def channel_of(request: str, lang: str) -> str:
    """The name a trend series is kept under: the channel as asked for, pinned versions
    without the language prefix (go1.25.5 -> 1.25.5, go1.25.x -> 1.25.x)."""
    if lang == "go" and re.match(r"^go\d", request):
        return request[2:]
    return request


_GO_RELEASE = re.compile(r"^v0\.0\.1-go(\d+)\.(\d+)(?:\.(\d+))?\.([a-z0-9]+)-([a-z0-9]+)$")


def go_releases(go: str) -> list[tuple[int, int, int]]:
    """The Go releases (no rc/beta) the module proxy offers for this host, oldest first."""
    env = _env({"GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod", "GO111MODULE": "on"})
    hostos = _run([go, "env", "GOHOSTOS"], Path.cwd(), env, "go env", True).strip()
    hostarch = _run([go, "env", "GOHOSTARCH"], Path.cwd(), env, "go env", True).strip()
    with tempfile.TemporaryDirectory(prefix="bench-go-") as tmp:  # outside any module
        out = _run([go, "list", "-m", "-versions", "-json", "golang.org/toolchain"], Path(tmp), env,
                   "go list -m -versions golang.org/toolchain (the Go releases)", True)
    try:
        versions = json.loads(out).get("Versions") or []
    except ValueError as err:
        raise BenchError(f"go list -m -versions golang.org/toolchain: unreadable output ({err})") from None
    found = set()
    for v in versions:
        m = _GO_RELEASE.match(v)
        if m and (m.group(4), m.group(5)) == (hostos, hostarch):
            found.add((int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)))
    return sorted(found)


def pick_go(request: str, releases: list[tuple[int, int, int]], local: str = "") -> str:
    """A Go channel to the release it names: stable (newest), oldstable (newest of the
    minor before), previous (newest of the minor before the local Go's, `local` as
    `go version` names it), 1.25.x (newest 1.25); a pinned version or local as it is."""
    m = re.match(r"^(?:go)?(\d+)\.(\d+)\.x$", request)
    if request not in ("stable", "oldstable", "previous") and not m:
        return request if request == "local" or request.startswith("go") else f"go{request}"
    minors = sorted({(a, b) for a, b, _ in releases})
    mine = re.match(r"^go(\d+)\.(\d+)", local)
    if request == "previous":
        before = [mb for mb in minors if mine and mb < (int(mine.group(1)), int(mine.group(2)))]
        if not before:
            raise BenchError(f"go previous: the module proxy lists no release before the local {local or 'Go'}")
        want = before[-1]
    elif m:
        want = (int(m.group(1)), int(m.group(2)))
    elif len(minors) >= (1 if request == "stable" else 2):
        want = minors[-1] if request == "stable" else minors[-2]
    else:
        raise BenchError(f"go {request}: the module proxy lists no such release")
    patches = [p for a, b, p in releases if (a, b) == want]
    if not patches:
        raise BenchError(f"go {request}: the module proxy lists no go{want[0]}.{want[1]} release")
    return f"go{want[0]}.{want[1]}.{max(patches)}"


def resolve_go(request: str, go: str) -> str:
    """What GOTOOLCHAIN gets for a request (local, or a go1.X.Y)."""
    if request in ("stable", "oldstable", "previous") or request.endswith(".x"):
        try:
            releases = go_releases(go)
        except BenchError as err:
            raise BenchError(f"go {request}: cannot list the Go releases ({err}); name a version "
                             f"(go1.26.8) or local instead") from None
        local = ""
        if request == "previous":
            env = _env({"GOTOOLCHAIN": "local"})
            local = _run([go, "env", "GOVERSION"], Path.cwd(), env, "go env GOVERSION", True).strip()
        return pick_go(request, releases, local)
    return pick_go(request, [])


def _git(source: Path, *args: str) -> str:
    try:
        out = subprocess.run(["git", "-C", str(source), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def git_commit(source: Path) -> str:
    return _git(source, "rev-parse", "HEAD") or "unknown"


def _env(extra: dict | None = None) -> dict:
    env = {**os.environ, "PATH": tools.path_with_extras()}
    env.update(extra or {})
    return env


def _run(argv: list[str], cwd: Path, env: dict, what: str, quiet: bool) -> str:
    """Run a build step; on failure a one-line error with the tail of its output."""
    if not quiet:
        print(f"build: {' '.join(argv)}  (in {cwd})", file=sys.stderr, flush=True)
    try:
        out = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    except OSError as err:
        raise BenchError(f"{what}: cannot run {argv[0]}: {err}") from None
    if out.returncode != 0:
        tail = _failure_lines(out.stderr or out.stdout)
        raise BenchError(f"{what} failed (exit {out.returncode}): {tail}")
    return out.stdout


def _failure_lines(output: str) -> str:
    """What a failed build said, on one line: its `error` lines when it has them (a
    backtrace after them would otherwise push them out), else the last four lines."""
    lines = [line.strip() for line in output.strip().splitlines()]
    errors = [line for line in lines if line.startswith("error")]
    return " | ".join(errors[:4] or lines[-4:])


def program_toolchain(path: str) -> str:
    """The toolchain id the program reports in `list` (it goes into every record)."""
    try:
        out = subprocess.run([path, "list"], capture_output=True, text=True, timeout=60)
        return json.loads(out.stdout.strip().splitlines()[-1])["toolchain"]
    except (OSError, subprocess.SubprocessError, ValueError, KeyError, IndexError, TypeError) as err:
        raise BenchError(f"{path} list: no usable listing ({err})") from None


# Two builds of the same source, the same bytes: -trimpath drops the checkout's paths, and
# an empty build ID drops the hash of the build's inputs, which names the SQLite library's
# directory (the cgo flags of the SQL program point into the Rust build's target dir, one
# per label): the base and head of a PR differed in those 57 bytes alone. -buildvcs=false:
# go stamps the commit and its time into the program inside a git checkout (vcs.revision),
# so a program a pull request did not change would differ from the base's, and be
# counted again under Valgrind (instructions.pass_key).
GO_REPRODUCIBLE = ("-trimpath", "-buildvcs=false", "-ldflags=-buildid=")


def build_go(cat: Catalogue, source: Path, request: str, out_dir: Path, label: str, quiet=False,
             sqlite: sqlite_link.SqliteLib | None = None, scenarios: set[str] | None = None) -> list[Built]:
    go = tools.require("go")
    src = source / "go"
    if not (src / "go.mod").is_file():
        raise BenchError(f"{src}: no Go program here (go.mod missing)")
    resolved = resolve_go(request, go)
    if resolved != request and not quiet:
        print(f"build: go {request} is {resolved}", file=sys.stderr, flush=True)
    env = _env({"GOTOOLCHAIN": resolved})
    tags = []
    gos = [b for b in cat.builds.values() if b.lang == "go"]
    if sqlite:
        env.update(sqlite.go_env(env))
        tags = [sqlite_link.GO_TAGS]
    elif not quiet and any(split_wanted(b, scenarios) for b in gos):
        print("build: go links the SQLite mattn bundles (no SQLite from a Rust build to share)",
              file=sys.stderr, flush=True)
    dest = (out_dir / label / request).resolve()
    dest.mkdir(parents=True, exist_ok=True)
    what = f"go build ({request})"
    version = _run([go, "version"], src, env, f"go version ({request})", True).strip()
    out = []
    for b in gos:
        exe = dest / (b.program + EXE)
        # The lean program: no build tags, so nothing of the SQL scenarios (nor cgo) is linked.
        _run([go, "build", *GO_REPRODUCIBLE, "-o", str(exe), "."], src, env, what, quiet)
        paths = {}
        if split_wanted(b, scenarios):
            split = dest / (b.split_program + EXE)
            _run([go, "build", *GO_REPRODUCIBLE, "-tags", ",".join([b.split_tags, *tags]), "-o", str(split), "."],
                 src, env, what, quiet)
            paths = {sc: str(split) for sc in b.split_scenarios}
        out.append(Built(b.name, "go", b.program, program_toolchain(str(exe)), request, version, str(exe), label,
                         git_commit(source), channel_of(request, "go"), paths, _without(b, scenarios)))
    return out


def _rustup_toolchains(rustup: str) -> list[str]:
    out = subprocess.run([rustup, "toolchain", "list"], capture_output=True, text=True)
    return [line.split()[0] for line in out.stdout.splitlines() if line.strip()]


def _missing_tools(rustup: str, request: str) -> list[str]:
    """The tools a build needs that the installed toolchain lacks."""
    return [tool for tool in ("cargo", "rustc")
            if subprocess.run([rustup, "which", "--toolchain", request, tool], capture_output=True).returncode != 0]


def ensure_rust_toolchain(request: str, quiet=False) -> None:
    if request == "local":
        return
    rustup = tools.which("rustup")
    if not rustup:
        raise BenchError(f"rust toolchain {request}: rustup not found (install it: https://rustup.rs)")
    have = _rustup_toolchains(rustup)
    if any(t == request or t.startswith(request + "-") for t in have):
        missing = _missing_tools(rustup, request)
        if not missing:
            return
        # An install that was cut short (a cancelled job, a full disk) leaves the toolchain
        # listed without cargo, and every build with it fails; put it in again.
        if not quiet:
            print(f"build: rust toolchain {request} has no {' or '.join(missing)} (an interrupted install?); "
                  f"rustup toolchain uninstall {request}, then install it again", file=sys.stderr, flush=True)
        subprocess.run([rustup, "toolchain", "uninstall", request], capture_output=True, text=True)
    if not quiet:
        print(f"build: rustup toolchain install {request} --profile minimal", file=sys.stderr, flush=True)
    res = subprocess.run([rustup, "toolchain", "install", request, "--profile", "minimal"], capture_output=True, text=True)
    if res.returncode != 0:
        raise BenchError(f"rustup toolchain install {request} failed: {_failure_lines(res.stderr)}")
    missing = _missing_tools(rustup, request)
    if missing:
        raise BenchError(f"rustup toolchain install {request}: still no {' or '.join(missing)} in it")


def reproducible_rust_env(env: dict, src: Path, target: Path) -> dict:
    """Two builds of the same Rust source, the same bytes (as GO_REPRODUCIBLE gives Go),
    whatever commit, checkout or moment they come from. A PR's head and base are built
    from two checkouts into two target dirs, at two moments; the binaries differed all
    through .rodata because C code the Rust programs compile (mimalloc) holds
    __DATE__/__TIME__, and in small processes the shifted layout moved peak memory (Rust
    hashmap spawn: 6.4 against 6.2 MB, flagged in an A/A). So SOURCE_DATE_EPOCH (which
    the C compiler uses for those) is a fixed 0, not the commit's time: a program a pull
    request did not touch is then the base's bytes, runs from the base's copy
    (runner.fresh_copies) and is counted once under Valgrind (instructions.pass_key).
    rustc's recorded paths are remapped to fixed names. CARGO_ENCODED_RUSTFLAGS (which
    cargo prefers to RUSTFLAGS) keeps any flags the user set and survives spaces in
    paths; a SOURCE_DATE_EPOCH the user set is kept."""
    env = dict(env)
    env.setdefault("SOURCE_DATE_EPOCH", "0")
    encoded = env.pop("CARGO_ENCODED_RUSTFLAGS", None)
    plain = env.pop("RUSTFLAGS", "")
    flags = [f for f in encoded.split("\x1f") if f] if encoded else plain.split()
    flags += [f"--remap-path-prefix={src}=/bench/rust", f"--remap-path-prefix={target}=/bench/target"]
    env["CARGO_ENCODED_RUSTFLAGS"] = "\x1f".join(flags)
    return env


def rust_build_args(cat: Catalogue, scenarios: set[str] | None = None) -> list[list[str]]:
    """`cargo build` arguments, one list a build, that make every Rust program these
    scenarios need (None: all): the lean ones without the default features (Cargo.toml:
    `sql` is a default so that cargo test and clippy see every scenario), then each split
    program wanted with its features. `--bin` builds the programs named alone, so neither
    build overwrites the other's."""
    rust = [b for b in cat.builds.values() if b.lang == "rust"]
    split = [b for b in rust if split_wanted(b, scenarios)]
    out = [["--no-default-features", *[a for b in rust for a in ("--bin", b.program)]]]
    for features in sorted({b.split_features for b in split}):
        out.append(["--features", features, *[a for b in split if b.split_features == features
                                              for a in ("--bin", b.split_program)]])
    return out


def _declares_bins(cargo_toml: Path, names: list[str]) -> bool:
    """Whether the manifest declares every one of these binaries ([[bin]] name)."""
    try:
        doc = tomllib.loads(cargo_toml.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise BenchError(f"{cargo_toml}: cannot read it: {err}") from err
    have = {b.get("name") for b in doc.get("bin", []) if isinstance(b, dict)}
    return set(names) <= have


def build_rust(cat: Catalogue, source: Path, request: str, out_dir: Path, label: str, quiet=False,
               scenarios: set[str] | None = None) -> tuple[list[Built], sqlite_link.SqliteLib | None]:
    """The Rust programs, and the SQLite library their build compiled (for Go to link)."""
    cargo = tools.require("cargo")
    src = source / "rust"
    if not (src / "Cargo.toml").is_file():
        raise BenchError(f"{src}: no Rust program here (Cargo.toml missing)")
    ensure_rust_toolchain(request, quiet)
    plus = [] if request == "local" else [f"+{request}"]
    env = _env()
    env.pop("RUSTUP_TOOLCHAIN", None)  # `+tc` must win
    rustc = tools.which("rustc") or "rustc"
    version = _run([rustc, *plus, "--version"], src, env, f"rustc --version ({request})", True).strip()
    # One target dir per label and toolchain: switching toolchains never invalidates
    # another's cache, and nothing is rebuilt when the sources did not change.
    target = (out_dir / label / request / "target").resolve()
    env = reproducible_rust_env(env, src.resolve(), target)
    rust = [b for b in cat.builds.values() if b.lang == "rust"]
    base = [cargo, *plus, "build", "--release", "--locked", "--target-dir", str(target)]
    split = [b for b in rust if b.split_program]
    whole = bool(split) and not _declares_bins(src / "Cargo.toml", [b.split_program for b in split])
    if whole:
        # An older checkout (a pull request's base from before the split): one program a
        # build with every scenario, as it was then; its records say which program ran.
        if not quiet:
            print(f"build: {src} has no {split[0].split_program} (a commit before the SQL scenarios were split "
                  "off): its programs run every scenario", file=sys.stderr, flush=True)
        _run(base, src, env, f"cargo build ({request})", quiet)
        split = []
    else:
        split = [b for b in split if split_wanted(b, scenarios)]
        for extra in rust_build_args(cat, scenarios):
            _run([*base, *extra], src, env, f"cargo build ({request}, {' '.join(extra)})", quiet)
    out = []
    for b in rust:
        exe = target / "release" / (b.program + EXE)
        paths = {}
        if b in split:
            paths = {sc: str(target / "release" / (b.split_program + EXE)) for sc in b.split_scenarios}
        for path in {str(exe), *paths.values()}:
            if not Path(path).is_file():
                raise BenchError(f"cargo build ({request}) did not produce {path}")
        out.append(Built(b.name, "rust", b.program, program_toolchain(str(exe)), request, version, str(exe), label,
                         git_commit(source), channel_of(request, "rust"), paths,
                         [] if whole else _without(b, scenarios)))
    return out, sqlite_link.find(target)


def build_all(cat: Catalogue, source: Path, out_dir: Path, go: list[str], rust: list[str], label: str, quiet=False,
              scenarios: set[str] | None = None) -> list[Built]:
    """Every program of these toolchains (scenarios: only those these need; None: all)."""
    source = Path(source).resolve()
    if not source.is_dir():
        raise UsageError(f"--source {source}: no such directory")
    built, sqlite = [], None
    # Rust first: Go links the SQLite the (first) Rust build compiled.
    for req in rust:
        programs, lib = build_rust(cat, source, req, out_dir, label, quiet, scenarios)
        built += programs
        sqlite = sqlite or lib
    go_built = []
    for req in go:
        go_built += build_go(cat, source, req, out_dir, label, quiet, sqlite, scenarios)
    return go_built + built


def write_manifest(out_dir: Path, built: list[Built]) -> Path:
    """Merge into <out>/manifest.json, newest last: other labels' entries stay (a base
    built by one call, the head by the next), as do other toolchains of the same commit
    (`build --go local` then `--go stable`); the same build, toolchain and label are
    replaced, and so are a label's entries of another commit (a head built from an older
    commit is not this head's program: `run --manifest` would run it beside the new one)."""
    path = Path(out_dir) / "manifest.json"
    old = []
    if path.is_file():
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            old = [Built(**b) for b in doc["builds"]] if doc.get("schema") == MANIFEST_SCHEMA else []
        except (ValueError, KeyError, TypeError):
            old = []
    new_ids = {(b.build, b.request, b.label) for b in built}
    commits = {b.label: b.commit for b in built}
    merged = [b for b in old if (b.build, b.request, b.label) not in new_ids
              and commits.get(b.label, b.commit) == b.commit] + built
    fsutil.atomic_write_json(path, {"schema": MANIFEST_SCHEMA, "builds": [_entry(b) for b in merged]})
    return path


def _entry(b: Built) -> dict:
    """A manifest entry: `without` only where something was left out, so that code from
    before it was kept (an older checkout sharing the build folder) still reads the
    manifests of whole builds."""
    doc = asdict(b)
    if not doc["without"]:
        del doc["without"]
    return doc


def read_manifest(path: Path) -> list[Built]:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        if doc.get("schema") != MANIFEST_SCHEMA:
            raise ValueError(f"schema is {doc.get('schema')!r}, expected {MANIFEST_SCHEMA!r}")
        return [Built(**b) for b in doc["builds"]]
    except FileNotFoundError:
        raise BenchError(f"{path}: no such manifest (run `bench build` first)") from None
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise BenchError(f"{path}: not a valid build manifest: {err}") from None
