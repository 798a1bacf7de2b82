"""The verdict logic of stats.compare_samples on synthetic samples from known
distributions, and its edge cases."""

import math
import warnings

import numpy as np
import pytest
from scipy import stats as sps

from benchpipe import stats
from devtools.synthetic import sequential_job as _job


def lognormal(rng, median, sigma, n):
    return median * np.exp(rng.normal(0.0, sigma, n))


def test_clear_regression_is_flagged_with_interval_around_the_true_ratio():
    rng = np.random.default_rng(1)
    base, head = lognormal(rng, 1.0, 0.01, 10), lognormal(rng, 1.10, 0.01, 10)
    c = stats.compare_samples(base, head)
    assert c.verdict == stats.REGRESSION and c.flagged
    assert c.p_value < 0.001
    assert c.ci_low < 1.10 < c.ci_high or abs(c.ratio - 1.10) < 0.01
    assert 1.05 < c.ci_low <= c.ratio <= c.ci_high < 1.15
    assert (c.n_base, c.n_head) == (10, 10)


def test_clear_improvement_is_flagged():
    rng = np.random.default_rng(2)
    c = stats.compare_samples(lognormal(rng, 2.0, 0.01, 8), lognormal(rng, 1.6, 0.01, 8))
    assert c.verdict == stats.IMPROVEMENT
    assert c.ratio == pytest.approx(0.8, abs=0.02)


def test_same_distribution_rarely_flags():
    """A/A with 1 % noise: the false-alarm rate must stay below alpha."""
    rng = np.random.default_rng(3)
    flagged = sum(stats.compare_samples(lognormal(rng, 1, 0.01, 5), lognormal(rng, 1, 0.01, 5)).flagged
                  for _ in range(300))
    assert flagged <= 3


def test_significant_but_small_change_is_not_flagged():
    rng = np.random.default_rng(4)
    c = stats.compare_samples(lognormal(rng, 1.0, 0.001, 10), lognormal(rng, 1.01, 0.001, 10), threshold=0.03)
    assert c.p_value < 0.01
    assert c.verdict == stats.NO_CHANGE
    assert "within" in c.note
    # the same samples with a lower practical threshold: flagged
    c2 = stats.compare_samples(lognormal(np.random.default_rng(4), 1.0, 0.001, 10),
                               lognormal(np.random.default_rng(4), 1.01, 0.001, 10), threshold=0.005)
    assert c2.verdict == stats.REGRESSION


def test_large_but_noisy_change_is_not_flagged():
    base = [1.0, 2.0, 0.5, 1.5, 0.8]
    head = [1.3, 0.6, 2.2, 1.1, 1.9]
    c = stats.compare_samples(base, head)
    assert c.ratio > 1.03 and c.p_value > 0.1
    assert c.verdict == stats.NO_CHANGE


def test_identical_samples():
    c = stats.compare_samples([1.0, 1.1, 0.9, 1.05, 1.0], [1.0, 1.1, 0.9, 1.05, 1.0])
    assert c.verdict == stats.NO_CHANGE
    assert c.ratio == 1.0 and c.p_value == pytest.approx(1.0)


def test_zero_variance_same_value():
    c = stats.compare_samples([5.0] * 5, [5.0] * 5)
    assert (c.verdict, c.ratio, c.p_value, c.ci_low, c.ci_high) == (stats.NO_CHANGE, 1.0, 1.0, 1.0, 1.0)
    assert "identical" in c.note


def test_zero_variance_different_values_uses_exact_test():
    # Constant memory figures, 10 MB against 12 MB, 5 runs each: completely separated samples.
    c = stats.compare_samples([10_000_000] * 5, [12_000_000] * 5)
    assert c.p_value == pytest.approx(2 / math.comb(10, 5))  # the exact permutation p-value, not the normal approximation
    assert c.verdict == stats.REGRESSION
    assert c.ratio == pytest.approx(1.2) and c.ci_low == pytest.approx(1.2) and c.ci_high == pytest.approx(1.2)
    # the normal approximation (scipy's default with ties) would overstate the evidence here
    assert sps.mannwhitneyu([12] * 5, [10] * 5).pvalue < c.p_value / 1.5


def test_zero_variance_on_one_side_only():
    c = stats.compare_samples([1.0] * 6, [1.2, 1.21, 1.19, 1.22, 1.2, 1.18])
    assert c.verdict == stats.REGRESSION
    assert c.ratio == pytest.approx(1.2, abs=0.01)


@pytest.mark.parametrize("base,head", [([1.0], [1.0, 1.1, 1.2]), ([1.0, 1.1, 1.2], [2.0]), ([], [1.0, 1.0, 1.0]),
                                       ([1.0, 1.1], [2.0, 2.1])])
def test_too_few_samples_gives_no_verdict(base, head):
    c = stats.compare_samples(base, head)
    assert c.verdict == stats.TOO_FEW and not c.flagged
    assert c.p_value is None and c.ci_low is None


def test_sizes_that_cannot_reach_alpha_give_no_verdict():
    # 4+4 runs: the smallest two-sided p-value is 2/70 = 0.029 > 0.01
    c = stats.compare_samples([1.0, 1.01, 0.99, 1.0], [2.0, 2.01, 1.99, 2.0], alpha=0.01)
    assert c.verdict == stats.TOO_FEW and "cannot reach" in c.note
    assert c.p_value == pytest.approx(2 / 70)
    # at alpha 0.05 the same samples are a regression
    assert stats.compare_samples([1.0, 1.01, 0.99, 1.0], [2.0, 2.01, 1.99, 2.0], alpha=0.05).verdict == stats.REGRESSION


def test_min_p_value():
    assert stats.min_p_value(5, 5) == pytest.approx(2 / 252)
    assert stats.min_p_value(1, 1) == 1.0


def test_zero_base_median():
    c = stats.compare_samples([0.0] * 5, [1.0, 1.0, 1.1, 1.0, 1.0])
    assert c.ratio == math.inf and c.ci_low is None
    assert c.verdict == stats.REGRESSION
    assert c.to_json()["ratio"] is None  # JSON has no infinity


def test_non_finite_samples_are_rejected():
    with pytest.raises(ValueError):
        stats.compare_samples([1.0, float("nan"), 1.0], [1.0, 1.0, 1.0])


def test_reproducible():
    rng = np.random.default_rng(5)
    a, b = lognormal(rng, 1, 0.05, 7), lognormal(rng, 1.02, 0.05, 7)
    assert stats.compare_samples(a, b) == stats.compare_samples(a, b)


def test_interval_covers_the_true_ratio_most_of_the_time():
    rng = np.random.default_rng(6)
    covered = 0
    for _ in range(60):
        c = stats.compare_samples(lognormal(rng, 1.0, 0.02, 15), lognormal(rng, 1.05, 0.02, 15))
        covered += c.ci_low <= 1.05 <= c.ci_high
    assert covered >= 48  # nominal 95 %; percentile bootstrap of medians is a little narrow at n=15


def _drifted_ab(rng, shift, n=10, drift=0.10, cv=0.005):
    """n rounds of one base and one head run, alternating B H / H B, on a machine that
    slows down linearly by `drift` over the whole run; head is `shift` slower."""
    base, head = [], []
    for r in range(n):
        tb, th = (2 * r, 2 * r + 1) if r % 2 == 0 else (2 * r + 1, 2 * r)
        level = lambda t: 1.0 + drift * t / (2 * n - 1)  # noqa: E731
        base.append(level(tb) * rng.lognormal(0, cv))
        head.append((1 + shift) * level(th) * rng.lognormal(0, cv))
    return base, head


def test_pairing_sees_a_2_percent_shift_under_drift_that_pooling_misses():
    rng = np.random.default_rng(11)
    paired = unpaired = 0
    trials = 100
    for _ in range(trials):
        b, h = _drifted_ab(rng, 0.02)
        paired += stats.compare_paired(b, h, threshold=0.01).verdict == stats.REGRESSION
        unpaired += stats.compare_samples(b, h, threshold=0.01).verdict == stats.REGRESSION
    assert paired >= 0.9 * trials, paired
    assert unpaired <= 0.2 * trials, unpaired


def test_paired_a_a_under_drift_flags_at_most_alpha():
    rng = np.random.default_rng(12)
    trials = 600
    flagged = sum(stats.compare_paired(*_drifted_ab(rng, 0.0), threshold=0.0).flagged for _ in range(trials))
    # alpha = 0.01 with no practical threshold at all: at most 1%, give or take the
    # binomial spread of 600 trials (mean 6, 99.9% below 16)
    assert flagged <= 16, flagged


def test_paired_says_when_there_are_not_enough_pairs_and_what_it_could_see():
    c = stats.compare_paired([1.0, 1.01, 0.99], [1.1, 1.12, 1.09])
    assert c.verdict == stats.TOO_FEW and c.note.startswith("not enough runs for a verdict")
    # 5 pairs cannot reach p < 0.01 signed-rank; the unpaired test can (5+5 runs)
    c = stats.compare_paired([1.0, 1.01, 0.99, 1.0, 1.02], [1.1, 1.12, 1.09, 1.1, 1.13])
    assert not c.paired and c.verdict == stats.REGRESSION
    c = stats.compare_paired([1.0, 1.01, 0.99, 1.0, 1.02] * 2, [1.1, 1.12, 1.09, 1.1, 1.13] * 2)
    assert c.paired and c.verdict == stats.REGRESSION and c.ratio == pytest.approx(1.1, rel=0.01)
    rng = np.random.default_rng(13)
    c = stats.compare_paired(*_drifted_ab(rng, 0.0, n=20))
    assert c.verdict == stats.NO_CHANGE and c.resolution is not None and stats.DEFAULT_THRESHOLD <= c.resolution < 0.05


def test_sequential_design_stops_when_decided_and_goes_on_when_not():
    from benchpipe import runner
    seq = runner.sequential_design(10, 30)
    assert seq.looks == (10, 20, 30) and seq.spending == (10, 20, 30)
    assert seq.flag_level == pytest.approx(stats.DEFAULT_ALPHA / 3)
    assert runner.sequential_design(10, 10) is None
    assert runner.sequential_design(10, 25).looks == (10, 20, 25)
    rng = np.random.default_rng(5)
    base = list(1.0 * np.exp(rng.normal(0, 0.002, 10)))
    clear = [b * 1.10 for b in base]                                   # flagged: decided
    same = [b * np.exp(rng.normal(0, 0.002)) for b in base]            # interval inside the band: decided
    unsure = [b * np.exp(rng.normal(0.02, 0.03)) for b in base]        # straddles the threshold: go on
    assert seq.decided([_job(base), _job(clear)])
    assert seq.decided([_job(base), _job(same)])
    assert not seq.decided([_job(base), _job(unsure)])
    assert not seq.decided([_job(base), _job(same), _job(unsure)])     # every side must be decided
    assert seq.decided([_job(base), _job(unsure, status="failed")])    # nothing more to learn there
    # Among a pull request's ~250 tests, 10 pairs (smallest p 0.002) cannot reach the
    # corrected level: that look spends no alpha, so a clear change there goes on to 20
    # pairs, while an unchanged comparison may still stop.
    many = runner.sequential_design(10, 30, tests=250)
    assert many.spending == (20, 30) and many.flag_level == pytest.approx(stats.DEFAULT_ALPHA / 500)
    assert not many.decided([_job(base), _job(clear)])
    assert many.decided([_job(base), _job(same)])
    clear20 = list(1.0 * np.exp(rng.normal(0, 0.002, 20)))
    assert many.decided([_job(clear20), _job([b * 1.10 for b in clear20])])


def test_futile_stops_noise_that_could_not_decide_and_keeps_what_could():
    from benchpipe import runner
    seq = runner.sequential_design(10, 30, tests=250)
    rng = np.random.default_rng(8)
    base = list(np.exp(rng.normal(0, 0.01, 10)))
    # ~15 % pair noise (robust scale), no change; then the same noise and +50 %
    wild = 0.12 * np.array([1.2, -1.1, 0.4, -0.5, 0.9, -0.8, 0.1, -0.2, 1.5, -1.4])
    noisy_same = list(np.array(base) * np.exp(wild))
    noisy_huge = list(np.array(base) * 1.5 * np.exp(wild))
    quiet_5 = [b * 1.05 * np.exp(rng.normal(0, 0.01)) for b in base]   # 1 % noise, +5 %
    assert seq.decided([_job(base), _job(noisy_same)])                  # futile: stops at the first look
    assert not seq.decided([_job(base), _job(noisy_huge)])              # 10 pairs cannot flag; 20 can
    assert not seq.decided([_job(base), _job(quiet_5)])
    d = np.log(np.array(noisy_same) / np.array(base))
    assert stats.futile(d, 30, seq.flag_level, seq.threshold)
    assert not stats.futile(d, 10, seq.flag_level, seq.threshold)       # never at the last look
    assert not stats.futile(np.zeros(10), 30, seq.flag_level, seq.threshold)
    assert not stats.futile(d, 1000, seq.flag_level, seq.threshold)   # 1000 pairs could see through it
    assert seq.to_json()["futility_z"] == stats.PLAUSIBLE_Z


def test_futility_saves_pairs_without_losing_detection():
    """Synthetic comparisons through runner.Sequential and the report's judgement
    (devtools.futility): at noise that 30 pairs cannot see through, the futility stop
    saves pairs on unchanged code, and flags as many 5 % and 2 % slowdowns (give or take
    a few) as sampling to the cap did; it never adds a false alarm."""
    from benchpipe import runner
    from devtools import futility
    seq = runner.sequential_design(10, 30, tests=246)
    for noise, heavy in ((0.06, False), (0.03, True)):
        for change in (0.0, 0.05, 0.02):
            runs = {}
            for fut in (False, True):
                rng = np.random.default_rng(31)
                runs[fut] = [futility.one(rng, seq, noise, change, heavy, fut) for _ in range(60)]
            pairs = {k: np.mean([n for n, _ in v]) for k, v in runs.items()}
            flags = {k: sum(f for _, f in v) for k, v in runs.items()}
            assert flags[True] <= flags[False]                  # stopping early never flags more
            assert flags[True] >= flags[False] - 3, (noise, heavy, change, flags)
            if change == 0.0:
                assert flags[True] == 0 and pairs[True] < 0.75 * pairs[False], (noise, heavy, pairs)


def test_a_cheap_group_samples_past_30_pairs_within_its_budget_and_a_costly_one_does_not():
    """Looks at 10, 20, 30 for every group; 60 and 120 only for a group each of whose
    sides, at its pace so far, stays within the preset's budget. Futility is
    judged against the last look the group can afford, so noise that 30 pairs cannot
    see through may still be worth 120 pairs of a cheap benchmark."""
    from types import SimpleNamespace

    from benchpipe import runner
    seq = runner.sequential_design(10, 120, tests=246, budget_s=10)
    assert seq.looks == (10, 20, 30, 60, 120) and seq.free == 30 and seq.budget_s == 10
    assert seq.spending == (20, 30, 60, 120)                       # alpha split four ways, whoever stops where
    assert seq.to_json()["free_looks"] == 30 and seq.to_json()["budget_s"] == 10
    # no budget: every look open to every group, every `runs` up to --max-runs, as asked
    assert runner.sequential_design(10, 50, budget_s=0).looks == (10, 20, 30, 40, 50)
    assert runner.default_max_runs(10, 20) == 120 and runner.default_max_runs(10, 0) == 30

    def side(per_run, rounds):
        return SimpleNamespace(used_s=per_run * rounds)
    cheap = [side(0.05, 30), side(0.07, 30)]        # 120 rounds cost each side 6 and 8.4 s
    costly = [side(0.05, 30), side(0.4, 30)]        # 60 would cost the slower side 24 s
    assert seq.reach(cheap, 30) == 120
    assert seq.reach(costly, 30) == 30
    assert seq.reach(costly, 10) == 30               # the free looks need no budget
    assert seq.reach(cheap, 30, timeout_s=5.0) == 60  # nor may a side pass its time limit
    assert seq.reach(cheap + [side(0.1, 30)], 30) == 60   # a third side affords the same per side
    assert seq.reach([side(3.0, 10), side(3.0, 10)], 10, timeout_s=50) == 10

    # 20 pairs of ~12 % pair noise around +3 %: 30 pairs could not flag it (futile if
    # that is the last look the group can afford), 120 might
    rng = np.random.default_rng(40)
    z = rng.normal(0, 1, 20)
    z = (z - np.median(z)) / (1.4826 * np.median(np.abs(z - np.median(z))))
    base = list(np.exp(rng.normal(0, 0.001, 20)))
    head = list(np.array(base) * np.exp(0.03 + 0.12 * z))
    pair = [_job(base), _job(head)]
    assert seq.decided(pair, last=30)
    assert not seq.decided(pair, last=120)


def test_spending_looks():
    from benchpipe.multitest import spending_looks
    assert spending_looks((10, 20, 30), 0.01, 1) == (10, 20, 30)
    assert spending_looks((10, 20, 30), 0.01, 250) == (20, 30)
    assert spending_looks((5, 10), 0.01, 1) == (10,)           # 5 pairs: smallest p 0.0625
    assert spending_looks((3, 6), 0.01, 1) == ()               # no look can ever flag


def test_sequential_looks_keep_false_alarms_at_alpha():
    """A/A with drift, sampled until sure (looks at 10, 20, 30 pairs), judged at each
    stop at alpha / 3: the false-alarm rate over many trials stays at or under alpha."""
    from benchpipe import runner
    seq = runner.sequential_design(10, 30, threshold=0.0)
    rng = np.random.default_rng(21)
    trials, flagged, pairs = 400, 0, []
    for _ in range(trials):
        b, h = _drifted_ab(rng, 0.0, n=30, cv=0.01)
        for n in seq.looks:
            if n == seq.looks[-1] or seq.decided([_job(b[:n]), _job(h[:n])]):
                break
        c = stats.compare_paired(b[:n], h[:n], alpha=seq.flag_level, threshold=0.0)
        flagged += c.flagged
        pairs.append(n)
    assert flagged <= 0.01 * trials + 3, flagged   # alpha, give or take the binomial spread
    assert max(pairs) == 30                        # undecided comparisons did take more pairs


def test_correction_across_tests_keeps_a_report_of_identical_code_unflagged():
    """Reports of 60 A/A tests (20 pairs each, a 0.5 % machine drift): uncorrected, most
    reports flag something; with Benjamini-Hochberg at q = alpha, at most about alpha of
    them do (under the global null BH controls the chance of any flag)."""
    from scipy import stats as sps

    from benchpipe.multitest import adjust
    rng = np.random.default_rng(17)
    reports, any_raw, any_bh = 300, 0, 0
    for _ in range(reports):
        ps = []
        for _ in range(60):
            b, h = _drifted_ab(rng, 0.0, n=20, drift=0.005, cv=0.01)
            ps.append(float(sps.wilcoxon(np.log(np.array(h) / np.array(b))).pvalue))
        any_raw += min(ps) < 0.01
        any_bh += min(adjust(ps, "bh")) < 0.01
    assert any_raw > 0.3 * reports, any_raw
    assert any_bh <= 0.01 * reports + 4, any_bh


def test_a_real_change_among_many_unchanged_is_flagged_and_a_short_one_is_not_called_no_change():
    from benchpipe import compare
    from compare_helpers import bench, doc, key
    rng = np.random.default_rng(3)

    def report(n_pairs, spending):
        base = [bench(key(label="base", tasks=t), wall=list(np.exp(rng.normal(0, 0.01, n_pairs))))
                for t in range(1, 41)]
        head = [bench(key(label="head", tasks=t),
                      wall=[w * (1.10 if t == 7 else 1.0) * np.exp(rng.normal(0, 0.002)) for w in b["samples"]["wall_s"]])
                for t, b in zip(range(1, 41), base)]
        d = doc(base + head, labels={"base": "a" * 40, "head": "b" * 40})
        d["env"]["sequential"] = {"looks": [10, 20, 30], "alpha": 0.01, "threshold": 0.02, "tests": 120,
                                  "spending_looks": spending}
        return {c.key["params"]["tasks"]: c for c in compare.compare_docs([d], ["ab.json"]).comparisons}

    long = report(30, [20, 30])
    assert long[7].verdict == stats.REGRESSION
    assert long[7].metrics["time"].p_adjusted < 0.01
    assert [t for t, c in long.items() if c.flagged] == [7]
    # 10 pairs among 120 tests: significant on its own, not after the correction
    short = report(10, [20, 30])
    assert short[7].metrics["time"].p_value < 0.01
    assert short[7].verdict == stats.TOO_FEW and "not enough runs" in short[7].metrics["time"].note
    assert not any(c.flagged for c in short.values())


def test_hodges_lehmann_interval_is_the_signed_rank_test_inverted():
    """The paired effect and its interval come from the signed-rank test itself: the
    exact null distribution matches scipy's exact p-values, the 95 % interval leaves out
    0 exactly when scipy's exact test rejects at 5 % (no ties), it covers the true
    centre about 95 % of the time, and one wild pair among steady ones does not drag the
    estimate (the geometric mean it replaced read 1.09 here)."""
    st = stats
    cdf = st.signed_rank_cdf(10)
    assert cdf[8] == pytest.approx(0.0244140625) and cdf[-1] == pytest.approx(1.0)
    rng = np.random.default_rng(7)
    agree = covered = 0
    trials = 400
    for t in range(trials):
        n = 8 + t % 25
        d = rng.normal(0.01 * (t % 3), 0.02, n)
        est, lo, hi = st.hodges_lehmann(d)
        assert lo <= est <= hi
        p = sps.wilcoxon(d, method="exact").pvalue
        agree += (p < 0.05) == (not lo <= 0 <= hi)
        covered += lo <= 0.01 * (t % 3) <= hi
    assert agree == trials
    assert 0.92 <= covered / trials <= 0.98
    base = [48.5, 47.5, 48.1, 47.8, 47.8, 47.5, 47.8, 47.4, 47.4, 47.8]
    head = [47.5, 48.6, 47.5, 47.3, 47.5, 47.1, 47.3, 47.1, 123.8, 47.8]
    c = st.compare_paired(base, head)
    assert 0.985 < c.ratio < 1.0 and c.verdict == st.NO_CHANGE


def test_the_signed_rank_p_value_is_scipys_own_where_ties_make_it_a_permutation_test():
    """stats.signed_rank_p computes scipy's exact sign-flip test for tied or zero log
    ratios at once instead of flip by flip: the same p-value, bit for bit, on samples
    with ties, zeros, both and neither, of 5 to 14 pairs (past 13 scipy is asymptotic;
    scipy's own flip by flip is what makes this test take seconds)."""
    rng = np.random.default_rng(7)
    tried = tied = 0
    cases = [(n, levels) for n in (5, 8, 11) for levels in (3, 40, None) for _ in range(3)] + [(13, 3), (14, 3)]
    for n, levels in cases:
        d = rng.normal(0.01, 0.02, n)
        if levels is not None:   # whole pages of memory: few distinct values, zeros among them
            d = np.round(d * levels / 0.06) * 0.06 / levels
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = float(sps.wilcoxon(d, alternative="two-sided", zero_method="zsplit").pvalue)
        got = stats.signed_rank_p(d)
        assert got == want, (n, list(d), got, want)
        tried += 1
        tied += n <= stats.EXACT_FLIPS_MAX_N and len(np.unique(np.abs(d))) < n
    assert tied >= 12 and tried == len(cases)
