"""`bench pipeline`: the whole pipeline on this machine, as CI runs it, in one command:
doctor -> build + run -> compare (when two toolchains of a language ran) -> history ->
charts and site -> a local gh-pages branch and a site folder to open -> summary.

Each step calls the typed function behind the subcommand a workflow step runs (doctor,
run, compare, publish); this module only chains them, so a local run and CI cannot drift
apart."""

from __future__ import annotations

import datetime as dt
import sys
import time
from pathlib import Path

from benchpipe import ROOT, envinfo, publish, results, terminal
from benchpipe.commands.catalogue import add_filter_arguments
from benchpipe.commands.compare import compare_and_write, load_calibration, print_report, settings_from
from benchpipe.commands.doctor import doctor
from benchpipe.commands.run import RunOptions, run_benchmarks
from benchpipe.compare import has_pairs
from benchpipe.errors import BenchError, one_line
from benchpipe.report import summary

NAME = "pipeline"
HELP = "run the whole pipeline locally (default: quick preset) and write the site to ./site"


def add_arguments(p):
    p.add_argument("--preset", default="quick", help="smoke, quick, standard or full (default: quick)")
    add_filter_arguments(p)
    p.add_argument("--go", default=RunOptions.go, help="Go toolchains, comma-separated (default: the go on PATH)")
    p.add_argument("--rust", default=RunOptions.rust,
                   help="Rust toolchains, comma-separated (default: the cargo on PATH)")
    p.add_argument("--runs", type=int, help="measured runs per benchmark (default: the preset's)")
    p.add_argument("--instructions", type=int, metavar="N",
                   help="instruction-count runs per benchmark under Valgrind (Linux; default: the preset's; 0: none)")
    p.add_argument("--results", type=Path, help="results folder (default: results/<UTC timestamp>/)")
    p.add_argument("--build-dir", default=RunOptions.build_dir, help="where builds go (default: .bench/build)")
    p.add_argument("--pages", default=str(ROOT / ".bench" / "pages.git"),
                   help="the local gh-pages repository the history accumulates in (default: .bench/pages.git)")
    p.add_argument("--site", type=Path, default=ROOT / "site", help="where the site is written (default: ./site)")
    p.add_argument("--no-install", action="store_true", help="do not install missing tools, only report them")


def _step(n: int, total: int, what: str) -> float:
    print(f"\n== [{n}/{total}] {what}", file=sys.stderr, flush=True)
    return time.monotonic()


def run(args) -> int:
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = args.results or ROOT / "results" / stamp
    started = time.monotonic()
    total = 4

    _step(1, total, "doctor: the tools this needs")
    if doctor(install=not args.no_install) != 0:
        raise BenchError("required tools are missing (see the table above); install them and run again")

    _step(2, total, f"build and run the {args.preset} preset (results in {out})")
    options = RunOptions(preset=args.preset, scenario=args.scenario, variant=args.variant, lang=args.lang,
                         build=args.build, go=args.go, rust=args.rust, runs=args.runs, out=str(out),
                         build_dir=args.build_dir, instructions=args.instructions,
                         no_summary=True)   # (shown at the end, below the compare report and the site's lines)
    run_code = run_benchmarks(options)  # 1 when a benchmark failed: still published
    results_file = out / "results.json"
    doc = results.load(results_file)

    _step(3, total, "compare toolchains")
    compare_failed = False
    if has_pairs(doc):  # two or more toolchains of a language ran
        cal = load_calibration(None)
        try:
            report = compare_and_write([doc], [results_file.name], settings_from(cal), cal,
                                       markdown=out / "compare.md", json_path=out / "compare.json")
            print_report(report)
        except BenchError as err:  # the run's results are still worth publishing
            print(one_line(f"bench compare: {err}"), file=sys.stderr)
            compare_failed = True
    else:
        print("one toolchain per language: nothing to compare (try --go go1.25.5,local or --rust stable,beta)",
              file=sys.stderr)

    _step(4, total, f"history, charts and site (local gh-pages: {args.pages})")
    publish.publish(args.pages, "gh-pages", [results_file], out=args.site, repo_url=envinfo.repo_url())

    print()
    summary.print_terminal(doc, terminal.wide_console(), details=str(out / "summary.md"))
    ok = sum(b["status"] == "ok" for b in doc["benchmarks"])
    failed = [b for b in doc["benchmarks"] if b["status"] == "failed"]
    skipped = [b for b in doc["benchmarks"] if b["status"] == "skipped"]
    minutes = (time.monotonic() - started) / 60
    print(f"\npipeline: {len(doc['benchmarks'])} benchmarks in {minutes:.1f} min: {ok} ok, "
          f"{len(failed)} failed, {len(skipped)} skipped")
    for b in failed:
        print(one_line(f"  failed   {b['id']}: {b.get('reason', '')}"))
    for b in skipped:
        print(one_line(f"  skipped  {b['id']}: {b.get('reason', '')}"))
    print(f"results:  {results_file.resolve()}")
    print(f"summary:  {(out / 'summary.md').resolve()}")
    if (out / "compare.md").exists():
        print(f"compare:  {(out / 'compare.md').resolve()}")
    print(f"site:     {(args.site / 'index.html').resolve()}")
    return 1 if (failed or run_code or compare_failed) else 0
