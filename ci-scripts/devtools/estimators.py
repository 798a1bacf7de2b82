"""Which paired test sees a slowdown soonest, on this machine's own A/A pairs (not a
test): a benchmark, not part of the pipeline.

    python -m devtools.estimators A/results.json [B/results.json ...] [--change 0.05]

Each file is an interleaved run of one commit against itself (`bench run --ab-base` with
a checkout of the same commit, e.g. `--runs 120 --max-runs 120`). Its head windows and
CPU times are multiplied by 1 + change (a slowdown the size of `--change`), and each
test's standardised statistic is computed on the pairs:

- signed-rank: Wilcoxon's signed-rank z of the log ratios, what `compare` tests;
- trimmed: the same on the pairs whose slower run is at or under the median of all the
  runs (the odd slow process left out; which pairs are kept does not depend on which
  side ran which run, so under no change the test is still exact);
- q25, q10: the head's lower quartile (tenth percentile) of log times minus the base's,
  standardised by its sign-flip permutation distribution (each pair's sides swapped at
  random: exact under no change as well). When a family's slow processes are a tail
  over a steady floor, the floor moves by the whole slowdown and the tail only blurs it.

Printed per family and metric: the mean over files of z / sqrt(pairs) (the efficiency:
z grows as the root of the pairs, so 2 x the efficiency needs 1/4 of the pairs), and
the pairs that efficiency needs to flag the change 19 times in 20 at the level a lone
flag must reach in a pull request's report on `--preset` (its tests, and the looks
`bench run --ab-base` takes: runner.sequential_design).
Fixed seed: the same files give the same figures."""

from __future__ import annotations

import argparse
import math
from collections import defaultdict

import numpy as np
from scipy import stats as sps

from benchpipe import catalogue, compare, measures, results, runner, stats

TESTS = ("signed-rank", "trimmed", "q25", "q10")
METRICS = {"time": measures.window_s, "cpu": measures.window_cpu_s}
PERMUTATIONS = 2000


def signed_rank_z(d: np.ndarray) -> float:
    """Wilcoxon's signed-rank statistic standardised (scipy's normal approximation, zeros
    dropped), positive when the head is slower."""
    if np.count_nonzero(d) < stats.MIN_SAMPLES:
        return 0.0
    return float(sps.wilcoxon(d, alternative="greater", method="approx").zstatistic)


def trimmed_z(b: np.ndarray, h: np.ndarray) -> float:
    keep = np.maximum(b, h) <= np.median(np.concatenate([b, h]))
    return signed_rank_z((h - b)[keep])


def quantile_z(b: np.ndarray, h: np.ndarray, q: float, rng) -> float:
    flip = rng.random((PERMUTATIONS, len(b))) < 0.5
    null = np.quantile(np.where(flip, b, h), q, axis=1) - np.quantile(np.where(flip, h, b), q, axis=1)
    sd = float(null.std())
    return (float(np.quantile(h, q) - np.quantile(b, q)) / sd) if sd > 0 else 0.0


def z_scores(b: np.ndarray, h: np.ndarray, rng) -> dict[str, float]:
    """Each test's z for log times b (base) and h (head), pair by pair."""
    return {"signed-rank": signed_rank_z(h - b), "trimmed": trimmed_z(b, h),
            "q25": quantile_z(b, h, 0.25, rng), "q10": quantile_z(b, h, 0.10, rng)}


def pairs(doc: dict):
    """(family, base bench, head bench) for every benchmark that ran on both sides."""
    sides: dict[str, dict[str, dict]] = defaultdict(dict)
    for b in doc["benchmarks"]:
        if b["status"] == "ok" and b["key"].get("label") in ("base", "head"):
            sides[results.family_id(b["key"])][b["key"]["label"]] = b
    for fam, s in sorted(sides.items()):
        if len(s) == 2:
            yield fam, s["base"], s["head"]


def efficiencies(paths: list[str], change: float, seed: int = stats.SEED) -> dict[tuple[str, str], list[dict]]:
    rng = np.random.default_rng(seed)
    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for path in paths:
        for fam, base, head in pairs(results.load(path)):
            for metric, samples in METRICS.items():
                b, h = samples(base), samples(head)
                n = min(len(b), len(h))
                if n < stats.MIN_SAMPLES or min(b[:n] + h[:n]) <= 0:
                    continue
                lb, lh = np.log(b[:n]), np.log(h[:n]) + math.log1p(change)
                out[(fam, metric)].append({t: z / math.sqrt(n) for t, z in z_scores(lb, lh, rng).items()} | {"n": n})
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m devtools.estimators", description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+", help="results.json of A/A runs (--ab-base, one commit)")
    p.add_argument("--change", type=float, default=0.05, help="slowdown injected into head (default 0.05)")
    p.add_argument("--preset", default="quick", help="judge at the level of this preset's pull-request report "
                   "(default quick)")
    a = p.parse_args(argv)
    cat = catalogue.load()
    preset = cat.preset(a.preset)
    level = runner.sequential_design(preset.runs, runner.default_max_runs(preset.runs, preset.sample_budget_s),
                                     tests=len(cat.benchmarks(a.preset)) * len(compare.METRICS),
                                     budget_s=preset.sample_budget_s).flag_level
    z_needed = float(sps.norm.isf(level / 2)) + float(sps.norm.isf(0.05))
    print(f"slowdown x{1 + a.change:g}; a lone flag needs p < {level:.2g}: pairs for 19 in 20 = "
          f"({z_needed:.2f} / efficiency)^2; efficiency = mean z / sqrt(pairs)")
    print(f"{'family':58s} {'metric':6s} {'files':>5s} {'pairs':>5s}  "
          + "  ".join(f"{t:>17s}" for t in TESTS))
    for (fam, metric), rows in sorted(efficiencies(a.files, a.change).items()):
        cells = []
        for t in TESTS:
            e = float(np.mean([r[t] for r in rows]))
            need = f"{(z_needed / e) ** 2:6.0f}" if e > 0 else "     -"
            cells.append(f"{e:6.2f} ({need} p)")
        print(f"{fam[:58]:58s} {metric:6s} {len(rows):5d} {int(np.mean([r['n'] for r in rows])):5d}  "
              + "  ".join(f"{c:>17s}" for c in cells))


if __name__ == "__main__":
    main()
