"""Fuzzing the readers (issue 14), for a bounded time: hypothesis mutates a valid results
file (a value anywhere in it replaced by any JSON value, a key dropped or added, bytes of
the text flipped) and every command that reads results files reads it in process:
validate, summary, compare, history add. Each either accepts it or refuses it with a
BenchError (one line, exit 1 or 2); nothing raises anything else, and the history is
untouched by a refusal and still checks after an acceptance. A failing example is
printed by hypothesis and replays with its seed."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wf_fixtures
from benchpipe import cli

EXAMPLES = 100  # per strategy: about 35 s in all on the 2-core test machine
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

JSON_SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40))
JSON_VALUES = st.recursive(JSON_SCALARS, lambda kids: st.lists(kids, max_size=4)
                           | st.dictionaries(st.text(max_size=10), kids, max_size=4), max_leaves=12)


@pytest.fixture(scope="module")
def valid() -> dict:
    return wf_fixtures.results_doc(scenarios=("cpu",), ab=True)


@pytest.fixture(scope="module")
def history(tmp_path_factory, valid) -> Path:
    root = tmp_path_factory.mktemp("fuzzhist") / "h"
    good = root.parent / "good.json"
    good.write_text(json.dumps(valid), encoding="utf-8")
    assert cli.main(["history", "add", "--history", str(root), str(good)]) == 0
    return root


def _paths(obj, prefix=()):
    """Every path (keys and indexes) into the document."""
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _paths(v, (*prefix, i))


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _every_reader(path: Path, history: Path, work: Path, capsys) -> None:
    hist = work / "h"
    shutil.rmtree(hist, ignore_errors=True)
    shutil.copytree(history, hist)
    before = _digest(hist)
    for argv in (["validate", str(path)], ["summary", str(path)], ["compare", str(path), str(path)],
                 ["history", "add", "--history", str(hist), str(path)]):
        code = cli.main(argv)   # anything but a BenchError would raise here, failing the example
        err = capsys.readouterr().err
        assert code in (0, 1, 2), (argv[0], code)
        if code:
            lines = [ln for ln in err.splitlines() if ln.strip()]
            assert len(lines) == 1 and len(lines[0]) < 2000, (argv[0], err[-600:])
    if _digest(hist) != before:   # accepted: what was written must check
        assert cli.main(["history", "check", "--history", str(hist)]) == 0, capsys.readouterr().err
    capsys.readouterr()


@SETTINGS
@given(data=st.data())
def test_a_value_anywhere_replaced(valid, history, tmp_path, capsys, data):
    doc = copy.deepcopy(valid)
    paths = [p for p in _paths(doc) if p]
    path = data.draw(st.sampled_from(paths), label="path")
    action = data.draw(st.sampled_from(["replace", "drop", "add"]), label="action")
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    if action == "replace":
        parent[path[-1]] = data.draw(JSON_VALUES, label="value")
    elif action == "drop":
        del parent[path[-1]]
    elif isinstance(parent, dict):
        parent[data.draw(st.text(max_size=12), label="new key")] = data.draw(JSON_VALUES, label="value")
    else:
        parent.append(data.draw(JSON_VALUES, label="value"))
    f = tmp_path / "fuzz.json"
    f.write_text(json.dumps(doc), encoding="utf-8")
    _every_reader(f, history, tmp_path, capsys)


@SETTINGS
@given(data=st.data())
def test_bytes_of_the_text_flipped(valid, history, tmp_path, capsys, data):
    raw = bytearray(json.dumps(valid, indent=1).encode())
    for _ in range(data.draw(st.integers(1, 8), label="flips")):
        i = data.draw(st.integers(0, len(raw) - 1), label="at")
        raw[i] = data.draw(st.integers(0, 255), label="byte")
    f = tmp_path / "fuzz.json"
    f.write_bytes(bytes(raw))
    _every_reader(f, history, tmp_path, capsys)
