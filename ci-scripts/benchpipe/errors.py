"""The one exception type a stage raises for bad input; the CLI turns it into a
one-line message on stderr and exit code 2 (usage) or 1 (input or run failure)."""


import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def one_line(text: str, limit: int = 1000) -> str:
    """Text that may hold untrusted strings (artifact paths, reasons from results files)
    as one safe line: control characters shown escaped (\\n, \\x1b), so no string can
    start a new line, let alone one the Actions runner would read as a workflow command
    (`::warning ...`); at most `limit` characters."""
    out = _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(text))
    return out if len(out) <= limit else out[: limit - 1] + "…"


class BenchError(Exception):
    """A problem the user can act on. `str(err)` is the whole message, one line."""

    exit_code = 1


class UsageError(BenchError):
    exit_code = 2
