"""doctor, toolchain names, manifest."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import pytest

from benchpipe import ROOT, sqlite_link, toolchains, tools
from benchpipe.commands import doctor
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


def test_manifest_merges_labels_and_toolchains_but_drops_older_commits(tmp_path):
    def built(build, request, label, commit):
        return toolchains.Built(build, "go", "gobench", "go1.x", request, "v", f"/x/{label}/{request}/{build}", label,
                                commit)

    def entries():
        return [(b.label, b.request, b.commit) for b in toolchains.read_manifest(tmp_path / "manifest.json")]

    toolchains.write_manifest(tmp_path, [built("go", "stable", "head", "c1")])
    toolchains.write_manifest(tmp_path, [built("go", "local", "base", "c0")])    # another label: kept
    toolchains.write_manifest(tmp_path, [built("go", "local", "head", "c1")])    # another toolchain, same commit
    assert entries() == [("head", "stable", "c1"), ("base", "local", "c0"), ("head", "local", "c1")]
    toolchains.write_manifest(tmp_path, [built("go", "local", "head", "c1")])    # the same again: replaced
    assert entries() == [("head", "stable", "c1"), ("base", "local", "c0"), ("head", "local", "c1")]
    toolchains.write_manifest(tmp_path, [built("go", "local", "head", "c2")])    # a new head commit
    assert entries() == [("base", "local", "c0"), ("head", "local", "c2")]


def test_doctor_requires_only_what_the_stage_needs():
    # A bench job on macOS must not fail for want of gnuplot, nor publish for want of hyperfine.
    found = {t.name: t for t in doctor.all_tools()}
    assert found["gnuplot"].needed_for("site") and not found["gnuplot"].needed_for("run")
    assert found["hyperfine"].needed_for("run") and not found["hyperfine"].needed_for("site")
    assert found["go"].needed_for("all") and found["cargo"].needed_for("run")
    assert not any(found[n].needed_for(s) for n in ("mariadbd", "chromium") for s in ("run", "site", "all"))


def test_rust_builds_are_reproducible_across_checkouts_commits_and_moments(tmp_path):
    """Two builds of the same Rust source must be the same bytes (an A/A of two builds
    flagged a memory change in Rust hashmap spawn when they were not; a program a pull
    request did not change is counted once under Valgrind only if it is the base's
    bytes): the C code's __DATE__ and __TIME__ follow a fixed SOURCE_DATE_EPOCH, not the
    commit's time, paths are remapped, and flags the user set are kept."""
    src, target = tmp_path / "a dir" / "rust", tmp_path / "t"
    env = toolchains.reproducible_rust_env({"RUSTFLAGS": "-C target-cpu=native"}, src, target)
    flags = env["CARGO_ENCODED_RUSTFLAGS"].split("\x1f")
    assert flags == ["-C", "target-cpu=native", f"--remap-path-prefix={src}=/bench/rust",
                     f"--remap-path-prefix={target}=/bench/target"]
    assert "RUSTFLAGS" not in env and env["SOURCE_DATE_EPOCH"] == "0"
    # a checkout elsewhere (of any commit) gives the same environment but for its own paths
    other = toolchains.reproducible_rust_env({}, tmp_path / "b" / "rust", tmp_path / "u")
    assert other["SOURCE_DATE_EPOCH"] == "0"
    kept = toolchains.reproducible_rust_env({"SOURCE_DATE_EPOCH": "1", "CARGO_ENCODED_RUSTFLAGS": "-Copt-level=3"},
                                           src, target)
    assert kept["SOURCE_DATE_EPOCH"] == "1" and kept["CARGO_ENCODED_RUSTFLAGS"].startswith("-Copt-level=3\x1f")


def test_go_builds_are_reproducible_across_checkouts_and_sqlite_dirs(cat, programs, tmp_path):
    """The Go programs of a PR's base and head are built from two checkouts, the SQL one
    against the SQLite library of each side's own Rust build (two target dirs): they
    must be the same bytes too. With -trimpath alone the SQL program differed in its
    build ID, a hash of the build's inputs that names the library's directory (seen in
    an A/A of two builds of one commit)."""
    head = programs["go"]
    target = Path(head.path).parent / "target"   # the Rust build beside it (build_all)
    found = sqlite_link.find(target)
    assert found is not None and head.paths, "the Rust build left no SQLite library for Go to link"
    # a second checkout and a second copy of the library, at other paths
    other = tmp_path / "another checkout"
    shutil.copytree(ROOT / "go", other / "go")
    lib = tmp_path / "another target" / "out"
    shutil.copytree(found.lib_dir, lib)
    (base,) = toolchains.build_go(cat, other, "local", tmp_path / "build", "base", quiet=True,
                                  sqlite=sqlite_link.SqliteLib(lib, found.include_dir))
    assert Path(base.path).read_bytes() == Path(head.path).read_bytes()
    for scenario, path in head.paths.items():
        assert Path(base.paths[scenario]).read_bytes() == Path(path).read_bytes(), scenario


def test_go_builds_stamp_no_commit_so_an_unchanged_program_is_the_bases_bytes(tmp_path):
    """Inside a git checkout go stamps the commit and its time into the program
    (vcs.revision); a pull request's base and head are two commits, so an unchanged Go
    program would differ from the base's and be counted again under Valgrind. The build's
    flags leave it out (GOFLAGS set to go's default: this machine's go env sets -buildvcs=false, a
    runner's does not)."""
    import subprocess
    go = tools.require("go")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "go.mod").write_text("module stamp\n\ngo 1.21\n")
    (repo / "main.go").write_text("package main\n\nfunc main() {}\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "x"]):
        subprocess.run(git + args, check=True)
    env = {**os.environ, "GOFLAGS": "-buildvcs=auto", "GOTOOLCHAIN": "local"}

    def stamped(flags) -> bool:
        exe = tmp_path / "prog"
        subprocess.run([go, "build", *flags, "-o", str(exe), "."], cwd=repo, env=env, check=True)
        info = subprocess.run([go, "version", "-m", str(exe)], capture_output=True, text=True, env=env, check=True)
        return "vcs.revision" in info.stdout
    assert stamped(["-trimpath"])        # what the flags are for
    assert not stamped(toolchains.GO_REPRODUCIBLE)


def test_sqlite_flags_for_go_keep_a_path_with_spaces_whole():
    """go splits CGO_*FLAGS at spaces but for a quoted field: a folder such as "My
    Projects" must reach the C compiler and linker as one path (the build above links
    through one); flags the user set come first."""
    lib = sqlite_link.SqliteLib(Path("/a/My Projects/out"), Path("/inc"))
    env = lib.go_env({"CGO_LDFLAGS": "-O2"})
    assert env == {"CGO_CFLAGS": "-I/inc", "CGO_LDFLAGS": "-O2 '-L/a/My Projects/out' -lm"}
    assert sqlite_link._flag("-L/it's here") == '"-L/it\'s here"'


def test_the_sqlite_header_comes_from_the_build_itself(tmp_path):
    """Issue 39: `cargo metadata --offline` could not find libsqlite3-sys's header on a
    fresh machine (its registry holds only what the build downloaded), and Go then
    linked a different SQLite. The header's directory is read from the build script's
    own output instead, beside the library; none without it (no header: no link)."""
    inc = tmp_path / "registry" / "libsqlite3-sys-0.30.1" / "sqlite3"
    inc.mkdir(parents=True)
    (inc / "sqlite3.h").write_text("/* header */")
    build = tmp_path / "target" / "release" / "build" / "libsqlite3-sys-0123abcd"
    (build / "out").mkdir(parents=True)
    (build / "out" / "libsqlite3.a").write_bytes(b"!<arch>\n")
    assert sqlite_link.find(tmp_path / "target") is None   # no build-script output yet
    (build / "output").write_text(f"cargo:rerun-if-changed=sqlite3/sqlite3.c\ncargo:include={inc}\nCC = None\n")
    found = sqlite_link.find(tmp_path / "target")
    assert found == sqlite_link.SqliteLib(build / "out", inc)
    (inc / "sqlite3.h").unlink()
    assert sqlite_link.find(tmp_path / "target") is None


def test_a_rust_checkout_from_before_the_split_is_built_as_it_was(cat, tmp_path, monkeypatch):
    """A pull request's base from before the SQL scenarios had programs of their own has
    no feature sql and no rsbench-sql: its programs are built as that commit built them
    (every scenario in each) and run every scenario, while a checkout that declares the
    split programs gets the lean build and the split one. The cargo commands are recorded
    here; a real A/B run against such a base is in the session notes of issue 39."""
    import tomllib
    real = (ROOT / "rust" / "Cargo.toml").read_text(encoding="utf-8")
    old = "\n".join(ln for ln in real.splitlines() if "-sql" not in ln and "required-features" not in ln)
    assert "rsbench-sql" in real and "rsbench-sql" not in old
    tomllib.loads(old)   # still a manifest
    calls = []

    def fake_run(argv, cwd, env, what, quiet):
        calls.append(argv)
        if "--target-dir" in argv:   # make what cargo would have made
            rel = Path(argv[argv.index("--target-dir") + 1]) / "release"
            rel.mkdir(parents=True, exist_ok=True)
            bins = [argv[i + 1] for i, a in enumerate(argv) if a == "--bin"] or \
                ["rsbench", "rsbench-mimalloc"] + (["rsbench-sql", "rsbench-mimalloc-sql"] if "rsbench-sql" in
                                                   Path(cwd, "Cargo.toml").read_text() else [])
            for b in bins:
                (rel / (b + toolchains.EXE)).write_text("")
        return "rustc 1.95.0 (test)"

    monkeypatch.setattr(toolchains, "_run", fake_run)
    monkeypatch.setattr(toolchains, "program_toolchain", lambda exe: "rust1.95.0")
    for name, manifest in (("old", old), ("new", real)):
        src = tmp_path / name
        (src / "rust").mkdir(parents=True)
        (src / "rust" / "Cargo.toml").write_text(manifest, encoding="utf-8")
        for scenarios in (None, {"cpu"}, {"cpu", "sqlite"}):
            calls.clear()
            built, _ = toolchains.build_rust(cat, src, "local", tmp_path / f"out-{name}", "head", quiet=True,
                                             scenarios=scenarios)
            cargo = [c for c in calls if "build" in c]
            by = {b.build: b for b in built}
            if name == "old":   # its one program runs every scenario, whichever were asked for
                assert len(cargo) == 1 and "--bin" not in cargo[0] and "--no-default-features" not in cargo[0]
                assert all(not b.paths and not b.without for b in built)
                assert Path(by["rust-system"].path_for("sqlite")).name.startswith("rsbench")
                assert Path(by["rust-system"].path_for("sqlite")).name == Path(by["rust-system"].path).name
            elif scenarios == {"cpu"}:   # no SQL scenario: the lean build alone, and the manifest says so
                assert len(cargo) == 1 and "--no-default-features" in cargo[0] and "--features" not in cargo[0]
                for b in ("rust-system", "rust-mimalloc"):
                    assert not by[b].paths and by[b].without == list(cat.builds[b].split_scenarios)
                    assert Path(by[b].path_for("cpu")).name.startswith(cat.builds[b].program)
                    with pytest.raises(UsageError, match=f"^{b} \\(local, head\\) was built without the program "
                                                          "that runs sqlite: build that toolchain and label again with --scenario sqlite"):
                        by[b].path_for("sqlite")
                toolchains.write_manifest(tmp_path / "m", built)
                assert toolchains.read_manifest(tmp_path / "m" / "manifest.json") == built
            else:
                assert len(cargo) == 2 and "--no-default-features" in cargo[0] and "--features" in cargo[1]
                for b in ("rust-system", "rust-mimalloc"):
                    assert not by[b].without
                    assert Path(by[b].path_for("sqlite")).name.startswith(cat.builds[b].split_program)
                    assert Path(by[b].path_for("cpu")).name.startswith(cat.builds[b].program)


def test_a_go_build_for_scenarios_without_sql_leaves_out_the_sql_program(cat, tmp_path, monkeypatch):
    """gobench-sql (cgo, the SQLite of the Rust build) is built only when a SQL scenario is
    asked for; without one, the manifest says which scenarios the lean program cannot run.
    A manifest from before `without` existed still reads (every program built)."""
    calls = []

    def fake_run(argv, cwd, env, what, quiet):
        calls.append(argv)
        if "-o" in argv:
            Path(argv[argv.index("-o") + 1]).write_text("")
        return "go version go1.26.0 linux/amd64"

    monkeypatch.setattr(toolchains, "_run", fake_run)
    monkeypatch.setattr(toolchains, "program_toolchain", lambda exe: "go1.26.0")
    go = next(b for b in cat.builds.values() if b.lang == "go")
    for scenarios, sql in ((None, True), ({"cpu", "hashmap"}, False), ({"cpu", go.split_scenarios[0]}, True)):
        calls.clear()
        [b] = toolchains.build_go(cat, ROOT, "local", tmp_path, "head", quiet=True, scenarios=scenarios)
        outs = [Path(c[c.index("-o") + 1]).name for c in calls if "-o" in c]
        assert outs == [go.program, go.split_program] if sql else outs == [go.program]
        assert b.without == ([] if sql else list(go.split_scenarios))
    # a whole build's entry is written as before `without` was kept (older code reads it)
    doc = json.loads(toolchains.write_manifest(tmp_path, [b]).read_text())
    assert "without" not in doc["builds"][0]
    assert toolchains.read_manifest(tmp_path / "manifest.json")[0].without == []
    lean = dataclasses.replace(b, label="lean", without=list(go.split_scenarios))
    doc = json.loads(toolchains.write_manifest(tmp_path, [lean]).read_text())
    assert [e.get("without") for e in doc["builds"]] == [None, list(go.split_scenarios)]
    assert [e.without for e in toolchains.read_manifest(tmp_path / "manifest.json")] == [[], list(go.split_scenarios)]


def _fake_rustup(tmp_path: Path, installs_cargo: bool) -> Path:
    """A rustup that lists 1.90.0 without cargo (as an interrupted install leaves it) and
    logs what it is asked; its install puts cargo in when `installs_cargo`."""
    state, log = tmp_path / "has-cargo", tmp_path / "calls"
    script = tmp_path / "rustup"
    script.write_text(f"""#!/bin/sh
echo "$*" >> {log}
case "$1 $2" in
  "toolchain list") echo "stable-x86_64-unknown-linux-gnu (default)"; echo "1.90.0-x86_64-unknown-linux-gnu";;
  "toolchain uninstall") rm -f {state};;
  "toolchain install") {"touch " + str(state) if installs_cargo else ":"};;
  "which --toolchain") [ "$4" = rustc ] || [ -e {state} ] || {{ echo "error: 'cargo' is not installed" >&2; exit 1; }};;
esac
""")
    script.chmod(0o755)
    return script


def test_a_half_installed_rust_toolchain_is_installed_again(tmp_path, monkeypatch):
    rustup = _fake_rustup(tmp_path, installs_cargo=True)
    monkeypatch.setattr(tools, "which", lambda name: str(rustup) if name == "rustup" else None)
    toolchains.ensure_rust_toolchain("1.90.0", quiet=True)
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls.index("toolchain uninstall 1.90.0") < calls.index("toolchain install 1.90.0 --profile minimal")
    # Once whole, it is left alone.
    (tmp_path / "calls").unlink()
    toolchains.ensure_rust_toolchain("1.90.0", quiet=True)
    assert not any("install" in c for c in (tmp_path / "calls").read_text().splitlines())


def test_a_rust_toolchain_that_stays_without_cargo_is_a_one_line_error(tmp_path, monkeypatch):
    rustup = _fake_rustup(tmp_path, installs_cargo=False)
    monkeypatch.setattr(tools, "which", lambda name: str(rustup) if name == "rustup" else None)
    with pytest.raises(BenchError, match=r"^rustup toolchain install 1\.90\.0: still no cargo in it$"):
        toolchains.ensure_rust_toolchain("1.90.0", quiet=True)


def test_a_failed_build_shows_its_error_lines_not_the_backtrace_after_them():
    said = ("error: the 'cargo' binary, normally provided by the 'cargo' component, is not applicable\n\n"
            "Stack backtrace:\n   0: anyhow::kind::Adhoc::new\n  13: __libc_start_call_main\n"
            "             at ./csu/../sysdeps/nptl/libc_start_call_main.h:58:16\n  15: <unknown>\n")
    assert toolchains._failure_lines(said) == (
        "error: the 'cargo' binary, normally provided by the 'cargo' component, is not applicable")
    assert toolchains._failure_lines("a\nb\nc\nd\ne\n") == "b | c | d | e"
