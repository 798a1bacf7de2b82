"""Each program's `list` is the catalogue's view for its language: the same scenarios,
variants, and parameters with the same type, min, default and choices."""

from __future__ import annotations

import json
import subprocess

import pytest


def catalogue_view(cat, lang: str) -> dict:
    return {
        name: {"variants": list(sc.variants.get(lang, ())),
               "params": {p.name: p.program_view() for p in sc.params.values() if p.lang in (None, lang)}}
        for name, sc in cat.scenarios.items() if sc.variants.get(lang)
    }


@pytest.mark.parametrize("build", ["go", "rust-system", "rust-mimalloc"])
def test_list_matches_catalogue(programs, cat, build):
    prog = programs[build]
    out = subprocess.run([prog.path, "list"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    listing = json.loads(out.stdout.strip().splitlines()[-1])
    b = cat.builds[build]
    assert (listing["program"], listing["lang"], listing["build"]) == (b.program, b.lang, b.name)
    assert listing["toolchain"] == prog.toolchain
    assert listing["scenarios"] == catalogue_view(cat, b.lang)


@pytest.mark.parametrize("build", ["go", "rust-system", "rust-mimalloc"])
def test_setup_accepts_every_scenario_without_variant(programs, cat, build, tmp_path):
    """Contract 1: `<prog> setup <scenario> [--param value ...]` (no --variant);
    scenarios without setup accept it and do nothing."""
    prog = programs[build]
    for name, sc in cat.scenarios.items():
        if sc.setup:
            continue  # those need their files/database; the checksum tests run them
        args = [a for p, v in sc.key_params({}, prog.lang).items() if v != "cpus" for a in (f"--{p}", str(v))]
        res = subprocess.run([prog.path, "setup", name, *args], capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert res.returncode == 0, f"{build} setup {name}: {res.stderr.strip()}"
        assert list(tmp_path.iterdir()) == [], f"{build} setup {name} wrote files"
