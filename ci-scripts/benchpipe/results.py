"""Results files (Contract 2): benchmark keys and ids, reading with validation,
validated atomic writing."""

from __future__ import annotations

from pathlib import Path

from benchpipe import catalogue, schema, strictjson
from benchpipe.errors import BenchError
from benchpipe.fsutil import atomic_write_json

RESULTS_SCHEMA = "gorust-bench.results/1"


def format_params(params: dict) -> str:
    return ",".join(f"{k}={params[k]}" for k in sorted(params))


def key_id(key: dict) -> str:
    """The stable string id of a benchmark key:
    scenario/variant/build/toolchain/param=value,...[#label]."""
    base = "/".join([key["scenario"], key["variant"], key["build"], key["toolchain"], format_params(key["params"])])
    return f"{base}#{key['label']}" if key.get("label") else base


def is_ab(doc: dict) -> bool:
    """An A/B run (base and head of a pull request): a PR artefact, never history."""
    return bool(doc["env"].get("labels")) or any(b["key"].get("label") for b in doc["benchmarks"])


def family_id(key: dict) -> str:
    """The id without toolchain and label: what stays the same across compilers and A/B sides."""
    return "/".join([key["scenario"], key["variant"], key["build"], format_params(key["params"])])


def load(path) -> dict:
    """Read and validate a results file; any problem is one BenchError naming the file."""
    path = Path(path)
    if not path.is_file():
        raise BenchError(f"{path}: no such results file")
    doc = strictjson.read(path)
    schema.validate(doc, "results", str(path))
    ids = [b["id"] for b in doc["benchmarks"]]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise BenchError(f"{path}: benchmark id {dupes[0]!r} appears more than once")
    cat = catalogue.load()
    for b in doc["benchmarks"]:
        if b["id"] != key_id(b["key"]):
            raise BenchError(f"{path}: benchmark id {b['id']!r} does not match its key")
        problem = param_problem(b["key"], cat)
        if problem:
            raise BenchError(f"{path}: benchmark {b['id']!r}: {problem}")
    return doc


def param_problem(key: dict, cat) -> str | None:
    """What is wrong with a key's parameters by the catalogue's types (a text value for
    a number, a value outside an enum's choices), or None. Scenarios the catalogue does
    not know (older results) are left to the schema."""
    sc = cat.scenarios.get(key["scenario"])
    if sc is None:
        return None
    for name, value in key["params"].items():
        p = sc.params.get(name)
        if p is None:
            return f"parameter {name!r} is not one of {key['scenario']}'s"
        if not p.accepts(value):
            return f"parameter {name} = {value!r} is not a {p.type}" + (
                f" (one of {', '.join(p.choices)})" if p.choices else "")
    return None


def write(path, doc) -> None:
    """Validate, then write atomically: a bad document never reaches the disk."""
    strictjson.check_numbers(doc, str(path))
    schema.validate(doc, "results", str(path))
    atomic_write_json(Path(path), doc)
