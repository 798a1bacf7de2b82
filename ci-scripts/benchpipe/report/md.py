"""Markdown helpers for reports that end up in GitHub comments and job summaries:
escaping of every string that comes from input, and tables."""

from __future__ import annotations

import re

# Characters that Markdown or HTML would interpret, as numeric entities. An entity is
# never a table separator, never code, never a tag, and never a mention (@). "-" and
# "." stay: they only act at the start of a line, and escaped text is always inline.
_ENTITIES = {c: f"&#{ord(c)};" for c in "\\`*_{}[]()#+!|~<>\"'@:$^"}
_ENTITIES["&"] = "&amp;"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def escape(text) -> str:
    """Any value as inert text for Markdown and HTML, on one line."""
    s = _CONTROL.sub(" ", str(text))
    return "".join(_ENTITIES.get(c, c) for c in s)


def code(text) -> str:
    """Inline code-looking text, safely: an HTML <code> element with escaped content."""
    return f"<code>{escape(text)}</code>"


def table(header: list[str], rows: list[list[str]], align: list[str] | None = None) -> str:
    """A GitHub-flavoured Markdown table. Cells must already be escaped."""
    align = align or ["l"] * len(header)
    marks = {"l": "---", "r": "--:", "c": ":-:"}
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(marks[a] for a in align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)
