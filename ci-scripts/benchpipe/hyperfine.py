"""One hyperfine invocation: command line, wall-clock limit, JSON export, and the
program's own record of every measured run.

How the records are captured (hyperfine 1.20):
- The program runs without a shell (`-N`), so hyperfine's per-run memory figure
  (`memory_usage_byte`, from the child's rusage) is the program's own, not a wrapper's.
- `--output=<FILE>` cannot be used: hyperfine re-creates (truncates) the file for every
  command it starts, `--prepare`/`--conclude` included, so only the last run survives.
- Instead `--output=inherit` sends the program's stdout to hyperfine's stdout (a file
  we give it), `--style none` keeps hyperfine's own chatter out of it, and
  `--conclude "echo <MARKER>"` writes a marker line after every run, warm-ups included
  (hyperfine runs prepare/conclude around warm-ups too). The stream is
  [run 1 output] MARKER [run 2 output] MARKER ...: chunk i's last line is run i's
  record, and the first `warmup` chunks are dropped.
- The program's stderr goes to hyperfine's stderr (inherit), so a failing run's own
  message ends up in the failure reason.
- hyperfine and everything it starts run in a new process group/session; on expiry of
  the wall-clock limit (or Ctrl-C) the whole group is killed."""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

MARKER = "@@gorust-bench-run-end@@"
WINDOWS = sys.platform == "win32"


def command_string(argv: list[str]) -> str:
    """hyperfine -N splits commands with POSIX shell-words rules, on Windows too, so
    backslashes would be read as escapes: give it forward slashes there."""
    if WINDOWS:
        argv = [a.replace("\\", "/") for a in argv]
    return shlex.join(argv)


def marker_command() -> str:
    # `echo` is a program on Unix (no shell needed under -N); on Windows it is a cmd builtin.
    return f"cmd /d /c echo {MARKER}" if WINDOWS else f"echo {MARKER}"


@dataclass
class Invocation:
    argv: list[str]
    returncode: int | None = None
    timed_out: bool = False
    elapsed_s: float = 0.0
    stderr_tail: str = ""
    times: list[float] = field(default_factory=list)
    memory: list[int] = field(default_factory=list)
    exit_codes: list[int] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)  # stdout of each measured run
    problem: str | None = None  # why the invocation did not give usable data
    escaped: int = 0            # processes the benchmark left behind, killed afterwards (Linux)


def hyperfine_argv(hyperfine: str, command: list[str], *, runs: int, warmup: int, export_json: Path,
                   prepare: list[str] | None = None) -> list[str]:
    argv = [hyperfine, "-N", "--style", "none", "--output", "inherit",
            "--runs", str(runs), "--warmup", str(warmup),
            "--export-json", str(export_json), "--conclude", marker_command()]
    if prepare:
        argv += ["--prepare", command_string(prepare)]
    argv.append(command_string(command))
    return argv


# --------------------------------------------------------------------------- containment
#
# Killing hyperfine's process group misses what a benchmark started in a session of its
# own (setsid, daemons): those would outlive the run and load the machine for the next
# benchmark. On Linux this process becomes a child subreaper, so such orphans are
# re-parented to it instead of init; after every invocation, every new child of ours
# (and its descendants) is killed and reaped. macOS and Windows have no subreaper: there
# the process group (taskkill /T on Windows) is the bound.

_SUBREAPER = False


def become_subreaper() -> bool:
    global _SUBREAPER
    if _SUBREAPER or not sys.platform.startswith("linux"):
        return _SUBREAPER
    try:
        import ctypes  # only here, on Linux: the one use of the C library
        libc = ctypes.CDLL(None, use_errno=True)
        _SUBREAPER = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        _SUBREAPER = False
    return _SUBREAPER


def _parents() -> dict[int, int]:
    """{pid: parent pid} of every process now (one scan of /proc)."""
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            parents[int(d.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError):
            continue
    return parents


def _children(pid: int) -> set[int] | None:
    """The children of one process, from /proc/<pid>/task/*/children: a few small reads
    instead of a scan of every process (17 ms a run here, twice a run). None where the
    kernel does not offer the file (CONFIG_PROC_CHILDREN)."""
    out: set[int] = set()
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return set()   # gone already
    for t in tasks:
        try:
            out.update(int(x) for x in (t / "children").read_text().split())
        except FileNotFoundError:
            if not (t / "stat").exists():
                continue   # the thread ended
            return None
        except (OSError, ValueError):
            continue
    return out


def _walk(roots: set[int], children_of) -> set[int] | None:
    """Every descendant of roots, by children_of(pid) (None from it: give up, None)."""
    out, todo = set(), list(roots)
    while todo:
        kids = children_of(todo.pop())
        if kids is None:
            return None
        for c in set(kids) - out:
            out.add(c)
            todo.append(c)
    return out


def _descendants(parents: dict[int, int], roots: set[int]) -> set[int]:
    kids: dict[int, list[int]] = {}
    for c, pp in parents.items():
        kids.setdefault(pp, []).append(c)
    return _walk(roots, lambda pid: kids.get(pid, ()))


def our_children() -> set[int]:
    if not _SUBREAPER:
        return set()
    me = os.getpid()
    kids = _children(me)
    return kids if kids is not None else {c for c, pp in _parents().items() if pp == me}


def _new_tree(me: int, before: set[int]) -> tuple[set[int], set[int]]:
    """Our children that were not there before, and every descendant of theirs."""
    kids = _children(me)
    new = (kids - before) if kids is not None else None
    below = _walk(new, _children) if new is not None else None
    if below is None:   # no children files: one scan of every process
        parents = _parents()
        new = {c for c, pp in parents.items() if pp == me and c not in before}
        below = _descendants(parents, new)
    return new, below


def _settled(pid: int) -> bool:
    """Gone, or a zombie: its exit is done, so its children have been handed on to us."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def kill_escaped(before: set[int], settle_s: float = 5.0) -> int:
    """Kill and reap what a benchmark left behind: children of ours that were not there
    before it started (escaped grandchildren, re-parented to us), with their descendants.
    In rounds, because a process still dying when we look has not yet handed its children
    on to us (one was seen to outlive a timed-out benchmark that way): each round waits
    until what it killed has finished exiting, and the next looks again, until one finds
    nothing new."""
    if not _SUBREAPER:
        return 0
    me, seen = os.getpid(), set()
    deadline = time.monotonic() + settle_s
    while True:
        new, below = _new_tree(me, before)
        victims = new | below
        if not victims:
            return len(seen)
        seen |= victims
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in new:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
        while below and time.monotonic() < deadline:
            below = {pid for pid in below if not _settled(pid)}
            if below:
                time.sleep(0.005)
        if time.monotonic() >= deadline:
            return len(seen)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        if WINDOWS:
            subprocess.run(["taskkill", "/T", "/F", "/PID", str(proc.pid)], capture_output=True)
        else:
            os.killpg(proc.pid, signal.SIGKILL)
    except (OSError, ProcessLookupError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def wait(proc: subprocess.Popen, timeout_s: float) -> int:
    """proc.wait(timeout) that returns as soon as the process ends. CPython's wait with a
    timeout polls on POSIX, sleeping 0.5, 1, 2 ... 50 ms between looks: a 60 ms run was
    seen to end up to 50 ms late, idle time that made every short benchmark's sampling
    cost nearly twice its runs. A pidfd (Linux 5.3+) wakes us when it ends; elsewhere
    the poll stays (Windows' wait is a true wait already)."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        return proc.wait(timeout=timeout_s)
    try:
        if not select.select([fd], [], [], min(timeout_s, 1e8))[0]:   # select refuses a time past time_t
            raise subprocess.TimeoutExpired(proc.args, timeout_s)
    finally:
        os.close(fd)
    return proc.wait()


def tail(text: str, lines: int = 6, limit: int = 600) -> str:
    """The last lines of an error output as one line (reasons are shown in tables)."""
    kept = [ln.strip() for ln in text.strip().splitlines() if ln.strip()][-lines:]
    out = " | ".join(kept)
    return out if len(out) <= limit else "..." + out[-(limit - 3):]


def split_outputs(stdout: str) -> list[str]:
    """The stdout of each run, in order (the marker ends each one; what follows the
    last marker is not a run)."""
    chunks = []
    current: list[str] = []
    for line in stdout.splitlines():
        if line.strip() == MARKER:
            chunks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    return chunks


def last_line(output: str) -> str:
    lines = [ln for ln in output.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def run(hyperfine: str, command: list[str], *, runs: int, warmup: int, workdir: Path, env: dict,
        timeout_s: float, prepare: list[str] | None = None, tag: str = "hf") -> Invocation:
    """Run hyperfine once; never raises for the benchmark's own failures (they are
    reported in the Invocation), only for our own (OSError starting hyperfine)."""
    export = workdir / f"{tag}.json"
    out_path = workdir / f"{tag}.stdout"
    err_path = workdir / f"{tag}.stderr"
    argv = hyperfine_argv(hyperfine, command, runs=runs, warmup=warmup, export_json=export, prepare=prepare)
    inv = Invocation(argv)
    kwargs = {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP} if WINDOWS else {"start_new_session": True}
    become_subreaper()
    before = our_children()
    start = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=workdir, env=env, **kwargs)
        try:
            inv.returncode = wait(proc, max(timeout_s, 0.1))
        except subprocess.TimeoutExpired:
            inv.timed_out = True
            _kill_group(proc)
        except BaseException:  # Ctrl-C, SIGTERM: leave nothing running behind us
            _kill_group(proc)
            kill_escaped(before)
            raise
    inv.elapsed_s = time.monotonic() - start
    inv.escaped = kill_escaped(before)
    stderr = err_path.read_text(encoding="utf-8", errors="replace")
    inv.stderr_tail = tail(stderr)
    if inv.timed_out:
        inv.problem = f"timed out: still running after {timeout_s:g} s (the limit per benchmark: --timeout, else the preset's); process group killed"
        return inv
    if inv.returncode != 0:
        inv.problem = f"hyperfine exit {inv.returncode}: {inv.stderr_tail or 'no error output'}"
        return inv
    try:
        result = json.loads(export.read_text(encoding="utf-8"))["results"][0]
        inv.times = [float(t) for t in result["times"]]
        inv.exit_codes = [int(c) for c in result["exit_codes"]]
        inv.memory = [int(m) for m in result["memory_usage_byte"]]
    except (OSError, ValueError, KeyError, IndexError, TypeError) as err_:
        inv.problem = f"hyperfine's JSON export is unusable ({err_}); is hyperfine >= 1.19?"
        return inv
    chunks = split_outputs(out_path.read_text(encoding="utf-8", errors="replace"))
    if len(chunks) != warmup + runs:
        inv.problem = f"expected the output of {warmup + runs} runs, found {len(chunks)}"
        return inv
    inv.outputs = chunks[warmup:]
    return inv


def version(hyperfine: str) -> str:
    out = subprocess.run([hyperfine, "--version"], capture_output=True, text=True)
    return out.stdout.strip()
