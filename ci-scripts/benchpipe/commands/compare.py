"""`bench compare A [B]`: A/B verdicts per benchmark (ratio with a confidence interval, a
p-value corrected across the report: Wilcoxon signed-rank on interleaved pairs, Mann-Whitney
U across two runs; regression / improvement / no change / too few samples) for two results
files, or one file with labels base/head, with two or more toolchains of a language, or
with two sides named by --base/--head. Terminal table, --markdown, --json."""

from __future__ import annotations

import json
import os
from pathlib import Path

from rich.table import Table
from rich.text import Text

from benchpipe import calibration, multitest, results, schema, stats
from benchpipe.compare import Report, Settings, compare_docs, has_pairs
from benchpipe.errors import UsageError
from benchpipe.fsutil import atomic_write_text
from benchpipe.metrics import METRICS
from benchpipe.report import compare_md
from benchpipe.terminal import wide_console

NAME = "compare"
HELP = ("A/B verdicts per benchmark: ratio with CI; paired signed-rank test on interleaved pairs "
        "(Mann-Whitney U across two runs), corrected across the report")


def _governed(setting: str) -> str:
    """The metrics whose threshold a setting (CLI flag) sets: "timed window and CPU time"."""
    return " and ".join(m.label for m in METRICS.values() if m.setting == setting)


def add_arguments(p):
    p.add_argument("files", nargs="+", metavar="RESULTS", help="one or two results files (the first is the base)")
    p.add_argument("--base", help="one file: the base side (a label, toolchain or build)")
    p.add_argument("--head", help="one file: the head side (a label, toolchain or build)")
    p.add_argument("--alpha", type=float, help=f"significance level (default: calibration's, else {stats.DEFAULT_ALPHA})")
    p.add_argument("--threshold", type=float,
                   help=f"practical threshold for the {_governed('threshold')}, relative, e.g. 0.03 (default: calibration's, "
                        f"else {stats.DEFAULT_THRESHOLD})")
    p.add_argument("--memory-threshold", type=float,
                   help=f"practical threshold for the {_governed('memory_threshold')} (default: {stats.DEFAULT_MEMORY_THRESHOLD})")
    p.add_argument("--keep-contended", action="store_true",
                   help="keep the runs whose window shared the machine with other work (default: leave them, and "
                        "their pairs, out, saying how many)")
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


def load_calibration(arg: str | None) -> dict | None:
    """--calibration: a file, 'none', else $BENCH_CALIBRATION, else ./calibration.json if present."""
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


def settings_from(cal: dict | None, alpha: float | None = None, threshold: float | None = None,
                  memory_threshold: float | None = None, correction: str = "bh", keep_contended: bool = False) -> Settings:
    """The flagging settings: what is given, else the runner's calibration, else the defaults."""
    rec = ((cal or {}).get("summary") or {}).get("recommended") or {}
    alpha = alpha if alpha is not None else (rec.get("alpha") or stats.DEFAULT_ALPHA)
    threshold = threshold if threshold is not None else (rec.get("threshold") or stats.DEFAULT_THRESHOLD)
    mem = memory_threshold if memory_threshold is not None else stats.DEFAULT_MEMORY_THRESHOLD
    if not 0 < alpha < 1:
        raise UsageError("--alpha must be between 0 and 1")
    if threshold < 0 or mem < 0:
        raise UsageError("thresholds must be >= 0")
    return Settings(alpha=float(alpha), threshold=float(threshold), memory_threshold=float(mem), correction=correction,
                    keep_contended=keep_contended)


def side_names(files: list) -> list[str]:
    """The files' names as the report calls the sides: base names, or paths where those clash."""
    names = [Path(f).name for f in files]
    return names if len(set(names)) == len(names) else [str(f) for f in files]


def compare_and_write(docs: list[dict], names: list[str], settings: Settings, cal: dict | None = None, *,
                      base: str | None = None, head: str | None = None, scaled: float | None = None,
                      markdown: Path | None = None, json_path: Path | None = None) -> Report:
    """Compare one or two loaded results documents; write the Markdown and JSON reports where asked."""
    report = compare_docs(docs, names, settings, base, head, cal, scaled)
    if json_path:
        out = report.to_json()
        schema.validate(out, "compare", str(json_path))
        atomic_write_text(Path(json_path), json.dumps(out, indent=1) + "\n")
    if markdown:
        atomic_write_text(Path(markdown), compare_md.render(report))
    return report


def run(args) -> int:
    if len(args.files) > 2:
        raise UsageError("give one or two results files")
    docs = [results.load(f) for f in args.files]
    if args.skip_if_nothing and len(docs) == 1 and not (args.base or args.head) and not has_pairs(docs[0]):
        print(f"bench compare: {args.files[0]}: nothing to compare (no base/head labels, one toolchain per language)")
        return 0
    cal = load_calibration(args.calibration)
    settings = settings_from(cal, args.alpha, args.threshold, args.memory_threshold, args.correction,
                             args.keep_contended)
    report = compare_and_write(docs, side_names(args.files), settings, cal, base=args.base, head=args.head,
                               scaled=args.scaled, markdown=args.markdown, json_path=args.json)
    print_report(report)
    if args.fail_on_regression and report.regressions:
        return 1
    return 0


def print_report(report: Report) -> None:
    """The verdicts as a terminal table, and the counts under it."""
    style = {stats.REGRESSION: "bold red", stats.IMPROVEMENT: "green", "failed": "yellow", "missing": "yellow", "skipped": "dim",
             stats.TOO_FEW: "dim"}
    sides = sorted({(c.base, c.head) for c in report.comparisons})
    beyond: dict[float, list[str]] = {}
    for m in METRICS:
        beyond.setdefault(report.settings.threshold_for(m), []).append(m)
    t = Table(title=f"compare ({report.mode}{': ' + sides[0][1] + ' against ' + sides[0][0] if len(sides) == 1 else ''}):"
                    f" flagged when p < {report.settings.alpha:g} (corrected: {report.settings.correction}) and beyond "
                    + " / ".join(f"{v:.1%} ({', '.join(names)})" for v, names in beyond.items()))
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
    con = wide_console()
    con.print(t)
    counts = ", ".join(f"{report.count(v)} {v}" for v in (stats.REGRESSION, stats.IMPROVEMENT, stats.NO_CHANGE,
                                                            "failed", "missing", "skipped", stats.TOO_FEW) if report.count(v))
    con.print(Text(counts or "nothing compared"))
