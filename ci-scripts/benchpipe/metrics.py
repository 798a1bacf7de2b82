"""The compared metrics, declared once. `compare` judges a benchmark on each of them,
`calibrate` measures what the runner can see in each, sampling until sure waits for
each to be decided, the history keeps a summary of each and looks for change points in
it, and the charts, the Compiler versions page and the site show them: every one of
those loops over METRICS, so a new metric is one entry here (and its summary field in
schemas/history.schema.json, where a test checks it is declared).

A metric some benchmarks lack (`optional`: e.g. instruction counts, measured on Linux
only) is compared where both sides have it and shown as "–" elsewhere.

The names (`time`, `cpu`, `memory`) are stored in history files, compare JSON and
calibration.json: never rename one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from benchpipe import instructions, measures, stats, units


@dataclass(frozen=True)
class Metric:
    name: str            # as stored (compare JSON, history `versus`, calibration.json)
    label: str           # what it is called in headings and charts: "timed window"
    short: str           # in a column header beside others: "CPU ratio", "Go's memory"
    column: str          # its column on a scenario page's results table
    description: str     # one line: what it measures (tooltips)
    reading: str         # how the compare report's "how to read this" names it (Markdown)
    unit: str            # how its values are written: units.value(x, unit)
    samples: Callable[[dict], list[float]]   # per-run samples of a results-file benchmark (compare)
    fields: tuple[str, ...]  # history entry fields of its summary: written to the first, read from the first present
    threshold: float     # practical threshold, relative, when no setting overrides it
    # The compare setting (compare.Settings, runner.Sequential; CLI flag --threshold /
    # --memory-threshold) that overrides the threshold; None: the registry's threshold.
    # Metrics of one setting share it: calibrate recommends `threshold` from theirs.
    setting: str | None = None
    recorded: Callable[[dict], list[float]] | None = None  # the history's samples, where not `samples`
    optional: bool = False    # some benchmarks lack it: compared only where both sides have it
    # calibrate: "detect": the injected slowdown moves it (false alarms and detections);
    # "false alarms": A/A only; "": not calibrated
    calibrate: str = "detect"
    changepoints: bool = True   # change points looked for in the history's series of its medians
    chart: bool = True          # drawn in the bar, size and trend charts; set Go against Rust on the overview
    # drawn over the nights in the trend charts (a panel, where the series has it); None: as chart
    trend: bool | None = None
    zero_based: bool = True     # its chart axis starts at 0 (a count's 0.5 % needs its own range)
    # the sizes it is measured at, given the catalogue's scenario (over the benchmark's
    # own); None: the benchmark's own. A chart of a benchmark names them where they differ.
    measured_at: Callable[[object], dict] | None = None
    # the test of a comparison: "rank" (signed-rank paired, Mann-Whitney unpaired: times,
    # memory) or "t" (Welch's t test on log counts: deterministic counts, stats.compare_counts)
    test: str = "rank"
    # one sentence on what it sees and what it cannot, where a report names the signals
    sees: str = ""
    # the looks a results-file benchmark's samples were taken in (a count's second look:
    # instructions.looks); its p-value allows for them. None: one.
    looks: Callable[[dict], int] | None = None

    def summary_of(self, entry: dict) -> dict | None:
        """Its summary statistics in a history entry (None: not measured there)."""
        for f in self.fields:   # a loop, not next(generator): called for every entry a chart draws
            v = entry.get(f)
            if v:
                return v
        return None

    def median_of(self, entry: dict) -> float | None:
        return (self.summary_of(entry) or {}).get("median")

    def history_samples(self, bench: dict) -> list[float]:
        return (self.recorded or self.samples)(bench)

    def text(self, value: float | None) -> str:
        return units.value(value, self.unit)

    def compare(self, xs, ys, *, paired: bool, alpha: float, threshold: float, confidence: float = stats.CONFIDENCE,
                seed: int = stats.SEED, looks: int = 1) -> stats.SampleComparison:
        """Its samples of two sides compared by its test (paired: run i beside run i).
        looks: the samples were taken in two looks (a count's second look): the p-value
        allows for them (instructions.two_look_p; paired: the two sides of one run)."""
        if self.test == "t":
            if looks <= 1:
                return stats.compare_counts(xs, ys, alpha=alpha, threshold=threshold, confidence=confidence)
            got = stats.compare_counts(xs, ys, alpha=instructions.two_look_alpha(alpha, paired), threshold=threshold,
                                       confidence=confidence)
            return got if got.p_value is None else replace(got, p_value=instructions.two_look_p(got.p_value, alpha,
                                                                                               paired))
        if paired and len(xs) == len(ys):
            return stats.compare_paired(xs, ys, alpha=alpha, threshold=threshold, confidence=confidence, seed=seed)
        return stats.compare_samples(xs, ys, alpha=alpha, threshold=threshold, confidence=confidence, seed=seed)


METRICS: dict[str, Metric] = {m.name: m for m in (
    Metric("time", label="timed window", short="time", column="window",
           description="the program's own timed window (setup and start-up excluded)",
           reading="the program's own timed window (*time*: setup and start-up excluded)",
           unit="s", samples=measures.window_s, fields=("window_s", "time_s"),
           threshold=stats.DEFAULT_THRESHOLD, setting="threshold", sees=instructions.WALL_SEES),
    Metric("cpu", label="CPU time", short="CPU", column="CPU in window",
           description="CPU time (user + sys) inside the timed window",
           reading="the CPU time inside it (*cpu*, user + system, which other processes on a shared runner disturb "
                   "much less than wall time)",
           # compare falls back to the whole process's CPU time for records without the
           # window's; the history keeps only the window's
           unit="s", samples=measures.cpu_s, recorded=measures.window_cpu_s, fields=("window_cpu_s",),
           threshold=stats.DEFAULT_THRESHOLD, setting="threshold", chart=False),
    Metric("memory", label="peak memory", short="memory", column="peak memory",
           description="peak resident set of the program",
           reading="peak memory",
           unit="bytes", samples=measures.memory_bytes, fields=("memory_bytes",),
           threshold=stats.DEFAULT_MEMORY_THRESHOLD, setting="memory_threshold", calibrate="false alarms"),
    # Linux only, and only where the counts are deterministic (benchpipe.instructions).
    # 0.3 %: above the 0.01-0.3 % a deterministic count scatters and the shifts code
    # layout alone gives, below the 0.5 % the issue asks to see.
    Metric("instructions", label="instructions", short="instructions", column="instructions",
           description="instructions the timed window executes, counted by Valgrind (Linux)",
           reading="the instructions the window executes (*instructions*, counted by Valgrind on Linux: "
                   "deterministic, blind to waiting and the kernel)",
           unit="instructions", samples=instructions.samples, fields=("instructions",),
           threshold=0.003, optional=True, calibrate="",
           # trended, not charted: a benchmark's count over the nights says what changed in
           # its code, but Go's count beside Rust's (bars, overview) compares two runtimes'
           # instruction mixes, which says nothing about their speed
           chart=False, trend=True, zero_based=False, measured_at=lambda sc: dict(sc.instructions.params),
           test="t", sees=instructions.WHAT_IT_SEES, looks=instructions.looks),
)}

# The first metric is the headline: the time every report, chart and ratio leads with.
HEADLINE = next(iter(METRICS.values()))


# Selections, made when asked (never kept at import time), so that every stage sees the
# registry as it is, a metric added to it included.

def charted() -> list[Metric]:
    """Drawn in the charts and set Go against Rust on the overview: the window, memory."""
    return [m for m in METRICS.values() if m.chart]


def trended() -> list[Metric]:
    """Drawn over the nights in the trend charts: the charted ones and the instructions."""
    return [m for m in METRICS.values() if (m.chart if m.trend is None else m.trend)]


def with_changepoints() -> list[Metric]:
    return [m for m in METRICS.values() if m.changepoints]


def calibrated(detect: bool = False) -> list[Metric]:
    """What calibrate judges: its false alarms; detect: also its detections (the metrics
    the injected slowdown moves: the window, CPU time)."""
    return [m for m in METRICS.values() if (m.calibrate == "detect" if detect else m.calibrate)]


def threshold(metric: Metric, settings) -> float:
    """A metric's practical threshold under settings that may override it (an object with
    the settings' attributes: compare.Settings, runner.Sequential)."""
    return getattr(settings, metric.setting) if metric.setting else metric.threshold


def stored_key(prefix: str, metric: Metric) -> str:
    """calibration.json's key of a metric's figures: `aa` for the headline, `aa_cpu` for
    the others (the names the file has always had)."""
    return prefix if metric is HEADLINE else f"{prefix}_{metric.name}"


def page_data(metric: Metric) -> dict:
    """What the site's script needs of a metric (gh-pages/static/site.js): the headline
    is shown with its interval."""
    return {"name": metric.name, "column": metric.column, "description": metric.description, "unit": metric.unit,
            "interval": metric is HEADLINE}
