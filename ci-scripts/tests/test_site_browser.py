"""The site in a real browser: headless Chromium (/usr/bin/chromium) driven by
playwright-core (tests/browser/test.mjs), from pytest. Every page loads without console
errors, the charts load with a nonzero size, a filter changes what is shown, and a
benchmark name and a commit message containing <script>alert(1)</script> are shown as
text without a dialog. Skipped only when chromium or node are missing outside CI."""

import json
import os
import shutil
import subprocess
from pathlib import Path

from benchpipe import site
from conftest import unavailable
from sitehelp import XSS, make_history

BROWSER_DIR = Path(__file__).resolve().parent / "browser"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _need_browser():
    missing = [what for what, ok in (("chromium", Path(CHROMIUM).exists()), ("node", shutil.which("node")),
                                     ("npm", shutil.which("npm"))) if not ok]
    if missing:
        msg = f"{', '.join(missing)} not installed (apt-get install chromium nodejs npm)"
        unavailable(msg, f"browser test cannot run under CI: {msg}")
    if not (BROWSER_DIR / "node_modules" / "playwright-core").exists():
        p = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=BROWSER_DIR, capture_output=True, text=True)
        assert p.returncode == 0, f"npm ci in {BROWSER_DIR} failed: {p.stderr[-500:]}"


def run_browser(site_dir, *extra):
    p = subprocess.run(["node", str(BROWSER_DIR / "test.mjs"), str(site_dir), *extra], capture_output=True,
                       text=True, timeout=300)
    summary = json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else {}
    return p, summary


def test_site_in_headless_chromium(tmp_path):
    _need_browser()
    hist = make_history(tmp_path, days=8)
    site.render(hist, tmp_path / "site", jobs=2)
    shot = tmp_path / "overview.png"
    # BENCH_SCREENSHOTS=DIR keeps the screenshots of every page (1400 px and phone width)
    shots = Path(os.environ.get("BENCH_SCREENSHOTS") or tmp_path / "shots")
    shots.mkdir(parents=True, exist_ok=True)
    p, summary = run_browser(tmp_path / "site", "--xss", XSS, "--screenshot", shot, "--shots", shots)
    assert p.returncode == 0, p.stderr
    assert summary["failures"] == 0 and summary["dialogs"] == 0
    pages = summary["pages"]
    assert set(pages) == {"index.html", "about.html", "regressions.html", "compilers.html", "scenario-cpu.html",
                          "scenario-sleep.html"}
    # every page at 1400 px and at phone width: laid out without text over text or sideways scrolling
    assert set(summary["layout"]) == {f"{n}@{w}" for n in pages for w in ("1400", "390")}
    assert not any(summary["layout"].values()), summary["layout"]
    assert sorted(f.name for f in shots.glob("*.png")) == sorted(f"{n[:-5]}-{w}.png" for n in pages for w in ("1400", "390"))
    # the Compiler versions page: a verdict on every row, regressions first, the run's
    # commit message (hostile here) shown as text
    tables = pages["compilers.html"]["verdicts"]  # one table per OS
    order = ["regression", "improvement", "too few samples", "no change"]
    assert len(tables) == 2 and all(len(t) >= 4 for t in tables)
    for verdicts in tables:
        assert set(verdicts) <= set(order)
        assert [order.index(v) for v in verdicts] == sorted(order.index(v) for v in verdicts)
    assert "time ratio [95% CI]" in pages["compilers.html"]["version_headers"]
    assert pages["compilers.html"]["images"] == 4  # over the nights: per OS, Go's pair and Rust's (each loaded)
    assert "compilers.html" in summary["xss_shown_on"]
    assert pages["scenario-sleep.html"]["filter_changed"] and pages["scenario-sleep.html"]["images"] > 4
    assert "scenario-sleep.html" in summary["xss_shown_on"] and "index.html" in summary["xss_shown_on"]
    assert shot.stat().st_size > 10_000
    # what each scenario measures is on the page: the timed window first, with the CPU
    # inside it, the process wall, the task latency percentiles and the scenario figure
    cpu = pages["scenario-cpu.html"]
    for header in ("window", "CPU in window", "process wall", "p50 / p99", "scenario figure"):
        assert header in cpu["headers"], cpu["headers"]
    cells = dict(zip(cpu["headers"], cpu["first_row"]))
    assert cells["window"].endswith("s") and cells["process wall"].endswith("s"), cells
    assert "p99 sojourn" in " ".join(pages["index.html"]["overview_headers"])
    assert "timed window" in pages["index.html"]["lead"]


def test_browser_check_catches_a_broken_chart(tmp_path):
    """The browser check can fail: a chart that does not load is reported."""
    _need_browser()
    hist = make_history(tmp_path, days=2, oses=("linux",))
    site.render(hist, tmp_path / "site", jobs=2, detect=False)
    (tmp_path / "site/charts/sleep/size-linux-time.svg").write_text("not an svg")
    p, summary = run_browser(tmp_path / "site", "--page", "scenario-sleep.html")
    assert p.returncode == 1 and "size-linux-time.svg did not load" in p.stderr


def test_browser_check_catches_overlapping_text_and_a_page_too_wide(tmp_path):
    """The layout check can fail: a heading drawn over the lead paragraph, and a fixed
    1000 px block on a phone, are both reported."""
    _need_browser()
    hist = make_history(tmp_path, days=2, oses=("linux",))
    site.render(hist, tmp_path / "site", jobs=2, detect=False)
    css = tmp_path / "site/assets/style.css"
    css.write_text(css.read_text() + "\nh1 { position: absolute; top: 60px; }\np.lead { position: absolute; top: 60px; }"
                   "\nsection.scenario { min-width: 1000px; }\n")
    p, _ = run_browser(tmp_path / "site", "--page", "index.html")
    assert p.returncode == 1
    assert "index.html at 390 px: text over text" in p.stderr
    assert "index.html at 390 px: the page scrolls sideways" in p.stderr or "wider than the screen" in p.stderr
