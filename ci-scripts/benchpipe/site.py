"""The static site: gnuplot charts and HTML pages from the history, using the templates
and assets in gh-pages/ (jinja2, autoescaped). Works from disk (file://) and on GitHub
Pages: no fetch(), per-scenario data is a .js file assigning a global, loaded with a
<script> tag when the page wants it.

    render(history_dir, out_dir, ...) -> SiteReport

Files written in out_dir: index.html, scenario-<name>.html, regressions.html,
compilers.html (newer compiler against older, same runner), about.html, assets/, charts/ (svg, png), data/<scenario>.js,
.cache/ (change points, summarised months' columns and series, trend charts' rows), .nojekyll.
Nothing else in out_dir is touched (the history, dev/bench/data.js)."""

from __future__ import annotations

import json
import math
import shutil
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import jinja2

from benchpipe import ROOT, catalogue, charts, gcpause, history, measures, series_cache, trends, units, versions
from benchpipe.errors import BenchError
from benchpipe.fsutil import atomic_write_text, swap_dir
from benchpipe.metrics import HEADLINE, METRICS, charted, page_data, trended
from benchpipe.results import family_id, format_params

SITE_SOURCE = ROOT / "gh-pages"
CP_CACHE = Path(".cache") / "changepoints.marshal"  # in the site folder: trends.detect_all's cache
COLUMNS_CACHE = Path(".cache") / "columns"  # in the site folder: summarised months as checked columns (columns_cache)
SERIES_CACHE = Path(".cache") / series_cache.NAME  # beside it: all the summarised months as series (series_cache)
LOAD_CACHE = Path(".cache")  # and what reading the history found (history.load: kinds_cache, entries_cache)
TREND_CACHE = Path(".cache")  # and the trend charts' kept rows (trend_cache: its two files in it)


@dataclass
class SiteReport:
    pages: list[str] = field(default_factory=list)
    charts: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    runs: int = 0
    entries: int = 0

    def times(self) -> str:
        """Where the render's time went, one line: "load 1.2s, model+changepoints 0.4s, ..."."""
        return ", ".join(f"{k} {v:.1f}s" for k, v in self.timings.items())


# --------------------------------------------------------------------------- formatting

def fmt_size(v) -> str:
    return f"{v:,}" if isinstance(v, int) else str(v)


def _json_js(obj) -> str:
    """JSON safe to embed in a script (no '</script>', no U+2028 surprises)."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(SITE_SOURCE / "templates")),
                             autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    # ratio: Rust relative to Go as the seed tables show it (+1.6%: Rust took 1.6% more)
    env.filters.update(time=units.seconds, bytes=units.bytes_, ratio=units.percent, size=fmt_size, value=units.value)
    return env


# --------------------------------------------------------------------------- page models

def overview(model: trends.Model, cat) -> list[dict]:
    """Per scenario and OS, like the seed tables: size | Rust time, memory | Go time,
    memory | Diff (Rust relative to Go), for each charted metric (benchpipe.metrics: the
    timed window, peak memory). Latest results, the headline toolchain per language, Go
    variants paired with their Rust counterparts."""
    shown = charted()
    # The catalogue's builds: each Rust build a column group beside the Go one, in
    # catalogue order; Diff and p99 set the first Rust build against Go.
    go_build = next((b for b in cat.builds.values() if b.lang == "go"), None)
    rust_builds = [b.name for b in cat.builds.values() if b.lang == "rust"]
    go_name = go_build.name if go_build else "go"
    out = []
    for sc_name in [s for s in cat.scenarios if s in model.scenarios] + sorted(set(model.scenarios) - set(cat.scenarios)):
        sc = cat.scenarios.get(sc_name)
        size_param = sc.size if sc else "tasks"
        info = model.scenarios[sc_name]
        vary = trends.varying_params([e["key"] for e in model.latest.values() if e["key"]["scenario"] == sc_name],
                                     size_param)
        tables = []
        for os_ in sorted(info["oses"]):
            latest, go_other = {}, {}
            for o, e in model.headline_latest():
                k = e["key"]
                if o != os_ or k["scenario"] != sc_name:
                    continue
                other = trends.other_params(k, size_param, vary)
                latest[(k["build"], k["variant"], other, k["params"].get(size_param))] = e
                # The Go run a Rust one is set against: the same parameters but Rust's own.
                shared = {**k, "params": sc.shared_params(k["params"])} if sc else k
                go_other[other] = trends.other_params(shared, size_param, vary)
            pairs = trends.pair_variants(sc, info["variants"].get("go", ()), info["variants"].get("rust", ()))
            if not info["variants"].get("go"):
                pairs = [(None, v) for v in sorted(info["variants"].get("rust", ()))]
            rows = []
            for gv, rv in pairs:
                rust = {(o, s) for (b, v, o, s) in latest if b != "go" and v == rv}
                covered = {(go_other[o], s) for o, s in rust}  # Go runs that have a Rust row
                combos = sorted(rust | {(o, s) for (b, v, o, s) in latest
                                        if b == "go" and v == gv and (o, s) not in covered},
                                key=lambda x: (x[0], x[1] if isinstance(x[1], (int, float)) else 0))
                for other, size in combos:
                    go = latest.get((go_name, gv, go_other.get(other, other), size))
                    rust = {b: latest.get((b, rv, other, size)) for b in rust_builds}
                    if not (go or any(rust.values())):
                        continue
                    first = rust[rust_builds[0]] if rust_builds else None
                    broken = [e for e in rust.values() if e and measures.PARITY_BROKEN in e.get("warning", "")]
                    rows.append({"size": size, "other": other, "go_variant": gv, "rust_variant": rv,
                                 "go": go, "rust": rust, "first_rust": first,
                                 # not the same setup on both sides: no ratio, and the reason
                                 "parity": broken[0]["warning"] if broken else "",
                                 # each build's summary of each metric (None: not measured)
                                 "cells": {b: {m.name: m.summary_of(e) if e else None for m in shown}
                                           for b, e in (*rust.items(), (go_name, go))},
                                 "diff": {m.name: None if broken else _ratio(m, first, go) for m in shown}})
            commits = sorted({(e["date"], e["commit"]) for e in latest.values()}, reverse=True)
            # mimalloc's version beside its build: its major version changes its footprint
            mimalloc = sorted({f"mimalloc {e['settings']['mimalloc_version']}" for e in latest.values()
                               if (e.get("settings") or {}).get("mimalloc_version")})
            tables.append({"os": os_, "rows": rows, "glance": glance(rows, rust_builds),
                           "go_tc": model.headline.get((os_, "go")),
                           "mimalloc": ", ".join(mimalloc),
                           "rust_tc": model.headline.get((os_, "rust")),
                           "date": commits[0][0] if commits else "", "commit": commits[0][1] if commits else ""})
        out.append({"name": sc_name, "title": sc.title if sc else sc_name, "size_param": size_param,
                    "tables": tables, "oses": sorted(info["oses"]), "rust_builds": rust_builds, "go_build": go_name})
    return out


def _ratio(metric, a: dict | None, b: dict | None) -> float | None:
    """a's median of the metric over b's (None: either missing, or b's is 0)."""
    x, y = (metric.median_of(a) if a else None), (metric.median_of(b) if b else None)
    return x / y if x is not None and y else None


def _apart(a: dict, b: dict) -> bool:
    """The two 95% intervals of the median do not overlap: the difference is clear."""
    return a["ci_high"] < b["ci_low"] or b["ci_high"] < a["ci_low"]


def glance(rows: list[dict], rust_builds: list[str]) -> list[dict]:
    """The overview's first answer, per Rust build: over the paired rows, the geometric
    mean of Rust's figure relative to Go's for each charted metric (time, memory), the
    lowest and highest ratio, and in how many rows the two 95% intervals are apart (the
    difference is clear)."""
    out = []
    for build in rust_builds:
        item = {"build": build}
        for metric in charted():
            rs = [(metric.summary_of(r["rust"][build]), metric.summary_of(r["go"])) for r in rows
                  if r["rust"].get(build) and r.get("go") and not r.get("parity")]
            rs = [(a, b) for a, b in rs if a and b and a["median"] > 0 and b["median"] > 0]
            if not rs:
                continue
            ratios = [a["median"] / b["median"] for a, b in rs]
            item[metric.name] = {"geomean": math.exp(sum(math.log(x) for x in ratios) / len(ratios)),
                                 "low": min(ratios), "high": max(ratios), "n": len(ratios),
                                 "apart": sum(_apart(a, b) for a, b in rs)}
        if len(item) > 1:
            out.append(item)
    return out


def scenario_data(model: trends.Model, sc_name: str, size_param: str) -> dict:
    """A scenario page's data (data/<scenario>.js, read by site.js): the latest row per
    benchmark and OS, with [median, CI low, CI high] of each compared metric under
    `values` (null: not measured) and the metrics themselves under `metrics`, and the
    trend charts."""
    rows, trend_list = [], {}
    for (os_, kid), e in sorted(model.latest.items()):
        k = e["key"]
        if k["scenario"] != sc_name:
            continue
        chart = trends.trend_chart_name(k, os_)
        rows.append({
            "id": kid, "os": os_, "lang": k["lang"], "build": k["build"], "toolchain": k["toolchain"],
            "channel": e.get("channel", ""),
            "variant": k["variant"], "params": format_params(k["params"]), "size": k["params"].get(size_param),
            "values": {m.name: [st["median"], st["ci_low"], st["ci_high"]] if (st := m.summary_of(e)) else None
                       for m in METRICS.values()},
            "wall": e["time_s"]["median"],
            "p50": (e.get("latency_us") or {}).get("p50"), "p99": (e.get("latency_us") or {}).get("p99"),
            "own": measures.own_memory_of(e),
            "figure": measures.figure_text(e.get("metrics") or {}),
            "warning": e.get("warning", ""),
            "settings": measures.settings_text(e.get("settings") or {}),
            "n": e["time_s"]["n"], "date": e["date"], "commit": e["commit"], "chart": f"charts/{chart}.svg",
        })
        t = trend_list.setdefault(chart, {"chart": f"charts/{chart}.svg", "os": os_, "family": family_id(k),
                                          "build": k["build"], "lang": k["lang"], "variant": k["variant"],
                                          "size": k["params"].get(size_param), "toolchains": [], "changepoints": 0})
        if k["toolchain"] not in t["toolchains"]:
            t["toolchains"].append(k["toolchain"])
        s = model.series.get(trends.series_id(e))
        t["changepoints"] += sum(len(cps) for cps in s.metric_changepoints.values()) if s else 0
    return {"scenario": sc_name, "size_param": size_param, "metrics": [page_data(m) for m in METRICS.values()],
            "rows": rows, "trends": list(trend_list.values())}


def machines(model: trends.Model) -> list[dict]:
    seen = {}
    for r in sorted(model.runs.values(), key=lambda r: r["date"]):
        k = (r["os"], r["runner"], r["cpu_model"], r["cores"], r["memory_bytes"], r["arch"])
        m = seen.setdefault(k, {"os": r["os"], "runner": r["runner"], "cpu_model": r["cpu_model"], "cores": r["cores"],
                                "memory_bytes": r["memory_bytes"], "arch": r["arch"], "runs": 0, "hyperfine": set(),
                                "presets": set(), "first": r["date"], "last": r["date"]})
        m["runs"] += 1
        m["hyperfine"].add(r["hyperfine"])
        m["presets"].add(r["preset"])
        m["last"] = r["date"]
    return list(seen.values())


# --------------------------------------------------------------------------- render

def rendered_before(folder: Path) -> bool:
    """Whether a site was rendered into this folder before (one kept between renders),
    which is where the summarised months' columns and series caches are kept: a first
    render, as on a fresh runner, would write them for nothing."""
    return (Path(folder) / "index.html").is_file()


def render(history_dir, out_dir, *, site_url: str = "", repo_url: str = "", jobs: int | None = None,
           detect: bool = True, keep_chart_sources: Path | None = None, cp_options: dict | None = None) -> SiteReport:
    t0 = time.perf_counter()
    rep = SiteReport()
    out = Path(out_dir)
    created = not out.exists()
    columns = out / COLUMNS_CACHE if (out / COLUMNS_CACHE).is_dir() or rendered_before(out) else None
    out.mkdir(parents=True, exist_ok=True)
    try:
        try:
            with gcpause.paused():   # millions of objects, none garbage before the end
                return _render(out, history_dir, rep, t0, detect, jobs, cp_options, site_url, repo_url,
                               keep_chart_sources, columns)
        except (KeyError, TypeError, AttributeError, IndexError, ValueError):
            # Reading is fast and trusts what checked when it was written; a record edited
            # by hand, its digest recomputed, fails here. Say which, in one line.
            problems = history.check(history_dir)
            if problems:
                raise BenchError(f"{problems[0]} (the site is rendered from a valid history only; "
                                 f"`bench history check` lists every problem)") from None
            raise
    except BaseException:
        # A failed render leaves the site as it was: no half-built folders, and no new
        # output folder at all where there was none.
        for tmp in (".charts-new", ".data-new", ".assets-new"):
            shutil.rmtree(out / tmp, ignore_errors=True)
        if created:
            shutil.rmtree(out, ignore_errors=True)
        raise


def _render(out, history_dir, rep, t0, detect, jobs, cp_options, site_url, repo_url, keep_chart_sources, columns):
    cat = catalogue.load()
    # summarised months are read by trends.build, in parallel, straight into columns
    hist = history.load(history_dir, summaries="rows", cache=out / LOAD_CACHE if columns else None)
    loaded = time.perf_counter() - t0

    t = time.perf_counter()
    work: list[charts.ChartWork] = []

    def chart_work(model: trends.Model) -> charts.ChartWork:
        if not work:
            png_os = "linux" if any("linux" in i["oses"] for i in model.scenarios.values()) else \
                (sorted({o for i in model.scenarios.values() for o in i["oses"]}) or [None])[0]
            work.append(charts.ChartWork(model, cat, png_os, keep_chart_sources, out / TREND_CACHE if columns else None))
        return work[0]

    try:
        # the charts' data written while the change points are searched in worker
        # processes (a core each), where this process only waited
        model = trends.build(hist, cat, detect=detect, cache_path=out / CP_CACHE, jobs=jobs,
                             cp_options=cp_options, columns_cache_dir=columns,
                             series_cache_path=out / SERIES_CACHE if columns else None,
                             while_searching=lambda m: chart_work(m).prepare())
        rep.runs, rep.entries = len(hist.runs), hist.count
        rep.timings["load"] = loaded + model.read_s   # the history, its summarised months included
        rep.timings["model+changepoints"] = time.perf_counter() - t - model.read_s

        t = time.perf_counter()
        tmp_charts = out / ".charts-new"
        shutil.rmtree(tmp_charts, ignore_errors=True)
        tmp_charts.mkdir(parents=True)
        rep.charts = chart_work(model).draw(tmp_charts, jobs)
    finally:
        for w in work:
            w.close()
    swap_dir(tmp_charts, out / "charts")
    rep.timings["charts"] = time.perf_counter() - t
    png_os = work[0].png_os

    t = time.perf_counter()
    env = _env()
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    scen_overview = overview(model, cat)
    chart_set = set(rep.charts["bars"]) | set(rep.charts["size"]) | set(rep.charts["toolchains"])
    # the overview's thumbnail per scenario: its bar chart drawn as PNG too (charts.bar_charts)
    thumbs = {name.split("/")[0]: name for name in rep.charts["bars"] if (out / "charts" / f"{name}.png").exists()}
    nav = [{"name": s["name"], "title": s["title"]} for s in scen_overview]
    # the templates loop over the compared metrics (benchpipe.metrics): every page gets them
    common = {"metrics": METRICS, "headline": HEADLINE, "overview_metrics": charted(), "trend_metrics": trended(), "builds": cat.builds,
              "generated": generated, "site_url": site_url.rstrip("/"), "repo_url": repo_url.rstrip("/"),
              "nav": nav, "runs": len(hist.runs), "latest_run": max(hist.runs.values(), key=lambda r: r["date"], default=None)}

    tmp_data = out / ".data-new"
    shutil.rmtree(tmp_data, ignore_errors=True)
    tmp_data.mkdir(parents=True)
    pages = {}
    pages["index.html"] = env.get_template("index.html.j2").render(
        page="index", scenarios=scen_overview, charts=chart_set, png_os=png_os, thumbs=thumbs, **common)
    for s in scen_overview:
        data = scenario_data(model, s["name"], s["size_param"])
        atomic_write_text(tmp_data / f"{s['name']}.js",
                          "window.BENCH_DATA = window.BENCH_DATA || {};\n"
                          f"window.BENCH_DATA[{_json_js(s['name'])}] = {_json_js(data)};\n")
        info = model.scenarios[s["name"]]
        sc = cat.scenarios.get(s["name"])
        tc_charts = [c for c in rep.charts["toolchains"] if c.startswith(f"{s['name']}/")]
        pages[f"scenario-{s['name']}.html"] = env.get_template("scenario.html.j2").render(
            page="scenario", scenario=s, sc=sc, info={k: sorted(v) if isinstance(v, set) else v for k, v in info.items()},
            toolchains=sorted({t for v in info["toolchains"].values() for t in v}, key=trends.version_tuple, reverse=True),
            variants=sorted({v for vs in info["variants"].values() for v in vs}),
            sizes=sorted(info["sizes"], key=lambda x: (isinstance(x, str), x)),
            bar_charts=[c for c in rep.charts["bars"] if c.startswith(f"{s['name']}/")],
            size_charts=[c for c in rep.charts["size"] if c.startswith(f"{s['name']}/")],
            tc_charts=tc_charts, data_file=f"data/{s['name']}.js", **common)
    pages["regressions.html"] = env.get_template("regressions.html.j2").render(
        page="regressions", changes=model.regressions, cp_window=trends.WINDOW, cp_step=trends.STEP, **common)
    by_os = versions.rows(model)
    pages["compilers.html"] = env.get_template("compilers.html.j2").render(
        page="compilers", oses=by_os, summaries={o: versions.summary(rs) for o, rs in by_os.items()},
        version_charts={o: [c for c in rep.charts["versions"] if c.startswith(f"versions/{o}-")] for o in by_os},
        **common)
    pages["about.html"] = env.get_template("about.html.j2").render(
        page="about", presets=cat.presets, catalogue=cat, machines=machines(model), cp_options=cp_options or {},
        toolchains=sorted({(r["os"], tc, v) for r in hist.runs.values() for tc, v in r["toolchains"].items()}), **common)
    swap_dir(tmp_data, out / "data")

    tmp_assets = out / ".assets-new"
    shutil.rmtree(tmp_assets, ignore_errors=True)
    shutil.copytree(SITE_SOURCE / "static", tmp_assets)
    swap_dir(tmp_assets, out / "assets")
    for old in out.glob("scenario-*.html"):
        if old.name not in pages:
            old.unlink()
    for name, html in pages.items():
        atomic_write_text(out / name, html)
    atomic_write_text(out / ".nojekyll", "")
    rep.pages = sorted(pages)
    rep.timings["pages"] = time.perf_counter() - t
    rep.timings["total"] = time.perf_counter() - t0
    return rep
