"""Charts with gnuplot, from the site model (trends.Model): data files and gnuplot
scripts are generated, then run in a few gnuplot processes (many charts per process,
one process per core), SVG for the pages and PNG for the overview thumbnails.

Kinds of chart (all named under charts/<scenario>/), the metrics drawn being those
benchpipe.metrics marks `chart` (the timed window and peak memory):
  bars-<os>-<size>.svg          Go against Rust at one size: a bar per benchmark, a panel per
                                metric, the p99 task latency after the headline's (PNG: thumbnail;
                                bars-<os>-<size>-narrow.svg: the same stacked, for phones)
  size-<os>-<metric>.svg        the same against the size, log-log (two sizes or more)
  trend-<os>-<family>.svg       one benchmark over commits, a panel per metric, a line per
                                channel: median, 95% CI band, change points, and a grey mark
                                where a channel moved to a new compiler release
  toolchains-<os>-<lang>.svg    newer against older toolchain: ratio of median times
  versions/<os>-<lang>-<pair>   a newer compiler against the older one measured in the same
                                runs, over the nights: geometric mean of the benchmarks' headline
                                (time) ratios, bars from the lowest to the highest

One palette everywhere, from the catalogue's builds (label, colour, dash): Go blue, Rust
(system allocator) orange, Rust (mimalloc) dark orange dashed; older toolchains in
lighter tints; variants by point shape."""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from benchpipe import catalogue, trends, units
from benchpipe.errors import BenchError
from benchpipe.metrics import HEADLINE, charted, trended
from benchpipe.results import family_id, format_params
from benchpipe.trend_cache import TrendCache

GREY = "#555555"


@lru_cache(maxsize=1)
def _builds():
    """Build name -> catalogue Build (label, colour, dash): names live in the catalogue."""
    return catalogue.load().builds


def build_colour(build: str) -> str:
    b = _builds().get(build)
    return b.colour if b else GREY


def lang_colour(lang: str) -> str:
    """A language's colour: its first build's in the catalogue."""
    return next((b.colour for b in _builds().values() if b.lang == lang), GREY)
POINTS = (7, 5, 9, 11, 13, 15, 1, 2)
CP_COLOUR = "#d62728"
BUMP_COLOUR = "#777777"
FONT = "sans,11"


def tint(hex_colour: str, amount: float = 0.5) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))

    def mix(c: int) -> int:
        return int(c + (255 - c) * amount)
    return f"#{mix(r):02x}{mix(g):02x}{mix(b):02x}"


def gq(text: str) -> str:
    """A gnuplot single-quoted string (only '' is special there); one line."""
    return "'" + " ".join(str(text).split()).replace("'", "''") + "'"


@dataclass
class Chart:
    name: str           # charts/<name>.svg
    script: str         # gnuplot commands after `set output`
    png: bool = False   # also a PNG (overview thumbnails)
    width: int = 760
    height: int = 420
    narrow: Chart | None = None  # the same at phone width: charts/<name>-narrow.svg

    def outputs(self, outdir: Path) -> list[tuple[str, Path, str]]:
        """(gnuplot terminal, file, script) of every file this chart is drawn into."""
        out = [(f"set terminal svg size {self.width},{self.height} dynamic font '{FONT}' background rgb 'white'",
                outdir / f"{self.name}.svg", self.script)]
        if self.png:
            out.append((f"set terminal pngcairo size {self.width},{self.height} font '{FONT}' background rgb 'white'",
                        outdir / f"{self.name}.png", self.script))
        if self.narrow:
            out += self.narrow.outputs(outdir)
        return out


def _scale(metric, largest: float | None = None) -> tuple[float, str]:
    """The factor a metric's values are drawn at and the unit its axis names: sizes in
    MiB; times in seconds, or given the largest, in the unit units.time_unit writes it in;
    counts as counted, or given the largest, in its SI step (M instructions)."""
    if metric.unit == "bytes":
        return 1 / 2**20, "MiB"
    if largest is None:
        return 1.0, metric.unit
    if metric.unit == "s":
        return units.time_unit(largest)
    scale, prefix = units.count_unit(largest)
    return scale, f"{prefix} {metric.unit}".strip()


# --------------------------------------------------------------------------- chart definitions

def size_charts(model: trends.Model, cat, datadir: Path) -> list[Chart]:
    """Per scenario and OS, where the latest runs measured two sizes or more: each
    benchmark's charted metrics (the timed window, peak memory) against the size
    (log-log). With one size the bar charts say it all."""
    charts = []
    by_so: dict[tuple[str, str], list[dict]] = {}
    for os_, e in model.headline_latest():
        by_so.setdefault((e["key"]["scenario"], os_), []).append(e)
    for (sc, os_), ents in sorted(by_so.items()):
        size_param = cat.scenarios[sc].size if sc in cat.scenarios else "tasks"
        title = cat.scenarios[sc].title if sc in cat.scenarios else sc
        if len({str(e["key"]["params"].get(size_param)) for e in ents}) < 2:
            continue
        lines: dict[tuple, list[dict]] = {}
        vary = trends.varying_params([e["key"] for e in ents], size_param)
        for e in ents:
            if size_param not in e["key"]["params"]:
                continue
            k = e["key"]
            lines.setdefault((k["build"], k["variant"], trends.other_params(k, size_param, vary)), []).append(e)
        if not lines:
            continue
        variants = sorted({v for (_, v, _) in lines})
        others = sorted({o for (_, _, o) in lines})
        for metric in charted():
            f, unit = _scale(metric)
            fname = datadir / f"{trends.slug(f'{sc}-{os_}-{metric.name}')}.dat"
            blocks, plots = [], []
            for (build, variant, other), es in sorted(lines.items()):
                es = sorted(es, key=lambda e: float(e["key"]["params"][size_param]))
                rows = []
                for e in es:
                    st = metric.summary_of(e)
                    if st:   # (an optional metric some benchmarks lack)
                        rows.append(f"{e['key']['params'][size_param]} {st['median'] * f:.9g} {st['ci_low'] * f:.9g} "
                                    f"{st['ci_high'] * f:.9g}")
                if not rows:
                    continue
                i = len(blocks)
                blocks.append("\n".join(rows))
                colour = build_colour(build)
                pt = POINTS[variants.index(variant) % len(POINTS)]
                bld = _builds().get(build)
                dt = (bld.dash if bld else 1) + (2 * others.index(other) if len(others) > 1 else 0)
                label = f"{bld.label if bld else build} {variant}" + (f" {other}" if len(others) > 1 and other else "")
                plots.append(f"{gq(fname.name)} index {i} using 1:2:3:4 with yerrorlines lc rgb '{colour}' lw 2 "
                             f"pt {pt} ps 1.1 dt {dt} title {gq(label)}")
            if not blocks:
                continue
            fname.write_text("\n\n\n".join(blocks) + "\n", encoding="utf-8")
            script = "\n".join([
                f"set title {gq(f'{title}: {metric.label} on {os_} (median, 95% CI)')} noenhanced",
                "set logscale xy", f"set xlabel {gq(size_param + ' (log scale)')} noenhanced",
                f"set ylabel {gq(f'{metric.label} ({unit}), log scale')}", "set key below maxcols 3 font ',9' noenhanced",
                "set grid xtics ytics mxtics mytics lc rgb '#dddddd'", "set format x '%.0s%c'", "set format y '%g'",
                "set offsets graph 0.05, graph 0.05, 0, 0",
                "plot " + ", \\\n     ".join(plots),
            ])
            charts.append(Chart(f"{sc}/size-{os_}-{metric.name}", script, width=860,
                                height=430 + 17 * ((len(lines) + 2) // 3)))
    return charts


def _bar_rows(ents: list[dict], scenario, size_param: str) -> list[tuple[tuple, str, dict]]:
    """(group, label, entry) in reading order: each Go variant, then the Rust variants the
    catalogue pairs with it (Rust (system), then mimalloc), per other-parameter value."""
    vary = trends.varying_params([e["key"] for e in ents], size_param)
    go_vs = {e["key"]["variant"] for e in ents if e["key"]["lang"] == "go"}
    rust_vs = {e["key"]["variant"] for e in ents if e["key"]["lang"] != "go"}
    group_of: dict[tuple[str, str], int] = {}
    for gv, rv in trends.pair_variants(scenario, go_vs, rust_vs):
        g = group_of.setdefault(("go", gv), len(set(group_of.values())))
        if rv is not None:
            group_of.setdefault(("rust", rv), g)
    builds = list(_builds())
    rows = []
    for e in ents:
        k = e["key"]
        lang = "go" if k["lang"] == "go" else "rust"
        other = trends.other_params(k, size_param, vary)
        group = group_of.get((lang, k["variant"]), len(group_of) + sorted(rust_vs | go_vs).index(k["variant"]))
        bld = _builds().get(k["build"])
        label = f"{bld.label if bld else k['build']} {k['variant']}" + (f" {other}" if other else "")
        order = (other, group, builds.index(k["build"]) if k["build"] in builds else len(builds), k["variant"])
        rows.append((order, label, e))
    rows.sort(key=lambda r: r[0])
    return [((order[0], order[1]), label, e) for order, label, e in rows]


def bar_charts(model: trends.Model, cat, datadir: Path, png_os: str | None = None) -> list[Chart]:
    """Per scenario, OS and size: Go against Rust at a glance. One horizontal bar per
    benchmark (the headline toolchains' latest entries), in a panel per charted metric
    (the timed window, peak memory: median, 95% CI whiskers) and, where tasks exist, the
    p99 sojourn latency after the headline's. A PNG of the largest size on png_os is the
    overview's thumbnail."""
    charts = []
    by_sos: dict[tuple[str, str], dict] = {}
    for os_, e in model.headline_latest():
        k = e["key"]
        sc = cat.scenarios.get(k["scenario"])
        size_param = sc.size if sc else "tasks"
        if size_param in k["params"]:
            by_sos.setdefault((k["scenario"], os_), {}).setdefault(k["params"][size_param], []).append(e)
    for (sc_name, os_), by_size in sorted(by_sos.items()):
        sc = cat.scenarios.get(sc_name)
        size_param = sc.size if sc else "tasks"
        title = sc.title if sc else sc_name
        sizes = sorted(by_size, key=lambda v: (isinstance(v, str), v))
        for size in sizes:
            rows = _bar_rows(by_size[size], sc, size_param)
            name = f"{sc_name}/bars-{os_}-{trends.slug(str(size))}"
            charts.append(_bar_chart(name, rows, datadir, f"{title}, {size_param} = {size} on {os_}",
                                     png=(os_ == png_os and size == sizes[-1])))
    return charts


def _nice_step(span: float, ticks: int = 4) -> float:
    """A 1, 2 or 5 x 10^k tick step giving at most `ticks` steps over span: a narrow
    panel's tick labels must not run into each other."""
    raw = max(span, 1e-12) / ticks
    base = 10 ** math.floor(math.log10(raw))
    return next(m * base for m in (1, 2, 5, 10) if m * base >= raw)


BAR_NOTE = ("median of the runs, whiskers: 95% CI;",
            "timed window: the scenario clock (setup and start-up excluded); latency: task sojourn p99")
NARROW_WIDTH = 380  # phone width: a 390 px screen shows it at about 340 px, type at 0.9 of its size


def _bar_chart(name: str, rows: list, datadir: Path, title: str, png: bool) -> Chart:
    """The wide chart (panels side by side, labels on the left), with its phone-width
    twin (panels stacked, each label above its bar) as `narrow`."""
    ys, last = [], None
    y = 0.0
    for group, _label, _e in rows:
        if last is not None and group != last:
            y += 0.5  # a gap between a Go variant's group and the next
        ys.append(y)
        y, last = y + 1, group
    p99 = [(e.get("latency_us") or {}).get("p99") for _, _, e in rows]
    panels = []
    for metric in charted():
        sts = [metric.summary_of(e) for _, _, e in rows]
        if not any(sts):
            continue   # an optional metric none of these benchmarks has
        scale, unit = _scale(metric, max(st["ci_high"] for st in sts if st))
        panels.append((metric.label, unit, [(st["median"] * scale, st["ci_low"] * scale, st["ci_high"] * scale)
                                            if st else None for st in sts]))
        if metric is HEADLINE and any(p is not None for p in p99):
            pscale, punit = units.time_unit(max(p for p in p99 if p is not None) / 1e6)
            panels.append(("p99 task latency", punit,
                           [(p / 1e6 * pscale,) * 3 if p is not None else None for p in p99]))
    colours = [int(build_colour(e["key"]["build"])[1:], 16) for _, _, e in rows]
    fname = datadir / f"{name.replace('/', '_')}.dat"
    blocks = []
    for _what, _unit, vals in panels:
        blocks.append("\n".join(f"{yy:g} {v[0]:.6g} {v[1]:.6g} {v[2]:.6g} {c}"
                                 for yy, v, c in zip(ys, vals, colours) if v is not None) or "0 0 0 0 0")
    fname.write_text("\n\n\n".join(blocks) + "\n", encoding="utf-8")
    labels = [label for _, label, _ in rows]
    wide = _bars_wide(name, gq(fname.name), title, ys, labels, panels, png)
    wide.narrow = _bars_narrow(f"{name}-narrow", gq(fname.name), title, ys, labels, panels)
    return wide


def _bar_panel_axis(vals) -> list[str]:
    hi = max((v[2] for v in vals if v is not None), default=1.0) or 1.0
    return [f"set xrange [0:{hi * 1.32:.6g}]", f"set xtics {_nice_step(hi * 1.32):.6g}"]


def _bar_plot(f: str, i: int, dy: float = 0.0, half: float = 0.38) -> str:
    """Panel i's bars (median, colour per build), 95% whiskers and values; bars centred
    dy below their row."""
    yc = f"($1+{dy:g})"
    return (f"plot {f} index {i} using ($2/2):{yc}:(0):2:($1+{dy - half:g}):($1+{dy + half:g}):5 "
            f"with boxxyerror lc rgb variable, \\\n"
            f"     {f} index {i} using 2:{yc}:3:4 with xerrorbars lc rgb '#333333' pt -1 lw 1, \\\n"
            f"     {f} index {i} using 4:{yc}:(sprintf(' %.3g', $2)) with labels left font ',8' tc rgb '#333333'")


def _bars_wide(name: str, f: str, title: str, ys: list, labels: list, panels: list, png: bool) -> Chart:
    width = 900
    height = max(240, 130 + 24 * len(ys) + int(12 * (ys[-1] + 1 - len(ys))))
    left = min(0.45, (max(map(len, labels)) * 7.6 + 20) / width)
    gap = 0.03
    pw = (0.985 - left - gap * (len(panels) - 1)) / len(panels)
    top, bottom = 1 - 62 / height, 62 / height
    lines = [
        f"set multiplot title {gq(title)} noenhanced",
        f"set label 1 {gq(' '.join(BAR_NOTE))} at screen 0.5, screen {1 - 40 / height:.4f} center font ',9' tc rgb '{GREY}' noenhanced",
        f"set yrange [{ys[-1] + 0.7:g}:-0.7]", "set style fill solid 0.85 noborder",
        "set grid xtics lc rgb '#dddddd'", "set xtics nomirror font ',9'", "set ytics nomirror scale 0",
        f"set tmargin at screen {top:.4f}", f"set bmargin at screen {bottom:.4f}", "set key off",
        "set ytics (" + ", ".join(f"{gq(label)} {yy:g}" for yy, label in zip(ys, labels)) + ")",
    ]
    for i, (what, unit_, vals) in enumerate(panels):
        x0 = left + i * (pw + gap)
        lines += [f"set lmargin at screen {x0:.4f}", f"set rmargin at screen {x0 + pw:.4f}", *_bar_panel_axis(vals),
                  f"set xlabel {gq(f'{what} ({unit_})')} noenhanced", _bar_plot(f, i)]
        if i == 0:
            lines += ["set ytics format ''", "set ytics (" + ", ".join(f"'' {yy:g}" for yy in ys) + ")", "unset label 1"]
    lines.append("unset multiplot")
    return Chart(name, "\n".join(lines), png=png, width=width, height=height)


def _bars_narrow(name: str, f: str, title: str, ys: list, labels: list, panels: list) -> Chart:
    """Phone width: the panels one under another, full width, each bar's label on a line
    above it, so no type has to shrink to fit a 900-unit-wide chart into a phone."""
    row, head, foot = 30, 62, 44   # px per row unit, title and note, x axis of a panel
    span = ys[-1] + 1.35           # y units per panel: rows, gaps and the first label
    panel_h = row * span + foot
    height = int(head + len(panels) * (panel_h + 8))
    lines = [f"set multiplot title {gq(title)} noenhanced font ',11'", "set style fill solid 0.85 noborder",
             "set grid xtics lc rgb '#dddddd'", "set xtics nomirror font ',9'", "unset ytics", "set key off",
             f"set lmargin at screen {8 / NARROW_WIDTH:.4f}", f"set rmargin at screen {1 - 8 / NARROW_WIDTH:.4f}",
             f"set yrange [{ys[-1] + 0.6:g}:-0.75]"]
    notes = [f"set label {101 + n} {gq(text)} at screen 0.5, screen {1 - (30 + 12 * n) / height:.4f} center "
             f"font ',8' tc rgb '{GREY}' noenhanced" for n, text in enumerate(BAR_NOTE)]
    for i, (what, unit_, vals) in enumerate(panels):
        top = head + i * (panel_h + 8)
        lines += [f"set tmargin at screen {1 - top / height:.4f}",
                  f"set bmargin at screen {1 - (top + row * span) / height:.4f}",
                  *_bar_panel_axis(vals), f"set xlabel {gq(f'{what} ({unit_})')} noenhanced offset 0,0.4", "unset label",
                  *(notes if i == 0 else [])]
        lines += [f"set label {n + 1} {gq(label)} at graph 0.01, first {yy - 0.3:g} left font ',9' front noenhanced"
                  for n, (yy, label) in enumerate(zip(ys, labels))]
        lines.append(_bar_plot(f, i, dy=0.18, half=0.22))
    lines.append("unset multiplot")
    return Chart(name, "\n".join(lines), width=NARROW_WIDTH, height=height)


def _date_format(dates) -> str:
    """Dates on the x axis, with the time of day when the points span less than three
    days (several runs a day would otherwise share one label)."""
    dates = sorted(dates)
    if not dates:
        return "%Y-%m-%d"
    try:
        first, last = (datetime.fromisoformat(d.replace("Z", "+00:00")) for d in (dates[0], dates[-1]))
    except ValueError:
        return "%Y-%m-%d"
    return "%m-%d %H:%M" if (last - first).days < 3 else "%Y-%m-%d"


def _measured_at(metric, key: dict, cat) -> str:
    """' (counted at items=200000)' where the metric is measured at other sizes than the
    benchmark's own (metrics.Metric.measured_at), else ''."""
    sc = cat.scenarios.get(key["scenario"]) if cat else None
    if not (metric.measured_at and sc):
        return ""
    at = format_params({**key["params"], **metric.measured_at(sc)})
    return f" (measured at {at})" if at != format_params(key["params"]) else ""


# A trend chart draws each point of its newest THIN_DAYS days; for WEEK_DAYS before them,
# one point an ISO week (the medians of that week's medians and interval ends); before
# that, one point a calendar month. Ten years of nights are 3,650 points on 860 pixels:
# each trend SVG was ~680 KB and gnuplot's time grew with them, for detail no one can
# see; a point a week before the newest year still drew 470 points a series in ten years
# where a month is 5 pixels (gnuplot's time is about its points: 835 points a series
# then, 515 with months before two years). A year of nights is 365 points on ~60 pixels
# at ten years; the newest 120 (a quarter, each night ~3 pixels at two years), then weeks
# back to two years: ~305 points, and `make_all` on the ten-year model 3.6 -> 2.9-3.0 s
# (README, the trend charts). The months start at a month's first day, so
# they change once a month (the trend cache keeps them). Only the drawing thins: change
# points and compiler releases are found on, and marked at, every point.
THIN_DAYS = 120
WEEK_DAYS = 730 - THIN_DAYS


def drawn_points(dates: list[str], days: int = THIN_DAYS) -> tuple[list[list[int]], str | None]:
    """The points a trend chart draws, each a list of a series' point indices (one; or a
    week's or a month's, before `days` before the newest point), in date order; and the
    date before which points are weekly (None: all are drawn)."""
    weeks, first, cut, _months = _weeks(dates, days)
    return weeks + [[i] for i in range(first, len(dates))], cut


def _weeks(dates: list[str], days: int = THIN_DAYS) -> tuple[list[list[int]], int, str | None, str | None]:
    """drawn_points in two parts: the months' and weeks' point indices, and the index of
    the first point drawn alone (every one after it is too, where the dates are in order,
    as a series' are; otherwise the weeks are points wherever a date before the cut is);
    then the date before which points are weekly, and the (first of the month) date
    before which they are monthly (None: none are)."""
    if not dates:
        return [], 0, None, None
    newest = datetime.fromisoformat(dates[-1].replace("Z", "+00:00"))
    cut_at = newest - timedelta(days=days)
    cut = cut_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    if dates[0] >= cut:
        return [], 0, None, None
    m = cut_at - timedelta(days=WEEK_DAYS)
    monthly = f"{m.year:04d}-{m.month:02d}-01T00:00:00Z"
    first = bisect.bisect_left(dates, cut)
    ordered = max(dates[:first]) < cut and (first == len(dates) or min(dates[first:]) >= cut)
    out, week = [], None
    for i, d in enumerate(dates[:first] if ordered else dates):
        if d >= cut:
            out.append([i])
            continue
        w = _group_key(d, monthly)
        if w != week:
            out.append([])
            week = w
        out[-1].append(i)
    return out, first if ordered else len(dates), cut[:10], monthly[:10] if min(dates) < monthly else None


def _group_key(d: str, monthly: str | None):
    """What a point dated d is drawn with: its month's (its "YYYY-MM") before `monthly`,
    else its ISO week's."""
    return d[:7] if monthly and d < monthly else _iso_week(d[:10])


@lru_cache(maxsize=None)
def _iso_week(day: str) -> tuple[int, int]:
    """A day's ISO (year, week); cached, as every series of a history has the same nights."""
    return tuple(date.fromisoformat(day).isocalendar()[:2])


def _point_stats(group: list[int], col) -> tuple | None:
    """A drawn point's median, CI low and high of a metric (col: the series' figures of
    it, trends.Series.stats; None: the point lacks it): a week's point takes the medians
    of its points' figures."""
    sts = [t for i in group if (t := col[i])]
    if len(sts) == 1:
        return sts[0]
    return tuple(map(_median, zip(*sts))) if sts else None


def _median(values) -> float:
    """statistics.median's value, without its layers of calls: half a million weeks'
    figures are taken the median of in a render of ten years."""
    v = sorted(values)
    n = len(v)
    h = n // 2
    return v[h] if n % 2 else (v[h - 1] + v[h]) / 2


def trend_charts(model: trends.Model, datadir: Path, cat=None, kept: Path | None = None) -> list[Chart]:
    """A chart per benchmark family and OS (trends.trend_chart_name): its series over the
    nights, a panel per trended metric, each family's data file written into datadir;
    the rows kept in the folder `kept` (benchpipe.trend_cache) are used, and those
    drawn kept there. (In forked processes it took as long: the children's reads of the
    parent's series copied the pages they are in.)"""
    return list(iter_trend_charts(model, datadir, cat, kept))


def iter_trend_charts(model: trends.Model, datadir: Path, cat=None, kept: Path | None = None) -> Iterator[Chart]:
    """trend_charts one at a time, each yielded once its data file is written (for render
    to draw while the next are made); the weeks are kept once the last is."""
    return (make() for make in _trend_makers(model, datadir, cat, kept))


def _trend_makers(model: trends.Model, datadir: Path, cat=None, kept: Path | None = None) -> Iterator[Callable[[], Chart]]:
    """Each trend chart's data file written (_trend_chart), then what makes its script
    yielded; the weeks kept once the last is written."""
    fams: dict[str, list[trends.Series]] = {}
    for s in model.series.values():
        fams.setdefault(trends.trend_chart_name(s.key, s.os), []).append(s)
    weeks: dict[tuple, tuple] = {}   # a series' dates -> _weeks of them (a history's series mostly share their nights)
    cache = TrendCache(kept, tuple(m.name for m in trended()))
    for name in sorted(fams):
        yield _trend_chart(name, fams[name], datadir, cat, weeks, cache)
    cache.save()


def _week_points(s: trends.Series, weeks: list[list[int]], monthly: str | None, shown, kept: TrendCache) -> list[list]:
    """Each week's (or month's) point of series s: [its middle entry's date, its figures
    of each shown metric (_point_stats), the scale factors its row was written at, the
    row] (the last two None until written): the weeks kept for its span of points
    (trend_cache), and those after them taken. The last week may still gain points (the
    cut moves a day a night): taken every night, not kept. `monthly`: the date before
    which the points are months (_weeks), part of the span."""
    complete = len(weeks) - 1
    old = kept.kept_weeks(s.sid)
    out = list(old[1]) if old and 0 < len(old[1]) <= complete and old[0] == _span(s, weeks, len(old[1]), monthly) \
        else []
    reused = len(out)
    # the night the months' end moves on (a month's first day): the same points' months and
    # weeks, but for the month that was weeks, taken from where they were
    same = _kept_groups(s, old) if old and not out else {}
    took = [at[1] if (at := same.get(p[0])) is not None and at[0] == len(p) and j < complete else None
            for j, p in enumerate(weeks[reused:], reused)]
    # a night takes the last week's few points, read one by one; more (a cache miss), the
    # columns as tuples at once (trends.Series.stats: StatColumn)
    many = sum(len(p) for p, at in zip(weeks[reused:], took) if at is None) > 64
    cols = [s.stats[m.name].triples() if many else s.stats[m.name] for m in shown]
    for p, at in zip(weeks[reused:], took):
        if at is not None:
            out.append(old[1][at])
        else:
            out.append([s.dates[p[len(p) // 2]], tuple(_point_stats(p, col) for col in cols), None, None])
    if complete > 0:
        kept.keep_weeks(s.sid, _span(s, weeks, complete, monthly), out[:complete], new=reused != complete)
    return out


def _kept_groups(s: trends.Series, old: tuple) -> dict[int, tuple[int, int]]:
    """The kept weeks' points, where they are still the series' first points (the same
    first and last point, run and date, at the same indices: a series only gains points,
    in date order): {first point's index: (its points, its index in the kept weeks)}
    ({}: they are not). The points are grouped again as _weeks grouped them, by the
    months' end they were kept at; a week or month of the same points has the same figures."""
    span, rows = old
    try:
        run_a, date_a, run_b, date_b, n, count, monthly = span
        if not (type(n) is int and 0 < n <= len(s.dates) and (s.runs[0], s.dates[0]) == (run_a, date_a)
                and (s.runs[n - 1], s.dates[n - 1]) == (run_b, date_b) and count == len(rows)
                and (monthly is None or type(monthly) is str)):
            return {}
    except (TypeError, ValueError):
        return {}
    out = _groups(tuple(s.dates[:n]), monthly and f"{monthly}T00:00:00Z")   # (as _weeks compares)
    return out if len(out) == count else {}


@lru_cache(maxsize=64)
def _groups(dates: tuple[str, ...], monthly: str | None) -> dict[int, tuple[int, int]]:
    """_kept_groups' grouping of these dates (in order): once for the series that share
    their nights, as most of a history's do. (Read only: shared.)"""
    out, key, start = {}, None, 0
    for i, d in enumerate(dates):
        w = _group_key(d, monthly)
        if w != key:
            if i:
                out[start] = (i - start, len(out))
            key, start = w, i
    out[start] = (len(dates) - start, len(out))
    return out


def _span(s: trends.Series, weeks: list[list[int]], n: int, monthly: str | None) -> tuple:
    """What the first n weeks hold, as trend_cache keeps them: their first and last point
    (run, date), their points and weeks, and the date the months end at."""
    a, b = weeks[0][0], weeks[n - 1][-1]
    return s.runs[a], s.dates[a], s.runs[b], s.dates[b], sum(map(len, weeks[:n])), n, monthly


def _row(d: str, figures, factors) -> str:
    """A data file's row: the date, then median, CI low and high of each metric times
    its scale factor (NaN where the point lacks it)."""
    cells = [d]
    for t, f in zip(figures, factors):   # (one %-format a metric: a third less time than one a value)
        cells.append("%.9g %.9g %.9g" % (t[0] * f, t[1] * f, t[2] * f) if t else "NaN NaN NaN")
    return " ".join(cells)


def _trend_chart(name: str, group: list[trends.Series], datadir: Path, cat, weeks_of: dict,
                 kept: TrendCache) -> Callable[[], Chart]:
    """A family's trend chart: its data file written now, and what makes its script
    returned, to be called once the series' change points are known (the site writes the
    data files while the change points are searched: ChartWork)."""
    shown = trended()
    group.sort(key=lambda s: trends.version_tuple(s.key["toolchain"]), reverse=True)
    k0 = group[0].key
    colour = build_colour(k0["build"])
    fname = datadir / f"{name.replace('/', '_')}.dat"
    # each series' drawn points (drawn_points): a week's takes its middle entry's date
    drawn, weekly_before, monthly_before = [], None, None
    for s in group:
        weeks, first, before, monthly = weeks_of.get(dates := tuple(s.dates)) or \
            weeks_of.setdefault(dates, _weeks(s.dates))
        weekly_before = max(filter(None, (weekly_before, before)), default=None)
        monthly_before = max(filter(None, (monthly_before, monthly)), default=None)
        wk = _week_points(s, weeks, monthly, shown, kept)
        # a point drawn alone is its own figures (_point_stats of one)
        drawn.append((s, wk, first, {m.name: [w[1][j] for w in wk] + s.stats[m.name][first:]
                                      for j, m in enumerate(shown)}))
    # counts in their SI step (M, G instructions); times stay in seconds, sizes in MiB
    scales = {m.name: _scale(m, None if m.unit == "s" else
                             max((t[2] for *_, st in drawn for t in st[m.name] if t), default=None)) for m in shown}
    factors = tuple(scales[m.name][0] for m in shown)
    # a row per drawn point (_row); a block per series; the rows kept (trend_cache)
    blocks = []
    for s, wk, first, st in drawn:
        rows = []
        for w in wk:
            if w[2] != factors:   # new (already counted as a change), or kept at other factors
                kept.weeks.changed |= w[2] is not None
                w[2], w[3] = factors, _row(w[0], w[1], factors)
            rows.append(w[3])
        cols = [st[m.name] for m in shown]
        off = len(wk) - first   # point i of the series is drawn point i + off
        rows += kept.day_rows(s.sid, s.dates, s.runs, first, factors,
                              lambda i: _row(s.dates[i], [col[i + off] for col in cols], factors))
        blocks.append("\n".join(rows))
    fname.write_text("\n\n\n".join(blocks) + "\n", encoding="utf-8")
    fmt = _date_format(d for s, wk, first, _st in drawn for d in itertools.chain((w[0] for w in wk), s.dates[first:]))
    # a panel per charted metric this family has (an optional one may be missing)
    panels = [(i, m) for i, m in enumerate(shown) if any(t for *_, st in drawn for t in st[m.name])]
    del drawn, blocks   # (kept only as the script's inputs until it is made)
    bump_lines = []
    bumped = any(bumps := [s.bumps() for s in group])
    for s, bs in zip(group, bumps):
        for i, _old, new in bs:
            d = s.dates[i]
            bump_lines.append(f"set arrow from '{d}', graph 0 to '{d}', graph 1 nohead lc rgb '{BUMP_COLOUR}' lw 1 dt 3 back")
            bump_lines.append(f"set label {gq(new)} at '{d}', graph 0.97 right rotate by 90 font ',8' "
                              f"tc rgb '{BUMP_COLOUR}' front noenhanced")
    one = len(group[0]) == 1 and len(group) == 1
    return functools.partial(_trend_script, name, group, fname, cat, shown, colour, scales, fmt, panels,
                             weekly_before, monthly_before, bump_lines, bumped, one)


def _trend_script(name: str, group: list[trends.Series], fname: Path, cat, shown, colour: str, scales: dict, fmt: str,
                  panels: list, weekly_before: str | None, monthly_before: str | None, bump_lines: list[str],
                  bumped: bool, one: bool) -> Chart:
    """A trend chart's gnuplot script (_trend_chart), with the series' change points."""
    k0 = group[0].key

    def cp_arrows(metric: str) -> list[str]:
        out = []
        for s in group:
            for cp in s.metric_changepoints.get(metric, []):
                d = s.dates[cp["index"]]
                c = CP_COLOUR if cp["direction"] == "regression" else "#2ca02c"
                out.append(f"set arrow from '{d}', graph 0 to '{d}', graph 1 nohead lc rgb '{c}' lw 1.5 dt 2 front")
        return out

    arrows = cp_arrows(HEADLINE.name) + bump_lines
    pct = ", ".join(f"{(cp['ratio'] - 1) * 100:+.1f}% {s.label}" for s in group for cp in s.changepoints
                    if cp.get("ratio"))

    def panel(col: int, ylabel: str, title: str, marks: bool, metric: str) -> str:
        plots = []
        for i, s in enumerate(group):
            c = colour if i == 0 else tint(colour, 0.45 + 0.15 * (i - 1))
            band = tint(c, 0.6)
            tc = s.label
            plots.append(f"{gq(fname.name)} index {i} using 1:{col + 1}:{col + 2} with filledcurves "
                         f"fc rgb '{band}' fs transparent solid 0.35 notitle")
            style = (f"linespoints pt {POINTS[i % len(POINTS)]} ps {0.9 if one else 0.5}"
                     if len(s) <= 60 else "lines")  # a year of points: a line, not 365 markers
            plots.append(f"{gq(fname.name)} index {i} using 1:{col} with {style} lc rgb '{c}' lw 2 "
                         f"dt {1 + i} title {gq(tc + ' median')}")
        if any(s.metric_changepoints.get(metric, []) for s in group):
            plots.append(f"NaN with lines lc rgb '{CP_COLOUR}' dt 2 lw 1.5 title 'change point'")
        if marks and bumped:
            plots.append(f"NaN with lines lc rgb '{BUMP_COLOUR}' dt 3 lw 1 title 'new compiler release'")
        return "\n".join([f"set title {gq(title)} noenhanced", f"set ylabel {gq(ylabel)}",
                          "plot " + ", \\\n     ".join(plots)])

    lines = [
        f"set multiplot layout {len(panels)},1",
        "set xdata time", "set timefmt '%Y-%m-%dT%H:%M:%SZ'", f"set format x '{fmt}'",
        "set xtics rotate by -30",
        "set key outside right top noenhanced", "set grid lc rgb '#dddddd'",
        "set lmargin 12", "set rmargin 28",
    ]
    for i, metric in panels:
        if weekly_before and (i, metric) == panels[-1]:   # said once, under the bottom panel
            thinned = (f"before {monthly_before}: one point a month, before {weekly_before}: one a week "
                       "(their medians)" if monthly_before else f"before {weekly_before}: one point a week (its medians)")
            lines.append(f"set xlabel '{thinned}' font ',8' "
                         "tc rgb '#666666'")
        ylabel = f"{metric.label} ({scales[metric.name][1]})"
        lines.append("set yrange [0:*]" if metric.zero_based else "set yrange [*:*]")
        if metric is HEADLINE:   # the top panel: its change points, the compiler releases, the shifts found
            lines += [*arrows, panel(2 + 3 * i, ylabel, f"{k0['scenario']} {k0['variant']} {k0['build']} on "
                                     f"{group[0].os}: {metric.label}" + (f"  [{pct}]" if pct else ""), True, metric.name)]
        else:
            lines += ["unset arrow", "unset label", *cp_arrows(metric.name),
                      panel(2 + 3 * i, ylabel, f"{format_params(k0['params'])}: {metric.label}"
                            f"{_measured_at(metric, k0, cat)} (median, band: 95% CI)", False, metric.name)]
    lines.append("unset multiplot")
    return Chart(name, "\n".join(lines), width=860, height=280 * len(panels))


def toolchain_charts(model: trends.Model, cat, datadir: Path) -> list[Chart]:
    """Per scenario, OS and language with two or more toolchains: the newest against the
    older ones, ratio of the latest median times per benchmark (below 1: the newer is faster)."""
    charts = []
    groups: dict[tuple[str, str, str], dict[str, dict[str, dict]]] = {}
    for (os_, _kid), e in model.latest.items():
        k = e["key"]
        groups.setdefault((k["scenario"], os_, k["lang"]), {}).setdefault(family_id(k), {})[k["toolchain"]] = e
    for (sc, os_, lang), fams in sorted(groups.items()):
        tcs = sorted({tc for f in fams.values() for tc in f}, key=trends.version_tuple, reverse=True)
        if len(tcs) < 2:
            continue
        newer = tcs[0]

        def ratio(per, o):   # of the headline metric's medians
            return (HEADLINE.median_of(per[newer]) / HEADLINE.median_of(per[o])
                    if newer in per and o in per and HEADLINE.median_of(per[o]) > 0 else None)
        # Only toolchains and benchmarks with something in common with the newest: gnuplot
        # stops on a column without a single valid point ("No valid points").
        olders = [o for o in tcs[1:] if any(ratio(per, o) is not None for per in fams.values())]
        rows = []
        for fam, per in sorted(fams.items()):
            vals = [ratio(per, o) for o in olders]
            if all(v is None for v in vals):
                continue
            label = fam.split("/", 1)[1].replace("/", " ")
            rows.append('"' + " ".join(label.split()).replace('"', "'") + '" '
                        + " ".join("NaN" if v is None else f"{v:.6g}" for v in vals))
        if not rows:
            continue
        fname = datadir / f"{trends.slug(f'tc-{sc}-{os_}-{lang}')}.dat"
        fname.write_text("\n".join(rows) + "\n", encoding="utf-8")
        base = lang_colour(lang)
        plots = [f"{gq(fname.name)} using {i + 2}:xtic(1) lc rgb '{tint(base, 0.3 * i)}' title {gq(f'{newer} / {o}')}"
                 for i, o in enumerate(olders)]
        height = max(380, 140 + 16 * len(rows))
        script = "\n".join([
            f"set title {gq(f'{sc} on {os_}: {newer} against older {lang} toolchains (ratio of median times)')} noenhanced",
            "set style data histograms", "set style histogram clustered gap 1", "set style fill solid 0.85 border -1",
            "set boxwidth 0.9", "set xtics rotate by -40 font ',8' noenhanced", "set ylabel 'newer / older (below 1: newer is faster)'",
            "set key outside right top noenhanced", "set grid ytics lc rgb '#dddddd'", "set yrange [0:*]",
            "set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb '#444444' dt 2 front",
            "set bmargin 14",
            "plot " + ", ".join(plots),
        ])
        charts.append(Chart(f"{sc}/toolchains-{os_}-{lang}", script, width=860, height=height + 100))
    return charts


# --------------------------------------------------------------------------- running gnuplot

def gnuplot_path() -> str:
    exe = shutil.which("gnuplot")
    if not exe:
        raise BenchError("gnuplot not found: install it (apt-get install gnuplot / brew install gnuplot / "
                         "choco install gnuplot), `bench doctor` checks it")
    return exe


# Charts a gnuplot process draws: a site's 200-odd charts in batches, so that gnuplot
# starts on the first ones while Python prepares the rest (trend_charts' data is most of
# the chart stage's Python: drawn in turn, the two took their sum).
BATCH = 24


def svg_primer(n: int) -> list[str]:
    """Drawn before each chart: gnuplot's svg terminal opens a plot's first group with the
    colour the plot before it ended with (SVG_graphics opens it before resetting the
    colour mode), so a chart's bytes depended on its neighbour in the script, and an
    unchanged chart changed when another was added. `test` ends in the default colour
    mode, as a fresh gnuplot starts: each chart is drawn as if alone (~0.5 ms)."""
    return ["reset", "set terminal svg size 100,100", f"set output {gq(f'primer-{n}.svg')}", "test",
            "unset output"]


def render(charts: Iterable[Chart], outdir: Path, workdir: Path, jobs: int | None = None) -> list[str]:
    """Run gnuplot over the charts, BATCH a process (a list is shared out over `jobs`
    processes, fewer a process where it is short), at most `jobs` processes at once, each
    started as soon as its batch is made: charts may be an iterator that makes them (their
    data files written before each is yielded). Scripts kept in workdir. Returns the chart
    files written, relative to outdir."""
    exe = gnuplot_path()
    jobs = max(1, min(jobs or os.cpu_count() or 1, 8))
    batch = max(1, min(BATCH, -(-len(charts) // jobs))) if isinstance(charts, list) else BATCH
    running: list[tuple[Path, subprocess.Popen]] = []
    written: list[str] = []
    numbers = itertools.count()

    def finish(script: Path, p: subprocess.Popen) -> None:
        _out, err = p.communicate()
        if p.returncode != 0:
            tail = " | ".join(err.decode("utf-8", "replace").strip().splitlines()[-3:])
            raise BenchError(f"gnuplot failed on {script} (exit {p.returncode}): {tail}")

    def start(chunk: list[Chart]) -> None:
        if len(running) >= jobs:   # a core each: wait for the oldest
            finish(*running.pop(0))
        n = next(numbers)
        lines = ["set encoding utf8", "set termoption noenhanced"]
        for c in chunk:
            lines += svg_primer(n)
            for term, path, script in c.outputs(outdir):
                path.parent.mkdir(parents=True, exist_ok=True)
                lines += ["reset", term, f"set output {gq(str(path))}", script, "unset output"]
                written.append(path.relative_to(outdir).as_posix())
        script = workdir / f"charts-{n}.gp"
        script.write_text("\n".join(lines) + "\n", encoding="utf-8")
        # run in workdir, the scripts naming their data files by name: gnuplot writes a
        # plot's command into the SVG, and a temp path there made every chart differ from
        # the same chart rendered before
        running.append((script, subprocess.Popen([exe, str(script)], cwd=workdir, stdout=subprocess.DEVNULL,
                                                 stderr=subprocess.PIPE)))

    try:
        made = iter(charts)
        while chunk := list(itertools.islice(made, batch)):
            start(chunk)
        while running:
            finish(*running.pop(0))
    finally:
        for _script, p in running:   # (after a failure: the others are not left drawing)
            p.kill()
            p.wait()
    return written


def _versus_points(model: trends.Model) -> dict[tuple[str, str, str, str], tuple[list[str], list[float]]]:
    """(OS, language, older side, newer channel) -> the dates and headline ratios of the
    points with a verdict, series by series, each oldest first. Gathered a series at a
    time by C loops (compress, map, extend): ten years are 1.9 million such points on
    three OSes, and a Python step a point took 1.5 s a night."""
    groups: dict[tuple[str, str, str, str], tuple[list[str], list[float]]] = {}
    for s in model.series.values():
        rs = s.versus_ratio
        idx = list(itertools.compress(range(len(rs)), rs))   # (None or 0: no verdict to draw)
        if not idx:
            continue
        olds = list(map(s.versus_older.__getitem__, idx))
        if s.channel and olds.count(olds[0]) == len(olds):   # the common case: one older side
            parts = {(olds[0], s.channel): idx}
        else:
            parts = {}
            for i, o in zip(idx, olds):
                parts.setdefault((o, s.channel or s.keys[i]["toolchain"]), []).append(i)
        for (older, newer), ps in parts.items():
            dates, ratios = groups.setdefault((s.os, s.key["lang"], older, newer), ([], []))
            dates.extend(map(s.dates.__getitem__, ps))
            ratios.extend(map(rs.__getitem__, ps))
    return groups


def _by_date(dates: list[str], ratios: list[float]) -> list[tuple[str, float, float, float, int]]:
    """Per date, in order, of the ratios above 0: (date, geometric mean, lowest, highest,
    count); numpy's segment reductions over the points sorted by date (a night's dates
    numbered through a dict of the few thousand distinct ones, not sorted as text)."""
    r = np.asarray(ratios, dtype=float)
    days = sorted(dict.fromkeys(dates))
    number = {d: i for i, d in enumerate(days)}
    c = np.fromiter(map(number.__getitem__, dates), dtype=np.int64, count=len(dates))
    keep = r > 0
    if not keep.all():
        r, c = r[keep], c[keep]
    if not len(r):
        return []
    order = np.argsort(c, kind="stable")
    c, r = c[order], r[order]
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    n = np.diff(np.r_[starts, len(r)])
    gm = np.exp(np.add.reduceat(np.log(r), starts) / n)
    low, high = np.minimum.reduceat(r, starts), np.maximum.reduceat(r, starts)
    return list(zip(map(days.__getitem__, c[starts].tolist()), gm.tolist(), low.tolist(), high.tolist(), n.tolist()))


def version_charts(model: trends.Model, datadir: Path) -> list[Chart]:
    """Per OS, language and pair of channels: how the newer compiler's headline (time)
    ratio against the older moved over the nights (the history entries' `versus`,
    same-run verdicts)."""
    charts = []
    for (os_, lang, older, newer), points in sorted(_versus_points(model).items()):
        by_date = _by_date(*points)
        if len(by_date) < 2:
            continue  # one night is the table's row; a line needs two
        rows = [f"{d} {gm:.6g} {low:.6g} {high:.6g} {n}" for d, gm, low, high, n in by_date]
        name = f"versions/{os_}-{lang}-{trends.slug(f'{older}-{newer}')}"
        fname = datadir / f"{name.replace('/', '_')}.dat"
        fname.write_text("\n".join(rows) + "\n", encoding="utf-8")
        colour = lang_colour(lang)
        script = "\n".join([
            f"set title {gq(f'{lang} {newer} against {older} on {os_}: time ratio per night (above 1: newer slower)')} noenhanced",
            "set xdata time", "set timefmt '%Y-%m-%dT%H:%M:%SZ'", f"set format x '{_date_format([p[0] for p in by_date])}'",
            "set xtics rotate by -30", "set grid lc rgb '#dddddd'", "set key top left noenhanced",
            f"set ylabel {gq(f'newer / older ({HEADLINE.label})')}",
            "set arrow from graph 0, first 1 to graph 1, first 1 nohead lc rgb '#444444' dt 2 front",
            f"plot {gq(fname.name)} using 1:2:3:4 with yerrorbars lc rgb '{tint(colour, 0.5)}' title 'lowest .. highest benchmark', \\",
            f"     {gq(fname.name)} using 1:2 with linespoints lc rgb '{colour}' lw 2 pt 7 title 'geometric mean'",
        ])
        charts.append(Chart(name, script, width=860, height=360))
    return charts


class ChartWork:
    """Every chart of the site, in two steps: `prepare` writes the data files (the trend
    charts' are most of the stage's Python) and needs no change point, so the site calls
    it while the change points are searched in worker processes (trends.build's
    `while_searching`: the main process waited there, and drew after it with its Python
    a core and gnuplot the other); `draw` makes the scripts, the trend charts' with their
    change points, and runs gnuplot. Without `prepare` first, `draw` writes each data file
    as gnuplot draws the charts before it (render takes an iterator). The trend charts'
    rows are kept in the folder `kept` (benchpipe.trend_cache)."""

    def __init__(self, model: trends.Model, cat, png_os: str | None = None, keep_sources: Path | None = None,
                 kept: Path | None = None):
        self.model, self.cat, self.png_os, self.kept = model, cat, png_os, kept
        self.own = not keep_sources
        self.work = Path(keep_sources) if keep_sources else Path(tempfile.mkdtemp(prefix="bench-charts-"))
        self.work.mkdir(parents=True, exist_ok=True)
        self.kinds: dict[str, list[Chart]] | None = None
        self.makers: Iterable[Callable[[], Chart]] | None = None

    def _first(self) -> None:
        if self.kinds is None:
            m, cat, work = self.model, self.cat, self.work
            self.kinds = {"bars": bar_charts(m, cat, work, self.png_os), "size": size_charts(m, cat, work),
                          "toolchains": toolchain_charts(m, cat, work), "versions": version_charts(m, work)}
            self.makers = _trend_makers(m, work, cat, self.kept)

    def prepare(self) -> None:
        """Every data file written (the trend charts' scripts wait for their change points)."""
        self._first()
        self.makers = list(self.makers)

    def draw(self, outdir: Path, jobs: int | None = None) -> dict:
        """Every chart into outdir (= <site>/charts). Returns {kind: [names]}."""
        self._first()
        trend: list[Chart] = []

        def made():   # the quick kinds first, then each trend chart as it is made
            for kind in ("bars", "size", "toolchains", "versions"):
                yield from self.kinds[kind]
            for make in self.makers:
                trend.append(make())
                yield trend[-1]
        render(made(), outdir, self.work, jobs)
        return {"bars": [c.name for c in self.kinds["bars"]], "size": [c.name for c in self.kinds["size"]],
                "trend": [c.name for c in trend], "toolchains": [c.name for c in self.kinds["toolchains"]],
                "versions": [c.name for c in self.kinds["versions"]]}

    def close(self) -> None:
        if self.own:
            shutil.rmtree(self.work, ignore_errors=True)


def make_all(model: trends.Model, cat, outdir: Path, jobs: int | None = None, png_os: str | None = None,
             keep_sources: Path | None = None, kept: Path | None = None) -> dict:
    """Every chart of the site into outdir (= <site>/charts), the trend charts' rows
    kept in the folder `kept` (benchpipe.trend_cache). Returns {kind: [names]}."""
    work = ChartWork(model, cat, png_os, keep_sources, kept)
    try:
        return work.draw(outdir, jobs)
    finally:
        work.close()
