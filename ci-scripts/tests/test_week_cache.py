"""The trend charts' weekly points kept in the site folder (benchpipe.week_cache, issue
40): a render that uses them writes the same data files as one that takes every week
again, a night later and after a late run that lands in an old week too; the file is
rewritten only when a week completes; a damaged file is a miss, not an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchpipe import charts, columns_cache, history, site, trends, week_cache
from devtools import synthetic

# more nights than charts.THIN_DAYS: the oldest are drawn a point a week
DAYS = charts.THIN_DAYS + 60


@pytest.fixture(scope="module")
def nights():
    keys = synthetic.keys_for("smoke", scenarios=["cpu"])[:3]
    return list(synthetic.nightly(DAYS + 9, keys, oses=("linux",), records=False))


def _model(root: Path) -> trends.Model:
    from benchpipe import catalogue
    return trends.build(history.load(root), catalogue.load(), detect=False)


def _data(model: trends.Model, datadir: Path, cache: Path | None) -> dict[str, str]:
    datadir.mkdir(parents=True, exist_ok=True)
    made = charts.trend_charts(model, datadir, week_cache=cache)
    assert made
    return {p.name: p.read_text() for p in sorted(datadir.glob("*.dat"))}


def test_kept_weeks_give_the_same_data_files_night_after_night(tmp_path, nights, monkeypatch):
    point_stats = charts._point_stats
    root, cache = tmp_path / "h", tmp_path / "site" / ".cache" / week_cache.NAME
    history.add(root, [("n", d) for d in nights[:DAYS]])
    model = _model(root)
    cold = _data(model, tmp_path / "cold", None)
    assert any(len(text.split("\n\n\n")[0].splitlines()) < DAYS for text in cold.values())   # weeks drawn
    assert not cache.exists()
    assert _data(model, tmp_path / "first", cache) == cold   # takes the weeks, keeps them
    written = cache.stat().st_mtime_ns
    kept = week_cache.WeekCache(cache, tuple(m.name for m in charts.trended()))
    assert kept.kept and not kept.used
    assert _data(model, tmp_path / "again", cache) == cold    # from the kept weeks
    assert cache.stat().st_mtime_ns == written                # nothing new: not rewritten
    # each of the next nights: the same as taking every week again, only the week at the
    # edge (and one that completed) taken, and the file rewritten only on the nights a
    # week completed
    taken = []
    monkeypatch.setattr(charts, "_point_stats", lambda *a: taken.append(1) or point_stats(*a))
    rewrites = 0
    for n in range(DAYS, DAYS + 9):
        history.add(root, [("n", nights[n])])
        model = _model(root)
        before = cache.stat().st_mtime_ns
        taken.clear()
        kept_data = _data(model, tmp_path / f"night{n}", cache)
        assert 0 < len(taken) <= 2 * len(model.series) * len(charts.trended())
        assert kept_data == _data(model, tmp_path / f"cold{n}", None)
        rewrites += cache.stat().st_mtime_ns != before
    assert 1 <= rewrites <= 2


def test_a_late_run_in_an_old_week_is_a_miss_not_a_stale_point(tmp_path, nights):
    root, cache = tmp_path / "h", tmp_path / ".cache" / week_cache.NAME
    late = nights[10]   # left out, then published late: it lands in an old, kept week
    history.add(root, [("n", d) for d in nights[:DAYS] if d is not late])
    _data(_model(root), tmp_path / "first", cache)
    history.add(root, [("late", late)])
    model = _model(root)
    assert _data(model, tmp_path / "kept", cache) == _data(model, tmp_path / "cold", None)


def test_a_damaged_file_is_a_miss(tmp_path, nights):
    root, cache = tmp_path / "h", tmp_path / ".cache" / week_cache.NAME
    history.add(root, [("n", d) for d in nights[:DAYS]])
    model = _model(root)
    cold = _data(model, tmp_path / "cold", None)
    _data(model, tmp_path / "first", cache)
    blob = bytearray(cache.read_bytes())
    blob[-5] ^= 0xFF   # a byte of the payload: its digest no longer checks
    cache.write_bytes(bytes(blob))
    assert columns_cache.read_framed(cache, week_cache._start(tuple(m.name for m in charts.trended()))) is None
    assert _data(model, tmp_path / "damaged", cache) == cold
    assert week_cache.WeekCache(cache, tuple(m.name for m in charts.trended())).kept   # written anew


def test_a_site_folder_keeps_the_weeks_from_its_second_render(tmp_path, nights):
    root, out = tmp_path / "h", tmp_path / "site"
    history.add(root, [("n", d) for d in nights[:DAYS]])
    site.render(root, out, detect=False, jobs=1)
    assert not (out / site.WEEK_CACHE).exists()   # a fresh folder (a hosted runner's) keeps none
    first = {p.relative_to(out): p.read_bytes() for p in (out / "charts").rglob("*") if p.is_file()}
    site.render(root, out, detect=False, jobs=1)
    assert (out / site.WEEK_CACHE).is_file()
    site.render(root, out, detect=False, jobs=1)
    assert {p.relative_to(out): p.read_bytes() for p in (out / "charts").rglob("*") if p.is_file()} == first
