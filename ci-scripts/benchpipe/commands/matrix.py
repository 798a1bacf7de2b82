"""`bench matrix`: the bench workflow's job matrix, as JSON for `fromJSON()`.

One row per (runner, Go version, Rust toolchain, shard). The event picks the defaults
(pull_request: quick preset, Go stable, Rust stable; push: standard preset; schedule:
standard preset across Go oldstable/stable and Rust stable/beta/nightly); the
workflow_dispatch inputs override them. Large presets are split into shards by
scenario, so each job stays well inside GitHub's job time limit. The scenarios come
from the catalogue; nothing here repeats them.

Row fields: id (artifact-safe, unique), name (job title), runs-on (a label or a list
of labels), go (for actions/setup-go), rust (for `bench build --rust`), preset,
scenarios (comma-separated, for `bench run --scenario`), shard ("i/n").
"""

from __future__ import annotations

import json
import re
import sys

from benchpipe import catalogue
from benchpipe.errors import UsageError

NAME = "matrix"
HELP = "the bench workflow's job matrix (runners x toolchains x shards) as JSON"

EVENTS = ("pull_request", "push", "schedule", "workflow_dispatch")
DEFAULT_OS = ("ubuntu-latest", "windows-latest", "macos-latest")
# event -> (preset, Go versions, Rust toolchains) when no input says otherwise
EVENT_DEFAULTS = {
    "pull_request": ("quick", ("stable",), ("stable",)),
    "push": ("standard", ("stable",), ("stable",)),
    "schedule": ("standard", ("oldstable", "stable"), ("stable", "beta", "nightly")),
    "workflow_dispatch": ("quick", ("stable",), ("stable",)),
}
# Benchmarks per shard (0: one shard). A pull request runs base and head interleaved,
# so quick is twice the work of a plain quick run; it still fits one job.
SHARD_BENCHMARKS = {"smoke": 0, "quick": 0, "standard": 40, "full": 16}
MAX_JOBS = 256  # GitHub's limit for one matrix

_GO_RE = re.compile(r"^(stable|oldstable|\d+\.\d+(\.\d+|\.x)?)$")
_RUST_RE = re.compile(r"^(local|stable|beta|nightly|nightly-\d{4}-\d{2}-\d{2}|\d+\.\d+(\.\d+)?)$")
_LABEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def add_arguments(p):
    p.add_argument("--event", required=True, help=f"the GitHub event name ({', '.join(EVENTS)})")
    p.add_argument("--preset", default="", help="preset (empty: the event's default)")
    p.add_argument("--scenarios", default="", help="comma-separated scenarios (empty: all)")
    p.add_argument("--os", default="", help=f"comma-separated runner labels, one job each (empty: {','.join(DEFAULT_OS)})")
    p.add_argument("--go", default="", help="comma-separated Go versions for actions/setup-go (stable, oldstable, 1.25.x)")
    p.add_argument("--rust", default="", help="comma-separated Rust toolchains (stable, beta, nightly, 1.90.0; local: the runner's own)")
    p.add_argument(
        "--runners", default="",
        help="self-hosted runners instead of --os: ';'-separated label sets, each comma-separated "
             "(e.g. 'self-hosted,linux,x64;self-hosted,macOS,ARM64')",
    )
    p.add_argument("--shard-benchmarks", type=int, default=None, help="benchmarks per shard (0: no sharding; default by preset)")
    p.add_argument("--github-output", metavar="FILE", help="also append `matrix=<json>` to this file ($GITHUB_OUTPUT)")


def _split(text: str) -> list[str]:
    return [v.strip() for v in text.split(",") if v.strip()]


def _check(kind: str, values: list[str], pattern: re.Pattern) -> list[str]:
    for v in values:
        if not pattern.match(v):
            raise UsageError(f"bad {kind} {v!r}")
    if len(set(values)) != len(values):
        raise UsageError(f"{kind} listed twice in {','.join(values)}")
    return values


def runners(os_text: str, runners_text: str) -> list[tuple[str, object]]:
    """[(slug, runs-on)]: runs-on is a label, or a list of labels for a self-hosted set."""
    if runners_text.strip() and os_text.strip():
        raise UsageError("give --os or --runners, not both (--runners replaces --os)")
    if runners_text.strip():
        out = []
        for entry in runners_text.split(";"):
            labels = _check("runner label", _split(entry), _LABEL_RE)
            if not labels:
                continue
            out.append(("-".join(labels), labels if len(labels) > 1 else labels[0]))
        if not out:
            raise UsageError("--runners names no labels")
        return out
    labels = _check("runner label", _split(os_text) or list(DEFAULT_OS), _LABEL_RE)
    return [(label, label) for label in labels]


def shards(counts: dict[str, int], per_shard: int) -> list[list[str]]:
    """Scenarios packed into shards of at most `per_shard` benchmarks (first fit,
    biggest first; a scenario bigger than that is a shard of its own), each shard's
    scenarios in catalogue order."""
    names = list(counts)
    if per_shard <= 0:
        return [names]
    bins: list[tuple[int, list[str]]] = []
    for name in sorted(names, key=lambda n: -counts[n]):
        for i, (size, members) in enumerate(bins):
            if size + counts[name] <= per_shard:
                bins[i] = (size + counts[name], members + [name])
                break
        else:
            bins.append((counts[name], [name]))
    order = {n: i for i, n in enumerate(names)}
    packed = [sorted(members, key=order.get) for _, members in bins]
    return sorted(packed, key=lambda m: order[m[0]])


def build(args) -> dict:
    if args.event not in EVENTS:
        raise UsageError(f"unknown event {args.event!r} (known: {', '.join(EVENTS)})")
    preset0, go0, rust0 = EVENT_DEFAULTS[args.event]
    preset = args.preset.strip() or preset0
    cat = catalogue.load()
    cat.preset(preset)  # unknown preset: usage error
    # `build` and `run` spell a Go toolchain go1.25.5; actions/setup-go wants 1.25.5
    go = _check("Go version", [v[2:] if re.match(r"^go\d", v) else v for v in _split(args.go)] or list(go0),
                _GO_RE)
    rust = _check("Rust toolchain", _split(args.rust) or list(rust0), _RUST_RE)
    asked = _split(args.scenarios) or None
    specs = cat.benchmarks(preset, scenarios=asked)  # unknown scenario: usage error
    counts: dict[str, int] = {}
    for s in specs:
        counts[s.scenario.name] = counts.get(s.scenario.name, 0) + 1
    if not counts:
        raise UsageError(f"preset {preset} selects no benchmarks")
    per_shard = SHARD_BENCHMARKS[preset] if args.shard_benchmarks is None else args.shard_benchmarks
    groups = shards(counts, per_shard)
    rows = []
    for slug, runs_on in runners(args.os, args.runners):
        for g in go:
            for r in rust:
                for i, group in enumerate(groups, 1):
                    shard = f"{i}/{len(groups)}"
                    ident = f"{slug}-go-{g}-rust-{r}" + (f"-shard{i}of{len(groups)}" if len(groups) > 1 else "")
                    title = f"{slug} go {g} rust {r}" + (f" ({shard}: {','.join(group)})" if len(groups) > 1 else "")
                    rows.append({
                        "id": re.sub(r"[^A-Za-z0-9._-]", "_", ident),
                        "name": title,
                        "runs-on": runs_on,
                        "go": g,
                        "rust": r,
                        "preset": preset,
                        "scenarios": ",".join(group),
                        "shard": shard,
                    })
    if len(rows) > MAX_JOBS:
        raise UsageError(f"{len(rows)} jobs: more than GitHub's {MAX_JOBS} per matrix; choose fewer runners or toolchains")
    return {"include": rows}


def run(args) -> int:
    matrix = build(args)
    text = json.dumps(matrix, separators=(",", ":"))
    if args.github_output:
        with open(args.github_output, "a", encoding="utf-8") as fh:
            fh.write(f"matrix={text}\n")
    print(text)
    rows = matrix["include"]
    print(f"matrix: {len(rows)} jobs, preset {rows[0]['preset']}, {rows[0]['shard'].split('/')[1]} shard(s) per runner and toolchain",
          file=sys.stderr)
    return 0
