"""`bench site`: gnuplot charts and the static site from the history."""

from __future__ import annotations

from pathlib import Path

from benchpipe import envinfo, site

NAME = "site"
HELP = "render the charts (gnuplot) and the static site from the history"


def add_arguments(p):
    p.add_argument("--history", required=True, type=Path, help="the history directory")
    p.add_argument("--out", required=True, type=Path, help="the site folder to write (open OUT/index.html)")
    p.add_argument("--site-url", default="", help="public URL of the site (canonical links)")
    p.add_argument("--repo-url", default=envinfo.repo_url(), help="repository URL for commit links (default: from GITHUB_*)")
    p.add_argument("--jobs", type=int, default=None, help="parallel gnuplot / change-point processes (default: cores)")
    p.add_argument("--no-changepoints", action="store_true", help="skip change-point detection")
    p.add_argument("--keep-chart-sources", type=Path, help="keep the gnuplot scripts and data files in this folder")


def run(args) -> int:
    rep = site.render(args.history, args.out, site_url=args.site_url, repo_url=args.repo_url, jobs=args.jobs,
                      detect=not args.no_changepoints, keep_chart_sources=args.keep_chart_sources)
    n = sum(len(v) for v in rep.charts.values())
    print(f"{args.out}: {len(rep.pages)} pages, {n} charts from {rep.runs} runs ({rep.entries} entries); {rep.times()}")
    print(f"open {Path(args.out).resolve() / 'index.html'}")
    return 0
