"""`bench calibrate --preset P [--repeats N] [--factor F] [--inject window|size]
[--signal time|instructions|both]`: the false-alarm rate (A against A) and the detection
rate (A against A made F times slower: every window held open to F times its length, or
the workload scaled by F) of this machine, per benchmark family and pooled; writes
calibration.json for `compare`. With the instruction signal (Linux): the same of the
instruction counts, B's counts 1 % and 0.5 % more (calibration_instructions), written
to calibration-instructions.json."""

from __future__ import annotations

import dataclasses
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from benchpipe import (
    ROOT,
    calibration,
    calibration_instructions,
    catalogue,
    instructions,
    measures,
    multitest,
    runner,
    scaling,
    services,
    stats,
    toolchains,
    tools,
)
from benchpipe.commands.catalogue import add_filter_arguments, select
from benchpipe.commands.run import add_repeat_argument, repeat_s, service_names_of
from benchpipe.errors import BenchError, UsageError
from benchpipe.fsutil import atomic_write_json
from benchpipe.metrics import HEADLINE, METRICS, calibrated, stored_key
from benchpipe.results import format_params
from benchpipe.terminal import wide_console

NAME = "calibrate"
HELP = "measure this machine's false-alarm rate (A/A) and detection rate (A vs A made F times slower)"


def add_arguments(p):
    p.add_argument("--preset", default="quick", help="preset whose benchmarks are calibrated (default: quick)")
    add_filter_arguments(p)
    p.add_argument("--per-scenario", type=int, default=0, metavar="N",
                   help="at most N benchmark families per scenario and build (default: all)")
    p.add_argument("--repeats", type=int, default=50, help="A/A and A/B comparisons per family (default: 50)")
    p.add_argument("--factor", type=float, default=1.05, help="how much slower B is (default: 1.05)")
    p.add_argument("--inject", choices=calibration.INJECTIONS, default="window",
                   help="how B is made slower: window (default): each of its timed windows held open to F times "
                        "its length (the programs' --stretch F), exactly F; size: its scale parameter multiplied "
                        "by F, a heavier workload, which lengthens some windows by less (the realised column says "
                        "how much)")
    p.add_argument("--runs", type=int, default=0, help="runs per side and comparison (default: the preset's)")
    p.add_argument("--max-runs", type=int, default=0, metavar="N",
                   help="sample until sure up to N rounds, as `bench run` does for interleaved sides, within the "
                        "preset's sample_budget_s (default: as `bench run`; = --runs: fixed)")
    p.add_argument("--tests", type=int, default=0, metavar="M",
                   help="judge each comparison as one of M tests, as a pull request's report corrects across its "
                        "tests (default: the preset's benchmarks x its compared metrics)")
    p.add_argument("--leave-out-contended", action="store_true",
                   help="judge without the pairs whose window shared the machine with other work, as compare does "
                        "(default: judge them all, counting them: calibrating beside a busy core is a use)")
    p.add_argument("--alpha", type=float, default=stats.DEFAULT_ALPHA, help=f"significance level (default: {stats.DEFAULT_ALPHA})")
    p.add_argument("--threshold", type=float, default=stats.DEFAULT_THRESHOLD,
                   help=f"practical threshold, relative (default: {stats.DEFAULT_THRESHOLD})")
    add_repeat_argument(p)
    p.add_argument("--builds", default=str(ROOT / ".bench" / "build"),
                   help="folder with the build manifest of `bench build` (default: .bench/build)")
    p.add_argument("--out", default=calibration.DEFAULT_PATH, help="where to write calibration.json (default: ./calibration.json)")
    p.add_argument("--signal", choices=("time", "instructions", "both"), default="time",
                   help="what is calibrated: time (default): the wall clock and the metrics beside it; instructions "
                        "(Linux): the instruction counts, each family counted 2 x --count-runs times under Valgrind "
                        "and --repeats reports drawn from them, B's counts 1 %% and 0.5 %% more; both")
    p.add_argument("--count-runs", type=int, default=0, metavar="N",
                   help="instructions: counted runs of each of A and A' (default: four times the preset's "
                        "instruction_runs, which each drawn report has a side: a first look and a second of their own)")
    p.add_argument("--instructions-out", default=calibration_instructions.DEFAULT_PATH,
                   help=f"where to write the instruction calibration (default: ./{calibration_instructions.DEFAULT_PATH})")


def programs_to_calibrate(builds_dir: Path) -> dict:
    """build name -> the head program `bench build` made last: its default toolchain
    ("local") where the manifest has one, else the newest entry. The manifest keeps
    every toolchain built into it (toolchains.write_manifest merges, newest last; and
    before it dropped a label's older commits, those too), so the first head entry can
    be a build of another toolchain, or of an older commit."""
    out: dict = {}
    for b in toolchains.read_manifest(builds_dir / "manifest.json"):
        if b.label != "head" or not Path(b.path).is_file():
            continue
        kept = out.get(b.build)
        if kept is None or not (kept.request == "local" and b.request != "local"):
            out[b.build] = b
    return out


def run(args) -> int:
    if args.repeats < 1:
        raise UsageError("--repeats must be >= 1")
    if not (args.factor > 0 and args.factor != 1):
        raise UsageError("--factor must be a positive number other than 1")
    if args.inject == "window" and not 1 < args.factor <= calibration.MAX_STRETCH:
        raise UsageError(f"--factor must be above 1 and at most {calibration.MAX_STRETCH:g} with --inject window "
                         "(a window can be held open, not shortened: --inject size for a factor below 1)")
    cat = catalogue.load()
    preset = cat.preset(args.preset)
    runs = args.runs or preset.runs
    if runs < 3:
        raise UsageError("--runs must be >= 3")
    if args.max_runs and args.max_runs < runs:
        raise UsageError("--max-runs must be at least --runs")
    if args.tests < 0:
        raise UsageError("--tests must be >= 1")
    tests = args.tests or len(cat.benchmarks(args.preset)) * len(METRICS)
    wall = args.signal in ("time", "both")
    drawn, count_runs, tries = preset.instruction_runs, 0, args.repeats
    if args.signal != "time":
        if not drawn:
            raise UsageError(f"the {args.preset} preset has no instruction pass (instruction_runs 0): a report of it "
                             "judges no counts")
        count_runs = args.count_runs or 2 * instructions.TOP_UP_LOOKS * drawn
        if count_runs < drawn:
            raise UsageError(f"--count-runs must be at least the runs a report draws a side ({drawn})")
        if count_runs == drawn and tries > 1:
            print(f"bench calibrate: --count-runs {drawn} is what one report draws a side: every draw is the same "
                  "report, judged once", file=sys.stderr)
            tries = 1
        elif count_runs < 2 * instructions.TOP_UP_LOOKS * drawn and tries > 1:
            print(f"bench calibrate: --count-runs {count_runs} is less than {2 * instructions.TOP_UP_LOOKS} x the "
                  f"{drawn} runs a report draws a side: " + (
                      "the reports' second looks draw from the same counts, so their figures rest on few comparisons"
                      if count_runs >= instructions.TOP_UP_LOOKS * drawn else
                      "no second look is drawn (it needs twice the runs a side)"), file=sys.stderr)
        why = instructions.unavailable()
        if why:
            raise BenchError(f"instructions cannot be calibrated here: {why}")
    seq = runner.sequential_design(runs, args.max_runs or runner.default_max_runs(runs, preset.sample_budget_s),
                                   args.alpha, args.threshold, tests=tests, budget_s=preset.sample_budget_s)
    plan = runner.repeat_plan(repeat_s(args.repeat_s, preset))
    specs = select(cat, args.preset, args)
    if args.per_scenario:
        kept, count = [], {}
        for s in specs:
            group = (s.scenario.name, s.build.name)
            count[group] = count.get(group, 0) + 1
            if count[group] <= args.per_scenario:
                kept.append(s)
        specs = kept
    programs = programs_to_calibrate(Path(args.builds))
    missing = sorted({s.build.name for s in specs} - set(programs))
    if missing:
        print(f"bench calibrate: no built program for {', '.join(missing)} in {args.builds}; skipping them "
              f"(run `ci-scripts/bench build`)", file=sys.stderr)
        specs = [s for s in specs if s.build.name in programs]
    lean = sorted({s.scenario.name for s in specs if s.scenario.name in programs[s.build.name].without})
    if lean:   # (found now, not when their family's turn comes after an hour of the others)
        print(f"bench calibrate: the programs in {args.builds} were built without the one that runs "
              f"{', '.join(lean)}; skipping them (run `ci-scripts/bench build` without --scenario)", file=sys.stderr)
        specs = [s for s in specs if s.scenario.name not in programs[s.build.name].without]
    if not specs:
        raise BenchError("nothing to calibrate: no selected benchmark has a built program")
    hyperfine = tools.require("hyperfine")
    for name in dict.fromkeys(s.build.name for s in specs):
        b = programs[name]
        print(f"{name}: {b.path} ({b.toolchain}, commit {b.commit[:12] or '?'})", file=sys.stderr)

    if wall:
        print(f"calibrating {len(specs)} families x {args.repeats} repeats x {runs} runs x 3 sides "
              f"(A, A, {calibration.describe_injection(args.inject, args.factor)}), measured as `bench run` measures "
              f"an A/B run and judged as one of {tests} tests", file=sys.stderr)
    if count_runs:
        print(f"counting the instructions of {len(specs)} families x {count_runs} runs x 2 copies (A, A') under "
              f"Valgrind as `bench run`'s instruction pass counts them; then {tries} reports of {drawn} runs a "
              f"side drawn from them, A/A and B = A' x {' and x'.join(map(str, calibration_instructions.SHIFTS))}, "
              f"judged as one of {tests} tests", file=sys.stderr)
    families, counted = [], []
    work = runner.new_workroot()
    try:
        with services.sigterm_as_interrupt(), services.running(service_names_of(specs)) as got:
            env = {**os.environ, **got.env()}
            for i, spec in enumerate(specs, 1):
                tag, name = f"[{i}/{len(specs)}]", calibration.describe_family(spec)
                if got.why_not(spec.scenario.service):
                    print(f"{tag} {name}: skipped ({got.why_not(spec.scenario.service)})", file=sys.stderr)
                    continue
                if wall:
                    families.append(_calibrate_family(spec, programs[spec.build.name], hyperfine, runs, args, preset,
                                                      work / f"{i:03d}", tag, seq, tests, plan, env))
                if count_runs:
                    counted.append(_count_family(spec, programs[spec.build.name], hyperfine, count_runs, preset,
                                                 work / f"{i:03d}" / "instructions", tag, env))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not (families or counted):
        raise BenchError("nothing was calibrated: every selected family's server was missing")
    if wall:
        doc = calibration.document(args.preset, runs, args.repeats, args.factor, args.alpha, args.threshold, families,
                                   tests, plan.to_json() if plan else None, inject=args.inject)
        atomic_write_json(Path(args.out), doc)
        _print(doc)
        print(f"wrote {args.out}")
    if count_runs:
        if not any("a" in f for f in counted):
            raise BenchError("no family's instructions were counted: " + "; ".join(
                w for f in counted for w in f["warnings"])[:400])
        judged = calibration_instructions.judge(counted, drawn, tries, tests, args.alpha)
        doc = calibration_instructions.document(args.preset, count_runs, judged, instructions.settings())
        atomic_write_json(Path(args.instructions_out), doc)
        _print_instructions(doc)
        print(f"wrote {args.instructions_out}")
    return 0


def _calibrate_family(spec, built, hyperfine, runs, args, preset, work: Path, tag, seq, tests: int,
                      plan: runner.RepeatPlan | None, env: dict) -> dict:
    """The family's three sides as jobs of `bench run` (A, A', B labelled a, a2, b), run
    as one interleaved group per repeat, and judged as `bench compare` judges."""
    if args.inject == "size":
        slower = scaling.scale_spec(spec, args.factor)
        eff = scaling.effective_factor(spec, slower)
    else:
        slower, eff = spec, args.factor
    # One copy of the program for the three sides, as `bench run` runs byte-identical sides.
    [built] = runner.fresh_copies([built], work)
    sides = [(spec, dataclasses.replace(built, label="a")), (spec, dataclasses.replace(built, label="a2")),
             (slower, dataclasses.replace(built, label="b"))]
    templates = [runner.make_jobs([s], [b], work / b.label, ab=True, copied=True)[0] for s, b in sides]
    if args.inject == "window":
        templates[2].command += calibration.stretch_argv(args.factor)
    name = calibration.describe_family(spec)
    rounds, t0 = [], time.monotonic()
    for r in range(args.repeats):
        jobs = [runner.fresh_job(j) for j in templates]
        runner.run_group(jobs, hyperfine, preset, runs, preset.timeout_s, env, seq, plan)
        runner.clean(jobs)
        failed = [j for j in jobs if j.status != "ok"]
        if failed:
            raise BenchError(f"{name}: {failed[0].key.get('label')} side {failed[0].status}: {failed[0].reason}")
        rounds.append(tuple(j.to_json() for j in jobs))
        if sys.stderr.isatty() or (r + 1) % 10 == 0 or r + 1 == args.repeats:
            print(f"{tag} {name}: {r + 1}/{args.repeats} repeats ({time.monotonic() - t0:.0f} s)", file=sys.stderr)
    looks = multitest.Looks.from_env(seq.to_json() if seq else None)
    return calibration.family_result(spec, eff, rounds, args.alpha, args.threshold, looks=looks, tests=tests,
                                     leave_out_contended=args.leave_out_contended)


def _count_family(spec, built, hyperfine, count_runs: int, preset, work: Path, tag: str, env: dict) -> dict:
    """The family's instruction counts, A and A' (calibration_instructions.count_family)."""
    t0 = time.monotonic()
    got = calibration_instructions.count_family(spec, built, count_runs, hyperfine, work, env, preset.timeout_s)
    name = calibration.describe_family(spec)
    said = (f"{statistics.median(got['a']):,.0f} instructions, robust CV "
            f"{instructions.cv(got['a'] + got['a2']):.3%}" if "a" in got else "; ".join(got["warnings"]))
    print(f"{tag} {name}: instructions counted {2 * count_runs} times at {format_params(got['counted_params'])}: "
          f"{said} ({time.monotonic() - t0:.0f} s)", file=sys.stderr)
    return {**calibration.family_identity(spec), **got}


def _print_instructions(doc: dict) -> None:
    """Per family: its count, scatter, whether a report judges it, its runs, and the A/A
    and shifted reports' flags (lone and together); then the totals."""
    r = doc["report"]
    labels = {k: "A/A" if s == 1.0 else f"+{(s - 1) * 100:g} %" for s, k in calibration_instructions.KEYS.items()}
    t = Table(title=f"calibration of the instruction counts: {r['tries']} reports of {r['drawn']} runs a side drawn "
                    f"from {doc['count_runs']} counted a copy, alpha {r['alpha']} across {r['tests']} tests",
              caption="judged: deterministic over all its counts (robust CV and scatter at most "
                      f"{instructions.DETERMINISTIC_CV:.1%}), and in how many reports both sides' own counts were "
                      f"steady enough for a verdict (at most {instructions.REPORT_CV:.1%}); "
                      "flagged: a lone change (one of the report's tests, the others finding nothing) / every family "
                      "changed at once (a compiler or code-generation change)")
    for col in ("family (counted at)", "median\ncount", "robust\nCV", "scatter", "judged", "s a\nrun",
                *(f"{label}:\nflagged" for label in labels.values())):
        t.add_column(col, justify="left" if col.startswith("family") else "right", overflow="fold")
    for f in doc["families"]:
        name = escape(f"{f['id']} ({format_params(f.get('counted_params') or {})})")
        if "counts" not in f:
            t.add_row(name, "-", "-", "-", "not counted", "-", *("-" for _ in labels))
            continue
        draws = f" {f['judged_draws']}/{f['tries']}" if "tries" in f else ""
        t.add_row(name, f"{f['median']:,.0f}", *(f"{f[k]:.3%}" if f.get(k) is not None else "-" for k in ("cv", "scatter")),
                  ("yes" if f["judged"] else "no") + draws, f"{f['seconds_per_run']:.2f}",
                  *(f"{f[k]['lone']}/{f[k]['together']}" if k in f else "-" for k in labels))
    wide_console().print(t)
    for f in doc["families"]:
        why = f.get("why") or "; ".join(f.get("warnings") or ())
        if why and not f.get("judged"):
            print(f"{f['id']}: {why}")

    def rate(x: dict) -> str:
        return f"{x['flagged']}/{x['comparisons']}" + (f" ({x['flagged'] / x['comparisons']:.0%})" if x["comparisons"] else "")
    shifted = [(k, label) for k, label in labels.items() if k != "aa"]
    print(f"instructions: {r['judged']} of {r['families']} families deterministic (robust CV and scatter at most "
          f"{instructions.DETERMINISTIC_CV:.1%}); over them ({r['judged_draws']} of "
          f"{r['aa_lone']['comparisons']} draws with a verdict), a lone change flagged: "
          + ", ".join(f"{label} {rate(r[k + '_lone'])}" for k, label in shifted)
          + "; every family changed at once: " + ", ".join(f"{label} {rate(r[k + '_together'])}" for k, label in shifted)
          + f"; A/A: {rate(r['aa_together'])} comparisons flagged ({r['aa_not_deterministic']} more in the others), "
            f"{r['aa_reports']} of {r['tries']} reports with any flag")
    if "aa_topped" in r:
        print("second look (counted as many times more where the first was suggestive): "
              + ", ".join(f"{label} {r[k + '_topped']['topped']}/{r[k + '_topped']['draws']}"
                          for k, label in [("aa", "A/A"), *shifted]) + " draws")
    if r.get("seconds_per_run"):
        print(f"the pass: {r['seconds_per_run']:.2f} s a counted run on average; {r['pass_s_a_side']:.0f} s a side "
              f"for {r['drawn']} runs of these families (what it adds to a pull request's job)")


def _pairs(f: dict) -> str:
    """Pairs per comparison (median), and the windows of each run where the scenario ran
    several times in one process (`--repeat K`)."""
    if f.get("median_pairs") is None:
        return "-"
    k = f.get("windows_per_run") or 1
    return f"{f['median_pairs']:g}" + (f" x {k:g}" if k > 1 else "")


def _odds(power: float) -> str:
    return {0.95: "19 in 20", 0.8: "4 in 5"}.get(power, f"{power:.0%} of the time")


def _detecting() -> list[str]:
    """The metrics B's slowdown moves (the window, CPU time), by name."""
    return [m.name for m in calibrated(detect=True)]


def _scatter(f: dict) -> str:
    sc = f.get("pair_scatter") or {}
    return " / ".join("-" if sc.get(m) is None else f"{sc[m]:.1%}" for m in _detecting())


def _realised(f: dict) -> str:
    """The change B made to the window and to CPU time (median pair ratio): beside the
    factor, since a scaled workload may lengthen the window by less, and a stretched
    window adds CPU time only on the one thread that holds it open (calibration.realised)."""
    got = f.get("realised") or {}
    return "/".join("-" if got.get(m) is None else f"{(got[m] - 1) * 100:+.1f}" for m in _detecting()) + "%"


def _needed(goal: dict, threshold: float) -> str:
    """The fewest pairs of the metrics the slowdown moves (the report flags on any)."""
    if goal["change"] <= threshold:
        return "never"
    ns = [goal[m] for m in _detecting() if goal.get(m) is not None]
    return f"{min(ns):,}" if ns else "-"


def _limits_table(doc: dict):
    """What limits each family: the A/A pairs' scatter and the pairs the goals need."""
    level = next((f["flag_level"] for f in doc["families"] if f.get("flag_level")), None)
    never = any(change <= doc["threshold"] for change, _ in calibration.GOALS)
    t = Table(title="pairs a comparison needs, projected from the A/A pairs' scatter"
                    + (f" (a lone flag must reach p < {level:.2g})" if level else ""),
              caption=f"the fewest of {' and '.join(m.label for m in calibrated(detect=True))}: the report flags on any"
                      + (f"; never: a change no larger than the practical threshold ({doc['threshold']:.1%}) is "
                         "flagged at most half the time, however many pairs" if never else ""))
    for col in ("family", f"A/A pair scatter: {' / '.join(_detecting())}", "pairs run",
                *(f"pairs to see {c:.0%} {_odds(p)}" for c, p in calibration.GOALS)):
        t.add_column(col, justify="left" if col == "family" else "right", overflow="fold")
    for f in doc["families"]:
        t.add_row(escape(f["id"]), _scatter(f), f"{f['median_pairs']:g}" if f.get("median_pairs") is not None else "-",
                  *(_needed(g, doc["threshold"]) for g in f.get("pairs_needed") or ()))
    return t


def _print(doc: dict) -> None:
    inject = doc.get("inject", "size")
    t = Table(title=f"calibration: A/A and A vs {calibration.describe_injection(inject, doc['factor'])} "
                    f"({doc['runs']} runs a side, alpha {doc['alpha']} "
                    f"across {doc.get('tests', 1)} tests, threshold {doc['threshold']:.1%}; {HEADLINE.label}, paired)")
    # every metric calibrated beside the headline: its false alarms, and its detections
    # where the slowdown moves it (calibration.family_result's aa_<name>, ab_<name>)
    beside = []
    for m in (m for m in calibrated() if m is not HEADLINE):
        beside.append((stored_key("aa", m), f"{m.name}: false\nalarms"))
        if m.calibrate == "detect":
            beside.append((stored_key("ab", m), f"{m.name}:\ndetected"))
    beside += [("aa_any", "any metric:\nfalse alarms"), ("ab_any", f"{' or '.join(_detecting())}:\ndetected")]
    # Headers on two lines, so that the family, which names the row, gets the room.
    for col in ("family", f"{'window' if inject == 'window' else 'size'} x: realised\n{'/'.join(_detecting())}",
                "median\nwindow", "robust\nCV", "pairs\n(x K)", "could\nsee", "false\nalarms", "detected",
                *(c for _, c in beside)):
        t.add_column(col, justify="left" if col == "family" else "right", overflow="fold")
    for f in doc["families"]:
        t.add_row(escape(f["id"]), f"{f['effective_factor']:.3f}: {_realised(f)}",
                  f"{f['median_window_s'] * 1e3:.1f} ms" if f.get("median_window_s") else "-",
                  f"{f['robust_cv']:.2%}" if f["robust_cv"] is not None else "-",
                  _pairs(f),
                  f"±{f['resolution']:.1%}" if f.get("resolution") is not None else "-",
                  f"{f['aa']['flagged']}/{f['aa']['comparisons']}", f"{f['ab']['flagged']}/{f['ab']['comparisons']}",
                  *(f"{f[k]['flagged']}/{f[k]['comparisons']}" if f.get(k) else "-" for k, _ in beside))
    con = wide_console()
    con.print(t)
    con.print(_limits_table(doc))
    s = doc["summary"]
    pairs, busy, left = (sum((f.get("contended") or {}).get(k, 0) for f in doc["families"])
                         for k in ("pairs", "contended", "left_out"))
    if busy:
        print(f"contended: {busy} of {pairs} pairs ran beside other work (more than "
              f"{measures.CONTENDED_CORES:g} cores of it in a window); "
              + (f"{left} left out, {pairs - left} judged" if left else
                 "all judged (--leave-out-contended judges without them)"))
    def rate(x, digits=2):   # None: no comparison had enough pairs for a rate
        return "-" if x is None else f"{x:.{digits}%}"
    print(f"false-alarm rate {rate(s['false_alarm_rate'])} ({s['false_alarms']}/{s['aa_comparisons']}), "
          f"detection rate at x{doc['factor']} {rate(s['detection_rate'])} ({s['detections']}/{s['ab_comparisons']}); "
          f"A/A noise (99th percentile of |ratio - 1|) {rate(s['aa_noise_p99'])}; "
          f"recommended threshold {rate(s['recommended']['threshold'], 1)}")
    if s.get("by_threshold"):
        def pct(x):
            return "-" if x is None else f"{x:.1%}"
        heads = [f"{'' if m is HEADLINE else m.name + ': '}false alarms  detected" for m in calibration.recommending()]
        print("threshold  " + "  | ".join(heads))
        for r in s["by_threshold"]:
            print(f"{r['threshold']:>8.1%}  " + "  | ".join(
                f"{pct(r.get(calibration.rate_key(m, 'false_alarm_rate'))):>{len(h) - 10}}  "
                f"{pct(r.get(calibration.rate_key(m, 'detection_rate'))):>8}"
                for m, h in zip(calibration.recommending(), heads)))
    for m in calibrated(detect=True):
        c = s.get(m.name) if m is not HEADLINE else None
        if c and c["false_alarms"]["comparisons"]:
            print(f"{m.label}: false-alarm rate {c['false_alarms']['rate']:.2%}, "
                  f"detection rate {c['detections']['rate']:.2%}")
    r = s.get("report")
    if r and r["false_alarms"]["comparisons"]:
        print(f"as a pull request's report shows a benchmark: flagged on any metric in "
              f"{r['false_alarms']['flagged']}/{r['false_alarms']['comparisons']} A/A comparisons; a regression on "
              f"the {' or '.join(m.label for m in calibrated(detect=True))} in {r['detections']['flagged']}/{r['detections']['comparisons']} at "
              f"x{doc['factor']}")
