"""The gh-pages repository's growth per night, through the real publish path: a local
bare repository whose branch holds a small synthetic history takes two more nights
(`bench publish`'s function, the site rendered into a folder as publish.yml does), `git
gc` after each. A night adds its history entries and data.js, not a site: with the site
committed (the older layout) this case grew ~600 KiB a night; without it, 60-90 KiB
(devtools/pagesgrowth.py, docs/gh-pages-history.md)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchpipe import history, history_summary, publish
from benchpipe.export import data_js
from devtools import pagesgrowth, synthetic

BOUND = 256 * 1024  # bytes a night may add to the packed repository, in this small case


def test_a_night_adds_kilobytes_not_megabytes(tmp_path):
    keys = synthetic.keys_for("smoke", toolchains={"go": synthetic.GO_TOOLCHAINS[-1:],
                                                   "rust": synthetic.RUST_TOOLCHAINS[-1:]})
    remote = tmp_path / "pages.git"
    pagesgrowth.seed(remote, tmp_path, 5, keys, ("linux",))
    rows = pagesgrowth.nights(remote, tmp_path, 5, 2, keys, ("linux",), detect=False, jobs=1, log=print)
    for row in rows:
        assert 0 < row["growth"] < BOUND, f"night {row['night']} added {row['growth'] / 1024:.0f} KiB"
    # the site was rendered (into the folder publish.yml deploys), not committed
    assert (tmp_path / "site" / "index.html").is_file()
    files = subprocess.run(["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", "gh-pages"],
                           capture_output=True, text=True, check=True).stdout.split()
    assert files and all(f.startswith(("history/", "dev/bench/", "samples/")) or f == ".gitignore" for f in files)


def test_a_compacted_branch_stays_small_and_one_commit_deep(tmp_path):
    """Ten years are seeded as publishing with compaction leaves them (devtools.pagesgrowth
    --compact): here 130 nights, two seeding processes; old months summarised, a night
    still kilobytes, and the branch squashed again when the next month is due."""
    keys = synthetic.keys_for("smoke", scenarios=["cpu", "sleep"],
                              toolchains={"go": synthetic.GO_TOOLCHAINS[-1:], "rust": synthetic.RUST_TOOLCHAINS[-1:]})
    remote = tmp_path / "pages.git"
    pagesgrowth.seed(remote, tmp_path, 130, keys, ("linux",), compact=True, jobs=2)
    files = subprocess.run(["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", "gh-pages"],
                           capture_output=True, text=True, check=True).stdout.split()
    assert _kind(remote, "2025-11") == "summary" and _kind(remote, "2025-12") == "entries"   # ended: whole, xz
    assert "history/linux/cpu/2026-03.json" in files and "history/linux/cpu/2026-03.json.xz" not in files
    # as publishing leaves them: the raw samples of the runs at most 90 days older than the
    # newest (91 nights), data.js's last MAX_ITEMS entries a series
    assert sum(f.startswith("samples/") for f in files) == history_summary.KEEP_DAYS + 1
    store = data_js.parse(subprocess.run(["git", "--git-dir", str(remote), "show", "gh-pages:dev/bench/data.js"],
                                             capture_output=True, text=True, check=True).stdout, "data.js")
    assert store["entries"] and all(len(s) == data_js.MAX_ITEMS for s in store["entries"].values())
    # night 150 is 2026-03-31, 89 days after December ended; night 151 closes it: compaction
    rows = pagesgrowth.nights(remote, tmp_path, 150, 3, keys, ("linux",), detect=False, jobs=1, log=print)
    assert 0 < rows[0]["growth"] < BOUND and 0 < rows[2]["growth"] < BOUND, rows
    assert rows[1]["growth"] < 0 and rows[1]["tree"] < rows[0]["tree"], rows   # December summarised
    files = subprocess.run(["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", "gh-pages"],
                           capture_output=True, text=True, check=True).stdout.split()
    assert _kind(remote, "2025-12") == "summary" and "history/linux/cpu/2025-12.json" not in files
    assert _kind(remote, "2026-03") == "entries" and "history/linux/cpu/2026-03.json" not in files
    count = subprocess.run(["git", "--git-dir", str(remote), "rev-list", "--count", "gh-pages"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert count == "2", count   # the compaction's one commit, and the night after it
    # the seeded samples expire as published ones do: night 152 keeps runs from night 62 on
    # (seeded nights 62-129, and the three published)
    assert sum(f.startswith("samples/") for f in files) == (129 - 62 + 1) + 3


def _kind(remote: Path, month: str) -> str | None:
    """The kind of the branch's closed cpu file of a month (summary, or entries: whole)."""
    blob = subprocess.run(["git", "--git-dir", str(remote), "cat-file", "blob",
                           f"gh-pages:history/linux/cpu/{month}{history_summary.SUFFIX}"],
                          capture_output=True, check=True).stdout
    return history_summary.peek_kind(blob)


def test_a_seed_carries_the_toolchain_verdicts_publishing_adds(tmp_path):
    """Two toolchains a language: every newer toolchain's entry has its verdict against
    the older (`versus`), as `bench publish` writes them, summarised months included."""
    keys = synthetic.keys_for("smoke", scenarios=["cpu"],
                              toolchains={"go": synthetic.GO_TOOLCHAINS, "rust": synthetic.RUST_TOOLCHAINS})
    remote = tmp_path / "pages.git"
    pagesgrowth.seed(remote, tmp_path, 130, keys, ("linux",), compact=True)
    assert _kind(remote, "2025-11") == "summary"
    subprocess.run(["git", "clone", "-q", "-b", "gh-pages", str(remote), str(tmp_path / "wt")], check=True)
    hist = history.load(tmp_path / "wt" / publish.HISTORY_DIR)
    newer = {synthetic.GO_TOOLCHAINS[-1], synthetic.RUST_TOOLCHAINS[-1]}
    old = [e for e in hist.entries if e["date"] < "2025-12"]
    assert old and len(hist.entries) > len(old)   # summarised months' rows, and whole entries
    for e in hist.entries:
        ratio = ((e.get("versus") or {}).get("metrics", {}).get("time") or {}).get("ratio")
        assert bool(ratio) == (e["key"]["toolchain"] in newer), e["key"]
