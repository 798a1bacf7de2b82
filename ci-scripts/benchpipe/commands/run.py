"""`bench run --preset P [filters] [--go ..] [--rust ..] [--ab-base DIR] [--out DIR]`:
build (or take --manifest), run every selected benchmark through hyperfine with
progress, check it, and write DIR/results.json, DIR/benchmark-action/<set>.json (one
file per github-action-benchmark set: OS, language, channel) and DIR/summary.md. Exit 0 when nothing failed, 1 with "N of M benchmarks failed"."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

from benchpipe import (
    ROOT,
    catalogue,
    envinfo,
    fsutil,
    hyperfine,
    instructions,
    measures,
    metrics,
    results,
    runner,
    scaling,
    services,
    terminal,
    toolchains,
    tools,
)
from benchpipe.commands.catalogue import add_filter_arguments, select
from benchpipe.errors import BenchError, UsageError
from benchpipe.export import benchmark_action as action
from benchpipe.progress import Reporter
from benchpipe.report import summary

NAME = "run"
HELP = "run the benchmarks of a preset through hyperfine; writes results.json, benchmark-action/, summary.md"


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """What `bench run` does, typed: the command line maps onto it one to one, and
    `bench pipeline` builds one directly."""
    preset: str
    scenario: list[str] | None = None  # the filters of add_filter_arguments
    variant: list[str] | None = None
    lang: list[str] | None = None
    build: list[str] | None = None
    go: str = "local"
    rust: str = "local"
    ab_base: str | None = None
    source: str = str(ROOT)
    build_dir: str = str(ROOT / ".bench" / "build")
    manifest: str | None = None
    runs: int | None = None
    timeout: float | None = None
    max_runs: int | None = None
    out: str | None = None
    no_summary: bool = False
    scale: float = 1.0
    repeat_s: float | None = None
    versions: bool = True   # the preset's compiler versions beside the asked ones (--no-versions)
    instructions: int | None = None  # runs of the instruction pass (default: the preset's; 0: none)

    @classmethod
    def from_args(cls, args) -> RunOptions:
        return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls)})


def add_arguments(p):
    p.add_argument("--preset", required=True, help="smoke, quick, standard or full")
    add_filter_arguments(p)
    p.add_argument("--go", default=RunOptions.go, help="Go toolchains, comma-separated (default: local = the go on PATH)")
    p.add_argument("--rust", default=RunOptions.rust, help="Rust toolchains: stable, beta, nightly, 1.90.0, local (default)")
    p.add_argument("--ab-base", metavar="DIR", help="a checkout of the base commit: run base and head interleaved")
    p.add_argument("--source", default=RunOptions.source, help="the head checkout (default: this one)")
    p.add_argument("--build-dir", default=RunOptions.build_dir, help="where builds go (default: .bench/build)")
    p.add_argument("--manifest", help="use the programs of this build manifest instead of building")
    p.add_argument("--runs", type=int, help="measured runs per benchmark (default: the preset's)")
    p.add_argument("--timeout", type=float, help="wall-clock limit per benchmark in seconds (default: the preset's)")
    p.add_argument("--max-runs", type=int, metavar="N",
                   help="interleaved sides (--ab-base, several toolchains): sample until sure, adding rounds "
                        "while a comparison is undecided: looks every --runs up to 3 x --runs, then doubling up to N "
                        "for a group whose time stays within the preset's sample_budget_s (default: 12 x --runs "
                        "where the preset has a budget, else 3 x; = --runs: fixed)")
    p.add_argument("--out", help="output folder (default: results/<UTC timestamp>/)")
    p.add_argument("--no-summary", action="store_true", help="do not print the summary table at the end")
    p.add_argument("--instructions", type=int, metavar="N",
                   help="count the window's instructions under Valgrind N times per benchmark, sides interleaved "
                        "(Linux; default: the preset's instruction_runs where valgrind is installed; 0: not)")
    p.add_argument("--scale", type=float, default=RunOptions.scale, metavar="F",
                   help="multiply every scenario's scale parameter (catalogue `scale`: the one its timed window grows "
                        "with) by F (e.g. 1.05: a known 5%% heavier "
                        "workload, to check what `compare` detects against an unscaled run)")
    add_repeat_argument(p)
    p.add_argument("--no-versions", dest="versions", action="store_false",
                   help="only the toolchains asked for: not the older compiler the preset also runs some scenarios "
                        "on (catalogue: presets.<preset>.versions; never with --ab-base)")


def add_repeat_argument(p) -> None:
    p.add_argument("--repeat-s", type=float, metavar="S",
                   help="a benchmark whose timed window is short runs the scenario K times in each process, the K "
                        "windows adding up to about S seconds, and its sample is the median window after the first "
                        "(default: the preset's repeat_s; 0: one window per process)")


def repeat_s(given: float | None, preset) -> float:
    """--repeat-s, checked, else the preset's."""
    if given is None:
        return preset.repeat_s
    if not 0 <= given <= 10:
        raise UsageError(f"--repeat-s must be seconds from 0 to 10, not {given:g}")
    return given


def check_out_dir(out: Path) -> bool:
    """Fail before anything runs when the output folder cannot be written; create it
    (that is all that is written before the end of the run). True if we created it."""
    if out.exists() and not out.is_dir():
        raise BenchError(f"--out {out}: exists and is not a directory")
    created = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".bench-write-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise BenchError(f"--out {out}: not writable ({err.strerror or err})") from None
    return created


def extra_versions(opts: RunOptions, preset, specs) -> dict[str, list[str]]:
    """The preset's compiler versions (lang -> toolchain requests) beside the ones asked
    for: none with --ab-base (a pull request asks base against head), --manifest (the
    programs are given) or --no-versions, nor when no selected benchmark is of a
    scenario they run."""
    if opts.ab_base or opts.manifest or not opts.versions:
        return {}
    langs = {s.build.lang for s in specs if s.scenario.name in preset.versions_scenarios}
    asked = {"go": toolchains.parse_list(opts.go, "go"), "rust": toolchains.parse_list(opts.rust, "rust")}
    return {lang: [t for t in preset.versions.get(lang, ()) if t not in asked[lang]] for lang in sorted(langs)
            if any(t not in asked[lang] for t in preset.versions.get(lang, ()))}


def runs_on(extra: dict[str, list[str]], versions_scenarios):
    """Which (spec, build) pairs make a job (runner.make_jobs' keep): an extra version
    runs only the preset's versions scenarios (its programs are built for those alone)."""
    return lambda spec, b: b.request not in extra.get(b.lang, ()) or spec.scenario.name in versions_scenarios


def _builds(opts: RunOptions, specs, cat, extra: dict[str, list[str]],
            versions_scenarios) -> tuple[list[toolchains.Built], bool]:
    if opts.manifest:
        built = toolchains.read_manifest(Path(opts.manifest))
        labels = {b.label for b in built}
        return built, len(labels) > 1
    langs = {s.build.lang for s in specs}
    go = toolchains.parse_list(opts.go, "go") if "go" in langs else []
    rust = toolchains.parse_list(opts.rust, "rust") if "rust" in langs else []
    out = Path(opts.build_dir)
    scenarios = {s.scenario.name for s in specs}   # the SQL programs only when a SQL scenario runs
    built = toolchains.build_all(cat, Path(opts.source), out, go, rust, "head", scenarios=scenarios)
    if extra:   # the extra versions run only the preset's versions scenarios: their programs alone
        built = built + toolchains.build_all(cat, Path(opts.source), out, extra.get("go", []), extra.get("rust", []),
                                             "head", scenarios=scenarios & set(versions_scenarios))
    if opts.ab_base:
        built = toolchains.build_all(cat, Path(opts.ab_base), out, go, rust, "base", scenarios=scenarios) + built
    toolchains.write_manifest(out, built)
    return _without_same_versions(built, extra), bool(opts.ab_base)


def _without_same_versions(built: list[toolchains.Built], extra: dict[str, list[str]]) -> list[toolchains.Built]:
    """An extra version that is the same toolchain as one asked for (oldstable where the
    local Go is that release) adds nothing: left out, saying so."""
    asked = {(b.build, b.toolchain) for b in built if b.request not in extra.get(b.lang, ())}
    keep = []
    for b in built:
        if b.request in extra.get(b.lang, ()) and (b.build, b.toolchain) in asked:
            print(f"bench run: {b.lang} {b.request} is {b.toolchain}, as asked already: one version of it",
                  file=sys.stderr)
            continue
        keep.append(b)
    return keep


def _check_sides(built: list[toolchains.Built]) -> None:
    seen = {}
    for b in built:
        k = (b.build, b.toolchain, b.label)
        if k in seen:
            raise UsageError(f"toolchains {seen[k]} and {b.request} are the same ({b.toolchain}); give only one")
        seen[k] = b.request


def run(args) -> int:
    return run_benchmarks(RunOptions.from_args(args))


MAX_TIMEOUT_S = 7 * 86400


def run_benchmarks(opts: RunOptions) -> int:
    """Build, run and write the results folder; 0 when nothing failed, 1 otherwise.
    Bad options raise UsageError before anything is built."""
    cat = catalogue.load()
    preset = cat.preset(opts.preset)
    specs = select(cat, opts.preset, opts)
    if not specs:
        raise UsageError("the filters select no benchmark")
    if not (0 < opts.scale <= 1000):
        raise UsageError(f"--scale must be a number above 0 (and at most 1000), not {opts.scale:g}")
    if opts.scale != 1:
        specs = scaling.scale_specs(specs, opts.scale)
    # Validate toolchain names before building anything.
    toolchains.parse_list(opts.go, "go")
    toolchains.parse_list(opts.rust, "rust")
    if opts.runs is not None and opts.runs < 1:
        raise UsageError("--runs must be >= 1")
    if opts.instructions is not None and not 0 <= opts.instructions <= 100:
        raise UsageError(f"--instructions must be a number of runs from 0 to 100, not {opts.instructions}")
    if opts.timeout is not None and not (0 < opts.timeout <= MAX_TIMEOUT_S):
        raise UsageError(f"--timeout must be seconds above 0 and at most {MAX_TIMEOUT_S} (a week), not {opts.timeout:g}")
    if opts.max_runs is not None and opts.max_runs < (opts.runs or preset.runs):
        raise UsageError("--max-runs must be at least --runs (the preset's runs when not given)")
    opts = dataclasses.replace(opts, repeat_s=repeat_s(opts.repeat_s, preset))
    if opts.ab_base and not Path(opts.ab_base).is_dir():
        raise UsageError(f"--ab-base {opts.ab_base}: no such directory")
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = Path(opts.out) if opts.out else ROOT / "results" / stamp
    created = check_out_dir(out)
    try:
        return _run(opts, cat, preset, specs, out)
    except BaseException:
        if created:  # a run that stopped early leaves no empty results folder behind
            try:
                out.rmdir()
            except OSError:
                pass
        raise


def _run(opts: RunOptions, cat, preset, specs, out: Path) -> int:
    hf_path = tools.require("hyperfine")
    hf_version = hyperfine.version(hf_path)

    extra = extra_versions(opts, preset, specs)
    if extra:
        print("bench run: compiler versions: " + ", ".join(f"{lang} {', '.join(ts)}" for lang, ts in extra.items())
              + f" beside the asked ones for {', '.join(preset.versions_scenarios)} (the preset's versions; "
              "--no-versions: without)", file=sys.stderr)
    built, ab = _builds(opts, specs, cat, extra, preset.versions_scenarios)
    _check_sides(built)
    runs = opts.runs or preset.runs
    timeout_s = opts.timeout or preset.timeout_s
    counted = instructions.settings()
    ins_runs = preset.instruction_runs if opts.instructions is None else opts.instructions
    if ins_runs and not counted["measured"]:
        if opts.instructions:   # asked for by name: say why not, and stop before building
            raise UsageError(f"--instructions: {counted['why']}")
        ins_runs = 0
    counted["runs"] = ins_runs
    if ins_runs:
        counted["second_look"] = {"gate": instructions.TOP_UP_GATE, "decisive": instructions.TOP_UP_DECISIVE}
        print(f"bench run: instructions counted {ins_runs} times per benchmark under {counted['valgrind']} "
              f"(the timed window only; {ins_runs} more a side where two sides' first counts differ suggestively; "
              "--instructions 0: not)", file=sys.stderr)

    workroot = runner.new_workroot()
    started = time.monotonic()
    try:
        jobs = runner.make_jobs(specs, built, workroot, ab, keep=runs_on(extra, preset.versions_scenarios))
        if not jobs:
            raise UsageError("no program was built for the selected benchmarks")
        missing = sorted({s.build.name for s in specs} - {b.build for b in built})
        if missing:
            print(f"bench run: no program for build {', '.join(missing)} in the manifest; "
                  "its benchmarks are not run", file=sys.stderr)
        # CI cancelling the job (SIGTERM) unwinds like Ctrl-C: hyperfine's process
        # group is killed and the throwaway servers stopped on the way out.
        # The report will test every metric this run measures (instructions only with the
        # pass) of every side against its group's first.
        judged = sum(m.name != "instructions" or ins_runs > 0 for m in metrics.METRICS.values())
        tests = sum(len(g) - 1 for g in runner.groups(jobs)) * judged
        seq = runner.sequential_design(runs, opts.max_runs or runner.default_max_runs(runs, preset.sample_budget_s),
                                       tests=tests, budget_s=preset.sample_budget_s)
        interleaved = tests > 0
        repeats = runner.repeat_plan(opts.repeat_s)
        with services.sigterm_as_interrupt():
            code, counting_s = _run_jobs(jobs, preset, runs, timeout_s, hf_path, seq, repeats, ins_runs, opts.scale)
    finally:
        shutil.rmtree(workroot, ignore_errors=True)
    # the instruction pass is measurement of its own, not the harness's overhead
    wall = time.monotonic() - started - counting_s
    measured = sum(sum(j.times) for j in jobs)
    # Warm-up runs are not in hyperfine's export; estimate each at its benchmark's median.
    warm = sum(preset.warmup * sorted(j.times)[len(j.times) // 2] for j in jobs if j.times)

    labels = {b.label: b.commit for b in built} if ab else None
    tcs = {b.toolchain: b.version for b in built}
    env = envinfo.collect(preset=opts.preset, source=Path(opts.source), toolchains=tcs,
                          hyperfine_version=hf_version, labels=labels)
    if opts.scale != 1:
        env["scale"] = opts.scale
    if seq and interleaved:
        env["sequential"] = seq.to_json()
    if repeats:
        env["repeat"] = repeats.to_json()
    env["instructions"] = counted
    doc = runner.document(env, jobs)
    results.write(out / "results.json", doc)
    action.write_sets(out / "benchmark-action", [doc])
    md = summary.markdown_text(doc)
    fsutil.atomic_write_text(out / "summary.md", md)
    # The job summary has one writer, the workflow's Summary step (`bench summary
    # --markdown "$GITHUB_STEP_SUMMARY"`): writing it here too showed the table twice.
    if not opts.no_summary:
        summary.print_terminal(doc, terminal.wide_console(), details=str(out / "summary.md"))
    failed = sum(j.status == "failed" for j in jobs)
    skipped = sum(j.status == "skipped" for j in jobs)
    print(f"results: {(out / 'results.json').resolve()}")
    # Harness overhead: everything that is not a measured run (warm-ups, setup, process
    # starts, hyperfine itself, checks) shows up in this ratio.
    if measured:
        print(f"bench run: {wall:.1f} s of running for {measured:.1f} s of measured runs: ratio {wall / measured:.2f}, "
              f"{wall / (measured + warm):.2f} with the ~{warm:.1f} s of warm-ups counted as runs"
              + (f"; and {counting_s:.1f} s counting instructions" if counting_s else ""), file=sys.stderr)
    if failed:
        print(f"bench run: {failed} of {len(jobs)} benchmarks failed"
              + (f", {skipped} skipped" if skipped else ""), file=sys.stderr)
        return 1
    print(f"bench run: {len(jobs)} benchmarks, {len(jobs) - skipped} ok" + (f", {skipped} skipped" if skipped else ""),
          file=sys.stderr)
    return code


def _run_jobs(jobs, preset, runs, timeout_s, hf_path, seq=None, repeats=None, ins_runs: int = 0,
              scale: float = 1.0) -> tuple[int, float]:
    """The exit code, and the seconds the instruction pass took."""
    counting_s = 0.0
    env = {**os.environ, "PATH": tools.path_with_extras()}
    groups = runner.groups(jobs)
    counted_before: dict = {}   # each distinct pass command counted once (instructions.pass_key)
    with Reporter(len(jobs)) as rep:
        with services.running(service_names_of(j.spec for j in jobs), note=rep.note) as got:
            env.update(got.env())
            for group in groups:
                names = ", ".join(j.name for j in group)
                why_not = got.why_not(group[0].spec.scenario.service)
                if why_not:
                    for j in group:
                        runner.skip(j, why_not)
                        rep.end(j.name, "skipped", j.reason)
                    continue
                rep.begin(names)
                runner.run_group(group, hf_path, preset, runs, timeout_s, env, seq, repeats)
                if ins_runs:
                    rep.begin(f"instructions: {names}")
                    t0 = time.monotonic()
                    instructions.measure_group(group, ins_runs, hf_path, env, timeout_s, scale, counted=counted_before)
                    counting_s += time.monotonic() - t0
                runner.clean(group)
                for j in group:
                    rep.end(j.name, j.status, j.reason if j.status != "ok" else _detail(j))
        runner.cross_check(jobs)
        runner.parity_check(jobs)
        for j in jobs:
            if j.status == "failed" and j.reason.startswith("checksum mismatch"):
                rep.note(f"failed  {j.name}: {j.reason}")
            elif j.status == "ok" and j.key["lang"] == "rust" and any(measures.PARITY_BROKEN in w for w in j.warnings):
                rep.note(f"parity  {j.name}: " + next(w for w in j.warnings if measures.PARITY_BROKEN in w))
    return 0, counting_s


def service_names_of(specs) -> list[str]:
    """The servers the benchmarks' scenarios need (catalogue `service`), in order."""
    return list(dict.fromkeys(s.scenario.service for s in specs if s.scenario.service))


def _detail(job: runner.Job) -> str:
    """A finished benchmark's progress line: its median and how many runs it took."""
    if not job.times:
        return ""
    detail = f"median {statistics.median(job.times):.4g} s of {len(job.times)} runs"
    if job.repeat > 1:
        window = statistics.median(r["elapsed_s"] for r in job.records)
        detail += f" of {job.repeat} windows each (median window {window:.3g} s)"
    if job.instructions and job.instructions["counts"]:
        c = job.instructions["cv"]
        detail += (f"; {statistics.median(job.instructions['counts']):,.0f} instructions"
                   + (f" (CV {c * 100:.2f} %)" if c is not None else "")
                   + (f", the counts of {job.instructions['same_as']}" if job.instructions.get("same_as") else ""))
    return detail
