"""The one exception type a stage raises for bad input; the CLI turns it into a
one-line message on stderr and exit code 2 (usage) or 1 (input or run failure)."""


class BenchError(Exception):
    """A problem the user can act on. `str(err)` is the whole message, one line."""

    exit_code = 1


class UsageError(BenchError):
    exit_code = 2
