"""JSON Schema validation of the data contracts (schemas/*.schema.json), with errors
reduced to one line that names the file, the place in it, and the problem."""

from __future__ import annotations

import json
from functools import lru_cache

import jsonschema
from referencing import Registry, Resource

from benchpipe import SCHEMAS
from benchpipe.errors import BenchError


@lru_cache(maxsize=None)
def _registry() -> Registry:
    resources = []
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        resources.append((doc["$id"], Resource.from_contents(doc)))
    return Registry().with_resources(resources)


@lru_cache(maxsize=None)
def _validator(name: str):
    doc = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(doc)
    return cls(doc, registry=_registry(), format_checker=cls.FORMAT_CHECKER)


@lru_cache(maxsize=None)
def _def_validator(name: str, definition: str):
    sub = {"$ref": f"{_id(name)}#/$defs/{definition}"}
    cls = jsonschema.Draft202012Validator
    return cls(sub, registry=_registry(), format_checker=cls.FORMAT_CHECKER)


@lru_cache(maxsize=None)
def _id(name: str) -> str:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))["$id"]


def problems_at(doc, name: str, definition: str) -> list[str]:
    """Every violation of one definition (`$defs/<definition>`) of schema `name`, as text."""
    errors = sorted(_def_validator(name, definition).iter_errors(doc), key=lambda e: list(e.absolute_path))
    return [f"{e.json_path}: {_short(e.message)}" for e in errors]


def problems(doc, name: str) -> list[str]:
    """Every violation of schema `name` (record, results, history, ...), as text."""
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
