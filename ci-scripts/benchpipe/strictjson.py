"""Reading JSON the pipeline did not write itself (results files, artifacts, the
history, calibration files, program output) so that what is accepted can be used.

Python's json module accepts NaN, Infinity and 1e999 (which becomes inf), and numbers
no later stage can add up (1e308, or a 400-digit integer). None of them is JSON a
benchmark can produce: they are rejected here, with one line, before a schema or a
statistic sees them. Every file has a size limit, checked before it is read.

The limits: floats finite and |x| <= 1e15 (a second, a byte count or a rate far above
anything measured, far below overflow when summed); integers |x| < 2^64 (a checksum is
a u64). `write_json` refuses the same values, so the pipeline never writes what it
would refuse to read (json.dumps would write NaN)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from benchpipe.errors import BenchError

MAX_FLOAT = 1e15
MAX_INT = 2**64
MAX_FILE_BYTES = 64 * 2**20  # results files, calibration files, manifests, events


class _Reject(ValueError):
    pass


def _constant(name: str):
    raise _Reject(f"{name} is not a number JSON allows")


def _out_of_range(doc):
    """The first number in a parsed document that no stage may use (None: none). A walk
    after the parse rather than a hook a number (parse_float, parse_int): the C parser
    makes its own floats and integers, and 300 months of history parsed in 2.12 s with the
    walk against 2.41 s with the hooks."""
    stack = [doc]
    pop, push = stack.pop, stack.append
    while stack:
        x = pop()
        for y in (x.values() if type(x) is dict else x):
            t = type(y)
            if t is float:
                if not -MAX_FLOAT <= y <= MAX_FLOAT:   # NaN and inf fail it too
                    return y
            elif t is list and y and type(y[0]) in _NUMBERS and _numbers_within(y):
                continue   # a column of numbers (a summarised month's), checked in C
            elif t is dict or t is list:
                push(y)
            elif t is int and not -MAX_INT < y < MAX_INT:
                return y
    return None


_NUMBERS = (float, int)


def _numbers_within(xs: list) -> bool:
    """Every item a number within the float limits, by min and max in C (a string, a
    list or None among them raises TypeError: False, and the walk looks at each item;
    the parser makes no NaN, and an integer beyond the float limit sends it there too)."""
    try:
        return -MAX_FLOAT <= min(xs) and max(xs) <= MAX_FLOAT
    except TypeError:
        return False


def _int(text: str) -> int:
    if len(text) > 25:
        raise _Reject(f"integer {text[:40]}... is out of range (below 2^64)")
    return int(text)


def _int_hook():
    """The integer hook, where Python's own limit on the digits it converts (4,300 by
    default; a long integer converts in quadratic time) is lifted or raised."""
    limit = sys.get_int_max_str_digits()
    return _int if limit == 0 or limit > 4300 else None


def loads(text: str, what: str):
    """Parse strict JSON; any problem is one BenchError naming `what`."""
    try:
        doc = json.loads(text, parse_constant=_constant, parse_int=_int_hook())
    except _Reject as err:
        raise BenchError(f"{what}: {err}") from None
    except json.JSONDecodeError as err:
        raise BenchError(f"{what}: not JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
    except RecursionError:
        raise BenchError(f"{what}: not JSON: nested too deeply") from None
    except ValueError:   # an integer of more digits than Python converts (4,300)
        raise BenchError(f"{what}: an integer with too many digits (below 2^64 allowed)") from None
    bad = _out_of_range([doc])
    if isinstance(bad, float):
        raise BenchError(f"{what}: number {bad!r} is out of range (finite, at most {MAX_FLOAT:g})")
    if bad is not None:   # (at most 4,300 digits: converted by the parser within its limit)
        text = str(bad)
        raise BenchError(f"{what}: integer {text[:40]}{'...' if len(text) > 40 else ''} is out of range (below 2^64)")
    return doc


def read(path, what: str = "", max_bytes: int = MAX_FILE_BYTES):
    """Read and parse a JSON file of at most max_bytes; one BenchError on any problem."""
    path = Path(path)
    what = f"{path}" + (f" ({what})" if what else "")
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise BenchError(f"{what}: {size} bytes, more than the {max_bytes} a file may have")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BenchError(f"{what}: no such file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise BenchError(f"{what}: cannot read: {err}") from None
    return loads(text, what)


def check_numbers(doc, where: str) -> None:
    """Refuse to write what `loads` would refuse to read (json.dumps writes NaN)."""
    stack = [doc]
    while stack:
        x = stack.pop()
        if isinstance(x, float):
            if not math.isfinite(x) or abs(x) > MAX_FLOAT:
                raise BenchError(f"{where}: refusing to write the number {x!r}")
        elif isinstance(x, bool):
            continue
        elif isinstance(x, int):
            if abs(x) >= MAX_INT:
                raise BenchError(f"{where}: refusing to write the integer {x}")
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
