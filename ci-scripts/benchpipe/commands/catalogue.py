"""`bench catalogue`: the benchmarks a preset expands to, as a table or JSON (the
workflows read the JSON form to build their matrix); `--write-programs` writes the Go
program's scenario table from the catalogue, `--check-programs` fails when it is stale."""

from __future__ import annotations

import json

from benchpipe import catalogue, program_tables
from benchpipe.errors import BenchError
from benchpipe.results import format_params

NAME = "catalogue"
HELP = "list the scenarios, variants and benchmarks of a preset"


def add_arguments(p):
    p.add_argument("--preset", default="quick", help="smoke, quick, standard or full (default: quick)")
    p.add_argument("--scenario", action="append", help="only this scenario (repeatable, or comma-separated)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    gen = p.add_mutually_exclusive_group()
    gen.add_argument("--write-programs", action="store_true",
                     help="write the Go program's scenario table (go/scenarios.go) from the catalogue")
    gen.add_argument("--check-programs", action="store_true",
                     help="fail when go/scenarios.go is not what the catalogue makes")


def add_filter_arguments(p) -> None:
    """The benchmark filters that run, calibrate and pipeline take (read back by select)."""
    p.add_argument("--scenario", action="append", help="only these scenarios (repeatable or comma-separated)")
    p.add_argument("--variant", action="append", help="only these variants")
    p.add_argument("--lang", action="append", help="only these languages (go, rust)")
    p.add_argument("--build", action="append", help="only these builds (go, rust-system, rust-mimalloc)")


def select(cat: catalogue.Catalogue, preset: str, args) -> list:
    """The benchmarks of `preset` that the filters of add_filter_arguments let through."""
    return cat.benchmarks(preset, scenarios=split_list(args.scenario), variants=split_list(args.variant),
                          langs=split_list(args.lang), builds=split_list(args.build))


def split_list(values) -> list[str] | None:
    """--x a,b --x c -> [a, b, c]; None when not given or empty (`--build ""`: no filter)."""
    if not values:
        return None
    return [v.strip() for item in values for v in item.split(",") if v.strip()] or None


def run(args) -> int:
    cat = catalogue.load()
    if args.write_programs:
        changed = program_tables.write(cat)
        print(f"wrote {', '.join(changed)}" if changed else "the programs' scenario tables are up to date")
        return 0
    if args.check_programs:
        stale = program_tables.stale(cat)
        if stale:
            raise BenchError(f"{', '.join(stale)} is not what ci-scripts/catalogue.toml makes: run "
                             "`ci-scripts/bench catalogue --write-programs`")
        return 0
    specs = cat.benchmarks(args.preset, scenarios=split_list(args.scenario))
    if args.json:
        out = {
            "preset": args.preset,
            "scenarios": sorted({s.scenario.name for s in specs}),
            "benchmarks": [
                {"scenario": s.scenario.name, "variant": s.variant, "build": s.build.name, "params": s.params}
                for s in specs
            ],
        }
        print(json.dumps(out, indent=1))
        return 0
    for s in specs:
        print(f"{s.scenario.name:<11} {s.variant:<14} {s.build.name:<14} {format_params(s.params)}")
    print(f"{len(specs)} benchmarks in preset {args.preset}")
    return 0
