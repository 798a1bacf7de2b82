"""Shared fixtures: the real programs built once per session through the pipeline's
own build code, the servers the catalogue's scenarios need (each one's DSN variable, or
a throwaway server for the session: benchpipe.services), and a helper that runs
`ci-scripts/bench` as a user would.

The build folder persists (default .bench/test-build, git-ignored; BENCH_TEST_BUILD_DIR
overrides) so cargo's and go's caches make every session after the first one fast; it
is separate from .bench/build so tests never disturb a developer's builds."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from benchpipe import catalogue, services, toolchains
from benchpipe.commands.services import wanted
from benchpipe.errors import BenchError

CI_SCRIPTS = Path(__file__).resolve().parent.parent
ROOT = CI_SCRIPTS.parent

BENCH = CI_SCRIPTS / "bench"


def unavailable(skip_why: str, ci_why: str):
    """Something a test needs is missing. Under CI that is a failure (CI installs what
    the tests need: ci-scripts/install-tools.sh); elsewhere the test is skipped, saying
    what to install."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(ci_why)
    pytest.skip(skip_why)


def installed_rust_targets() -> set[str]:
    """The targets rustup has standard libraries for (empty without rustup)."""
    from benchpipe import tools
    rustup = tools.which("rustup")
    if not rustup:
        return set()
    out = subprocess.run([rustup, "target", "list", "--installed"], capture_output=True, text=True)
    return set(out.stdout.split())


def run_bench(*args, env=None, timeout=900, **kw) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    full_env.pop("GITHUB_STEP_SUMMARY", None)  # never append test output to a CI job summary
    return subprocess.run(["bash", str(BENCH), *map(str, args)], capture_output=True, text=True,
                          env=full_env, timeout=timeout, **kw)


@pytest.fixture(scope="session")
def cat():
    return catalogue.load()


@pytest.fixture(scope="session")
def build_dir() -> Path:
    return Path(os.environ.get("BENCH_TEST_BUILD_DIR", ROOT / ".bench" / "test-build")).resolve()


@pytest.fixture(scope="session")
def programs(cat, build_dir) -> dict[str, toolchains.Built]:
    """build name (go, rust-system, rust-mimalloc) -> the real program, built with the
    local toolchains exactly as `bench build --go local --rust local` does."""
    try:
        built = toolchains.build_all(cat, ROOT, build_dir, ["local"], ["local"], "head", quiet=True)
    except BenchError as err:
        pytest.fail(f"building the programs failed: {err}")
    toolchains.write_manifest(build_dir, built)
    return {b.build: b for b in built}


@pytest.fixture(scope="session")
def servers(cat):
    """Every service a scenario of the catalogue needs, for the session
    (services.Available: service -> DSN, and why the others are missing). With
    BENCH_REQUIRE_SERVICES=1 (CI) a missing one fails the session's first user."""
    try:
        with services.running(wanted(cat), note=lambda _: None) as got:
            yield got
    except BenchError as err:
        pytest.fail(str(err))


def scenario_env(servers, scenario) -> dict[str, str]:
    """os.environ with the DSN variable of the server the scenario needs; the test is
    skipped when it has none (failed under BENCH_REQUIRE_SERVICES=1)."""
    why = servers.why_not(scenario.service)
    if why:
        if services.required():
            pytest.fail(f"{scenario.name}: {why}")
        pytest.skip(f"{scenario.name}: {why}")
    return {**os.environ, **servers.env()}


def scenario_names() -> list[str]:
    """Every scenario of the catalogue, for tests parametrised over them."""
    return list(catalogue.load().scenarios)
