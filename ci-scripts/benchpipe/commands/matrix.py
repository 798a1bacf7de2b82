"""`bench matrix`: the bench workflow's job matrix, as JSON for `fromJSON()`.

One row per (runner, shard). Every job builds every requested toolchain once and runs
each benchmark for all of them, interleaved round by round, so two compiler versions
are always compared on one machine (hosted runners of one label differ in CPU model
from job to job). The event picks the defaults (pull_request: quick preset, Go stable,
Rust stable; push: standard preset; schedule: standard preset across Go
oldstable/stable and Rust stable/beta/nightly); the workflow_dispatch inputs override
them. Large presets are split into shards by scenario, sized by an estimate of each
job's time (catalogue `run_s`: a scenario's seconds per run in each preset, plus the
harness's cost per run, and on Linux the instruction pass: `instruction_runs` counted
runs of every benchmark at the scenario's `instructions.run_s`; shards are sized for
that, the longest leg) so the
slowest job stays well inside the job's time limit; the estimate is printed. The
scenarios come from the catalogue; nothing here repeats them.

Row fields: id (artifact-safe, unique), name (job title), runs-on (a label or a list
of labels), go and rust (comma-separated, for `bench build`/`bench run`), preset,
scenarios and builds (comma-separated, for `bench run --scenario/--build`; builds empty:
all), max_runs (for `bench run --max-runs`), shard ("i/n"), estimate_min (typical
minutes of the job) and worst_min (every interleaved group sampled to max_runs).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass

from benchpipe import catalogue, instructions, runner, toolchains
from benchpipe.errors import UsageError

NAME = "matrix"
HELP = "the bench workflow's job matrix (runners x toolchains x shards) as JSON"

EVENTS = ("pull_request", "push", "schedule", "workflow_dispatch")
DEFAULT_OS = ("ubuntu-latest", "windows-latest", "macos-latest")
# event -> (preset, Go versions, Rust toolchains) when no input says otherwise
EVENT_DEFAULTS = {
    "pull_request": ("quick", ("stable",), ("stable",)),
    "push": ("standard", ("stable",), ("stable",)),
    "schedule": ("standard", ("oldstable", "stable"), ("stable", "beta", "nightly")),
    "workflow_dispatch": ("quick", ("stable",), ("stable",)),
}
# Shards: the worst case of a job (every interleaved group sampled to --max-runs)
# within this many minutes; the bench job's timeout-minutes is 180, GitHub's limit 360.
JOB_BUDGET_MIN = 150
# Pull requests run quick in one job whatever the estimate: head and base, one toolchain each.
NO_SHARDS = ("smoke", "quick")
# Building one toolchain, minutes (a cold cargo build of both Rust programs; Go is quick).
BUILD_MIN = {"go": 1.0, "rust": 4.0}
# Rounds of an interleaved group relative to --runs: typical and worst (runner.
# sequential_design: 3 x, plus the late looks the preset's budget affords, counted in
# Estimate.minutes). Typical: measured, a PR-sized A/A of the quick preset (82 groups,
# two builds of one commit, 2 cores, 2026-11-25): 25.9 pairs a group on average, the
# short benchmarks taking the late looks (60, 120 within 10 s a side) and the long ones
# stopping at 10-30: 1.8 x the time of 10 runs a side, time-weighted.
TYPICAL_ROUNDS, WORST_ROUNDS = 1.8, float(runner.FREE_ROUNDS)
# What the harness adds to each run (hyperfine start, process start, checks): measured
# here as the gap between a run's wall time and the run command's time per run.
OVERHEAD_S = 0.25
MAX_JOBS = 256  # GitHub's limit for one matrix

# the names `bench build` takes (toolchains.py), so a job never fails on a name
GO_NAME, RUST_NAME = toolchains.GO_NAME, toolchains.RUST_NAME
_LABEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def add_arguments(p):
    p.add_argument("--event", required=True, help=f"the GitHub event name ({', '.join(EVENTS)})")
    p.add_argument("--preset", default="", help="preset (empty: the event's default)")
    p.add_argument("--scenarios", default="", help="comma-separated scenarios (empty: all)")
    p.add_argument("--os", default="", help=f"comma-separated runner labels, one job each (empty: {','.join(DEFAULT_OS)})")
    p.add_argument("--go", default="", help="comma-separated Go versions for actions/setup-go (stable, oldstable, 1.25.x)")
    p.add_argument("--rust", default="", help="comma-separated Rust toolchains (stable, beta, nightly, 1.90.0; local: the runner's own)")
    p.add_argument(
        "--runners", default="",
        help="self-hosted runners instead of --os: ';'-separated label sets, each comma-separated "
             "(e.g. 'self-hosted,linux,x64;self-hosted,macOS,ARM64')",
    )
    p.add_argument("--budget-min", type=float, default=JOB_BUDGET_MIN,
                   help=f"shard so each job's worst-case estimate stays within this many minutes (default {JOB_BUDGET_MIN})")
    p.add_argument("--github-output", metavar="FILE", help="also append `matrix=<json>` to this file ($GITHUB_OUTPUT)")


def _split(text: str) -> list[str]:
    return [v.strip() for v in text.split(",") if v.strip()]


def _check(kind: str, values: list[str], pattern: re.Pattern) -> list[str]:
    for v in values:
        if not pattern.match(v):
            raise UsageError(f"bad {kind} {v!r}")
    if len(set(values)) != len(values):
        raise UsageError(f"{kind} listed twice in {','.join(values)}")
    return values


def runners(os_text: str, runners_text: str) -> list[tuple[str, object]]:
    """[(slug, runs-on)]: runs-on is a label, or a list of labels for a self-hosted set."""
    if runners_text.strip() and os_text.strip():
        raise UsageError("give --os or --runners, not both (--runners replaces --os)")
    if runners_text.strip():
        out = []
        for entry in runners_text.split(";"):
            labels = _check("runner label", _split(entry), _LABEL_RE)
            if not labels:
                continue
            out.append(("-".join(labels), labels if len(labels) > 1 else labels[0]))
        if not out:
            raise UsageError("--runners names no labels")
        return out
    labels = _check("runner label", _split(os_text) or list(DEFAULT_OS), _LABEL_RE)
    return [(label, label) for label in labels]


@dataclass
class Estimate:
    """Minutes of one job: building every toolchain, then benchmarks, each measured once
    per toolchain of its language (interleaved when there are several). Costs are kept
    per (scenario, build), the finest unit a job can be given (`--scenario`, `--build`)."""
    build_min: float
    runs: int
    warmup: int
    per_unit: dict[tuple[str, str], list[tuple[int, float, float]]]  # (scenario, build) -> [(sides, s per run,
    #                                                                   s of its instruction pass per side)]
    budget_s: float = 0.0   # the preset's sample_budget_s: looks past 3 x runs within it

    def minutes(self, units, rounds: float, counting: bool = True) -> float:
        """Running `units` with interleaved groups taking `rounds` x runs rounds; at the
        worst case (WORST_ROUNDS) a group may also take the later looks its budget
        affords (runner.Sequential: at most the budget, at most 12 x runs). counting:
        the job also counts instructions (Linux), `instruction_runs` more runs of every
        benchmark on every side under Valgrind, at the scenario's `instructions.run_s`,
        and at the worst case as many again (every pair taking the pass's second look)."""
        total = 0.0
        for u in units:
            for sides, per_run, pass_s in self.per_unit[u]:
                r = self.runs * (rounds if sides > 1 else 1)
                t = sides * (r + self.warmup) * per_run
                if sides > 1 and rounds >= WORST_ROUNDS and self.budget_s > 0:
                    late = sides * (self.runs * runner.MAX_ROUNDS + self.warmup) * per_run
                    t = max(t, min(late, sides * self.budget_s))   # the budget is per side
                # at the worst case every pair takes the pass's second look (instructions.TOP_UP_GATE)
                looks = instructions.TOP_UP_LOOKS if sides > 1 and rounds >= WORST_ROUNDS else 1
                total += (t + (sides * pass_s * looks if counting else 0.0)) / 60
        return total

    def job(self, units, rounds: float, counting: bool = True) -> float:
        return self.build_min + self.minutes(units, rounds, counting)


def counts_instructions(runs_on) -> bool:
    """Whether a job on these runner labels counts instructions: Valgrind runs on Linux
    only; a label that names no OS (a self-hosted runner) counts as Linux, the longer case."""
    labels = [runs_on] if isinstance(runs_on, str) else list(runs_on)
    return not any(re.match(r"(windows|macos)", label, re.I) for label in labels)


def estimate(cat, preset_name: str, specs, go: list[str], rust: list[str], sides: int = 1) -> Estimate:
    """sides: 2 for a pull request (head and base of every toolchain)."""
    preset = cat.preset(preset_name)
    per_lang = {"go": len(go), "rust": len(rust)}
    build = sides * sum(BUILD_MIN[lang] * n for lang, n in per_lang.items())
    per_unit: dict[tuple[str, str], list] = {}
    counted: set = set()
    for s in specs:
        per_run = process_s(s.scenario.run_s.get(preset_name, 1.0), preset.repeat_s) + OVERHEAD_S
        pass_s = preset.instruction_runs * s.scenario.instructions.seconds(preset_name)   # measured with hyperfine
        # a benchmark apart from one before only in a size the pass sets is not counted
        # again (instructions.pass_key; `bench run` counts it after all where the first's
        # counting failed)
        seen = (s.build.name, *instructions.counted_as(s, instructions.pass_params(s.scenario)))
        if seen in counted or s.scenario.instructions.unsteady_for(s.build.lang, s.variant):   # (not counted)
            pass_s = 0.0
        counted.add(seen)
        per_unit.setdefault((s.scenario.name, s.build.name), []).append((per_lang[s.build.lang] * sides, per_run,
                                                                         pass_s))
    return Estimate(build, preset.runs, preset.warmup, per_unit, preset.sample_budget_s)


def process_s(run_s: float, repeat_s: float) -> float:
    """Seconds one measured run of a benchmark takes: the catalogue's run_s, or, where
    the preset repeats a window that short (runner.RepeatPlan), the repeated windows,
    about repeat_s."""
    if repeat_s > 0 and runner.RepeatPlan(repeat_s).fits(run_s) >= runner.MIN_REPEAT:
        return max(run_s, repeat_s)
    return run_s


@dataclass
class Shard:
    scenarios: list[str]
    builds: list[str]          # empty: every build
    max_rounds: float          # of runs: WORST_ROUNDS, or fewer where even one unit is too big
    units: list[tuple[str, str]]


def _first_fit(items: list, cost, budget: float) -> list[list]:
    bins: list[tuple[float, list]] = []
    for it in sorted(items, key=lambda x: -cost([x])):
        for i, (size, members) in enumerate(bins):
            if size + cost([it]) <= budget:
                bins[i] = (size + cost([it]), members + [it])
                break
        else:
            bins.append((cost([it]), [it]))
    return [m for _, m in bins]


def shards(est: Estimate, scenario_order: list[str], budget: float) -> list[Shard]:
    """Whole scenarios packed first-fit into shards whose worst case fits the budget; a
    scenario too big for one shard is split by build (its builds packed the same way);
    a build still too big gets fewer rounds of sampling until sure (max_rounds), which
    is what keeps a job inside its limit, and it says so in the row."""
    builds_of: dict[str, list[str]] = {}
    for sc, b in est.per_unit:
        builds_of.setdefault(sc, []).append(b)

    def units(sc):
        return [(sc, b) for b in builds_of[sc]]

    def worst(group):
        return est.minutes([u for sc in group for u in units(sc)], WORST_ROUNDS)

    whole = [sc for sc in scenario_order if sc in builds_of and worst([sc]) <= budget]
    out = [Shard(g, [], WORST_ROUNDS, [u for sc in g for u in units(sc)])
           for g in _first_fit(whole, worst, budget)]
    for sc in (sc for sc in scenario_order if sc in builds_of and sc not in whole):
        for g in _first_fit(units(sc), lambda us: est.minutes(us, WORST_ROUNDS), budget):
            rounds = next((r for r in (WORST_ROUNDS, 2.0) if est.minutes(g, r) <= budget), 1.0)
            out.append(Shard([sc], sorted(b for _, b in g), rounds, g))
    order = {n: i for i, n in enumerate(scenario_order)}
    for sh in out:
        sh.scenarios.sort(key=order.get)
    return sorted(out, key=lambda sh: (order[sh.scenarios[0]], sh.builds))


def build(args) -> dict:
    if args.event not in EVENTS:
        raise UsageError(f"unknown event {args.event!r} (known: {', '.join(EVENTS)})")
    preset0, go0, rust0 = EVENT_DEFAULTS[args.event]
    preset = args.preset.strip() or preset0
    cat = catalogue.load()
    p = cat.preset(preset)  # unknown preset: usage error
    go = _check("Go version", _split(args.go) or list(go0), GO_NAME)
    rust = _check("Rust toolchain", _split(args.rust) or list(rust0), RUST_NAME)
    asked = _split(args.scenarios) or None
    specs = cat.benchmarks(preset, scenarios=asked)  # unknown scenario: usage error
    if not specs:
        raise UsageError(f"preset {preset} selects no benchmarks")
    langs = {s.build.lang for s in specs}
    go, rust = (go if "go" in langs else []), (rust if "rust" in langs else [])
    est = estimate(cat, preset, specs, go, rust, sides=2 if args.event == "pull_request" else 1)
    order = list(dict.fromkeys(s.scenario.name for s in specs))
    if preset in NO_SHARDS:
        groups = [Shard(order, [], WORST_ROUNDS, list(est.per_unit))]
    else:
        budget = args.budget_min - est.build_min
        if budget <= 0:
            raise UsageError(f"building {len(go)} Go and {len(rust)} Rust toolchains alone takes about "
                             f"{est.build_min:.0f} min, more than --budget-min {args.budget_min:g}")
        groups = shards(est, order, budget)
    rows = []
    for slug, runs_on in runners(args.os, args.runners):
        for i, sh in enumerate(groups, 1):
            shard = f"{i}/{len(groups)}"
            what = ",".join(sh.scenarios) + (f" [{','.join(sh.builds)}]" if sh.builds else "")
            ident = slug + (f"-shard{i}of{len(groups)}" if len(groups) > 1 else "")
            title = f"{slug} go {','.join(go) or '-'} rust {','.join(rust) or '-'}" + \
                (f" ({shard}: {what})" if len(groups) > 1 else "")
            rows.append({
                "id": re.sub(r"[^A-Za-z0-9._-]", "_", ident),
                "name": title,
                "runs-on": runs_on,
                "go": ",".join(go),
                "rust": ",".join(rust),
                "preset": preset,
                "scenarios": ",".join(sh.scenarios),
                "builds": ",".join(sh.builds),
                # sampling until sure: at most this many rounds per interleaved group
                # (a shard at full rounds also takes the late looks its preset's budget affords)
                "max_runs": (runner.default_max_runs(p.runs, p.sample_budget_s) if sh.max_rounds >= WORST_ROUNDS
                             else int(round(p.runs * sh.max_rounds))),
                "shard": shard,
                "estimate_min": round(est.job(sh.units, min(TYPICAL_ROUNDS, sh.max_rounds), counts_instructions(runs_on))),
                "worst_min": round(est.job(sh.units, sh.max_rounds, counts_instructions(runs_on))),
            })
    if len(rows) > MAX_JOBS:
        raise UsageError(f"{len(rows)} jobs: more than GitHub's {MAX_JOBS} per matrix; choose fewer runners")
    return {"include": rows}


def run(args) -> int:
    matrix = build(args)
    text = json.dumps(matrix, separators=(",", ":"))
    if args.github_output:
        with open(args.github_output, "a", encoding="utf-8") as fh:
            fh.write(f"matrix={text}\n")
    print(text)
    rows = matrix["include"]
    r0 = rows[0]
    runs = catalogue.load().preset(r0["preset"]).runs  # one preset for every row
    print(f"matrix: {len(rows)} jobs ({r0['shard'].split('/')[1]} shard(s) per runner), preset {r0['preset']}, "
          f"each building go {r0['go'] or '-'} and rust {r0['rust'] or '-'} once", file=sys.stderr)
    for r in rows:
        if r["runs-on"] == r0["runs-on"]:
            print(f"  {r['shard']:>5}  ~{r['estimate_min']} min (at most ~{r['worst_min']} min)  {r['scenarios']}"
                  + (f" [{r['builds']}]" if r["builds"] else "")
                  + (f" (sampling until sure capped at {r['max_runs']} rounds)"
                     if r["max_runs"] < WORST_ROUNDS * runs else ""), file=sys.stderr)
    return 0
