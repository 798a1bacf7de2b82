"""The compact entries format (history/2, issue 40) and the migration of a history
written in history/1: every entry reads back field for field, `history check` proves
it by the entries' digests, and the site shows the same series, compiler verdicts and
change points before and after (its data files byte for byte)."""

from __future__ import annotations

import json
import re
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from benchpipe import catalogue, history, history_rows, site, trends
from benchpipe.commands.history import add_results
from benchpipe.errors import BenchError
from devtools import synthetic

BENCH = Path(__file__).resolve().parent.parent / "bench"
HISTORY_1 = "gorust-bench.history/1"


def as_history_1(root: Path) -> None:
    """Rewrite every entries file of a history as history/1 wrote it (one object per
    entry): the format of every history published before history/2."""
    runs = history._run_records(root)
    for path, rel in history.history_files(root):
        doc = json.loads(path.read_text())
        if doc["kind"] != "entries" or not history.is_rows(doc):
            continue
        entries = history.file_entries(doc, runs[doc["month"]])
        old = {**{k: v for k, v in doc.items() if k != "rows"}, "schema": HISTORY_1, "entries": entries}
        assert history.file_problems(path, old, rel) == []
        path.write_text(history.serialise(old))


def entries_files(root: Path) -> dict[str, str]:
    return {rel: json.loads(p.read_text())["schema"] for p, rel in history.history_files(root)
            if not rel.startswith("runs/")}


@pytest.fixture(scope="module")
def nightly(tmp_path_factory) -> Path:
    """40 nights on one OS across two months, two toolchains per language (compiler
    verdicts), a level shift (change points), as results files."""
    work = tmp_path_factory.mktemp("nightly")
    keys = synthetic.keys_for("smoke", scenarios=["sleep", "cpu"],
                              toolchains={"go": synthetic.GO_TOOLCHAINS, "rust": synthetic.RUST_TOOLCHAINS})
    start = datetime(2026, 1, 10, 2, 0, tzinfo=timezone.utc)
    for day in range(40):   # Rust 30 % slower from night 20: a level shift, a change point
        doc = synthetic.results_doc(keys, commit=f"{day:040x}", timestamp=start + timedelta(days=day), runs=5,
                                    seed=day, factor=lambda k, d=day: 1.3 if d >= 20 and k["lang"] == "rust" else 1.0)
        (work / f"night{day:02d}.json").write_text(json.dumps(doc))
    return work


def test_a_history_1_history_migrates_losing_nothing_the_site_shows(nightly, tmp_path):
    root = tmp_path / "h"
    add_results(root, sorted(nightly.glob("*.json")))
    assert set(entries_files(root).values()) == {history_rows.SCHEMA}   # new files: history/2
    as_history_1(root)
    assert set(entries_files(root).values()) == {HISTORY_1}
    before = history.load(root)
    assert any("versus" in e for e in before.entries)
    site.render(root, tmp_path / "site1", jobs=1)
    size_1 = sum(p.stat().st_size for p, rel in history.history_files(root))

    p = subprocess.run([str(BENCH), "history", "migrate", "--history", str(root)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "file(s) migrated to history/2" in p.stdout
    assert set(entries_files(root).values()) == {history_rows.SCHEMA}
    assert history.check(root) == []
    after = history.load(root)
    assert after.runs == before.runs
    assert [history.canonical(e) for e in after.entries] == [history.canonical(e) for e in before.entries]
    size_2 = sum(p.stat().st_size for p, rel in history.history_files(root))
    assert size_2 < 0.6 * size_1, (size_1, size_2)

    site.render(root, tmp_path / "site2", jobs=1)
    model = trends.build(after, catalogue.load(), jobs=1)
    assert model.regressions, "the synthetic level shifts give change points"
    data1 = {p.relative_to(tmp_path / "site1"): p.read_bytes() for p in (tmp_path / "site1" / "data").rglob("*")}
    data2 = {p.relative_to(tmp_path / "site2"): p.read_bytes() for p in (tmp_path / "site2" / "data").rglob("*")}
    assert data1 and data1 == data2          # every series, verdict and change point the site shows
    for page in ("regressions.html", "compilers.html"):   # less the minute each was rendered in
        one, two = ((tmp_path / d / page).read_bytes() for d in ("site1", "site2"))
        assert re.sub(rb"Generated [^<]* UTC", b"", one) == re.sub(rb"Generated [^<]* UTC", b"", two)

    again = history.migrate(root)            # idempotent: nothing left to migrate
    assert again.files == 0


def test_appends_keep_each_files_format_and_new_files_are_compact(nightly, tmp_path):
    root = tmp_path / "h"
    files = sorted(nightly.glob("*.json"))
    add_results(root, files[:3])
    as_history_1(root)
    add_results(root, files[3:6])           # the same month: appended to history/1 files as history/1
    assert set(entries_files(root).values()) == {HISTORY_1}
    assert history.check(root) == []
    add_results(root, files[6:])             # later months start history/2 files
    schemas = entries_files(root)
    assert HISTORY_1 in schemas.values() and history_rows.SCHEMA in schemas.values()
    assert history.check(root) == [] and len(history.load(root).runs) == len(files)


def test_a_hand_edited_compact_file_is_reported_and_migrate_refuses_a_broken_history(nightly, tmp_path):
    root = tmp_path / "h"
    add_results(root, sorted(nightly.glob("*.json"))[:2])
    (target,) = [p for p, rel in history.history_files(root) if rel.startswith("linux/cpu/")]
    text = target.read_text()
    row = next(ln for ln in text.splitlines() if ln.startswith('["r'))
    # a median changed by hand: the row still has the form, its entry not the digest
    fields = json.loads(row.rstrip(","))
    fields[2]["time_s"][0] *= 0.5
    target.write_text(text.replace(row, json.dumps(fields, separators=(",", ":")) + ("," if row.endswith(",") else "")))
    found = history.check(root)
    assert found and str(target) in found[0] and "digest mismatch" in found[0], found
    as_before = target.read_bytes()
    with pytest.raises(BenchError, match="nothing was migrated"):
        history.migrate(root)
    assert target.read_bytes() == as_before
    # a row naming a series the file never declared
    target.write_text(text.replace(row, row.replace('",0,{', '",99,{', 1).replace('",1,{', '",99,{', 1)))
    found = history.check(root)
    assert found and "not declared" in found[0], found


def test_rows_are_short_and_hold_what_the_run_record_does_not(nightly, tmp_path):
    root = tmp_path / "h"
    add_results(root, sorted(nightly.glob("*.json"))[:1])
    (target,) = [p for p, rel in history.history_files(root) if rel.startswith("linux/sleep/")]
    doc = json.loads(target.read_text())
    rows = [r for r in doc["rows"] if isinstance(r, list)]
    series = [r for r in doc["rows"] if isinstance(r, dict)]
    assert rows and len(series) == len(rows)          # one night: each series said once
    for r in rows:
        assert not set(r[2]) & {"commit", "date", "os", "runner", "preset", "toolchain_version", "key", "id"}
        assert isinstance(r[2]["time_s"], list) and len(r[2]["time_s"]) == len(history_rows.STATS)
    (entry,) = [e for e in history.load(root).entries if e["id"] == series[0]["id"]]
    assert history.digest_of(entry) == entry["digest"] == rows[0][3]


def _rewrite_row(target: Path, change) -> None:
    """Change the first entry row of a history/2 file by hand and give it the digest of
    what it now decodes to (a hand edit that knows the digest rule)."""
    doc = json.loads(target.read_text())
    runs = history._run_records(target.parent.parent.parent)[doc["month"]]
    series = history_rows.Series(doc["rows"])
    i, row = next((i, r) for i, r in enumerate(doc["rows"]) if isinstance(r, list))
    change(row)
    try:
        e = history_rows.decode(row, series, runs[row[0]])
        row[3] = history.digest_of({k: v for k, v in e.items() if k != "digest"})
    except (history_rows.RowError, KeyError):
        pass
    doc["rows"][i] = row
    target.write_text(history.serialise(doc))


@pytest.mark.parametrize("change, problem", [
    (lambda row: row[2].update(key={"scenario": 5}), "may not say key"),
    (lambda row: row[2].update(date=5), "date"),
    (lambda row: row.__setitem__(1, 99), "not declared"),
    (lambda row: row[2].__setitem__("time_s", "fast"), "time_s"),
])
def test_hostile_rows_are_one_line_problems_never_tracebacks(nightly, tmp_path, change, problem):
    root = tmp_path / "h"
    add_results(root, sorted(nightly.glob("*.json"))[:2])
    (target,) = [p for p, rel in history.history_files(root) if rel.startswith("linux/cpu/")]
    _rewrite_row(target, change)
    found = history.check(root)
    assert found and str(target) in found[0] and problem in found[0] and "\n" not in found[0], found
    p = subprocess.run([str(BENCH), "history", "check", "--history", str(root)], capture_output=True, text=True)
    assert p.returncode == 1 and "Traceback" not in p.stderr and str(target) in p.stderr
    for cmd in (["site", "--history", str(root), "--out", str(tmp_path / "site"), "--no-changepoints"],
                ["history", "add", "--history", str(root), str(sorted(nightly.glob("*.json"))[2])]):
        p = subprocess.run([str(BENCH), *cmd], capture_output=True, text=True)
        assert "Traceback" not in p.stderr, p.stderr
        assert p.returncode in (0, 1) and (p.returncode == 0 or p.stderr.strip().count("\n") == 0), p.stderr


def test_a_broken_run_record_is_reported_and_its_rows_are_not_decoded_beside_it(nightly, tmp_path):
    root = tmp_path / "h"
    add_results(root, sorted(nightly.glob("*.json"))[:2])
    runs_file = root / "runs" / "2026-01.json"
    doc = json.loads(runs_file.read_text())
    rec = doc["runs"][0]
    del rec["toolchains"]
    rec["digest"] = history.digest_of(rec)
    runs_file.write_text(history.serialise(doc))
    found = history.check(root)
    assert found and str(runs_file) in found[0] and "toolchains" in found[0], found
    p = subprocess.run([str(BENCH), "site", "--history", str(root), "--out", str(tmp_path / "site"),
                        "--no-changepoints"], capture_output=True, text=True)
    assert "Traceback" not in p.stderr and (p.returncode == 0 or p.stderr.strip().count("\n") == 0), p.stderr
