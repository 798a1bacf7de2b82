"""The run loop: every selected benchmark through hyperfine, checked, into Contract 2.

Per benchmark (one key):
- hyperfine with the preset's warm-ups and runs, `--prepare "<prog> setup ..."` for
  scenarios with setup (their paths point into a per-benchmark temp dir), and the
  preset's wall-clock limit for the whole benchmark.
- samples: wall time and peak memory per run from hyperfine's JSON; user and system
  CPU per run from the program's own records (hyperfine exports only their means).
- checks: every run exits 0; every record validates against record.schema.json and
  names the benchmark's scenario, variant, lang and build; the checksum is the same
  in every run. Any of these failing -> status `failed` with the reason.
- memory cross-check: the record's `peak_rss_bytes` against hyperfine's figure for the
  same run. hyperfine's is a running maximum over the invocation's runs, warm-ups
  included (see measures.memory_bytes), so it can only be larger; a program that
  reports more than hyperfine saw, by more than 30% and 8 MiB, is misreporting. The
  status stays `ok` (the timing is still valid) and `reason` carries a "warning: ..."
  naming both figures. Likewise an open-loop run
  (hashmap, shape rate) whose spawner reached less than 95% of the offered rate
  (measures.rate_warning). For an `ok` benchmark, `reason` only ever holds such
  warnings.

Interleaving: benchmarks that differ only in A/B label or toolchain form a group. A
group of one runs as one hyperfine invocation. A larger group runs in rounds: each
round gives every member one measured run (warm-ups in the first round), the order
alternating A B / B A between rounds, so drift on the machine (thermal, noisy
neighbours) hits every side equally instead of whichever happened to run last.

Repeats (presets with `repeat_s`): a benchmark whose timed window is short runs the
scenario K times in each process (`--repeat K`), and its sample is the median of the
windows after the first (RepeatPlan says how K is chosen). Its warm-up run, one
invocation of its own, says how long the window is.

After all benchmarks, the cross-language check: benchmarks with the same scenario and
key params (and the same A/B label) must print the same checksum, whatever their
variant, language, build or toolchain. Where they differ, the checksum held by a strict
majority wins and the others fail naming both checksums; without a majority all of
them fail (nobody can tell which side is wrong)."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from benchpipe import fsutil, hyperfine, measures, metrics, multitest, schema, stats
from benchpipe.catalogue import BenchSpec, Preset, resolve_cpus
from benchpipe.results import RESULTS_SCHEMA, format_params, key_id
from benchpipe.toolchains import Built

MEM_TOLERANCE_REL = 0.30
MEM_TOLERANCE_ABS = 8 * 1024 * 1024


@dataclass
class Job:
    spec: BenchSpec
    built: Built
    key: dict
    id: str
    command: list[str]
    prepare: list[str] | None
    workdir: Path
    status: str = "pending"
    reason: str = ""
    warnings: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    memory: list[int] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)
    used_s: float = 0.0
    rounds: int = 0
    repeat: int = 1     # --repeat K: scenario runs per process (RepeatPlan)
    # the instruction pass's counts and how they were taken (benchpipe.instructions)
    instructions: dict | None = None

    @property
    def name(self) -> str:
        return display_name(self.key)

    @property
    def argv(self) -> list[str]:
        """The command as measured: with --repeat K where the scenario runs K times."""
        return self.command + (["--repeat", str(self.repeat)] if self.repeat > 1 else [])

    def fail(self, reason: str) -> None:
        if self.status != "failed":
            self.status, self.reason = "failed", reason

    def to_json(self) -> dict:
        out = {"id": self.id, "key": self.key, "status": self.status}
        if self.built is not None and self.built.channel:
            out["channel"] = self.built.channel
        reason = self.reason if self.status != "ok" else "; ".join(self.warnings)
        if reason:
            out["reason"] = reason
        out["command"] = self.argv
        out["samples"] = {
            "wall_s": list(self.times),
            "user_s": [float(r["cpu_user_s"]) for r in self.records],
            "sys_s": [float(r["cpu_sys_s"]) for r in self.records],
            "peak_rss_bytes": list(self.memory),
        }
        out["records"] = list(self.records)  # only records that passed validation get here
        if self.instructions:
            out["instructions"] = dict(self.instructions)
        return out


def display_name(key: dict) -> str:
    """`hashmap spawn [go go1.26.8] tasks=4000 items=1000 shape=burst`: size-like
    params in catalogue order, the A/B label in the brackets."""
    tag = " ".join(x for x in (key["build"], key["toolchain"], key.get("label")) if x)
    params = " ".join(f"{k}={v}" for k, v in key["params"].items())
    return f"{key['scenario']} {key['variant']} [{tag}] {params}".rstrip()


def resolve_params(params: dict) -> dict:
    return {k: resolve_cpus(v) for k, v in params.items()}


def fresh_copies(builds: list[Built], workroot: Path) -> list[Built]:
    """Every program copied the same way into this run's work folder, and run from there.

    Peak memory counts the program's file pages that are mapped, and how many the kernel
    maps at each fault depends on how the file sits in the page cache: the same bytes
    written by `go build` and by a copy started at 8.0 and at 6.7 MB. Fresh copies
    written alike give byte-identical programs the same figure (issue: A/A memory flags
    between two builds of one commit).

    Written alike is not enough for Rust: in an A/A of the whole quick preset, the head's
    copy of rsbench started every benchmark with ~110 KB more resident (its baseline, before
    any scenario code) than the base's copy of the same bytes, in every benchmark of the
    run, and flagged hashmap's peak memory +3.8 % (5 MB programs; earlier tries: -130 to
    +110 KB, a new sign each run; Go: 0). So byte-identical programs (the same name and
    contents: both sides of an A/A, or the programs a pull request did not change) share
    one copy: the same file, whatever pages of it the kernel maps."""
    out = []
    shared: dict[tuple[str, str], str] = {}   # (name, sha256) -> the copy
    for i, b in enumerate(builds):
        copies: dict[str, str] = {}
        for src in dict.fromkeys([b.path, *b.paths.values()]):
            same = (Path(src).name, fsutil.sha256_file(src))
            if same not in shared:
                dest = workroot / "bin" / str(i) / Path(src).name
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest)
                shared[same] = str(dest)
            copies[src] = shared[same]
        out.append(dataclasses.replace(b, path=copies[b.path], paths={sc: copies[p] for sc, p in b.paths.items()}))
    return out


def fresh_job(job: Job) -> Job:
    """The same benchmark again, nothing measured yet (calibrate repeats a group)."""
    return dataclasses.replace(job, status="pending", reason="", warnings=[], times=[], memory=[], records=[],
                               used_s=0.0, rounds=0, repeat=1,
                               instructions=None)


def make_jobs(specs: list[BenchSpec], builds: list[Built], workroot: Path, ab: bool, copied: bool = False,
              keep=None) -> list[Job]:
    """One job per spec and build of its kind (where keep(spec, build), if given), each
    program run from a fresh copy in workroot (copied: the builds are such copies already)."""
    if not copied:
        builds = fresh_copies(builds, workroot)
    jobs = []
    for spec in specs:
        for built in (b for b in builds if b.build == spec.build.name and (keep is None or keep(spec, b))):
            key = {"scenario": spec.scenario.name, "variant": spec.variant, "lang": spec.build.lang,
                   "build": spec.build.name, "toolchain": built.toolchain, "params": resolve_params(spec.params)}
            if ab:
                key["label"] = built.label
            workdir = workroot / f"{len(jobs):04d}"
            command, prepare = spec.commands(built.path_for(spec.scenario.name), workdir)
            jobs.append(Job(spec, built, key, key_id(key), command, prepare, workdir))
    return jobs


def groups(jobs: list[Job]) -> list[list[Job]]:
    """Jobs that differ only in label or toolchain, in first-seen order."""
    out: dict[tuple, list[Job]] = {}
    for j in jobs:
        k = (j.key["scenario"], j.key["variant"], j.key["build"], format_params(j.key["params"]))
        out.setdefault(k, []).append(j)
    return list(out.values())


def _checked(job: Job, inv: hyperfine.Invocation, run_name=lambda i: f"run {i}") -> list[dict] | None:
    """The records of an invocation's runs, each checked (a JSON record that matches the
    schema and names this benchmark); None, with the job failed, when any is not."""
    job.used_s += inv.elapsed_s
    if inv.escaped and not any("left" in w and "running" in w for w in job.warnings):
        job.warnings.append(f"warning: the program left {inv.escaped} process(es) running after it ended "
                            "(they were killed)")
    if inv.problem:
        job.fail(inv.problem)
        return None
    if any(c != 0 for c in inv.exit_codes):
        job.fail(f"non-zero exit codes {inv.exit_codes}: {inv.stderr_tail}")
        return None
    records = []
    for i, output in enumerate(inv.outputs, start=len(job.records) + 1):
        line = hyperfine.last_line(output)
        try:
            rec = json.loads(line)
        except ValueError:
            job.fail(f"{run_name(i)}: the last stdout line is not a JSON record: {line[:160]!r}")
            return None
        found = schema.problems(rec, "record")
        if found:
            job.fail(f"{run_name(i)}: the record does not match record.schema.json: {found[0]}")
            return None
        for f in ("scenario", "variant", "lang", "build"):
            if rec[f] != job.key[f]:
                job.fail(f"{run_name(i)}: the record says {f}={rec[f]!r}, expected {job.key[f]!r}")
                return None
        records.append(rec)
    return records


def _absorb(job: Job, inv: hyperfine.Invocation) -> None:
    records = _checked(job, inv)
    if records is None:
        return
    job.records += records
    job.times += inv.times
    job.memory += inv.memory


def _finish(job: Job) -> None:
    if job.status == "failed":
        return
    sums = sorted({r["checksum"] for r in job.records})
    if len(sums) > 1:
        job.fail(f"the checksum differs between runs: {', '.join(map(str, sums))}")
        return
    if not job.records or len(job.records) != len(job.times):
        job.fail(f"{len(job.times)} measured runs but {len(job.records)} records")
        return
    for i, (hf, rec) in enumerate(zip(job.memory, job.records), start=1):
        own = rec["peak_rss_bytes"]
        if hf and own - hf > max(MEM_TOLERANCE_REL * own, MEM_TOLERANCE_ABS):
            job.warnings.append(f"warning: run {i}: hyperfine measured a peak of {hf} bytes, "
                                f"the program reported {own} bytes")
            break
    for warning in (measures.rate_warning(job.records), measures.contention_warning(job.records)):
        if warning:
            job.warnings.append(warning)
    job.status = "ok"


@dataclass(frozen=True)
class Sequential:
    """Sample until sure, for interleaved groups (A/B sides, toolchains).

    The rounds come in looks (10, 20, 30 rounds, then 60 and 120 for a group cheap
    enough). After each look but the last, a group stops when every side's comparison
    with the first side is decided on every metric (benchpipe.metrics):
    flagged at the level a flag must reach in the report (alpha / (tests x spending
    looks): multitest, the Benjamini-Hochberg level of a lone change among `tests`
    tests), or its interval wholly inside the no-change band (1 / (1 + threshold),
    1 + threshold), or futile: not even the largest change still plausible (one-sided
    95 %) could be flagged by the last look this group can afford (stats.futile; a noisy
    benchmark stops rather than spend pairs that cannot decide it, and says what it
    could see). Otherwise it goes on to the next look, while each side's time limit
    allows.

    Which looks a group can afford: every look up to `free` (3 x runs), and a later one
    only while each side's time, projected at its pace so far, stays within `budget_s`
    (the preset's `sample_budget_s`; per side, so that two sides of a pull request and
    three of a calibration afford the same looks). A short, noisy benchmark (files,
    fanout, sqlite: 10-60 ms) thus takes the 60 or 120 pairs a 5 % change needs at its
    noise, for the seconds that 30 pairs of a long one cost; a long one (hashmap,
    sleep) stops at 30 as before. Alpha is split over the spending looks
    (multitest.spending_looks), whichever a group reaches, so a group's data-dependent
    stop never raises the false-alarm rate: a look too short to reach that level can
    stop a group for "no change", never flag it. The design is recorded in the results
    file (env.sequential) and `compare` corrects by it."""

    looks: tuple[int, ...]
    alpha: float
    threshold: float    # the thresholds a metric's `setting` names, as in compare.Settings
    memory_threshold: float = stats.DEFAULT_MEMORY_THRESHOLD
    tests: int = 1
    free: int = 0                  # looks up to here need no budget (0: all of them)
    budget_s: float | None = None  # seconds each side may take, for looks past `free`

    @property
    def spending(self) -> tuple[int, ...]:
        return multitest.spending_looks(self.looks, self.alpha, self.tests)

    @property
    def flag_level(self) -> float:
        """The p-value a lone flag must stay under at a spending look."""
        return multitest.lone_flag_level(self.alpha, self.tests, self.spending)

    def to_json(self) -> dict:
        out = {"looks": list(self.looks), "alpha": self.alpha, "threshold": self.threshold,
               "tests": self.tests, "spending_looks": list(self.spending), "futility_z": stats.PLAUSIBLE_Z}
        if self.free and self.free < self.looks[-1]:
            out["free_looks"] = self.free
            out["budget_s"] = self.budget_s or 0.0
        return out

    def reach(self, group: list[Job], done: int, timeout_s: float = math.inf) -> int:
        """The last look this group can afford after `done` rounds: every look up to
        `free`, a later one while every side's time at its pace so far stays within the
        budget; and none that would take a side past its time limit (extra rounds are a
        bonus and never make a benchmark time out)."""
        last = done
        for n in self.looks:
            if n > done and done:
                slowest = max(j.used_s for j in group) / done * n   # its time at look n, at its pace
                if slowest > timeout_s or (self.free and n > self.free and slowest > (self.budget_s or 0.0)):
                    break
            last = n
        return last

    def decided(self, group: list[Job], last: int | None = None) -> bool:
        """Whether more rounds would be wasted: every comparison flagged, inside the band
        or futile against `last`, the last look the group can afford (default: the
        design's last)."""
        last = last or self.looks[-1]
        first = group[0].to_json()
        for other in group[1:]:
            if any(j.status == "failed" for j in (group[0], other)):
                continue  # nothing more to learn from this pair
            second = other.to_json()
            for metric in metrics.METRICS.values():
                xs, ys = metric.samples(first), metric.samples(second)
                if not xs or len(xs) != len(ys):
                    continue
                t = metrics.threshold(metric, self)
                c = stats.compare_paired(xs, ys, alpha=self.alpha, threshold=t)
                band = (1 / (1 + t), 1 + t)
                inside = c.ci_low is not None and c.ci_high is not None and band[0] < c.ci_low and c.ci_high < band[1]
                flagged = (c.n_base in self.spending and c.p_value is not None and c.p_value < self.flag_level
                           and c.ratio is not None and not band[0] < c.ratio < band[1])
                if not (flagged or inside or self.futile(xs, ys, t, last)):
                    return False
        return True

    def futile(self, xs: list[float], ys: list[float], threshold: float, last: int | None = None) -> bool:
        """No change this comparison could still plausibly show would be flagged by the
        last look it can reach (stats.futile): more pairs would only cost time."""
        if not (all(x > 0 for x in xs) and all(y > 0 for y in ys)):
            return False
        return stats.futile([math.log(y / x) for x, y in zip(xs, ys)], last or self.looks[-1], self.flag_level,
                            threshold)


# Sampling until sure: rounds every `runs` up to FREE_ROUNDS x runs, then doubling up to
# MAX_ROUNDS x runs for the groups the preset's budget affords.
FREE_ROUNDS, MAX_ROUNDS = 3, 12


def sequential_design(runs: int, max_runs: int, alpha: float = stats.DEFAULT_ALPHA,
                      threshold: float = stats.DEFAULT_THRESHOLD, tests: int = 1,
                      budget_s: float = 0.0) -> Sequential | None:
    """With a budget: looks at runs, 2 * runs, 3 * runs, open to every group, then
    doubling (6 * runs, 12 * runs) up to max_runs for a group each of whose sides stays
    within budget_s seconds. Without one (0): looks every `runs` up to max_runs, open to
    every group. None: a fixed number of rounds (max_runs <= runs).
    tests: how many tests the report will make (comparisons x metrics)."""
    if max_runs <= runs:
        return None
    free = min(FREE_ROUNDS * runs, max_runs) if budget_s > 0 else max_runs
    looks = list(range(runs, free + 1, runs))
    if looks[-1] != free:
        looks.append(free)
    n = free
    while n < max_runs:
        n = min(2 * n, max_runs)
        looks.append(n)
    return Sequential(tuple(looks), alpha, threshold, tests=max(1, tests), free=free,
                      budget_s=budget_s if budget_s > 0 else None)


def default_max_runs(runs: int, budget_s: float) -> int:
    """--max-runs when not given: 12 x runs where the preset has a budget, else 3 x."""
    return (MAX_ROUNDS if budget_s > 0 else FREE_ROUNDS) * runs


# Repeats: at least MIN_REPEAT windows must fit in the target for a family to run warm
# (two would leave one warm window for the price of two: measured here, that barely
# beats one cold window); at most MAX_REPEAT (a 2 ms window: 50 windows, 0.1 s).
MIN_REPEAT, MAX_REPEAT = 3, 50


@dataclass
class RepeatPlan:
    """How many times each process runs the scenario (`--repeat K`), for a preset with
    `repeat_s` (the seconds the K windows should add up to).

    A group's warm-up run (one invocation per side, as before) gives its window w, the
    slowest side's; K = repeat_s / w, at most MAX_REPEAT, so that every side of a group
    runs the same K. The sample of each run is then the median of its K - 1 windows
    after the first (the programs' `repeat`): warm windows, without the process's
    start-up, and one window in a slow scheduling mode cannot move it.

    Like against like: a warm window is shorter than a cold one (a window of fresh
    threads, heap and files: measured here, files-rw Rust 29 -> 17 ms, cpu Go 34 -> 27
    ms), so every benchmark of one family (one scenario at the same parameters, whatever
    its language, build, variant or toolchain: what the Go-against-Rust figures set
    side by side) runs warm or every one cold. The family's first group decides: warm
    if at least MIN_REPEAT of its windows fit in repeat_s; the family's later groups
    then run K >= 2, however long their window."""

    target_s: float
    warm: dict[tuple, bool] = field(default_factory=dict)

    def fits(self, window_s: float) -> int:
        """How many windows of this length fit in the target (at most MAX_REPEAT)."""
        if not window_s > 0:
            return MAX_REPEAT
        return min(MAX_REPEAT, int(self.target_s / window_s))

    def choose(self, family: tuple, window_s: float) -> int:
        fits = self.fits(window_s)
        warm = self.warm.setdefault(family, fits >= MIN_REPEAT)
        return max(2, fits) if warm else 1

    def to_json(self) -> dict:
        return {"target_s": self.target_s, "min": MIN_REPEAT, "max": MAX_REPEAT}


def repeat_plan(repeat_s: float) -> RepeatPlan | None:
    return RepeatPlan(repeat_s) if repeat_s > 0 else None


def family(job: Job) -> tuple:
    """What a Go-against-Rust figure sets side by side: the scenario at the same params
    (a parameter only one language takes, such as Rust's hasher, left out)."""
    return job.key["scenario"], format_params(job.spec.scenario.shared_params(job.key["params"]))


def _probe(job: Job, hf_path: str, env: dict, timeout_s: float) -> float | None:
    """The benchmark's warm-up run, as an invocation of its own: its window (None when
    the run failed, and the job with it)."""
    inv = hyperfine.run(hf_path, job.argv, runs=1, warmup=0, workdir=job.workdir, env=env,
                        timeout_s=timeout_s - job.used_s, prepare=job.prepare, tag="warmup")
    records = _checked(job, inv, run_name=lambda _: "the warm-up run")
    return float(records[0]["elapsed_s"]) if records else None


def _plan_repeats(group: list[Job], plan: RepeatPlan, hf_path: str, env: dict, timeout_s: float) -> None:
    windows = [w for w in (_probe(j, hf_path, env, timeout_s) for j in group) if w is not None]
    if windows:
        k = plan.choose(family(group[0]), max(windows))
        for j in group:
            j.repeat = k


def run_group(group: list[Job], hf_path: str, preset: Preset, runs: int, timeout_s: float, env: dict,
              sequential: Sequential | None = None, repeats: RepeatPlan | None = None) -> None:
    for j in group:
        j.workdir.mkdir(parents=True, exist_ok=True)
    warmup = preset.warmup
    if repeats:
        _plan_repeats(group, repeats, hf_path, env, timeout_s)   # the first warm-up run
        warmup = max(0, warmup - 1)
    if len(group) == 1:
        job = group[0]
        if job.status != "failed":
            inv = hyperfine.run(hf_path, job.argv, runs=runs, warmup=warmup, workdir=job.workdir,
                                env=env, timeout_s=timeout_s - job.used_s, prepare=job.prepare)
            _absorb(job, inv)
    else:
        rounds = sequential.looks[-1] if sequential else runs
        for r in range(rounds):
            if sequential and r in sequential.looks:
                last = sequential.reach(group, r, timeout_s)
                if last <= r or sequential.decided(group, last):
                    break
            order = group if r % 2 == 0 else list(reversed(group))
            for job in order:
                if job.status == "failed":
                    continue
                left = timeout_s - job.used_s
                if left <= 0:
                    job.fail(f"timed out: {timeout_s:g} s (the limit per benchmark: --timeout, else the preset's) "
                             f"used up after {r} of {rounds} rounds")
                    continue
                inv = hyperfine.run(hf_path, job.argv, runs=1, warmup=warmup if r == 0 else 0,
                                    workdir=job.workdir, env=env, timeout_s=left, prepare=job.prepare, tag=f"hf{r}")
                _absorb(job, inv)
    for j in group:
        _finish(j)


def clean(group: list[Job]) -> None:
    """A group's work folders removed once everything is measured (setup data can be large)."""
    for j in group:
        shutil.rmtree(j.workdir, ignore_errors=True)


def cross_check(jobs: list[Job]) -> None:
    """Same scenario + key params (+ label) -> same checksum across languages, builds,
    variants and toolchains (majority rule, see the module doc)."""
    by: dict[tuple, list[Job]] = defaultdict(list)
    for j in jobs:
        if j.status == "ok":
            by[(j.key.get("label"), j.key["scenario"], format_params(j.key["params"]))].append(j)
    for members in by.values():
        sums = Counter(j.records[0]["checksum"] for j in members)
        if len(sums) < 2:
            continue
        (top, n), = sums.most_common(1)
        majority = top if n * 2 > len(members) else None
        for j in members:
            mine = j.records[0]["checksum"]
            if majority is not None and mine == majority:
                continue
            others = sorted({(o.key["build"], o.key["variant"], o.records[0]["checksum"]) for o in members
                             if o.records[0]["checksum"] != mine})
            b, v, c = others[0]
            j.status, j.warnings = "failed", []
            j.reason = (f"checksum mismatch: {j.key['build']} {j.key['variant']} gives {mine}, "
                        f"{b} {v} gives {c} for the same scenario and params"
                        + ("" if majority is not None else " (no majority: either side may be wrong)"))


def parity_check(jobs: list[Job]) -> None:
    """Every Rust benchmark against the Go one it is paired with (catalogue `pairs`, the
    same shared params and label): the runtime facts the scenario declares in `parity`
    (SQLite version and compile options, threading mode, server and driver settings)
    must be the same, else both are marked (a warning in their reason: the summary, the
    site and compare show no plain ratio for the pair). Issue 39: on a fresh machine Go
    linked SQLite 3.54.1 against Rust's 3.46.0 and the ratios said nothing of it."""
    def facts(j: Job) -> dict:
        rt = (j.records[0].get("runtime") or {}) if j.records else {}
        return {f: rt.get(f) for f in j.spec.scenario.parity}

    gos = [j for j in jobs if j.status == "ok" and j.key["lang"] == "go" and j.spec.scenario.parity]
    for r in (j for j in jobs if j.status == "ok" and j.key["lang"] == "rust" and j.spec.scenario.parity):
        sc = r.spec.scenario
        shared = sc.shared_params(r.key["params"])
        for g in gos:
            if (g.key["scenario"], g.key["variant"], g.key.get("label"), g.key["params"]) != \
                    (sc.name, sc.go_counterpart(r.key["variant"]), r.key.get("label"), shared):
                continue
            theirs, mine = facts(g), facts(r)
            differ = [f for f in sc.parity if theirs[f] != mine[f]]
            if not differ:
                continue
            what = " and ".join(f"{f}: go {_short(theirs[f])}, rust {_short(mine[f])}" for f in differ)
            for j, other in ((r, g), (g, r)):
                w = f"{measures.PARITY_BROKEN}: {j.key['lang']} against {other.key['build']} {other.key['variant']}: {what}"
                if w not in j.warnings:
                    j.warnings.append(w[:480])


def _short(value) -> str:
    if isinstance(value, list):
        return f"{len(value)} options"
    return str(value)[:60]


def skip(job: Job, reason: str) -> None:
    job.status, job.reason = "skipped", reason


def document(env: dict, jobs: list[Job]) -> dict:
    return {"schema": RESULTS_SCHEMA, "env": env, "benchmarks": [j.to_json() for j in jobs]}


def new_workroot() -> Path:
    return Path(tempfile.mkdtemp(prefix="bench-run-"))
