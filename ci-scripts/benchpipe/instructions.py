"""Instruction counts: the deterministic second signal beside the wall clock.

On a shared 2-vCPU runner the window of a benchmark that mostly waits and wakes
scatters 10-30 % between runs, so a 2-5 % change cannot be seen in time. The number
of instructions the window executes, counted by Valgrind, scatters 0.01-1.5 % for the
same benchmarks (issue 38's measurements), whatever the neighbours do.

How: after a group's timed rounds, each benchmark runs `runs` more times under
`valgrind --tool=callgrind --instr-atstart=no`, sides interleaved round by round like
the timed runs (so a pair is base run i beside head run i); a command counted already in
the run, or one program both sides run (a program the pull request did not change), is
counted once and its counts shared (measure_group, `same_as`). The programs switch
Callgrind's instrumentation on when their window opens and off when it closes (client
requests: go/valgrind.go, rust/src/valgrind.rs), so start-up, setup, connecting and the
record are not counted; the `totals:` line of Callgrind's output is the window's count.
The instruction pass runs at the scenario's own small sizes (catalogue
`[scenarios.X.instructions] params`): counts are deterministic, so small sizes serve.
Benchmarks whose counts calibrate found not deterministic (catalogue `unsteady`) are not
counted by `bench run` at all: no report could judge them.

What it cannot see: Valgrind runs one thread at a time, so waiting, spinning,
contention between threads, the kernel and I/O are invisible to it. It is a second
signal, never a replacement: a change the wall clock sees and the instructions do not
is a change in waiting, scheduling or the kernel.

The programs' shared libraries are loaded from copies without their debug links, so that
Valgrind does not read the C library's debug symbols at every start (valgrind_libs).

Linux only (Valgrind's home; macOS and Windows say "not measured on this OS")."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from benchpipe import hyperfine, scaling, stats, valgrind_libs

TOOL = "callgrind"
# --fair-sched=yes: threads take turns in a fixed order rather than whoever grabs
# Valgrind's lock, which keeps multi-threaded counts from drifting with the host's timing.
OPTIONS = ("--tool=callgrind", "--instr-atstart=no", "--fair-sched=yes")
# A benchmark's instructions are deterministic when its counts scatter at most this (robust
# CV and scatter; issue 38's line): calibrate decides it over all of a family's counts.
DETERMINISTIC_CV = 0.005
# A report decides from its own few counts a side, and the robust CV of 5-7 counts misses
# the family's widely (10th-90th percentile of Gaussian draws: 0.38-1.45 x it at 7 counts,
# 0.27-1.48 x at 5): a family at 0.45 % reads at most 0.5 % on one side in 64-66 % of draws,
# at most 1 % in 99.1 % (5 counts) to 99.5 % (7). So a report gives a verdict
# where its own counts scatter at most REPORT_CV, and says "instructions not deterministic"
# above it: nearly every pair of a deterministic family has its verdict. (The gate keeps
# the pairs whose scatter reads small, which makes the t test liberal among them where the
# gate often bites, a family near REPORT_CV itself; far below it, as for the deterministic
# families, it keeps nearly all. Calibrate counts A/A flags in the families between the two
# lines apart: aa_not_deterministic.)
REPORT_CV = 0.01
# The pass's second look (a sequential top-up): where a group has two sides (a pull
# request's base and head, two toolchains) whose counts, after the first `runs` a side,
# differ with TOP_UP_DECISIVE < p < TOP_UP_GATE (Welch, stats.compare_counts), each side
# is counted `runs` times more (recorded as the benchmark's instructions.looks). Counts
# that scatter 0.2-0.5 % cannot reach a lone test's p (0.01 / 352 on the quick preset) in
# 5 or 7 runs a side; at 0.2-0.35 % they reach it in 10 (quick), at 0.5 % only in 14
# (standard). What the two looks cost the test (two_look_p): the
# p-value of the counts kept plus TOP_UP_DECISIVE, not doubled. (What the second look
# buys and costs, measured by calibrate: the README's "The second signal".)
TOP_UP_GATE = 0.05
TOP_UP_DECISIVE = 1e-6
TOP_UP_LOOKS = 2
# Go's asynchronous preemption signals trip Callgrind 3.19's assertion
# (threads.c:247 'sigNum == ...sig'): 4 of 5 fanout runs died without this, 0 of ~40 with it.
LANG_ENV = {"go": {"GODEBUG": "asyncpreemptoff=1"}}

WHAT_IT_SEES = ("instructions: the instructions the timed window executes, counted by Valgrind (Callgrind); "
                "deterministic, so a 1 % change shows in a few pairs whatever the neighbours do; blind to waiting, "
                "scheduling, contention between threads, the kernel and I/O")
# Where one signal moved and the other did not: what that says (the pull-request
# comment's disagreement lines and the Compiler versions page).
WALL_ONLY = "the change is in waiting, scheduling, contention or the kernel, which Valgrind does not see"
COUNT_ONLY = "the wall clock's noise hides it, or the work waits elsewhere"


def disagreement(wall: tuple[str, str], count: tuple[str, str], wall_moved: bool) -> str:
    """One sentence where one signal moved and the other did not, from each signal's
    (label, change as text): the moved one first, then what that says."""
    moved, still = (wall, count) if wall_moved else (count, wall)
    return f"{moved[0]} {moved[1]} but {still[0]} {still[1]}: {WALL_ONLY if wall_moved else COUNT_ONLY}"


WALL_SEES = ("time: the wall clock of the timed window; sees everything, waiting and the kernel included, "
             "and on a shared runner scatters by several percent (10-30 % where the window mostly waits)")


def unavailable() -> str | None:
    """Why instructions cannot be counted here (None: they can)."""
    if not sys.platform.startswith("linux"):
        return "not measured on this OS (Valgrind runs on Linux)"
    if not shutil.which("valgrind"):
        return "valgrind is not installed (ci-scripts/bench doctor --install, or apt-get install valgrind)"
    return None


def version() -> str:
    try:
        out = subprocess.run(["valgrind", "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()


def settings() -> dict:
    """What the results file's env records about the instruction pass."""
    why = unavailable()
    if why:
        return {"measured": False, "why": why}
    return {"measured": True, "tool": TOOL, "valgrind": version(), "options": list(OPTIONS),
            "libraries": valgrind_libs.description()}


def command(argv: list[str], out_dir: Path) -> list[str]:
    """The program's command under Callgrind, its output files in out_dir."""
    return ["valgrind", *OPTIONS, f"--callgrind-out-file={out_dir / 'callgrind.out.%p'}",
            f"--log-file={out_dir / 'valgrind.%p.log'}", *argv]


_TOTALS = re.compile(r"^(?:totals|summary):\s+(\d+)", re.M)


def parse_totals(text: str) -> int:
    """The instruction count (event Ir) of a Callgrind output file; ValueError when it
    has none."""
    if not re.search(r"^events:\s+Ir\b", text, re.M):
        raise ValueError("not a Callgrind output with instruction counts (no 'events: Ir' line)")
    found = _TOTALS.findall(text)
    if not found:
        raise ValueError("no 'totals:' or 'summary:' line")
    return int(found[-1])


def read_count(out_dir: Path) -> int:
    """The count of the one Callgrind run whose files are in out_dir."""
    outs = sorted(out_dir.glob("callgrind.out.*"))
    if len(outs) != 1:
        logs = sorted(out_dir.glob("valgrind.*.log"))
        tail = hyperfine.tail(logs[-1].read_text(errors="replace")) if logs else ""
        raise ValueError(f"expected one Callgrind output, found {len(outs)}" + (f": {tail}" if tail else ""))
    return parse_totals(outs[0].read_text(errors="replace"))


def cv(counts: list[int]) -> float | None:
    """The robust coefficient of variation of one side's counts: 1.4826 x MAD / median,
    the standard deviation's estimate that one odd run (a GC cycle) does not inflate, as
    the count test sets such runs aside (stats.usual_counts) (None: fewer than 2)."""
    if len(counts) < 2 or not all(c > 0 for c in counts):
        return None
    return stats.robust_sd(counts) / statistics.median(counts)


def scatter(counts: list[int]) -> float | None:
    """The scatter the count test sees (stats.compare_counts): the standard deviation of
    one side's usual counts (odd runs set aside, stats.usual_counts) over their median
    (None: fewer than 2). Beside the robust CV, which counts in modes hide: Go fanout
    batched, counted 28 times here, had a robust CV of 0.015 % and its counts in modes
    1.5 % apart, on which a 1 % change was flagged in 33 of 50 drawn reports."""
    if len(counts) < 2 or not all(c > 0 for c in counts):
        return None
    usual = stats.usual_counts(counts)
    return float(statistics.stdev(usual) / statistics.median(usual)) if len(usual) > 1 else 0.0


def _steady(entry: dict | None, limit: float) -> bool:
    if not entry or entry.get("unsteady") or len(entry.get("counts", ())) < 2:
        return False
    c, s = entry.get("cv"), scatter(entry["counts"])
    return c is not None and math.isfinite(c) and c <= limit and s is not None and s <= limit


def judged(entry: dict | None) -> bool:
    """Whether a benchmark's instruction counts take part in a report's comparisons:
    measured, not declared unsteady by the catalogue, and steady in this run (robust CV
    and scatter at most REPORT_CV)."""
    return _steady(entry, REPORT_CV)


def deterministic(entry: dict | None) -> bool:
    """Whether a family's counts, all of them (calibrate), are deterministic: robust CV and
    scatter at most DETERMINISTIC_CV, and not declared unsteady."""
    return _steady(entry, DETERMINISTIC_CV)


def not_judged_why(entry: dict | None, limit: float = REPORT_CV) -> str:
    """One line on why a measured benchmark's instructions have no verdict in a report
    (limit DETERMINISTIC_CV: why a family's counts are not deterministic); '' when they
    have."""
    if entry and entry.get("unsteady") and not entry.get("counts"):
        return f"instructions not counted: not deterministic ({entry['unsteady']})"
    if not entry or _steady(entry, limit) or not entry.get("counts"):
        return ""
    s = scatter(entry["counts"])
    spread = (f"CV {entry['cv'] * 100:.2f} %" if entry.get("cv") is not None else "one run") + (
        f", scatter {s * 100:.2f} %" if s is not None and s > limit else "")
    cause = entry.get("unsteady") or f"above {limit * 100:g} % " + ("in this run" if limit == REPORT_CV else "over its counts")
    return f"instructions not deterministic ({spread}: {cause})"


SECOND_LOOK_FAILED = "warning: the instructions' second look failed"


def pass_commands(job, params: dict) -> tuple[list[str], list[str] | None]:
    """The job's command and setup with the instruction pass's sizes (the scenario's
    `instructions.params` over the job's own)."""
    spec = dataclasses.replace(job.spec, params={**job.spec.params, **params})
    return spec.commands(job.command[0], job.workdir)


def pass_params(scenario, scale: float = 1.0) -> dict:
    """The sizes of the scenario's instruction pass; `run --scale F` scales them as it
    scales the timed runs' (where the pass sets the scale parameter itself)."""
    params = dict(scenario.instructions.params)
    if scale != 1 and scenario.scale in params:
        params = scaling.scale_params(scenario, params, scale)
    return params


def top_up_wanted(a: dict, b: dict) -> bool:
    """Whether two sides' counts after the first look get a second (TOP_UP_GATE): both
    judged, and their difference neither out of sight nor already decisive."""
    if not (judged(a) and judged(b)):
        return False
    p = stats.compare_counts(a["counts"], b["counts"]).p_value
    return p is not None and TOP_UP_DECISIVE < p < TOP_UP_GATE


def counted_as(spec, params: dict) -> tuple:
    """What the pass runs of a benchmark: its scenario, variant and the sizes it is
    counted at (its keyed params under the pass's `params`; the others are paths into the
    benchmark's own folder). Benchmarks apart only in a size the pass sets (sleep at 1000
    and 10,000 tasks, both counted at 1000) run the same command under Valgrind."""
    sizes = {k: v for k, v in {**spec.params, **params}.items()
             if k not in spec.scenario.params or spec.scenario.params[k].key}
    return spec.scenario.name, spec.variant, tuple(sorted((k, str(v)) for k, v in sizes.items()))


def pass_key(job, params: dict) -> tuple:
    """counted_as, for one side's program: its executable and language (which sets the
    pass's environment). Not the side's label: byte-identical programs of two sides run
    from one copy (runner.fresh_copies), so a program a pull request did not change (or
    both sides of an A/A) has one key, and its counts are taken once for both sides."""
    return (job.built.path_for(job.spec.scenario.name), job.key["lang"], *counted_as(job.spec, params))


def measure_group(group: list, runs: int, hf_path: str, env: dict, timeout_s: float, scale: float = 1.0,
                  top_up: bool = True, counted: dict | None = None, unsteady_too: bool = False) -> None:
    """Count the window's instructions of every ok job of a group `runs` times, sides
    interleaved (ABBA), and keep them on each job (job.instructions); two sides whose
    counts want a second look (top_up_wanted) are counted `runs` times more, unless not
    top_up (calibrate, which counts a fixed number and simulates the looks). A failure
    is the job's warning, never its failure: the timed runs stand.

    counted (`bench run`: one dict for the whole run): groups already counted, by their
    sides' pass_key. A group whose sides run the commands of one counted before (the same
    program and arguments, but for paths into each benchmark's own folder) takes that
    group's counts and warnings about them (said: `same_as`, that benchmark's id) instead
    of counting them again; so does a side whose program and command are another side's
    of the same group (a program the pull request did not change): one program's counts
    are one sample, whichever side it is named by.

    A benchmark the catalogue declares unsteady (its counts known not to be deterministic)
    is not counted, unless unsteady_too (calibrate, which checks the declaration): no report
    could judge its counts, and on the quick preset they were 12 of 72 commands. Its entry
    says why, without counts."""
    todo = [j for j in group if j.status == "ok"]
    if not todo or runs < 1:
        return
    how = todo[0].spec.scenario.instructions
    params = pass_params(todo[0].spec.scenario, scale)
    cause = {id(j): how.unsteady_for(j.key["lang"], j.spec.variant) for j in todo}
    if not unsteady_too:
        for j in todo:
            if cause[id(j)]:
                j.instructions = {"counts": [], "params": params, "cv": None, "unsteady": cause[id(j)]}
        todo = [j for j in todo if not cause[id(j)]]
        if not todo:
            return
    keys = [pass_key(j, params) for j in todo] if counted is not None else [id(j) for j in todo]
    key = tuple(keys)
    if counted is not None and key in counted:
        for j, was in zip(todo, counted[key]):
            _take(j, was)
        return
    first: dict = {}
    sides = [first.setdefault(k, j) for k, j in zip(keys, todo)]   # whose counts each side has: its key's first
    copies = [(j, was) for j, was in zip(todo, sides) if was is not j]
    todo = [j for j, was in zip(todo, sides) if was is j]
    for j in todo:
        j.instructions = {"counts": [], "params": params}
        if cause[id(j)]:
            j.instructions["unsteady"] = cause[id(j)]
        env_ = {**LANG_ENV.get(j.key["lang"], {}), **how.env.get(j.key["lang"], {})}
        if env_:
            j.instructions["env"] = env_
    cmds = {id(j): pass_commands(j, params) for j in todo}
    failed: dict[int, str] = {}

    def count(first: int, last: int) -> None:
        for r in range(first, last):
            for j in (todo if r % 2 == 0 else list(reversed(todo))):
                if id(j) in failed:
                    continue
                problem = _one(j, r, *cmds[id(j)], hf_path, env, timeout_s)
                if problem:
                    failed[id(j)] = problem

    count(0, runs)
    if top_up and len(todo) == 2 and not copies and not failed:   # (a pair, not what copies left of a larger group)
        # both marked, whether or not the second look is taken: the test allows for it
        for j in todo:
            j.instructions["looks"] = TOP_UP_LOOKS
        a, b = ({**j.instructions, "cv": cv(j.instructions["counts"])} for j in todo)
        if all(len(set(j.instructions["checksums"])) == 1 for j in todo) and top_up_wanted(a, b):
            count(runs, 2 * runs)
            if failed:   # the first look stands: both sides back to it, said
                for j in todo:
                    j.warnings.append(f"{SECOND_LOOK_FAILED} "
                                      f"({next(iter(failed.values()))}): the first {runs} counts a side kept")
                    for k in ("counts", "checksums"):
                        del j.instructions[k][runs:]
                failed.clear()
    for j in todo:
        if id(j) in failed:
            j.warnings.append(f"warning: instructions not counted: {failed[id(j)]}")
            j.instructions = None
            continue
        j.instructions["cv"] = cv(j.instructions["counts"])
        sums = j.instructions.pop("checksums")
        if len(set(sums)) > 1:
            j.warnings.append(f"warning: instructions not counted: the checksum differs between runs under Valgrind: "
                              f"{', '.join(map(str, sorted(set(sums))))}")
            j.instructions = None
            continue
        j.instructions["checksum"] = sums[0]
    for j, was in copies:
        if was.instructions:
            _take(j, was)
        else:   # the side it shares a program with was not counted: neither is this one
            j.warnings += [w for w in was.warnings if w.startswith("warning: instructions not counted")]
    if counted is not None and all(j.instructions for j in todo):
        counted[key] = sides


def _take(job, was) -> None:
    """job's counts are those of was, a benchmark counted before with the same program and
    command: a copy, saying whose (the benchmark actually counted), with what was said of them."""
    job.instructions = {**copy.deepcopy(was.instructions), "same_as": was.instructions.get("same_as", was.id)}
    job.warnings += [w for w in was.warnings if w.startswith(SECOND_LOOK_FAILED)]


def _one(job, r: int, argv: list[str], prepare: list[str] | None, hf_path: str, env: dict,
         timeout_s: float) -> str | None:
    """One counted run of a job; the problem, or None."""
    out_dir = job.workdir / f"instructions-{r}"
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    try:
        own = {**env, **job.instructions.get("env", {})}
        inv = hyperfine.run(hf_path, command(argv, out_dir), runs=1, warmup=0, workdir=job.workdir,
                            env={**own, **valgrind_libs.env_for(argv[0], own)},
                            timeout_s=timeout_s, prepare=prepare, tag=f"vg{r}")
        if inv.problem:
            return inv.problem
        if any(c != 0 for c in inv.exit_codes):
            logs = sorted(out_dir.glob("valgrind.*.log"))
            return f"exit codes {inv.exit_codes}: " + (hyperfine.tail(logs[-1].read_text(errors="replace"))
                                                        if logs else inv.stderr_tail)
        try:
            rec = json.loads(hyperfine.last_line(inv.outputs[0]))
            checksum = rec["checksum"]
        except (ValueError, KeyError, IndexError, TypeError):
            return "the last stdout line under Valgrind is not a JSON record"
        count = read_count(out_dir)
        if count <= 0:
            return "Callgrind counted no instructions in the window (a program without the window's client requests?)"
    except ValueError as err:
        return str(err)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    job.instructions["counts"].append(count)
    job.instructions.setdefault("checksums", []).append(checksum)
    return None


def _sharp(alpha: float, same_run: bool) -> bool:
    """Whether the sharper bound of two_look_p holds: for the pair the second look was
    decided on (two sides of one run), at a level below TOP_UP_GATE."""
    return same_run and alpha <= TOP_UP_GATE


def two_look_p(p: float, alpha: float, same_run: bool) -> float:
    """A pair's p-value allowing for the second look. For the two sides of one run, at
    levels up to TOP_UP_GATE: the p of the counts kept plus TOP_UP_DECISIVE (d). Valid
    because the pass takes the second look only where the first look's p1 exceeds d and
    stays below the gate, so for a level a up to the gate P(reported <= a) <= P(p1 <= d)
    + P(p2 <= a - d) <= a (a second look that failed keeps the first counts: the bound
    holds as long as Valgrind's failures do not depend on the counts). Sharper than
    Bonferroni's 2 p wherever p > 1e-6, i.e. wherever it decides: a lone test on the
    quick preset (0.01 / 352 = 2.8e-5) passes at p2 < 2.7e-5 rather than 1.4e-5.
    Otherwise 2 p (Bonferroni over the two looks): sides of two runs (compare of two
    files), whose second looks were each decided against another partner, or a level
    above the gate, where a first look's p1 >= gate is reported with no second look."""
    return min(1.0, p + TOP_UP_DECISIVE) if _sharp(alpha, same_run) else min(1.0, TOP_UP_LOOKS * p)


def two_look_alpha(alpha: float, same_run: bool) -> float:
    """The level a pair's counts (two looks) are tested at: two_look_p(p) < alpha."""
    return max(0.0, alpha - TOP_UP_DECISIVE) if _sharp(alpha, same_run) else alpha / TOP_UP_LOOKS


def looks(bench: dict) -> int:
    """The looks a results-file benchmark's count test allows for (1, or TOP_UP_LOOKS for
    either side of a pair, whether or not the second look was taken)."""
    return int((bench.get("instructions") or {}).get("looks", 1))


def samples(bench: dict) -> list[float]:
    """A results-file benchmark's counts where they are judged (else none)."""
    entry = bench.get("instructions")
    return [float(c) for c in entry["counts"]] if judged(entry) else []

