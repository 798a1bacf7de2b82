"""`bench publish`: the history and data.js committed to the gh-pages branch of a remote
and pushed (concurrent publishers fetch, re-apply and retry; a data push is never
forced; once a month the branch is compacted and squashed, with a lease), then
the site rendered from the branch's history into a folder (the workflow deploys it to
GitHub Pages)."""

from __future__ import annotations

from pathlib import Path

from benchpipe import envinfo, publish
from benchpipe.export import data_js

NAME = "publish"
HELP = "add results to the history on a gh-pages branch, commit and push; render the site into a folder"


def add_arguments(p):
    p.add_argument("--remote", required=True, help="git remote URL or path (a missing local path becomes a bare repository)")
    p.add_argument("--branch", default="gh-pages", help="branch to publish to (default: gh-pages)")
    p.add_argument("--site-url", default="", help="public URL of the site (canonical links)")
    p.add_argument("--repo-url", default=envinfo.repo_url(), help="repository URL for commit links (default: from GITHUB_*)")
    p.add_argument("--out", type=Path, help="render the site of the branch's history into this folder "
                   "(open OUT/index.html; the workflow deploys it); without it, nothing is rendered")
    p.add_argument("--retry-for", type=float, default=publish.RETRY_FOR_S, metavar="SECONDS",
                   help="keep trying this long while other publishers land first (jittered backoff; "
                        f"default: {publish.RETRY_FOR_S:g}); then one line says how to publish the runs again")
    p.add_argument("--retries", type=int, default=1000, help="at most this many attempts (default: 1000)")
    p.add_argument("--jobs", type=int, default=None, help="parallel gnuplot / change-point processes")
    p.add_argument("--no-changepoints", action="store_true", help="skip change-point detection")
    p.add_argument("--data-js-max-items", type=int, default=data_js.MAX_ITEMS,
                   help=f"entries per series kept in dev/bench/data.js, oldest dropped (the history keeps all; "
                        f"0: unbounded; default: {data_js.MAX_ITEMS})")
    p.add_argument("--no-compact", action="store_true",
                   help="do not summarise months older than 90 days nor squash the branch to one commit "
                        "(the default does both once a month: ten years stay under GitHub's size limits)")
    p.add_argument("results", nargs="+", type=Path, help="results files")


def run(args) -> int:
    publish.publish(args.remote, args.branch, args.results, site_url=args.site_url, repo_url=args.repo_url,
                    out=args.out, retries=args.retries, retry_for_s=args.retry_for, jobs=args.jobs, detect=not args.no_changepoints,
                    max_items=args.data_js_max_items, compact=not args.no_compact)
    if args.out:
        print(f"open {args.out.resolve() / 'index.html'}")
    return 0
