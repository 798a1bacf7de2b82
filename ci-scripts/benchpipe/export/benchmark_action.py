"""github-action-benchmark's `customSmallerIsBetter` format: a JSON list of
{name, unit, value, range, extra}, two entries per `ok` benchmark: the program's own
timed window (the primary time, measures.window_s) and peak memory.

Names carry scenario, variant, build, toolchain, A/B label and the key params, e.g.
`hashmap spawn [go go1.26.8] tasks=4000 items=1000 shape=burst rate=10.0 workers=2 - window time`.
They do not carry the OS: the publish workflow keeps one benchmark-data set per OS and
toolchain, so the same name in different sets is the same benchmark on another machine."""

from __future__ import annotations

import statistics

from benchpipe import measures
from benchpipe.report.summary import MiB, quartiles
from benchpipe.runner import display_name


def entries(doc: dict) -> list[dict]:
    env = doc["env"]
    out = []
    for b in doc["benchmarks"]:
        window = measures.window_s(b)
        if b["status"] != "ok" or not window:
            continue
        name = display_name(b["key"])
        q1, med, q3 = quartiles(window)
        extra = (f"{len(window)} runs; the program's own timed window; min {min(window):.6g} s, "
                 f"max {max(window):.6g} s, IQR {q1:.6g}..{q3:.6g} s; "
                 f"{env['os']} {env['arch']} {env['cpu_model']}; commit {env['commit'][:12]}")
        out.append({"name": f"{name} - window time", "unit": "s", "value": round(med, 9),
                    "range": f"± {(q3 - q1) / 2:.6g}", "extra": extra})
        mem = [m / MiB for m in measures.memory_bytes(b)]
        if mem:
            mq1, mmed, mq3 = quartiles(mem)
            out.append({"name": f"{name} - peak memory", "unit": "MiB", "value": round(statistics.median(mem), 3),
                        "range": f"± {(mq3 - mq1) / 2:.3f}",
                        "extra": f"{len(mem)} runs; peak RSS of the program, min {min(mem):.2f} MiB, max {max(mem):.2f} MiB"})
    return out
