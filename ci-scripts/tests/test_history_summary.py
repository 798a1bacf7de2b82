"""Summarised months (issue 40): a month older than 90 days is kept as medians,
intervals, counts and every other field, compressed; the site shows the same series,
verdicts, change points and charts (byte for byte) before and after; hand edits and
hostile files are one-line problems; `bench publish` compacts once a month and squashes
the branch with a lease, never over a push that raced it."""

from __future__ import annotations

import bisect
import hashlib
import json
import lzma
import marshal
import math
import os
import re
import subprocess
from array import array
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from benchpipe import catalogue, charts, columns_cache, entries_cache, history, history_summary, kinds_cache, publish, series_cache, site, trends, versions
from benchpipe.commands.history import add_results
from benchpipe.errors import BenchError
from benchpipe.results import key_id
from benchpipe.stat_columns import StatColumn
from devtools import synthetic

BENCH = Path(__file__).resolve().parent.parent / "bench"
START = datetime(2026, 1, 10, 2, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def nights(tmp_path_factory) -> list[Path]:
    """30 nights five days apart (January to May), two toolchains per language (compiler
    verdicts), Rust 30 % slower from day 40 (a change point in a month that is summarised);
    Go's cpu benchmarks run until February only (series whose newest point is summarised)."""
    work = tmp_path_factory.mktemp("nights")
    keys = synthetic.keys_for("smoke", scenarios=["sleep", "cpu"],
                              toolchains={"go": synthetic.GO_TOOLCHAINS, "rust": synthetic.RUST_TOOLCHAINS})
    files = []
    for i in range(30):
        day = 5 * i
        run = [k for k in keys if day < 50 or (k["scenario"], k["lang"]) != ("cpu", "go")]
        doc = synthetic.results_doc(run, commit=f"{day:040x}", timestamp=START + timedelta(days=day), runs=5,
                                    seed=day, factor=lambda k, d=day: 1.3 if d >= 40 and k["lang"] == "rust" else 1.0)
        files.append(work / f"night{day:03d}.json")
        files[-1].write_text(json.dumps(doc))
    return files


def _tree(root: Path) -> dict[str, bytes]:
    """Every file of a site folder (the pages without their "Generated <minute>" line)."""
    return {p.relative_to(root).as_posix(): re.sub(rb"Generated [^<]* UTC", b"", p.read_bytes())
            for p in sorted(root.rglob("*")) if p.is_file() and ".cache" not in p.parts}


def _summaries(root: Path) -> list[Path]:
    return sorted(root.rglob(f"*{history_summary.SUFFIX}"))


_REAL_MONTH_COLUMNS = trends._month_columns
_PARENT: dict = {}


def _month_columns_in_a_worker(month):
    """trends._month_columns, refusing to run in the test's own process (module level:
    the pool pickles the function by its name)."""
    assert os.getpid() != _PARENT["pid"], "read in the parent"
    return _REAL_MONTH_COLUMNS(month)


def test_old_months_are_summarised_and_the_site_shows_the_same(nights, tmp_path, monkeypatch):
    root = tmp_path / "h"
    add_results(root, nights)
    before = history.load(root)
    assert any("versus" in e for e in before.entries)
    site.render(root, tmp_path / "site1", jobs=1)
    size_before = sum(p.stat().st_size for p, rel in history.history_files(root) if not rel.startswith("runs/"))

    p = subprocess.run([str(BENCH), "history", "compact", "--history", str(root)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "2 month(s) (2026-01, 2026-02) summarised" in p.stdout, p.stdout   # newest run: 2026-06-03
    assert "3 ended month(s) (2026-03, 2026-04, 2026-05) kept whole, compressed" in p.stdout, p.stdout
    kinds = {f.name: history_summary.peek_kind(f.read_bytes()) for f in _summaries(root)}
    assert set(kinds.items()) == {("2026-01.json.xz", "summary"), ("2026-02.json.xz", "summary"),
                                  *((f"2026-0{m}.json.xz", "entries") for m in (3, 4, 5))}, kinds
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("2026-0[1-5].json")) == \
        [f"runs/2026-0{m}.json" for m in range(1, 6)]     # run records are never summarised nor compressed
    assert [p.name for p in root.rglob("2026-06.json*") if "runs" not in p.parts] == ["2026-06.json"] * 2
    assert history.check(root) == [] and history.uncommitted(root) == []
    size_after = sum(p.stat().st_size for p, rel in history.history_files(root) if not rel.startswith("runs/"))
    assert size_after < 0.75 * size_before, (size_before, size_after)

    after = history.load(root)
    assert after.runs == before.runs and len(after.entries) == len(before.entries)
    newest: dict = {}   # each series' newest date in its summarised month keeps its whole verdict
    for e in before.entries:
        k = (e["os"], e["id"], e["date"][:7])
        newest[k] = max(newest.get(k, ""), e["date"])
    cut = whole = 0
    for old, new in zip(before.entries, after.entries):
        if old["date"] < "2026-03":   # summarised: the entry less min, max, mean, stddev, digest, verdict figures
            last = old["date"] == newest[(old["os"], old["id"], old["date"][:7])]
            assert new == history_summary.project(old, last) and set(new["time_s"]) == {"median", "ci_low", "ci_high", "n"}
            if "versus" in old:
                figures = {k for m in new["versus"]["metrics"].values() for k in m}
                assert figures == ({"ratio", "ci_low", "ci_high", "p_value", "resolution", "verdict"} if last
                                   else {"ratio", "verdict"}), figures
                assert new["versus"]["metrics"].keys() == old["versus"]["metrics"].keys()
                cut, whole = cut + (not last), whole + last
        else:   # kept whole, compressed or not
            assert new == old
    assert cut > 3 * whole > 0, (cut, whole)   # nights five days apart: ~6 a month

    # every series, verdict, change point and chart the site showed, byte for byte
    site.render(root, tmp_path / "site2", jobs=1)
    model = trends.build(after, catalogue.load(), jobs=1)
    assert model.regressions, "the level shift in January/February gives change points"
    # the site reads summarised months as rows straight into columns: the same model
    rows = history.load(root, summaries="rows")
    assert rows.summarised and all(m.count is None for m in rows.summarised)   # read by trends.build
    cols = trends.build(rows, catalogue.load(), jobs=1)
    assert rows.count == len(after.entries) and len(rows.entries) < len(after.entries)
    # the months read in two processes at once give the same model
    monkeypatch.setattr(trends, "PARALLEL_MONTHS", 1)
    monkeypatch.setattr(trends, "_month_columns", _month_columns_in_a_worker)
    monkeypatch.setitem(_PARENT, "pid", os.getpid())
    again = history.load(root, summaries="rows")
    assert len(again.summarised) >= 2
    two = trends.build(again, catalogue.load(), jobs=2)
    monkeypatch.setattr(trends, "_month_columns", _REAL_MONTH_COLUMNS)
    assert list(two.series) == list(cols.series) and two.regressions == cols.regressions and two.latest == cols.latest
    for sid, s in cols.series.items():
        t = two.series[sid]
        assert (t.dates, t.commits, t.runs, t.keys, t.versus_older, t.versus_ratio, t.stats, t.last) == \
            (s.dates, s.commits, s.runs, s.keys, s.versus_older, s.versus_ratio, s.stats, s.last), sid
    ended = [s for s in cols.series.values() if s.dates[-1] < "2026-03"]
    assert ended and all(s.last["date"] == s.dates[-1] and "time_s" in s.last for s in ended)
    assert cols.regressions == model.regressions and cols.latest == model.latest
    assert list(cols.series) == list(model.series)   # in the same order
    for sid, s in model.series.items():
        c = cols.series[sid]
        assert (c.dates, c.commits, c.runs, c.keys, c.versus_older, c.versus_ratio, c.stats, c.last, c.metric_changepoints) == \
            (s.dates, s.commits, s.runs, s.keys, s.versus_older, s.versus_ratio, s.stats, s.last, s.metric_changepoints), sid
    one, two = _tree(tmp_path / "site1"), _tree(tmp_path / "site2")
    assert any(k.startswith("charts/") for k in one) and one == two

    assert history.compact(root).files == 0          # idempotent
    # a run already there is found (idempotent publishing); a new one dated in a summarised month is refused
    assert add_results(root, nights[:1]).runs_present
    late = json.loads(nights[0].read_text())
    late["env"]["commit"] = "f" * 40
    (tmp_path / "late.json").write_text(json.dumps(late))
    with pytest.raises(BenchError, match="is summarised"):
        add_results(root, [tmp_path / "late.json"])
    assert history.check(root) == []

    # a late run of an ended month kept whole (April: re-published, say) is appended to its
    # compressed file, which stays compressed and whole; a later compaction summarises it
    april = next(f for f in nights if json.loads(f.read_text())["env"]["timestamp"].startswith("2026-04"))
    late = json.loads(april.read_text())
    late["env"]["commit"] = "e" * 40
    (tmp_path / "late-april.json").write_text(json.dumps(late))
    rep = add_results(root, [tmp_path / "late-april.json"])
    assert rep.runs_added and all(f.endswith(".json.xz") for f in rep.files_written if not f.startswith("runs/"))
    assert not list(root.rglob("2026-04.json")) or [p.parent.name for p in root.rglob("2026-04.json")] == ["runs"]
    assert history.check(root) == [] and history.compact(root).files == 0
    again = history.load(root)
    assert len(again.entries) == len(after.entries) + rep.entries_added
    assert history.compact(root, newest="2026-09-01T00:00:00Z").months == ["2026-03", "2026-04", "2026-05"]
    assert {history_summary.peek_kind(f.read_bytes()) for f in _summaries(root)} == {"summary", "entries"}
    assert history.check(root) == [] and len(history.load(root).entries) == len(again.entries)


def test_the_series_keep_of_each_verdict_what_the_site_shows(nights, tmp_path):
    """Each point's compiler verdict in the trend model is two columns, its older side and
    headline ratio (trends.versus_point; a series' newest verdict is read whole from its
    last entry): read from compacted months, they are what the whole entries said, and the
    Compiler versions charts are what a point-by-point reading of the whole entries gives."""
    root = tmp_path / "h"
    add_results(root, nights)
    whole_hist = history.load(root)
    head = trends.HEADLINE.name
    said = {}   # (os, key id, run) -> (older side, headline ratio) of each whole entry's verdict
    for e in whole_hist.entries:
        if v := e.get("versus"):
            said[(e["os"], e["id"], e["run"])] = (v.get("channel") or v["toolchain"],
                                                  ((v.get("metrics") or {}).get(head) or {}).get("ratio"))
    assert said
    history.compact(root)
    model = _model(root)
    got = {(s.os, key_id(k), r): (o, ratio) for s in model.series.values()
           for k, r, o, ratio in zip(s.keys, s.runs, s.versus_older, s.versus_ratio) if o is not None}
    assert got == said

    # the charts' rows, against the plain reading: per (os, lang, older, newer) and date,
    # the ratios' geometric mean, lowest, highest and count
    expect: dict[str, dict[str, list[float]]] = {}
    for e in whole_hist.entries:
        v = e.get("versus")
        if v and not e["key"].get("label") and (said[(e["os"], e["id"], e["run"])][1] or 0) > 0:
            older, newer = v.get("channel") or v["toolchain"], e.get("channel") or e["key"]["toolchain"]
            name = f"versions_{e['os']}-{e['key']['lang']}-{trends.slug(f'{older}-{newer}')}.dat"
            expect.setdefault(name, {}).setdefault(e["date"], []).append(said[(e["os"], e["id"], e["run"])][1])
    work = tmp_path / "charts"
    work.mkdir()
    made = charts.version_charts(model, work)
    assert made and {f.name for f in work.iterdir()} == {n for n, by in expect.items() if len(by) > 1}
    for f in work.iterdir():
        rows = [line.split() for line in f.read_text().splitlines()]
        assert [r[0] for r in rows] == sorted(expect[f.name])
        for d, gm, low, high, n in rows:
            rs = expect[f.name][d]
            assert int(n) == len(rs) and float(low) == pytest.approx(min(rs), rel=1e-5) and \
                float(high) == pytest.approx(max(rs), rel=1e-5)
            assert float(gm) == pytest.approx(math.prod(rs) ** (1 / len(rs)), rel=1e-5)
    assert versions.rows(model) == versions.rows(_model_whole(root, whole_hist))


def _model_whole(root: Path, hist) -> trends.Model:
    """The model of a history read as whole entries (before compaction)."""
    return trends.build(hist, catalogue.load(), jobs=1)


def _rewrite(path: Path, change) -> None:
    """A hand edit of a summarised month's file as it is on disk (columns)."""
    doc = json.loads(lzma.decompress(path.read_bytes()))
    assert history_summary.is_columns(doc)
    change(doc)
    path.write_bytes(lzma.compress((history.canonical(doc) + "\n").encode()))


def _redigest(doc) -> None:
    doc["digest"] = history.digest_of(history_summary.to_rows(doc))


def _median_halved(doc):
    doc["series"][0]["fields"]["time_s"]["arrays"][0][0] *= 0.5


def _hostile_with_digest(doc):
    for s in doc["series"]:   # every summary of every point
        for col in s["fields"].values():
            if "arrays" in col:
                col["values"] = ["fast"] * len(col.pop("arrays")[0])
    _redigest(doc)


def _row_of_no_run(doc):
    rows = history_summary.to_rows(doc)
    row = next(r for r in rows["rows"] if isinstance(r, list))
    rows["rows"].append(["r" + "0" * 20, row[1], row[2]])
    rows["count"] += 1
    doc.clear()
    doc.update(history_summary.to_columns(rows))
    _redigest(doc)


def _row_too_long(doc):
    doc["series"][0]["fields"]["time_s"]["arrays"][0].append(1.0)
    _redigest_anyway(doc)


def _row_saying_its_key(doc):
    s = doc["series"][0]
    s["fields"]["key"] = {"values": [s["key"]] * len(s["runs"])}
    _redigest_anyway(doc)


def _redigest_anyway(doc):
    """The digest of the rows the columns would make if they made rows."""
    try:
        _redigest(doc)
    except history_summary.ColumnError:
        pass


# the site reads summarised rows as columns (trends.build), not through decode: it must
# still refuse what decode refuses
REFUSED_BY_THE_SITE = (_hostile_with_digest, _row_too_long, _row_saying_its_key)


@pytest.mark.parametrize("change, problem", [
    (_median_halved, "digest mismatch"),
    (_hostile_with_digest, "is not of type"),
    (_row_of_no_run, "has no run record"),
    (_row_too_long, "$.series[0].fields.time_s.arrays: not arrays of"),
    (_row_saying_its_key, "$.series[0].fields: a field may not be 'key'"),
])
def test_a_hand_edited_summary_is_a_one_line_problem(nights, tmp_path, change, problem):
    root = tmp_path / "h"
    add_results(root, nights)
    history.compact(root)
    target = next(p for p in _summaries(root) if "linux/cpu/2026-01" in p.as_posix())
    _rewrite(target, change)
    found = history.check(root)
    assert found and all(str(target) in f for f in found) and problem in found[0], found
    # the site trusts what checked when written (like `history load`); what it cannot
    # read it names in one line, never a traceback
    try:
        site.render(root, tmp_path / "site", jobs=1, detect=False)
    except BenchError as err:
        assert "\n" not in str(err) and str(target) in str(err)
    else:
        assert change not in REFUSED_BY_THE_SITE


def _redigest_unchecked(doc):
    """The digest of the rows these columns make, made again without checking them (what a
    hand edit that knows the format can do)."""
    real = history_summary.check_columns
    history_summary.check_columns = lambda d: None
    try:
        _redigest(doc)
    finally:
        history_summary.check_columns = real


def _series_key(**change):
    def edit(doc):
        doc["series"][0]["key"].update(change)
        _redigest_unchecked(doc)
    edit.__name__ = f"key {change}"
    return edit


def _series_channel(value):
    def edit(doc):
        doc["series"][0]["channel"] = value
        _redigest_unchecked(doc)
    edit.__name__ = f"channel {value!r}"
    return edit


def _point_says(field, value):
    def edit(doc):
        s = doc["series"][0]
        s["fields"][field] = {"values": [value] * len(s["runs"])}
        _redigest_unchecked(doc)
    edit.__name__ = f"{field} {value!r}"
    return edit


@pytest.mark.parametrize("change", [
    _series_key(build=None), _series_key(params="fast"), _series_key(params=[1, 2]), _series_key(lang="klingon"),
    _series_key(scenario={"a": 1}), _series_channel([]), _series_channel({"a": 1}), _series_channel("a b"),
    _point_says("date", 5), _point_says("channel", []), _point_says("os", {"a": 1}), _point_says("commit", None),
], ids=lambda f: f.__name__)
def test_hostile_values_in_a_summary_with_its_digest_made_again_are_one_line(nights, tmp_path, change):
    """A summarised month whose series' keys, channels or points' own fields are of a
    shape the site cannot read, with its digest made again to match (found by mutating
    every value of such a file): `history check` names it, and the site refuses it in
    one line naming the file (it read `TypeError`s out of the columns before), never a
    traceback; what it can read it shows."""
    root = tmp_path / "h"
    add_results(root, nights[:24])
    history.compact(root)
    target = next(p for p in _summaries(root) if "linux/cpu/2026-01" in p.as_posix())
    _rewrite(target, change)
    found = history.check(root)
    assert found and str(target) in found[0], found
    assert "digest mismatch" not in " ".join(found)   # the digest matches: the values are refused
    with pytest.raises(BenchError) as err:
        trends.build(history.load(root, summaries="rows"), catalogue.load(), jobs=1, detect=False)
    assert "\n" not in str(err.value) and str(target) in str(err.value) and "history check" in str(err.value)


def test_a_summary_broken_past_its_start_is_one_line_when_read_in_parallel(nights, tmp_path, monkeypatch):
    """load leaves a summarised month unread when its start is one written here; the
    workers that read it (trends.build) refuse what is broken further on with one line
    naming the file, as load does."""
    root = tmp_path / "h"
    add_results(root, nights)
    history.compact(root)
    target = next(p for p in _summaries(root) if history_summary.peek_kind(p.read_bytes()) == "summary")
    text = lzma.decompress(target.read_bytes()).decode()
    target.write_bytes(lzma.compress(text[: len(text) // 2].encode()))
    assert history_summary.peek_kind(target.read_bytes()) == "summary"
    hist = history.load(root, summaries="rows")   # not read yet
    monkeypatch.setattr(trends, "PARALLEL_MONTHS", 1)
    with pytest.raises(BenchError) as err:
        trends.build(hist, catalogue.load(), jobs=2, detect=False)
    assert str(target) in str(err.value) and "history check" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(BenchError, match=re.escape(str(target))):
        site.render(root, tmp_path / "site", jobs=2, detect=False)
    assert not (tmp_path / "site").exists()


@pytest.mark.parametrize("data", [b"not xz at all", lzma.compress(b'{"kind": "summary"')[:-9],
                                  lzma.compress(b"\xff\xfe{}"), lzma.compress(b"[" * 100 + b"]" * 100)])
def test_a_broken_xz_file_is_one_line(nights, tmp_path, data):
    root = tmp_path / "h"
    add_results(root, nights[:2])
    bad = root / "linux" / "cpu" / "2025-12.json.xz"
    bad.write_bytes(data)
    found = [f for f in history.check(root) if str(bad) in f]
    assert len(found) == 1 and "\n" not in found[0], found
    with pytest.raises(BenchError):
        history.load(root)


def test_a_compressed_month_with_a_second_stream_or_trailing_bytes_is_one_line(nights, tmp_path):
    root = tmp_path / "h"
    add_results(root, nights)
    history.compact(root)
    whole = root / "linux" / "cpu" / "2026-04.json.xz"
    data = whole.read_bytes()
    for tail in (b"garbage", lzma.compress(b"{}")):
        whole.write_bytes(data + tail)
        found = [f for f in history.check(root) if str(whole) in f]
        assert len(found) == 1 and "data after the end of the xz stream" in found[0], found
        with pytest.raises(BenchError, match="data after the end"):
            history.load(root)


def test_a_stale_plain_month_beside_a_fuller_compressed_one_loses_nothing(nights, tmp_path):
    """A plain file restored from an older commit beside a compressed whole month that
    took a late run since: `check` says so, compaction refuses to replace the copy, and
    the late run is still there once the stale file is removed."""
    root = tmp_path / "h"
    add_results(root, nights)
    plain = root / "linux" / "cpu" / "2026-04.json"
    old = plain.read_bytes()
    history.compact(root)
    april = next(f for f in nights if json.loads(f.read_text())["env"]["timestamp"].startswith("2026-04"))
    late = json.loads(april.read_text())
    late["env"]["commit"] = "c" * 40
    (tmp_path / "late.json").write_text(json.dumps(late))
    add_results(root, [tmp_path / "late.json"])
    want = history.load(root)
    plain.write_bytes(old)                         # the stale copy, back from git
    found = [f for f in history.check(root) if "2026-04.json.xz" in f]
    assert len(found) == 1 and "holds records that 2026-04.json beside it lacks" in found[0], found
    with pytest.raises(BenchError, match="holds records that 2026-04.json beside it lacks"):
        history.compact(root)
    plain.unlink()
    assert history.check(root) == [] and history.load(root) == want


def test_an_ended_history_1_month_is_compressed_as_history_2_and_migrate_skips_closed_months(nights, tmp_path):
    from test_history_format import as_history_1
    root = tmp_path / "h"
    add_results(root, nights)
    as_history_1(root)
    before = history.load(root)
    rep = history.compact(root)
    assert rep.closed_months == ["2026-03", "2026-04", "2026-05"] and rep.months == ["2026-01", "2026-02"]
    whole = root / "linux" / "cpu" / "2026-04.json.xz"
    assert json.loads(lzma.decompress(whole.read_bytes()))["schema"] == "gorust-bench.history/2"
    assert history.check(root) == []
    after = history.load(root)
    assert [e for e in after.entries if e["date"] >= "2026-03"] == [e for e in before.entries if e["date"] >= "2026-03"]
    mig = history.migrate(root)                      # the current month only; closed ones are skipped
    assert mig.files and history.check(root) == [] and history.load(root) == after
    # sizes reported as they were: a whole month summarised in place is not its own summary's size
    due = history.compact(root, newest="2026-08-15T00:00:00Z")
    assert due.months == ["2026-03", "2026-04"] and due.bytes_before > due.bytes_after > 0


def test_a_hand_made_header_does_not_fool_the_compaction(nights, tmp_path):
    """peek_kind takes only the starts written here on trust: a whole month whose header
    says kind twice ("summary", then "entries", which JSON keeps) is read, and summarised
    when due like any other."""
    root = tmp_path / "h"
    add_results(root, nights)
    history.compact(root)
    whole = root / "linux" / "cpu" / "2026-03.json.xz"
    text = lzma.decompress(whole.read_bytes()).decode()
    assert text.startswith('{"kind":"entries",')
    whole.write_bytes(lzma.compress(('{"kind":"summary",' + text[1:]).encode()))
    assert history_summary.peek_kind(whole.read_bytes()) is None
    assert "2026-03" in history.compact(root, newest="2026-07-15T00:00:00Z").months
    assert history_summary.peek_kind(whole.read_bytes()) == "summary"


def test_an_interrupted_compaction_reads_the_whole_month_and_completes(nights, tmp_path):
    root = tmp_path / "h"
    add_results(root, nights)
    before = history.load(root)
    whole = {p: p.read_bytes() for p, rel in history.history_files(root) if p.name == "2026-01.json"
             and not rel.startswith("runs/")}
    history.compact(root)
    for path, data in whole.items():    # killed after writing the summaries, before removing the files
        path.write_bytes(data)
    assert history.check(root) == []
    assert any("interrupted `bench history compact`" in w for w in history.uncommitted(root))
    assert [e for e in history.load(root).entries if e["date"] < "2026-02"] == \
        [e for e in before.entries if e["date"] < "2026-02"]              # the whole month is read
    assert history.compact(root).files == len(whole)
    assert not any(p.exists() for p in whole) and history.uncommitted(root) == []


def test_an_interrupted_compression_reads_the_plain_month_and_completes(nights, tmp_path):
    """An ended month compressed whole, its plain file left beside (killed between the
    two) and a late run appended to the plain one meanwhile: the plain file is read, and
    compacting again replaces the stale compressed copy by it, losing nothing."""
    root = tmp_path / "h"
    add_results(root, nights)
    plain = {p: p.read_bytes() for p, rel in history.history_files(root) if p.name == "2026-04.json"
             and not rel.startswith("runs/")}
    assert history.compact(root).closed_months == ["2026-03", "2026-04", "2026-05"]
    for path, data in plain.items():
        path.write_bytes(data)
    assert history.check(root) == [] and any("interrupted" in w for w in history.uncommitted(root))
    april = next(f for f in nights if json.loads(f.read_text())["env"]["timestamp"].startswith("2026-04"))
    late = json.loads(april.read_text())
    late["env"]["commit"] = "d" * 40
    (tmp_path / "late.json").write_text(json.dumps(late))
    rep = add_results(root, [tmp_path / "late.json"])
    assert {f for f in rep.files_written if not f.startswith("runs/")} == \
        {p.relative_to(root).as_posix() for p in plain}          # appended to the plain file, which is read
    want = history.load(root)
    again = history.compact(root)
    assert (again.closed_files, again.files) == (len(plain), 0)
    assert not any(p.exists() for p in plain) and history.uncommitted(root) == [] and history.check(root) == []
    assert history.load(root) == want


def _git(*args, cwd=None) -> str:
    return subprocess.run(["git", *map(str, args)], cwd=cwd, capture_output=True, text=True, check=True).stdout


def _seed_branch(remote: Path, work: Path, files: list[Path]) -> None:
    """A branch of several commits whose history reaches back more than 90 days."""
    for i in range(0, len(files), 10):
        publish.publish(str(remote), "gh-pages", files[i:i + 10], compact=False, log=lambda *a: None)


def test_publish_compacts_once_and_squashes_the_branch(nights, tmp_path):
    remote = tmp_path / "pages.git"
    _seed_branch(remote, tmp_path, nights[:-1])
    assert int(_git("--git-dir", remote, "rev-list", "--count", "gh-pages")) == 3
    lines = []
    rep = publish.publish(str(remote), "gh-pages", nights[-1:], out=tmp_path / "site", jobs=1, detect=False,
                          log=lines.append)
    assert rep.pushed and any("history compacted: 2026-01, 2026-02 summarised" in ln and
                              "2026-03, 2026-04, 2026-05 kept whole, compressed" in ln for ln in lines), lines
    assert int(_git("--git-dir", remote, "rev-list", "--count", "gh-pages")) == 1   # squashed
    files = _git("--git-dir", remote, "ls-tree", "-r", "--name-only", "gh-pages").split()
    assert "history/linux/cpu/2026-01.json.xz" in files and "history/linux/cpu/2026-01.json" not in files
    # raw samples: every run of the last 90 days kept, older ones gone with the publish's own
    # commit (2026-03-01's too: the newest run is 2026-06-04)
    samples = {f.split("/")[1] for f in files if f.startswith("samples/")}
    assert samples == {"2026-03", "2026-04", "2026-05", "2026-06"}, samples
    stamps = sorted(json.loads(f.read_text())["env"]["timestamp"] for f in nights)
    cut = (datetime.fromisoformat(stamps[-1].replace("Z", "+00:00")) - timedelta(days=90)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert "2026-03-01" < cut <= "2026-03-06T02:00:00Z"   # 2026-03-06's run is 90 days old: kept
    assert sum(f.startswith("samples/") for f in files) == sum(t >= cut for t in stamps) < sum(t >= "2026-03" for t in stamps)
    pushed = _git("--git-dir", remote, "log", "-1", "--format=%B", "gh-pages")
    assert "raw samples of" not in pushed   # the squash commit says what it did
    co = tmp_path / "co"
    _git("clone", "--quiet", "--branch", "gh-pages", remote, co)
    assert history.check(co / "history") == [] and len(history.load(co / "history").runs) == len(nights)
    assert (tmp_path / "site" / "index.html").is_file()
    # a fresh site folder (a runner's) gets no columns cache; the next render into it does
    cache = tmp_path / "site" / site.COLUMNS_CACHE
    assert not cache.exists()
    publish.render_site(co, tmp_path / "site", jobs=1, detect=False)
    # each closed month's: summarised, and kept whole (keyed by its run records too)
    closed = history.load(co / "history", summaries="rows").summarised
    assert {m.month for m in closed if m.whole} == {"2026-03", "2026-04", "2026-05"}
    assert {m.month for m in closed if not m.whole} == {"2026-01", "2026-02"}
    assert sorted(p.name for p in cache.iterdir()) == \
        sorted(columns_cache.key(m.path.read_bytes(), m.runs if m.whole else None) + columns_cache.SUFFIX
               for m in closed)
    # the next publish finds nothing to compact and pushes on top of the squashed commit
    again = publish.publish(str(remote), "gh-pages", nights[-1:], log=lines.append)
    assert not again.pushed and int(_git("--git-dir", remote, "rev-list", "--count", "gh-pages")) == 1


def test_a_month_kept_whole_is_summarised_when_due_without_samples_to_say_so(nights, tmp_path):
    """The publish that finds a compressed whole month due compacts, though no plain month
    has just ended and its raw samples are gone (they expire night by night): the newest
    due month's kind is read from the branch; the night before, nothing is due."""
    remote = tmp_path / "pages.git"
    _seed_branch(remote, tmp_path, nights[:-1])
    publish.publish(str(remote), "gh-pages", nights[-1:], log=lambda *a: None)   # 2026-06-04: March kept whole
    wt = tmp_path / "wt"
    _git("clone", "--quiet", "--branch", "gh-pages", remote, wt)
    _git("rm", "-r", "-q", "samples", cwd=wt)
    _git("-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m", "no samples", cwd=wt)
    _git("push", "-q", "origin", "gh-pages", cwd=wt)
    env, lines = publish._identity_env(), []
    assert publish._compact_branch(wt, str(remote), "gh-pages", "2026-06-29T12:00:00Z", env, lines.append) is None
    assert publish._compact_branch(wt, str(remote), "gh-pages", "2026-06-30T12:00:00Z", env, lines.append)
    assert any("history compacted: 2026-03 summarised" in ln for ln in lines), lines
    blob = subprocess.run(["git", "--git-dir", str(remote), "cat-file", "blob",
                           "gh-pages:history/linux/cpu/2026-03.json.xz"], capture_output=True, check=True).stdout
    assert history_summary.peek_kind(blob) == "summary"


def test_a_compaction_never_overwrites_a_push_that_raced_it(nights, tmp_path):
    remote = tmp_path / "pages.git"
    _seed_branch(remote, tmp_path, nights[:-1])
    wt = tmp_path / "wt"
    _git("clone", "--quiet", "--branch", "gh-pages", remote, wt)
    stale = _git("rev-parse", "HEAD", cwd=wt).strip()
    publish.publish(str(remote), "gh-pages", nights[-1:], compact=False, log=lambda *a: None)   # the race
    raced = _git("--git-dir", remote, "rev-parse", "gh-pages").strip()
    lines = []
    env = publish._identity_env()
    newest = json.loads(nights[-1].read_text())["env"]["timestamp"]
    assert publish._compact_branch(wt, str(remote), "gh-pages", newest, env, lines.append) is None
    assert any("left to the next publish" in ln for ln in lines), lines
    assert _git("--git-dir", remote, "rev-parse", "gh-pages").strip() == raced != stale
    assert _git("status", "--porcelain", cwd=wt) == ""        # the work tree is back at its commit


def test_only_month_names_count_as_months_to_compact():
    from benchpipe import raw_samples
    names = ["samples/2026-01/r1.json.xz", "samples/notes/readme.txt", "samples/2026-02-x/r.json.xz",
             "samples/2026-03/deeper/r.json.xz", "samples/readme.md"]
    assert raw_samples.months(names) == {"2026-01"}
    assert [n for n in ("history/linux/cpu/2026-01.json", "history/linux/cpu/notes.json",
                        "history/linux/cpu/2026-01.json.xz", "history/linux/cpu/2026-1.json")
            if history.is_month_file(n)] == ["history/linux/cpu/2026-01.json", "history/linux/cpu/2026-01.json.xz"]
    assert history.closed_months(["2026-01", "2026-02", "2026-03"], "2026-05-30T00:00:00Z") == ["2026-01", "2026-02"]
    assert history.closed_months(["2026-02"], "2026-05-29T23:59:59Z") == []   # Feb ended 89.99 days before
    assert history.closed_months(["0000-05", "9999-12", "2026-13", "2026-00", "2026-01"],
                                 "2026-05-30T00:00:00Z") == ["2026-01"]       # never a traceback


def test_a_run_of_a_summarised_month_is_refused_by_publish_and_hides_nothing(nights, tmp_path):
    remote = tmp_path / "pages.git"
    publish.publish(str(remote), "gh-pages", nights, log=lambda *a: None)      # compacts Jan, Feb
    before = _git("--git-dir", remote, "rev-parse", "gh-pages")
    late = json.loads(nights[0].read_text())
    late["env"]["commit"] = "f" * 40
    (tmp_path / "late.json").write_text(json.dumps(late))
    with pytest.raises(BenchError, match="is summarised") as err:
        publish.publish(str(remote), "gh-pages", [tmp_path / "late.json"], log=lambda *a: None)
    assert "\n" not in str(err.value)
    assert _git("--git-dir", remote, "rev-parse", "gh-pages") == before
    files = _git("--git-dir", remote, "ls-tree", "-r", "--name-only", "gh-pages").split()
    assert "history/linux/cpu/2026-01.json" not in files


def test_a_run_dated_in_the_future_compacts_nothing(nights, tmp_path):
    remote = tmp_path / "pages.git"
    publish.publish(str(remote), "gh-pages", nights[:-1], compact=False, log=lambda *a: None)
    future = json.loads(nights[-1].read_text())
    future["env"]["timestamp"] = "2099-01-01T00:00:00Z"
    (tmp_path / "future.json").write_text(json.dumps(future))
    lines = []
    assert publish.publish(str(remote), "gh-pages", [tmp_path / "future.json"], log=lines.append).pushed
    assert any("after now" in ln and "no compaction" in ln for ln in lines), lines
    files = _git("--git-dir", remote, "ls-tree", "-r", "--name-only", "gh-pages").split()
    assert not any(f.endswith(".json.xz") and f.startswith("history/") for f in files)


def test_a_month_whose_run_records_do_not_check_is_not_summarised(nights, tmp_path):
    root = tmp_path / "h"
    add_results(root, nights)
    runs = root / "runs" / "2026-01.json"
    runs.write_text(runs.read_text().replace('"preset":"smoke"', '"preset":"smokey"', 1))
    with pytest.raises(BenchError, match="not summarised until") as err:
        history.compact(root)
    assert "\n" not in str(err.value) and (root / "linux" / "cpu" / "2026-01.json").exists()
    # in publish: one line in the log, the publish itself lands
    remote = tmp_path / "pages.git"
    publish.publish(str(remote), "gh-pages", nights[:-1], compact=False, log=lambda *a: None)
    co = tmp_path / "co"
    _git("clone", "-q", "--branch", "gh-pages", remote, co)
    bad = co / "history" / "runs" / "2026-01.json"
    bad.write_text(bad.read_text().replace('"preset":"smoke"', '"preset":"smokey"', 1))
    _git("-C", co, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "hand edit")
    _git("-C", co, "push", "-q", "origin", "gh-pages")
    lines = []
    assert publish.publish(str(remote), "gh-pages", nights[-1:], log=lines.append).pushed
    assert any(ln.startswith("publish: compaction skipped:") and "not summarised until" in ln for ln in lines), lines


def _as_rows_file(path: Path, reverse: bool = True) -> dict:
    """A summarised month rewritten as history-summary/1 wrote it: its rows on disk (the
    entry rows in another order than the columns give them)."""
    doc = history.read_doc(path)
    doc["schema"] = history_summary.SCHEMA_1
    head = [r for r in doc["rows"] if isinstance(r, dict)]
    rows = [r for r in doc["rows"] if isinstance(r, list)]
    doc["rows"] = head + (rows[::-1] if reverse else rows)
    doc["digest"] = history.digest_of(doc)
    path.write_bytes(lzma.compress(history.serialise(doc).encode()))
    return doc


def _model(root: Path) -> trends.Model:
    return trends.build(history.load(root, summaries="rows"), catalogue.load(), jobs=1)


def _same_models(a: trends.Model, b: trends.Model) -> None:
    assert list(a.series) == list(b.series) and a.regressions == b.regressions and a.latest == b.latest
    for sid, s in a.series.items():
        t = b.series[sid]
        assert (t.dates, t.commits, t.runs, t.keys, t.versus_older, t.versus_ratio, t.stats, t.last, t.metric_changepoints) == \
            (s.dates, s.commits, s.runs, s.keys, s.versus_older, s.versus_ratio, s.stats, s.last, s.metric_changepoints), sid


def test_summaries_written_as_rows_read_the_same_and_are_rewritten_as_columns_byte_for_byte(nights, tmp_path):
    """history-summary/1 (rows on disk) is read as it is, the site showing the same, and
    `bench history compact` rewrites it as columns: the very bytes compaction writes now,
    every row the same (issue 40's migration)."""
    root = tmp_path / "h"
    add_results(root, nights)
    history.compact(root)
    columns = {p: p.read_bytes() for p in _summaries(root) if history_summary.peek_kind(p.read_bytes()) == "summary"}
    assert len(columns) >= 4
    for p in columns:
        assert history_summary.is_columns(json.loads(lzma.decompress(columns[p])))
    want = _model(root)
    site.render(root, tmp_path / "site1", jobs=1)

    for p in columns:
        _as_rows_file(p)
        assert history_summary.peek_kind(p.read_bytes()) == history_summary.LEGACY
    assert history.check(root) == []
    _same_models(want, _model(root))
    site.render(root, tmp_path / "site2", jobs=1)
    assert _tree(tmp_path / "site1") == _tree(tmp_path / "site2")
    site.render(root, tmp_path / "site2", jobs=1, detect=False)   # rendered before: the columns cache is used
    # rows made columns need the run records: not kept (only the months kept whole are, keyed by theirs)
    whole = [m for m in history.load(root, summaries="rows").summarised if m.whole]
    assert sorted(p.name for p in (tmp_path / "site2" / site.COLUMNS_CACHE).glob("*")) == \
        sorted(columns_cache.key(m.path.read_bytes(), m.runs) + columns_cache.SUFFIX for m in whole)

    p = subprocess.run([str(BENCH), "history", "compact", "--history", str(root)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert f"{len(columns)} summarised month(s) of an older version (history-summary/1, /2) rewritten as /3" in p.stdout, \
        p.stdout
    assert {p: p.read_bytes() for p in columns} == columns
    assert history.check(root) == [] and history.compact(root).upgraded == 0
    _same_models(want, _model(root))


def test_summaries_with_whole_verdicts_are_rewritten_as_compaction_writes_them_now(nights, tmp_path, monkeypatch):
    """history-summary/2 (columns, every figure of every toolchain verdict) is read as it
    is and checks; `bench history compact` rewrites it as /3, the very bytes compaction
    writes now, each verdict but those of a series' newest date in the month cut to its
    metrics' ratios and verdicts, smaller; the site the same, byte for byte."""
    root, now = tmp_path / "h", tmp_path / "now"
    add_results(root, nights)
    add_results(now, nights)
    history.compact(now)
    whole = {e["run"] + e["id"]: e for e in history.load(root).entries}
    with monkeypatch.context() as m:   # as the previous version summarised: whole verdicts, labelled /2
        m.setattr(history_summary, "SCHEMA", history_summary.SCHEMA_2)
        m.setattr(history_summary, "cut_versus", lambda v: v)
        history.compact(root)
    old = [p for p in _summaries(root) if history_summary.peek_kind(p.read_bytes()) == history_summary.LEGACY]
    assert len(old) >= 4 and all(json.loads(lzma.decompress(p.read_bytes()))["schema"] == history_summary.SCHEMA_2
                                 for p in old)
    assert history.check(root) == []
    read = history.load(root)
    assert all(e["versus"] == whole[e["run"] + e["id"]]["versus"] for e in read.entries if "versus" in e)
    site.render(root, tmp_path / "site1", jobs=1)
    size_before = sum(p.stat().st_size for p in old)

    p = subprocess.run([str(BENCH), "history", "compact", "--history", str(root)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert f"{len(old)} summarised month(s) of an older version (history-summary/1, /2) rewritten as /3" in p.stdout
    assert {p.relative_to(root): p.read_bytes() for p in old} == {p.relative_to(now): p.read_bytes() for p in _summaries(now)
                                                                 if p.name in {q.name for q in old}}
    assert all(history_summary.peek_kind(p.read_bytes()) == "summary" for p in old)
    assert sum(p.stat().st_size for p in old) < 0.9 * size_before, size_before
    assert history.check(root) == [] and history.compact(root).upgraded == 0
    after = history.load(root)
    got = {e["run"] + e["id"]: e for e in after.entries}
    files: dict = {}   # the summarised entries as whole, by file (OS, scenario, month)
    for k, e in got.items():
        if "digest" not in e:
            files.setdefault((e["os"], e["key"]["scenario"], e["date"][:7]), []).append(whole[k])
    assert len(files) == len(old)
    for entries in files.values():
        assert sorted(map(history.canonical, history_summary.projections(entries))) == \
            sorted(history.canonical(got[e["run"] + e["id"]]) for e in entries)
    assert any(e.get("versus") != whole[k].get("versus") for k, e in got.items())
    site.render(root, tmp_path / "site2", jobs=1)
    assert _tree(tmp_path / "site1") == _tree(tmp_path / "site2")


def test_a_branch_of_summaries_written_as_rows_is_rewritten_by_publish_a_few_a_night(nights, tmp_path, monkeypatch):
    remote = tmp_path / "pages.git"
    _seed_branch(remote, tmp_path, nights[:-1])
    publish.publish(str(remote), "gh-pages", nights[-1:], detect=False, log=lambda *a: None)   # compacted
    wt = tmp_path / "wt"
    _git("clone", "--quiet", "--branch", "gh-pages", remote, wt)
    summaries = [p for p in _summaries(wt / "history") if history_summary.peek_kind(p.read_bytes()) == "summary"]
    want = {p: p.read_bytes() for p in summaries}
    # the older months as an older version wrote them, the newest due month's as now (it
    # was summarised after the upgrade came): publish still finds the older ones
    newest = max(p.name for p in summaries)
    assert newest == "2026-02.json.xz"
    summaries = [p for p in summaries if p.name != newest]
    for p in summaries:
        _as_rows_file(p)
    _git("-C", wt, "commit", "--quiet", "-am", "summaries as history-summary/1 wrote them")
    _git("-C", wt, "push", "--quiet", "origin", "gh-pages")
    monkeypatch.setattr(publish, "UPGRADES_PER_PUBLISH", len(summaries) - 1)
    lines = []
    for n, commit in enumerate(("c", "b")):   # two nights: all but one file, then the last (the newest month)
        later = json.loads(nights[-1].read_text())
        later["env"]["commit"] = commit * 40
        (tmp_path / "later.json").write_text(json.dumps(later))
        rep = publish.publish(str(remote), "gh-pages", [tmp_path / "later.json"], detect=False, log=lines.append)
        done = [len(summaries) - 1, 1][n]
        assert rep.pushed and any(f"{done} summarised month(s) of an older version rewritten as history-summary/3"
                                  in ln for ln in lines), lines
    _git("-C", wt, "fetch", "--quiet", "origin", "gh-pages")   # (squashed: not a descendant)
    _git("-C", wt, "reset", "--quiet", "--hard", "FETCH_HEAD")
    assert {p: p.read_bytes() for p in want} == want
    assert history.check(wt / "history") == []


def test_columns_and_rows_round_trip_whatever_a_point_says():
    """to_columns/to_rows on rows whose points lack fields, say null, say their own OS or
    date, and hold summaries, objects and odd values: the same rows back, in their order."""
    key = {"build": "go", "lang": "go", "params": {"n": 1}, "scenario": "cpu", "toolchain": "go1.26.1",
           "variant": "goroutines"}
    key2 = {**key, "params": {"n": 2}}
    rows = [{"series": 0, "id": key_id(key), "key": key, "channel": "stable"}, {"series": 1, "id": key_id(key2), "key": key2},
            ["r2", 0, {"time_s": [1.0, 0.9, 1.1, 5], "cpu_s": {"user_median": 1, "sys_median": 2}}],
            ["r1", 0, {"time_s": [2.0, 1.9, 2.1, 5], "cpu_s": {"user_median": 3}, "channel": None}],
            ["r1", 1, {"time_s": [3.0, 2.9, 3.1], "os": "macos", "warnings": ["x"], "versus": {"verdict": "faster"}}],
            ["r3", 1, {}],
            ["r3", 0, {"time_s": [4.0, 3.9, 4.1, 7], "cpu_s": {"user_median": 5, "sys_median": 6}, "date": "2026-01-02"}]]
    doc = {"schema": history_summary.SCHEMA, "kind": "summary", "os": "linux", "scenario": "cpu", "month": "2026-01",
           "count": 5, "rows": rows}
    dates = {"r1": {"date": "2026-01-01"}, "r2": {"date": "2026-01-03"}, "r3": {"date": "2026-01-02"}}
    cols = history_summary.to_columns(doc, dates)
    assert cols["runs"] == ["r1", "r3", "r2"] and cols["series"][0]["runs"] == [0, 1, 2]
    assert cols["series"][0]["fields"]["time_s"] == {"arrays": [[2.0, 4.0, 1.0], [1.9, 3.9, 0.9], [2.1, 4.1, 1.1],
                                                                [5, 7, 5]]}
    assert cols["series"][1]["fields"]["os"] == {"values": ["macos"], "rows": [0]}
    back = history_summary.to_rows(json.loads(history.canonical(cols)))
    assert back["rows"][:2] == rows[:2] and sorted(map(history.canonical, back["rows"][2:])) == \
        sorted(map(history.canonical, rows[2:]))
    assert history_summary.to_columns(back) == cols            # the rows' order is the columns'
    assert history_summary.row_at(cols, 1, 0) == rows[4]
    for bad, says in [({"runs": ["r1", "r1"]}, "$.runs"),
                      ({"series": [{**cols["series"][0], "runs": [1, 0, 2]}]}, "$.series[0].runs"),
                      ({"series": [{**cols["series"][0], "series": 1}]}, "$.series[0]: not series 0"),
                      ({"series": [{**cols["series"][0], "fields": {"run": {"values": [1, 2, 3]}}}]}, "may not be 'run'"),
                      ({"series": [{**cols["series"][0], "fields": {"x": {"values": [1], "rows": [5]}}}]}, ".x.rows"),
                      ({"series": [{**cols["series"][0], "fields": {"x": {"arrays": [[1, 2]]}}}]}, ".x.arrays"),
                      ({"series": [{**cols["series"][0], "fields": {"x": {"object": {}}}}]}, ".x.object"),
                      ({"series": [{**cols["series"][0], "fields": {"x": {"values": [1, 2, 3], "arrays": []}}}]},
                       "one of values"),
                      ({"series": [{**cols["series"][0], "id": "a"}]}, "$.series[0]: its key does not make its id"),
                      ({"series": [{**cols["series"][0], "key": {**key, "params": None}}]}, "not a benchmark key"),
                      ({"series": [{**cols["series"][0], "key": {**key, "lang": "c"}}]}, "lang is not go or rust"),
                      ({"series": [{**cols["series"][0], "channel": ["stable"]}]}, "its channel is not a name")]:
        with pytest.raises(history_summary.ColumnError, match=re.escape(says)):
            history_summary.to_rows({**cols, **bad})


def test_the_site_reads_columns_as_decode_reads_rows_whatever_a_point_says(nights, tmp_path):
    """The site's column reader (trends._month_columns) against the entries decode makes
    of the same file, on points that say their own channel (none), date and commit, a
    point of a run without a run record, and two toolchains of one channel in one month."""
    root = tmp_path / "h"
    add_results(root, nights)
    history.compact(root)
    target = root / "linux" / "sleep" / "2026-01.json.xz"
    doc = history.read_doc(target)
    entry_rows = [r for r in doc["rows"] if isinstance(r, list)]
    first = {}
    for r in entry_rows:   # a row of each of the month's runs
        first.setdefault(r[0], r)
    gone, *said = first.values()
    said[0][2]["channel"] = None
    said[1][2]["date"] = "2026-01-31T23:00:00Z"
    said[2][2]["commit"] = "a" * 40
    series_rows = [r for r in doc["rows"] if isinstance(r, dict)]
    # a second toolchain on one channel: series 1 becomes a newer release of series 0's channel
    s0 = series_rows[0]
    other = next(r for r in series_rows if r["key"]["lang"] == s0["key"]["lang"] and r["key"]["toolchain"] !=
                 s0["key"]["toolchain"] and trends.family_id(r["key"]) == trends.family_id(s0["key"]))
    other["channel"] = s0.get("channel")
    doc = history_summary.to_rows(history_summary.to_columns(doc))
    doc["digest"] = history.digest_of(doc)
    target.write_bytes(lzma.compress(history.serialise(doc).encode()))
    runs_file = root / "runs" / "2026-01.json"
    records = json.loads(runs_file.read_text())
    records["runs"] = [r for r in records["runs"] if r["run"] != gone[0]]   # a run uncommitted now
    runs_file.write_text(history.serialise(records))

    by_entries = trends.build(history.load(root), catalogue.load(), jobs=1)
    by_columns = _model(root)
    _same_models(by_entries, by_columns)
    assert any("2026-01-31T23:00:00Z" in s.dates for s in by_columns.series.values())
    assert not any(gone[0] in s.runs for s in by_columns.series.values())
    assert any("a" * 40 in s.commits for s in by_columns.series.values())


def test_a_summary_written_as_rows_that_does_not_check_is_left_and_blocks_nothing(nights, tmp_path):
    """A month written as rows beside run records that no longer check is left as it is
    (said why), and the months due are still summarised."""
    root = tmp_path / "h"
    add_results(root, nights[:24])   # to 2026-05-05: January summarised
    history.compact(root)
    jan = root / "linux" / "sleep" / "2026-01.json.xz"
    _as_rows_file(jan)
    runs_file = root / "runs" / "2026-01.json"
    records = json.loads(runs_file.read_text())
    records["runs"][0]["preset"] = "smokey"   # a hand edit: January's run records do not check
    runs_file.write_text(history.serialise(records))
    add_results(root, nights[24:])
    p = subprocess.run([str(BENCH), "history", "compact", "--history", str(root)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "(2026-02) summarised" in p.stdout and f"left as it is (read as it is): {jan}" in p.stdout, p.stdout
    assert history_summary.peek_kind(jan.read_bytes()) == history_summary.LEGACY


def test_the_column_checks_name_pattern_is_the_history_schemas():
    """history_summary checks a series' channel with a hand-written copy of the schema's
    name pattern (the schema validator is too slow for ten years of series): every
    `channel` pattern of history.schema.json must be that copy, so the two cannot drift."""
    from benchpipe import SCHEMAS
    found: list = []

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "channel" and isinstance(v, dict) and "pattern" in v:
                    found.append(v["pattern"])
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
    walk(json.loads((SCHEMAS / "history.schema.json").read_text(encoding="utf-8")))
    assert len(found) >= 2 and set(found) == {f"^{history_summary._NAME.pattern}$"}, found
    assert history_summary._NAME.fullmatch("1.25.x") and not history_summary._NAME.fullmatch("a b")


def test_the_site_keeps_each_summarised_months_columns_and_reads_them_back(nights, tmp_path, monkeypatch):
    """The site folder's columns cache (columns_cache): a render into a folder rendered
    before keeps one entry for each closed month (summarised, or kept whole), keyed by its
    file's bytes (and a whole month's run records); the next render reads every one from it
    (no xz, no JSON) and makes the same site and model; an entry that does not check (a
    flipped byte, another format, other code) is read again from the history and kept
    anew; entries no file has are pruned; one month's columns are never taken for
    another's."""
    root = tmp_path / "h"
    add_results(root, nights)
    history.compact(root)
    # each closed month's: summarised, or kept whole (keyed by its month's run records too)
    closed = history.load(root, summaries="rows").summarised
    assert sum(not m.whole for m in closed) >= 4 and any(m.whole for m in closed)
    months = [m.path for m in closed]
    keys = {m.path: columns_cache.key(m.path.read_bytes(), m.runs if m.whole else None) for m in closed}
    out = tmp_path / "site"
    site.render(root, out, jobs=1, detect=False)
    cache = out / site.COLUMNS_CACHE
    assert not cache.exists()   # a first render (a fresh runner's) writes none
    site.render(root, out, jobs=1, detect=False)
    assert sorted(p.name for p in cache.iterdir()) == sorted(k + columns_cache.SUFFIX for k in keys.values())
    first = _tree(out)
    plain = trends.build(history.load(root, summaries="rows"), catalogue.load(), jobs=1, detect=False)

    real_text_of = history.text_of

    def not_a_summary(path, data):
        assert path not in keys, f"{path} read from the history"
        return real_text_of(path, data)

    monkeypatch.setattr(history, "text_of", not_a_summary)
    series_kept = out / site.SERIES_CACHE
    assert series_kept.is_file()
    series_kept.unlink()   # (it would answer first: test_the_site_keeps_the_summarised_months_as_series)
    site.render(root, out, jobs=1, detect=False)
    assert _tree(out) == first
    cached = trends.build(history.load(root, summaries="rows"), catalogue.load(), jobs=1, detect=False,
                          columns_cache_dir=cache)
    assert list(cached.series) == list(plain.series) and cached.regressions == plain.regressions
    for sid, s in plain.series.items():
        c = cached.series[sid]
        assert (c.dates, c.commits, c.runs, c.keys, c.versus_older, c.versus_ratio, c.stats, c.last) == \
            (s.dates, s.commits, s.runs, s.keys, s.versus_older, s.versus_ratio, s.stats, s.last), sid
    monkeypatch.setattr(history, "text_of", real_text_of)

    flipped, other = (cache / (keys[p] + columns_cache.SUFFIX) for p in months[:2])
    blob = bytearray(flipped.read_bytes())
    blob[-1] ^= 1
    flipped.write_bytes(bytes(blob))
    other.write_bytes(b"bench-columns/0" + other.read_bytes()[15:])
    stale = [cache / ("0" * 64 + columns_cache.SUFFIX), cache / f".{'0' * 64}{columns_cache.SUFFIX}.x1.tmp"]
    for p in stale:
        p.write_bytes(b"")
    assert columns_cache.get(cache, keys[months[0]]) is None and columns_cache.get(cache, keys[months[1]]) is None
    series_kept.unlink()
    site.render(root, out, jobs=1, detect=False)
    assert _tree(out) == first
    assert all(columns_cache.get(cache, k) is not None for k in keys.values())
    assert not any(p.exists() for p in stale)

    # another month's columns under this month's key: not taken, the file read instead
    a, b = months[0], next(p for p in months if p.name != months[0].name)
    (cache / (keys[b] + columns_cache.SUFFIX)).write_bytes((cache / (keys[a] + columns_cache.SUFFIX)).read_bytes())
    again = trends.build(history.load(root, summaries="rows"), catalogue.load(), jobs=1, detect=False,
                         columns_cache_dir=cache)
    assert {sid: s.stats for sid, s in again.series.items()} == {sid: s.stats for sid, s in plain.series.items()}
    assert columns_cache.get(cache, keys[b])["month"] == b.name.split(".")[0]

    # entries made by other code (its checks may differ) are not used
    monkeypatch.setattr(columns_cache, "magic", lambda: b"bench-columns/1 other code\n")
    assert all(columns_cache.get(cache, k) is None for k in keys.values())


def _same_model(cached, plain) -> None:
    """The model built through the series cache is the one built without it, series by series."""
    assert list(cached.series) == list(plain.series) and cached.regressions == plain.regressions
    assert cached.latest == plain.latest
    for sid, s in plain.series.items():
        c = cached.series[sid]
        assert (c.os, c.key, c.channel, c.dates, c.commits, c.runs, c.keys, c.versus_older, c.versus_ratio, c.stats, c.last,
                c.metric_changepoints) == \
            (s.os, s.key, s.channel, s.dates, s.commits, s.runs, s.keys, s.versus_older, s.versus_ratio, s.stats, s.last,
             s.metric_changepoints), sid


def test_the_site_keeps_the_summarised_months_as_series(nights, tmp_path, monkeypatch):
    """The site folder's series cache (series_cache): a render into a folder rendered
    before keeps the series the summarised months make; the next render with the same
    months takes them from it, reading no month, and makes the same site and model as a
    build without any cache; a file that does not check, or one whose first month is
    another (its file or its run records changed), or other code, is a miss: the months
    are read again and the series kept anew."""
    root = tmp_path / "h"
    add_results(root, nights)
    history.compact(root)
    out = tmp_path / "site"
    site.render(root, out, jobs=1, detect=False)
    kept = out / site.SERIES_CACHE
    assert not kept.exists()   # a first render (a fresh runner's) writes none
    site.render(root, out, jobs=1, detect=False)
    first = _tree(out)
    hist = history.load(root, summaries="rows")
    keys = series_cache.month_keys(hist.summarised)
    assert kept.is_file() and series_cache.get(kept)["months"] == keys
    read = history.load(root, summaries="rows")
    plain = trends.build(read, catalogue.load(), jobs=1, detect=True)

    def no_month(month):
        raise AssertionError(f"{month.path} read")

    monkeypatch.setattr(trends, "_month_columns", no_month)
    site.render(root, out, jobs=1, detect=False)
    assert _tree(out) == first
    hist = history.load(root, summaries="rows")
    cached = trends.build(hist, catalogue.load(), jobs=1, detect=True, series_cache_path=kept)
    assert hist.count == read.count
    _same_model(cached, plain)
    monkeypatch.setattr(trends, "_month_columns", _REAL_MONTH_COLUMNS)

    # what a month's key is of: its file and its run records; the first month another: a miss
    months = hist.summarised
    assert series_cache.month_keys(months) == keys and len(set(keys)) == len(months)
    months[0].runs = {**months[0].runs, "extra": {"date": "x"}}
    changed = series_cache.month_keys(months)
    assert changed[0] != keys[0] and series_cache.kept_months(series_cache.get(kept), changed) == 0
    assert series_cache.kept_months(series_cache.get(kept), keys[1:]) == 0
    assert series_cache.kept_months(series_cache.get(kept), keys[:3]) == 3
    # a flipped byte, a torn file, one of another shape, other code: misses, read again and kept anew
    whole = kept.read_bytes()
    blob = bytearray(whole)
    blob[-1] ^= 1
    kept.write_bytes(bytes(blob))
    assert series_cache.get(kept) is None
    left = out / ".cache" / f".{kept.name}.x1.tmp"   # what a render killed while writing leaves
    left.write_bytes(b"x")
    left_chunk = out / ".cache" / f".{kept.stem}-1{kept.suffix}.x1.tmp"
    left_chunk.write_bytes(b"x")
    site.render(root, out, jobs=1, detect=False)
    assert _tree(out) == first and series_cache.get(kept) is not None and not left.exists() and not left_chunk.exists()
    kept.write_bytes(whole[:len(whole) // 2])
    assert series_cache.get(kept) is None
    for shape in ({"counts": [0] * len(months), "series": {"x": (1,)}, "tails": {}},   # no spans
                  {"months": keys, "counts": [0] * len(months), "ckeys": [None] * len(months), "tails": {},
                   "series": {"x": (1,)}, "spans": {"x": (b"", b"", b"")}},
                  {"months": keys[:2], "counts": [1, 2], "ckeys": [None] * 2, "tails": {},
                   "series": {"x": ("linux", {}, "c", [], [], [], [], [], [], {})},   # fewer points than its spans say
                   "spans": {"x": tuple(array("q", [v]).tobytes() for v in (1, 5, 1))}},
                  {"months": [], "counts": [], "ckeys": [], "spans": {}, "series": {"x": ()}, "tails": {}}):
        series_cache.put(kept, [{"prev": series_cache.prev_id([]), **shape}], 0)
        site.render(root, out, jobs=1, detect=False)
        assert _tree(out) == first and series_cache.get(kept)["series"].keys() == plain.series.keys()
    monkeypatch.setattr(series_cache, "_start", lambda: b"bench-series/1 other code\n")
    assert series_cache.get(kept) is None


def test_the_series_cache_is_kept_in_chunks_of_calendar_months(monkeypatch):
    """series_cache.chunks: a chunk starts at each month of another stretch of
    CHUNK_MONTHS calendar months (a year), over the turn of a year too; a name that is not
    a month's is a stretch of its own."""
    names = ["2025-11", "2025-12", "2025-12", "2026-01", "2026-01", "2027-03"]
    assert series_cache.chunks(names) == [0, 3, 5] and series_cache.chunks([]) == []
    assert series_cache.chunks(["2026-01", "x", "x", "2026-01"]) == [0, 1, 3]
    monkeypatch.setattr(series_cache, "CHUNK_MONTHS", 2)
    assert series_cache.chunks(names) == [0, 3, 5]
    monkeypatch.setattr(series_cache, "CHUNK_MONTHS", 1)
    assert series_cache.chunks(names) == [0, 1, 3, 5]


def test_the_chunks_written_again_are_those_from_the_first_that_changed():
    """series_cache.first_to_write: the chunks before the first changed month stand where
    their bounds are as kept; one with a changed month, one of other bounds, one not kept
    and the last are written again; with nothing kept, all of them."""
    kept = {"starts": [0, 3, 5], "months": [b""] * 7}
    assert series_cache.first_to_write(kept, [0, 3, 5], 7, 6) == 2      # the last: its newest points
    assert series_cache.first_to_write(kept, [0, 3, 5], 7, 7) == 2      # (called only where something changed)
    assert series_cache.first_to_write(kept, [0, 3, 5], 8, 7) == 2      # a month added to the last
    assert series_cache.first_to_write(kept, [0, 3, 5, 7], 8, 7) == 3   # a chunk begun: those kept stand
    assert series_cache.first_to_write(kept, [0, 3, 5], 7, 4) == 1      # a month of the second changed
    assert series_cache.first_to_write(kept, [0, 2, 5], 7, 6) == 0      # other bounds from the first
    assert series_cache.first_to_write(kept, [0, 3, 6], 7, 6) == 1
    assert series_cache.first_to_write({"starts": [0], "months": [b""] * 3}, [0, 3], 5, 3) == 1
    assert series_cache.first_to_write(None, [0, 3, 5], 7, 0) == 0
    assert series_cache.first_to_write(kept, [0], 2, 0) == 0


def test_the_series_of_the_months_before_the_first_that_changed_are_kept(nights, tmp_path, monkeypatch):
    """The two nights a month that change the closed months (one is summarised, one is
    closed): the series cache is cut back to the months before the first that changed,
    and only the months from there on are read (and, of a month before, only where a
    series' newest point before them lies); the model, the site and the cache written are
    those a render without any cache makes; the columns cache keeps the entries of the
    months not read."""
    monkeypatch.setattr(series_cache, "CHUNK_MONTHS", 2)   # chunks of two months: Jan-Feb, Mar-Apr, May-Jun
    root = tmp_path / "h"
    add_results(root, nights)
    history.compact(root)
    out = tmp_path / "site"
    for _ in range(2):   # (a first render, a fresh runner's, writes no cache)
        site.render(root, out, jobs=1, detect=False)
    kept = out / site.SERIES_CACHE
    before = series_cache.get(kept)
    assert before is not None

    def chunk_files():
        return {p.name: p.read_bytes() for p in kept.parent.glob("series*.marshal")}

    kept_bytes = chunk_files()
    assert sorted(kept_bytes) == ["series-1.marshal", "series-2.marshal", "series.marshal"]
    # compaction summarises March (kept whole until now) and closes June
    assert history.compact(root, newest="2026-07-15T00:00:00Z").months == ["2026-03"]
    cat = catalogue.load()
    plain_hist = history.load(root, summaries="rows")
    plain = trends.build(plain_hist, cat, jobs=1, detect=True)
    fresh = tmp_path / "fresh.marshal"
    trends.build(history.load(root, summaries="rows"), cat, jobs=1, detect=True, series_cache_path=fresh)
    months = [m.month for m in plain_hist.summarised]
    assert months[-1] == "2026-06" and "2026-01" in months
    first = months.index("2026-03")
    assert series_cache.kept_months(before, series_cache.month_keys(plain_hist.summarised)) == first

    # a cache whose CRC checks but whose content is not what a render writes: a miss, never
    # an exception, a month read that is not one of those kept, or a wrong model
    keys = series_cache.month_keys(plain_hist.summarised)
    assert trends._kept_series(marshal.loads(marshal.dumps(before)), keys, history.load(root, summaries="rows").summarised)
    crossing = next(sid for sid, sp in before["spans"].items()   # a series with points before and after the cut
                    if array("q", sp[0])[0] < first <= array("q", sp[0])[-1])

    def spans(sid, at=None, count_at=None, tail_at=None):
        def set_(doc):
            old = [array("q", b) for b in doc["spans"][sid]]
            doc["spans"][sid] = tuple((array("q", new) if new is not None else a).tobytes()
                                      for a, new in zip(old, (at, count_at, tail_at)))
        return set_

    def at_of(sid):
        return list(array("q", before["spans"][sid][0]))

    n_at = len(at_of(crossing))
    assert bisect.bisect_left(at_of(crossing), first) >= 2   # (so that each corruption below is one of kept months)
    bad = [spans(crossing, tail_at=[7777] * n_at),   # a month that is not one of its own (or past the cut)
           spans(crossing, tail_at=[at_of(crossing)[0]] + [-1] * (n_at - 1)),
           spans(crossing, at=[at_of(crossing)[1], at_of(crossing)[0], *at_of(crossing)[2:]]),   # months not in order
           spans(crossing, count_at=[1] * n_at),   # counts that do not rise
           lambda doc: doc.update(tails={sid: None for sid in doc["tails"]}),
           lambda doc: doc.update(counts="a" * len(doc["counts"])),
           lambda doc: doc.update(counts=set(doc["counts"])),
           lambda doc: doc.update(ckeys=[[1]] + doc["ckeys"][1:]),
           lambda doc: doc["series"][crossing][-1].popitem()]   # a metric missing
    for corrupt in bad:
        doc = marshal.loads(marshal.dumps(before))
        corrupt(doc)
        assert trends._kept_series(doc, keys, history.load(root, summaries="rows").summarised) is None, corrupt
    doc = marshal.loads(marshal.dumps(before))   # all months the same: a series' column longer than it is
    name, col = next(iter(doc["series"][crossing][-1].items()))
    doc["series"][crossing][-1][name] = [*col[:-1], col[-1] + 1 if type(col[-1]) is int
                                         else tuple(b + bytes(8) for b in col[-1])]
    assert trends._kept_series(doc, doc["months"], history.load(root, summaries="rows").summarised) is None
    doc = marshal.loads(marshal.dumps(before))
    bad[0](doc)
    series_cache.put(fresh, [{   # and through a build (as one chunk): the model a build without any cache makes
        **doc, "prev": series_cache.prev_id([]),
        "series": {sid: (*cols[:-1], {name: StatColumn.frombytes(parts).tobytes() for name, parts in cols[-1].items()})
                   for sid, cols in doc["series"].items()}}], 0)
    _same_model(trends.build(history.load(root, summaries="rows"), cat, jobs=1, detect=True, series_cache_path=fresh),
                plain)
    fresh.unlink()
    trends.build(history.load(root, summaries="rows"), cat, jobs=1, detect=True, series_cache_path=fresh)

    read: list[str] = []

    def spy(month):
        read.append(month.month)
        return _REAL_MONTH_COLUMNS(month)

    monkeypatch.setattr(trends, "_month_columns", spy)
    hist = history.load(root, summaries="rows")
    cached = trends.build(hist, cat, jobs=1, detect=True, series_cache_path=kept)
    assert sorted(read) == sorted(["2026-02"] * months.count("2026-02") + months[first:]), read   # February: tails only
    assert [m.count for m in hist.summarised] == [m.count for m in plain_hist.summarised]
    _same_model(cached, plain)
    # the chunks from March's on are written again; January and February's stands as kept
    now = chunk_files()
    assert now["series.marshal"] == kept_bytes["series.marshal"]
    assert now["series-1.marshal"] != kept_bytes["series-1.marshal"] and now["series-2.marshal"] != kept_bytes["series-2.marshal"]
    # a render killed between two chunks left a chain without the newest points: a miss
    (kept.parent / "series-2.marshal").write_bytes(kept_bytes["series-2.marshal"])
    assert series_cache.get(kept) is None
    (kept.parent / "series-2.marshal").write_bytes(now["series-2.marshal"])
    assert series_cache.get(kept) is not None
    written, made = series_cache.get(kept), series_cache.get(fresh)
    # what a render without a cache keeps (but the columns cache's keys, of months read through one)
    assert written.pop("ckeys")[:first] == before["ckeys"][:first] and made.pop("ckeys") == [None] * len(months)
    assert written == made and list(written["series"]) == list(made["series"])
    # a series whose newest point lies in a month kept takes it from the cache: Go's cpu, until February
    assert any(s.last["date"] < "2026-03" for s in plain.series.values())

    # through the site, with the columns cache: the same site as a render from nothing, and
    # the entries of the months not read are kept
    for name, blob in kept_bytes.items():
        (kept.parent / name).write_bytes(blob)
    read.clear()
    site.render(root, out, jobs=1, detect=False)
    assert "2026-01" not in read and len(read) < len(months)
    fresh_site = tmp_path / "site-fresh"
    site.render(root, fresh_site, jobs=1, detect=False)
    assert _tree(out) == _tree(fresh_site)
    columns = {m.path: columns_cache.key(m.path.read_bytes(), m.runs if m.whole else None) for m in hist.summarised}
    assert sorted(p.name for p in (out / site.COLUMNS_CACHE).iterdir()) == \
        sorted(k + columns_cache.SUFFIX for k in columns.values())
    read.clear()
    site.render(root, out, jobs=1, detect=False)   # and the next night reads no month
    assert read == [] and _tree(out) == _tree(fresh_site)


def test_the_site_keeps_the_closed_months_kinds_by_their_digests(nights, tmp_path, monkeypatch):
    """The site folder's kinds cache (kinds_cache): load peeks at each closed month's file
    once; a later load with the cache takes every kind from it by the file's digest and
    peeks at none, gives the same months as one without a cache, and hands the digests
    on to the series cache's key (the same key); a file compaction rewrote is peeked at
    again, and only it; a cache that does not check is a miss, peeked at anew."""
    root = tmp_path / "h"
    add_results(root, nights)
    history.compact(root)
    closed = _summaries(root)
    assert len(closed) == 10   # two scenarios, January to May
    peeked: list[bytes] = []
    real_peek = history_summary.peek_kind
    monkeypatch.setattr(history_summary, "peek_kind", lambda data: peeked.append(data) or real_peek(data))
    kinds = tmp_path / "site" / site.LOAD_CACHE / kinds_cache.NAME

    def months(path):
        peeked.clear()
        hist = history.load(root, summaries="rows", cache=path and path.parent)
        return [(m.path, m.month, m.whole) for m in hist.summarised], len(peeked), hist

    plain, n, bare = months(None)
    assert n == 10 and {w for *_, w in plain} == {True, False}
    first, n, hist = months(kinds)
    assert first == plain and n == 10 and kinds.is_file()
    assert kinds_cache.read(kinds) == {hashlib.sha256(p.read_bytes()).digest(): real_peek(p.read_bytes()) for p in closed}
    again, n, hist = months(kinds)
    assert again == plain and n == 0   # every kind from the cache
    assert all(m.digest == hashlib.sha256(m.path.read_bytes()).digest() for m in hist.summarised)
    assert series_cache.month_keys(hist.summarised) == series_cache.month_keys(bare.summarised)   # read or handed on: one key
    assert hist.summarised == bare.summarised   # (the digest is not part of what a month is)

    # compaction summarises March (kept whole until now) and closes June: only the new files are peeked at
    assert history.compact(root, newest="2026-07-15T00:00:00Z").months == ["2026-03"]
    later, n, _ = months(kinds)
    assert n == 4 and later == months(None)[0] and {w for p, _, w in later if p.name == "2026-03.json.xz"} == {False}
    assert len(later) == 12 and len(kinds_cache.read(kinds)) == 12   # the replaced files' digests are gone
    # the site keeps it in its folder (from its second render, as its other caches)
    out = tmp_path / "site2"
    site.render(root, out, jobs=1, detect=False)
    site.render(root, out, jobs=1, detect=False)
    assert kinds_cache.read(out / site.LOAD_CACHE / kinds_cache.NAME) == kinds_cache.read(kinds)

    # a cache that does not check (a flipped byte, another code's) is a miss: every file peeked at, kept anew
    blob = bytearray(kinds.read_bytes())
    blob[-1] ^= 1
    kinds.write_bytes(bytes(blob))
    assert kinds_cache.read(kinds) == {}
    assert months(kinds)[1] == 12 and months(kinds)[1] == 0
    monkeypatch.setattr(kinds_cache, "_start", lambda: b"bench-kinds/1 other code\n")
    assert kinds_cache.read(kinds) == {} and months(kinds)[1] == 12


def _entries(root: Path, cache: Path | None):
    """The entries load gives, and which open months' files it read whole."""
    whole: list[Path] = []
    real = history.read_doc
    history.read_doc = lambda path: whole.append(path) or real(path)
    try:
        hist = history.load(root, summaries="rows", cache=cache)
    finally:
        history.read_doc = real
    return hist.entries, {p.relative_to(root).as_posix() for p in whole if p.parent.name != "runs"}


def _open_files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*.json") if p.parent.name != "runs"}


def test_the_site_keeps_the_open_months_entries_and_parses_only_rows_appended(nights, tmp_path):
    """The site folder's entries cache (entries_cache): a load with it keeps each open
    month's entries; after more nights are appended, the next load parses only the rows
    after the kept bytes and gives the entries a load without any cache gives. Wherever
    what was kept no longer stands (a run record edited, a run's record that was missing
    now there, a file rewritten, rows appended by hand in another layout or declaring a
    series again, a damaged cache), the file is read whole, with the same entries."""
    root, cache = tmp_path / "h", tmp_path / "cache"
    add_results(root, nights[:20])
    plain, _ = _entries(root, None)
    first, whole = _entries(root, cache)   # (no record yet: every file read whole, and kept)
    assert first == plain and len(whole) == len(_open_files(root)) > 0
    kept = entries_cache.read(cache / entries_cache.NAME)
    assert set(kept) == _open_files(root)
    add_results(root, nights[20:25])
    grown = {rel for rel in kept if (root / rel).stat().st_size > kept[rel]["size"] + 4}
    assert grown   # April's files had rows appended (and May's are new)
    plain, _ = _entries(root, None)
    left = cache / f".{entries_cache.NAME}.x1.tmp"   # what a render killed while writing leaves
    left.write_bytes(b"x")
    got, whole = _entries(root, cache)
    assert got == plain and len(got) > len(first) and whole == _open_files(root) - set(kept) != set()
    assert not left.exists()
    written = (cache / entries_cache.NAME).stat().st_ino
    again, whole = _entries(root, cache)
    assert again == plain and whole == set()   # (nothing appended: nothing parsed whole, nor written)
    assert (cache / entries_cache.NAME).stat().st_ino == written

    def same_after(change, reread: set[str], layout: bool = True):
        change()
        plain, _ = _entries(root, None)
        got, whole = _entries(root, cache)
        assert got == plain and whole >= reread, (whole, reread)
        # kept anew; a file not in the history's own layout is never kept (read whole each time)
        assert _entries(root, cache) == (plain, set() if layout else reread)

    april = root / "linux" / "sleep" / "2026-04.json"
    runs = root / "runs" / "2026-04.json"
    doc = json.loads(runs.read_text())

    def edit_runner():   # a run record edited (its digest made again): April's entries say the new runner
        doc["runs"][0]["runner"] = "renamed-runner"
        doc["runs"][0]["digest"] = history.digest_of(doc["runs"][0])
        runs.write_text(history.serialise(doc))
    same_after(edit_runner, {"linux/sleep/2026-04.json"})
    assert any(e["runner"] == "renamed-runner" for e in _entries(root, cache)[0])

    gone = doc["runs"].pop()
    runs.write_text(history.serialise(doc))   # a run without its record: its rows are left out ...
    plain, _ = _entries(root, None)
    assert _entries(root, cache)[0] == plain and all(e["run"] != gone["run"] for e in plain)
    same_after(lambda: (doc["runs"].append(gone), runs.write_text(history.serialise(doc))), {"linux/sleep/2026-04.json"})  # ... and back
    assert any(e["run"] == gone["run"] for e in _entries(root, cache)[0])

    text = april.read_text()
    rows = json.loads(text)["rows"]
    row = next(r for r in rows if isinstance(r, list))
    spaced = text[:text.rindex("\n]}")] + ",\n" + json.dumps(row) + "\n]}\n"   # appended by hand, json.dumps' spacing
    same_after(lambda: april.write_text(spaced.replace(row[0], "r-hand-made")), {"linux/sleep/2026-04.json"}, False)
    series = next(r for r in rows if isinstance(r, dict))
    again_declared = {**series, "id": series["id"] + "-other"}   # series 0 declared again, under another id
    same_after(lambda: april.write_text(text[:text.rindex("\n]}")] + ",\n" + history.canonical(again_declared)
                                        + "\n]}\n"), {"linux/sleep/2026-04.json"})
    same_after(lambda: april.write_text(text), {"linux/sleep/2026-04.json"})   # rewritten (shorter): not its kept start
    # a row taken away by hand, its comma left: not JSON with the cache either, the same one line
    for tail in (",\n]}\n", ",\n\n]}\n"):
        april.write_text(text[:text.rindex("\n]}")] + tail)
        errors = []
        for where in (None, cache):
            with pytest.raises(BenchError) as err:
                history.load(root, summaries="rows", cache=where)
            errors.append(str(err.value))
        assert errors[0] == errors[1] and "not JSON" in errors[0], errors
    april.write_text(text)
    blob = bytearray((cache / entries_cache.NAME).read_bytes())
    blob[-1] ^= 1
    (cache / entries_cache.NAME).write_bytes(bytes(blob))
    assert entries_cache.read(cache / entries_cache.NAME) == {}
    same_after(lambda: None, _open_files(root))



@pytest.mark.parametrize("schema, rows, runs, kind", [
    (history_summary.SCHEMA, False, 3, "summary"),
    (history_summary.SCHEMA, False, 500, "summary"),      # its schema said past the first 4 KiB
    (history_summary.SCHEMA, False, 0, "summary"),
    (history_summary.SCHEMA_2, False, 3, history_summary.LEGACY),
    (history_summary.SCHEMA_2, False, 500, history_summary.LEGACY),
    (history_summary.SCHEMA_1, True, 3, history_summary.LEGACY),
    (history_summary.SCHEMA, False, 1000, None),          # past what is peeked at: the file is read
    ("gorust-bench.history-summary/9", False, 3, None),
])
def test_the_start_of_a_summary_tells_its_version(schema, rows, runs, kind):
    doc = {"count": 1, "digest": "ab", "kind": "summary", "month": "2026-01", "os": "linux", "scenario": "cpu",
           "schema": schema, **({"rows": []} if rows else {"runs": [f"r{i:020d}" for i in range(runs)], "series": []})}
    text = history.serialise(doc) if rows else history.canonical(doc)   # as each version wrote it
    assert history_summary.peek_kind(lzma.compress(text.encode(), format=lzma.FORMAT_XZ)) == kind


def test_months_kept_whole_are_read_as_columns_and_the_site_is_the_same(tmp_path, monkeypatch):
    """A closed month kept whole (the last 90 days, compressed) is read by the site as the
    columns of the summarised month compaction would make of it, and cached as such: the
    model is the one every entry read whole makes, its series' newest points whole
    entries (a series that ended in such a month included); the next render reads no
    whole month from the history; a month whose run records changed (a run no longer
    committed) is read again, not taken from the cache."""
    keys = synthetic.keys_for("smoke", scenarios=["sleep"],
                              toolchains={"go": synthetic.GO_TOOLCHAINS, "rust": synthetic.RUST_TOOLCHAINS})
    files = []
    for i in range(30):   # 2026-01-10 to 2026-06-03; Go's series end on 2026-04-10
        day = 5 * i
        doc = synthetic.results_doc([k for k in keys if day < 95 or k["lang"] != "go"], commit=f"{day:040x}",
                                    timestamp=START + timedelta(days=day), runs=5, seed=day)
        files.append(tmp_path / f"night{day:03d}.json")
        files[-1].write_text(json.dumps(doc))
    root = tmp_path / "h"
    add_results(root, files)
    history.compact(root)
    closed = history.load(root, summaries="rows").summarised
    assert [(m.month, m.whole) for m in closed] == [("2026-01", False), ("2026-02", False), ("2026-03", True),
                                                   ("2026-04", True), ("2026-05", True)]
    rows = history.load(root, summaries="rows")
    assert {e["date"][:7] for e in rows.entries} == {"2026-06"}   # only the open month's entries
    want = trends.build(history.load(root), catalogue.load(), jobs=1)   # every entry read whole
    got = trends.build(rows, catalogue.load(), jobs=1)
    _same_models(want, got)
    assert rows.count == len(history.load(root).entries)
    ended = [s for s in got.series.values() if s.dates[-1].startswith("2026-04")]
    assert ended and all(s.key["lang"] == "go" and "digest" in s.last and "stddev" in s.last["time_s"]
                                   for s in ended)

    out = tmp_path / "site"
    site.render(root, out, jobs=1)
    site.render(root, out, jobs=1)   # rendered before: the columns are kept
    first = _tree(out)
    real_text_of = history.text_of
    whole = {m.path for m in closed if m.whole}

    def not_whole(path, data):
        assert path not in whole, f"{path} read from the history"
        return real_text_of(path, data)

    monkeypatch.setattr(history, "text_of", not_whole)
    (out / site.SERIES_CACHE).unlink()
    site.render(root, out, jobs=1)
    assert _tree(out) == first
    monkeypatch.setattr(history, "text_of", real_text_of)

    # Go's last run (2026-04-10) no longer committed (as a killed `add` leaves it): its
    # points go from the site as from a build that reads every entry, though April's file
    # is the same, and Go's newest points are its runs of 2026-04-05, whole
    runs_file = root / "runs" / "2026-04.json"
    doc = json.loads(runs_file.read_text())
    doc["runs"] = [r for r in doc["runs"] if r["commit"] != f"{90:040x}"]
    runs_file.write_text(history.serialise(doc))
    (out / site.SERIES_CACHE).unlink()
    site.render(root, out, jobs=1)
    want = trends.build(history.load(root), catalogue.load(), jobs=1)
    _same_models(want, trends.build(history.load(root, summaries="rows"), catalogue.load(), jobs=1,
                                    columns_cache_dir=out / site.COLUMNS_CACHE))
    assert _tree(out) != first
    assert all(s.dates[-1].startswith("2026-04-05") and "digest" in s.last
               for s in want.series.values() if s.key["lang"] == "go")
