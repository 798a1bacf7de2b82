"""The trend charts' rows kept in the site folder (benchpipe.trend_cache, issue 40): a
render that uses them writes the same data files as one that makes every row again, a
night later and after a late run that lands in an old week too; a night makes only the
rows of its new points and the week at the edge (and, the night the months' end moves on,
the month that was weeks); the weeks' file is rewritten only when
a week completes; a damaged file is a miss, not an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchpipe import catalogue, charts, columns_cache, history, site, trend_cache, trends
from devtools import synthetic

# more nights than charts.THIN_DAYS + WEEK_DAYS: the oldest are drawn a point a month, the
# next a point a week; and the months' end moves on (to 2026-02-01) on the 5th of the 9
# nights the first test adds
DAYS = charts.THIN_DAYS + charts.WEEK_DAYS + 88
METRICS = tuple(m.name for m in charts.trended())


@pytest.fixture(scope="module")
def nights():
    keys = synthetic.keys_for("smoke", scenarios=["cpu"])[:3]
    return list(synthetic.nightly(DAYS + 9, keys, oses=("linux",), records=False))


def _model(root: Path) -> trends.Model:
    return trends.build(history.load(root), catalogue.load(), detect=False)


def _data(model: trends.Model, datadir: Path, kept: Path | None) -> dict[str, str]:
    datadir.mkdir(parents=True, exist_ok=True)
    assert charts.trend_charts(model, datadir, kept=kept)
    return {p.name: p.read_text() for p in sorted(datadir.glob("*.dat"))}


def _stamp(folder: Path) -> tuple[int, int]:
    return tuple((folder / name).stat().st_mtime_ns for name in (trend_cache.WEEKS, trend_cache.DAYS))


def test_kept_rows_give_the_same_data_files_night_after_night(tmp_path, nights, monkeypatch):
    root, kept = tmp_path / "h", tmp_path / "site" / ".cache"
    history.add(root, [("n", d) for d in nights[:DAYS]])
    model = _model(root)
    cold = _data(model, tmp_path / "cold", None)
    assert any(len(text.split("\n\n\n")[0].splitlines()) < DAYS for text in cold.values())   # weeks drawn
    assert _data(model, tmp_path / "first", kept) == cold   # makes the rows, keeps them
    written = _stamp(kept)
    cache = trend_cache.TrendCache(kept, METRICS)
    assert cache.weeks.kept and cache.days.kept
    assert _data(model, tmp_path / "again", kept) == cold    # from the kept rows
    assert _stamp(kept) == written                           # nothing new: neither file rewritten
    # each of the next nights: the same as making every row again; only the week at the
    # edge, a week that completed and the new night made; the weeks' file rewritten only
    # on the nights a week completed, the days' every night
    point_stats, row = charts._point_stats, charts._row
    taken, made = [], []
    monkeypatch.setattr(charts, "_point_stats", lambda *a: taken.append(1) or point_stats(*a))
    monkeypatch.setattr(charts, "_row", lambda *a: made.append(1) or row(*a))
    rewrites, months = 0, []
    for n in range(DAYS, DAYS + 9):
        history.add(root, [("n", nights[n])])
        model = _model(root)
        before = _stamp(kept)
        taken.clear()
        made.clear()
        got = _data(model, tmp_path / f"night{n}", kept)
        months.append(charts._weeks(next(iter(model.series.values())).dates)[3])
        if len(months) == 1 or months[-1] == months[-2]:
            assert 0 < len(taken) <= 2 * len(model.series) * len(METRICS)
            assert 0 < len(made) <= 3 * len(model.series)
        else:   # the night the months' end moves on: only the month that was weeks, the
            # week its end cuts, the week at the edge (and one that completed) are made again
            assert 0 < len(taken) <= 4 * len(model.series) * len(METRICS), (n, months, len(taken))
        monkeypatch.setattr(charts, "_row", row)
        assert got == _data(model, tmp_path / f"cold{n}", None)
        monkeypatch.setattr(charts, "_row", lambda *a: made.append(1) or row(*a))
        now = _stamp(kept)
        rewrites += now[0] != before[0]
        assert now[1] != before[1]
    assert months[0] == months[3] < months[4] == months[-1]   # (as the nights were chosen)
    assert 2 <= rewrites <= 3


def test_a_late_run_in_an_old_week_is_a_miss_not_a_stale_row(tmp_path, nights):
    root, kept = tmp_path / "h", tmp_path / ".cache"
    late = nights[10]   # left out, then published late: it lands in an old, kept week
    history.add(root, [("n", d) for d in nights[:DAYS] if d is not late])
    _data(_model(root), tmp_path / "first", kept)
    history.add(root, [("late", late)])
    model = _model(root)
    assert _data(model, tmp_path / "kept", kept) == _data(model, tmp_path / "cold", None)


def test_a_late_run_in_the_newest_year_is_a_miss_not_a_stale_row(tmp_path, nights):
    root, kept = tmp_path / "h", tmp_path / ".cache"
    late = nights[DAYS - 20]   # drawn alone: the rows after it move along
    history.add(root, [("n", d) for d in nights[:DAYS] if d is not late])
    _data(_model(root), tmp_path / "first", kept)
    history.add(root, [("late", late)])
    model = _model(root)
    assert _data(model, tmp_path / "kept", kept) == _data(model, tmp_path / "cold", None)


@pytest.mark.parametrize("name", [trend_cache.WEEKS, trend_cache.DAYS])
def test_a_damaged_file_is_a_miss(tmp_path, nights, name):
    root, kept = tmp_path / "h", tmp_path / ".cache"
    history.add(root, [("n", d) for d in nights[:DAYS]])
    model = _model(root)
    cold = _data(model, tmp_path / "cold", None)
    _data(model, tmp_path / "first", kept)
    blob = bytearray((kept / name).read_bytes())
    blob[-5] ^= 0xFF   # a byte of the payload: its digest no longer checks
    (kept / name).write_bytes(bytes(blob))
    kind = "weeks" if name == trend_cache.WEEKS else "days"
    assert columns_cache.read_framed(kept / name, trend_cache._start(kind, METRICS)) is None
    assert _data(model, tmp_path / "damaged", kept) == cold
    assert columns_cache.read_framed(kept / name, trend_cache._start(kind, METRICS))   # written anew


def test_a_site_folder_keeps_the_rows_from_its_second_render(tmp_path, nights):
    root, out = tmp_path / "h", tmp_path / "site"
    history.add(root, [("n", d) for d in nights[:DAYS]])
    site.render(root, out, detect=False, jobs=1)
    assert not (out / site.TREND_CACHE / trend_cache.WEEKS).exists()   # a fresh folder (a hosted runner's) keeps none
    first = {p.relative_to(out): p.read_bytes() for p in (out / "charts").rglob("*") if p.is_file()}
    site.render(root, out, detect=False, jobs=1)
    assert (out / site.TREND_CACHE / trend_cache.WEEKS).is_file() and (out / site.TREND_CACHE / trend_cache.DAYS).is_file()
    site.render(root, out, detect=False, jobs=1)
    assert {p.relative_to(out): p.read_bytes() for p in (out / "charts").rglob("*") if p.is_file()} == first


def test_day_rows_are_kept_for_the_same_points_at_the_same_scale(tmp_path):
    dates = [f"2030-01-{d:02d}T02:00:00Z" for d in range(1, 21)]
    runs = [f"r{d}" for d in range(20)]
    made = []

    def make(scale):
        return lambda i: made.append(i) or f"{dates[i]} {i * scale}"

    def rows(first, n, scale):
        cache = trend_cache.TrendCache(tmp_path, METRICS)
        got = cache.day_rows("s", dates[:n], runs[:n], first, (scale,), make(scale))
        cache.save()
        assert got == [f"{dates[i]} {i * scale}" for i in range(first, n)]
        return sorted(made)

    assert rows(0, 10, 1) == list(range(10))
    made.clear()
    assert rows(2, 12, 1) == [10, 11]        # a night later: only the new points
    made.clear()
    assert rows(3, 12, 2) == list(range(3, 12))   # another scale: every row again
    made.clear()
    runs.insert(5, "late")                   # a late run among the kept points: they moved
    dates.insert(5, dates[4])
    assert rows(3, 13, 2) == list(range(3, 13))
