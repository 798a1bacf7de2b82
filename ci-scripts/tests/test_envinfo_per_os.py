"""The per-OS probes of the environment, checked on Linux through the same functions:
the CPU model from /proc/cpuinfo (x86 and ARM layouts), sysctl (macOS) and the registry
(Windows), each standing in for its OS."""

from __future__ import annotations

from benchpipe import envinfo

X86 = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz
flags\t\t: fpu vme
"""
ARM = """processor\t: 0
BogoMIPS\t: 108.00
Features\t: fp asimd
Hardware\t: BCM2835
"""
ARM_BARE = """processor\t: 0
BogoMIPS\t: 50.00
CPU implementer\t: 0x41
"""


def test_cpu_model_linux_layouts(tmp_path):
    for text, want in ((X86, "Intel(R) Xeon(R) CPU @ 2.20GHz"), (ARM, "BCM2835"), (ARM_BARE, "unknown"),
                       ("model name\t: \n", "unknown"), ("model name\t:\nflags\t: fpu\n", "unknown")):
        info = tmp_path / "cpuinfo"
        info.write_text(text)
        assert envinfo.cpu_model("linux", cpuinfo=info) == want
    assert envinfo.cpu_model("linux", cpuinfo=tmp_path / "missing") == "unknown"


def test_cpu_model_macos_and_windows():
    calls = []

    def sysctl(argv):
        calls.append(argv)
        return "Apple M2 Pro\n"
    assert envinfo.cpu_model("darwin", run=sysctl) == "Apple M2 Pro"
    assert calls == [["sysctl", "-n", "machdep.cpu.brand_string"]]
    assert envinfo.cpu_model("darwin", run=lambda argv: "") == "unknown"
    assert envinfo.cpu_model("win32", windows_name=lambda: " AMD EPYC 7763 64-Core Processor ") == \
        "AMD EPYC 7763 64-Core Processor"

    def no_registry():
        raise OSError("no such key")
    assert envinfo.cpu_model("win32", windows_name=no_registry) == "unknown"


def test_cpu_model_here_is_named():
    assert envinfo.cpu_model() not in ("", None)


def test_repo_url_from_the_actions_context(monkeypatch):
    """Commit links (site, publish, pipeline) point at the repository Actions names; none outside."""
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/r")
    assert envinfo.repo_url() == "https://github.com/o/r"
    monkeypatch.delenv("GITHUB_REPOSITORY")
    assert envinfo.repo_url() == ""
