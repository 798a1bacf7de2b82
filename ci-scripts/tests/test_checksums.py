"""Same work in both languages: for every scenario of the catalogue at smoke sizes,
every variant of Go and of both Rust builds prints the same checksum (programs called
directly, setup first; the database scenarios against the session's servers)."""

from __future__ import annotations

import itertools
import json
import subprocess

import pytest

from benchpipe import schema
from benchpipe.catalogue import BenchSpec
from conftest import scenario_env, scenario_names


def _run(argv, env, cwd):
    res = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    assert res.returncode == 0, f"{' '.join(argv)}: exit {res.returncode}: {res.stderr.strip()[-500:]}"
    return res.stdout


def checksums(cat, programs, scenario, tmp_path, env, run=_run, check=None, expect=None, tries=1):
    """{shared params (JSON): {build/variant/params: checksum}} over the scenario's smoke
    grid, every variant of every build, asserting they agree. run(argv, env, cwd) -> stdout:
    how a command line is run (e.g. under Wine); check: called with each record; expect:
    {shared params (JSON): checksum} a run must print, or it is run again (setup and all)
    up to `tries` times."""
    sc = cat.scenarios[scenario]
    grid = sc.grids["smoke"]
    found = {}
    done = set()
    for combo in itertools.product(*grid.values()):
        for build in ("go", "rust-system", "rust-mimalloc"):
            b = cat.builds[build]
            # Per language: a grid over Rust's own parameters (hasher) repeats Go's runs.
            params = sc.key_params(dict(zip(grid, combo)), b.lang)
            for variant in sc.variants.get(b.lang, ()):
                run_id = f"{build}/{variant}/{json.dumps(params, sort_keys=True)}"
                if run_id in done:
                    continue
                done.add(run_id)
                key = json.dumps(sc.shared_params(params), sort_keys=True)
                for attempt in range(tries):
                    work = tmp_path / f"{build}-{variant}-{len(done)}-{attempt}"
                    work.mkdir()
                    extra = {p.name: str(work / str(p.default)) for p in sc.params.values() if p.type == "path"}
                    argv = BenchSpec(sc, variant, b, params).argv(programs[build].path_for(sc.name), extra)
                    if sc.setup:
                        run([argv[0], "setup", scenario, *argv[4:]], env, work)
                    rec = json.loads(run(argv, env, work).strip().splitlines()[-1])
                    assert not schema.problems(rec, "record"), schema.problems(rec, "record")
                    if check:
                        check(rec)
                    if expect is None or rec["checksum"] == expect.get(key):
                        break
                found.setdefault(key, {})[run_id] = rec["checksum"]
    for params, sums in found.items():
        assert len(set(sums.values())) == 1, f"{scenario} {params}: checksums differ: {sums}"
    return found


@pytest.mark.parametrize("scenario", scenario_names())
def test_same_checksum_everywhere(cat, programs, servers, scenario, tmp_path):
    checksums(cat, programs, scenario, tmp_path, scenario_env(servers, cat.scenarios[scenario]))
