"""schema.py's two validators hold to one answer: jsonschema-rs says whether a document
is valid, python-jsonschema says what is wrong with it (and decides). The pipeline's own
documents must pass the first, or every read and write pays the second's seconds; and
nothing the first lets through may be something the second would refuse."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wf_fixtures
from benchpipe import cli, schema

# values the two validators are known to read differently, besides any JSON value
TRICKY_VALUES = (["2026-12-07T23:59:60Z", "2026-12-07T15:00:00Z\n", "2026-02-30T00:00:00Z",
                          "2026-12-07t15:00:00z", "abc\n", "go1.25\n", "a" * 40 + "\n", "\u0000", 1.0, 2**70,
                          -(2**64), True, "", "٢٠٢٦"])
TRICKY = st.sampled_from(TRICKY_VALUES)
JSON_SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
                | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40) | TRICKY)
JSON_VALUES = st.recursive(JSON_SCALARS, lambda kids: st.lists(kids, max_size=3)
                           | st.dictionaries(st.text(max_size=10), kids, max_size=3), max_leaves=8)


@pytest.fixture(scope="module")
def valid() -> dict:
    return wf_fixtures.results_doc(scenarios=("cpu", "fanout"), ab=True)


def test_the_pipelines_own_documents_never_need_the_slow_validator(tmp_path, monkeypatch, valid, capsys):
    """Results written and read, a comparison, a history added and checked, program
    records: python-jsonschema is never asked (so reads and writes take jsonschema-rs's
    time), and each kind of document was checked at least once."""
    slow, fast = [], []
    surely = schema._surely_valid

    def watched(doc, name, definition=None):
        ok = surely(doc, name, definition)
        (fast if ok else slow).append((name, definition))
        return ok

    monkeypatch.setattr(schema, "_surely_valid", watched)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path, doc in ((a, valid), (b, wf_fixtures.results_doc(scenarios=("cpu", "fanout"), commit="b" * 40, seed=2))):
        path.write_text(json.dumps(doc), encoding="utf-8")
    hist = tmp_path / "h"
    for argv in (["validate", str(a)], ["compare", str(a), str(b), "--json", str(tmp_path / "c.json")],
                 ["history", "add", "--history", str(hist), str(a), str(b)], ["history", "check", "--history", str(hist)]):
        assert cli.main(argv) == 0, (argv[0], capsys.readouterr().err)
    for rec in valid["benchmarks"][0]["records"][:3]:
        assert schema.problems(rec, "record") == []
    assert slow == []
    assert {name for name, _ in fast} == {"results", "compare", "history", "record"}, fast


def _paths(doc) -> list[tuple]:
    """Every path (keys and indexes) to a value inside doc."""
    paths, stack = [], [((), doc)]
    while stack:
        path, obj = stack.pop()
        paths.append(path)
        items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
        stack.extend(((*path, k), v) for k, v in items)
    return [p for p in paths if p]


def _replaced(doc: dict, path: tuple, value) -> dict:
    doc = copy.deepcopy(doc)
    parent = doc
    for k in path[:-1]:
        parent = parent[k]
    parent[path[-1]] = value
    return doc


def _agree(doc) -> bool:
    return not schema._surely_valid(doc, "results") or not list(schema._validator("results").iter_errors(doc))


def test_every_text_in_a_results_file_replaced_by_what_the_two_read_differently(valid):
    """Each text of one benchmark (and of the file's env) replaced by each value the two
    validators are known to read differently (a leap second, a trailing newline, ...):
    never one that jsonschema-rs lets through and python-jsonschema refuses."""
    small = dict(valid, benchmarks=valid["benchmarks"][:1])
    texts = [p for p in _paths(small) if isinstance(_at(small, p), str)]
    assert len(texts) > 20 and any(p[-1] == "timestamp" for p in texts)
    bad = [(p, v) for p in texts for v in TRICKY_VALUES if not _agree(_replaced(small, p, v))]
    assert bad == []


def _at(doc, path):
    for k in path:
        doc = doc[k]
    return doc


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_what_jsonschema_rs_lets_through_python_jsonschema_accepts(valid, data):
    path = data.draw(st.sampled_from(_paths(valid)), label="path")
    assert _agree(_replaced(valid, path, data.draw(JSON_VALUES, label="value")))
