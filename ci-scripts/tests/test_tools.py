"""doctor, toolchain names, manifest."""

from __future__ import annotations

import pytest

from benchpipe import toolchains, tools
from benchpipe.errors import BenchError, UsageError
from conftest import run_bench


def test_doctor_reports_every_tool():
    res = run_bench("doctor", env={"COLUMNS": "200"}, timeout=120)
    for name in ("hyperfine", "go", "cargo", "rustup", "gnuplot", "mariadbd", "chromium"):
        assert name in res.stdout
    # Here every required tool is installed (the tests need them anyway).
    assert res.returncode == 0, res.stdout + res.stderr


def test_hyperfine_is_new_enough():
    t = tools.hyperfine()
    assert t.ok, t.problem
    assert tools.parse_version(t.version)[:2] >= tools.HYPERFINE_MIN


@pytest.mark.parametrize("lang, text, expected", [
    ("go", "go1.26.8,local", ["go1.26.8", "local"]),
    ("go", " go1.25 , go1.25 ", ["go1.25"]),
    ("go", "stable,oldstable,1.25.x,go1.24.x,1.25.5", ["stable", "oldstable", "1.25.x", "go1.24.x", "1.25.5"]),
    ("rust", "stable,beta,nightly,1.90.0,nightly-2026-01-02", ["stable", "beta", "nightly", "1.90.0", "nightly-2026-01-02"]),
])
def test_toolchain_lists(lang, text, expected):
    assert toolchains.parse_list(text, lang) == expected


@pytest.mark.parametrize("lang, text", [("go", "1.26"), ("go", "go1.26;rm"), ("rust", "stable;x"), ("rust", "go1.26.8")])
def test_bad_toolchain_names(lang, text):
    with pytest.raises(UsageError):
        toolchains.parse_list(text, lang)


RELEASES = [(1, 24, 0), (1, 24, 13), (1, 25, 0), (1, 25, 5), (1, 26, 0), (1, 26, 8)]


@pytest.mark.parametrize("request_, resolved", [
    ("stable", "go1.26.8"), ("oldstable", "go1.25.5"), ("1.24.x", "go1.24.13"), ("go1.25.x", "go1.25.5"),
    ("1.25.0", "go1.25.0"), ("go1.25.5", "go1.25.5"), ("local", "local"),
])
def test_go_channels_resolve_to_the_newest_release_they_name(request_, resolved):
    assert toolchains.pick_go(request_, RELEASES) == resolved


def test_go_channel_without_a_release_is_a_clear_error():
    with pytest.raises(BenchError, match="1.99"):
        toolchains.pick_go("1.99.x", RELEASES)


@pytest.mark.parametrize("lang, request_, channel", [
    ("go", "go1.25.5", "1.25.5"), ("go", "go1.25.x", "1.25.x"), ("go", "stable", "stable"),
    ("rust", "1.90.0", "1.90.0"), ("rust", "nightly", "nightly"), ("go", "local", "local"),
])
def test_channel_names(lang, request_, channel):
    assert toolchains.channel_of(request_, lang) == channel


def test_go_releases_from_the_module_proxy():
    """The list the go command downloads toolchains from (needs the module proxy)."""
    releases = toolchains.go_releases(tools.require("go"))
    assert (1, 25, 5) in releases and releases == sorted(releases)
    minor = [int(toolchains.pick_go(c, releases).split(".")[1]) for c in ("oldstable", "stable")]
    assert minor[0] + 1 == minor[1] and minor[1] >= 26


def test_manifest_records_programs(programs):
    for build, b in programs.items():
        assert b.build == build and b.label == "head"
        assert b.toolchain.startswith(b.lang) and b.version
        assert b.path.endswith(b.program) and b.path.startswith("/")


def test_doctor_requires_only_what_the_stage_needs():
    # A bench job on macOS must not fail for want of gnuplot, nor publish for want of hyperfine.
    found = {t.name: t for t in tools.check_all()}
    assert found["gnuplot"].needed_for("site") and not found["gnuplot"].needed_for("run")
    assert found["hyperfine"].needed_for("run") and not found["hyperfine"].needed_for("site")
    assert found["go"].needed_for("all") and found["cargo"].needed_for("run")
    assert not any(found[n].needed_for(s) for n in ("mariadbd", "chromium") for s in ("run", "site", "all"))
