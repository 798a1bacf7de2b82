"""`bench build --go go1.26.8,local --rust stable,1.90.0 [--scenario cpu,...] [--source DIR]
[--label head] [--out .bench/build]`: the programs once per toolchain, and DIR/manifest.json
(with --scenario, without the SQL programs when no scenario named needs them)."""

from __future__ import annotations

from pathlib import Path

from benchpipe import ROOT, catalogue, toolchains
from benchpipe.catalogue import check_known
from benchpipe.commands.catalogue import split_list

NAME = "build"
HELP = "build the Go and Rust programs once per toolchain; writes DIR/manifest.json"


def add_arguments(p):
    p.add_argument("--go", default="local", help="Go toolchains, comma-separated: go1.26.8, local (default: local)")
    p.add_argument("--rust", default="local", help="Rust toolchains: stable, beta, nightly, 1.90.0, local (default: local)")
    p.add_argument("--scenario", action="append",
                   help="only what these scenarios need (repeatable or comma-separated; default: every scenario): "
                        "the SQL programs, the larger half of a cold build, only for the SQL scenarios")
    p.add_argument("--source", default=str(ROOT), help="the checkout to build (default: this one)")
    p.add_argument("--label", default="head", help="label of this source in A/B runs (default: head)")
    p.add_argument("--out", default=str(ROOT / ".bench" / "build"), help="output folder (default: .bench/build)")


def run(args) -> int:
    cat = catalogue.load()
    go = toolchains.parse_list(args.go, "go")
    rust = toolchains.parse_list(args.rust, "rust")
    out = Path(args.out)
    scenarios = split_list(args.scenario)
    check_known("scenario", scenarios, cat.scenarios)
    built = toolchains.build_all(cat, Path(args.source), out, go, rust, args.label,
                                 scenarios=set(scenarios) if scenarios else None)
    manifest = toolchains.write_manifest(out, built)
    for b in built:
        print(f"{b.build:<14} {b.toolchain:<22} {b.label:<5} {b.path}")
        for split in dict.fromkeys(b.paths.values()):
            scenarios = ",".join(sc for sc, p in b.paths.items() if p == split)
            print(f"{'':<14} {'':<22} {'':<5} {split} ({scenarios})")
        if b.without:
            print(f"{'':<14} {'':<22} {'':<5} (not built: the program of {', '.join(b.without)})")
    print(f"manifest: {manifest.resolve()}")
    return 0
