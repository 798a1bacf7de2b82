"""The environment of a run (Contract 2's `env`): machine, runner, commit, branch,
time, toolchains, hyperfine; plus the GitHub Actions context where present. Every probe
degrades to a placeholder instead of failing: a missing CPU model must not stop a run."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
import socket
import subprocess
import sys
from pathlib import Path

GITHUB_VARS = ("GITHUB_REPOSITORY", "GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT", "GITHUB_WORKFLOW", "GITHUB_JOB",
               "GITHUB_EVENT_NAME", "GITHUB_REF", "GITHUB_SHA", "GITHUB_HEAD_REF", "GITHUB_BASE_REF",
               "GITHUB_SERVER_URL", "RUNNER_NAME", "RUNNER_OS", "RUNNER_ARCH", "ImageOS", "ImageVersion")


def repo_url() -> str:
    """The repository's web address from the GitHub Actions context (commit links on the
    site and in data.js); "" outside Actions."""
    server, repo = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY")
    return f"{server}/{repo}" if server and repo else ""


def os_name() -> str:
    return {"darwin": "macos", "win32": "windows"}.get(sys.platform, "linux")


def _run(argv: list[str], cwd=None) -> str:
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=20, cwd=cwd)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def _windows_cpu_name() -> str:
    import winreg  # exists on Windows only
    with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, r"HARDWARE\DESCRIPTION\System\CentralProcessor\0") as k:
        return str(winreg.QueryValueEx(k, "ProcessorNameString")[0])


def cpu_model(platform_: str | None = None, cpuinfo: Path = Path("/proc/cpuinfo"), run=None,
              windows_name=None) -> str:
    """The CPU's marketing name, per OS: /proc/cpuinfo (x86 "model name", or an ARM
    board's "Hardware" / "Processor"), sysctl on macOS, the registry on Windows. The
    arguments stand in for the OS in tests; "unknown" when nothing says."""
    plat = platform_ or sys.platform
    try:
        if plat.startswith("linux"):
            text = cpuinfo.read_text(encoding="utf-8", errors="replace")
            m = re.search(r"^(model name|Hardware|Processor)[ \t]*:[ \t]*(\S.*)$", text, re.M)
            if m:
                return m.group(2).strip()
        elif plat == "darwin":
            return (run or _run)(["sysctl", "-n", "machdep.cpu.brand_string"]).strip() or "unknown"
        elif plat == "win32":
            return (windows_name or _windows_cpu_name)().strip() or "unknown"
    except (OSError, ImportError):
        pass
    return (platform.processor() if platform_ is None else "") or "unknown"


def memory_bytes() -> int:
    try:
        if sys.platform.startswith("linux"):
            m = re.search(r"^MemTotal:\s*(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
            return int(m.group(1)) * 1024 if m else 0
        if sys.platform == "darwin":
            return int(_run(["sysctl", "-n", "hw.memsize"]) or 0)
        if sys.platform == "win32":
            import ctypes  # only here, on Windows: GlobalMemoryStatusEx

            class MemStatus(ctypes.Structure):
                _fields_ = [("dwLength", ctypes.c_ulong), ("dwMemoryLoad", ctypes.c_ulong),
                            ("ullTotalPhys", ctypes.c_ulonglong), ("ullAvailPhys", ctypes.c_ulonglong),
                            ("ullTotalPageFile", ctypes.c_ulonglong), ("ullAvailPageFile", ctypes.c_ulonglong),
                            ("ullTotalVirtual", ctypes.c_ulonglong), ("ullAvailVirtual", ctypes.c_ulonglong),
                            ("ullAvailExtendedVirtual", ctypes.c_ulonglong)]
            st = MemStatus()
            st.dwLength = ctypes.sizeof(st)
            ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(st))
            return int(st.ullTotalPhys)
    except (OSError, ValueError, AttributeError):
        pass
    return 0


PEOPLE = ("author", "committer")


def _line(text: str) -> str:
    """One line of at most 300 characters (the schema's rule for names)."""
    return re.sub(r"[\x00-\x1f\x7f]", "", text)[:300]


def _github_usernames(commit: str) -> dict:
    """{author|committer: GitHub login} of the commit a push event names (the event JSON
    of GitHub Actions); git itself knows only names and e-mails."""
    path = os.environ.get("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        head = json.loads(Path(path).read_text(encoding="utf-8")).get("head_commit") or {}
    except (OSError, ValueError, AttributeError):
        return {}
    if not isinstance(head, dict) or head.get("id") != commit:
        return {}
    out = {}
    for who in PEOPLE:
        person = head.get(who)
        name = person.get("username") if isinstance(person, dict) else None
        if isinstance(name, str) and name:
            out[who] = name
    return out


def git_info(source: Path) -> dict:
    """The measured commit: SHA, branch, subject; its commit time, author and committer
    (github-action-benchmark's data.js carries them, and its chart page shows the
    committer's name and the commit's time)."""
    commit = _run(["git", "rev-parse", "HEAD"], cwd=source) or os.environ.get("GITHUB_SHA", "") or "unknown"
    branch = (os.environ.get("GITHUB_HEAD_REF") or os.environ.get("GITHUB_REF_NAME")
              or _run(["git", "rev-parse", "--abbrev-ref", "HEAD"], cwd=source) or "unknown")
    fields = _run(["git", "log", "-1", "--format=%cI%x00%an%x00%ae%x00%cn%x00%ce%x00%s"], cwd=source).split("\0")
    out = {"commit": commit, "branch": branch}
    if len(fields) == 6:
        when, an, ae, cn, ce, message = fields
        if message:
            out["commit_message"] = message
        if when:
            out["commit_time"] = when
        logins = _github_usernames(commit)
        for who, (name, email) in zip(PEOPLE, ((an, ae), (cn, ce))):
            person = {"name": _line(name), "email": _line(email)}
            if who in logins:
                person["username"] = _line(logins[who])
            out[f"commit_{who}"] = person
    return out


def collect(*, preset: str, source: Path, toolchains: dict, hyperfine_version: str, labels: dict | None = None) -> dict:
    env = {
        "os": os_name(),
        "arch": platform.machine().lower() or "unknown",
        "cpu_model": cpu_model(),
        "cores": os.cpu_count() or 1,
        "memory_bytes": memory_bytes(),
        "runner": os.environ.get("RUNNER_NAME") or socket.gethostname() or "unknown",
        **git_info(source),
        "timestamp": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        "preset": preset,
        "toolchains": dict(toolchains),
        "hyperfine": hyperfine_version,
        "python": platform.python_version(),
    }
    if labels:
        env["labels"] = dict(labels)
    github = {k: os.environ[k] for k in GITHUB_VARS if os.environ.get(k)}
    if github:
        env["github"] = github
    return env
