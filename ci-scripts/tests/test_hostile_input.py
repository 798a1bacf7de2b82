"""What `validate` accepts, every later stage handles: a corpus of malformed and hostile
results files, each run through every command that reads results. Each must be refused
with one line and a non-zero exit, no traceback, and nothing written (the history is
byte for byte what it was)."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest

import wf_fixtures
from benchpipe import strictjson
from benchpipe.errors import BenchError
from conftest import run_bench


def _valid() -> dict:
    return wf_fixtures.results_doc(scenarios=("cpu", "hashmap"))


def _set(path):
    """A mutation that sets doc[path...] = value (path of keys and indexes)."""
    def make(value):
        def mutate(doc):
            obj = doc
            for p in path[:-1]:
                obj = obj[p]
            obj[path[-1]] = value
            return doc
        return mutate
    return make


def _rename_key(field, value):
    def mutate(doc):
        from benchpipe.results import key_id
        b = doc["benchmarks"][0]
        b["key"][field] = value
        b["id"] = key_id(b["key"])
        return doc
    return mutate


def _param(name, value):
    def mutate(doc):
        from benchpipe.results import key_id
        b = doc["benchmarks"][0]
        b["key"]["params"][name] = value
        b["id"] = key_id(b["key"])
        return doc
    return mutate


WALL = ["benchmarks", 0, "samples", "wall_s"]
RAW = {  # raw texts, not documents: what json.dumps would never write
    "nan": lambda text: text.replace('"wall_s": [', '"wall_s": [NaN, ', 1),
    "infinity": lambda text: text.replace('"wall_s": [', '"wall_s": [Infinity, ', 1),
    "1e999": lambda text: text.replace('"wall_s": [', '"wall_s": [1e999, ', 1),
    "huge-int": lambda text: text.replace('"cores": ', '"cores": 1' + "0" * 400 + ' + ', 1).replace(" + ", "", 1),
    "deep": lambda text: "[" * 100000 + "]" * 100000,
    "truncated": lambda text: text[: len(text) // 2],
    "not-utf8": lambda text: text.replace('"linux"', '"lin\udcffux"', 1),
}
DOCS = {
    "1e308": lambda d: _set(WALL)([1e308, 1e308, 1e308])(d),
    "timestamp-not-a-date": lambda d: _set(["env", "timestamp"])("not a date")(d),
    "text-for-a-number": _param("tasks", "a|b"),
    "word-for-a-number": _param("tasks", "many"),
    "enum-out-of-choices": _param("shape", "sideways"),
    "unknown-param": _param("colour", 3),
    "slash-in-scenario": _rename_key("scenario", "cpu/../../x"),
    "long-scenario": _rename_key("scenario", "s" * 20000),
    "newline-in-toolchain": _rename_key("toolchain", "go1.26\n| x |"),
    "toolchain-version-with-newline": lambda d: _set(["env", "toolchains", "go1.26.8"])("go\n::warning::x")(d),
    "huge-commit-message": lambda d: _set(["env", "commit_message"])("m" * 200_000)(d),
    "commit-not-a-sha": lambda d: _set(["env", "commit"])("$(rm -rf /)")(d),
    "newline-in-channel": lambda d: _set(["benchmarks", 0, "channel"])("stable\n::warning::x")(d),
    "markup-in-channel": lambda d: _set(["benchmarks", 0, "channel"])("<b>beta</b>")(d),
}


def _write(tmp: Path, name: str) -> Path:
    path = tmp / f"{name}.json"
    text = json.dumps(_valid(), indent=1)
    if name in RAW:
        text = RAW[name](text)
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
    else:
        doc = DOCS[name](copy.deepcopy(_valid()))
        path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def _tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


@pytest.fixture(scope="module")
def history_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("hist") / "h"
    good = tmp_path_factory.mktemp("good") / "results.json"
    good.write_text(json.dumps(_valid()), encoding="utf-8")
    res = run_bench("history", "add", "--history", root, good)
    assert res.returncode == 0, res.stderr
    return root


@pytest.mark.parametrize("name", sorted([*RAW, *DOCS]))
def test_every_reader_refuses_with_one_line_and_writes_nothing(name, tmp_path, history_root):
    bad = _write(tmp_path, name)
    before = _tree_digest(history_root)
    art = tmp_path / "artifacts" / "bench-x"
    art.mkdir(parents=True)
    (art / "results.json").write_bytes(bad.read_bytes())
    for args in (["validate", bad], ["summary", bad], ["compare", bad, bad],
                 ["history", "add", "--history", history_root, bad],
                 ["merge-artifacts", tmp_path / "artifacts", "--out", tmp_path / "merged"]):
        res = run_bench(*args)
        assert "Traceback" not in res.stderr, (args[0], res.stderr[-800:])
        if args[0] == "merge-artifacts":
            # bad artifacts are left out (reported), the good ones would go on: none here
            assert res.returncode != 0 or not list((tmp_path / "merged").rglob("results*.json")), res.stderr
            continue
        assert res.returncode in (1, 2), (args[0], res.returncode, res.stderr)
        lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1, (args[0], res.stderr)
        assert len(lines[0]) < 2000
    assert _tree_digest(history_root) == before
    assert run_bench("history", "check", "--history", history_root).returncode == 0


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:
        fh.truncate(strictjson.MAX_FILE_BYTES + 1)  # sparse: no 64 MB written
    with pytest.raises(BenchError, match="more than the"):
        strictjson.read(big)
    res = run_bench("validate", big)
    assert res.returncode == 1 and "more than the" in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_nothing_writes_what_it_would_refuse_to_read(tmp_path):
    from benchpipe import fsutil, results
    doc = _valid()
    doc["benchmarks"][0]["samples"]["wall_s"][0] = float("nan")
    with pytest.raises(BenchError):
        results.write(tmp_path / "r.json", doc)
    with pytest.raises(ValueError):
        fsutil.atomic_write_json(tmp_path / "x.json", {"x": float("inf")})
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "x.json").exists()


def test_no_workflow_command_from_an_artifact_name(tmp_path):
    """A folder named `x\\n::warning file=a,line=1::INJECTED` made merge-artifacts print
    a line the Actions runner executes. Every untrusted string is one escaped line now."""
    arts = tmp_path / "artifacts"
    evil = arts / "x\n::warning file=a,line=1::INJECTED"
    evil.mkdir(parents=True)
    (evil / "results.json").write_text("{not json", encoding="utf-8")
    wf_fixtures.write_artifact(arts, "bench-good", _valid())
    summary = tmp_path / "summary.md"
    res = run_bench("merge-artifacts", arts, "--out", tmp_path / "out", "--markdown", summary)
    assert res.returncode == 0, res.stderr
    for line in (res.stdout + res.stderr).splitlines() + summary.read_text().splitlines():
        assert not line.lstrip().startswith("::"), line
    assert "INJECTED" in res.stderr  # reported, escaped, on the rejection's own line
    res = run_bench("validate", evil / "results.json")
    assert res.returncode == 1 and not any(ln.startswith("::") for ln in res.stderr.splitlines())


def test_site_renders_two_toolchains_with_nothing_in_common(tmp_path):
    """Two Rust toolchains with no benchmark in common in a scenario made gnuplot stop
    ("No valid points"): site exited 1 and left .charts-new/ and .cache/ behind."""
    from benchpipe import history, site
    from benchpipe.results import key_id
    docs = []
    for i, (tc, tasks) in enumerate((("rust1.95.0", 16), ("rust1.96.0", 32))):
        doc = wf_fixtures.results_doc(scenarios=("cpu",), seed=i + 1, timestamp=f"2026-11-2{i}T10:00:00Z",
                                      commit=f"{i + 1}" * 40)
        keep = []
        for b in doc["benchmarks"]:
            if b["key"]["lang"] != "rust":
                continue
            b["key"]["toolchain"] = tc
            b["key"]["params"]["tasks"] = tasks
            b["id"] = key_id(b["key"])
            for r in b["records"]:
                r["toolchain"] = tc
                r["params"]["tasks"] = tasks
            keep.append(b)
        doc["benchmarks"] = keep
        doc["env"]["toolchains"] = {tc: f"rustc {tc[4:]}"}
        docs.append((f"r{i}", doc))
    root = tmp_path / "h"
    history.add(root, docs)
    out = tmp_path / "site"
    site.render(root, out, detect=False)
    assert (out / "index.html").is_file() and not (out / ".charts-new").exists()


def test_a_failed_site_render_leaves_nothing_behind(tmp_path, monkeypatch):
    from benchpipe import charts, history, site
    root = tmp_path / "h"
    history.add(root, [("r", _valid())])

    def boom(*a, **k):
        raise BenchError("gnuplot failed")
    monkeypatch.setattr(charts.ChartWork, "draw", boom)
    out = tmp_path / "site"
    with pytest.raises(BenchError):
        site.render(root, out, detect=False)
    assert not out.exists()
    out.mkdir()
    (out / "keep.txt").write_text("x")
    with pytest.raises(BenchError):
        site.render(root, out, detect=False)
    assert sorted(p.name for p in out.iterdir()) == [".cache", "keep.txt"] or \
        sorted(p.name for p in out.iterdir()) == ["keep.txt"]


@pytest.mark.parametrize("text, said", [
    ("1e999", "number inf is out of range"), ("[1, {\"a\": [2, -1e16]}]", "number -1e+16 is out of range"),
    ("[NaN]", "NaN is not a number"), ("{\"x\": -Infinity}", "-Infinity is not a number"),
    ("[18446744073709551616]", "integer 18446744073709551616 is out of range"),
    ("-18446744073709551616", "integer -18446744073709551616 is out of range"),
    ("[" + "9" * 5000 + "]", "an integer with too many digits"), ("[" * 100000 + "]" * 100000, "nested too deeply"),
])
def test_strict_json_refuses_every_number_no_stage_can_use_wherever_it_is(text, said):
    """strictjson.loads parses with the C parser's own numbers and then walks the document:
    a number out of range is refused at any depth, with one line; what is in range comes
    back as json.loads gives it (a bool is not an integer to check)."""
    with pytest.raises(BenchError, match="^w: ") as err:
        strictjson.loads(text, "w")
    assert said in str(err.value) and "\n" not in str(err.value)
    fine = '{"a": [1e15, -1e15, 18446744073709551615, -18446744073709551615, true, null, "1e999", 0.5, {"b": []}]}'
    assert strictjson.loads(fine, "w") == json.loads(fine)


def test_a_long_integer_is_refused_before_it_is_converted_where_python_lifts_its_digit_limit():
    """Python converts at most 4,300 digits by default (a long integer converts in
    quadratic time); where that limit is lifted, strictjson refuses one over 25 digits
    before converting it, as it always did."""
    import sys
    import time
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        t = time.monotonic()
        with pytest.raises(BenchError, match="is out of range"):
            strictjson.loads("[" + "9" * 400_000 + "]", "w")
        assert time.monotonic() - t < 1.0   # (converted: seconds)
        assert strictjson.loads("[18446744073709551615]", "w") == [18446744073709551615]
    finally:
        sys.set_int_max_str_digits(old)
