"""Calibration: what this machine can detect. For each benchmark family, repeated
rounds of A against A (the same build and workload: every flag is a false alarm) and A
against B, A made `factor` times slower: every miss is a missed regression. How B is made
slower (`inject`): "window", the programs' `--stretch F` holds each timed window open
until it has lasted F times what the work took (exactly F, whatever part of the window
does not grow with a workload's size; spinning for F - 1 times its CPU time, so that CPU
time grows by F as far as one thread can add it, and sleeping the rest); or "size", the same scenario with its
scale parameter multiplied by F (a heavier workload, as slower code would be, which
lengthens some windows by less: files-read Rust's x1.05 was +2-4 %). One engine: the three sides are measured exactly as `bench run`
measures an A/B run (runner.run_group: interleaved rounds, fresh program copies, the
programs' own records) and judged exactly as `bench compare` judges it
(compare.compare_bench, paired, on every metric of benchpipe.metrics that calibrate
judges: the timed window, the CPU time inside it and peak memory). The result, calibration.json, states the false-alarm rate, the detection rate
at that factor and the noise of the runner; `compare` quotes it and takes its
recommended thresholds as defaults. For each family it also projects, from the A/A
pairs' own scatter, how many pairs a comparison would need to see the issue's goals (a
5 % slowdown 19 times in 20, 2 % 4 times in 5): what limits a family that misses them.
"""

from __future__ import annotations

import itertools
import math
import os
import platform
import statistics
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from scipy import stats as sps

from benchpipe import compare, envinfo, measures, multitest, stats, strictjson
from benchpipe.catalogue import BenchSpec
from benchpipe.errors import BenchError
from benchpipe.metrics import HEADLINE, METRICS, calibrated, stored_key
from benchpipe.results import family_id, format_params

CALIBRATION_SCHEMA = "gorust-bench.calibration/1"
DEFAULT_PATH = "calibration.json"

INJECTIONS = ("window", "size")
MAX_STRETCH = 2.0   # the programs' --stretch bound (go/clock.go maxStretch, rust/src/window.rs)


def stretch_argv(factor: float) -> list[str]:
    """The programs' option that holds every window open to `factor` times its length."""
    if not 1 < factor <= MAX_STRETCH:
        raise BenchError(f"a window can be stretched by more than 1 and at most {MAX_STRETCH:g}, not {factor!r}")
    return ["--stretch", repr(float(factor))]


def describe_injection(inject: str, factor: float) -> str:
    return f"A with its window x{factor:g}" if inject == "window" else f"A scaled by x{factor:g} in size"


# ---------------------------------------------------------------- pairs needed (what limits a family)

# The detection goals a family is measured against: (slowdown, share of them flagged).
GOALS = ((0.05, 0.95), (0.02, 0.80))


def recommending() -> list:
    """The metrics whose threshold calibrate recommends: those of the `threshold` setting
    (compare's --threshold: the window and CPU time)."""
    return [m for m in calibrated() if m.setting == "threshold"]


def pair_log_ratios(rounds: list[tuple[dict, dict, dict]], metric: str, side: int) -> list[float]:
    """log(X_i / A_i) of every pair of every round, X the round's side `side` (1: A', 2: B)."""
    d = []
    for r in rounds:
        xs, ys = METRICS[metric].samples(r[0]), METRICS[metric].samples(r[side])
        if len(xs) == len(ys):
            d.extend(math.log(y / x) for x, y in zip(xs, ys) if x > 0 and y > 0)
    return d


def pair_scatter(rounds: list[tuple[dict, dict, dict]], metric: str) -> float | None:
    """Standard deviation of the within-pair log ratio log(A'_i / A_i) over every pair of
    every round: the noise a paired comparison of identical code must see through. The
    plain (not robust) deviation, since occasional wild pairs cost the test too."""
    d = pair_log_ratios(rounds, metric, 1)
    return float(np.std(d, ddof=1)) if len(d) >= 3 else None


def pairs_needed(scatter: float, change: float, power: float, level: float, threshold: float) -> int | None:
    """Pairs a paired comparison needs so that a slowdown by `change` (a fraction) is
    flagged with probability about `power`: the mean log ratio must clear the
    significance level a lone flag must reach (`level`, two-sided) and lie beyond the
    practical threshold, each with that probability. Student's t quantiles rather than
    normal ones: at levels this small and a few dozen pairs the signed-rank test is as
    demanding as t (checked against the report's own judgement in the tests). None when
    the threshold makes it impossible: a change no larger than the threshold is flagged
    at most half the time, however many pairs are taken."""
    delta, tau = math.log1p(change), math.log1p(threshold)
    if delta <= tau:
        return None
    # and never fewer than the signed-rank test needs to reach the level at all
    floor = next(n for n in itertools.count(1) if stats.min_paired_p(n) < level)
    n = floor
    for _ in range(50):   # the quantiles depend on n: iterate to the fixed point
        t_level, t_power = float(sps.t.isf(level / 2, n - 1)), float(sps.t.ppf(power, n - 1))
        nxt = max(floor, math.ceil(max(((t_level + t_power) * scatter / delta) ** 2,
                                       (t_power * scatter / (delta - tau)) ** 2)))
        if nxt == n:
            break
        n = nxt
    return n


def realised(rounds: list[tuple[dict, dict, dict]], metric: str) -> float | None:
    """The change the scaled workload really made to a metric: exp of the median of every
    A/B pair's log ratio log(B_i / A_i), pooled over the rounds. Scaling the size by 1.05
    lengthens the timed window by less where part of the window does not grow with it
    (sqlite's connection checkouts, a fixed sleep schedule), so a miss at x1.05 may be a
    miss of a smaller change: this says how large the change really was."""
    d = pair_log_ratios(rounds, metric, 2)
    return math.exp(statistics.median(d)) if d else None


def projection(rounds: list[tuple[dict, dict, dict]], level: float, settings: compare.Settings) -> dict:
    """The A/A pair scatter of each metric the slowdown moves (the window, CPU time), and
    the pairs each needs for each of GOALS at its threshold (None: not with that threshold)."""
    scatter = {m.name: pair_scatter(rounds, m.name) for m in calibrated(detect=True)}
    needed = [{"change": change, "power": power,
               **{m: (pairs_needed(sd, change, power, level, settings.threshold_for(m)) if sd else None)
                  for m, sd in scatter.items()}}
              for change, power in GOALS]
    return {"pair_scatter": scatter, "flag_level": level, "pairs_needed": needed}


# ---------------------------------------------------------------- the calibration document

def family_result(spec: BenchSpec, factor_eff: float, rounds: list[tuple[dict, dict, dict]],
                  alpha: float, threshold: float, seed: int = stats.SEED, looks: multitest.Looks | None = None,
                  tests: int = 1, leave_out_contended: bool = False) -> dict:
    """Judge each round (A, A', B: results-file benchmarks) as `compare` judges a pull
    request's report: each comparison as one benchmark among `tests` tests whose others
    found nothing (multitest.adjust), with the run's looks. A/A flags are false alarms,
    A/B regressions are detections. The headline metric, the timed window, is "aa" and
    "ab"; each other metric calibrated beside it "aa_<name>" (and "ab_<name>" where the
    slowdown moves it: CPU time; memory's are false alarms only); and what a pull
    request's report shows of the benchmark as a whole ("aa_any": a flag on any metric;
    "ab_any": a regression on a metric the slowdown moves)."""
    looks = looks or multitest.Looks.fixed()
    # Calibrate keeps contended pairs unless asked (it is run beside a busy core on
    # purpose, to see what a busy runner can detect) and counts them either way.
    settings = compare.Settings(alpha=alpha, threshold=threshold, seed=seed, keep_contended=not leave_out_contended)
    detecting = calibrated(detect=True)
    sides = [("aa", m) for m in calibrated()] + [("ab", m) for m in detecting]
    got: dict[tuple, list] = {(side, m): [] for side, m in sides}
    any_flag = {"aa_any": 0, "ab_any": 0}

    contended = {"pairs": 0, "contended": 0, "left_out": 0}

    def judged(pid, first, second, a, b):
        c = compare.compare_bench(pid, first, second, a, b, settings, paired=True, looks=looks)
        contended["pairs"] += len(measures.window_s(a))
        contended["contended"] += len(set(measures.contended_runs(a)) | set(measures.contended_runs(b)))
        contended["left_out"] += c.contended
        return compare.correct([c], settings, looks, tests)[0].metrics

    for a, a2, b in rounds:
        aa = judged("aa", "a", "a2", a, a2)
        ab = judged("ab", "a", "b", a, b)
        for side, m in sides:
            judgement = aa if side == "aa" else ab
            if m.name in judgement:
                got[side, m].append(judgement[m.name])
        any_flag["aa_any"] += any(c.flagged for c in aa.values())
        any_flag["ab_any"] += any(ab[m.name].verdict == stats.REGRESSION for m in detecting if m.name in ab)
    windows = [x for a, a2, _ in rounds for x in measures.window_s(a) + measures.window_s(a2)]
    walls = [x for a, a2, _ in rounds for x in a["samples"]["wall_s"] + a2["samples"]["wall_s"]]
    med = statistics.median(windows) if windows else None
    mad = statistics.median(abs(x - med) for x in windows) if windows else None
    resolutions = [c.resolution for c in got["ab", HEADLINE] if c.resolution is not None]
    pairs = [c.n_base for c in got["ab", HEADLINE]]
    counts = [measures.windows_per_run(a) for a, _, _ in rounds]   # --repeat K
    level = multitest.lone_flag_level(alpha, tests, looks.spending)
    return {
        **family_identity(spec), "size_param": spec.scenario.size, "effective_factor": factor_eff,
        "realised": {m.name: realised(rounds, m.name) for m in detecting},
        "median_window_s": med, "median_wall_s": statistics.median(walls) if walls else None,
        "robust_cv": 1.4826 * mad / med if med else None,
        "resolution": statistics.median(resolutions) if resolutions else None,
        "median_pairs": statistics.median(pairs) if pairs else None,
        "windows_per_run": statistics.median(counts) if counts else None,
        # pairs judged, those that ran beside other work, and those left out for it
        "contended": contended,
        **projection(rounds, level, settings),
        # A/A: any flag is a false alarm; A/B: a regression is a detection. The headline's
        # always, the others' where a comparison had the metric.
        **{stored_key(side, m): _rates(comps, (lambda c: c.flagged) if side == "aa" else
                                       (lambda c: c.verdict == stats.REGRESSION))
           if comps or m is HEADLINE else None
           for (side, m), comps in got.items()},
        **{k: {"comparisons": len(rounds), "flagged": n, "rate": n / len(rounds) if rounds else None}
           for k, n in any_flag.items()},
    }


def _rates(comps: list, flagged) -> dict:
    """Counts, and every comparison's ratio and p-value (so other thresholds can be replayed)."""
    hits = sum(1 for c in comps if flagged(c))

    def num(x, digits):
        return None if x is None or not math.isfinite(x) else float(f"{x:.{digits}g}")
    return {"comparisons": len(comps), "flagged": hits, "rate": hits / len(comps) if comps else None,
            "significant": sum(1 for c in comps if c.judged_p is not None and c.judged_p < stats.DEFAULT_ALPHA),
            "ratios": [num(c.ratio, 6) for c in comps], "p_values": [num(c.judged_p, 4) for c in comps]}


THRESHOLD_GRID = (0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.10)
TARGET_FALSE_ALARMS = 0.01


def replay(rates: list[dict], alpha: float, threshold: float, regression_only: bool) -> tuple[int, int] | None:
    """(flagged, comparisons) of stored comparisons judged again at another threshold;
    None when the p-values were not stored."""
    n = hits = 0
    for r in rates:
        if not r or "p_values" not in r:
            return None
        for ratio, p in zip(r["ratios"], r["p_values"]):
            n += 1
            if ratio is None or p is None or p >= alpha:
                continue
            if ratio >= 1 + threshold or (not regression_only and ratio <= 1 / (1 + threshold)):
                hits += 1
    return hits, n


def rate_key(metric, what: str) -> str:
    """by_threshold's column of a metric: `false_alarm_rate` (headline), `cpu_false_alarm_rate`."""
    return what if metric is HEADLINE else f"{metric.name}_{what}"


def threshold_table(families: list[dict], alpha: float) -> list[dict] | None:
    """False-alarm and detection rates of the metrics whose threshold calibrate recommends
    (recommending(): the window and CPU time) at each threshold of THRESHOLD_GRID."""
    columns = []   # (column, family field, regressions only)
    for m in recommending():
        columns.append((rate_key(m, "false_alarm_rate"), stored_key("aa", m), False))
        if m.calibrate == "detect":
            columns.append((rate_key(m, "detection_rate"), stored_key("ab", m), True))
    rows = []
    for t in THRESHOLD_GRID:
        row = {"threshold": t}
        for name, field, reg in columns:
            got = replay([f.get(field) for f in families if f.get(field) is not None], alpha, t, reg)
            if got is None:
                return None
            row[name] = got[0] / got[1] if got[1] else None
        rows.append(row)
    return rows


def family_identity(spec: BenchSpec) -> dict:
    """What names a calibrated family in a calibration document (either signal's)."""
    return {"id": family_id(spec_key(spec)), "scenario": spec.scenario.name, "variant": spec.variant,
            "build": spec.build.name, "lang": spec.build.lang, "params": spec.params}


def spec_key(spec: BenchSpec) -> dict:
    return {"scenario": spec.scenario.name, "variant": spec.variant, "lang": spec.build.lang,
            "build": spec.build.name, "toolchain": "", "params": spec.params}


def summarise(families: list[dict], factor: float, alpha: float, threshold: float) -> dict:
    """Pooled rates, the A/A noise band and the recommended threshold."""
    n_aa = sum(f["aa"]["comparisons"] for f in families)
    n_ab = sum(f["ab"]["comparisons"] for f in families)
    fa = sum(f["aa"]["flagged"] for f in families)
    det = sum(f["ab"]["flagged"] for f in families)
    aa_dev = [abs(r - 1) for f in families for r in f["aa"]["ratios"] if r is not None]
    noise_p99 = float(np.quantile(aa_dev, 0.99)) if aa_dev else None
    # Recommended practical threshold: the smallest of THRESHOLD_GRID, not below the
    # default (a change smaller than that is not worth a flag), at which the A/A
    # comparisons (recommending(): the window and CPU time) raised at most 1 % false alarms.
    # Without stored p-values (older files): the default.
    table = threshold_table(families, alpha)
    recommended = threshold
    alarms = [rate_key(m, "false_alarm_rate") for m in recommending()]
    if table:
        ok = [r["threshold"] for r in table if r["threshold"] >= stats.DEFAULT_THRESHOLD
              and all(r[k] is None or r[k] <= TARGET_FALSE_ALARMS for k in alarms)]
        recommended = ok[0] if ok else THRESHOLD_GRID[-1]

    def pooled(field):
        fams = [f[field] for f in families if f.get(field)]
        n = sum(x["comparisons"] for x in fams)
        return {"comparisons": n, "flagged": sum(x["flagged"] for x in fams),
                "rate": sum(x["flagged"] for x in fams) / n if n else None}

    return {
        # each metric beside the headline (whose rates are the fields below): cpu, memory
        **{m.name: {"false_alarms": pooled(stored_key("aa", m)),
                    **({"detections": pooled(stored_key("ab", m))} if m.calibrate == "detect" else {})}
           for m in calibrated() if m is not HEADLINE},
        "report": {"false_alarms": pooled("aa_any"), "detections": pooled("ab_any")},
        "aa_comparisons": n_aa, "false_alarms": fa, "false_alarm_rate": fa / n_aa if n_aa else None,
        "ab_comparisons": n_ab, "detections": det, "detection_rate": det / n_ab if n_ab else None,
        "aa_noise_p99": noise_p99,
        # the change this runner flags at least 95 % of the time, when the calibrated factor is one
        "detectable_change": (factor - 1) if n_ab and det / n_ab >= 0.95 else None,
        "by_threshold": table,
        "recommended": {"alpha": alpha, "threshold": recommended},
    }


def machine() -> dict:
    return {"os": envinfo.os_name(), "arch": platform.machine(), "cores": os.cpu_count(),
            "cpu_model": envinfo.cpu_model(), "runner": os.environ.get("RUNNER_NAME") or platform.node()}


def document(preset: str, runs: int, repeats: int, factor: float, alpha: float, threshold: float,
             families: list[dict], tests: int = 1, repeat: dict | None = None, inject: str = "size") -> dict:
    return {
        "schema": CALIBRATION_SCHEMA, "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine(), "preset": preset, "runs": runs, "repeats": repeats, "factor": factor,
        "inject": inject,
        **({"repeat": repeat} if repeat else {}),
        "alpha": alpha, "threshold": threshold, "tests": tests, "families": families,
        "summary": summarise(families, factor, alpha, threshold),
    }


def load(path) -> dict:
    """Read a calibration.json; one-line BenchError when it is not one."""
    path = Path(path)
    if not path.is_file():
        raise BenchError(f"{path}: no such calibration file")
    try:
        doc = strictjson.read(path)
    except BenchError as err:
        raise BenchError(f"not a calibration file: {err}") from None
    if not isinstance(doc, dict) or doc.get("schema") != CALIBRATION_SCHEMA or not isinstance(doc.get("summary"), dict):
        raise BenchError(f"{path}: not a calibration file (schema must be {CALIBRATION_SCHEMA!r})")
    return doc


def describe_family(spec: BenchSpec) -> str:
    return f"{spec.scenario.name}/{spec.variant}/{spec.build.name}/{format_params(spec.params)}"
