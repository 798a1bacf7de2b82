"""Go against Rust per scenario and size, from a results file: median wall time with its
spread (interquartile range, and min..max), median peak memory, and the ratios to Go
(time and memory; < 1 means smaller than Go's). The reference Go benchmark for a row is
the Go one with the same params (and label/toolchain side) and the same variant when Go
has that variant, else Go's fastest variant for those params (e.g. fanout's Rust
`threads` against Go's best of `channels`/`batched`).

Rendered twice from the same rows: a rich table on the terminal and Markdown (GitHub
job summary, summary.md). Every string that comes from the input is escaped."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from benchpipe.report import md as markdown

MiB = 1024 * 1024


def quartiles(xs: list[float]) -> tuple[float, float, float]:
    xs = sorted(xs)
    if len(xs) == 1:
        return xs[0], xs[0], xs[0]
    q1, q2, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    return q1, q2, q3


def fmt_time(s: float | None) -> str:
    if s is None:
        return "-"
    if s >= 100:
        return f"{s:.0f} s"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} µs"


def fmt_mem(b: float | None) -> str:
    return "-" if b is None else f"{b / MiB:.1f} MiB"


def fmt_ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x"


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
    n: int = 0
    time_med: float | None = None
    time_q1: float | None = None
    time_q3: float | None = None
    time_min: float | None = None
    time_max: float | None = None
    mem_med: float | None = None
    time_ratio: float | None = None
    mem_ratio: float | None = None


def rows(doc: dict) -> list[Row]:
    out = []
    for b in doc["benchmarks"]:
        k = b["key"]
        params = " ".join(f"{p}={v}" for p, v in k["params"].items())
        r = Row(k["scenario"], params, k["variant"], k["build"], k["toolchain"], k.get("label", ""), k["lang"],
                b["status"], b.get("reason", ""))
        wall = b["samples"]["wall_s"]
        if b["status"] == "ok" and wall:
            r.n = len(wall)
            r.time_q1, r.time_med, r.time_q3 = quartiles(wall)
            r.time_min, r.time_max = min(wall), max(wall)
            mem = b["samples"]["peak_rss_bytes"]
            r.mem_med = statistics.median(mem) if mem else None
        out.append(r)
    # Ratios against Go (same scenario, params, label; Go's toolchain is whichever ran).
    for r in out:
        if r.lang == "go" or r.time_med is None:
            continue
        gos = [g for g in out if g.lang == "go" and g.scenario == r.scenario and g.params == r.params
               and g.label == r.label and g.time_med is not None]
        same = [g for g in gos if g.variant == r.variant]
        pool = same or gos
        if pool:
            ref = min(pool, key=lambda g: g.time_med)
            r.time_ratio = r.time_med / ref.time_med if ref.time_med else None
            r.mem_ratio = r.mem_med / ref.mem_med if (ref.mem_med and r.mem_med is not None) else None
    return out


def _status_cell(r: Row) -> str:
    if r.status == "ok":
        return "ok" + (" (warning)" if r.reason else "")
    return f"{r.status}: {r.reason}"


def _cells(r: Row) -> list[str]:
    spread = "-" if r.time_med is None else f"{fmt_time(r.time_q1)} .. {fmt_time(r.time_q3)}"
    rng = "-" if r.time_med is None else f"{fmt_time(r.time_min)} .. {fmt_time(r.time_max)}"
    side = " ".join(x for x in (r.toolchain, r.label) if x)
    return [r.params, r.variant, r.build, side, fmt_time(r.time_med), spread, rng, fmt_mem(r.mem_med),
            fmt_ratio(r.time_ratio), fmt_ratio(r.mem_ratio), str(r.n), _status_cell(r)]


HEADER = ["params", "variant", "build", "toolchain", "time (median)", "IQR", "min .. max", "peak memory (median)",
          "time / Go", "memory / Go", "runs", "status"]
ALIGN = "llllrrrrrrrl"


def markdown_text(doc: dict) -> str:
    env = doc["env"]
    rs = rows(doc)
    failed = sum(r.status == "failed" for r in rs)
    skipped = sum(r.status == "skipped" for r in rs)
    e = markdown.escape
    lines = [f"## Go vs Rust: preset {e(env['preset'])}", "",
             f"{e(env['os'])} {e(env['arch'])}, {e(env['cpu_model'])}, {env['cores']} cores, "
             f"{env['memory_bytes'] / 2**30:.1f} GiB; commit {e(env['commit'][:12])} ({e(env['branch'])}); "
             f"{e(env['hyperfine'])}; toolchains: "
             + ", ".join(f"{e(k)} ({e(v)})" for k, v in sorted(env["toolchains"].items())),
             "",
             f"{len(rs)} benchmarks: {len(rs) - failed - skipped} ok, {failed} failed, {skipped} skipped. "
             "Time: wall clock per run measured by hyperfine (median, interquartile range, min .. max); "
             "memory: peak RSS of the program; ratios against Go for the same params "
             "(same variant, else Go's fastest), below 1 = less than Go.", ""]
    for scenario in dict.fromkeys(r.scenario for r in rs):
        lines.append(f"### {e(scenario)}")
        lines.append("")
        body = [[e(c) for c in _cells(r)] for r in rs if r.scenario == scenario]
        lines.append(markdown.table(HEADER, body, ALIGN))
        lines.append("")
    return "\n".join(lines)


def console():
    """A console for the tables: a CI log is not 80 columns wide, so do not fold to 80."""
    import sys

    from rich.console import Console

    return Console(highlight=False, width=None if sys.stdout.isatty() else 200)


def print_terminal(doc: dict, console) -> None:
    from rich.table import Table
    from rich.text import Text

    rs = rows(doc)
    for scenario in dict.fromkeys(r.scenario for r in rs):
        t = Table(title=f"{scenario}  (preset {doc['env']['preset']})", title_justify="left")
        for h, a in zip(HEADER, ALIGN):
            t.add_column(h, justify="right" if a == "r" else "left", overflow="fold",
                         max_width=48 if h == "status" else None)
        for r in (r for r in rs if r.scenario == scenario):
            style = "red" if r.status == "failed" else ("yellow" if r.status == "skipped" else None)
            t.add_row(*[Text(c) for c in _cells(r)], style=style)  # Text: no markup from input
        console.print(t)
