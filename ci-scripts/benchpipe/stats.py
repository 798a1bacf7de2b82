"""Two-sample statistics for A/B benchmark comparison (benchstat style).

For one metric of one benchmark, `compare_samples(base, head)` returns the medians, the
ratio of medians head/base with a bootstrap confidence interval, the p-value of a
two-sided Mann-Whitney U test on the raw samples, and a verdict. The statistics are
scipy's; this module only decides which test to call and what the result means.

Decisions (documented in the report and the README):

- Significance: Mann-Whitney U, two-sided (scipy.stats.mannwhitneyu). It makes no
  normality assumption; benchmark times are skewed with outliers. When the samples
  hold ties and the exact distribution is small enough (at most 9999 distinct
  partitions, e.g. 5+5 or 7+7 runs), scipy's permutation method computes the exact
  p-value with ties; otherwise scipy's own choice (exact without ties for small n,
  normal approximation with tie correction for large n).
- Effect size: ratio of medians head/base, > 1 means head is slower / uses more memory.
  Interval: percentile bootstrap (scipy.stats.bootstrap, both samples resampled
  independently) with a fixed seed, so a report is reproducible from its inputs.
- Verdict: a change is flagged only when p < alpha AND the ratio is beyond the practical
  threshold (ratio >= 1 + t: regression; ratio <= 1 / (1 + t): improvement).
- n < 3 on either side: "too few samples", no verdict. Also when the sizes make
  p < alpha impossible (the smallest two-sided p-value of the rank test is
  2 / C(n_base + n_head, n_base): 5+5 runs are needed for alpha = 0.01).
- Zero variance: both sides constant and equal: no change (p = 1, ratio 1). Both sides
  constant but different (memory figures often are): the rank test still applies (the
  samples are completely separated; the exact permutation p-value counts how unlikely
  that is), the interval collapses to the ratio. We do not refuse the test: a constant
  shift measured n times is evidence, and the practical threshold still applies.

Defaults: alpha 0.01 and a practical threshold of 1.5 % for wall and CPU time, 3 % for
peak memory. With the exact test, P(flag | no change) <= alpha (0.8 % at 5+5 runs)
whatever the noise, so the false-alarm goal (<= 1 %) holds by construction and the
threshold is free to be small; detection then depends on runs and noise. Why 1.5 %:
a change no larger than the threshold is flagged at most half the time however many
runs are taken (its estimate falls short of the threshold half the time), so a 2 %
threshold can never see a 2 % slowdown 4 times in 5. Simulated (paired, 30 pairs,
judged at the level a lone flag must reach in a report of 246 tests, 200 trials each),
detection of a 2 % slowdown at threshold 1 % / 1.5 % / 2 %: pair noise 1 %: 100 / 100 /
48 %; 2 %: 56 / 58 / 42 %; no false alarms in any. Below about 1.6 % it is significance,
not the threshold, that limits a 2 % change, so 1 % would buy nothing but flags on the
1 % shifts that code layout alone can give benchmarks a change did not touch. A 5 %
slowdown does not depend on it (unpaired, 10+10 runs, CV 2 %: 96 % at 1.5 %, 99 % at
2 %; CV 3 %: 63 / 67 %, false alarms <= 1.5 % in 200 trials). A calibration file
(calibration.py, `bench calibrate`) replaces the threshold by the smallest one at which
this runner's own A/A comparisons stay under 1 % false alarms (never below 1.5 %).
Peak memory is steadier than time, but allocators round up: 3 %.
That is per test; a report makes hundreds, and multitest corrects across them (and
across the looks of sampling until sure) before a flag is raised.

Paired comparison (`compare_paired`): when base and head ran in adjacent pairs on one
machine (an A/B run or two toolchains of one run: the runner alternates the sides round
by round, B H then H B), run i of base and run i of head share the machine's state of
that moment. The test is then on the within-pair log ratios log(head_i / base_i):
Wilcoxon signed-rank, two-sided (scipy.stats.wilcoxon; exact for small n), which
cancels a drift that the unpaired rank test must absorb as noise. Effect: exp of the
Hodges-Lehmann estimate of the log ratios (the median of their Walsh averages), with the
distribution-free interval that inverts the same signed-rank test (exact), so estimate,
interval and test tell one story: the interval leaves out 1 about when the test
rejects, and one wild pair cannot drag the estimate (it did the geometric mean: 1.09
for ten pairs of which nine said 0.99). The smallest two-sided p-value is 2 / 2^n: 8 pairs are needed
for alpha = 0.01; with fewer, the unpaired test is used (5+5 runs can reach 0.01 there). Each verdict also states the resolution reached: the interval's
largest distance from the ratio, the change this comparison could still not tell from
noise ("could see changes of X% or more").
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass, replace
from functools import lru_cache

import numpy as np
from scipy import stats as sps

DEFAULT_ALPHA = 0.01
DEFAULT_THRESHOLD = 0.015         # wall and CPU time (see "Defaults" above)
DEFAULT_MEMORY_THRESHOLD = 0.03   # peak memory
CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
SEED = 20261122
MIN_SAMPLES = 3
EXACT_LIMIT = 9999                # partitions up to which the permutation p-value is exact

REGRESSION = "regression"
IMPROVEMENT = "improvement"
NO_CHANGE = "no change"
TOO_FEW = "too few samples"


@dataclass(frozen=True)
class SampleComparison:
    """One metric of one benchmark, base against head. ratio = median(head) / median(base)."""

    n_base: int
    n_head: int
    median_base: float | None
    median_head: float | None
    ratio: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    verdict: str
    note: str = ""
    paired: bool = False
    resolution: float | None = None   # the change (fraction) this comparison could see
    p_adjusted: float | None = None   # after the corrections across looks and tests (multitest)

    @property
    def flagged(self) -> bool:
        return self.verdict in (REGRESSION, IMPROVEMENT)

    @property
    def judged_p(self) -> float | None:
        """The p-value the verdict was judged by: corrected where the comparison was."""
        return self.p_adjusted if self.p_adjusted is not None else self.p_value

    def to_json(self) -> dict:
        d = asdict(self)
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}


def min_p_value(n_base: int, n_head: int) -> float:
    """The smallest two-sided p-value the rank test can give for these sizes (no ties)."""
    return min(1.0, 2.0 / math.comb(n_base + n_head, n_base))


def mann_whitney_p(base: np.ndarray, head: np.ndarray, seed: int = SEED) -> float:
    """Two-sided Mann-Whitney U p-value (scipy), exact with ties when that is cheap."""
    both = np.concatenate([base, head])
    has_ties = len(np.unique(both)) < len(both)
    method = "auto"
    if has_ties and math.comb(len(both), len(base)) <= EXACT_LIMIT:
        method = sps.PermutationMethod(n_resamples=EXACT_LIMIT, rng=np.random.default_rng(seed))
    res = sps.mannwhitneyu(head, base, alternative="two-sided", method=method)
    p = float(res.pvalue)
    return 1.0 if not math.isfinite(p) else min(1.0, p)


def _ratio_of_medians(base, head, axis=-1):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.median(head, axis=axis) / np.median(base, axis=axis)


def ratio_interval(base: np.ndarray, head: np.ndarray, confidence: float = CONFIDENCE,
                   seed: int = SEED) -> tuple[float, float]:
    """Percentile bootstrap interval of median(head) / median(base) (scipy.stats.bootstrap)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sps.bootstrap(
            (base, head), _ratio_of_medians, vectorized=True, paired=False,
            n_resamples=BOOTSTRAP_RESAMPLES, confidence_level=confidence,
            method="percentile", rng=np.random.default_rng(seed),
        )
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return lo, hi


def _median(x: np.ndarray) -> float | None:
    return float(np.median(x)) if len(x) else None


def resolution(ratio: float | None, lo: float | None, hi: float | None, threshold: float) -> float | None:
    """The smallest change (fraction) a comparison could see: the practical threshold, or
    the interval's reach beyond the ratio when that is wider."""
    if ratio is None or lo is None or hi is None or ratio <= 0 or lo <= 0:
        return None
    return max(threshold, hi / ratio - 1.0, ratio / lo - 1.0)


def _verdict(common: dict, p: float, floor: float, runs: str, alpha: float, threshold: float) -> SampleComparison:
    ratio = common["ratio"]
    common = {**common, "resolution": resolution(ratio, common.get("ci_low"), common.get("ci_high"), threshold)}
    if floor >= alpha:
        return SampleComparison(**common, verdict=TOO_FEW,
                                note=f"not enough runs for a verdict: {runs} cannot reach p < {alpha:g} "
                                     f"(smallest possible p = {floor:.3g})")
    if p < alpha and ratio >= 1.0 + threshold:
        return SampleComparison(**common, verdict=REGRESSION)
    if p < alpha and ratio <= 1.0 / (1.0 + threshold):
        return SampleComparison(**common, verdict=IMPROVEMENT)
    note = f"significant but within {threshold:.1%}" if p < alpha else ""
    return SampleComparison(**common, verdict=NO_CHANGE, note=note)


def min_paired_p(n: int) -> float:
    """The smallest two-sided p-value of the signed-rank test on n pairs."""
    return min(1.0, 2.0 / 2 ** n)


# Futility (runner.Sequential): a comparison whose largest plausible change (the
# estimate plus this many robust standard errors: one-sided 95 %) could not be flagged
# even at the last look stops sampling. Simulated (python -m devtools.futility: 246
# tests, looks 10/20/30, 200 trials, fixed seeds): an A/A at 3-15 % pair noise takes
# 16-17 pairs instead of 26-30, and the share of 5 % and 2 % slowdowns flagged is the
# same as sampling to the cap in every cell (normal and heavy-tailed noise, 1-15 %).
PLAUSIBLE_Z = 1.645


def futile(log_ratios, n_last: int, level: float, threshold: float, plausible_z: float = PLAUSIBLE_Z) -> bool:
    """Whether more pairs are wasted on this comparison: even a change as large as the
    upper end of a one-sided 95 % interval of the pairs so far (median log ratio plus
    plausible_z robust standard errors, scale 1.4826 x MAD, as the signed-rank test is
    robust to the odd wild pair) could not be both significant at `level` (two-sided,
    normal approximation) and beyond the practical threshold after n_last pairs at this
    noise. Never true at or after the last look, nor for a constant comparison. Stopping
    for futility never flags, so it cannot add a false alarm."""
    d = np.asarray(list(log_ratios), dtype=float)
    n = len(d)
    if n < MIN_SAMPLES or n >= n_last:
        return False
    med = float(np.median(d))
    scale = 1.4826 * float(np.median(np.abs(d - med)))
    if scale == 0:
        return False
    plausible = abs(med) + plausible_z * scale / math.sqrt(n)
    needed = max(float(sps.norm.isf(level / 2)) * scale / math.sqrt(n_last), math.log1p(threshold))
    return plausible < needed


@lru_cache(maxsize=None)
def signed_rank_cdf(n: int) -> np.ndarray:
    """P(T <= t), t = 0 .. n(n+1)/2, of the signed-rank statistic T on n pairs under no
    change (each rank's sign a fair coin), exact: the distribution scipy's exact
    wilcoxon test uses, which scipy does not expose."""
    pmf = np.zeros(n * (n + 1) // 2 + 1)
    pmf[0] = 1.0
    for k in range(1, n + 1):
        shifted = np.zeros_like(pmf)
        shifted[k:] = pmf[:-k]
        pmf = 0.5 * (pmf + shifted)
    return np.cumsum(pmf)


# scipy's wilcoxon turns to an exact sign-flip permutation test where the log ratios
# have ties or zeros and there are at most this many (2^13 flips, under its 9999 draws)
EXACT_FLIPS_MAX_N = 13


def signed_rank_p(d) -> float:
    """scipy.stats.wilcoxon(d, zero_method="zsplit")'s two-sided p-value, the same value.
    Where d has ties or zeros (memory often has: peak RSS in whole pages) and at most
    EXACT_FLIPS_MAX_N values, scipy's default is an exact permutation test over every
    flip of the signs, whose statistic it computes one flip at a time, 2^n calls of
    Python: 0.3-0.6 s a comparison, and a night's publish compares hundreds of pairs of
    toolchains (67 such tests were a third of `bench publish`). This runs the same test
    (scipy's permutation_test, exact, two-sided) with the statistic computed for all flips
    at once: the sum of the ranks of |d| (averaged over ties) of the positive values,
    plus half those of the zeros. A flip changes signs, not |d|, so the ranks are the
    ones of d itself, and every sum is of halves, exact in any order
    (tests/test_compare_stats.py compares the two on random tied samples)."""
    d = np.asarray(d, dtype=float)
    a = np.abs(d)
    if len(d) > EXACT_FLIPS_MAX_N or (np.all(d != 0) and len(np.unique(a)) == len(d)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return float(sps.wilcoxon(d, alternative="two-sided", zero_method="zsplit").pvalue)
    ranks = sps.rankdata(a)
    zeros_half = float(np.sum(ranks[d == 0])) / 2

    def r_plus(x, axis):
        return np.sum((x > 0) * ranks, axis=axis) + zeros_half

    return float(sps.permutation_test((d,), r_plus, permutation_type="samples", vectorized=True,
                                      n_resamples=9999, alternative="two-sided", axis=-1).pvalue)


def hodges_lehmann(d, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """The Hodges-Lehmann estimate of the centre of d (the median of the Walsh averages
    (d_i + d_j) / 2, i <= j) and its distribution-free interval, the signed-rank test
    inverted (as R's wilcox.test(conf.int = TRUE) computes it): the estimate and
    interval that belong to the signed-rank test. Unlike the mean, one wild pair moves
    it by at most one rank: a single 2.6 x hiccup among 10 steady pairs made the
    geometric mean of the ratios 1.09 (interval up to 1.33) where every other pair
    said 0.99."""
    d = np.asarray(d, dtype=float)
    n = len(d)
    i, j = np.triu_indices(n)
    walsh = np.sort((d[i] + d[j]) / 2)
    m = len(walsh)
    # qu: the smallest t with P(T <= t) >= (1 - confidence) / 2, at least 1 (R's qsignrank)
    qu = max(1, int(np.searchsorted(signed_rank_cdf(n), (1 - confidence) / 2 - 1e-12)))
    return float(np.median(walsh)), float(walsh[qu - 1]), float(walsh[m - qu])


def compare_paired(base, head, *, alpha: float = DEFAULT_ALPHA, threshold: float = DEFAULT_THRESHOLD,
                   confidence: float = CONFIDENCE, seed: int = SEED) -> SampleComparison:
    """Compare samples taken in adjacent pairs (base[i] beside head[i]); see the module
    docstring. Falls back to compare_samples when the sides differ in length or a
    value is not positive."""
    b = np.asarray(list(base), dtype=float)
    h = np.asarray(list(head), dtype=float)
    if len(b) != len(h) or not (np.all(b > 0) and np.all(h > 0)) or min_paired_p(len(b)) >= alpha:
        # Unequal sides, a zero, or too few pairs for the signed-rank test to reach alpha
        # (5+5 runs can still reach it unpaired): the unpaired test.
        return compare_samples(b, h, alpha=alpha, threshold=threshold, confidence=confidence, seed=seed)
    if not (np.all(np.isfinite(b)) and np.all(np.isfinite(h))):
        raise ValueError("samples must be finite numbers")
    n = len(b)
    common = dict(n_base=n, n_head=n, median_base=_median(b), median_head=_median(h), paired=True)
    if n < MIN_SAMPLES:
        return SampleComparison(**common, ratio=None, ci_low=None, ci_high=None, p_value=None, verdict=TOO_FEW,
                                note=f"not enough runs for a verdict: needs at least {MIN_SAMPLES} pairs")
    d = np.log(h / b)
    if np.all(d == 0):
        return SampleComparison(**common, ratio=1.0, ci_low=1.0, ci_high=1.0, p_value=1.0, verdict=NO_CHANGE,
                                note="identical samples", resolution=threshold)
    p = signed_rank_p(d)
    est, lo_d, hi_d = hodges_lehmann(d, confidence)
    ratio, lo, hi = math.exp(est), math.exp(lo_d), math.exp(hi_d)
    p = 1.0 if not math.isfinite(p) else min(1.0, p)
    common.update(ratio=ratio, ci_low=lo, ci_high=hi, p_value=p)
    return _verdict(common, p, min_paired_p(n), f"{n} pairs", alpha, threshold)


# Odd runs among counts (Hampel's identifier): a count further than COUNT_ODD_K robust
# standard deviations (1.4826 x MAD) from its side's median is set aside; the scale is
# at least COUNT_SCALE_FLOOR of the median, so counts within 0.035 % of it always stay.
# At most one run in COUNT_ODD_SHARE (and at least one) is odd: more than that is a mode
# of the benchmark, not an accident, and setting it aside split an A/A in two (Rust fanout
# tokio, counts in two modes 0.31 % apart: base 4 low and 3 high, head 3 and 4; each side
# kept its larger mode, and the +0.3 % between the modes was flagged, p 1e-9).
COUNT_ODD_K = 3.5
COUNT_SCALE_FLOOR = 1e-4
COUNT_ODD_SHARE = 5


# the normal distribution's median absolute deviation over its standard deviation (0.6745)
_MAD_OF_SD = float(sps.norm.ppf(0.75))


def robust_sd(x) -> float:
    """1.4826 x the median absolute deviation: what scipy.stats.median_abs_deviation(x,
    scale="normal") gives, without its argument handling, which took 0.3-0.7 ms a call and
    most of a calibration's judging (it is called for every side of every drawn report)."""
    x = np.asarray(x, dtype=float)
    return float(np.median(np.abs(x - np.median(x)))) / _MAD_OF_SD   # divided, as scipy does: the same bits


def _usual(x: np.ndarray) -> np.ndarray:
    """Which of a side's counts are usual (a mask; see usual_counts)."""
    med = float(np.median(x))
    scale = max(robust_sd(x), COUNT_SCALE_FLOOR * abs(med))
    keep = np.abs(x - med) <= COUNT_ODD_K * scale
    return keep if len(x) - int(keep.sum()) <= max(1, len(x) // COUNT_ODD_SHARE) else np.ones(len(x), bool)


def usual_counts(x) -> np.ndarray:
    """A side's counts without its odd runs (Hampel's identifier, COUNT_ODD_K), or all of
    them where more would go than odd runs can be (COUNT_ODD_SHARE): a mode."""
    x = np.asarray(list(x), dtype=float)
    return x[_usual(x)]


def _shared(x: np.ndarray, keep: np.ndarray, other: np.ndarray) -> np.ndarray:
    """keep, with the odd runs that lie among the other side's usual counts (within
    COUNT_SCALE_FLOOR of their range) kept too: a count both sides reached is a mode of
    the benchmark, not one side's accident. Go cpu counts in two modes 0.7 % apart (its
    heap grows before or inside the window, as the scavenger's timing has it; one run in
    three high): with 5 runs a side, one side 4 low + 1 high and the other 1 low + 4 high
    left low against high once each side's minority went (a +0.7 % A/A, p 0, in about
    one comparison in twenty)."""
    lo, hi = float(other.min()), float(other.max())
    pad = COUNT_SCALE_FLOOR * abs(float(np.median(other)))
    return keep | ((x >= lo - pad) & (x <= hi + pad))


def compare_counts(base, head, *, alpha: float = DEFAULT_ALPHA, threshold: float = DEFAULT_THRESHOLD,
                   confidence: float = CONFIDENCE) -> SampleComparison:
    """Compare counts that are deterministic up to a small scatter (instructions):
    Welch's t test on the log counts, the interval its inversion, after setting aside
    each side's odd runs (usual_counts) but those the other side's usual counts reach
    (a mode both sides show, _shared).

    Why not the rank tests: their smallest p-value is fixed by the number of runs (2 / 2^n
    paired), so a lone change among a report's hundred tests needs 14+ pairs to survive
    the correction, 14 runs under Valgrind a side. Counts scatter 0.01-0.5 % around a
    value, where a t test's p-value reflects how far the shift stands above that scatter.
    Now and then one run does more (a GC cycle, a worker parking once more; measured
    here: +6 % in one of three Go cpu runs beside a busy neighbour), which would swamp a
    t test: such runs are set aside (and said). Why unpaired even where the sides ran
    interleaved: a count does not drift with the machine's load, so pairing removes no
    shared noise and only halves the degrees of freedom (simulated, 5 runs a side, a
    0.5 % change at 0.05 % scatter, a lone test among 100: flagged 58 % of the time
    paired, 99 % unpaired). Both sides constant and different: p = 0 (the shift is
    certain); the practical threshold still decides whether it is flagged."""
    b = np.asarray(list(base), dtype=float)
    h = np.asarray(list(head), dtype=float)
    if not (np.all(np.isfinite(b)) and np.all(np.isfinite(h))):
        raise ValueError("samples must be finite numbers")
    common = dict(n_base=len(b), n_head=len(h), median_base=_median(b), median_head=_median(h), paired=False)
    if len(b) and len(h) and np.all(b > 0) and np.all(h > 0):
        ub, uh = _usual(b), _usual(h)
        kept_b, kept_h = b[_shared(b, ub, h[uh])], h[_shared(h, uh, b[ub])]
    else:
        kept_b, kept_h = b, h
    if min(len(kept_b), len(kept_h)) < MIN_SAMPLES or not (np.all(b > 0) and np.all(h > 0)):
        return SampleComparison(**common, ratio=None, ci_low=None, ci_high=None, p_value=None, verdict=TOO_FEW,
                                note=f"not enough runs for a verdict: needs at least {MIN_SAMPLES} positive counts a side "
                                     "(odd runs set aside)")
    odd = len(b) - len(kept_b) + len(h) - len(kept_h)
    said = f"{odd} odd run{'s' * (odd != 1)} set aside (beyond {COUNT_ODD_K:g} robust SD of its side's median)" if odd else ""
    lb, lh = np.log(kept_b), np.log(kept_h)
    # a constant side has no variance (np.var of equal logs can round to 1e-32)
    vb, vh = ((float(np.var(x, ddof=1)) / len(x) if np.ptp(x) else 0.0) for x in (lb, lh))
    est, se = float(np.mean(lh) - np.mean(lb)), math.sqrt(vb + vh)
    if se == 0:
        if est == 0:
            return SampleComparison(**common, ratio=1.0, ci_low=1.0, ci_high=1.0, p_value=1.0, verdict=NO_CHANGE,
                                    note="; ".join(x for x in ("identical counts", said) if x), resolution=threshold)
        p, lo_d, hi_d = 0.0, est, est
    else:
        # Welch-Satterthwaite degrees of freedom (a constant side contributes none)
        df = (vb + vh) ** 2 / sum(v ** 2 / (len(x) - 1) for v, x in ((vb, lb), (vh, lh)) if v)
        p = float(2 * sps.t.sf(abs(est / se), df))
        q = float(sps.t.ppf(0.5 + confidence / 2, df)) * se
        lo_d, hi_d = est - q, est + q
    common.update(ratio=math.exp(est), ci_low=math.exp(lo_d), ci_high=math.exp(hi_d), p_value=p)
    out = _verdict(common, p, 0.0, f"{len(kept_b)}+{len(kept_h)} runs", alpha, threshold)
    return replace(out, note="; ".join(x for x in (out.note, said) if x)) if said else out


def compare_samples(base, head, *, alpha: float = DEFAULT_ALPHA, threshold: float = DEFAULT_THRESHOLD,
                    confidence: float = CONFIDENCE, seed: int = SEED) -> SampleComparison:
    """Compare raw samples of one metric (smaller is better). See the module docstring."""
    b = np.asarray(list(base), dtype=float)
    h = np.asarray(list(head), dtype=float)
    if not (np.all(np.isfinite(b)) and np.all(np.isfinite(h))):
        raise ValueError("samples must be finite numbers")
    mb, mh = _median(b), _median(h)
    ratio = None
    if mb is not None and mh is not None:
        ratio = 1.0 if mb == mh else (mh / mb if mb > 0 else math.inf)
    common = dict(n_base=len(b), n_head=len(h), median_base=mb, median_head=mh, ratio=ratio)

    if len(b) < MIN_SAMPLES or len(h) < MIN_SAMPLES:
        return SampleComparison(**common, ci_low=None, ci_high=None, p_value=None, verdict=TOO_FEW,
                                note=f"not enough runs for a verdict: needs at least {MIN_SAMPLES} runs per side")

    # Zero variance on both sides and the same value: nothing changed, nothing to test.
    if np.all(b == b[0]) and np.all(h == b[0]):
        return SampleComparison(**common, ci_low=1.0, ci_high=1.0, p_value=1.0, verdict=NO_CHANGE,
                                note="identical samples")

    p = mann_whitney_p(b, h, seed)
    if mb > 0:
        lo, hi = ratio_interval(b, h, confidence, seed)
    else:
        lo = hi = None  # a zero base median has no ratio interval
    common.update(ci_low=lo, ci_high=hi, p_value=p)

    return _verdict(common, p, min_p_value(len(b), len(h)), f"{len(b)}+{len(h)} runs", alpha, threshold)


# --------------------------------------------------------------------------- summary statistics (the history's)

def summarize(samples: list[float], confidence: float = 0.95) -> dict:
    """Median with a distribution-free confidence interval (order statistics of the
    binomial), n, min, max, mean, standard deviation."""
    xs = sorted(float(x) for x in samples)
    n = len(xs)
    mid = n // 2
    median = xs[mid] if n % 2 else (xs[mid - 1] + xs[mid]) / 2
    lo_i = _ci_index(n, confidence)
    hi_i = n - 1 - lo_i
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return {
        "median": median, "ci_low": xs[lo_i], "ci_high": xs[hi_i], "n": n,
        "min": xs[0], "max": xs[-1], "mean": mean, "stddev": math.sqrt(var),
    }


@lru_cache(maxsize=None)
def _ci_index(n: int, confidence: float) -> int:
    """0-based index of the lower bound of the distribution-free CI of the median: the
    largest j with P(Binomial(n, 1/2) <= j) <= alpha/2, so [x_(j+1), x_(n-j)] (1-based)
    covers the median with at least the confidence asked (0: the whole range)."""
    alpha = 1 - confidence
    j = -1
    while sps.binom.cdf(j + 1, n, 0.5) <= alpha / 2:
        j += 1
    return max(j, 0)
