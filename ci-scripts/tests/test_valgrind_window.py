"""Callgrind counts the timed window only: the programs turn Valgrind's instrumentation
on when the window opens and off when it closes (go/valgrind.go, rust/src/valgrind.rs),
so that under `valgrind --tool=callgrind --instr-atstart=no` the run's instruction count
is the window's, without the process's start-up, setup or record.

On the real programs, scenario cpu at smoke sizes: the count is positive, doubling the
work doubles it (a fixed start-up counted in it would not double), it is far below the
whole process's count, and the checksum is the one the program prints outside Valgrind
(which is Go's: the work is the same)."""

from __future__ import annotations

import json
import os
import platform
import subprocess

import pytest

from benchpipe import tools
from conftest import unavailable

VARIANTS = {"go": "goroutines", "rust-system": "threads", "rust-mimalloc": "threads"}
ITEMS = 20000
SMALL = 2000  # where the window is a small part of the whole process

# Go's asynchronous preemption signals crash Callgrind 3.19 (threads.c: "Assertion
# 'sigNum == vgCallgrind_current_state.sig' failed") in most runs that last long enough
# to get one; counting instructions has no use for it.
GO_ENV = {"GODEBUG": "asyncpreemptoff=1"}


@pytest.fixture(scope="module")
def valgrind() -> str:
    if platform.system() != "Linux":
        pytest.skip("Valgrind runs on Linux only here")
    found = tools.which("valgrind")
    if not found:
        unavailable("valgrind not installed (apt-get install valgrind)",
                    "valgrind not installed: install-tools.sh installs it on Linux")
    return found


def _argv(program, build, items):
    return [program.path, "cpu", "--variant", VARIANTS[build], "--tasks", "4", "--items", str(items), "--threads", "1"]


def _record(stdout: str) -> dict:
    return json.loads(stdout.strip().splitlines()[-1])


def _callgrind(valgrind, argv, tmp_path, atstart=False) -> tuple[int, dict]:
    """(the run's Ir total, its record) under Callgrind."""
    n = len(list(tmp_path.iterdir()))
    out, log = tmp_path / f"callgrind-{n}.out", tmp_path / f"callgrind-{n}.log"
    cmd = [valgrind, "--tool=callgrind", f"--instr-atstart={'yes' if atstart else 'no'}",
           f"--callgrind-out-file={out}", f"--log-file={log}", *argv]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, **GO_ENV})
    assert res.returncode == 0, f"{' '.join(cmd)}: exit {res.returncode}: {res.stderr[-500:]}\n{log.read_text()[-2000:]}"
    # `totals:` (the `summary:` line of Callgrind 3.19 says 0 with one event)
    totals = [line.split()[1] for line in out.read_text().splitlines() if line.startswith("totals:")]
    assert len(totals) == 1, f"{out}: no single totals line"
    return int(totals[0]), _record(res.stdout)


@pytest.mark.parametrize("build", list(VARIANTS))
def test_callgrind_counts_the_window_only(programs, valgrind, build, tmp_path):
    program = programs[build]
    native = subprocess.run(_argv(programs["go"], "go", ITEMS), capture_output=True, text=True, timeout=60, check=True)
    go_checksum = _record(native.stdout)["checksum"]

    count, rec = _callgrind(valgrind, _argv(program, build, ITEMS), tmp_path)
    assert count > 0
    assert rec["checksum"] == go_checksum, f"{build} under Valgrind printed checksum {rec['checksum']}, Go natively {go_checksum}"

    doubled, rec2 = _callgrind(valgrind, _argv(program, build, 2 * ITEMS), tmp_path)
    assert 1.8 <= doubled / count <= 2.2, f"{build}: items x2 counted {doubled} / {count} = {doubled / count:.3f} (start-up counted?)"
    assert rec2["checksum"] != rec["checksum"]

    small, _ = _callgrind(valgrind, _argv(program, build, SMALL), tmp_path)
    whole, _ = _callgrind(valgrind, _argv(program, build, SMALL), tmp_path, atstart=True)
    assert 0 < small * 3 < whole, f"{build}: window {small} instructions, whole process {whole}"
