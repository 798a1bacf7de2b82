"""The throwaway MariaDB/MySQL server: it starts, its DSN works for the programs'
setup, and it is stopped and its data directory removed afterwards - also when the
command fails and when `bench mysql-server` gets SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from benchpipe import tools
from conftest import BENCH


def _datadirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("bench-mysql-*")}


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def no_dsn_env():
    if not (tools.which("mariadbd") or tools.which("mysqld")):
        if os.environ.get("BENCH_REQUIRE_MYSQL") == "1":
            pytest.fail("no MariaDB/MySQL server installed")
        pytest.skip("no MariaDB/MySQL server installed")
    env = dict(os.environ)
    env.pop("BENCH_MYSQL_DSN", None)  # test the throwaway server itself, not the suite's
    env.pop("GITHUB_STEP_SUMMARY", None)
    return env


def test_server_runs_command_and_cleans_up_on_failure(programs, no_dsn_env, tmp_path):
    before = _datadirs()
    prog = programs["go"].path_for("mysql")
    dsn_file = tmp_path / "dsn"
    script = (f'echo "$BENCH_MYSQL_DSN" > {dsn_file} && "{prog}" setup mysql --rows 50 && '
              f'"{prog}" mysql --tasks 10 --rows 50 > {tmp_path / "rec"} && exit 7')
    res = subprocess.run(["bash", str(BENCH), "mysql-server", "--", "bash", "-c", script],
                         capture_output=True, text=True, env=no_dsn_env, timeout=300)
    assert res.returncode == 7, res.stderr  # CMD's exit code, after a successful setup and run
    dsn = dsn_file.read_text().strip()
    assert dsn.startswith("mysql://bench:bench@127.0.0.1:") and dsn.endswith("/bench")
    assert '"checksum"' in (tmp_path / "rec").read_text()
    port = int(dsn.rsplit(":", 1)[1].split("/")[0])
    assert not _port_open(port), "the server is still listening"
    assert _datadirs() == before, "the data directory was left behind"


def test_server_cleans_up_on_sigterm(no_dsn_env, tmp_path):
    before = _datadirs()
    dsn_file = tmp_path / "dsn"
    proc = subprocess.Popen(["bash", str(BENCH), "mysql-server", "--", "bash", "-c",
                             f'echo "$BENCH_MYSQL_DSN" > {dsn_file}; sleep 120'],
                            env=no_dsn_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not (dsn_file.exists() and dsn_file.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.2)
    dsn = dsn_file.read_text().strip()
    port = int(dsn.rsplit(":", 1)[1].split("/")[0])
    assert _port_open(port)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)
    assert proc.returncode != 0
    assert not _port_open(port)
    assert _datadirs() == before


def test_given_dsn_is_used_as_is(tmp_path):
    env = {**os.environ, "BENCH_MYSQL_DSN": "mysql://u:p@127.0.0.1:1/x"}
    res = subprocess.run(["bash", str(BENCH), "mysql-server", "--", "bash", "-c", 'echo "$BENCH_MYSQL_DSN"'],
                         capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0
    assert res.stdout.strip() == "mysql://u:p@127.0.0.1:1/x"


def test_server_starts_where_host_names_do_not_resolve(programs, no_dsn_env, tmp_path):
    """A bare machine (a debootstrap chroot has no /etc/hosts) cannot resolve `localhost`:
    mariadb-install-db's own resolveip check then refused to initialise, and every mysql
    benchmark was skipped with the script's boilerplate as the reason. Stood in here by
    an empty /etc/hosts and an unknown host name in private namespaces, or run as it is
    where localhost really does not resolve."""
    prog = programs["go"].path_for("mysql")
    inner = (f'"{prog}" setup mysql --rows 50 && "{prog}" mysql --tasks 10 --rows 50 > {tmp_path / "rec"}')
    serve = f'bash {BENCH} mysql-server -- bash -c \'{inner}\''
    # getent is glibc's (Linux); elsewhere the stand-in's preconditions below decide, as before
    if tools.which("getent") and subprocess.run(["getent", "hosts", "localhost"], capture_output=True).returncode != 0:
        cmd = ["bash", "-c", serve]  # the real thing: nothing to stand in
    else:
        if not (hasattr(os, "geteuid") and os.geteuid() == 0 and tools.which("unshare")):
            pytest.skip("needs root and unshare(1) for private mount and host-name namespaces")
        probe = subprocess.run(["unshare", "--mount", "--uts", "true"], capture_output=True, text=True)
        if probe.returncode != 0:  # e.g. in a chroot, whose / is no mount point to make private
            pytest.skip(f"no private namespaces here: {probe.stderr.strip()}")
        empty = tmp_path / "hosts"
        empty.write_text("")
        cmd = ["unshare", "--mount", "--uts", "bash", "-c",
               f'mount --bind {empty} /etc/hosts && hostname no-such-host-bench && ! getent hosts localhost && {serve}']
    res = subprocess.run(cmd, capture_output=True, text=True, env=no_dsn_env, timeout=300)
    assert res.returncode == 0, res.stderr
    assert '"checksum"' in (tmp_path / "rec").read_text()


def test_install_failure_says_why_not_where_to_read_more():
    from benchpipe import mysqlserver
    out = ("Neither host 'vm' nor 'localhost' could be looked up with\n'/usr/bin/resolveip'\n"
           "Please configure the 'hostname' command to return a correct\nhostname.\n\n"
           "The latest information about mysql_install_db is available at\n"
           "https://mariadb.com/kb/en/installing-system-tables-mysql_install_db\n")
    got = mysqlserver._reason_lines(out, mysqlserver.INSTALL_REASON_LINES)
    assert got[0].startswith("Neither host") and got[-1] == "hostname."
