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
from pathlib import Path

import pytest

from benchpipe import catalogue, compare, results, stats, tools
from benchpipe.report import compare_md
from conftest import run_bench, unavailable

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


def _callgrind(valgrind, argv, tmp_path, atstart=False, env=None, verbose=False) -> tuple[int, dict, str]:
    """(the run's Ir total, its record, Valgrind's log) under Callgrind."""
    n = len(list(tmp_path.iterdir()))
    out, log = tmp_path / f"callgrind-{n}.out", tmp_path / f"callgrind-{n}.log"
    cmd = [valgrind, *(["-v"] if verbose else []), "--tool=callgrind", f"--instr-atstart={'yes' if atstart else 'no'}",
           f"--callgrind-out-file={out}", f"--log-file={log}", *argv]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, **GO_ENV, **(env or {})})
    assert res.returncode == 0, f"{' '.join(cmd)}: exit {res.returncode}: {res.stderr[-500:]}\n{log.read_text()[-2000:]}"
    # `totals:` (the `summary:` line of Callgrind 3.19 says 0 with one event)
    totals = [line.split()[1] for line in out.read_text().splitlines() if line.startswith("totals:")]
    assert len(totals) == 1, f"{out}: no single totals line"
    return int(totals[0]), _record(res.stdout), log.read_text()


@pytest.mark.parametrize("build", list(VARIANTS))
def test_callgrind_counts_the_window_only(programs, valgrind, build, tmp_path):
    program = programs[build]
    native = subprocess.run(_argv(programs["go"], "go", ITEMS), capture_output=True, text=True, timeout=60, check=True)
    go_checksum = _record(native.stdout)["checksum"]

    count, rec, _ = _callgrind(valgrind, _argv(program, build, ITEMS), tmp_path)
    assert count > 0
    assert rec["checksum"] == go_checksum, f"{build} under Valgrind printed checksum {rec['checksum']}, Go natively {go_checksum}"

    doubled, rec2, _ = _callgrind(valgrind, _argv(program, build, 2 * ITEMS), tmp_path)
    assert 1.8 <= doubled / count <= 2.2, f"{build}: items x2 counted {doubled} / {count} = {doubled / count:.3f} (start-up counted?)"
    assert rec2["checksum"] != rec["checksum"]

    small, _, _ = _callgrind(valgrind, _argv(program, build, SMALL), tmp_path)
    whole, _, _ = _callgrind(valgrind, _argv(program, build, SMALL), tmp_path, atstart=True)
    assert 0 < small * 3 < whole, f"{build}: window {small} instructions, whole process {whole}"


def test_library_copies_count_the_same_and_spare_valgrind_the_debug_symbols(programs, valgrind, tmp_path):
    """The pass runs the programs with copies of their shared libraries without debug links
    (benchpipe/valgrind_libs.py): Rust's threads variant on one thread, whose count is the
    same in every run, counts exactly as with the system's libraries, and Valgrind no longer
    reads the C library's debug file (`-v` names each file it considers). Go without cgo
    links no library: nothing to copy, nothing set."""
    from benchpipe import valgrind_libs
    program = programs["rust-system"].path
    libs = valgrind_libs.shared_libraries(program)
    assert "libc.so.6" in libs, libs
    added = valgrind_libs.env_for(program, dict(os.environ))
    if not tools.which("objcopy"):
        assert added == {} and "objcopy not found" in valgrind_libs.description()
        pytest.skip("objcopy not installed (install-tools.sh installs binutils)")
    copies = Path(added["LD_LIBRARY_PATH"])
    assert (copies / "libc.so.6").is_file()
    # the copy lacks what Valgrind finds the debug file by, and keeps every byte of code
    sections = subprocess.run(["objdump", "-h", str(copies / "libc.so.6")], capture_output=True, text=True).stdout
    assert ".note.gnu.build-id" not in sections and ".gnu_debuglink" not in sections
    code = {}
    for name, lib in (("system", libs["libc.so.6"]), ("copy", copies / "libc.so.6")):
        subprocess.run(["objcopy", "-O", "binary", "--only-section=.text", str(lib), str(tmp_path / f"{name}.text")],
                       check=True)
        code[name] = (tmp_path / f"{name}.text").read_bytes()
    assert len(code["copy"]) > 100_000 and code["copy"] == code["system"]
    assert valgrind_libs.env_for(program, {**os.environ, "LD_LIBRARY_PATH": "/opt/x"}) == {
        "LD_LIBRARY_PATH": f"{copies}:/opt/x"}
    # the loader takes the copies
    assert valgrind_libs.shared_libraries(program, {**os.environ, **added})["libc.so.6"] == copies / "libc.so.6"
    assert valgrind_libs.env_for(programs["go"].path, dict(os.environ)) == {}

    got = {}
    for name, extra in (("system", {}), ("copies", added)):
        count, rec, log = _callgrind(valgrind, _argv(programs["rust-system"], "rust-system", ITEMS), tmp_path,
                                     env=extra, verbose=True)
        libc_debug = [line for line in log.splitlines() if "Considering /usr/lib/debug" in line]
        got[name] = (count, rec["checksum"], len(libc_debug))
    assert got["copies"][:2] == got["system"][:2], got
    # fewer debug files considered (the loader's own still is: its path is fixed in the
    # program); on a machine without libc6-dbg there are none to spare
    if Path("/usr/lib/debug/.build-id").is_dir():
        assert 0 < got["copies"][2] < got["system"][2], got


# ---------------------------------------------------------------- the pipeline's instruction pass


@pytest.fixture(scope="module")
def counted_runs(programs, valgrind, build_dir, tmp_path_factory):
    """Two `bench run`s with the instruction pass (5 runs a benchmark): the smoke preset's
    cpu and sleep, the second with --scale 1.02 (cpu's items: 2 % more work)."""
    tmp = tmp_path_factory.mktemp("counted")
    outs = []
    for name, extra in (("base", []), ("head", ["--scale", "1.02"])):
        out = tmp / name
        res = run_bench("run", "--preset", "smoke", "--scenario", "cpu,sleep", "--build-dir", build_dir,
                        "--instructions", "5", "--no-versions", "--no-summary", "--out", out, *extra, timeout=1800)
        assert res.returncode == 0, res.stderr[-3000:]
        outs.append(out / "results.json")
    return outs


def test_every_benchmark_gets_its_counts_and_the_checksum_it_prints_outside_valgrind(counted_runs):
    doc = results.load(counted_runs[0])  # the schema admits what the pass writes
    assert doc["env"]["instructions"]["measured"] and doc["env"]["instructions"]["runs"] == 5
    assert "--fair-sched=yes" in doc["env"]["instructions"]["options"]
    assert doc["env"]["instructions"]["libraries"].startswith("copies" if tools.which("objcopy") else "the system's")
    for b in doc["benchmarks"]:
        ins = b.get("instructions")
        assert b["status"] == "ok" and ins, (b["id"], b.get("reason"), b.get("warnings"))
        assert len(ins["counts"]) == 5 and min(ins["counts"]) > 0, b["id"]
        assert ins["params"] == dict(catalogue.load().scenarios[b["key"]["scenario"]].instructions.params)
        if b["key"]["lang"] == "go":
            assert ins["env"] == {"GODEBUG": "asyncpreemptoff=1"}
        # the same work under Valgrind: the checksum the timed runs printed at the pass's sizes
        # is Go's (Go and Rust agree), and every run of a benchmark under Valgrind agrees
        assert isinstance(ins["checksum"], int)
    sums = {}
    for b in doc["benchmarks"]:
        sums.setdefault((b["key"]["scenario"], results.format_params(b["key"]["params"])), set()).add(
            b["instructions"]["checksum"])
    assert all(len(v) == 1 for v in sums.values()), sums


def test_compare_flags_two_percent_more_work_on_instructions_and_nothing_in_a_a(counted_runs):
    base, head = counted_runs
    rep = compare.compare_docs([results.load(base), results.load(head)], ["base", "head"])
    cpu = [c for c in rep.comparisons if c.key["scenario"] == "cpu"]
    assert cpu
    for c in cpu:
        m = c.metrics.get("instructions")
        # one thread: deterministic (0.00-0.1 % here); two threads may scatter beside a
        # busy neighbour (the runtime's search for work), then said, never judged
        if c.key["params"]["threads"] == 1:
            assert m is not None, (c.id, c.note)
        if m is None:
            assert "instructions not deterministic (CV" in c.note, c.note
            continue
        # Rust: 1.020 exactly; Go on one thread within 0.1 % of it (its runtime's own work
        # beside the window's: 0.2 % scatter at this size, a busy neighbour's included).
        # While Go's buffer was allocated inside the window its counts came in two modes
        # 0.7 % apart (the heap grew before the window or inside it), seen in CI as 1.026
        # and 1.014. On two threads Go's search for work adds a scatter of its own.
        go_two = c.key["lang"] == "go" and c.key["params"]["threads"] != 1
        lo, hi = (1.01, 1.03) if go_two else (1.015, 1.025)
        assert m.verdict == stats.REGRESSION and lo < m.ratio < hi, (c.id, m)
    # sleep's scale (max_sleep_ms) hardly changes the work: whatever the instructions say, not 2 %
    aa = compare.compare_docs([results.load(base)] * 2, ["a", "b"])
    assert not [c.id for c in aa.comparisons if c.metrics.get("instructions") and c.metrics["instructions"].flagged]
    md = compare_md.render(rep)
    assert "### Two signals" in md and "instructions" in md
