"""What a benchmark measured, read from one results-file benchmark (Contract 2): the
figures every report shows, defined once.

- **window**: the program's own timed window (`elapsed_s` of each record: the scenario's
  clock, setup, runtime start and connection opening excluded). The primary time of
  every report, as seed 004 times from the first spawn to the last result. Where the
  process ran the scenario K times (`--repeat K`, windows_per_run), the median of its
  windows after the first.
- **cpu**: the process's CPU time inside that window (`window_cpu_s`, user + sys).
- **wall**: hyperfine's whole-process wall time per run, the second figure (it adds
  process and runtime start-up).
- **memory**: peak resident set per run, the program's own figure (`peak_rss_bytes` of
  its record: VmHWM on Linux). Not hyperfine's: within one hyperfine invocation its
  `memory_usage_byte` is a running maximum over the runs so far (measured: Go hashmap
  spawn gave 49, 49, 109, 109, ... MiB where the runs themselves peaked at 49, 33,
  109, 39, ...), so every run after the largest repeats it. hyperfine's figure is used
  only where a record has none (0).
- **latency**: per run, the p50 and p99 sojourn of the tasks (microseconds); the
  reports show the median over the runs.
- **scenario metrics**: the numbers SCENARIOS.md asks each scenario to publish
  (values per second, memory per task, achieved spawn rate), median over the runs.
"""

from __future__ import annotations

import math
import statistics

# Scenario metrics the reports publish: record metric -> how every report writes it
# (the first one a benchmark has is its "scenario figure"). Parallel efficiency (cpu)
# is not a per-run figure: it sets two benchmarks against each other (efficiency()).
SCENARIO_METRICS = {
    "achieved_spawn_rate_per_ms": lambda v: f"{v:.2f} tasks/ms",
    "values_per_s": lambda v: f"{v / 1e6:.1f} M values/s",
    "memory_per_task_bytes": lambda v: f"{v:.0f} B/task",
}

# Below this share of the offered rate, an open-loop run did not offer the load it
# claims (its spawner fell behind): the run stays ok and carries a warning.
RATE_WARNING_SHARE = 0.95


def _finite(xs) -> list[float]:
    return [float(x) for x in xs if isinstance(x, (int, float)) and math.isfinite(x)]


def window_s(bench: dict) -> list[float]:
    return _finite(r.get("elapsed_s") for r in bench.get("records", ()))


def windows_per_run(bench: dict) -> int:
    """How many times each process ran the scenario (`--repeat K`; 1: once, the
    window is the process's only one). With K > 1 a record's window is the median of
    its windows after the first."""
    counts = [(r.get("repeat") or {}).get("count", 1) for r in bench.get("records", ())]
    return max(counts, default=1)


def window_cpu_s(bench: dict) -> list[float]:
    """CPU (user + sys) inside the window per run; empty where the records predate it."""
    return _finite(w["user"] + w["sys"] for r in bench.get("records", ())
                   if isinstance(w := r.get("window_cpu_s"), dict))


def cpu_s(bench: dict) -> list[float]:
    """CPU inside the window per run; the whole process's CPU where the records predate
    window_cpu_s."""
    inside = window_cpu_s(bench)
    if inside:
        return inside
    s = bench["samples"]
    return _finite(u + y for u, y in zip(s["user_s"], s["sys_s"])) if len(s["user_s"]) == len(s["sys_s"]) else []


def wall_s(bench: dict) -> list[float]:
    return _finite(bench["samples"]["wall_s"])


def memory_bytes(bench: dict) -> list[float]:
    own = [r.get("peak_rss_bytes") for r in bench.get("records", ())]
    if own and all(own):
        return _finite(own)
    return _finite(m for m in bench["samples"]["peak_rss_bytes"] if m)  # 0: not measured (Windows hyperfine)


def memory_source(bench: dict) -> str | None:
    """Where memory_bytes came from: "program" (the peak resident set the program read
    from the OS itself: getrusage on Unix, GetProcessMemoryInfo on Windows) or
    "hyperfine" (the child's rusage as hyperfine saw it; its Windows timer reports 0,
    which counts as not measured). None: no figure at all."""
    own = [r.get("peak_rss_bytes") for r in bench.get("records", ())]
    if own and all(own):
        return "program"
    return "hyperfine" if any(bench["samples"]["peak_rss_bytes"]) else None


def own_memory_bytes(bench: dict) -> list[float]:
    """Per run, the scenario's own memory: the peak resident set less the program's at
    start (its baseline: the binary, the runtime, the libraries it loads). At small
    sizes the peak is mostly the program (rsbench starts at ~3.5 MB, gobench at ~3 MB):
    a ratio of peaks then compares the binaries, this one the scenarios."""
    return _finite(r["peak_rss_bytes"] - r["baseline_rss_bytes"] for r in bench.get("records", ())
                   if r.get("peak_rss_bytes") and r.get("baseline_rss_bytes"))


def own_memory_of(entry: dict) -> float | None:
    """A history entry's own memory: its median peak less its median baseline."""
    base = (entry.get("metrics") or {}).get("baseline_rss_bytes")
    peak = (entry.get("memory_bytes") or {}).get("median")
    return max(0.0, peak - base) if base and peak else None


def allocators(doc: dict) -> dict[str, str]:
    """build -> its allocator as the records name it, with the version where one is
    recorded ("mimalloc 3.3.2": its major version changes its footprint, 3.x holding
    several times 2.x's memory at 4,000 hashmap tasks)."""
    out = {}
    for b in doc.get("benchmarks", ()):
        rt = ((b.get("records") or [{}])[0]).get("runtime") or {}
        if rt.get("allocator") and b["key"]["build"] not in out:
            version = rt.get("mimalloc_version")
            out[b["key"]["build"]] = f"{rt['allocator']} {version}" if version else str(rt["allocator"])
    return out


def baseline_bytes(bench: dict) -> float | None:
    xs = _finite(r.get("baseline_rss_bytes") for r in bench.get("records", ()))
    return statistics.median(xs) if xs else None


def latency_us(bench: dict) -> dict:
    """{'p50': median over runs of the sojourn p50, 'p99': ...} (empty without tasks)."""
    out = {}
    for q in ("p50", "p99"):
        xs = _finite(((r.get("latency_us") or {}).get("sojourn") or {}).get(q) for r in bench.get("records", ()))
        if xs:
            out[q] = statistics.median(xs)
    return out


def scenario_metrics(bench: dict) -> dict:
    """Median over runs of each published scenario metric the records hold."""
    out = {}
    for name in SCENARIO_METRICS:
        xs = _finite((r.get("metrics") or {}).get(name) for r in bench.get("records", ()))
        if xs:
            out[name] = statistics.median(xs)
    return out


def figure_text(figures: dict) -> str:
    """The scenario figure of scenario_metrics() (or a history entry's metrics) as text;
    "" where there is none."""
    for name, fmt in SCENARIO_METRICS.items():
        if name in figures:
            return fmt(figures[name])
    return ""


# The facts of a record that explain its numbers, shown beside them on the site and in
# the history: how the allocator is set up, which hasher, which SQLite and how it is
# opened, which driver and server.
SETTINGS = ("allocator", "mimalloc_version", "mimalloc_options", "hasher", "sqlite_version", "threading_mode",
            "foreign_keys", "checkout", "driver", "server_version", "synchronous_commit", "fsync")


def settings(bench: dict) -> dict[str, str]:
    """SETTINGS of the benchmark's first record, as text ("defaults" for a mimalloc run
    without MIMALLOC_* options)."""
    recs = bench.get("records") or [{}]
    rt = recs[0].get("runtime") or {}
    out = {}
    for name in SETTINGS:
        v = rt.get(name)
        if name == "mimalloc_options" and "mimalloc_version" in rt:
            v = " ".join(f"{k}={x}" for k, x in sorted((v or {}).items())) or "defaults"
        if v is None or isinstance(v, (dict, list)):
            continue
        out[name] = str(v)[:200]
    return out


def settings_text(figures: dict) -> str:
    return " · ".join(f"{k.replace('_', ' ')}: {v}" for k, v in figures.items())


def rate_warning(records: list[dict]) -> str | None:
    """The warning of an open-loop run whose spawner reached less than 95% of the offered
    rate (median over runs), else None."""
    offered = _finite((r.get("metrics") or {}).get("offered_rate_per_ms") for r in records)
    got = _finite((r.get("metrics") or {}).get("achieved_spawn_rate_per_ms") for r in records)
    if not offered or not got:
        return None
    want, have = statistics.median(offered), statistics.median(got)
    if have >= RATE_WARNING_SHARE * want:
        return None
    return (f"warning: open loop not held: the spawner reached {have:.2f} of the {want:g} tasks/ms offered "
            f"({have / want:.0%}, below {RATE_WARNING_SHARE:.0%}), so latencies include its backlog")


# Parallel efficiency is published where the window at one thread is at least this long
# (issue 39): at the quick size (16 tasks of ~2.5 ms, 30-45 ms windows) waking the second
# CPU and first-touching a second buffer are a large part of the run, and Go read
# 0.55-0.6 there against 0.77 at 160 tasks, on an idle machine.
MIN_EFFICIENCY_WINDOW_S = 0.25


def efficiency(t1: float | None, tn: float | None, n: int) -> float | None:
    """Parallel efficiency T(1) / (T(n) * n) of a cpu benchmark at n threads."""
    if not t1 or not tn or n < 1:
        return None
    return t1 / (tn * n)


# Contention (issue 39): what else ran on the machine during a window: the machine's
# busy time less ours, plus what the hypervisor stole (the records' window_machine,
# Linux). A benchmark whose windows had more than CONTENDED_CORES of that on average is
# contended: its figures are not the program's alone, and the reports say so. /proc/stat
# counts in 10 ms ticks, so one window's figure is uncertain by up to a tick per CPU at
# each end: a single run is called contended only beyond that margin (short windows
# rarely are on their own), a benchmark on the sum over its runs beyond a tick per CPU
# times the square root of the runs (the windows' tick errors are independent), and never
# less than one run's margin. Without
# that margin an idle machine was called contended: 30 ms windows read 0.33 cores of
# "others" whenever one stray tick fell in them, 0.255 cores over 5 runs on a CI run.
CONTENDED_CORES = 0.25
TICK_S = 0.01
# The marks of the two warnings that change how a benchmark is shown, in its reason.
CONTENDED = "warning: contended"
PARITY_BROKEN = "warning: parity broken"


def others_s(record: dict) -> float | None:
    """CPU seconds something else had during the record's window (None: not measured)."""
    wm, cpu = record.get("window_machine"), record.get("window_cpu_s")
    if not isinstance(wm, dict) or not isinstance(cpu, dict):
        return None
    return max(0.0, wm["busy_s"] - cpu["user"] - cpu["sys"]) + wm["steal_s"]


def contended_runs(bench: dict) -> list[int]:
    """The indices of the runs (records) that were contended beyond the ticks' margin."""
    out = []
    for i, r in enumerate(bench.get("records", ())):
        other, elapsed = others_s(r), r.get("elapsed_s")
        if other is not None and elapsed and \
                other - 2 * TICK_S * r["window_machine"]["cpus"] > CONTENDED_CORES * elapsed:
            out.append(i)
    return out


def contention_cores(records: list[dict]) -> float | None:
    """What else ran during the windows, in cores on average (their sum over the sum of
    the windows: exact to the ticks however short each window is); None: not measured."""
    pairs = [(others_s(r), r.get("elapsed_s")) for r in records]
    pairs = [(o, e) for o, e in pairs if o is not None and e]
    if not pairs:
        return None
    return sum(o for o, _ in pairs) / sum(e for _, e in pairs)


def contended(records: list[dict]) -> bool:
    """Whether other work had more than CONTENDED_CORES during the benchmark's windows,
    beyond what the ticks can put there on an idle machine."""
    pairs = [(others_s(r), r.get("elapsed_s"), r.get("window_machine", {}).get("cpus", 1)) for r in records]
    pairs = [p for p in pairs if p[0] is not None and p[1]]
    if not pairs:
        return False
    margin = TICK_S * max(c for _, _, c in pairs) * max(2.0, math.sqrt(len(pairs)))
    return sum(o for o, _, _ in pairs) - margin > CONTENDED_CORES * sum(e for _, e, _ in pairs)


def contention_warning(records: list[dict]) -> str | None:
    """The warning of a contended benchmark, else None."""
    cores = contention_cores(records)
    if cores is None or not contended(records):
        return None
    runs = len(contended_runs({"records": records}))
    return (f"{CONTENDED}: other processes had {cores:.2f} cores on average during the timed windows "
            f"(more than {CONTENDED_CORES:g}, {runs} of {len(records)} runs contended on their own): its figures are "
            "not the program's alone")


def without_runs(bench: dict, runs) -> dict:
    """The benchmark without these runs (indices into its records; the per-run samples
    hyperfine kept are dropped alike)."""
    drop = set(runs)
    if not drop:
        return bench
    keep = [i for i in range(len(bench.get("records", ()))) if i not in drop]
    samples = {k: ([v[i] for i in keep] if isinstance(v, list) and len(v) == len(bench["records"]) else v)
               for k, v in bench["samples"].items()}
    return {**bench, "records": [bench["records"][i] for i in keep], "samples": samples}
