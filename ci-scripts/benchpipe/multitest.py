"""Many tests, one false-alarm rate.

A pull request's comparison makes one test per benchmark and metric (time, CPU time,
memory): about 250 on the quick preset. Each at alpha = 0.01 would give a PR with
identical code a flag more often than not. Two corrections hold the rate the report
states:

- **Across looks** (sample until sure, runner.Sequential): a group may stop at any of
  its looks (e.g. 10, 20, 30 pairs), so a test's p-value is multiplied by the number of
  looks that can flag (Bonferroni across looks). A look whose smallest possible p-value
  cannot reach the corrected level (10 pairs of the signed-rank test: 2 / 2^10 = 0.002,
  against 0.01 / (250 x 2)) spends none of alpha: a group stops there only when every
  comparison is already inside the no-change band, which is not a flag.
- **Across tests**: the Benjamini-Hochberg procedure (scipy.stats.false_discovery_control)
  over every test of the report, at q = alpha. When nothing changed (A/A: every null
  true) that is the chance of any flag at all; when some things changed, it bounds the
  expected share of flags that are false. It assumes the tests are independent or
  positively dependent (time and CPU time of one benchmark are positively correlated),
  which is why it is chosen over the more conservative Benjamini-Yekutieli.

A test that was significant on its own but not after the correction is reported as
"too few samples" (not enough runs for a verdict), never as "no change".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from benchpipe.stats import min_paired_p

CORRECTIONS = {"bh": "Benjamini-Hochberg (false discovery rate)", "none": "none"}


def spending_looks(looks: tuple[int, ...], alpha: float, tests: int) -> tuple[int, ...]:
    """The looks among which alpha is split: the longest tail of the looks whose first
    look can still reach alpha / (tests x its length) (the tail, since the smallest
    possible p-value falls as pairs are added). Empty when even the last look cannot."""
    for k in range(len(looks), 0, -1):
        tail = tuple(looks[-k:])
        if min_paired_p(tail[0]) < alpha / (max(tests, 1) * k):
            return tail
    return ()


def lone_flag_level(alpha: float, tests: int, spending: tuple[int, ...]) -> float:
    """The p-value a lone flag must stay under: alpha over the report's tests (Benjamini-
    Hochberg's first step when nothing else is flagged) and over the spending looks."""
    return alpha / (max(1, tests) * max(1, len(spending)))


@dataclass(frozen=True)
class Looks:
    """The looks of a sequential design as `compare` needs them (env.sequential)."""

    looks: tuple[int, ...]
    spending: tuple[int, ...]

    @classmethod
    def fixed(cls) -> Looks:
        """One look at whatever was measured: no correction across looks."""
        return cls((), ())

    @classmethod
    def from_env(cls, seq: dict | None) -> Looks:
        if not seq or not seq.get("looks"):
            return cls.fixed()
        looks = tuple(int(n) for n in seq["looks"])
        # Files written before the spending looks were recorded split alpha over all looks.
        return cls(looks, tuple(int(n) for n in seq.get("spending_looks", looks)))

    def factor(self, n: int) -> float:
        """What a p-value from n pairs is multiplied by: the number of spending looks, or
        infinity at a look that spends nothing (no flag is possible there)."""
        if not self.looks:
            return 1.0
        if not self.spending or n < self.spending[0]:
            return math.inf
        return float(len(self.spending))


def adjust(p_values: list[float], method: str, tests: int | None = None) -> list[float]:
    """The adjusted p-values (compare each with alpha). tests: judge these p-values as
    part of that many tests whose others found nothing (p = 1), as `calibrate` judges one
    benchmark as one test of a pull request's report."""
    if method not in CORRECTIONS:
        raise ValueError(f"unknown correction {method!r} (known: {', '.join(CORRECTIONS)})")
    if not p_values or method == "none":
        return [min(1.0, p) for p in p_values]
    ps = np.minimum(np.asarray(p_values, dtype=float), 1.0)
    pad = max(0, (tests or 0) - len(ps))
    out = sps.false_discovery_control(np.concatenate([ps, np.ones(pad)]), method="bh")
    return [float(x) for x in out[:len(ps)]]
