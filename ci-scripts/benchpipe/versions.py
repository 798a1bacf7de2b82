"""The Compiler versions page's data: per OS, every benchmark's newer compiler against
the next older one of its language, measured in the same run on one runner (the
history entries' `versus`, from `compare.toolchain_verdicts`), regressions first,
with how that ratio moved over the nights.

A row is one series' newest point that carries a verdict, with every compared metric
(benchpipe.metrics; None where not measured); its trail is the headline metric's ratio
in the same comparison (same channels) on the series' earlier points, oldest first."""

from __future__ import annotations

import math

from benchpipe import instructions, stats, trends, units
from benchpipe.metrics import HEADLINE, METRICS
from benchpipe.results import format_params

FLAGGED = (stats.REGRESSION, stats.IMPROVEMENT)
ORDER = {"regression": 0, "failed": 1, "missing": 2, "improvement": 3, "too few samples": 4, "no change": 5}
TRAIL = 14  # nights of ratios shown beside each row


def _metric(v: dict, name: str) -> dict:
    """One metric of a verdict, every figure present (None: not measured)."""
    m = (v.get("metrics") or {}).get(name) or {}
    out = {k: m.get(k) for k in ("ratio", "ci_low", "ci_high", "p_value", "resolution", "verdict")}
    out["flagged"] = out["verdict"] in FLAGGED
    return out


def disagreement(metrics: dict) -> str:
    """One sentence where one signal moved and the other did not (the wall clock's
    window against the instruction count; '' where they agree or either is missing)."""
    wall, count = metrics.get(HEADLINE.name) or {}, metrics.get("instructions") or {}
    if not wall.get("verdict") or not count.get("verdict") or stats.TOO_FEW in (wall["verdict"], count["verdict"]):
        return ""
    if wall["flagged"] == count["flagged"]:
        return ""
    return instructions.disagreement((HEADLINE.label, units.change_pct(wall.get("ratio"))),
                                     (METRICS["instructions"].label, units.change_pct(count.get("ratio"))),
                                     wall["flagged"])


def older_side(v: dict) -> str:
    """The older side of a `versus` verdict: its channel, else its exact toolchain."""
    return v.get("channel") or v["toolchain"]


def _trail(s: trends.Series, older: str) -> list[float]:
    """The last TRAIL headline ratios of series s against this older side, oldest first:
    read from the newest point back (ten years are 3,650 points a series, of which 14 are
    shown)."""
    trail = []
    for o, ratio in zip(reversed(s.versus_older), reversed(s.versus_ratio)):
        if o == older and ratio is not None:
            trail.append(ratio)
            if len(trail) == TRAIL:
                break
    return trail[::-1]


def rows(model: trends.Model) -> dict[str, list[dict]]:
    """OS -> rows, regressions first, then by how far the headline ratio is from 1."""
    out: dict[str, list[dict]] = {}
    for s in model.series.values():
        e = s.last
        v = e.get("versus")
        if not v:
            continue
        older = older_side(v)
        trail = _trail(s, older)
        k = e["key"]
        metrics = {name: _metric(v, name) for name in METRICS}
        out.setdefault(s.os, []).append({
            "os": s.os, "lang": k["lang"], "scenario": k["scenario"], "variant": k["variant"], "build": k["build"],
            "params": format_params(k["params"]),
            "older": v["toolchain"], "older_channel": v.get("channel", ""),
            "newer": k["toolchain"], "newer_channel": s.channel if s.channel != k["toolchain"] else "",
            "verdict": v["verdict"], "metrics": metrics, "disagree": disagreement(metrics), "trail": trail,
            "date": e["date"], "commit": e["commit"],
            "message": (model.runs.get(e["run"], {}).get("commit_message") or "").split("\n")[0][:200],
            "chart": f"charts/{trends.trend_chart_name(k, s.os)}.svg",
        })
    for rs in out.values():
        rs.sort(key=lambda r: (ORDER.get(r["verdict"], 9), -abs(math.log(r["metrics"][HEADLINE.name]["ratio"] or 1)),
                               r["scenario"], r["variant"], r["build"], r["params"]))
    return dict(sorted(out.items()))


def summary(rs: list[dict]) -> dict:
    """Counts per verdict and the geometric mean of the headline ratios of one OS's rows."""
    counts: dict[str, int] = {}
    logs = []
    for r in rs:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        ratio = r["metrics"][HEADLINE.name]["ratio"]
        if (ratio or 0) > 0:
            logs.append(math.log(ratio))
    ordered = dict(sorted(counts.items(), key=lambda kv: ORDER.get(kv[0], 9)))  # regressions first
    return {"counts": ordered, "geomean": math.exp(sum(logs) / len(logs)) if logs else None}
