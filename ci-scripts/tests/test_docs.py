"""The documents a clone has say true things: every relative link in them points at a
file of this repository, SCENARIOS.md has a section for every scenario of the
catalogue, and the README's count of the quick preset's benchmarks is the catalogue's."""

from __future__ import annotations

import re
import subprocess

import pytest

from benchpipe import ROOT

LINK = re.compile(r"\]\(([^)\s]+)\)")


def _tracked_markdown() -> list[str]:
    out = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [p for p in out.stdout.split() if (ROOT / p).is_file()]


@pytest.mark.parametrize("doc", _tracked_markdown())
def test_relative_links_point_at_files_of_the_repository(doc):
    base = (ROOT / doc).parent
    for target in LINK.findall((ROOT / doc).read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue  # a web address, or a place in the same page
        path = (base / target.split("#", 1)[0]).resolve()
        assert path.exists() and ROOT in path.parents, f"{doc}: link to {target}: no such file in the repository"


def test_scenarios_md_describes_every_scenario(cat):
    text = (ROOT / "SCENARIOS.md").read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    for name in cat.scenarios:
        assert any(f"`{name}`" in h for h in headings), f"SCENARIOS.md has no section for {name}"


def test_readme_counts_the_quick_presets_benchmarks(cat):
    counts = re.findall(r"The `quick` preset \((\d+) benchmarks", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert counts == [str(len(cat.benchmarks("quick")))]
