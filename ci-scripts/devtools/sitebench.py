"""Benchmark of the site stage (not a test): site generation time and overview load time
in headless Chromium, on a synthetic history (default: a year of nightly runs, 3 OSes,
2 toolchains per language, every `standard` benchmark of the catalogue).

    python -m devtools.sitebench --work DIR [--days 365] [--screenshot FILE]

Writes DIR/history (once; reused when present), DIR/site, and prints the figures."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchpipe import CI_SCRIPTS, site
from devtools import synthetic

BROWSER_DIR = CI_SCRIPTS / "tests" / "browser"


def browser_missing() -> str | None:
    """What to install for the overview's load time (the browser test), or None."""
    if not shutil.which("node"):
        return "node not found: install Node.js and npm (apt-get install nodejs npm), then run " \
               f"`npm ci` in {BROWSER_DIR}"
    if not (BROWSER_DIR / "node_modules" / "playwright-core").is_dir():
        return f"the browser test's npm packages are missing: run `npm ci` in {BROWSER_DIR} " \
               "(or ci-scripts/install-tools.sh)"
    return None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--days", type=int, default=365)
    p.add_argument("--jobs", type=int, default=None)
    p.add_argument("--screenshot", type=Path)
    p.add_argument("--cold", action="store_true", help="remove the change-point cache first")
    p.add_argument("--incremental", action="store_true", help="also time adding one more night and re-rendering")
    a = p.parse_args(argv)
    missing = browser_missing()  # before minutes of work, not after
    if missing:
        print(f"sitebench: {missing}", file=sys.stderr)
        return 2
    hist = a.work / "history"
    if not (hist / "runs").exists():
        t = time.perf_counter()
        synthetic.main(["--days", str(a.days), "--out", str(hist)])
        print(f"history generated in {time.perf_counter() - t:.1f} s")
    out = a.work / "site"
    if a.cold:
        for cache in (out / site.CP_CACHE, (out / site.CP_CACHE).with_suffix(".json")):   # (and older code's)
            cache.unlink(missing_ok=True)
    t = time.perf_counter()
    rep = site.render(hist, out, jobs=a.jobs)
    gen = time.perf_counter() - t
    charts = sum(len(v) for v in rep.charts.values())
    print(f"site: {rep.runs} runs, {rep.entries} entries, {len(rep.pages)} pages, {charts} charts in {gen:.1f} s "
          f"({rep.times()})")
    if a.incremental:
        # the nightly case: the same history plus one more night (3 OSes), re-rendered
        # over the previous site (its change-point cache included)
        import shutil

        from benchpipe import history
        nxt, nxt_site = a.work / "history-next", a.work / "site-next"
        for src, dst in ((hist, nxt), (out, nxt_site)):
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(src, dst)
        tc = synthetic.GO_TOOLCHAINS, synthetic.RUST_TOOLCHAINS
        keys = synthetic.keys_for("standard", toolchains={"go": tc[0], "rust": tc[1]})
        t = time.perf_counter()
        history.add(nxt, [("night", d) for d in synthetic.nightly(1, keys, first_day=a.days, records=False)])
        added = time.perf_counter() - t
        t = time.perf_counter()
        rep2 = site.render(nxt, nxt_site, jobs=a.jobs)
        print(f"one more night: history add {added:.1f} s, site {time.perf_counter() - t:.1f} s "
              f"({rep2.times()})")
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"site size: {size / 2**20:.1f} MiB")
    cmd = ["node", str(CI_SCRIPTS / "tests/browser/test.mjs"), str(out), "--timing-only"]
    if a.screenshot:
        cmd += ["--screenshot", str(a.screenshot)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    try:
        summary = json.loads(r.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        tail = (r.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"sitebench: the browser test failed (exit {r.returncode}): {tail}", file=sys.stderr)
        return 1
    idx = summary["pages"]["index.html"]
    print(f"overview load: {idx['wall_ms']} ms (navigation load event at {idx['nav']['load']:.0f} ms)")
    if a.screenshot:
        r = subprocess.run(["node", str(CI_SCRIPTS / "tests/browser/test.mjs"), str(out), "--page",
                            "scenario-hashmap.html", "--screenshot", str(a.screenshot.with_name("scenario-hashmap.png"))],
                           capture_output=True, text=True)
        s = json.loads(r.stdout.strip().splitlines()[-1])["pages"].get("scenario-hashmap.html", {})
        print(f"scenario-hashmap: load {s.get('wall_ms')} ms, {s.get('rows')} rows, {s.get('images')} images, "
              f"browser checks {'passed' if r.returncode == 0 else 'FAILED: ' + r.stderr.strip()[:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
