"""`bench site`: gnuplot charts and the static pages from a history; escaping; change
points on the regressions page; the page data as <script>-loadable .js files."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from benchpipe import metrics, site
from sitehelp import XSS, make_history

BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site")
    hist = make_history(tmp)
    rep = site.render(hist, tmp / "site", repo_url="https://github.com/o/r", jobs=2)
    return tmp, rep


def test_pages_and_charts(built):
    tmp, rep = built
    out = tmp / "site"
    assert rep.pages == ["about.html", "compilers.html", "index.html", "regressions.html", "scenario-cpu.html",
                         "scenario-sleep.html"]
    for kind in ("bars", "size", "trend", "toolchains"):
        assert rep.charts[kind], kind
    svgs = list((out / "charts").rglob("*.svg"))
    # every chart once, and each bar chart's stacked phone twin (-narrow.svg) beside it
    assert len(svgs) == sum(len(v) for v in rep.charts.values()) + len(rep.charts["bars"])
    assert all((out / "charts" / f"{c}-narrow.svg").is_file() for c in rep.charts["bars"])
    for svg in svgs:
        text = svg.read_text()
        assert text.lstrip().startswith("<?xml") and "<svg" in text and "</svg>" in text, svg
        assert "<script>alert" not in text, svg  # gnuplot escapes titles and legends
    # per scenario, OS and size: Go against Rust in bars (sleep ran at tasks 10 and 100)
    for sc, sizes in (("sleep", 2), ("cpu", 1)):
        for os_ in ("linux", "windows"):
            assert len([c for c in rep.charts["bars"] if c.startswith(f"{sc}/bars-{os_}-")]) == sizes, (sc, os_)
    # one PNG thumbnail per scenario, of the largest size on linux, and the overview shows it
    pngs = sorted(p.relative_to(out / "charts").as_posix() for p in (out / "charts").rglob("*.png"))
    assert [p.split("/")[0] for p in pngs] == ["cpu", "sleep"] and all("/bars-linux-" in p for p in pngs)
    assert all(png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for png in (out / "charts").rglob("*.png"))
    index = (out / "index.html").read_text()
    assert all(f'src="charts/{p}"' in index for p in pngs)
    sleep_bars = (out / f"charts/{[c for c in rep.charts['bars'] if c.startswith('sleep/bars-linux-')][0]}.svg").read_text()
    for label in ("timed window (ms)", "p99 task latency", "peak memory (MiB)", "Go goroutines", "Rust (mimalloc) tokio"):
        assert label in sleep_bars, label
    # the phone twin: the same panels and labels, stacked in a chart 380 wide
    narrow = (out / f"charts/{[c for c in rep.charts['bars'] if c.startswith('sleep/bars-linux-')][0]}-narrow.svg").read_text()
    assert 'viewBox="0 0 380 ' in narrow
    for label in ("timed window (ms)", "p99 task latency", "peak memory (MiB)", "Go goroutines", "Rust (mimalloc) tokio",
                  "median of the runs, whiskers: 95% CI"):
        assert label in narrow, label
    # against the size only where the latest runs have two sizes or more
    for os_ in ("linux", "windows"):
        for metric in ("time", "memory"):
            assert (out / f"charts/sleep/size-{os_}-{metric}.svg").stat().st_size > 1000
    assert not [c for c in rep.charts["size"] if c.startswith("cpu/")]
    # toolchain charts: newer against older, per OS and language
    assert "sleep/toolchains-linux-go" in rep.charts["toolchains"]
    # colours: Go blue and Rust orange in the same chart
    for chart in (sleep_bars, (out / "charts/sleep/size-linux-time.svg").read_text()):
        for rgb in ((31, 119, 180), (255, 127, 14), (179, 71, 0)):  # Go, Rust system, Rust mimalloc
            assert re.search(r"rgb\(\s*%d,\s*%d,\s*%d\)" % rgb, chart), rgb


def test_everything_is_escaped(built):
    tmp, _ = built
    out = tmp / "site"
    for page in out.glob("*.html"):
        html = page.read_text()
        assert XSS not in html, page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in (out / "index.html").read_text()
    js = (out / "data/sleep.js").read_text()
    assert XSS not in js and "\\u003cscript\\u003e" in js
    assert js.startswith("window.BENCH_DATA = window.BENCH_DATA || {};")
    body = js.split(" = ", 2)[2].rstrip().rstrip(";")
    data = json.loads(body)
    assert any(f"x{XSS}" in r["settings"] for r in data["rows"])
    assert {"os", "toolchain", "variant", "size", "values", "chart"} <= set(data["rows"][0])
    assert [m["name"] for m in data["metrics"]] == list(metrics.METRICS) == list(data["rows"][0]["values"])


def test_overview_tables_like_the_seed(built):
    tmp, _ = built
    html = (tmp / "site/index.html").read_text()
    for word in ("Rust", "Go", "Diff (Rust vs Go)", "Rust (mimalloc)", "linux", "windows", "Many sleeping coroutines"):
        assert word in html
    assert re.search(r'class="num diff[^"]*">[+-]\d+\.\d%<', html)
    assert "Go go1.26.8, Rust rust1.95.0" in html  # headline toolchains: the newest releases


def test_regressions_page_lists_the_shift_newest_first(built):
    tmp, rep = built
    html = (tmp / "site/regressions.html").read_text()
    rows = re.findall(r'<tr class="(regression|improvement)">\s*<td>([0-9-]+)</td>', html)
    assert rows and all(kind == "regression" for kind, _ in rows)
    dates = [d for _, d in rows]
    assert dates == sorted(dates, reverse=True)
    assert "rust-system" in html and "rust-mimalloc" not in html.split("<tbody>")[1]
    assert "https://github.com/o/r/compare/" in html


def test_about_page_says_how(built):
    tmp, _ = built
    html = (tmp / "site/about.html").read_text()
    for word in ("hyperfine", "warm-up", "standard", "Synthetic CPU", "confidence interval", "E-Divisive", "go1.25.9"):
        assert word in html, word


def test_rerender_uses_the_change_point_cache(built):
    tmp, _ = built
    rep = site.render(tmp / "history", tmp / "site", jobs=2)
    assert (tmp / "site" / site.CP_CACHE).exists()
    assert rep.timings["model+changepoints"] < 5


def test_cli_site_and_errors(tmp_path):
    hist = make_history(tmp_path, days=2, oses=("linux",))
    p = subprocess.run([str(BENCH), "site", "--history", hist, "--out", tmp_path / "out", "--no-changepoints"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "out/index.html").exists() and "pages" in p.stdout
    p = subprocess.run([str(BENCH), "site", "--history", tmp_path / "missing", "--out", tmp_path / "o2"],
                       capture_output=True, text=True)
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and "no such history directory" in p.stderr
    # a broken history file stops the site with its path
    f = next(hist.rglob("2026-03.json"))
    f.write_text("{broken")
    p = subprocess.run([str(BENCH), "site", "--history", hist, "--out", tmp_path / "o3"], capture_output=True, text=True)
    assert p.returncode == 1 and str(f) in p.stderr


def test_empty_history_gives_a_site(tmp_path):
    (tmp_path / "h").mkdir()
    rep = site.render(tmp_path / "h", tmp_path / "out")
    assert "The history is empty" in (tmp_path / "out/index.html").read_text()
    assert rep.pages == ["about.html", "compilers.html", "index.html", "regressions.html"]


def test_change_points_incremental_reuse(tmp_path, monkeypatch):
    """Change points are searched in windows whose results are cached by their values:
    an unchanged series is not analysed at all, one that grew by a night only in its
    newest window, and what the cache holds never changes the answer."""
    import random

    from benchpipe import changepoint_windows, changepoints, trends

    rng = random.Random(1)
    vals = [1.0 + rng.gauss(0, 0.01) for _ in range(150)] + [1.3 + rng.gauss(0, 0.01) for _ in range(150)]

    def mk(n):
        return [f"c{i}" for i in range(n)], [f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z" for i in range(n)], vals[:n]
    searched = []
    real = changepoints.candidates
    monkeypatch.setattr(changepoints, "candidates", lambda v, **o: (searched.append(len(v)), real(v, **o))[1])
    cache = tmp_path / "cp.json"
    first = trends.detect_all({"s": mk(280)}, cache, jobs=1, window=100, step=50)
    assert [cp["index"] for cp in first["s"]] == [150] and first["s"][0]["direction"] == "regression"
    assert searched == [100, 100, 100, 100, 80]  # windows from 0, 50, 100, 150 and 200
    again = trends.detect_all({"s": mk(280)}, cache, jobs=1, window=100, step=50)
    assert again == first and len(searched) == 5  # cached: not analysed again
    grown = trends.detect_all({"s": mk(300)}, cache, jobs=1, window=100, step=50)
    assert searched[5:] == [100]  # only the newest window, 200-300
    assert [cp["index"] for cp in grown["s"]] == [150] and grown["s"][0]["commit"] == "c150"
    assert grown == trends.detect_all({"s": mk(300)}, None, jobs=1, window=100, step=50)  # as a cold render
    doc = json.loads(cache.read_text())
    # (window_keys, from one buffer, gives each window's own window_key)
    assert len(doc["windows"]) == 5 and doc["series"]["s"]["windows"] == [
        changepoint_windows.window_key(vals[a:b]) for a, b in ((0, 100), (50, 150), (100, 200), (150, 250), (200, 300))]
    # another layout of the cache (or a damaged one) is started afresh, not trusted
    cache.write_text(json.dumps({**doc, "step": 40}))
    before = len(searched)
    assert trends.detect_all({"s": mk(300)}, cache, jobs=1, window=100, step=50) == grown
    assert len(searched) == before + 5
    cache.write_text("{not json")
    assert trends.detect_all({"s": mk(300)}, cache, jobs=1, window=100, step=50) == grown


def test_a_grown_series_hashes_only_its_new_windows(tmp_path, monkeypatch):
    """A series that grew keeps the keys of the windows it had (its earlier values
    unchanged, checked by their digest) and hashes only the windows past them; an
    earlier value changed, every window is hashed again; the keys and the change points
    are those of a render without the cache."""
    import random

    from benchpipe import changepoint_windows, trends

    rng = random.Random(5)
    vals = [1.0 + rng.gauss(0, 0.01) for _ in range(150)] + [1.3 + rng.gauss(0, 0.01) for _ in range(150)]

    def mk(values):
        n = len(values)
        return {"s": ([f"c{i}" for i in range(n)], [f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}Z" for i in range(n)],
                      values)}
    hashed = []
    real = trends.window_keys
    monkeypatch.setattr(trends, "window_keys", lambda v, spans: (hashed.append(len(spans)), real(v, spans))[1])
    cache = tmp_path / site.CP_CACHE
    trends.detect_all(mk(vals[:280]), cache, jobs=1, window=100, step=50)
    assert hashed == [5]
    for data, want in ((vals, [1]), (vals[:10] + [9.0] + vals[11:301], [5])):
        del hashed[:]
        got = trends.detect_all(mk(data), cache, jobs=1, window=100, step=50)
        assert hashed == want
        assert got == trends.detect_all(mk(data), None, jobs=1, window=100, step=50)
        doc = trends.read_cache(cache, trends.cache_stamp(window=100, step=50))
        assert doc["series"]["s"]["windows"] == [changepoint_windows.window_key(data[a:b]) for a, b in
                                                 changepoint_windows.windows(len(data), 100, 50)]
    del hashed[:]
    trends.detect_all(mk(data), cache, jobs=1, window=100, step=50)
    assert hashed == []   # unchanged: nothing hashed


def test_the_site_keeps_its_change_point_cache_in_a_marshal_frame(tmp_path, monkeypatch):
    """A site folder's change-point cache (site.CP_CACHE) is framed marshal: read back as
    written, a damaged or truncated one is searched past, and the JSON file the code
    before kept there is read once, then removed."""
    import random

    from benchpipe import changepoints, trends

    rng = random.Random(3)
    vals = [1.0 + rng.gauss(0, 0.01) for _ in range(130)] + [1.2 + rng.gauss(0, 0.01) for _ in range(100)]
    data = {"s": ([f"c{i}" for i in range(230)], [f"2026-01-01T{i // 60:02d}:{i % 60:02d}Z" for i in range(230)], vals)}
    searched = []
    real = changepoints.candidates
    monkeypatch.setattr(changepoints, "candidates", lambda v, **o: (searched.append(len(v)), real(v, **o))[1])
    truth = trends.detect_all(data, None, jobs=1)
    assert [cp["index"] for cp in truth["s"]] == [130]
    cache = tmp_path / site.CP_CACHE
    assert cache.suffix == ".marshal"
    assert trends.detect_all(data, cache, jobs=1) == truth
    assert cache.read_bytes().startswith(b"bench-changepoints/1 marshal ")
    kept = trends.read_cache(cache, trends.cache_stamp())
    assert set(kept["series"]) == {"s"} and len(kept["windows"]) == 2 and len(kept["newest"]) == 1
    del searched[:]
    assert trends.detect_all(data, cache, jobs=1) == truth and searched == []   # nothing searched again
    good = cache.read_bytes()
    for bad in (good[:-7], good[:-40] + bytes(40), good.replace(b"bench-changepoints/1", b"bench-changepoints/0")):
        cache.write_bytes(bad)
        del searched[:]
        assert trends.detect_all(data, cache, jobs=1) == truth and len(searched) == 3, bad[:30]
    # the older code's JSON beside it: read once (nothing searched), then only the marshal kept
    legacy = cache.with_suffix(".json")
    legacy.write_text(json.dumps(kept))
    cache.unlink()
    del searched[:]
    assert trends.detect_all(data, cache, jobs=1) == truth and searched == []
    assert trends.read_cache(cache, trends.cache_stamp()) == kept and not legacy.exists()
    # as `bench publish` starts a render: the branch's full windows seed a site cache only
    # where the site has none it can use; a legacy JSON is its own (not seeded past)
    shared = {**trends.cache_stamp(), "windows": {k: v for k, v in kept["windows"].items()}}
    legacy.write_text(json.dumps(kept))
    cache.unlink()
    trends.seed_cache(cache, shared)
    assert not cache.exists()
    del searched[:]
    assert trends.detect_all(data, cache, jobs=1) == truth and searched == [] and not legacy.exists()
    cache.write_bytes(b"bench-changepoints/1 marshal from another Python\n...")   # unreadable: none
    trends.seed_cache(cache, shared)
    assert trends.read_cache(cache, trends.cache_stamp())["windows"] == kept["windows"]
    del searched[:]
    assert trends.detect_all(data, cache, jobs=1) == truth and searched == [110]   # the newest window only


def _detect_by_id(args):
    """trends._detect_one, in a worker that must have been given a series' id, not the
    series pickled (module level: the pool pickles the function by its name)."""
    from benchpipe import trends
    assert isinstance(args[0], str) and args[0] in trends._FORKED, type(args[0])
    return _REAL_DETECT_ONE(args)


def _real_detect_one():
    from benchpipe import trends
    return trends._detect_one


_REAL_DETECT_ONE = _real_detect_one()


def test_change_points_searched_in_forked_workers_are_those_of_one_process(tmp_path, monkeypatch):
    """detect_all's pool (the workers read each series from memory shared at the fork,
    changepoints.Columns rather than a Point a night) finds what one process finds, and
    changepoints.detect finds the same on columns as on Points."""
    import random

    from benchpipe import changepoints, trends

    rng = random.Random(7)
    series = {}
    for k in range(12):
        n = 200 + 10 * k
        vals = [1.0 + rng.gauss(0, 0.01) + (0.2 if i > n // 2 else 0) * (k % 2) for i in range(n)]
        series[f"s{k}"] = ([f"c{k}-{i}" for i in range(n)], [f"2026-01-01T{i // 60:02d}:{i % 60:02d}Z" for i in range(n)],
                           vals)
    one = trends.detect_all(series, None, jobs=1, window=100, step=50)
    if trends._fork_context() is None:
        pytest.skip("forked workers: Linux only")
    monkeypatch.setattr(trends, "_detect_one", _detect_by_id)
    assert trends.detect_all(series, tmp_path / "cp.json", jobs=2, window=100, step=50) == one
    assert not trends._FORKED   # nothing kept after the pool
    assert sum(len(cps) for cps in one.values()) == 6 and all(cps[0]["commit"] for cps in one.values() if cps)
    commits, dates, vals = series["s1"]
    points = [changepoints.Point(c, d, v) for c, d, v in zip(commits, dates, vals)]
    cols = changepoints.Columns(commits, dates, vals)
    assert changepoints.detect(cols, window=100, step=50) == changepoints.detect(points, window=100, step=50)
    assert list(cols)[5] == points[5] and cols[5] == points[5] and len(cols) == len(points)
    with pytest.raises(ValueError):
        changepoints.Columns(commits, dates[:-1], vals)


def test_windowed_change_points_cost_grows_with_n_and_find_what_the_whole_series_shows():
    """Ten years of nights in windows: the steps a whole-series search finds are found
    at the same nights, and no window is searched twice."""
    import random

    from benchpipe import changepoints
    from benchpipe.changepoint_windows import core, windows

    spans = windows(3650, 120, 60)
    assert spans[0] == (0, 120) and spans[-1][1] == 3650 and len(spans) == 60
    cores = [core(k, len(spans), a, b, 120, 60) for k, (a, b) in enumerate(spans)]
    assert cores[0][0] == 0 and cores[-1][1] == 3650
    assert all(x[1] == y[0] for x, y in zip(cores, cores[1:]))  # the cores tile the series
    assert windows(120, 120, 60) == [(0, 120)] and windows(121, 120, 60) == [(0, 120), (60, 121)]
    for n in range(1, 400):   # the cores tile every length
        sp = windows(n, 120, 60)
        cs = [core(k, len(sp), a, b, 120, 60) for k, (a, b) in enumerate(sp)]
        assert cs[0][0] == 0 and cs[-1][1] == n and all(x[1] == y[0] for x, y in zip(cs, cs[1:])), n
    for window, step in ((100, 150), (1, 0), (10, 0)):
        with pytest.raises(ValueError):
            windows(300, window, step)
    rng = random.Random(7)
    steps = {300: 1.10, 700: 1.0, 1000: 0.85}  # +10 % at 300, back at 700, -15 % at 1000
    level, vals = 1.0, []
    for i in range(1200):
        level = steps.get(i, level)
        vals.append(level * (1 + rng.gauss(0, 0.02)))
    pts = [changepoints.Point(f"c{i}", f"t{i:05d}", v) for i, v in enumerate(vals)]
    whole = [cp.index for cp in changepoints.detect(pts)]
    known = {}
    windowed = [cp.index for cp in changepoints.detect(pts, window=120, step=60, known=known)]
    assert windowed == whole == [300, 700, 1000]
    assert len(known) == len(windows(1200, 120, 60))


def test_glance_answers_which_is_faster_by_how_much_and_how_sure():
    def e(median, lo, hi):
        st = {"median": median, "ci_low": lo, "ci_high": hi}
        return {"window_s": st, "time_s": st, "memory_bytes": st}
    def row(go, rs, rm):
        return {"go": go, "rust": {"rust-system": rs, "rust-mimalloc": rm}}
    rows = [row(e(1.0, 0.95, 1.05), e(0.5, 0.48, 0.52), None),            # clearly apart
            row(e(1.0, 0.95, 1.05), e(2.0, 0.5, 3.0), e(1.0, 0.9, 1.1)),  # overlapping
            row(None, e(9.0, 8.0, 10.0), None)]                            # no Go counterpart
    (rs, rm) = site.glance(rows, ["rust-system", "rust-mimalloc"])
    assert rs["build"] == "rust-system" and rs["time"]["n"] == 2 and rs["time"]["apart"] == 1
    assert rs["time"]["geomean"] == pytest.approx(1.0) and (rs["time"]["low"], rs["time"]["high"]) == (0.5, 2.0)
    assert rm["build"] == "rust-mimalloc" and rm["memory"]["n"] == 1 and rm["memory"]["apart"] == 0


def test_the_overview_has_a_column_group_per_catalogue_build(built, cat):
    """The builds come from the catalogue (label and colour), not from the template."""
    tmp, _ = built
    index = (tmp / "site" / "index.html").read_text()
    for b in cat.builds.values():
        assert f'class="build-{b.name}">{b.label}</th>' in index, b.name
        assert f"th.build-{b.name} {{ color: {b.colour}; }}" in index


def test_overview_leads_with_the_glance(built):
    tmp, _ = built
    index = (tmp / "site" / "index.html").read_text()
    first_table = index.index("<table")
    assert 'class="glance"' in index[:first_table] and "Go's time" in index[:first_table]


def test_the_charts_data_is_written_while_the_change_points_are_searched(tmp_path, monkeypatch):
    """The site writes the charts' data files while worker processes search the change
    points (charts.ChartWork.prepare, called from trends.build's while_searching), and
    the charts are byte for byte those drawn without it (each data file written as
    gnuplot draws), their change points marked."""
    import multiprocessing

    from benchpipe import charts, trends

    if trends._fork_context() is None:
        pytest.skip("the search's worker processes: forked on Linux only")
    hist = make_history(tmp_path, days=8)
    seen = []
    real = charts.ChartWork.prepare

    def prepare(self):
        seen.append(len(multiprocessing.active_children()))
        assert not any(s.metric_changepoints for s in self.model.series.values())   # none yet
        real(self)
    monkeypatch.setattr(charts.ChartWork, "prepare", prepare)
    site.render(hist, tmp_path / "meanwhile", jobs=2)
    assert seen == [2]   # once, beside the two workers
    monkeypatch.setattr(charts.ChartWork, "prepare", lambda self: seen.append("skipped"))
    site.render(hist, tmp_path / "after", jobs=2)
    assert seen == [2, "skipped"]
    a, b = tmp_path / "meanwhile" / "charts", tmp_path / "after" / "charts"
    names = sorted(p.relative_to(a).as_posix() for p in a.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(b).as_posix() for p in b.rglob("*") if p.is_file())
    assert all((a / n).read_bytes() == (b / n).read_bytes() for n in names)
    assert any(">change point<" in (a / n).read_text() for n in names if "/trend-" in n)   # the legend's


def test_a_failure_while_the_change_points_are_searched_leaves_nothing_behind(tmp_path, monkeypatch):
    """A chart stage that fails while the workers search (ChartWork.prepare) fails the
    render with its one line, leaves no new site folder and no temp folder of chart
    sources, and the pool is shut down."""
    import multiprocessing
    import tempfile

    from benchpipe import charts, trends
    from benchpipe.errors import BenchError

    if trends._fork_context() is None:
        pytest.skip("the search's worker processes: forked on Linux only")
    hist = make_history(tmp_path, days=6)

    def boom(self):
        raise BenchError("disk full")
    monkeypatch.setattr(charts.ChartWork, "prepare", boom)
    before = set(Path(tempfile.gettempdir()).glob("bench-charts-*"))
    with pytest.raises(BenchError, match="^disk full$"):
        site.render(hist, tmp_path / "site", jobs=2)
    assert not (tmp_path / "site").exists()
    assert set(Path(tempfile.gettempdir()).glob("bench-charts-*")) == before
    assert not multiprocessing.active_children() and not trends._FORKED
