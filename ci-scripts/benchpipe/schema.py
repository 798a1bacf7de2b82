"""JSON Schema validation of the data contracts (schemas/*.schema.json), with errors
reduced to one line that names the file, the place in it, and the problem.

Two validators of the same schemas: jsonschema-rs (compiled) answers whether a document
is valid, and python-jsonschema, only when it says no, which problems it has (and
whether it has any: its answer is the one that counts). A night's results file of 342
benchmarks on an OS took python-jsonschema 3.3 s, jsonschema-rs 0.02 s, and `bench
publish` checks each of them as it reads and as it writes: a third of its time. Where the
two differ it is python-jsonschema that decides: jsonschema-rs takes date-time from
python-jsonschema's own format check (its own let a leap second through, which
datetime cannot read), and what it rejects or cannot take (NaN, keys that are not
text) goes to python-jsonschema. tests/test_schema_fast.py holds them to one answer on
results files (every text replaced by what the two read differently, and any value by any
JSON value) and checks that the pipeline's own documents of every schema pass jsonschema-rs.
The one answer is for what JSON can hold: jsonschema-rs also takes a tuple as an array and a
whole Decimal as an integer, which python-jsonschema refuses; a parsed file holds neither,
and the pipeline's documents are built of lists, ints and floats.
"""

from __future__ import annotations

import json
from functools import lru_cache

import jsonschema
import jsonschema_rs
from referencing import Registry, Resource

from benchpipe import SCHEMAS
from benchpipe.errors import BenchError


@lru_cache(maxsize=None)
def _docs() -> dict[str, dict]:
    """Every schema by name (record, results, ...), read once for both validators."""
    return {path.name.removesuffix(".schema.json"): json.loads(path.read_text(encoding="utf-8"))
            for path in sorted(SCHEMAS.glob("*.schema.json"))}


@lru_cache(maxsize=None)
def _registry() -> Registry:
    return Registry().with_resources([(doc["$id"], Resource.from_contents(doc)) for doc in _docs().values()])


@lru_cache(maxsize=None)
def _fast(name: str, definition: str | None = None):
    """jsonschema-rs's validator of schema `name` (or of one of its definitions)."""
    docs = _docs()
    registry = jsonschema_rs.Registry([(doc["$id"], doc) for doc in docs.values()])
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    schema = docs[name] if definition is None else {"$ref": f"{_id(name)}#/$defs/{definition}"}
    return jsonschema_rs.validator_for(schema, registry=registry, validate_formats=True,
                                       formats={"date-time": lambda s: checker.conforms(s, "date-time")})


def _surely_valid(doc, name: str, definition: str | None = None) -> bool:
    """jsonschema-rs finds doc valid (False also where it cannot take it: python-jsonschema
    then looks)."""
    try:
        return _fast(name, definition).is_valid(doc)
    except (ValueError, TypeError, OverflowError):
        return False


@lru_cache(maxsize=None)
def _validator(name: str):
    doc = _docs()[name]
    cls = jsonschema.validators.validator_for(doc)
    return cls(doc, registry=_registry(), format_checker=cls.FORMAT_CHECKER)


@lru_cache(maxsize=None)
def _def_validator(name: str, definition: str):
    sub = {"$ref": f"{_id(name)}#/$defs/{definition}"}
    cls = jsonschema.Draft202012Validator
    return cls(sub, registry=_registry(), format_checker=cls.FORMAT_CHECKER)


@lru_cache(maxsize=None)
def _id(name: str) -> str:
    return _docs()[name]["$id"]


def problems_at(doc, name: str, definition: str) -> list[str]:
    """Every violation of one definition (`$defs/<definition>`) of schema `name`, as text."""
    if _surely_valid(doc, name, definition):
        return []
    errors = sorted(_def_validator(name, definition).iter_errors(doc), key=lambda e: list(e.absolute_path))
    return [f"{e.json_path}: {_short(e.message)}" for e in errors]


def problems(doc, name: str) -> list[str]:
    """Every violation of schema `name` (record, results, history, ...), as text."""
    if _surely_valid(doc, name):
        return []
    errors = sorted(_validator(name).iter_errors(doc), key=lambda e: list(e.absolute_path))
    return [f"{e.json_path}: {_short(e.message)}" for e in errors]


def validate(doc, name: str, where: str) -> None:
    """Raise BenchError("<where>: <json path>: <problem> (and N more)") if invalid."""
    found = problems(doc, name)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise BenchError(f"{where}: not a valid {name} document: {found[0]}{more}")


def _short(message: str, limit: int = 160) -> str:
    message = " ".join(message.split())
    return message if len(message) <= limit else message[: limit - 3] + "..."
