"""Trend charts over years (issue 40): each point of the newest charts.THIN_DAYS drawn,
one a week back to two years (the week's medians), one a month before that, said under
the chart; change points still marked at their own night. Drawn with the real gnuplot."""

from __future__ import annotations

import copy
from datetime import date, datetime, timedelta, timezone
from types import SimpleNamespace

from benchpipe import catalogue, charts, history, trends
from benchpipe.metrics import HEADLINE
from devtools import synthetic

T, W = charts.THIN_DAYS, charts.WEEK_DAYS


def _night(day: int) -> str:
    return (datetime(2030, 1, 1, 2, tzinfo=timezone.utc) + timedelta(days=day)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_the_newest_nights_are_drawn_point_by_point_then_a_point_a_week_and_before_two_years_a_month():
    assert T + W == 730   # the months are before two years (the dates below count on it)
    dates = [_night(d) for d in range(800)]
    points, before = charts.drawn_points(dates)
    assert [i for p in points for i in p] == list(range(800))   # each point in one drawn point, in order
    assert before == _night(799 - T)[:10]
    daily = [p for p in points if dates[p[0]] >= _night(799 - T)]
    assert len(daily) == T + 1 and all(len(p) == 1 for p in daily)
    # a point a week for charts.WEEK_DAYS before them, from a month's first day on
    monthly = (datetime(2030, 1, 1, 2, tzinfo=timezone.utc) + timedelta(days=799 - T - W)) \
        .strftime("%Y-%m-01")
    assert monthly == "2030-03-01"
    weekly = [p for p in points[:len(points) - len(daily)] if dates[p[0]] >= monthly]
    for p in weekly:   # one ISO week each, and no week split in two
        assert len({date.fromisoformat(dates[i][:10]).isocalendar()[:2] for i in p}) == 1
    weeks = [date.fromisoformat(dates[p[0]][:10]).isocalendar()[:2] for p in weekly]
    assert len(set(weeks)) == len(weeks) and all(len(p) == 7 for p in weekly[1:-1])
    # and before that a point a calendar month, each month whole
    months = points[:len(points) - len(daily) - len(weekly)]
    assert [[dates[i][:7] for i in p] for p in months] == [["2030-01"] * 31, ["2030-02"] * 28]
    # a series within its THIN_DAYS is drawn whole, and said to be
    assert charts.drawn_points(dates[-T:]) == ([[i] for i in range(T)], None)
    assert charts.drawn_points([]) == ([], None)
    # within its two years: no months
    assert charts._weeks(dates[-700:])[3] is None and charts._weeks(dates)[3] == monthly
    # the weeks and the nights drawn alone, as the chart takes them: the same points
    weekly, first, cut, _ = charts._weeks(dates)
    assert (weekly, first, cut) == (points[:len(weekly)], len(dates) - T - 1, before)
    # dates out of order (no series has them): each still drawn once, a night before the cut in its week
    mixed = dates[100:799] + dates[:100] + dates[799:]
    points, _ = charts.drawn_points(mixed)
    assert sorted(i for p in points for i in p) == list(range(800))
    assert charts._weeks(mixed)[:3] == (points, len(mixed), before)   # none taken as drawn alone by position


def test_a_three_year_chart_draws_weekly_medians_and_keeps_every_change_point(tmp_path):
    # a real entry of the pipeline's history, repeated night after night
    keys = synthetic.keys_for("smoke", scenarios=["cpu"])[:1]
    history.add(tmp_path / "h", [("night", synthetic.results_doc(keys, commit="0" * 40, runs=5))])
    template = history.load(tmp_path / "h").entries[0]
    field = next(f for f in HEADLINE.fields if template.get(f))
    entries = []
    for d in range(3 * 365):
        e = copy.deepcopy(template)
        # within each week before the nights drawn alone, medians 1..7 s on Monday..Sunday; 9 s after
        wd = date.fromisoformat(_night(d)[:10]).isoweekday()
        e["date"], e[field]["median"] = _night(d), float(wd if d < 3 * 365 - 1 - T else 9)
        e[field]["ci_low"], e[field]["ci_high"] = e[field]["median"] - 0.5, e[field]["median"] + 0.5
        entries.append(e)
    s = trends.Series.of(entries, "sid")
    s.metric_changepoints[HEADLINE.name] = [{"index": 100, "direction": "regression", "ratio": 1.1,
                                             "commit": "0" * 40, "previous_commit": "0" * 40}]
    [chart] = charts.trend_charts(SimpleNamespace(series={"sid": s}), tmp_path, catalogue.load())
    rows = (tmp_path / f"{chart.name.replace('/', '_')}.dat").read_text().split("\n")
    rows = [r.split() for r in rows if r]
    # weeks back to two years (from a month's first day), months before them
    full_weeks = [r for r in rows if "2030-12-01" <= r[0] < _night(3 * 365 - 1 - T - 7)][1:]
    assert full_weeks and all(float(r[1]) == 4.0 and float(r[2]) == 3.5 and float(r[3]) == 4.5 for r in full_weeks)
    months = [r for r in rows if r[0] < "2030-12-01"]
    assert charts._weeks(s.dates)[3] == "2030-12-01" and len(months) == 11 and all(3.0 <= float(r[1]) <= 5.0 for r in months)
    newest = [r for r in rows if r[0] >= _night(3 * 365 - 1 - T)]
    assert len(newest) == T + 1 and all(float(r[1]) == 9.0 for r in newest)
    assert len(rows) <= T + 1 + (W + 31) // 7 + 2 + 11   # (the weeks start at a month's first day)
    # the change point is marked at its own night, and the chart says how it is drawn
    assert f"set arrow from '{entries[100]['date']}'" in chart.script
    assert f"before 2030-12-01: one point a month, before {_night(3 * 365 - 1 - T)[:10]}: one a week" in chart.script
    # real gnuplot draws it
    out = tmp_path / "out"
    out.mkdir()
    charts.render([chart], out, tmp_path)
    svg = (out / f"{chart.name}.svg").read_text()
    assert "one point a month" in svg
