"""Results files (Contract 2): benchmark keys and ids, reading with validation,
validated atomic writing."""

from __future__ import annotations

import json
from pathlib import Path

from benchpipe import schema
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


def family_id(key: dict) -> str:
    """The id without toolchain and label: what stays the same across compilers and A/B sides."""
    return "/".join([key["scenario"], key["variant"], key["build"], format_params(key["params"])])


def load(path) -> dict:
    """Read and validate a results file; any problem is one BenchError naming the file."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BenchError(f"{path}: no such results file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise BenchError(f"{path}: cannot read: {err}") from None
    except json.JSONDecodeError as err:
        raise BenchError(f"{path}: not JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
    schema.validate(doc, "results", str(path))
    ids = [b["id"] for b in doc["benchmarks"]]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise BenchError(f"{path}: benchmark id {dupes[0]!r} appears more than once")
    for b in doc["benchmarks"]:
        if b["id"] != key_id(b["key"]):
            raise BenchError(f"{path}: benchmark id {b['id']!r} does not match its key")
    return doc


def write(path, doc) -> None:
    """Validate, then write atomically: a bad document never reaches the disk."""
    schema.validate(doc, "results", str(path))
    atomic_write_json(Path(path), doc)
