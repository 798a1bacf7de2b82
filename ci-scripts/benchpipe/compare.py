"""A/B comparison of results files: which benchmark pairs with which (two files; one
file with labels base/head; one file with two or more toolchains of a language; one file
with two builds), and a verdict per benchmark and metric (stats.compare_samples).

Output: a `Report` (to_json() is the machine-readable form, schema
"gorust-bench.compare/1") that the terminal table, the Markdown report and
`--fail-on-regression` read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from benchpipe import catalogue, instructions, measures, metrics, multitest, scaling, stats
from benchpipe.errors import UsageError
from benchpipe.metrics import METRICS
from benchpipe.results import family_id, format_params, is_ab, key_id

COMPARE_SCHEMA = "gorust-bench.compare/1"

MISSING = "missing"
FAILED = "failed"
SKIPPED = "skipped"
# order of severity, for sorting and the overall verdict of a benchmark
SEVERITY = {stats.REGRESSION: 0, FAILED: 1, MISSING: 2, SKIPPED: 3, stats.IMPROVEMENT: 4, stats.TOO_FEW: 5,
            stats.NO_CHANGE: 6}


@dataclass(frozen=True)
class Settings:
    alpha: float = stats.DEFAULT_ALPHA
    # the practical thresholds a metric's `setting` names (benchpipe.metrics): time and CPU
    # time (--threshold), memory (--memory-threshold)
    threshold: float = stats.DEFAULT_THRESHOLD
    memory_threshold: float = stats.DEFAULT_MEMORY_THRESHOLD
    confidence: float = stats.CONFIDENCE
    seed: int = stats.SEED
    correction: str = "bh"    # across the tests of a report (multitest.CORRECTIONS)
    # runs whose window shared the machine with other work (measures.contended_runs):
    # left out of the comparison (a pair goes if either side's run was), or kept
    keep_contended: bool = False

    def threshold_for(self, metric: str) -> float:
        return metrics.threshold(METRICS[metric], self)

    def to_json(self) -> dict:
        return {
            "alpha": self.alpha,
            "threshold": {m: self.threshold_for(m) for m in METRICS},
            "confidence": self.confidence, "seed": self.seed, "correction": self.correction,
            "contended": "kept" if self.keep_contended else
                         f"left out: a run (and its pair) whose window had more than {measures.CONTENDED_CORES:g} cores of "
                         "other work (the machine's busy time less the program's, plus steal)",
            "test": "sides of one run (interleaved pairs): Wilcoxon signed-rank on the within-pair log ratios "
                    "(scipy.stats.wilcoxon); sides of two runs: Mann-Whitney U (scipy.stats.mannwhitneyu); "
                    "two-sided; p-values multiplied by the looks that can flag (sampling until sure), then "
                    + ("corrected across every metric and benchmark of the report by Benjamini-Hochberg "
                       "(false discovery rate at alpha)" if self.correction == "bh"
                       else "not corrected across metrics and benchmarks")
                    + "; instruction counts (deterministic up to a small scatter): Welch's t test on the log counts "
                      "(stats.compare_counts), plus 1e-6 where two sides of one run were counted in two "
                      "looks (the pass's runs a side, as many more where the first look's p was between 1e-6 "
                      "and instructions.TOP_UP_GATE: the first look flags at most 1e-6 of the time; doubled "
                      "for sides of two runs or alpha above the gate: instructions.two_look_p)",
            "interval": "paired: the Hodges-Lehmann estimate of the within-pair log ratios (median of their "
                        "Walsh averages) with the signed-rank test inverted (exact); unpaired: the ratio of "
                        f"medians with a percentile bootstrap interval, {stats.BOOTSTRAP_RESAMPLES} resamples",
        }


@dataclass
class BenchComparison:
    """One benchmark: base side against head side."""

    id: str                  # the pairing id (the key id without the side's label)
    key: dict                # the head key (or the base key when head is missing)
    base: str                # side names: label, toolchain, build or file name
    head: str
    verdict: str
    metrics: dict = field(default_factory=dict)   # metric -> stats.SampleComparison
    note: str = ""
    contended: int = 0       # runs (pairs, where paired) left out as contended

    @property
    def flagged(self) -> bool:
        return self.verdict in (stats.REGRESSION, stats.IMPROVEMENT)

    def to_json(self) -> dict:
        return {"id": self.id, "key": self.key, "base": self.base, "head": self.head,
                "verdict": self.verdict, "note": self.note, "contended": self.contended,
                "metrics": {m: c.to_json() for m, c in self.metrics.items()}}


@dataclass
class Report:
    mode: str                      # files, labels, toolchains, builds
    inputs: list
    settings: Settings
    comparisons: list
    calibration: dict | None = None
    env: dict | None = None        # the head file's env
    head_scale: float | None = None  # head workloads scaled by this factor (`run --scale`)

    def count(self, verdict: str) -> int:
        return sum(1 for c in self.comparisons if c.verdict == verdict)

    @property
    def regressions(self) -> list:
        return [c for c in self.comparisons if c.verdict == stats.REGRESSION]

    def to_json(self) -> dict:
        return {
            "schema": COMPARE_SCHEMA, "mode": self.mode, "inputs": [str(p) for p in self.inputs],
            "head_scale": self.head_scale,
            "settings": self.settings.to_json(),
            "counts": {v: self.count(v) for v in SEVERITY},
            "calibration": self.calibration,
            "benchmarks": [c.to_json() for c in self.comparisons],
        }


# ---------------------------------------------------------------- toolchain order

_CHANNEL = {"": 0, "stable": 0, "rc": -1, "beta": 1, "nightly": 2, "dev": 3, "devel": 3}
_TOOLCHAIN_RE = re.compile(r"^(go|rust)?(\d+(?:\.\d+)*)?[-.]?([a-z]*)")


def toolchain_order(toolchain: str) -> tuple:
    """Sort key, oldest first: go1.25.5 < go1.26rc1 < go1.26.8; rust1.90.0 < rust1.95.0 <
    rust1.96.0-beta.2 < rust1.97.0-nightly; named channels after numbered versions:
    stable < beta < nightly. Unknown strings sort last, by name."""
    m = _TOOLCHAIN_RE.match(toolchain.strip().lower())
    nums, chan = m.group(2), m.group(3)
    if nums:
        numbers = tuple(int(x) for x in nums.split("."))
        numbers += (0,) * (3 - len(numbers)) if chan != "rc" else ()
        return (0, numbers, _CHANNEL.get(chan, 4), toolchain)
    if chan in _CHANNEL:
        return (1, (), _CHANNEL[chan], toolchain)
    return (2, (), 0, toolchain)


# ---------------------------------------------------------------- pairing

def _without(key: dict, *fields) -> dict:
    return {k: v for k, v in key.items() if k not in fields}


def _id_without_label(key: dict) -> str:
    return key_id(_without(key, "label"))


def _id_without_build(key: dict) -> str:
    return "/".join([key["scenario"], key["variant"], key["lang"], key["toolchain"], format_params(key["params"])])


def _index(benches, ident) -> dict:
    out = {}
    for b in benches:
        out.setdefault(ident(b["key"]), b)
    return out


def _unique(benches, ident) -> bool:
    ids = [ident(b["key"]) for b in benches]
    return len(ids) == len(set(ids))


def side_names(doc: dict) -> dict:
    """What a single results file offers to compare: labels, toolchains per language, builds."""
    labels = sorted({b["key"]["label"] for b in doc["benchmarks"] if b["key"].get("label")})
    toolchains: dict[str, list] = {}
    for b in doc["benchmarks"]:
        toolchains.setdefault(b["key"]["lang"], set()).add(b["key"]["toolchain"])
    builds = sorted({b["key"]["build"] for b in doc["benchmarks"]})
    return {"labels": labels, "toolchains": {k: sorted(v, key=toolchain_order) for k, v in toolchains.items()},
            "builds": builds}


def has_pairs(doc: dict) -> bool:
    """One file offers something to compare: base/head labels, or two toolchains of a language."""
    sides = side_names(doc)
    return {"base", "head"} <= set(sides["labels"]) or any(len(t) > 1 for t in sides["toolchains"].values())


def plan_pairs(docs: list, names: list, base: str | None = None, head: str | None = None,
               head_scale: float | None = None):
    """Decide the mode and return (mode, [(base_name, head_name, base_benches, head_benches, ident)]).
    head_scale: the head file was run with its workloads scaled by this factor (`run --scale`):
    each base benchmark pairs with its scaled counterpart."""
    if len(docs) == 2:
        a, b = docs[0]["benchmarks"], docs[1]["benchmarks"]
        if base or head:
            raise UsageError("--base/--head select sides inside one results file; with two files the first is the base")
        if head_scale and head_scale != 1:
            return "files", [(names[0], names[1], a, b, _ScaledIdent(head_scale, catalogue.load()))]
        ids_a = {_id_without_label(x["key"]) for x in a}
        ids_b = {_id_without_label(x["key"]) for x in b}
        ident = _id_without_label
        # Different toolchains in the two files (e.g. go1.25 run against go1.26 run): pair by family.
        if not ids_a & ids_b and _unique(a, _family_lang) and _unique(b, _family_lang):
            ident = _family_lang
        return "files", [(names[0], names[1], a, b, ident)]

    doc = docs[0]
    benches = doc["benchmarks"]
    sides = side_names(doc)
    if base or head:
        if not (base and head):
            raise UsageError("give both --base and --head")
        return _explicit(benches, sides, base, head)
    if {"base", "head"} <= set(sides["labels"]):
        return "labels", [("base", "head", [x for x in benches if x["key"].get("label") == "base"],
                           [x for x in benches if x["key"].get("label") == "head"], _id_without_label)]
    groups = []
    for lang, tcs in sorted(sides["toolchains"].items()):
        for old, new in zip(tcs, tcs[1:]):
            groups.append((old, new, [x for x in benches if x["key"]["toolchain"] == old],
                           [x for x in benches if x["key"]["toolchain"] == new], _family_lang))
    if groups:
        return "toolchains", groups
    raise UsageError(
        f"{names[0]}: nothing to compare in one file: it needs labels base/head or two toolchains of a "
        f"language; or name two sides with --base/--head (builds: {', '.join(sides['builds'])})")


class _ScaledIdent:
    """Pairing id that maps a base key to its scaled form (head keys pass unchanged)."""

    def __init__(self, factor: float, cat):
        self.factor, self.cat = factor, cat

    def base(self, key: dict) -> str:
        return _id_without_label(scaling.scale_key(key, self.factor, self.cat))

    def __call__(self, key: dict) -> str:
        return _id_without_label(key)


def _family_lang(key: dict) -> str:
    return family_id(key)  # the build names the language


def names_toolchain(bench: dict, name: str) -> bool:
    """Whether a side name names this benchmark's toolchain, the way people name versions:
    its channel as built (stable, oldstable, beta, nightly, local, 1.25.x), its exact id
    (go1.26.8, rust1.95.0), the version alone (1.90.0, 1.26.8), or a Go minor (1.25.x)."""
    tc, lang = bench["key"]["toolchain"], bench["key"]["lang"]
    if name in (bench.get("channel"), tc, f"{lang}{name}"):
        return True
    m = re.match(r"^(?:go|rust)?(\d+\.\d+)\.x$", name)
    return bool(m) and tc.startswith(f"{lang}{m.group(1)}.")


def _toolchain_sides(benches, base, head):
    """Per language: the benchmarks whose toolchain the base and the head name."""
    groups = []
    for lang in sorted({b["key"]["lang"] for b in benches}):
        mine = [b for b in benches if b["key"]["lang"] == lang]
        sides = [[b for b in mine if names_toolchain(b, n)] for n in (base, head)]
        if not all(sides):
            continue
        ids = [sorted({b["key"]["toolchain"] for b in side}) for side in sides]
        for name, found in zip((base, head), ids):
            if len(found) > 1:
                raise UsageError(f"{name!r} names {len(found)} {lang} toolchains of the file "
                                 f"({', '.join(found)}); name one")
        if ids[0] == ids[1]:
            raise UsageError(f"--base {base!r} and --head {head!r} are the same {lang} toolchain ({ids[0][0]})")
        groups.append((ids[0][0], ids[1][0], sides[0], sides[1], _family_lang))
    return groups


def _explicit(benches, sides, base, head):
    if base in sides["labels"] and head in sides["labels"]:
        return "labels", [(base, head, [x for x in benches if x["key"].get("label") == base],
                           [x for x in benches if x["key"].get("label") == head], _id_without_label)]
    groups = _toolchain_sides(benches, base, head)
    if groups:
        return "toolchains", groups
    if base in sides["builds"] and head in sides["builds"]:
        return "builds", [(base, head, [x for x in benches if x["key"]["build"] == base],
                           [x for x in benches if x["key"]["build"] == head], _id_without_build)]
    chans = sorted({f"{b['key']['lang']} {b['channel']}" for b in benches if b.get("channel")})
    raise UsageError(f"--base {base!r} and --head {head!r} are not two labels, toolchains or builds of the file "
                     f"(labels: {', '.join(sides['labels']) or 'none'}; builds: {', '.join(sides['builds'])}; "
                     f"toolchains: {', '.join(t for v in sides['toolchains'].values() for t in v)}"
                     + (f"; channels: {', '.join(chans)}" if chans else "") + ")")


# ---------------------------------------------------------------- comparing

def compare_bench(pid: str, base_name: str, head_name: str, b: dict | None, h: dict | None,
                  settings: Settings, paired: bool = False,
                  looks: multitest.Looks = multitest.Looks.fixed()) -> BenchComparison:
    """One benchmark's verdicts before the correction across tests (`correct`).
    paired: run i of each side was taken beside the other's run i (one A/B run).
    looks: the run sampled until sure (runner.Sequential): the paired tests are made at
    alpha / the number of looks that can flag."""
    key = (h or b)["key"]
    if b is None or h is None:
        where = base_name if b is None else head_name
        return BenchComparison(pid, key, base_name, head_name, MISSING, note=f"not measured in {where}")
    for side, bench in sorted(((base_name, b), (head_name, h)), key=lambda sb: sb[1]["status"] != "failed"):
        if bench["status"] != "ok":
            reason = " ".join(str(bench.get("reason", "")).split())[:200]
            return BenchComparison(pid, key, base_name, head_name, FAILED if bench["status"] == "failed" else SKIPPED,
                                   note=f"{bench['status']} in {side}: {reason}")
    contended = 0
    if not settings.keep_contended:
        if paired and len(b.get("records", ())) == len(h.get("records", ())):
            drop = set(measures.contended_runs(b)) | set(measures.contended_runs(h))
            b, h, contended = measures.without_runs(b, drop), measures.without_runs(h, drop), len(drop)
        else:
            db, dh = measures.contended_runs(b), measures.contended_runs(h)
            b, h, contended = measures.without_runs(b, db), measures.without_runs(h, dh), len(db) + len(dh)
    found = {}
    for metric in METRICS.values():
        xs, ys = metric.samples(b), metric.samples(h)
        if (not xs and not ys) or (metric.optional and not (xs and ys)):
            continue  # e.g. a platform without memory figures; a side without an optional metric
        sequential = paired and len(xs) == len(ys) and metric.test == "rank"   # sampled until sure
        found[metric.name] = metric.compare(xs, ys, paired=paired,
                                            alpha=settings.alpha / max(1, len(looks.spending)) if sequential
                                            else settings.alpha,
                                            threshold=settings.threshold_for(metric.name),
                                            confidence=settings.confidence, seed=settings.seed,
                                            # a count's second look (instructions.TOP_UP_GATE)
                                            looks=max(metric.looks(b), metric.looks(h)) if metric.looks else 1)
    shared = _shared_counts(b, h)
    if "instructions" in found and shared == ONE_PROGRAM:
        # the same bytes running the same command: no change by construction, whatever a
        # test of one sample against itself can resolve from a few counts
        found["instructions"] = replace(found["instructions"], ratio=1.0, ci_low=1.0, ci_high=1.0,
                                         p_value=1.0, verdict=stats.NO_CHANGE, note=ONE_PROGRAM)
    busy = [side for side, bench in ((base_name, b), (head_name, h)) if measures.CONTENDED in str(bench.get("reason", ""))]
    unsteady = next((w for w in (instructions.not_judged_why(x.get("instructions")) for x in (h, b)) if w), "")
    note = "; ".join(x for x in (
        f"{contended} contended {'pair' if paired else 'run'}{'s' * (contended != 1)} left out" if contended else "",
        f"{' and '.join(busy)} ran beside other work" if busy else "", unsteady, shared) if x)
    return BenchComparison(pid, key, base_name, head_name, _overall(found), found, note, contended)


ONE_PROGRAM = "instructions: one program on both sides (the same bytes), counted once"


def _shared_counts(b: dict, h: dict) -> str:
    """The note of a pair whose counts are another benchmark's (instructions.measure_group):
    ONE_PROGRAM where they are one program's, counted once (a side took the other's, or both
    took one earlier benchmark's), else the earlier benchmark with the same command."""
    said = [(x.get("instructions") or {}).get("same_as") for x in (b, h)]
    if not any(said):
        return ""
    if said[0] == h.get("id") or said[1] == b.get("id") or said[0] == said[1]:
        return ONE_PROGRAM
    return f"instructions: the counts of {said[1] or said[0]} (the same command under Valgrind)"


def _overall(by_metric: dict) -> str:
    verdicts = [c.verdict for c in by_metric.values()] or [stats.TOO_FEW]
    overall = min(verdicts, key=lambda v: SEVERITY[v])
    if stats.TOO_FEW in verdicts and overall == stats.NO_CHANGE:
        overall = stats.TOO_FEW
    return overall


def correct(comparisons: list, settings: Settings, looks: multitest.Looks = multitest.Looks.fixed(),
            tests: int | None = None) -> list:
    """The comparisons with every tested metric's p-value corrected across the looks and
    across all of these tests (multitest), and a flag kept only where the corrected
    p-value is below alpha. tests: judge them as part of that many tests (calibrate)."""
    tested = [(c, m, mc) for c in comparisons for m, mc in c.metrics.items()
              if mc.p_value is not None and mc.verdict != stats.TOO_FEW]
    # the looks of sampling until sure concern the timed runs (a count's test is made once)
    raw = [min(1.0, mc.p_value * (looks.factor(mc.n_base) if mc.paired and METRICS[m].test == "rank" else 1.0))
           for _, m, mc in tested]
    adjusted = multitest.adjust(raw, settings.correction, tests)
    m = max(len(tested), tests or 0)
    what = (f"{m} tests (Benjamini-Hochberg)" if settings.correction == "bh" else "no other tests")
    if looks.looks:
        what += f" and {len(looks.spending)} looks that can flag"
    changed: dict[int, dict] = {}
    for (c, metric, mc), q in zip(tested, adjusted):
        new = replace(mc, p_adjusted=q)
        if mc.flagged and not q < settings.alpha:
            new = replace(new, verdict=stats.TOO_FEW,
                          note=f"not enough runs for a verdict: p = {mc.p_value:.2g} on its own, {q:.2g} after "
                               f"correcting for {what}, not below {settings.alpha:g}")
        changed.setdefault(id(c), dict(c.metrics))[metric] = new
    return [replace(c, metrics=changed[id(c)], verdict=_overall(changed[id(c)])) if id(c) in changed else c
            for c in comparisons]


def compare_docs(docs: list, names: list, settings: Settings | None = None, base: str | None = None,
                 head: str | None = None, calibration: dict | None = None, head_scale: float | None = None) -> Report:
    """Compare one or two loaded results documents (results.load). head_scale: see plan_pairs
    (default: the ratio of the files' env.scale when `run --scale` recorded it)."""
    settings = settings or Settings()
    if head_scale is None and len(docs) == 2:
        sa, sb = (float(d["env"].get("scale", 1) or 1) for d in docs)
        head_scale = sb / sa if sa != sb else None
    mode, groups = plan_pairs(docs, names, base, head, head_scale)
    looks = multitest.Looks.from_env(docs[-1]["env"].get("sequential")) if len(docs) == 1 else multitest.Looks.fixed()
    out = []
    for base_name, head_name, bs, hs, ident in groups:
        bi, hi = _index(bs, getattr(ident, "base", ident)), _index(hs, ident)
        for pid in sorted(set(bi) | set(hi)):
            # One run's sides ran interleaved, round by round (runner.run_group): paired.
            out.append(compare_bench(pid, base_name, head_name, bi.get(pid), hi.get(pid), settings,
                                     paired=mode in ("labels", "toolchains"), looks=looks))
    out = correct(out, settings, looks)
    out.sort(key=lambda c: (SEVERITY[c.verdict], c.id, toolchain_order(c.head)))
    return Report(mode, list(names), settings, out, calibration, docs[-1].get("env"), head_scale)


# ---------------------------------------------------------------- compiler versions, for the history

def _round(x):
    return None if x is None else float(f"{x:.6g}")


def toolchain_verdicts(doc: dict) -> dict[str, dict]:
    """benchmark id -> its comparison with the next older toolchain of its language in
    the same run (measured interleaved on one runner: the toolchains mode, paired, the
    statistics of pull requests), as the history keeps it (an entry's `versus`). Empty
    for A/B runs and single-toolchain runs."""
    if is_ab(doc) or not has_pairs(doc) or not any(b["records"] for b in doc["benchmarks"]):
        return {}  # (no records: a synthetic history has no timed windows to compare)
    chan = {b["key"]["toolchain"]: b.get("channel") for b in doc["benchmarks"]}
    report = compare_docs([doc], ["results"])
    out = {}
    for c in report.comparisons:
        if c.verdict in (MISSING, FAILED, SKIPPED) or c.key["toolchain"] != c.head:
            continue
        v = {"toolchain": c.base, "verdict": c.verdict, "metrics": {}}
        if chan.get(c.base):
            v["channel"] = chan[c.base]
        for m, sc in c.metrics.items():
            v["metrics"][m] = {k: _round(getattr(sc, k)) for k in ("ratio", "ci_low", "ci_high", "p_value", "resolution")}
            v["metrics"][m]["verdict"] = sc.verdict
        out[key_id(c.key)] = v
    return out
