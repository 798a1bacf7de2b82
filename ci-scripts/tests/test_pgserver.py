"""What is particular to the throwaway PostgreSQL server (benchpipe.services.postgres;
what every service does, test_services.py checks): it serves both programs as an
unprivileged user when we are root, it is stopped and its temp dir removed after an
exception too, a missing installation or a server that will not start is one line that
says what to do, the newest packaged version is taken; and both languages record the
same server settings."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from benchpipe import services
from benchpipe.errors import BenchError
from benchpipe.services import postgres
from conftest import scenario_env
from test_like_for_like import _sql_records


def _datadirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("bench-postgres-*")}


def _port(dsn: str) -> int:
    return int(dsn.rsplit(":", 1)[1].split("/")[0])


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _processes_under(base: str) -> list[int]:
    """uids of the processes whose command line names base (Linux /proc; else [])."""
    uids = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if base.encode() in (proc / "cmdline").read_bytes():
                uids.append(proc.stat().st_uid)
        except OSError:
            continue
    return uids


def _unavailable(why: str):
    if services.required():
        pytest.fail(why)
    pytest.skip(why)


@pytest.fixture
def no_dsn_env(monkeypatch):
    """The throwaway server itself is under test, not a BENCH_POSTGRES_DSN given."""
    if postgres.bin_dir() is None:
        _unavailable("no PostgreSQL server installed")
    monkeypatch.delenv(postgres.DSN_VAR, raising=False)


def _run(argv, env):
    res = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, f"{' '.join(map(str, argv))}: exit {res.returncode}: {res.stderr.strip()[-500:]}"
    return res.stdout


def test_server_serves_both_programs_and_cleans_up(programs, no_dsn_env):
    before = _datadirs()
    with postgres.throwaway() as dsn:
        assert dsn.startswith("postgres://bench:bench@127.0.0.1:") and dsn.endswith("/bench")
        (base,) = _datadirs() - before
        env = {**os.environ, postgres.DSN_VAR: dsn}
        sums = {}
        for build, variant in (("go", "goroutines"), ("rust-system", "tokio")):
            prog = programs[build].path_for("postgres")
            _run([prog, "setup", "postgres", "--rows", "50"], env)
            out = _run([prog, "postgres", "--variant", variant, "--tasks", "10", "--rows", "50"], env)
            sums[build] = json.loads(out.strip().splitlines()[-1])["checksum"]
        assert sums["go"] == sums["rust-system"]
        uids = _processes_under(base)
        if sys.platform == "linux":
            assert uids, "no server process found"
            # initdb and postgres refuse root: as root they run as the postgres user
            assert 0 not in uids, uids
    assert not _port_open(_port(dsn)), "the server is still listening"
    assert _datadirs() == before, "the temp dir was left behind"
    assert not _processes_under(base), "server processes were left behind"


def test_server_cleans_up_after_an_exception(no_dsn_env):
    before = _datadirs()
    with pytest.raises(RuntimeError, match="the command failed"):
        with postgres.throwaway() as dsn:
            assert _port_open(_port(dsn))
            raise RuntimeError("the command failed")
    assert not _port_open(_port(dsn))
    assert _datadirs() == before


def test_no_server_binaries_is_one_line_that_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.delenv(postgres.DSN_VAR, raising=False)
    monkeypatch.setattr(postgres, "DEBIAN_ROOT", tmp_path)
    monkeypatch.setattr(postgres, "HOMEBREW_OPT", ())
    monkeypatch.setattr(postgres.tools, "which", lambda name: None)
    before = _datadirs()
    with pytest.raises(BenchError) as err:
        with services.dsn("postgres"):
            pass
    msg = str(err.value)
    assert "\n" not in msg and "install postgresql" in msg and postgres.DSN_VAR in msg
    assert _datadirs() == before


def test_server_that_fails_to_start_says_why_and_cleans_up(no_dsn_env):
    before = _datadirs()
    with pytest.raises(BenchError) as err:
        with postgres.throwaway(settings={"shared_buffers": "lots"}):
            pass
    msg = str(err.value)
    assert "\n" not in msg and "exited at start" in msg and "shared_buffers" in msg, msg
    assert _datadirs() == before


def test_debian_layout_newest_version_first(monkeypatch, tmp_path):
    for version in ("9.6", "16", "15"):
        d = tmp_path / version / "bin"
        d.mkdir(parents=True)
        for name in postgres.BINARIES:
            (d / name).write_text("#!/bin/sh\n")
            (d / name).chmod(0o755)
    (tmp_path / "17" / "bin").mkdir(parents=True)  # a client-only install: no server
    (tmp_path / "17" / "bin" / "psql").write_text("")
    monkeypatch.setattr(postgres, "DEBIAN_ROOT", tmp_path)
    monkeypatch.setattr(postgres, "HOMEBREW_OPT", ())
    monkeypatch.setattr(postgres.tools, "which", lambda name: None)
    assert postgres.bin_dir() == tmp_path / "16" / "bin"


def test_postgres_records_the_same_settings_in_both_languages(cat, programs, servers, tmp_path):
    recs = _sql_records(programs, "postgres", tmp_path, scenario_env(servers, cat.scenarios["postgres"]))
    go, rust = recs["go"], recs["rust-system"]
    settings = ("server_version", "synchronous_commit", "fsync", "wal_sync_method", "full_page_writes", "wal_level",
                "shared_buffers", "max_connections", "plan_cache_mode", "autovacuum", "pool", "checkout")
    for name in settings:
        assert go["runtime"][name] == rust["runtime"][name], name
    # the same facts under the same keys (the process-wide ones aside)
    sql_keys = set(settings) | {"driver"}
    assert sql_keys <= set(go["runtime"]) and sql_keys <= set(rust["runtime"])
    assert go["runtime"]["driver"].startswith("github.com/jackc/pgx/v5 v5.")
    assert rust["runtime"]["driver"].startswith("sqlx 0.")
