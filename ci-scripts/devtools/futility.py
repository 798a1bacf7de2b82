"""Benchmark of sampling until sure with and without the futility stop (not a test):
for synthetic paired comparisons, the pairs a group takes and how often the report
flags it, through runner.Sequential and stats.compare_paired as `run` and `compare`
use them.

    python -m devtools.futility [--trials 200] [--tests 246] [--noise 0.01,0.03,0.06,0.1,0.15]

Each comparison's within-pair log ratios are normal noise (the pair scatter, `--noise`)
around log(1 + change), or heavy-tailed (15 % of the pairs with 4 x the scatter, as the
short benchmarks' odd wild pair). Looks at 10, 20, 30 pairs, judged at the level a lone
flag must reach among `--tests` tests. Columns: mean pairs / share flagged, for no
change (false alarms), a 5 % and a 2 % slowdown; without the futility stop, then with
it. Fixed seeds: the same command prints the same figures."""

from __future__ import annotations

import argparse
import math

import numpy as np

from benchpipe import runner, stats
from devtools.synthetic import sequential_job as _job

CHANGES = (0.0, 0.05, 0.02)


def one(rng, seq: runner.Sequential, noise: float, change: float, heavy: bool, futility: bool) -> tuple[int, bool]:
    """(pairs taken, flagged by the report) for one synthetic comparison."""
    last = seq.looks[-1]
    d = rng.normal(0.0, noise, last)
    if heavy:
        wild = rng.random(last) < 0.15
        d[wild] = rng.normal(0.0, 4 * noise, int(wild.sum()))
    base = np.exp(rng.normal(0.0, 0.01, last))
    head = base * np.exp(math.log1p(change) + d)
    judge = seq if futility else _no_futility(seq)
    n = last
    for n in seq.looks:
        if n == last or judge.decided([_job(base[:n]), _job(head[:n])]):
            break
    c = stats.compare_paired(base[:n], head[:n], alpha=seq.flag_level, threshold=seq.threshold)
    return n, c.flagged


def _no_futility(seq: runner.Sequential) -> runner.Sequential:
    class Plain(runner.Sequential):
        def futile(self, xs, ys, threshold, last=None):
            return False
    return Plain(seq.looks, seq.alpha, seq.threshold, seq.memory_threshold, seq.tests, seq.free, seq.budget_s)


def table(trials: int, tests: int, noises: list[float]) -> list[str]:
    seq = runner.sequential_design(10, 30, tests=tests)
    lines = [f"looks {list(seq.looks)}, a lone flag at p < {seq.flag_level:.2g}, threshold {seq.threshold:.1%}; "
             f"mean pairs / flagged, without -> with the futility stop"]
    lines.append(f"{'noise':>14} | " + " | ".join(f"{'no change' if c == 0 else f'+{c:.0%}':^25}" for c in CHANGES))
    for heavy in (False, True):
        for noise in noises:
            cells = []
            for change in CHANGES:
                pair = []
                for futility in (False, True):
                    rng = np.random.default_rng(round(noise * 1e4) + round(change * 1e3) + heavy)
                    res = [one(rng, seq, noise, change, heavy, futility) for _ in range(trials)]
                    pair.append(f"{np.mean([r[0] for r in res]):4.1f} / {100 * np.mean([r[1] for r in res]):3.0f} %")
                cells.append(" -> ".join(pair))
            lines.append(f"{('heavy ' if heavy else 'normal ') + f'{noise:.0%}':>14} | " + " | ".join(cells))
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=200)
    p.add_argument("--tests", type=int, default=246, help="tests in the report (comparisons x metrics)")
    p.add_argument("--noise", default="0.01,0.03,0.06,0.1,0.15", help="pair scatters (sd of the log ratio)")
    a = p.parse_args(argv)
    for line in table(a.trials, a.tests, [float(x) for x in a.noise.split(",")]):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
