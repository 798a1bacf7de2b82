"""The catalogue (ci-scripts/catalogue.toml): scenarios, variants, parameters, builds
and presets, and the expansion of a preset into the list of benchmarks to run."""

from __future__ import annotations

import itertools
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from benchpipe import CI_SCRIPTS
from benchpipe.errors import BenchError, UsageError

CATALOGUE_PATH = CI_SCRIPTS / "catalogue.toml"
PRESETS = ("smoke", "quick", "standard", "full")
PARAM_TYPES = ("int", "float", "enum", "path")


_CPUS_RE = re.compile(r"^([1-9][0-9]?)?cpus$")


def is_cpus(value) -> bool:
    """"cpus" or "<k>cpus": a number of CPUs, resolved where the benchmark runs."""
    return isinstance(value, str) and bool(_CPUS_RE.match(value))


def resolve_cpus(value):
    """"cpus" -> the number of logical CPUs here, "5cpus" -> five times that; other
    values as they are."""
    m = _CPUS_RE.match(value) if isinstance(value, str) else None
    if not m:
        return value
    return int(m.group(1) or 1) * (os.cpu_count() or 1)


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: object
    min: float | None = None
    choices: tuple[str, ...] | None = None
    max: float | None = None
    key: bool = True
    help: str = ""
    lang: str | None = None  # only this language's programs take it (e.g. Rust's hasher)

    def accepts(self, value) -> bool:
        """Whether value has this parameter's type: a whole number (or "cpus", "<k>cpus")
        for int, a number for float, one of the choices for enum, text for a path."""
        if isinstance(value, bool):
            return False
        if self.type == "int":
            return isinstance(value, int) or is_cpus(value)
        if self.type == "float":
            return isinstance(value, (int, float))
        if self.type == "enum":
            return value in (self.choices or ())
        return isinstance(value, str)

    def program_view(self) -> dict:
        """What the programs' `list` reports for this parameter."""
        out = {"type": self.type, "default": self.default}
        if self.min is not None:
            out["min"] = self.min
        if self.max is not None:
            out["max"] = self.max
        if self.choices is not None:
            out["choices"] = list(self.choices)
        return out


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    runs: int
    warmup: int
    timeout_s: float
    # an interleaved group (A/B sides, toolchains) samples past 3 x runs rounds, up to
    # 12 x, only while each side's time stays within this (0: never; runner.Sequential)
    sample_budget_s: float = 0.0
    # a benchmark whose window is this short runs several times in one process
    # (`--repeat K`: K windows add up to about this many seconds; 0: never; runner.RepeatPlan)
    repeat_s: float = 0.0
    # compiler versions beside the asked ones: lang -> toolchain requests, run for the
    # scenarios in versions_scenarios only (`bench run` without --ab-base)
    versions: dict = field(default_factory=dict)
    versions_scenarios: tuple[str, ...] = ()
    # runs per benchmark of the instruction pass on Linux (benchpipe.instructions; 0: none)
    instruction_runs: int = 0


@dataclass(frozen=True)
class Build:
    name: str
    lang: str
    program: str
    allocator: str
    description: str
    label: str = ""       # how charts and pages name it (Go, Rust (mimalloc))
    colour: str = "#555555"
    dash: int = 1         # gnuplot dash type of its lines
    # A second program of this build, from the same source, that runs the scenarios
    # declaring `split = true` (Go: gobench-sql, build tag sql; Rust: rsbench-sql, cargo
    # feature sql, which the lean program is built without; the catalogue says why).
    split_program: str = ""
    split_tags: str = ""
    split_scenarios: tuple[str, ...] = ()
    split_features: str = ""

    def program_for(self, scenario: str) -> str:
        """The program of this build that runs the scenario."""
        return self.split_program if scenario in self.split_scenarios else self.program


@dataclass(frozen=True)
class InstructionPass:
    """How the scenario's instructions are counted (benchpipe.instructions): the sizes
    of the pass (params over the benchmark's own) and, per language or per language and
    variant, why its counts are known not to be deterministic (then not counted by `bench
    run`, whose reports could never judge them; `bench calibrate` counts them to check)."""
    params: dict = field(default_factory=dict)
    # "lang" or "lang/variant" -> cause (with the CV calibrate measured)
    unsteady: dict = field(default_factory=dict)
    env: dict = field(default_factory=dict)        # lang -> environment of the pass (a control, both sides alike)
    # seconds one counted run takes under Valgrind on a Linux runner, per preset (bench
    # matrix's estimate; "" : every preset without its own), hyperfine's start included
    run_s: dict = field(default_factory=dict)

    def seconds(self, preset: str) -> float:
        return self.run_s.get(preset, self.run_s.get("", 1.0))

    def unsteady_for(self, lang: str, variant: str) -> str:
        """Why this variant's counts are known not to be deterministic ('' : they are not known so)."""
        return self.unsteady.get(f"{lang}/{variant}") or self.unsteady.get(lang, "")


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    seeds: tuple[str, ...]
    setup: bool
    size: str
    variants: dict[str, tuple[str, ...]]
    params: dict[str, Param]
    grids: dict[str, dict[str, tuple]]
    pairs: dict[str, str] = field(default_factory=dict)            # rust variant -> go variant
    only: dict[str, dict[str, tuple]] = field(default_factory=dict)  # variant -> param -> allowed values
    run_s: dict[str, float] = field(default_factory=dict)  # preset -> rough seconds per run (bench matrix)
    scale: str = ""  # the parameter a run's work grows in proportion to (`calibrate`, `run --scale`)
    split: bool = False  # runs in its build's split program, where the build has one
    service: str = ""    # the server it needs (benchpipe/services/<service>.py), or none
    parity: tuple[str, ...] = ()  # runtime facts both sides of a Go-against-Rust pair must share
    instructions: InstructionPass = field(default_factory=InstructionPass)

    def allows(self, variant: str, params: dict) -> bool:
        """False where `only.<variant>` rules these params out."""
        return all(params.get(p) in vals for p, vals in self.only.get(variant, {}).items())

    def go_counterpart(self, rust_variant: str) -> str | None:
        """The Go variant a Rust variant is compared with (catalogue `pairs`)."""
        return self.pairs.get(rust_variant)

    def key_params(self, values: dict, lang: str | None = None) -> dict:
        """The identifying parameters: every `key` parameter, given value or default
        (for `lang`: without the parameters only the other language takes)."""
        return {p.name: values.get(p.name, p.default) for p in self.params.values()
                if p.key and (lang is None or p.lang in (None, lang))}

    def shared_params(self, params: dict) -> dict:
        """The parameters both languages take: what a Go benchmark and the Rust one set
        against it have in common (a Rust hasher=foldhash run is set against the same
        Go run as hasher=std)."""
        return {k: v for k, v in params.items() if k not in self.params or self.params[k].lang is None}


@dataclass(frozen=True)
class BenchSpec:
    """One benchmark before toolchains are chosen: scenario, variant, build, params."""

    scenario: Scenario
    variant: str
    build: Build
    params: dict = field(hash=False)

    def argv(self, program: str, extra: dict | None = None) -> list[str]:
        """The program's command line (paths such as --dir come in through `extra`)."""
        argv = [program, self.scenario.name, "--variant", self.variant]
        for name, value in {**self.params, **(extra or {})}.items():
            if value == "cpus":  # the program's own default: leave it to resolve
                continue
            argv += [f"--{name}", str(resolve_cpus(value))]
        return argv

    def commands(self, program: str, workdir: Path) -> tuple[list[str], list[str] | None]:
        """The command and, where the scenario has one, its setup command (the same
        arguments); path parameters (--dir, --db) point into the benchmark's own workdir."""
        extra = {p.name: str(workdir / str(p.default)) for p in self.scenario.params.values() if p.type == "path"}
        command = self.argv(program, extra)
        return command, ([program, "setup", self.scenario.name, *command[4:]] if self.scenario.setup else None)


@dataclass(frozen=True)
class Catalogue:
    presets: dict[str, Preset]
    builds: dict[str, Build]
    scenarios: dict[str, Scenario]
    path: Path = CATALOGUE_PATH

    def preset(self, name: str) -> Preset:
        if name not in self.presets:
            raise UsageError(f"unknown preset {name!r} (known: {', '.join(self.presets)})")
        return self.presets[name]

    def benchmarks(self, preset: str, scenarios=None, variants=None, langs=None, builds=None) -> list[BenchSpec]:
        """Expand a preset into benchmarks, filtered; unknown filter values are errors."""
        self.preset(preset)
        check_known("scenario", scenarios, self.scenarios)
        check_known("build", builds, self.builds)
        check_known("language", langs, {b.lang for b in self.builds.values()})
        all_variants = {v for s in self.scenarios.values() for vs in s.variants.values() for v in vs}
        check_known("variant", variants, all_variants)
        out = []
        for sc in self.scenarios.values():
            if scenarios and sc.name not in scenarios:
                continue
            grid = sc.grids[preset]
            names = list(grid)
            for build in self.builds.values():
                if (builds and build.name not in builds) or (langs and build.lang not in langs):
                    continue
                for variant in sc.variants.get(build.lang, ()):
                    if variants and variant not in variants:
                        continue
                    seen = []  # a grid over the other language's parameters repeats combos
                    for combo in itertools.product(*(grid[n] for n in names)):
                        params = sc.key_params(dict(zip(names, combo)), build.lang)
                        if sc.allows(variant, params) and params not in seen:
                            seen.append(params)
                            out.append(BenchSpec(sc, variant, build, params))
        return out


def check_known(what: str, asked, known) -> None:
    for name in asked or ():
        if name not in known:
            raise UsageError(f"unknown {what} {name!r} (known: {', '.join(sorted(known))})")


def _seconds_ok(v) -> bool:
    """A number of seconds (0, 3600], or a table of them per preset."""
    if isinstance(v, dict):
        return bool(v) and set(v) <= set(PRESETS) and all(_seconds_ok(x) for x in v.values())
    return type(v) in (int, float) and 0 < v <= 3600


def _per_preset(v) -> dict:
    return {k: float(x) for k, x in v.items()} if isinstance(v, dict) else {"": float(v)}


def load(path: Path = CATALOGUE_PATH) -> Catalogue:
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise BenchError(f"{path}: cannot read the catalogue: {err}") from err
    try:
        return _parse(raw, Path(path))
    except (KeyError, TypeError, ValueError) as err:
        raise BenchError(f"{path}: malformed catalogue: {err}") from err


def _parse(raw: dict, path: Path) -> Catalogue:
    presets = {
        name: Preset(name, p["description"], int(p["runs"]), int(p["warmup"]), float(p["timeout_s"]),
                     float(p.get("sample_budget_s", 0.0)), float(p.get("repeat_s", 0.0)),
                     {lang: tuple(v) for lang, v in p.get("versions", {}).items() if lang != "scenarios"},
                     tuple(p.get("versions", {}).get("scenarios", ())), int(p.get("instruction_runs", 0)))
        for name, p in raw["presets"].items()
    }
    for p in presets.values():
        if bool(p.versions) != bool(p.versions_scenarios) or set(p.versions_scenarios) - set(raw["scenarios"]) \
                or set(p.versions) - {b["lang"] for b in raw["builds"].values()}:
            raise ValueError(f"preset {p.name}: versions names toolchains per language (go = [...]) and the "
                             "scenarios they run (scenarios = [...])")
    if any(not p.sample_budget_s >= 0 for p in presets.values()):
        raise ValueError("a preset's sample_budget_s must be a number >= 0")
    if any(not 0 <= p.instruction_runs <= 100 for p in presets.values()):
        raise ValueError("a preset's instruction_runs must be a whole number from 0 to 100")
    if any(not 0 <= p.repeat_s <= 10 for p in presets.values()):
        raise ValueError("a preset's repeat_s must be a number of seconds from 0 to 10")
    if tuple(presets) != PRESETS:
        raise ValueError(f"presets must be {PRESETS}, found {tuple(presets)}")
    split = tuple(name for name, s in raw["scenarios"].items() if s.get("split", False) is True)
    builds = {
        name: Build(name, b["lang"], b["program"], b["allocator"], b["description"], b.get("label", name),
                    b.get("colour", "#555555"), int(b.get("dash", 1)),
                    b.get("split", {}).get("program", ""), b.get("split", {}).get("tags", ""),
                    split if b.get("split", {}).get("program") else (), b.get("split", {}).get("features", ""))
        for name, b in raw["builds"].items()
    }
    for b in builds.values():
        # both go into the site's style sheet and the charts: a name and a colour, nothing else
        if not re.fullmatch(r"[a-z][a-z0-9-]*", b.name) or not re.fullmatch(r"#[0-9a-fA-F]{6}", b.colour):
            raise ValueError(f"build {b.name!r}: a name of lower-case letters, digits and dashes, and a colour #rrggbb")
    for name, b in raw["builds"].items():
        sp = b.get("split", {})
        given = {"go": "tags", "rust": "features"}.get(b["lang"], "")
        if set(sp) - {"program", given} or (sp and (not sp.get("program") or sp["program"] == b["program"])) or \
                not all(isinstance(v, str) for v in sp.values()):
            raise ValueError(f"build {name}: split is a program of its own (program) and the Go build tags (tags) "
                             "or Rust cargo features (features) that give it its scenarios")
    if split and not any(b.split_program for b in builds.values()):
        raise ValueError(f"scenarios {', '.join(split)} say split = true, but no build has a split program")
    scenarios = {}
    for name, s in raw["scenarios"].items():
        params = {}
        for pname, p in s["params"].items():
            if p["type"] not in PARAM_TYPES:
                raise ValueError(f"scenario {name}: parameter {pname}: unknown type {p['type']!r}")
            params[pname] = Param(
                pname, p["type"], p["default"], min=p.get("min"), max=p.get("max"),
                choices=tuple(p["choices"]) if "choices" in p else None,
                key=bool(p.get("key", True)), help=p.get("help", ""), lang=p.get("lang"),
            )
            if p.get("lang") not in (None, *(b["lang"] for b in raw["builds"].values())):
                raise ValueError(f"scenario {name}: parameter {pname}: unknown lang {p['lang']!r}")
        grids = {}
        for preset in PRESETS:
            grid = s["presets"][preset]
            for pname, values in grid.items():
                if pname not in params:
                    raise ValueError(f"scenario {name}: preset {preset}: unknown parameter {pname!r}")
                if not isinstance(values, list) or not values:
                    raise ValueError(f"scenario {name}: preset {preset}: {pname} must be a non-empty list")
                if params[pname].type == "int" and not all(params[pname].accepts(v) for v in values):
                    raise ValueError(f"scenario {name}: preset {preset}: {pname} takes whole numbers, "
                                     "\"cpus\" or \"<k>cpus\"")
            grids[preset] = {k: tuple(v) for k, v in grid.items()}
        if s["size"] not in params:
            raise ValueError(f"scenario {name}: size parameter {s['size']!r} is not a parameter")
        if not isinstance(s.get("split", False), bool) or not isinstance(s.get("service", ""), str):
            raise ValueError(f"scenario {name}: split is true or false, service the name of a service module")
        scale = s.get("scale", s["size"])
        if scale not in params or params[scale].type not in ("int", "float"):
            raise ValueError(f"scenario {name}: scale parameter {scale!r} is not a numeric parameter")
        variants = {lang: tuple(v) for lang, v in s["variants"].items()}
        pairs = dict(s.get("pairs", {}))
        for rv in variants.get("rust", ()):
            if pairs.get(rv) not in variants.get("go", ()):
                raise ValueError(f"scenario {name}: pairs.{rv} must name the Go variant it is compared with "
                                 f"(one of {', '.join(variants.get('go', ()))})")
        if set(pairs) - set(variants.get("rust", ())):
            raise ValueError(f"scenario {name}: pairs names an unknown Rust variant")
        only = {}
        for v, rules in s.get("only", {}).items():
            if not any(v in vs for vs in variants.values()):
                raise ValueError(f"scenario {name}: only.{v}: unknown variant")
            for pname, vals in rules.items():
                if pname not in params or not isinstance(vals, list) or not vals:
                    raise ValueError(f"scenario {name}: only.{v}.{pname} must be a non-empty list of a parameter's values")
            only[v] = {k: tuple(x) for k, x in rules.items()}
        ins = s.get("instructions", {})
        langs = {b["lang"] for b in raw["builds"].values()}
        if set(ins) - {"params", "unsteady", "env", "run_s"} or set(ins.get("params", {})) - set(params) \
                or set(ins.get("unsteady", {})) - langs - {f"{lg}/{v}" for lg, vs in variants.items() for v in vs} \
                or set(ins.get("env", {})) - langs \
                or not _seconds_ok(ins.get("run_s", 1.0)):
            raise ValueError(f"scenario {name}: instructions has params (the pass's sizes: parameters of the "
                             "scenario), unsteady (language, or language/variant -> why its counts are not deterministic), env "
                             "(language -> environment variables of the pass) and run_s (seconds a counted run "
                             "takes, for bench matrix: a number, or a number per preset)")
        scenarios[name] = Scenario(
            name, s["title"], tuple(s["seeds"]), bool(s["setup"]), s["size"],
            variants, params, grids, pairs, only,
            {k: float(v) for k, v in s.get("run_s", {}).items()}, scale,
            bool(s.get("split", False)), str(s.get("service", "")), tuple(s.get("parity", ())),
            InstructionPass(dict(ins.get("params", {})), {k: str(v) for k, v in ins.get("unsteady", {}).items()},
                            {k: {n: str(x) for n, x in v.items()} for k, v in ins.get("env", {}).items()},
                            _per_preset(ins.get("run_s", 1.0))),
        )
    return Catalogue(presets, builds, scenarios, path)
