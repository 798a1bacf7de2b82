"""The Windows builds, built here and run under Wine (issue 14, item 7): gobench for
windows/amd64 (the lean program without cgo, gobench-sql with cgo through mingw-w64) and
rsbench / rsbench-mimalloc (and their -sql programs) for x86_64-pc-windows-gnu. Every scenario at smoke size
(the database scenarios against the tests' servers on 127.0.0.1),
every variant of every build: exit 0, the same checksums as the Linux builds, the
program's own peak memory (GetProcessMemoryInfo) non-zero, the record saying windows.

What Wine cannot prove, and only the workflows' Windows leg shows: the MSVC toolchain
(the workflows build with the runner's default, GNU here), real Windows timings and
scheduling, memory as Windows accounts it, and the NTFS filesystem's behaviour.

Wine 8 lacks bcryptprimitives.dll, where Go (1.24 and later) takes its randomness
(ProcessPrng) and without which it stops at start-up: the test prefix gets a stand-in
built with mingw-w64 (tests/wine/bcryptprimitives.c). Runs under Linux only."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchpipe import ROOT, toolchains, tools
from conftest import installed_rust_targets, scenario_env, scenario_names, unavailable
from test_checksums import checksums

MINGW_CC = "x86_64-w64-mingw32-gcc"
RUST_TARGET = "x86_64-pc-windows-gnu"
STUB = Path(__file__).resolve().parent / "wine" / "bcryptprimitives.c"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Wine runs the Windows builds on Linux")


def _need(*names):
    missing = [n for n in names if not shutil.which(n, path=tools.path_with_extras())]
    if missing:
        msg = f"{', '.join(missing)} not installed (apt-get install wine wine64 gcc-mingw-w64-x86-64)"
        unavailable(msg, f"the Windows test cannot run under CI: {msg}")


def _sh(argv, what, **kw):
    res = subprocess.run(argv, capture_output=True, text=True, timeout=kw.pop("timeout", 1800), **kw)
    assert res.returncode == 0, f"{what}: exit {res.returncode}: {(res.stderr or res.stdout)[-2000:]}"
    return res


@pytest.fixture(scope="session")
def wine_env(build_dir):
    """A Wine prefix of the tests' own, with the ProcessPrng stand-in in its system32."""
    _need("wine", MINGW_CC)
    prefix = build_dir / "wineprefix"
    env = {**os.environ, "WINEPREFIX": str(prefix), "WINEDEBUG": "-all",
           "WINEDLLOVERRIDES": "mscoree,mshtml="}   # no Mono or Gecko installer dialogs
    system32 = prefix / "drive_c" / "windows" / "system32"
    if not system32.is_dir():
        build_dir.mkdir(parents=True, exist_ok=True)   # Wine makes the prefix, not its parent
        _sh(["wine", "wineboot", "--init"], "wineboot --init", env=env, timeout=600)
    _sh([MINGW_CC, "-O2", "-shared", "-o", str(system32 / "bcryptprimitives.dll"), str(STUB), "-ladvapi32"],
        "building the bcryptprimitives.dll stand-in")
    return env


def wine(argv, env, cwd, timeout=300) -> subprocess.CompletedProcess:
    """argv run under Wine. Our programs never fail without a word (Contract 1: one line
    on stderr), but Wine itself now and then ends a start-up with exit 1 and nothing on
    stdout or stderr (seen once in ~2,000 runs, on a loaded CI machine; WINEDEBUG=-all
    hides its err: lines). Such a silent failure is run again, up to twice, the retry
    with Wine's err: lines shown so that a second one says why; a retry is a warning in
    the test summary, never hidden."""
    res = subprocess.run(["wine", *argv], capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)
    for _ in range(2):
        if res.returncode == 0 or res.stdout.strip() or res.stderr.strip():
            break
        warnings.warn(f"wine {' '.join(map(str, argv))}: exit {res.returncode} without a word; run again")
        res = subprocess.run(["wine", *argv], capture_output=True, text=True, cwd=cwd, timeout=timeout,
                             env={**env, "WINEDEBUG": "fixme-all"})
    return res


def _run_under_wine(argv, env, cwd, timeout=300):
    res = wine(argv, env, cwd, timeout)
    assert res.returncode == 0, f"wine {' '.join(argv)}: exit {res.returncode}: {res.stderr.strip()[-500:]}"
    return res.stdout


@dataclass(frozen=True)
class WinProgram:
    path: Path
    split_path: Path | None = None   # gobench-sql, rsbench-sql: the scenarios that say split = true
    split: tuple[str, ...] = ()

    def path_for(self, scenario: str) -> str:
        return str(self.split_path if scenario in self.split and self.split_path else self.path)


@pytest.fixture(scope="session")
def windows_programs(build_dir, cat) -> dict[str, WinProgram]:
    _need("go", "cargo", MINGW_CC)
    out = build_dir / "windows"
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PATH": tools.path_with_extras(), "GOOS": "windows", "GOARCH": "amd64"}
    _sh(["go", "build", *toolchains.GO_REPRODUCIBLE, "-o", str(out / "gobench.exe"), "."], "go build (windows)",
        cwd=ROOT / "go", env={**env, "CGO_ENABLED": "0"})
    go = cat.builds["go"]
    split = out / f"{go.split_program}.exe"
    _sh(["go", "build", *toolchains.GO_REPRODUCIBLE, "-tags", go.split_tags, "-o", str(split), "."],
        f"go build -tags {go.split_tags} (windows, cgo with mingw-w64)", cwd=ROOT / "go",
        env={**env, "CGO_ENABLED": "1", "CC": MINGW_CC})
    if RUST_TARGET not in installed_rust_targets():
        unavailable(f"rust target {RUST_TARGET} missing (rustup target add {RUST_TARGET})",
                    f"rust target {RUST_TARGET} missing (install-tools.sh adds it)")
    # as toolchains.build_rust builds them: the lean programs and the split ones
    rust = [b for b in cat.builds.values() if b.lang == "rust"]
    cargo = ["cargo", "build", "--release", "--locked", "--target", RUST_TARGET, "--target-dir", str(out / "rust")]
    for extra in toolchains.rust_build_args(cat):
        _sh([*cargo, *extra], f"cargo build --target {RUST_TARGET} {' '.join(extra)}", cwd=ROOT / "rust",
            env={**os.environ, "PATH": tools.path_with_extras()}, timeout=3600)
    rel = out / "rust" / RUST_TARGET / "release"
    return {"go": WinProgram(out / "gobench.exe", split, go.split_scenarios),
            **{b.name: WinProgram(rel / f"{b.program}.exe", rel / f"{b.split_program}.exe", b.split_scenarios)
               for b in rust}}


def _windows_record(rec: dict) -> None:
    assert rec["runtime"]["os"] == "windows", rec["runtime"]
    assert rec["peak_rss_bytes"] > 0, f"{rec['scenario']} {rec['variant']}: no peak memory under Windows"


@pytest.mark.parametrize("scenario", scenario_names())
def test_windows_builds_under_wine_give_the_linux_checksums(cat, programs, windows_programs, wine_env, servers,
                                                            scenario, tmp_path):
    """Every scenario of the catalogue; the database ones reach the session's Linux
    servers over TCP on 127.0.0.1, as the workflows' Windows leg reaches a server on
    the runner."""
    env = scenario_env(servers, cat.scenarios[scenario])
    _linux_and_windows_agree(cat, programs, windows_programs, scenario, tmp_path, env,
                             {**wine_env, **servers.env()})


def _linux_and_windows_agree(cat, programs, windows_programs, scenario, tmp_path, linux_env, wine_env):
    (tmp_path / "linux").mkdir()
    linux = checksums(cat, programs, scenario, tmp_path / "linux", dict(linux_env))
    # files-rw: Wine loses an append now and then, more often on a busy machine
    # (test_wine_itself_loses_concurrent_appends), so a run that misses the Linux checksum
    # is run again, alone, up to 5 times; anything else must match the first time.
    expect = {key: next(iter(sums.values())) for key, sums in linux.items()} if scenario == "files-rw" else None
    (tmp_path / "windows").mkdir()
    windows = checksums(cat, windows_programs, scenario, tmp_path / "windows", wine_env,
                        run=_run_under_wine, check=_windows_record, expect=expect, tries=5)
    assert {p: set(s.values()) for p, s in windows.items()} == {p: set(s.values()) for p, s in linux.items()}


def test_wine_itself_loses_concurrent_appends(wine_env, tmp_path):
    """The files-rw question of issue 14, answered: the lost append is Wine's. A plain
    Win32 C program (tests/wine/append_race.c: 16 threads appending through
    FILE_APPEND_DATA handles) loses appends under Wine 8, without Go or Rust involved;
    the same program's appends all land on Windows, as O_APPEND's do on Linux."""
    exe = tmp_path / "append_race.exe"
    _sh([MINGW_CC, "-O2", "-o", str(exe), str(STUB.parent / "append_race.c")], "building append_race.exe")
    lost = []
    for _ in range(3):
        out = _run_under_wine([str(exe)], wine_env, tmp_path).split()
        lost.append(int(out[out.index("lost") + 1]))
    assert max(lost) > 0, f"Wine lost no append in 3 tries ({lost}): files-rw under Wine needs no retry any more"


def test_go_setup_reuses_its_directory_under_wine(windows_programs, wine_env, tmp_path):
    """Setup runs before every measured run in the same directory (hyperfine --prepare):
    under Wine too, each setup starts the files afresh (Go 1.26's os.RemoveAll fails
    there, "Invalid function"; setup removes the files one by one instead)."""
    go = str(windows_programs["go"].path)
    sums = set()
    for _ in range(3):
        _run_under_wine([go, "setup", "files-read", "--dir", "d"], wine_env, tmp_path, timeout=120)
        out = _run_under_wine([go, "files-read", "--variant", "goroutines", "--tasks", "10", "--dir", "d"], wine_env,
                              tmp_path, timeout=120)
        sums.add(json.loads(out.strip().splitlines()[-1])["checksum"])
    assert len(sums) == 1


def test_windows_builds_under_wine_reject_bad_usage(windows_programs, wine_env, tmp_path):
    """Contract 1 holds on Windows too: exit 2 and one line for a bad parameter."""
    for prog in (windows_programs["go"].path, windows_programs["rust-system"].path):
        res = wine([str(prog), "cpu", "--variant", "nope"], wine_env, tmp_path, timeout=120)
        assert res.returncode == 2, (prog, res.returncode, res.stderr[-500:])
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr
        listing = _run_under_wine([str(prog), "list"], wine_env, tmp_path, timeout=120)
        assert "cpu" in json.loads(listing.strip().splitlines()[-1])["scenarios"]


def test_a_silent_failure_under_wine_is_run_again_and_said(wine_env, tmp_path):
    """wine(): a run that ends non-zero without a word (as Wine's own start-up failures
    do) is run again, with a warning; a failure that says why is not."""
    src = tmp_path / "flaky.c"
    src.write_text('#include <stdio.h>\n'
                   'int main(int argc, char **argv) {\n'
                   '    FILE *f = fopen("tries", "a"); fputs("x", f); fclose(f);\n'
                   '    f = fopen("tries", "r"); fseek(f, 0, SEEK_END); long n = ftell(f); fclose(f);\n'
                   '    if (argc > 1) { fputs("flaky: told to fail\\n", stderr); return 1; }\n'
                   '    if (n < 2) return 1;   /* the first try: silent */\n'
                   '    puts("ok"); return 0;\n'
                   '}\n')
    exe = tmp_path / "flaky.exe"
    _sh([MINGW_CC, "-O2", "-o", str(exe), str(src)], "building flaky.exe")
    with pytest.warns(UserWarning, match="without a word; run again"):
        assert _run_under_wine([str(exe)], wine_env, tmp_path, timeout=120).strip() == "ok"
    assert (tmp_path / "tries").read_text() == "xx"
    (tmp_path / "tries").unlink()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = wine([str(exe), "fail"], wine_env, tmp_path, timeout=120)
    assert (res.returncode, res.stderr.strip(), (tmp_path / "tries").read_text()) == (1, "flaky: told to fail", "x")
