"""What of macOS and Windows can be checked on this Linux machine (issue 14, items 7-8):
the Go programs build and vet for darwin/amd64, darwin/arm64 and windows/amd64; the
Rust programs pass `cargo check` and clippy for both macOS targets. Only a real runner
shows that they run there (timings, memory, the filesystem); the workflows' macOS and
Windows legs do that."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchpipe import ROOT, toolchains, tools
from conftest import installed_rust_targets, unavailable

MACOS = ("x86_64-apple-darwin", "aarch64-apple-darwin")
STANDIN = Path(__file__).resolve().parent / "cc_standin.sh"


def _go(args, **env) -> subprocess.CompletedProcess:
    return subprocess.run(["go", *args], cwd=ROOT / "go", capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PATH": tools.path_with_extras(), **env})


@pytest.mark.skipif(not shutil.which("go"), reason="Go is not installed")
@pytest.mark.parametrize("goos, goarch", [("darwin", "amd64"), ("darwin", "arm64"), ("windows", "amd64")])
def test_the_lean_go_program_builds_and_vets_for(goos, goarch, tmp_path):
    """gobench has no cgo, so it cross-builds; gobench-sql needs cgo and a C compiler for
    the target (the workflows build it on each OS)."""
    env = {"GOOS": goos, "GOARCH": goarch}
    for args in (["vet", "./..."], ["build", *toolchains.GO_REPRODUCIBLE, "-o", str(tmp_path / "gobench"), "."]):
        res = _go(args, **env)
        assert res.returncode == 0, f"{goos}/{goarch}: go {' '.join(args)}: {res.stderr[-1500:]}"
    assert (tmp_path / "gobench").stat().st_size > 0


@pytest.mark.skipif(not shutil.which("go"), reason="Go is not installed")
def test_gobench_sql_refuses_to_build_without_cgo(tmp_path):
    """Without cgo, go-sqlite3 becomes a stub that fails only at run time: the build
    itself fails instead, and says why."""
    res = _go(["build", "-tags", "sql", "-o", str(tmp_path / "x"), "."], CGO_ENABLED="0")
    assert res.returncode != 0 and "gobenchSQLNeedsCgo" in res.stderr, res.stderr[-800:]
    assert not (tmp_path / "x").exists()


@pytest.mark.skipif(not shutil.which("cargo"), reason="Rust is not installed")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a stand-in for Linux; macOS builds the real thing")
@pytest.mark.parametrize("what", ["check", "clippy"])
def test_the_rust_programs_check_for_macos(what, build_dir):
    """libsqlite3-sys and libmimalloc-sys compile C with the target's compiler, which a
    Linux machine lacks (host cc: "unrecognized option '-arch'"); a stand-in compiler
    (tests/cc_standin.sh) gives them empty objects, since a check links nothing. The
    Rust code, ours and the crates', is checked for real."""
    missing = set(MACOS) - installed_rust_targets()
    if missing:
        unavailable(f"rust targets missing: {', '.join(sorted(missing))} (rustup target add ...)",
                    f"rust targets missing: {', '.join(sorted(missing))} (install-tools.sh adds them)")
    env = {**os.environ, "PATH": tools.path_with_extras()}
    for t in MACOS:
        env[f"CC_{t.replace('-', '_')}"] = str(STANDIN)
        env[f"AR_{t.replace('-', '_')}"] = "ar"
    argv = ["cargo", what, "--locked", "--release", "--all-targets", *[a for t in MACOS for a in ("--target", t)],
            "--target-dir", str(build_dir / "macos-check")]
    if what == "clippy":
        argv += ["--", "-D", "warnings"]
    res = subprocess.run(argv, cwd=ROOT / "rust", capture_output=True, text=True, timeout=1800, env=env)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "Finished" in res.stderr
