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


def _listing(path: str) -> dict:
    out = subprocess.run([path, "list"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("build", ["go", "rust-system", "rust-mimalloc"])
def test_list_matches_catalogue(programs, cat, build):
    """A build's program lists the catalogue's scenarios for its language; a split program
    (gobench-sql) lists them all, the lean one all but the split ones."""
    prog = programs[build]
    b = cat.builds[build]
    view = catalogue_view(cat, b.lang)
    listing = _listing(prog.path)
    assert (listing["program"], listing["lang"], listing["build"]) == (b.program, b.lang, b.name)
    assert listing["toolchain"] == prog.toolchain
    assert listing["scenarios"] == {k: v for k, v in view.items() if k not in b.split_scenarios}
    assert set(prog.paths) == set(b.split_scenarios)
    for scenario in b.split_scenarios:
        split = _listing(prog.path_for(scenario))
        assert (split["program"], split["toolchain"]) == (b.split_program, prog.toolchain)
        assert split["scenarios"] == view


@pytest.mark.parametrize("build", ["go", "rust-system", "rust-mimalloc"])
def test_a_lean_program_says_which_program_runs_a_split_scenario(programs, cat, build):
    """The lean program (built without the SQL scenarios: Go's tag sql, Rust's feature sql)
    refuses a split scenario in one line that names the program that runs it."""
    prog, b = programs[build], cat.builds[build]
    assert b.split_scenarios, f"{build}: the catalogue gives it no split program"
    for scenario in b.split_scenarios:
        res = subprocess.run([prog.path, scenario, "--variant", cat.scenarios[scenario].variants[b.lang][0]],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
        assert b.split_program in res.stderr and scenario in res.stderr, res.stderr


@pytest.mark.parametrize("build", ["go", "rust-system", "rust-mimalloc"])
def test_setup_accepts_every_scenario_without_variant(programs, cat, build, tmp_path):
    """Contract 1: `<prog> setup <scenario> [--param value ...]` (no --variant);
    scenarios without setup accept it and do nothing."""
    prog = programs[build]
    for name, sc in cat.scenarios.items():
        if sc.setup:
            continue  # those need their files/database; the checksum tests run them
        args = [a for p, v in sc.key_params({}, prog.lang).items() if v != "cpus" for a in (f"--{p}", str(v))]
        res = subprocess.run([prog.path_for(name), "setup", name, *args], capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert res.returncode == 0, f"{build} setup {name}: {res.stderr.strip()}"
        assert list(tmp_path.iterdir()) == [], f"{build} setup {name} wrote files"


@pytest.mark.parametrize("build", ["go", "rust-system", "rust-mimalloc"])
@pytest.mark.parametrize("args, needle", [
    (["cpu", "--variant", "{cpu}", "--threads", "100000"], "--threads must be <= 1024"),
    (["hashmap", "--variant", "spawn", "--tasks", "9223372036854775807"], "--tasks must be <= 10000000"),
    (["hashmap", "--variant", "spawn", "--rate", "1e9"], "--rate must be <= 1"),
])
def test_programs_refuse_what_they_cannot_run(programs, cat, build, args, needle):
    """Every numeric parameter has the catalogue's max in both programs: a typo cannot
    start 100,000 threads (gobench ran over 2 minutes, rsbench aborted) or panic."""
    prog = programs[build]
    cpu = "goroutines" if prog.lang == "go" else "threads"
    argv = [prog.path, *[a.format(cpu=cpu) for a in args]]
    res = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    assert res.returncode == 2, (argv, res.returncode, res.stderr[-300:])
    assert needle in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    for name, sc in cat.scenarios.items():
        for p in sc.params.values():
            assert p.type not in ("int", "float") or p.max is not None, f"{name}.{p.name} has no max"


def test_the_go_table_is_what_the_catalogue_makes(cat):
    """go/scenarios.go is generated from the catalogue (`bench catalogue
    --write-programs`); a hand edit, or a catalogue change without it, fails here."""
    from benchpipe import program_tables
    assert program_tables.stale(cat) == [], "run `ci-scripts/bench catalogue --write-programs`"


GHOST = """
[scenarios.ghost]
title = "A scenario no program has"
seeds = []
setup = false
size = "tasks"
variants.go = ["goroutines"]
variants.rust = ["tokio"]
[scenarios.ghost.params]
tasks = { type = "int", min = 1, max = 10, default = 1, help = "tasks" }
[scenarios.ghost.pairs]
tokio = "goroutines"
[scenarios.ghost.presets]
smoke = { tasks = [1] }
quick = { tasks = [1] }
standard = { tasks = [1] }
full = { tasks = [1] }
"""


def test_a_scenario_without_its_go_file_fails_the_catalogue_checks(programs, tmp_path):
    """Declared in the catalogue, but no Go file registers it: the program's `list` is
    not the catalogue's view (test_list_matches_catalogue fails), and the Go test
    TestList, which reads the generated table, fails."""
    import os
    import shutil

    from benchpipe import catalogue, program_tables, tools
    path = tmp_path / "catalogue.toml"
    path.write_text(catalogue.CATALOGUE_PATH.read_text(encoding="utf-8") + GHOST, encoding="utf-8")
    ghost_cat = catalogue.load(path)
    view = catalogue_view(ghost_cat, "go")
    assert "ghost" in view and "ghost" not in _listing(programs["go"].path)["scenarios"]
    # The Go test reads the generated table: with the ghost in it, `go test` fails.
    src = tmp_path / "go"
    shutil.copytree(catalogue.CATALOGUE_PATH.parent.parent / "go", src)
    (src / "scenarios.go").write_text(program_tables.render_go(ghost_cat), encoding="utf-8")
    res = subprocess.run(["go", "test", "-run", "TestList$", "."], cwd=src, capture_output=True, text=True,
                         timeout=600, env={**os.environ, "PATH": tools.path_with_extras()})
    assert res.returncode != 0 and "list has" in res.stdout, res.stdout[-2000:] + res.stderr[-1000:]


def test_a_scenario_without_its_rust_module_does_not_build(build_dir, tmp_path):
    """Declared in the catalogue, but no src/<name>.rs: build.rs writes the table from
    the catalogue, which names the module, so `cargo check` fails and says which file
    is missing (a copy of the crate and catalogue, checked in a target dir of its own)."""
    import os
    import shutil

    from benchpipe import ROOT, tools
    shutil.copytree(ROOT / "rust", tmp_path / "rust", ignore=shutil.ignore_patterns("target"))
    (tmp_path / "ci-scripts").mkdir()
    (tmp_path / "ci-scripts" / "catalogue.toml").write_text(
        (ROOT / "ci-scripts" / "catalogue.toml").read_text(encoding="utf-8") + GHOST, encoding="utf-8")
    res = subprocess.run(["cargo", "check", "--locked", "--lib", "--target-dir", str(build_dir / "ghost-check")],
                         cwd=tmp_path / "rust", capture_output=True, text=True, timeout=1800,
                         env={**os.environ, "PATH": tools.path_with_extras()})
    assert res.returncode != 0, res.stderr[-2000:]
    assert "ghost.rs" in res.stderr, res.stderr[-2000:]


@pytest.mark.parametrize("lang_key", [("go", "features"), ("rust-system", "tags")])
def test_a_split_names_what_its_language_builds_it_with(tmp_path, lang_key):
    """A build's split gives its program and Go's build tags or Rust's cargo features;
    the other language's key is refused in one line that says which is which."""
    from benchpipe import catalogue
    build, wrong = lang_key
    text = catalogue.CATALOGUE_PATH.read_text(encoding="utf-8")
    head = f"[builds.{build}.split]\n"
    assert head in text
    start = text.index(head) + len(head)
    end = text.index("\n[", start)
    bad = tmp_path / "catalogue.toml"
    bad.write_text(text[:start] + f'program = "other"\n{wrong} = "sql"\n' + text[end:], encoding="utf-8")
    from benchpipe.errors import BenchError
    with pytest.raises(BenchError, match=f"malformed catalogue: build {build}: split is a program of its own"):
        catalogue.load(bad)


def test_the_record_schema_names_every_program_of_the_catalogue(cat):
    """A record's `program` is one of the catalogue's programs, lean and split: the schema's
    list is checked against the catalogue, so a new program cannot be refused by it."""
    from benchpipe import SCHEMAS
    doc = json.loads((SCHEMAS / "record.schema.json").read_text(encoding="utf-8"))
    programs = {p for b in cat.builds.values() for p in (b.program, b.split_program) if p}
    assert set(doc["properties"]["program"]["enum"]) == programs
