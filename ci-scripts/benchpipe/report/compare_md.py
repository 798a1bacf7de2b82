"""The compare report as Markdown (PR comment, job summary): a hidden marker so the
workflow finds and updates its one comment, the flagged benchmarks first with ratio,
interval, p-value and run counts, failed and missing ones, then the rest in a
<details> block, and what "flagged" means and what this runner can detect."""

from __future__ import annotations

from benchpipe import instructions, stats, units
from benchpipe.compare import FAILED, MISSING, SKIPPED, Report
from benchpipe.metrics import HEADLINE, METRICS, calibrated
from benchpipe.report.md import code, escape, table

MARKER = "<!-- gorust-bench-comment -->"

ICON = {stats.REGRESSION: "🔴", stats.IMPROVEMENT: "🟢", FAILED: "⚠️", MISSING: "⚠️", SKIPPED: "⚪",
        stats.TOO_FEW: "⚪", stats.NO_CHANGE: ""}


def fmt_value(value, metric: str) -> str:
    return METRICS[metric].text(value)


fmt_ratio = units.ratio


def fmt_ci(c) -> str:
    if c.ci_low is None or c.ci_high is None:
        return "–"
    return f"{c.ci_low:.3f}–{c.ci_high:.3f}"


fmt_p = units.p_value


def _bench_cell(c, show_sides: bool) -> str:
    cell = code(c.id)
    if show_sides:
        cell += f" ({escape(c.base)} → {escape(c.head)})"
    return cell


def _pct(x: float) -> str:
    return f"{x * 100:.3g} %"


def _and(items: list[str]) -> str:
    return ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else "".join(items)


def thresholds_sentence(s) -> str:
    """The practical thresholds, each with the metrics it applies to, as the report reads
    them: "±1.5 % for <time> and <cpu>, ±3 % for <memory>"."""
    groups: dict[float, list[str]] = {}
    for m in METRICS.values():
        groups.setdefault(s.threshold_for(m.name), []).append(m.reading)
    return ", ".join(f"±{_pct(t)} for {_and(readings)}" for t, readings in groups.items())


def render(report: Report) -> str:
    s = report.settings
    show_sides = report.mode == "toolchains" or len({(c.base, c.head) for c in report.comparisons}) > 1
    sides = sorted({(c.base, c.head) for c in report.comparisons})
    title = "; ".join(f"{escape(h)} against {escape(b)}" for b, h in sides) or "nothing to compare"
    out = [MARKER, f"## Benchmarks: {title}", ""]

    n_reg, n_imp = report.count(stats.REGRESSION), report.count(stats.IMPROVEMENT)
    counts = [f"**{n_reg} regression{'s' if n_reg != 1 else ''}**", f"{n_imp} improvement{'s' if n_imp != 1 else ''}",
              f"{report.count(stats.NO_CHANGE)} no change"]
    for v in (FAILED, MISSING, SKIPPED, stats.TOO_FEW):
        if report.count(v):
            counts.append(f"{report.count(v)} {v}")
    out.append(", ".join(counts) + f" ({len(report.comparisons)} benchmarks compared by `{report.mode}`)." )
    env = report.env or {}
    if env:
        where = ", ".join(escape(x) for x in (env.get("os"), env.get("runner"), env.get("cpu_model")) if x)
        cores = env.get("cores")
        out.append(f"Measured on {where}{f', {int(cores)} cores' if cores else ''}; preset "
                   f"{escape(env.get('preset', '?'))}.")
        out += repeat_sentence(env.get("repeat"))
        labels = env.get("labels") or {}
        if labels:
            out.append("Commits: " + ", ".join(f"{escape(k)} {code(str(v)[:12])}" for k, v in sorted(labels.items())) + ".")
    if report.head_scale:
        out.append(f"The head run's workloads were scaled by {report.head_scale:g} (size parameter of each scenario).")
    out += contention_sentence(report)
    out.append("")

    flagged = [c for c in report.comparisons if c.flagged]
    if flagged:
        out += ["### Flagged", ""]
        rows = []
        for c in flagged:
            for metric, m in c.metrics.items():
                if not m.flagged:
                    continue
                rows.append([f"{ICON[m.verdict]} {m.verdict}", _bench_cell(c, show_sides), metric,
                             fmt_value(m.median_base, metric), fmt_value(m.median_head, metric),
                             f"**{fmt_ratio(m.ratio)}**", fmt_ci(m), fmt_p(m.judged_p), f"{m.n_base}+{m.n_head}"])
        out += [table(["verdict", "benchmark", "metric", "base median", "head median", "ratio", "95 % CI", "p", "runs"],
                      rows, ["l", "l", "l", "r", "r", "r", "r", "r", "r"]), ""]

    broken = [c for c in report.comparisons if c.verdict in (FAILED, MISSING, SKIPPED)]
    if broken:
        out += ["### Failed, missing or skipped", ""]
        out += [table(["", "benchmark", "what"], [[ICON[c.verdict], _bench_cell(c, show_sides), escape(c.note)]
                                                    for c in broken]), ""]

    rest = [c for c in report.comparisons if not c.flagged and c.verdict not in (FAILED, MISSING, SKIPPED)]
    if rest:
        out += [f"<details><summary>{len(rest)} not flagged</summary>", ""]
        rows = []
        # an optional metric (instructions: Linux only) gets columns where it was measured
        shown = [n for n, m in METRICS.items() if not m.optional or any(n in c.metrics for c in report.comparisons)]
        for c in rest:
            row = [_bench_cell(c, show_sides)]
            for metric in shown:
                m = c.metrics.get(metric)
                row += [fmt_ratio(m.ratio) if m else "–", fmt_p(m.judged_p) if m else "–"]
            notes = "; ".join(escape(m.note) for m in c.metrics.values() if m.note)
            t = c.metrics.get(HEADLINE.name)
            row += [f"±{_pct(t.resolution)}" if t and t.resolution is not None else "–",
                    escape(c.verdict) + (f" ({notes})" if notes else "")]
            rows.append(row)
        header = (["benchmark"] + [h for m in shown for h in (f"{m} ratio", "p")]
                  + [f"{HEADLINE.name}: could see", "verdict"])
        out += [table(header, rows, ["l"] + ["r"] * (2 * len(shown) + 1) + ["l"]), "", "</details>", ""]

    out += signals_section(report)
    out += ["### How to read this", ""]
    out.append(
        f"Each benchmark ran several times on each side on the same machine. When the sides ran in one run, "
        f"they ran in adjacent pairs (base, head, then head, base, ...), and the test is on the pairs: *ratio* "
        f"is the typical within-pair ratio head / base (above 1: head is slower or uses more memory: the "
        f"Hodges-Lehmann estimate, which one wild pair cannot drag), with the {s.confidence:.0%} interval of the "
        f"same test, and *p* is the two-sided Wilcoxon signed-rank test on the pairs, which cancels the "
        f"machine's drift. Sides from two "
        f"runs are compared unpaired: ratio of medians, Mann-Whitney U. An interleaved run samples until sure: "
        f"after its first runs it adds rounds (looks at, e.g., 10, 20 and 30 pairs, then 60 and 120 for a "
        f"benchmark short enough to take them within the preset's time budget) while a comparison is still "
        f"undecided and more pairs could decide it (a benchmark too noisy for the pairs left stops early; its "
        f"*could see* says how coarse it was). {_correction_sentence(s)} *Could see*: the smallest change in the {HEADLINE.label} "
        f"that comparison could tell from noise (the threshold, or its interval's reach when wider). "
        f"A benchmark is **flagged** only when that corrected p < {s.alpha:g} **and** the ratio is beyond the "
        f"practical threshold: {thresholds_sentence(s)}. "
        f"A smaller difference, or one the runs cannot tell from noise, is reported as no change. A difference "
        f"significant on its own but not after the correction, or runs too few to ever reach it (fewer than "
        f"{stats.MIN_SAMPLES} a side, 5+5 unpaired, 7 pairs), is *too few samples*: not enough runs for a verdict.")
    out.append("")
    out.append(calibration_sentence(report.calibration))
    out.append("")
    return "\n".join(out)


def _change(m) -> str:
    """`+1.20 % [+1.15, +1.26]`: a metric's change with its interval, in percent."""
    text = units.change_pct(m.ratio)
    if m.ci_low is not None and m.ci_high is not None:
        text += f" [{units.change_pct(m.ci_low, '')}, {units.change_pct(m.ci_high, '')}]"
    return text


def disagreements(report: Report, a: str = HEADLINE.name, b: str = "instructions") -> list[str]:
    """One line per benchmark where one signal moved and the other did not: the most
    useful thing a reader can learn (a wall-clock change without an instruction change is
    in waiting, scheduling or the kernel; the other way, work the wall clock's noise hides)."""
    lines = []
    for c in report.comparisons:
        ma, mb = c.metrics.get(a), c.metrics.get(b)
        if not ma or not mb or ma.flagged == mb.flagged or stats.TOO_FEW in (ma.verdict, mb.verdict):
            continue
        lines.append(f"- {code(c.id)}: " + instructions.disagreement((METRICS[a].label, _change(ma)),
                                                                   (METRICS[b].label, _change(mb)), ma.flagged) + ".")
    return lines


def signals_section(report: Report) -> list[str]:
    """What each signal sees and cannot, and where they disagree."""
    seen = {m for c in report.comparisons for m in c.metrics}
    counted = (report.env or {}).get("instructions") or {}
    if "instructions" not in seen and not counted:
        return []
    out = ["### Two signals", ""]
    out += [f"- {escape(m.sees)}." for m in METRICS.values() if m.sees]
    if counted and not counted.get("measured"):
        out.append(f"- instructions on this runner: {escape(counted.get('why', 'not measured'))}.")
    elif counted:
        out.append(f"- counted with {escape(counted.get('valgrind', 'valgrind'))} "
                   f"({escape(' '.join(counted.get('options', ())))}), {counted.get('runs', '?')} runs a side"
                   + (" (as many more where the two sides' first counts differed suggestively, at a p above "
                      "1e-6; 1e-6 added to p for the two looks, p doubled where the sides come from two runs)" if counted.get("second_look") else "") + "; "
                   f"benchmarks whose counts scatter more than {instructions.REPORT_CV * 100:g} % in this run are shown "
                   "as not deterministic, without a verdict, and those the catalogue declares so (calibrate measured "
                   "them) are not counted.")
    out.append("")
    dis = disagreements(report)
    if dis:
        out += ["Where the signals disagree:", "", *dis, ""]
    return out


def contention_sentence(report: Report) -> list[str]:
    """A warning when some windows shared the machine with other work (measures: the
    machine's busy time less the program's, plus steal): which benchmarks, and how many
    of their runs the comparison left out."""
    hit = [c for c in report.comparisons if c.contended or "beside other work" in c.note]
    if not hit:
        return []
    left = sum(c.contended for c in report.comparisons)
    names = ", ".join(code(c.id) for c in hit[:8]) + (f" and {len(hit) - 8} more" if len(hit) > 8 else "")
    return [f"⚠️ **{len(hit)} benchmark{'s' * (len(hit) != 1)} shared the machine with other work** during some "
            f"timed windows ({names}): their figures are not the programs' alone. "
            + (f"{left} contended run{'s' * (left != 1)} (with {'their' if left != 1 else 'its'} pairs) "
               "left out of the comparison; `bench compare --keep-contended` keeps them." if left else "")]


def repeat_sentence(plan) -> list[str]:
    """How a run with a repeat plan (results env.repeat) measured its short benchmarks."""
    if not isinstance(plan, dict):
        return []
    try:
        target, least = float(plan["target_s"]), int(plan["min"])
    except (KeyError, TypeError, ValueError):
        return []
    return [f"A benchmark whose timed window was under {units.seconds(target / least)} ran its scenario several "
            f"times in each process (the windows adding up to about {units.seconds(target)}), and each run's "
            "window is the median of its windows after the first: warm windows, without the process's start-up; "
            "every benchmark at the same scenario and parameters, Go and Rust alike, was measured the same way."]


def _correction_sentence(s) -> str:
    if s.correction == "none":
        return ("*p* is multiplied by the number of looks that can flag, and not corrected across the metrics "
                "and benchmarks of this report (`--correction none`): with many tests, expect false alarms.")
    return (f"*p* is corrected twice, so that identical code is flagged in at most {s.alpha:.0%} of reports: "
            f"multiplied by the number of looks that can flag, then across every metric and benchmark of this "
            f"report by the Benjamini-Hochberg procedure (a false discovery rate of {s.alpha:.0%}; the raw p is in "
            f"the JSON report).")


def calibration_sentence(cal: dict | None) -> str:
    if not cal:
        return ("*This runner has not been calibrated*: how often it raises false alarms and the smallest "
                "slowdown it detects are unknown (`ci-scripts/bench calibrate` measures both).")
    summ = cal.get("summary", {})
    fa, det, factor = summ.get("false_alarm_rate"), summ.get("detection_rate"), cal.get("factor")
    n_aa, n_ab = summ.get("aa_comparisons"), summ.get("ab_comparisons")
    when = escape(str(cal.get("timestamp", ""))[:10])
    machine = cal.get("machine", {})
    what = ", ".join(escape(x) for x in (machine.get("runner"), machine.get("cpu_model")) if x)
    parts = [f"**What this runner can detect** (calibrated {when}{f' on {what}' if what else ''}, "
             f"{escape(cal.get('runs', '?'))} runs a side, {escape(len(cal.get('families', [])))} benchmark families): "]
    rep = summ.get("report") or {}
    rfa, rdet = rep.get("false_alarms") or {}, rep.get("detections") or {}
    # how calibrate made B slower: each window held open (default) or a scaled size
    slower = (f"a timed window held open {_pct(float(factor) - 1)} longer" if cal.get("inject") == "window"
              else f"a {_pct(float(factor) - 1)} heavier workload") if factor else ""
    # the metrics calibrate's slowdown moves (benchpipe.metrics): their regressions are detections
    detecting = calibrated(detect=True)
    if rfa.get("comparisons") and rdet.get("comparisons") and factor:
        # what this report does with a benchmark: flags it on any metric
        parts.append(f"a benchmark flagged (on any metric) in {rfa['rate']:.1%} of {rfa['comparisons']} A/A "
                     f"comparisons; {slower} flagged as a regression ({' or '.join(m.label for m in detecting)}) "
                     f"in {rdet['rate']:.1%} of {rdet['comparisons']}. {HEADLINE.label[:1].upper()}{HEADLINE.label[1:]} alone: ")
        det_seen = rdet["rate"]
    else:
        det_seen = det
    if fa is not None:
        parts.append(f"false alarms in {fa:.1%} of {n_aa} A/A comparisons; ")
    if det is not None and factor:
        parts.append(f"{slower} flagged in {det:.1%} of {n_ab} comparisons.")
    for m in detecting:
        got = (summ.get(m.name) or {}) if m is not HEADLINE else {}   # the headline's: above
        mfa, mdet = ((got.get(k) or {}).get("rate") for k in ("false_alarms", "detections"))
        if mfa is not None and mdet is not None:
            parts.append(f" {m.label}: {mfa:.1%} false alarms, {mdet:.1%} detected.")
    if det_seen is not None and factor:
        if det_seen >= 0.95:
            parts.append(f" Changes of {_pct(float(factor) - 1)} and more are reliably flagged here; smaller ones may not be.")
        else:
            parts.append(f" A {_pct(float(factor) - 1)} change is missed {1 - det_seen:.0%} of the time here: only larger "
                         f"changes are reliably flagged.")
    return "".join(parts)
