"""Go against Rust per scenario and size, from a results file.

Per benchmark: the program's own timed window (median, interquartile range; the primary
time), the CPU time inside it, hyperfine's whole-process wall time (second figure),
median p50/p99 sojourn latency where tasks exist, peak memory, the scenario's own
figure (values/s for fanout, memory per task for sleep, achieved spawn rate for
hashmap under rate, parallel efficiency T(1)/(T(n)*n) for cpu), and the ratios to Go.
The Go benchmark a Rust one is set against is the one the catalogue's `pairs` declares
(same params, same label side); nothing else, never "Go's fastest".

Rendered twice from the same rows: one line per benchmark on the terminal (at most 120
columns) and the full table in Markdown (GitHub job summary, summary.md). Every string that comes from the input is escaped."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

import numpy as np
from rich.text import Text

from benchpipe import catalogue, measures, stats, units
from benchpipe.report import md

MiB = 1024 * 1024


def quartiles(xs: list[float]) -> tuple[float, float, float]:
    xs = sorted(xs)
    if len(xs) == 1:
        return xs[0], xs[0], xs[0]
    q1, q2, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    return q1, q2, q3


fmt_time = units.seconds
fmt_mem = units.bytes_


def fmt_ratio(r: float | None) -> str:
    return units.ratio(r, 2)


@dataclass
class Row:
    scenario: str
    params: str
    variant: str
    build: str
    toolchain: str
    label: str
    lang: str
    status: str
    reason: str
    key: dict
    n: int = 0
    windows: int = 1                   # scenario runs per process (--repeat K)
    time_med: float | None = None      # the window
    time_q1: float | None = None
    time_q3: float | None = None
    cpu_med: float | None = None       # CPU inside the window
    wall_med: float | None = None      # whole process (hyperfine)
    p50: float | None = None           # sojourn, µs
    p99: float | None = None
    mem_med: float | None = None
    own_med: float | None = None       # peak less the program's baseline (measures.own_memory_bytes)
    metric: str = units.MISSING                  # the scenario's own figure, formatted
    time_ratio: float | None = None
    mem_ratio: float | None = None
    own_ratio: float | None = None
    time_ci: tuple[float, float] | None = None   # 95 % interval of time_ratio (bootstrap)
    mem_ci: tuple[float, float] | None = None
    pair: str = ""                     # the Go variant it is set against
    window: list = field(default_factory=list)   # the samples behind the ratios
    memory: list = field(default_factory=list)


def rows(doc: dict, cat=None) -> list[Row]:
    cat = cat or catalogue.load()
    out = []
    for b in doc["benchmarks"]:
        k = b["key"]
        params = " ".join(f"{p}={v}" for p, v in k["params"].items())
        r = Row(k["scenario"], params, k["variant"], k["build"], k["toolchain"], k.get("label", ""), k["lang"],
                b["status"], b.get("reason", ""), k)
        window = measures.window_s(b)
        if b["status"] == "ok" and window:
            r.n = len(window)
            r.windows = measures.windows_per_run(b)
            r.time_q1, r.time_med, r.time_q3 = quartiles(window)
            cpu, wall, mem = measures.cpu_s(b), measures.wall_s(b), measures.memory_bytes(b)
            r.window, r.memory = window, mem
            r.cpu_med = statistics.median(cpu) if cpu else None
            r.wall_med = statistics.median(wall) if wall else None
            r.mem_med = statistics.median(mem) if mem else None
            own = measures.own_memory_bytes(b)
            r.own_med = statistics.median(own) if own else None
            lat = measures.latency_us(b)
            r.p50, r.p99 = lat.get("p50"), lat.get("p99")
            r.metric = measures.figure_text(measures.scenario_metrics(b)) or units.MISSING
        out.append(r)
    _efficiencies(out)
    # Ratios against the Go benchmark the catalogue pairs with (same params and side).
    for r in out:
        if r.lang == "go" or r.time_med is None:
            continue
        sc = cat.scenarios.get(r.scenario)
        r.pair = (sc.go_counterpart(r.variant) if sc else None) or ""
        shared = sc.shared_params(r.key["params"]) if sc else r.key["params"]
        refs = [g for g in out if g.lang == "go" and g.scenario == r.scenario and g.key["params"] == shared
                and g.label == r.label and g.variant == r.pair and g.time_med is not None]
        if measures.PARITY_BROKEN in r.reason:
            continue   # not the same setup on both sides: no ratio (the status says why)
        if refs:
            ref = refs[0]
            r.time_ratio = r.time_med / ref.time_med if ref.time_med else None
            r.mem_ratio = r.mem_med / ref.mem_med if (ref.mem_med and r.mem_med is not None) else None
            r.time_ci = _interval(ref.window, r.window, r.time_ratio)
            r.mem_ci = _interval(ref.memory, r.memory, r.mem_ratio)
            r.own_ratio = r.own_med / ref.own_med if (ref.own_med and r.own_med is not None) else None
    return out


def _interval(go: list, rust: list, ratio: float | None) -> tuple[float, float] | None:
    """The 95 % interval of a ratio of medians (stats.ratio_interval: a bootstrap over
    each side's runs, which ran in their own processes, unpaired)."""
    if ratio is None or len(go) < stats.MIN_SAMPLES or len(rust) < stats.MIN_SAMPLES:
        return None
    lo, hi = stats.ratio_interval(np.asarray(go, float), np.asarray(rust, float))
    return (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else None


def _efficiencies(out: list[Row]) -> None:
    """cpu: parallel efficiency T(1)/(T(n)*n) against the same benchmark at threads=1."""
    for r in out:
        if r.scenario != "cpu" or r.time_med is None or "threads" not in r.key["params"]:
            continue
        n = int(r.key["params"]["threads"])
        one = {**r.key["params"], "threads": 1}
        base = [x for x in out if x.scenario == "cpu" and x.variant == r.variant and x.build == r.build
                and x.toolchain == r.toolchain and x.label == r.label and x.key["params"] == one]
        t1 = base[0].time_med if base else None
        eff = measures.efficiency(t1, r.time_med, n)
        if eff is not None and n > 1 and t1 < measures.MIN_EFFICIENCY_WINDOW_S:
            r.metric = f"efficiency not shown: 1-thread window {fmt_time(t1)}, too short to mean it"
        elif eff is not None:
            r.metric = f"efficiency {eff:.2f}"


def _status_cell(r: Row) -> str:
    if r.status == "ok":
        return "ok" + (" (warning)" if r.reason else "")
    return f"{r.status}: {r.reason}"


fmt_us = units.microseconds


def _cells(r: Row) -> list[str]:
    spread = units.MISSING if r.time_med is None else f"{fmt_time(r.time_q1)} .. {fmt_time(r.time_q3)}"
    side = " ".join(x for x in (r.toolchain, r.label) if x)
    lat = units.MISSING if r.p99 is None else f"{fmt_us(r.p50)} / {fmt_us(r.p99)}"
    ratio = fmt_ratio(r.time_ratio) + (f" ({r.pair})" if r.pair and r.time_ratio is not None else "")
    if r.lang != "go" and measures.PARITY_BROKEN in r.reason:
        ratio = "no ratio: parity broken"
    return [r.params, r.variant, r.build, side, fmt_time(r.time_med), spread, fmt_time(r.cpu_med),
            fmt_time(r.wall_med), lat, fmt_mem(r.mem_med), fmt_mem(r.own_med), r.metric, ratio,
            fmt_ratio(r.mem_ratio), fmt_ratio(r.own_ratio),
            str(r.n) + (f" x {r.windows}" if r.windows > 1 else ""), _status_cell(r)]


REPEATED = (" Runs N x K: K windows in each of N processes, a run's window the median of its windows after the "
            "first (its process wall is all K).")
HEADER = ["params", "variant", "build", "toolchain", "window (median)", "IQR", "CPU in window", "process wall",
          "sojourn p50 / p99", "peak memory", "own memory", "scenario figure", "window / Go", "peak memory / Go",
          "own memory / Go", "runs", "status"]
ALIGN = "llllrrrrrrrrrrrrl"


def markdown_text(doc: dict) -> str:
    env = doc["env"]
    rs = rows(doc)
    failed = sum(r.status == "failed" for r in rs)
    skipped = sum(r.status == "skipped" for r in rs)
    e = md.escape
    lines = [f"## Go vs Rust: preset {e(env['preset'])}", "",
             f"{e(env['os'])} {e(env['arch'])}, {e(env['cpu_model'])}, {env['cores']} cores, "
             f"{env['memory_bytes'] / 2**30:.1f} GiB; commit {e(env['commit'][:12])} ({e(env['branch'])}); "
             f"{e(env['hyperfine'])}; toolchains: "
             + ", ".join(f"{e(k)} ({e(v)})" for k, v in sorted(env["toolchains"].items()))
             + "".join(f"; {e(b)}: **{e(a)}**" for b, a in sorted(measures.allocators(doc).items())
                       if a.startswith("mimalloc")),
             "",
             f"{len(rs)} benchmarks: {len(rs) - failed - skipped} ok, {failed} failed, {skipped} skipped. "
             "Window: the program's own timed window per run (setup and start-up excluded; median and "
             "interquartile range), with the CPU time spent inside it; process wall: the whole run as hyperfine "
             "measured it; sojourn: task latency from scheduled arrival to completion (median over runs); "
             "peak memory: the program's peak RSS; own memory: that peak less the program's RSS at start (the "
             "binary, runtime and libraries), what the scenario itself held: at small sizes the peak ratio compares "
             "the two programs more than the scenarios." + REPEATED * any(r.windows > 1 for r in rs)
             + " Ratios set each Rust variant against the Go variant the catalogue pairs it with (in brackets) at "
             "the same params; below 1 = less than Go.", ""]
    warned = [r for r in rs if r.status == "ok" and r.reason]
    if warned:
        lines += [f"**{len(warned)} warning(s):**", ""]
        lines += [f"- {e(r.scenario)} {e(r.variant)} {e(r.build)} {e(r.params)}: {e(r.reason)}" for r in warned]
        lines.append("")
    for scenario in dict.fromkeys(r.scenario for r in rs):
        lines.append(f"### {e(scenario)}")
        lines.append("")
        body = [[e(c) for c in _cells(r)] for r in rs if r.scenario == scenario]
        lines.append(md.table(HEADER, body, ALIGN))
        lines.append("")
    return "\n".join(lines)


# The terminal summary fits this many columns (issue 39: the full table was over 200
# wide, its parameter cells folded over five lines); summary.md has every column.
TERMINAL_WIDTH = 120


def _ratio_text(ratio: float | None, ci: tuple[float, float] | None) -> str:
    if ratio is None:
        return units.MISSING
    return fmt_ratio(ratio) + (f" [{ci[0]:.2f}-{ci[1]:.2f}]" if ci else "")


def _varying(rows_: list[Row]) -> list[str]:
    """The parameters whose value differs between the rows: the rest say nothing."""
    names = list(dict.fromkeys(p for r in rows_ for p in r.key["params"]))
    return [p for p in names if len({str(r.key["params"].get(p)) for r in rows_}) > 1]


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def terminal_lines(doc: dict, width: int = TERMINAL_WIDTH, details: str = "") -> list[str]:
    """Per scenario, one line per benchmark: Go's window and peak memory, each Rust
    benchmark's ratios to the Go variant it is paired with, with 95 % intervals; a
    benchmark that did not run says why. At most `width` columns."""
    return [line for line, _ in _terminal(doc, width, details)]


_STYLE = {"failed": "red", "skipped": "yellow"}


def _terminal(doc: dict, width: int, details: str) -> list[tuple[str, str | None]]:
    rs = rows(doc)
    sides = {(r.lang, r.toolchain) for r in rs}
    many_toolchains = len(sides) > len({lang for lang, _ in sides})
    out = [(_fit(f"Go against Rust, preset {doc['env']['preset']}: Go's timed window, peak memory and own memory "
                 "(the peak less the program's", width), None),
           (_fit("at start); each Rust benchmark's as ratios to the Go variant paired with it (the same name, else "
                 "`vs go ...`),", width), None),
           (_fit("below 1: less than Go, [95 % interval]; ⚠: a warning in summary.md (busy: other work ran in its "
                 "windows)", width), None)]
    mi = [f"{b}: {a}" for b, a in sorted(measures.allocators(doc).items()) if a.startswith("mimalloc")]
    if mi:
        out.append((_fit("allocators: " + ", ".join(mi), width), None))
    for scenario in dict.fromkeys(r.scenario for r in rs):
        mine = [r for r in rs if r.scenario == scenario]
        varying = _varying(mine)
        out.append((scenario, "bold"))
        names = [" ".join(x for x in (r.build, r.variant, r.toolchain if many_toolchains else "", r.label) if x)
                 for r in mine]
        name_w = min(34, max(len(n) for n in names))
        params = [" ".join(f"{p}={r.key['params'][p]}" for p in varying if p in r.key["params"]) for r in mine]
        param_w = min(40, max((len(x) for x in params), default=0))
        for r, name, ps in zip(mine, names, params):
            head = f"  {_fit(name, name_w):<{name_w}}  {_fit(ps, param_w):<{param_w}}"
            if r.status != "ok":
                tail = f"{r.status}: {' '.join(r.reason.split())}"
            elif r.lang != "go" and measures.PARITY_BROKEN in r.reason:
                tail = (f"window {fmt_time(r.time_med):>9}   memory {fmt_mem(r.mem_med):>10}   no ratio: parity "
                        "broken (" + r.reason.split(measures.PARITY_BROKEN + ": ", 1)[1].split(";")[0] + ")")
            elif r.lang == "go" or r.time_ratio is None:
                tail = f"window {fmt_time(r.time_med):>8}  peak {fmt_mem(r.mem_med):>9}  own {fmt_mem(r.own_med):>9}"
            else:
                tail = (f"window {_ratio_text(r.time_ratio, r.time_ci):<19} peak {fmt_ratio(r.mem_ratio):<6} "
                        f"own {fmt_ratio(r.own_ratio):<6}" + (f" vs go {r.pair}" if r.pair != r.variant else ""))
            if r.status == "ok" and r.reason:
                tail += " ⚠ busy" if measures.CONTENDED in r.reason else " ⚠ warning"
            out.append((_fit(f"{head}  {tail}".rstrip(), width), _STYLE.get(r.status)))
    out.append((_fit("CPU time in the window, process wall, latencies and the scenarios' own figures: "
                     + (details or "summary.md") + " and the site", width), None))
    return out


def print_terminal(doc: dict, console, details: str = "") -> None:
    """The summary as terminal_lines, at most TERMINAL_WIDTH columns (less on a narrower
    terminal), failed benchmarks in red and skipped ones in yellow."""
    width = min(TERMINAL_WIDTH, console.width or TERMINAL_WIDTH)
    for line, style in _terminal(doc, width, details):
        console.print(Text(line, style=style), soft_wrap=True)   # Text: no markup from the input
