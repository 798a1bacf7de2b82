"""What the instruction counts can see on this machine (issue 38): a benchmark, not a test.

    python -m devtools.instrcal [--preset quick] [--scenario S,...] [--runs 14] [--tries 20]
                                [--builds .bench/build] [--json out.json]

Every benchmark of the preset runs 2 x `--runs` times under Valgrind exactly as `bench
run`'s instruction pass runs it (benchpipe.instructions.measure_group: the same command,
sizes, environment and interleaving), from two copies of the built program (A and A':
the same bytes, as `bench run` runs a pull request against an unchanged base). Then
`--tries` times, each benchmark's A and A' counts are drawn (`instruction_runs` of the
preset a side, without replacement) and every benchmark is compared as a pull request's
report compares it (metrics.METRICS["instructions"], corrected across the report's
tests by multitest at the report's alpha):

- A/A: A against A' as they are (false alarms: per benchmark, and per report: a try
  with any flag);
- 1 % and 0.5 %: A' counts multiplied by 1.01 / 1.005 (a change of that size in the
  work, on the real scatter of these counts).

Printed per benchmark: its median count, robust CV, whether it is judged (CV at most
0.5 %), its false alarms and detections out of the tries; then the totals the issue
asks for, and the seconds the pass took per run (so a pull request's added time is
runs x 2 sides x benchmarks x that). Fixed seed."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

from benchpipe import ROOT, catalogue, instructions, multitest, runner, services, stats, tools
from benchpipe.commands.calibrate import programs_to_calibrate
from benchpipe.commands.catalogue import add_filter_arguments, select
from benchpipe.commands.run import service_names_of
from benchpipe.metrics import METRICS

METRIC = METRICS["instructions"]
SHIFTS = (1.0, 1.01, 1.005)


def measure(specs, programs, runs: int, hf: str, work: Path, env: dict) -> list[dict]:
    """Per benchmark: its A and A' counts (2 x runs, interleaved) and seconds per run."""
    out = []
    for i, spec in enumerate(specs, 1):
        built = programs[spec.build.name]
        copies = runner.fresh_copies([dataclasses.replace(built, label="a"), dataclasses.replace(built, label="a2")],
                                     work / f"{i:03d}")
        jobs = runner.make_jobs([spec], copies, work / f"{i:03d}", ab=True, copied=True)
        for j in jobs:
            j.status = "ok"
        t0 = time.monotonic()
        instructions.measure_group(jobs, runs, hf, env, 600)
        took = (time.monotonic() - t0) / (2 * runs)
        runner.clean(jobs)
        row = {"id": jobs[0].id.split("#")[0], "seconds_per_run": took,
               "warnings": [w for j in jobs for w in j.warnings]}
        if all(j.instructions for j in jobs):
            row["a"], row["a2"] = (j.instructions["counts"] for j in jobs)
        out.append(row)
        print(f"[{i}/{len(specs)}] {row['id']}: " + (f"{statistics.median(row['a']):,.0f} instructions, robust CV "
              f"{instructions.cv(row['a'] + row['a2']) * 100:.3f} %" if "a" in row else "; ".join(row["warnings"]))
              + f" ({took:.2f} s a run)", file=sys.stderr)
    return out


def judge(rows: list[dict], n: int, tries: int, tests: int, seed: int = 38) -> dict:
    """Per benchmark and shift, how many of `tries` reports flagged it; and the reports
    (tries) with any A/A flag."""
    rng = random.Random(seed)
    flags = {(r["id"], s): 0 for r in rows for s in SHIFTS}
    aa_reports = 0
    for _ in range(tries):
        draws = {}
        for r in rows:
            if "a" in r:
                draws[r["id"]] = (rng.sample(r["a"], n), rng.sample(r["a2"], n))
        for s in SHIFTS:
            found = []
            for rid, (a, b) in draws.items():
                entry = {"counts": a + b, "cv": instructions.cv(a + b)}
                if not instructions.judged(entry):
                    continue
                c = METRIC.compare([float(x) for x in a], [x * s for x in b], paired=False, alpha=stats.DEFAULT_ALPHA,
                                   threshold=METRIC.threshold)
                found.append((rid, c))
            ps = [c.p_value if c.p_value is not None else 1.0 for _, c in found]
            adjusted = multitest.adjust(ps, "bh", tests)
            hit = [rid for (rid, c), q in zip(found, adjusted) if c.flagged and q < stats.DEFAULT_ALPHA]
            for rid in hit:
                flags[(rid, s)] += 1
            if s == 1.0 and hit:
                aa_reports += 1
    return {"flags": flags, "aa_reports": aa_reports}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="quick")
    add_filter_arguments(p)
    p.add_argument("--runs", type=int, default=14, help="runs per copy (A and A'), at least the preset's instruction_runs")
    p.add_argument("--tries", type=int, default=20)
    p.add_argument("--builds", default=str(ROOT / ".bench" / "build"))
    p.add_argument("--json", help="write the counts and the verdicts here")
    args = p.parse_args(argv)
    cat = catalogue.load()
    preset = cat.preset(args.preset)
    n = preset.instruction_runs or 7
    if args.runs < n:
        p.error(f"--runs must be at least the preset's instruction_runs ({n})")
    why = instructions.unavailable()
    if why:
        p.error(why)
    specs = select(cat, args.preset, args)
    programs = programs_to_calibrate(Path(args.builds))
    specs = [s for s in specs if s.build.name in programs]
    tests = len(cat.benchmarks(args.preset)) * len(METRICS)
    hf = tools.require("hyperfine")
    work = runner.new_workroot()
    t0 = time.monotonic()
    with services.running(service_names_of(specs)) as got:
        env = {**os.environ, **got.env()}
        specs = [s for s in specs if not got.why_not(s.scenario.service)]
        rows = measure(specs, programs, args.runs, hf, work, env)
    wall = time.monotonic() - t0
    res = judge(rows, n, args.tries, tests)
    print(f"\n{len(rows)} benchmarks, {args.runs} runs a copy, {args.tries} tries of {n} runs a side, "
          f"as one of {tests} tests (BH at {stats.DEFAULT_ALPHA}):")
    print(f"{'benchmark':70} {'median':>12} {'rCV %':>7} {'judged':>6} {'A/A':>4} {'1 %':>4} {'0.5 %':>5}")
    judged = 0
    for r in rows:
        if "a" not in r:
            print(f"{r['id'][:70]:70} {'-':>12}  not counted: {'; '.join(r['warnings'])[:80]}")
            continue
        cv = instructions.cv(r["a"] + r["a2"])
        ok = instructions.judged({"counts": r["a"] + r["a2"], "cv": cv})
        judged += ok
        f = res["flags"]
        print(f"{r['id'][:70]:70} {statistics.median(r['a']):12,.0f} {cv * 100:7.3f} {'yes' if ok else 'no':>6} "
              f"{f[(r['id'], 1.0)]:4} {f[(r['id'], 1.01)]:4} {f[(r['id'], 1.005)]:5}")
    per_run = [r["seconds_per_run"] for r in rows]
    tot = {s: sum(res["flags"][(r["id"], s)] for r in rows if "a" in r) for s in SHIFTS}
    print(f"\njudged: {judged} of {len(rows)}; over the judged, of {judged * args.tries} comparisons: "
          f"1 % flagged {tot[1.01]}, 0.5 % flagged {tot[1.005]}, A/A flags {tot[1.0]}; "
          f"reports (tries) with any A/A flag: {res['aa_reports']} of {args.tries}")
    print(f"the pass: {statistics.mean(per_run):.2f} s a run on average ({sum(per_run) * n:.0f} s for {n} runs of "
          f"every benchmark on one side; {wall:.0f} s in all here)")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "flags": {f"{k[0]} x{k[1]}": v for k, v in res["flags"].items()},
                                               "aa_reports": res["aa_reports"], "tries": args.tries, "n": n}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
