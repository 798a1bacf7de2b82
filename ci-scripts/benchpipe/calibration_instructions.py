"""Calibrating the second signal (issue 38): what the instruction counts can see on this
runner, beside what `calibrate` measures of the wall clock (calibration.py).

Each family runs 2 x N times under Valgrind exactly as `bench run`'s instruction pass
runs it (instructions.measure_group: the same command, sizes, environment and
interleaving), from two copies of one build (A and A': the same bytes, as a pull
request is run against an unchanged base). Then `tries` times, n of each copy's counts
are drawn without replacement (n: the preset's instruction_runs, what a pull request's
report has a side) and compared as the report compares them (metrics.METRICS
["instructions"]): A against A' (a flag is a false alarm), and A against A' with every
count multiplied by F (SHIFTS: 1.01 and 0.5 % more): a change of exactly F times the
window's instructions, on the counts' real scatter. (A stretched window cannot serve:
its spin runs for a time, and how many instructions fit in it depends on Valgrind's
speed; a scaled workload is not exactly F either, its fixed part does not grow.)

Judged two ways, both kept:
- lone: each comparison as one of `tests` tests whose others found nothing (the
  hardest case, a change in one benchmark; as calibrate judges the wall clock);
- together: every family of the run changed at once (a compiler or code-generation
  change) and corrected together as one report; an A/A report with any flag is one
  false alarm of the report.

Each drawn report also takes the pass's second look as `bench run` does for two sides
(instructions.TOP_UP_GATE): every p-value as two looks allow (instructions.two_look_p),
and n more counts a side, drawn from
the rest, for a pair whose first look was suggestive, where a copy has 2n counts (none
fewer: no second look drawn). With exactly 2n (the default), every second look of a
family compares the same 2n counts: its figures rest on one comparison a family and
shift; 4n counts a copy give them draws of their own."""

from __future__ import annotations

import dataclasses
import random
import statistics
import time
from datetime import datetime, timezone
from pathlib import Path

from benchpipe import calibration, instructions, multitest, runner, stats
from benchpipe.metrics import METRICS

METRIC = METRICS["instructions"]
SHIFTS = (1.01, 1.005)
SEED = 38


def shift_key(shift: float) -> str:
    """A comparison's field in a family's figures: "aa" (no shift), "x1.01"."""
    return "aa" if shift == 1.0 else f"x{shift:g}"


KEYS = {s: shift_key(s) for s in (1.0, *SHIFTS)}


def count_family(spec, built, runs: int, hf: str, work: Path, env: dict, timeout_s: float) -> dict:
    """The family's A and A' counts (runs each, interleaved), the sizes they were counted
    at, seconds a counted run, and the pass's warnings (a run that failed under Valgrind:
    no counts, and no seconds a run: the pass stopped early)."""
    copies = runner.fresh_copies([dataclasses.replace(built, label="a"), dataclasses.replace(built, label="a2")], work)
    jobs = runner.make_jobs([spec], copies, work, ab=True, copied=True)
    for j in jobs:
        j.status = "ok"
    t0 = time.monotonic()
    instructions.measure_group(jobs, runs, hf, env, timeout_s, top_up=False, unsteady_too=True)   # judge draws the looks
    took = time.monotonic() - t0
    runner.clean(jobs)
    out = {"runs": runs, "counted_params": instructions.pass_params(spec.scenario),
           "warnings": [w for j in jobs for w in j.warnings]}
    if all(j.instructions for j in jobs):
        out["a"], out["a2"] = (list(j.instructions["counts"]) for j in jobs)
        out["unsteady"] = jobs[0].instructions.get("unsteady")
        out["seconds_per_run"] = took / (2 * runs)
    return out


def _entry(counts: list, unsteady) -> dict:
    return {"counts": counts, "cv": instructions.cv(counts), "unsteady": unsteady}


def judge(families: list[dict], n: int, tries: int, tests: int, alpha: float = stats.DEFAULT_ALPHA,
          seed: int = SEED) -> dict:
    """Each family's counts ("a", "a2") judged in `tries` drawn reports of n counts a side
    (see the module docstring). Returns {"families": [...], "report": {...}}: per family
    its median, robust CV over all its counts and whether that makes it deterministic
    ("judged", instructions.DETERMINISTIC_CV), in how many draws both sides were steady
    enough for a verdict ("judged_draws", as a report judges each side's own counts:
    instructions.REPORT_CV), and its flags per
    comparison (KEYS), lone and together. The totals are over the deterministic
    families, every draw a comparison (a draw without a verdict is a miss)."""
    rng = random.Random(seed)
    counted = [f for f in families if "a" in f and min(len(f["a"]), len(f["a2"])) >= n]
    flags = {(id(f), s, how): 0 for f in counted for s in KEYS for how in ("lone", "together", "topped")}
    judged_draws = {id(f): 0 for f in counted}
    aa_reports = 0
    for _ in range(tries):
        found: dict[float, list] = {s: [] for s in KEYS}
        for f in counted:
            # the pass's second look where 2n counts a copy allow it (instructions.TOP_UP_GATE);
            # the p-value allows for two looks either way, as for a pull request's two sides
            second = min(len(f["a"]), len(f["a2"])) >= 2 * n
            da, db = rng.sample(f["a"], 2 * n if second else n), rng.sample(f["a2"], 2 * n if second else n)
            a, b = da[:n], db[:n]
            # as a report judges: each side's counts steady in its own run (instructions.samples)
            if not all(instructions.judged(_entry(x, f.get("unsteady"))) for x in (a, b)):
                continue
            judged_draws[id(f)] += 1
            for s in found:
                xa, xb = a, [x * s for x in b]
                if second and instructions.top_up_wanted(_entry(xa, None), _entry(xb, None)):
                    xa, xb = da, [x * s for x in db]
                    flags[id(f), s, "topped"] += 1
                    if not all(instructions.judged(_entry(x, None)) for x in (xa, xb)):
                        continue   # no verdict in the report either (instructions.samples)
                # paired: two sides of one run (the count test itself is unpaired)
                c = METRIC.compare([float(x) for x in xa], xb, paired=True, alpha=alpha,
                                   threshold=METRIC.threshold, looks=instructions.TOP_UP_LOOKS)
                found[s].append((f, c))
                p = c.p_value if c.p_value is not None else 1.0
                flags[id(f), s, "lone"] += c.flagged and multitest.adjust([p], "bh", tests)[0] < alpha
        for s, got in found.items():
            ps = [c.p_value if c.p_value is not None else 1.0 for _, c in got]
            hit = [f for (f, c), q in zip(got, multitest.adjust(ps, "bh", tests)) if c.flagged and q < alpha]
            for f in hit:
                flags[id(f), s, "together"] += 1
            aa_reports += s == 1.0 and bool(hit)
    out = []
    for f in families:
        row = {k: v for k, v in f.items() if k not in ("a", "a2")}
        if "a" in f:
            both = f["a"] + f["a2"]
            entry = _entry(both, f.get("unsteady"))
            row.update(counts={"a": f["a"], "a2": f["a2"]}, median=statistics.median(both), cv=entry["cv"],
                       scatter=instructions.scatter(both),
                       judged=instructions.deterministic(entry),
                       why=instructions.not_judged_why(entry, instructions.DETERMINISTIC_CV), drawn=n)
            if f.get("unsteady") and instructions.deterministic(_entry(both, None)):
                # calibrate counts declared families to check the declaration: say when it no longer holds
                row["why"] = (f"declared unsteady in the catalogue, yet deterministic over these counts (CV "
                              f"{entry['cv'] * 100:.2f} %, scatter {row['scatter'] * 100:.2f} %): drop the "
                              "declaration and bench run counts and judges it")
            if id(f) in judged_draws:
                row.update(tries=tries, judged_draws=judged_draws[id(f)],
                           **{k: {how: flags[id(f), s, how] for how in ("lone", "together", "topped")}
                              for s, k in KEYS.items()})
        out.append(row)
    steady = [r for r in out if r.get("judged") and "tries" in r]
    report = {"tries": tries, "drawn": n, "tests": tests, "alpha": alpha, "aa_reports": aa_reports,
              "families": len(out), "counted": sum("counts" in r for r in out), "judged": len(steady),
              "judged_draws": sum(r["judged_draws"] for r in steady)}
    for k in KEYS.values():
        for how in ("lone", "together"):
            report[f"{k}_{how}"] = {"comparisons": sum(r["tries"] for r in steady),
                                    "flagged": sum(r[k][how] for r in steady)}
        # draws whose pair was counted a second time (what the top-up costs)
        report[f"{k}_topped"] = {"draws": report["judged_draws"], "topped": sum(r[k]["topped"] for r in steady)}
    # flags in families whose counts are not deterministic (a report judges a draw of
    # theirs where both sides happened to be steady): A/A flags there are false alarms too
    report["aa_not_deterministic"] = sum(r["aa"]["together"] for r in out if "tries" in r and not r.get("judged"))
    per_run = [r["seconds_per_run"] for r in out if r.get("seconds_per_run")]
    report["seconds_per_run"] = statistics.mean(per_run) if per_run else None
    # what the pass adds to a pull request's job: n runs a side of every family `bench run`
    # counts (not those declared unsteady)
    counted_s = [r["seconds_per_run"] for r in out if r.get("seconds_per_run") and not r.get("unsteady")]
    report["pass_s_a_side"] = sum(counted_s) * n if counted_s else None
    return {"families": out, "report": report}


SCHEMA = "gorust-bench.calibration-instructions/1"
# Apart from calibration.json: `compare` reads that file's thresholds, which this one has none of.
DEFAULT_PATH = "calibration-instructions.json"


def document(preset: str, count_runs: int, judged: dict, valgrind: dict) -> dict:
    return {"schema": SCHEMA, "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": calibration.machine(), "preset": preset, "count_runs": count_runs,
            "shifts": list(SHIFTS), "valgrind": valgrind, **judged}
