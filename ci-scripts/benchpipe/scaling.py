"""Heavier (or lighter) workloads: a scenario's `scale` parameter multiplied by a factor
(catalogue Scenario.scale: the one a run's work grows in proportion to, as slower code
would; the size parameter unless the catalogue says otherwise), integer parameters
rounded and kept >= the parameter's min.

`bench run --scale F` runs scaled specs, `compare` pairs a base key with its scaled
form (two files, the second run with --scale), and `calibrate --inject size` makes its
B side this way."""

from __future__ import annotations

import dataclasses
import math

from benchpipe import catalogue
from benchpipe.catalogue import BenchSpec
from benchpipe.errors import BenchError


def scale_params(scenario, params: dict, factor: float) -> dict:
    """params with the scenario's scale parameter multiplied by factor (ints rounded, >= min)."""
    name = scenario.scale
    param = scenario.params[name]
    value = params.get(name, param.default)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise BenchError(f"{scenario.name}: scale parameter {name} = {value!r} cannot be scaled")
    new = value * factor
    if param.type == "int":
        new = int(round(new))
    if param.min is not None:
        new = max(new, param.min if param.type != "int" else int(math.ceil(param.min)))
    return {**params, name: new}


def scale_key(key: dict, factor: float, cat=None) -> dict:
    """A results key (Contract 2) as it reads after `run --scale factor`; keys of scenarios
    the catalogue does not know are returned unchanged."""
    cat = cat or catalogue.load()
    sc = cat.scenarios.get(key["scenario"])
    if sc is None or sc.scale not in key["params"]:
        return key
    return {**key, "params": scale_params(sc, key["params"], factor)}


def scale_spec(spec: BenchSpec, factor: float) -> BenchSpec:
    return dataclasses.replace(spec, params=scale_params(spec.scenario, spec.params, factor))


def scale_specs(specs: list[BenchSpec], factor: float) -> list[BenchSpec]:
    """Every spec with its scenario's scale parameter scaled by factor (pure function)."""
    if not (factor > 0 and math.isfinite(factor)):
        raise BenchError(f"scale factor must be a positive number, not {factor!r}")
    return [scale_spec(s, factor) for s in specs]


def effective_factor(spec: BenchSpec, scaled: BenchSpec) -> float:
    """The ratio really obtained after rounding (e.g. 16 tasks * 1.05 -> 17: 1.0625)."""
    name = spec.scenario.scale
    return scaled.params[name] / spec.params[name]
