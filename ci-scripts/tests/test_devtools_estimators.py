"""devtools.estimators, the study behind keeping the signed-rank test: its tests hold
their size under no change, and each wins where it should (synthetic pairs, fixed seed)."""

from __future__ import annotations

import math

import numpy as np

from devtools import estimators

N = 120


def _pairs(rng, noise: str, change: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Log times of N pairs: a shared drift, then per-run noise; head slower by change."""
    drift = np.linspace(0.0, 0.1, N)
    if noise == "normal":
        b, h = rng.normal(0, 0.05, N), rng.normal(0, 0.05, N)
    else:  # a steady floor, and 30 % of the processes slow by an exponential tail (fanout batched's shape)
        b, h = (rng.normal(0, 0.01, N) + (rng.random(N) < 0.3) * rng.exponential(0.3, N) for _ in range(2))
    return drift + b, drift + h + math.log1p(change)


def _mean_z(noise: str, change: float, trials: int = 20) -> dict[str, float]:
    rng = np.random.default_rng(5)
    zs = [estimators.z_scores(*_pairs(rng, noise, change), rng) for _ in range(trials)]
    return {t: float(np.mean([z[t] for z in zs])) for t in estimators.TESTS}


def test_every_test_holds_its_size_under_no_change():
    rng = np.random.default_rng(3)
    for noise in ("normal", "tail"):
        zs = [estimators.z_scores(*_pairs(rng, noise), rng) for _ in range(100)]
        for t in estimators.TESTS:
            z = np.array([s[t] for s in zs])
            assert abs(z.mean()) < 0.25, (noise, t, z.mean())
            assert 0.75 < z.std() < 1.25, (noise, t, z.std())


def test_a_lower_quantile_sees_a_shift_of_the_floor_sooner_than_the_signed_rank_test():
    z = _mean_z("tail", 0.05)
    assert z["q25"] > 1.25 * z["signed-rank"] > 0, z  # 6.0 against 4.2 here: half the pairs


def test_the_signed_rank_test_wins_on_normal_noise():
    z = _mean_z("normal", 0.05)
    assert z["signed-rank"] > max(z["q25"], z["q10"], z["trimmed"]) > 0, z


def test_pairs_finds_the_two_sides_of_each_benchmark():
    key = {"scenario": "cpu", "variant": "goroutines", "lang": "go", "build": "go", "toolchain": "go1.26.8",
           "params": {"items": 10, "tasks": 2, "threads": 1}}
    doc = {"benchmarks": [{"key": {**key, "label": "base"}, "status": "ok"},
                          {"key": {**key, "label": "head"}, "status": "ok"},
                          {"key": {**key, "label": "base", "params": {"items": 20, "tasks": 2, "threads": 1}},
                           "status": "ok"},
                          {"key": {**key, "label": "head", "params": {"items": 20, "tasks": 2, "threads": 1}},
                           "status": "failed"}]}
    found = list(estimators.pairs(doc))
    assert len(found) == 1
    fam, base, head = found[0]
    assert "items=10" in fam and base["key"]["label"] == "base" and head["key"]["label"] == "head"
