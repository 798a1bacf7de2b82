"""Faults through the real `bench run` and real hyperfine, with fake programs from a
fake build manifest (tests/fakeprog.py): a crash, a hang past the limit and checksum
mismatches become `failed` with a reason, the other benchmarks still run, the results
file is valid and the exit code is 1."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

from benchpipe import results, toolchains
from conftest import run_bench

FAKE = Path(__file__).with_name("fakeprog.py")


def fake_manifest(tmp: Path, builds=("go", "rust-system"), labels=("head",)) -> Path:
    entries = []
    for label in labels:
        for build in builds:
            exe = tmp / f"fake-{build}-{label}"
            exe.write_text(f"#!{sys.executable}\n" + FAKE.read_text())
            exe.chmod(0o755)
            lang = "go" if build == "go" else "rust"
            entries.append({"build": build, "lang": lang, "program": exe.name, "request": "local",
                            "toolchain": "go1.99.0" if lang == "go" else "rust1.99.0", "version": "fake",
                            "path": str(exe), "label": label, "commit": f"{label}-commit"})
    path = tmp / "manifest.json"
    path.write_text(json.dumps({"schema": toolchains.MANIFEST_SCHEMA, "builds": entries}))
    return path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return True


def test_crash_hang_and_checksum_mismatch(tmp_path):
    manifest = fake_manifest(tmp_path)
    out = tmp_path / "out"
    pidfile = tmp_path / "hang.pid"
    env = {"FAKE_CRASH": "fanout:go", "FAKE_HANG": "sleep:go", "FAKE_PIDFILE": str(pidfile),
           # cpu: rust tokio differs from go + rust threads + rust async-single (majority)
           "FAKE_CHECKSUM": "cpu:tokio:7"}
    t0 = time.monotonic()
    res = run_bench("run", "--preset", "smoke", "--manifest", manifest, "--out", out, "--timeout", "3",
                    "--scenario", "hashmap,fanout,sleep,cpu", "--no-summary", env=env)
    assert res.returncode == 1, res.stderr
    doc = results.load(out / "results.json")  # valid despite the failures
    by = {}
    for b in doc["benchmarks"]:
        by.setdefault((b["key"]["scenario"], b["key"]["variant"], b["key"]["build"]), []).append(b)

    crashed = by[("fanout", "channels", "go")][0]
    assert crashed["status"] == "failed"
    assert "simulated crash" in crashed["reason"]  # the program's own stderr is in the reason
    hung = by[("sleep", "goroutines", "go")]
    assert all(b["status"] == "failed" and "timed out" in b["reason"] for b in hung)
    # The hanging program was killed with hyperfine's process group.
    pid = int(pidfile.read_text())
    assert not _alive(pid), f"the hanging fake program {pid} survived the timeout"
    assert time.monotonic() - t0 < 60

    bad = by[("cpu", "tokio", "rust-system")]
    assert all(b["status"] == "failed" for b in bad)
    for b in bad:  # names both checksums: its own and the majority's
        assert re.search(r"checksum mismatch: rust-system tokio gives 7, go goroutines gives \d{5}", b["reason"]), b["reason"]
    for v in ("threads", "async-single"):
        assert all(b["status"] == "ok" for b in by[("cpu", v, "rust-system")])
    assert all(b["status"] == "ok" for b in by[("cpu", "goroutines", "go")])

    # Everything else ran and is fine; the rust side of the crashed/hung scenarios too.
    ok = [b for b in doc["benchmarks"] if b["key"]["scenario"] == "hashmap"]
    assert ok and all(b["status"] == "ok" for b in ok)
    assert all(b["status"] == "ok" for b in by[("sleep", "tokio", "rust-system")])
    for b in ok:
        assert len(b["samples"]["wall_s"]) == 3 == len(b["records"]) == len(b["samples"]["user_s"])
    failed = sum(b["status"] == "failed" for b in doc["benchmarks"])
    assert f"{failed} of {len(doc['benchmarks'])} benchmarks failed" in res.stderr
    # the github-action-benchmark files have only the ok ones.
    action = [e for f in (out / "benchmark-action").iterdir() for e in json.loads(f.read_text())]
    assert len(action) == 2 * sum(b["status"] == "ok" for b in doc["benchmarks"])


def test_checksum_mismatch_without_majority_fails_both(tmp_path):
    manifest = fake_manifest(tmp_path)
    out = tmp_path / "out"
    res = run_bench("run", "--preset", "smoke", "--manifest", manifest, "--out", out, "--scenario", "files-read",
                    "--variant", "goroutines,tokio", "--no-summary", env={"FAKE_CHECKSUM": "files-read:tokio:5"})
    assert res.returncode == 1
    doc = results.load(out / "results.json")
    assert len(doc["benchmarks"]) == 4
    for b in doc["benchmarks"]:
        assert b["status"] == "failed"
        assert "checksum mismatch" in b["reason"] and "no majority" in b["reason"]
        assert " 5" in b["reason"]


def test_records_are_those_of_measured_runs_and_ab_runs_interleave(tmp_path):
    """A/B mode: labels base/head in the keys and env.labels; each side's runs are
    alternated B H / H B round by round; the warm-up's record is not kept."""
    manifest = fake_manifest(tmp_path, builds=("go",), labels=("base", "head"))
    out = tmp_path / "out"
    log = tmp_path / "runs.log"
    res = run_bench("run", "--preset", "quick", "--manifest", manifest, "--out", out, "--scenario", "cpu",
                    "--runs", "4", "--instructions", "0", "--no-summary", env={"FAKE_LOG": str(log)})
    assert res.returncode == 0, res.stderr
    doc = results.load(out / "results.json")
    assert doc["env"]["labels"] == {"base": "base-commit", "head": "head-commit"}
    labels = sorted(b["key"]["label"] for b in doc["benchmarks"])
    assert labels == ["base"] * 2 + ["head"] * 2  # quick cpu grid: threads 1 and 2
    for b in doc["benchmarks"]:
        assert len(b["records"]) == 4 == len(b["samples"]["wall_s"])
    # quick has 1 warm-up: round 0 = base (warm-up + run), head (warm-up + run); then alternate.
    seq = [line.split()[0][0] for line in log.read_text().splitlines()]
    first = "".join(seq[:20])
    assert first == "bbhh" + "hb" + "bh" + "hb" + "bbhh" + "hb" + "bh" + "hb", first
    # The records kept are those of the measured runs, in order; the warm-ups' (runs 1
    # and 3 of the first group) are not among them.
    threads1 = {b["key"]["label"]: [r["metrics"]["seq"] for r in b["records"]]
                for b in doc["benchmarks"] if b["key"]["params"]["threads"] == 1}
    assert threads1 == {"base": [2, 6, 7, 10], "head": [4, 5, 8, 9]}


def test_warmup_records_are_dropped(tmp_path):
    """One hyperfine invocation with a warm-up: the records are runs 2..4, not 1..3."""
    manifest = fake_manifest(tmp_path, builds=("go",))
    out = tmp_path / "out"
    log = tmp_path / "runs.log"
    res = run_bench("run", "--preset", "quick", "--manifest", manifest, "--out", out, "--scenario", "fanout",
                    "--variant", "channels", "--runs", "3", "--instructions", "0", "--no-summary",
                    env={"FAKE_LOG": str(log)})
    assert res.returncode == 0, res.stderr
    (b,) = results.load(out / "results.json")["benchmarks"]
    assert [r["metrics"]["seq"] for r in b["records"]] == [2, 3, 4]
    assert len(log.read_text().splitlines()) == 4


def test_run_scale_multiplies_the_scale_parameter_and_compare_pairs_it(tmp_path):
    """`run --scale F`: every scale parameter (cpu: items) times F, recorded in env.scale; compare pairs
    each benchmark of an unscaled run with its scaled counterpart."""
    manifest = fake_manifest(tmp_path, builds=("go",))
    plain, scaled = tmp_path / "plain", tmp_path / "scaled"
    for out, extra in ((plain, []), (scaled, ["--scale", "2"])):
        res = run_bench("run", "--preset", "smoke", "--manifest", manifest, "--out", out, "--scenario", "cpu",
                        "--no-summary", *extra)
        assert res.returncode == 0, res.stderr
    a, b = results.load(plain / "results.json"), results.load(scaled / "results.json")
    assert "scale" not in a["env"] and b["env"]["scale"] == 2
    assert sorted(x["key"]["params"]["items"] for x in b["benchmarks"]) == \
        sorted(2 * x["key"]["params"]["items"] for x in a["benchmarks"])
    assert sorted(x["key"]["params"]["tasks"] for x in b["benchmarks"]) == \
        sorted(x["key"]["params"]["tasks"] for x in a["benchmarks"])
    from benchpipe import compare
    rep = compare.compare_docs([a, b], ["plain", "scaled"])
    assert rep.head_scale == 2 and len(rep.comparisons) == len(a["benchmarks"])
    assert all(c.verdict != compare.MISSING for c in rep.comparisons)
    for bad in ("0", "-1", "nan"):
        res = run_bench("run", "--preset", "smoke", "--manifest", manifest, "--out", tmp_path / f"x{bad}",
                        "--scenario", "cpu", "--scale", bad)
        assert res.returncode == 2 and "--scale" in res.stderr and len(res.stderr.strip().splitlines()) == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a child subreaper is Linux only")
def test_escaped_grandchildren_are_killed_with_the_benchmark(tmp_path):
    """A program that starts a process in a session of its own (out of hyperfine's process
    group): whether it hangs past the limit or ends normally, nothing it started outlives
    its benchmark, and an ok run says it left processes behind."""
    manifest = fake_manifest(tmp_path, builds=("go",))
    escaped = tmp_path / "escaped.pids"
    env = {"FAKE_ESCAPE": "sleep", "FAKE_ESCAPED": str(escaped), "FAKE_HANG": "sleep:go",
           "FAKE_PIDFILE": str(tmp_path / "hang.pid")}
    res = run_bench("run", "--preset", "smoke", "--manifest", manifest, "--out", tmp_path / "o1", "--timeout", "3",
                    "--scenario", "sleep", "--no-summary", env=env)
    assert res.returncode == 1 and "timed out" in res.stderr
    pids = [int(x) for x in escaped.read_text().split()]
    assert pids and not [p for p in pids if _alive(p)]
    escaped.unlink()
    env = {"FAKE_ESCAPE": "cpu", "FAKE_ESCAPED": str(escaped)}
    res = run_bench("run", "--preset", "smoke", "--manifest", manifest, "--out", tmp_path / "o2",
                    "--scenario", "cpu", "--no-summary", env=env)
    assert res.returncode == 0, res.stderr
    pids = [int(x) for x in escaped.read_text().split()]
    assert len(pids) >= 3 and not [p for p in pids if _alive(p)]
    doc = json.loads((tmp_path / "o2" / "results.json").read_text())
    assert all("left" in b["reason"] and "killed" in b["reason"] for b in doc["benchmarks"])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a child subreaper is Linux only")
def test_a_grandchild_is_caught_when_its_parent_is_still_dying_as_we_look():
    """kill_escaped right after its parent was killed, while that parent may still be exiting
    and not yet have handed its child on to us (CI once saw a timed-out benchmark's escaped
    grandchild outlive the run that way): in rounds, it finds and kills the grandchild every time."""
    import signal
    import subprocess

    from benchpipe import hyperfine
    assert hyperfine.become_subreaper()
    survivors = []
    for _ in range(60):
        before = hyperfine.our_children()
        r, w = os.pipe()
        mid = subprocess.Popen([sys.executable, "-c",
                                "import os, subprocess, sys, time\n"
                                "k = subprocess.Popen(['sleep', '3600'], start_new_session=True)\n"
                                f"os.write({w}, str(k.pid).encode()); time.sleep(3600)"], pass_fds=(w,))
        os.close(w)
        kid = int(os.read(r, 100))
        os.close(r)
        os.kill(mid.pid, signal.SIGKILL)
        assert hyperfine.kill_escaped(before) >= 2
        if _alive(kid):
            survivors.append(kid)
            os.kill(kid, signal.SIGKILL)
    assert not survivors


def test_a_process_tree_is_walked_from_the_childrens_files_and_from_a_scan_alike():
    """kill_escaped finds what a benchmark left behind from /proc/<pid>/task/*/children
    (a few reads a run) and, where the kernel has no such files, from one scan of every
    process: both give the same tree."""
    import subprocess

    from benchpipe import hyperfine
    assert hyperfine._descendants({2: 1, 3: 2, 4: 1, 5: 9, 6: 5}, {1}) == {2, 3, 4}
    if not sys.platform.startswith("linux"):
        return
    # a child with a grandchild: the children files and the scan agree
    proc = subprocess.Popen(["sh", "-c", "sleep 30 & wait"])
    try:
        for _ in range(100):
            kids = hyperfine._walk({proc.pid}, hyperfine._children)
            if kids:
                break
            time.sleep(0.02)
        assert proc.pid in hyperfine._children(os.getpid())
        assert kids and kids == hyperfine._descendants(hyperfine._parents(), {proc.pid})
    finally:
        subprocess.run(["pkill", "-P", str(proc.pid)])
        proc.kill()
        proc.wait()


def test_wait_returns_the_exit_code_and_times_out_like_popen_wait():
    """hyperfine.wait (a pidfd on Linux, not CPython's polling wait) keeps Popen.wait's
    contract: the exit code when the process ends, TimeoutExpired when it does not (the
    process is left for the caller to kill)."""
    import subprocess

    from benchpipe import hyperfine
    quick = subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"])
    assert hyperfine.wait(quick, 30) == 3
    assert quick.returncode == 3
    slow = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            hyperfine.wait(slow, 0.2)
        assert slow.poll() is None
    finally:
        slow.kill()
        slow.wait()
