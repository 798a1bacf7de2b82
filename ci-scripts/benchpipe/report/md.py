"""Markdown helpers for reports that end up in GitHub comments and job summaries:
escaping of every string that comes from input, and tables."""

from __future__ import annotations

import html
import re

# Escape for where the text goes, so that it renders as itself on GitHub and still reads
# as itself when the Markdown file is read raw (summary.md, a job summary's source):
# - Markdown inline text (`escape`): a backslash before the ASCII punctuation that could
#   act inline: emphasis, code, links, images, tables, strike-through, HTML, math ($),
#   autolinks (`://`, `www.`). Underscores inside a word stay (x86_64, max_sleep_ms): GFM
#   never reads them as emphasis. "#", "-", "+", "." and digits act only at the start of
#   a line, and escaped text is always inline.
# - An HTML block (`escape_html`: e.g. a <summary> line), where Markdown is not parsed
#   and a backslash would show: HTML entities.
# In both, "@name" gets a zero-width space after the "@" (what Dependabot does): GitHub
# links mentions in the rendered text, after entities and escapes are undone.
_MD_PUNCT = set("\\`*[]<>|~$&")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
ZWSP = "\u200b"


def _clean(text) -> str:
    return _MENTION.sub("@" + ZWSP, _CONTROL.sub(" ", str(text)))


def escape(text) -> str:
    """Any value as inert Markdown inline text on one line (a paragraph or table cell)."""
    s = _clean(text)
    out = []
    for i, c in enumerate(s):
        prev, nxt = s[i - 1] if i else "", s[i + 1] if i + 1 < len(s) else ""
        if c in _MD_PUNCT:
            out.append("\\" + c)
        elif c == "_" and not (prev.isalnum() and nxt.isalnum()):
            out.append("\\_")
        elif c == ":" and s.startswith("//", i + 1):
            out.append("\\:")
        elif c == "." and s[max(0, i - 3):i].lower() == "www":
            out.append("\\.")
        else:
            out.append(c)
    return "".join(out)


def escape_html(text) -> str:
    """Any value as inert text inside an HTML block of a Markdown document."""
    return html.escape(_clean(text), quote=True)


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
