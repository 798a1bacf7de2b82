"""The raw samples of recent runs on the gh-pages branch (issue 40: every raw sample of
at least the last 90 days).

The history keeps summaries (median, interval, count, ...), which is what the site and
every analysis read. To re-analyse a recent run another way (another statistic, a
bootstrap, a plot of every run), `bench publish` also writes the per-run values each
summary was made of, one file per run:

    samples/<YYYY-MM>/<run id>.json.xz
    {"schema":"gorust-bench.samples/1","run":..,"date":..,"os":..,"commit":..,
     "benchmarks":{"<benchmark id>":{"wall_s":[..],"user_s":[..],"sys_s":[..],
                                     "peak_rss_bytes":[..],"window_s":[..],...}}}

hyperfine's per-run wall, user and system times and peak memory, and each compared
metric's per-run values (metrics.METRICS: the program's own window, its CPU time,
instructions where counted), in run order, as the results file had them. A run's
samples leave the branch with the first publish more than history_summary.KEEP_DAYS
after it (publish._expire_samples, night by night): at ~90 KB a full-size run they
would pass GitHub's size limits within a few years, and the results files themselves
stay in each run's workflow artifacts."""

from __future__ import annotations

import json
import re

from benchpipe import history, history_summary, metrics

SCHEMA = "gorust-bench.samples/1"
DIR = "samples"
_MONTH = re.compile(r"^[0-9]{4}-[0-9]{2}$")


def rel_of(doc: dict) -> str:
    """The file of a results document's samples, relative to the branch's root."""
    month = history.month_of(history.utc_date(doc["env"]["timestamp"]))
    return f"{DIR}/{month}/{history.run_id_of(doc)}{history_summary.SUFFIX}"


def document(doc: dict) -> dict:
    """The raw samples of a results document's ok benchmarks."""
    benches = {}
    for b in doc["benchmarks"]:
        if b["status"] != "ok":
            continue
        out = {k: list(v) for k, v in b["samples"].items()}
        for m in metrics.METRICS.values():
            xs = m.history_samples(b)
            if xs and m.fields[0] not in out:
                out[m.fields[0]] = list(xs)
        benches[b["id"]] = out
    env = doc["env"]
    return {"schema": SCHEMA, "run": history.run_id_of(doc), "date": history.utc_date(env["timestamp"]),
            "os": env["os"], "commit": env["commit"], "benchmarks": benches}


def data(doc: dict) -> bytes:
    return history_summary.compress(json.dumps(document(doc), separators=(",", ":"), allow_nan=False))


def months(names) -> set[str]:
    """The months of the samples files among these branch paths."""
    parts = (n.split("/") for n in names)
    return {p[1] for p in parts if len(p) == 3 and p[0] == DIR and _MONTH.match(p[1])}
