"""The services (benchpipe/services): for every service module, a throwaway server
starts, its DSN works for the programs' setup and run of a scenario that needs it, and
it is stopped and its data directory removed afterwards - also when the command fails
and when `bench services` gets SIGTERM. A DSN given in the service's variable is used
as is."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from benchpipe import services, tools
from benchpipe.catalogue import BenchSpec
from conftest import BENCH

SERVICES = services.names()


def _datadirs(name: str) -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob(f"bench-{name}-*")}


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _port(dsn: str) -> int:
    return int(dsn.rsplit(":", 1)[1].split("/")[0])


def _serve(name: str) -> list[str]:
    return ["bash", str(BENCH), "services", "--service", name, "--"]


def _scenario_script(cat, name: str, programs, tmp_path) -> str:
    """Set up and run, at smoke size, a scenario that needs the service, its record into
    tmp_path/rec (the Go program: the first build of the catalogue)."""
    sc = next(s for s in cat.scenarios.values() if s.service == name)
    build = cat.builds["go"]
    params = sc.key_params({k: v[0] for k, v in sc.grids["smoke"].items()}, "go")
    argv = BenchSpec(sc, sc.variants["go"][0], build, params).argv(programs["go"].path_for(sc.name))
    quoted = " ".join(f"'{a}'" for a in argv)
    return f"{argv[0]} setup {sc.name} {' '.join(argv[4:])} && {quoted} > {tmp_path / 'rec'}"


@pytest.fixture
def no_dsn_env(request):
    name = request.param
    mod = services.module(name)
    if not all(st.find() for st in mod.TOOLS):
        if services.required():
            pytest.fail(f"no {mod.TITLE} server installed")
        pytest.skip(f"no {mod.TITLE} server installed")
    env = dict(os.environ)
    env.pop(mod.DSN_VAR, None)  # test the throwaway server itself, not the suite's
    env.pop("GITHUB_STEP_SUMMARY", None)
    return name, env


@pytest.mark.parametrize("no_dsn_env", SERVICES, indirect=True)
def test_server_runs_command_and_cleans_up_on_failure(cat, programs, no_dsn_env, tmp_path):
    name, env = no_dsn_env
    mod = services.module(name)
    before = _datadirs(name)
    dsn_file = tmp_path / "dsn"
    script = (f'echo "${mod.DSN_VAR}" > {dsn_file} && {_scenario_script(cat, name, programs, tmp_path)} && exit 7')
    res = subprocess.run([*_serve(name), "bash", "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 7, res.stderr  # CMD's exit code, after a successful setup and run
    dsn = dsn_file.read_text().strip()
    assert "://bench:bench@127.0.0.1:" in dsn and dsn.endswith("/bench")
    assert '"checksum"' in (tmp_path / "rec").read_text()
    assert not _port_open(_port(dsn)), "the server is still listening"
    assert _datadirs(name) == before, "the data directory was left behind"


@pytest.mark.parametrize("no_dsn_env", SERVICES, indirect=True)
def test_server_cleans_up_on_sigterm(no_dsn_env, tmp_path):
    name, env = no_dsn_env
    before = _datadirs(name)
    dsn_file = tmp_path / "dsn"
    proc = subprocess.Popen([*_serve(name), "bash", "-c",
                             f'echo "${services.module(name).DSN_VAR}" > {dsn_file}; sleep 120'],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not (dsn_file.exists() and dsn_file.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.2)
    dsn = dsn_file.read_text().strip()
    assert _port_open(_port(dsn))
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)
    assert proc.returncode != 0
    assert not _port_open(_port(dsn))
    assert _datadirs(name) == before


@pytest.mark.parametrize("name", SERVICES)
def test_given_dsn_is_used_as_is(name, tmp_path):
    var = services.module(name).DSN_VAR
    env = {**os.environ, var: "x://u:p@127.0.0.1:1/x"}
    res = subprocess.run([*_serve(name), "bash", "-c", f'echo "${var}"'],
                         capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0
    assert res.stdout.strip() == "x://u:p@127.0.0.1:1/x"


def test_every_service_a_scenario_names_is_a_module(cat):
    """A scenario's `service` is a module of benchpipe/services with what the
    pipeline asks of it."""
    for sc in cat.scenarios.values():
        if sc.service:
            mod = services.module(sc.service)
            assert mod.TITLE and mod.DSN_VAR.startswith("BENCH_") and mod.TOOLS and callable(mod.throwaway)


def test_an_unknown_service_is_a_usage_error():
    res = subprocess.run([*_serve("nosuch"), "true"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "unknown service nosuch" in res.stderr, res.stderr


@pytest.mark.parametrize("no_dsn_env", ["mysql"], indirect=True)
def test_server_starts_where_host_names_do_not_resolve(cat, programs, no_dsn_env, tmp_path):
    """A bare machine (a debootstrap chroot has no /etc/hosts) cannot resolve `localhost`:
    mariadb-install-db's own resolveip check then refused to initialise, and every mysql
    benchmark was skipped with the script's boilerplate as the reason. Stood in here by
    an empty /etc/hosts and an unknown host name in private namespaces, or run as it is
    where localhost really does not resolve."""
    name, env = no_dsn_env
    inner = _scenario_script(cat, name, programs, tmp_path).replace("'", "")
    serve = f'bash {BENCH} services --service {name} -- bash -c \'{inner}\''
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
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    assert '"checksum"' in (tmp_path / "rec").read_text()


def test_install_failure_says_why_not_where_to_read_more():
    mysqlserver = services.module("mysql")
    out = ("Neither host 'vm' nor 'localhost' could be looked up with\n'/usr/bin/resolveip'\n"
           "Please configure the 'hostname' command to return a correct\nhostname.\n\n"
           "The latest information about mysql_install_db is available at\n"
           "https://mariadb.com/kb/en/installing-system-tables-mysql_install_db\n")
    got = mysqlserver._reason_lines(out, mysqlserver.INSTALL_REASON_LINES)
    assert got[0].startswith("Neither host") and got[-1] == "hostname."
