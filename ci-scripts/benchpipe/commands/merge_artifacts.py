"""`bench merge-artifacts DIR --out OUT`: the publish workflow's first step on the bench
run's downloaded artifacts, which it treats as untrusted data.

Walks DIR (one folder per artifact), reads every `results.json` it finds as data only
(regular files under a size limit; symlinks, oversized and stray files are ignored),
validates each one (schema, ids, keys: `results.load`), and writes what passed,
re-serialised from the parsed document (never the bytes as downloaded), to

    OUT/results/<n>-<artifact>.json        one per accepted results file
    OUT/benchmark-action/<set>.json        github-action-benchmark customSmallerIsBetter
                                           input, one file per benchmark set (OS,
                                           language, channel) holding every shard, the
                                           names and values `bench history add --data-js`
                                           writes
    OUT/manifest.json                      accepted and rejected files, with reasons

A/B runs (pull requests) feed no benchmark-action file: they are not history. With
--github-output it appends `results=<count>` and `benchmark-action=<json list of
{name, file}>` (a matrix for the publish workflow). Exit 1 when nothing was accepted.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from benchpipe import results
from benchpipe.errors import BenchError, UsageError, one_line
from benchpipe.export import benchmark_action
from benchpipe.fsutil import atomic_write_json
from benchpipe.report import md

NAME = "merge-artifacts"
HELP = "validate downloaded bench artifacts (untrusted) and merge them for publishing"

MAX_FILE_BYTES = 64 * 2**20
MAX_FILES = 2000
RESULTS_NAME = "results.json"


def add_arguments(p):
    p.add_argument("artifacts", type=Path, help="the folder the artifacts were downloaded into")
    p.add_argument("--out", type=Path, required=True, help="where the validated, merged data goes (created)")
    p.add_argument("--github-output", metavar="FILE", help="append results=<n> and benchmark-action=<json> to this file")
    p.add_argument("--markdown", metavar="FILE", help="append a Markdown account of what was accepted and rejected")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._")[:80] or "artifact"


def find_results(root: Path) -> list[tuple[Path, str | None]]:
    """Every candidate results file under root, as (path, reason it is refused or None).
    Never follows a symlink; never reads more than MAX_FILES candidates."""
    found: list[tuple[Path, str | None]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames):
            if name != RESULTS_NAME:
                continue
            path = Path(dirpath) / name
            if len(found) >= MAX_FILES:
                raise BenchError(f"{root}: more than {MAX_FILES} results files: refusing to go on")
            if path.is_symlink() or not path.is_file():
                found.append((path, "not a regular file"))
            elif path.stat().st_size > MAX_FILE_BYTES:
                found.append((path, f"larger than {MAX_FILE_BYTES // 2**20} MiB"))
            else:
                found.append((path, None))
    return found


def merge(root: Path, out: Path) -> dict:
    if not root.is_dir():
        raise UsageError(f"{root}: no such folder (were the artifacts downloaded?)")
    if out.exists() and any(out.iterdir()):
        raise UsageError(f"{out}: exists and is not empty")
    accepted, rejected, docs = [], [], []
    for path, refused in find_results(root):
        rel = path.relative_to(root).as_posix()
        if refused:
            rejected.append({"file": rel, "reason": refused})
            continue
        try:
            doc = results.load(path)
        except BenchError as err:
            rejected.append({"file": rel, "reason": str(err).replace(str(path), rel)})
            continue
        artifact = rel.split("/", 1)[0] if "/" in rel else "results"
        name = f"{len(docs) + 1:03d}-{_slug(artifact)}.json"
        results.write(out / "results" / name, doc)
        docs.append(doc)
        env = doc["env"]
        accepted.append({
            "file": rel, "as": f"results/{name}", "os": env["os"], "arch": env["arch"],
            "toolchains": sorted(env["toolchains"]), "preset": env["preset"],
            "ab": bool(env.get("labels")),
            "benchmarks": {s: sum(1 for b in doc["benchmarks"] if b["status"] == s) for s in ("ok", "failed", "skipped")},
        })
    gab = benchmark_action.write_sets(out / "benchmark-action", docs)
    manifest = {"accepted": accepted, "rejected": rejected, "benchmark_action": gab}
    atomic_write_json(out / "manifest.json", manifest)
    return manifest


def markdown(manifest: dict) -> str:
    lines = ["## Bench artifacts", ""]
    if manifest["accepted"]:
        rows = [[md.code(a["file"]), md.escape(f"{a['os']}/{a['arch']}"), md.escape(", ".join(a["toolchains"])),
                 md.escape(a["preset"]), "A/B" if a["ab"] else "",
                 str(a["benchmarks"]["ok"]), str(a["benchmarks"]["failed"]), str(a["benchmarks"]["skipped"])]
                for a in manifest["accepted"]]
        lines += [md.table(["results", "os", "toolchains", "preset", "", "ok", "failed", "skipped"], rows,
                           ["l", "l", "l", "l", "l", "r", "r", "r"]), ""]
    if manifest["rejected"]:
        lines += [f"**Rejected ({len(manifest['rejected'])}):**", ""]
        lines += [f"- {md.code(r['file'])}: {md.escape(r['reason'])}" for r in manifest["rejected"]]
        lines.append("")
    if not manifest["accepted"]:
        lines += ["No valid results file: nothing to publish.", ""]
    return "\n".join(lines)


def run(args) -> int:
    manifest = merge(args.artifacts, args.out)
    text = markdown(manifest)
    if args.markdown:
        with open(args.markdown, "a", encoding="utf-8") as fh:
            fh.write(text + "\n")
    if args.github_output:
        gab = json.dumps(manifest["benchmark_action"], separators=(",", ":"))
        with open(args.github_output, "a", encoding="utf-8") as fh:
            fh.write(f"results={len(manifest['accepted'])}\nbenchmark-action={gab}\n")
    for r in manifest["rejected"]:
        # the path and reason come from the untrusted artifacts: one escaped line each
        print(one_line(f"bench merge-artifacts: rejected {r['file']}: {r['reason']}"), file=sys.stderr)
    print(f"{args.out}: {len(manifest['accepted'])} results file(s) accepted, {len(manifest['rejected'])} rejected, "
          f"{len(manifest['benchmark_action'])} github-action-benchmark set(s)")
    if not manifest["accepted"]:
        raise BenchError(f"{args.artifacts}: no valid results file among the artifacts")
    return 0
