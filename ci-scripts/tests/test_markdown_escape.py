"""Escape for where the text goes. Every hostile string renders as itself with GitHub's
own Markdown renderer (cmark-gfm with GitHub's extensions; raw HTML allowed, so a string
that escaped its escaping would show up as a tag) in a paragraph, in a table cell and in
an HTML block; and plain names read as themselves in the raw Markdown file."""

from __future__ import annotations

import html
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from benchpipe.report import md

HOSTILE = [
    "<script>alert(1)</script>", "x|y", "`rm -rf /`", "**bold** _em_ *em*", "[a](https://evil.example)",
    "![img](x.png)", "~~gone~~", "$x^2$ and $$y$$", "@here @octocat please", "mail me: a@b.example",
    "https://evil.example/path", "www.evil.example", "&lt;b&gt; &amp; &#64;x", "back\\slash \\| \\*",
    "line1\nline2\r\n| a | b |", "<!-- comment -->", "<img src=x onerror=alert(1)>", "{{ template }}",
    "# not a heading", "1. not a list", "> not a quote", "x86_64 max_sleep_ms __init__ _lead trail_",
    "Intel(R) Xeon(R) CPU @ 2.20GHz", "::warning file=a,line=1::INJECTED", "a\u200bb é_ü ünïcödé",
]
PLAIN = ["x86_64", "max_sleep_ms=300", "tasks=4000 shape=burst", "Intel(R) Xeon(R) CPU @ 2.20GHz",
         "rust1.95.0 (stable)", "go version go1.26.8 linux/amd64", "hashmap/spawn/go/items=1000"]
FORBIDDEN = ("<a ", "<a>", "<em", "<strong", "<del", "<code", "<img", "<script", "<h1", "<ol", "<blockquote",
             "<!--", "<math")


def render(text: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE)


def shown(rendered: str) -> str:
    """The text a reader sees: tags dropped, entities decoded, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", rendered)).replace(md.ZWSP, "").split())


def expected(text: str) -> str:
    return " ".join(text.replace(md.ZWSP, "").split())


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_renders_as_itself_in_a_paragraph_and_a_table(text):
    para = render(f"Before {md.escape(text)} after")
    assert para.count("<p>") == 1 and not any(f in para for f in FORBIDDEN), para
    assert shown(para) == f"Before {expected(text)} after"
    tab = render(md.table(["name", "value"], [[md.escape(text), "1"]]))
    assert tab.count("<td") == 2 and not any(f in tab for f in FORBIDDEN), tab   # still two columns
    assert shown(tab) == f"name value {expected(text)} 1"
    # GitHub links mentions in the rendered text: none survives
    assert not re.search(r"@[A-Za-z0-9_-]", html.unescape(para)), para


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_renders_as_itself_in_an_html_block(text):
    out = render(f"<details><summary><b>{md.escape_html(text)}</b></summary>\n\nbody\n\n</details>")
    summary = out[out.index("<summary>"):out.index("</summary>")]
    assert not any(f in summary for f in FORBIDDEN), summary
    assert shown(summary) == expected(text)


def test_code_holds_its_text():
    out = render(f"see {md.code('a|b `c` <d> x_y')}")
    assert out.count("<code>") == 1 and shown(out) == "see a|b `c` <d> x_y"


@pytest.mark.parametrize("text", PLAIN)
def test_plain_names_read_as_themselves_raw(text):
    assert md.escape(text) == text
    assert shown(render(md.escape(text))) == text
