"""`bench compare A [B]`: A/B verdicts per benchmark (ratio of medians with a confidence
interval, Mann-Whitney U p-value, regression / improvement / no change) for two results
files, or one file with labels base/head, with two or more toolchains of a language, or
with two sides named by --base/--head. Terminal table, --markdown, --json."""

from __future__ import annotations

import json
import os
from pathlib import Path

from benchpipe import calibration, multitest, results, schema, stats
from benchpipe.compare import METRICS, Settings, compare_docs, has_pairs
from benchpipe.errors import UsageError
from benchpipe.fsutil import atomic_write_text
from benchpipe.report import compare_md

NAME = "compare"
HELP = "A/B verdicts per benchmark: ratio of medians with CI, Mann-Whitney U p-value"


def add_arguments(p):
    p.add_argument("files", nargs="+", metavar="RESULTS", help="one or two results files (the first is the base)")
    p.add_argument("--base", help="one file: the base side (a label, toolchain or build)")
    p.add_argument("--head", help="one file: the head side (a label, toolchain or build)")
    p.add_argument("--alpha", type=float, help=f"significance level (default: calibration's, else {stats.DEFAULT_ALPHA})")
    p.add_argument("--threshold", type=float,
                   help=f"practical threshold for wall and CPU time, relative, e.g. 0.03 (default: calibration's, else {stats.DEFAULT_THRESHOLD})")
    p.add_argument("--memory-threshold", type=float,
                   help=f"practical threshold for peak memory (default: {stats.DEFAULT_MEMORY_THRESHOLD})")
    p.add_argument("--correction", choices=sorted(multitest.CORRECTIONS), default="bh",
                   help="across the report's metrics and benchmarks: bh, Benjamini-Hochberg (a false discovery rate "
                        "of alpha: identical code is flagged in at most alpha of reports; default), or none")
    p.add_argument("--calibration", help=f"calibration.json of this runner (default: ./{calibration.DEFAULT_PATH} if present; "
                                         "'none' to ignore)")
    p.add_argument("--scaled", type=float, metavar="F",
                   help="two files, the second run with `run --scale F`: pair each base benchmark with its scaled "
                        "counterpart (default: from the files' env.scale)")
    p.add_argument("--markdown", metavar="FILE", help="write the Markdown report (PR comment, job summary)")
    p.add_argument("--json", metavar="FILE", help="write the machine-readable verdicts")
    p.add_argument("--fail-on-regression", action="store_true", help="exit 1 when a benchmark regressed")
    p.add_argument("--skip-if-nothing", action="store_true",
                   help="one file with nothing to compare (no base/head labels, one toolchain per language): "
                        "say so and exit 0 (the bench workflow's comparison step, whatever the event)")


def _calibration(arg: str | None) -> dict | None:
    if arg and arg.lower() == "none":
        return None
    if arg:
        return calibration.load(arg)
    env = os.environ.get("BENCH_CALIBRATION")
    if env:
        return calibration.load(env)
    if Path(calibration.DEFAULT_PATH).is_file():
        return calibration.load(calibration.DEFAULT_PATH)
    return None


def settings_from(args, cal: dict | None) -> Settings:
    rec = ((cal or {}).get("summary") or {}).get("recommended") or {}
    alpha = args.alpha if args.alpha is not None else (rec.get("alpha") or stats.DEFAULT_ALPHA)
    threshold = args.threshold if args.threshold is not None else (rec.get("threshold") or stats.DEFAULT_THRESHOLD)
    mem = args.memory_threshold if args.memory_threshold is not None else stats.DEFAULT_MEMORY_THRESHOLD
    if not 0 < alpha < 1:
        raise UsageError("--alpha must be between 0 and 1")
    if threshold < 0 or mem < 0:
        raise UsageError("thresholds must be >= 0")
    return Settings(alpha=float(alpha), threshold=float(threshold), memory_threshold=float(mem),
                    correction=getattr(args, "correction", "bh"))


def run(args) -> int:
    if len(args.files) > 2:
        raise UsageError("give one or two results files")
    docs = [results.load(f) for f in args.files]
    if args.skip_if_nothing and len(docs) == 1 and not (args.base or args.head) and not has_pairs(docs[0]):
        print(f"bench compare: {args.files[0]}: nothing to compare (no base/head labels, one toolchain per language)")
        return 0
    cal = _calibration(args.calibration)
    names = [Path(f).name for f in args.files]
    if len(set(names)) < len(names):
        names = list(args.files)
    report = compare_docs(docs, names, settings_from(args, cal), args.base, args.head, cal, args.scaled)
    if args.json:
        out = report.to_json()
        schema.validate(out, "compare", args.json)
        atomic_write_text(Path(args.json), json.dumps(out, indent=1) + "\n")
    if args.markdown:
        atomic_write_text(Path(args.markdown), compare_md.render(report))
    _print(report)
    if args.fail_on_regression and report.regressions:
        return 1
    return 0


def _print(report) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    style = {stats.REGRESSION: "bold red", stats.IMPROVEMENT: "green", "failed": "yellow", "missing": "yellow", "skipped": "dim",
             stats.TOO_FEW: "dim"}
    sides = sorted({(c.base, c.head) for c in report.comparisons})
    t = Table(title=f"compare ({report.mode}{': ' + sides[0][1] + ' against ' + sides[0][0] if len(sides) == 1 else ''}):"
                    f" flagged when p < {report.settings.alpha:g} (corrected: {report.settings.correction}) and beyond "
                    f"{report.settings.threshold:.1%} (time) / {report.settings.memory_threshold:.1%} (memory)")
    t.add_column("benchmark", overflow="fold")
    if len(sides) > 1:
        t.add_column("base → head", overflow="fold")
    for m in METRICS:
        t.add_column(f"{m} ratio [CI]", justify="right")
        t.add_column("p", justify="right")
    t.add_column("verdict")
    for c in report.comparisons:
        row = [Text(c.id)] + ([Text(f"{c.base} → {c.head}")] if len(sides) > 1 else [])
        for m in METRICS:
            sc = c.metrics.get(m)
            row.append(Text(f"{compare_md.fmt_ratio(sc.ratio)} [{compare_md.fmt_ci(sc)}]" if sc else "-",
                            style=style.get(sc.verdict, "") if sc else ""))
            row.append(Text(compare_md.fmt_p(sc.judged_p) if sc else "-"))
        row.append(Text(c.verdict + (f": {c.note}" if c.note else ""), style=style.get(c.verdict, "")))
        t.add_row(*row)
    con = Console()
    if not con.is_terminal:
        con = Console(width=max(con.width, 160))
    con.print(t)
    counts = ", ".join(f"{report.count(v)} {v}" for v in (stats.REGRESSION, stats.IMPROVEMENT, stats.NO_CHANGE,
                                                            "failed", "missing", "skipped", stats.TOO_FEW) if report.count(v))
    con.print(Text(counts or "nothing compared"))
