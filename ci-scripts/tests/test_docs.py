"""The documents a clone has say true things: every relative link in them points at a
file of this repository, and so does every path of it they name in code; SCENARIOS.md
has a section for every scenario of the catalogue, and the README's count of the quick
preset's benchmarks is the catalogue's."""

from __future__ import annotations

import functools
import re
import subprocess

import pytest

from benchpipe import ROOT

LINK = re.compile(r"\]\(([^)\s]+)\)")
PATH_SPAN = re.compile(r"`([\w.\-]+(?:/[\w.\-]+)+)/?`")   # `a/b.py`: a path written in code


def _tracked(*patterns: str) -> list[str]:
    out = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True, text=True, check=True)
    return [p for p in out.stdout.split() if (ROOT / p).is_file()]


def _tracked_markdown() -> list[str]:
    return _tracked("*.md")


@functools.cache
def _repo_folders() -> frozenset[str]:
    """The folders a path of the repository starts with, as from the root or from
    ci-scripts/ (others, like `dev/bench/data.js` or `history/2`, name what a run writes
    or the gh-pages branch holds)."""
    parts = [p.split("/") for p in _tracked()]
    return frozenset({p[0] for p in parts if len(p) > 1} | {p[1] for p in parts if len(p) > 2 and p[0] == "ci-scripts"})


@pytest.mark.parametrize("doc", _tracked_markdown())
def test_relative_links_point_at_files_of_the_repository(doc):
    base = (ROOT / doc).parent
    for target in LINK.findall((ROOT / doc).read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue  # a web address, or a place in the same page
        path = (base / target.split("#", 1)[0]).resolve()
        assert path.exists() and ROOT in path.parents, f"{doc}: link to {target}: no such file in the repository"


@pytest.mark.parametrize("doc", _tracked_markdown())
def test_paths_named_in_code_are_files_of_the_repository(doc):
    """A path the README names is as from the repository's root, where a newcomer stands
    (`ci-scripts/tests/...`, not `tests/...`); the other documents may also name the
    pipeline's code as from ci-scripts/ (`benchpipe/trends.py`), or from their own folder."""
    bases = [ROOT] if doc == "README.md" else [ROOT, (ROOT / doc).parent, ROOT / "ci-scripts"]
    folders = _repo_folders()
    for path in PATH_SPAN.findall((ROOT / doc).read_text(encoding="utf-8")):
        if path.split("/")[0] in folders:
            assert any((b / path).exists() for b in bases), \
                f"{doc}: `{path}`: no such file or folder (from {', '.join(str(b.relative_to(ROOT)) for b in bases)})"


def test_scenarios_md_describes_every_scenario(cat):
    text = (ROOT / "SCENARIOS.md").read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    for name in cat.scenarios:
        assert any(f"`{name}`" in h for h in headings), f"SCENARIOS.md has no section for {name}"


def test_readme_counts_the_quick_presets_benchmarks(cat):
    counts = re.findall(r"The `quick` preset \((\d+) benchmarks", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert counts == [str(len(cat.benchmarks("quick")))]
