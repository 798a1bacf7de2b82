"""Benchmark of the gh-pages repository's growth (not a test): a local bare repository
whose gh-pages branch holds a synthetic history (DAYS nights, written straight into the
history, no site; data.js and the raw samples as publishing leaves them: the last 14
nights' entries, the last 90 days' samples, 91 nights), then NIGHTS more nights through the real publish path (`bench
publish`'s function, one publish per night with one results file per OS, as
publish.yml does), `git gc` after each; prints what each night added to the packed
repository, the branch's tree size and the publish time.

    python -m devtools.pagesgrowth --work DIR [--days 30] [--nights 3] [--preset standard]
                                   [--oses linux,macos,windows] [--no-changepoints]
                                   [--compact] [--seed-jobs N] [--no-versus]

(from ci-scripts/). DIR must not exist or be empty; it keeps the repository and the
last night's site folder afterwards. With --compact the seed is written as ten years of
publishing leave it (months older than 90 days summarised as they close, the branch one
commit: `bench publish` squashes it when it compacts), in --seed-jobs processes, a
range of whole months each; the nights are published with compaction on, as publish.yml
does. Each seeded run carries the verdicts of its newer toolchains against the older
(`versus`, as `bench publish` adds them; taken in turn from VERSUS_NIGHTS nights' real
ones): seeds without them (--no-versus, and every seed before 2026-12-03) had summarised
months ~16 % smaller than publishing leaves them."""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

from benchpipe import compare, history, history_summary, publish, raw_samples, results
from benchpipe.export import data_js
from devtools import synthetic


def git(*args, cwd=None) -> str:
    return subprocess.run(["git", *map(str, args)], cwd=cwd, capture_output=True, text=True, check=True).stdout


def packed_bytes(remote: Path) -> int:
    """The repository's packed size after `git gc` (loose objects packed, garbage pruned)."""
    git("--git-dir", remote, "gc", "--quiet", "--prune=now")
    stats = dict(line.split(": ", 1) for line in git("--git-dir", remote, "count-objects", "-v").splitlines())
    return (int(stats["size-pack"]) + int(stats["size"])) * 1024


def tree_bytes(remote: Path, branch: str = "gh-pages") -> int:
    """The size of the files the branch's tip holds."""
    return sum(tree_parts(remote, branch).values())


def tree_parts(remote: Path, branch: str = "gh-pages") -> dict[str, int]:
    """The branch tip's bytes by part: run records, entries of the open months (plain),
    closed months (compressed: whole, then summarised), raw samples, github-action-benchmark's
    data.js, the rest."""
    out = git("--git-dir", remote, "ls-tree", "-r", "-l", branch)
    parts: dict[str, int] = {}
    for line in out.splitlines():
        meta, name = line.split("\t", 1)
        size = meta.split()[3]
        if size == "-":
            continue
        part = ("runs" if name.startswith("history/runs/") else "plain" if name.startswith("history/")
                and name.endswith(".json") else "closed" if name.startswith("history/") else
                "samples" if name.startswith("samples/") else "data.js" if name == publish.DATA_JS else "other")
        parts[part] = parts.get(part, 0) + int(size)
    return parts


# Verdicts of the newer toolchains against the older ones (the entries' `versus`, which
# `bench publish` adds to every night of a run with two toolchains a language): computed
# for this many nights of real records, then taken in turn, as the seed's own runs have no
# records to compare (a night's verdicts took 0.8 s: ten years, 49 minutes an OS).
VERSUS_NIGHTS = 31


def versus_pool(keys: list[dict], oses) -> list[dict]:
    """VERSUS_NIGHTS nights' toolchain verdicts (compare.toolchain_verdicts), each
    benchmark id -> its verdict: what a seed's night j is given (the j % VERSUS_NIGHTS-th),
    so that a month holds as many distinct verdicts as a real one."""
    docs = synthetic.nightly(VERSUS_NIGHTS, keys, oses=tuple(oses)[:1], records=True)
    return [compare.toolchain_verdicts(doc) for doc in docs]


def _write_days(args) -> int:
    """Nights [first, first + days) into a history directory, month by month (history.add
    validates every entry), summarising each month once it is 90 days old (compact); each
    run given its verdicts from the pool (versus_pool; none: an empty pool)."""
    root, first, days, keys, oses, compact, pool = args
    month, batch, verdicts, written = None, [], [], 0
    for j, doc in enumerate(synthetic.nightly(days, keys, oses=oses, records=False, first_day=first)):
        m = doc["env"]["timestamp"][:7]
        if batch and m != month:
            history.add(root, batch, verdicts)
            written += len(batch)
            batch, verdicts = [], []
            if compact:
                history.compact(root)
        month = m
        batch.append(("synthetic", doc))
        verdicts.append(pool[(first * len(oses) + j) % len(pool)] if pool else {})
    if batch:
        history.add(root, batch, verdicts)
        written += len(batch)
    return written


def _month_starts(days: int) -> list[int]:
    """The day numbers (of synthetic.nightly) on which a month begins, 0 included."""
    start = synthetic.START
    return [0] + [d for d in range(1, days) if (start + timedelta(days=d)).day == 1]


def _seed_data_js(wt: Path, days: int, keys: list[dict], oses) -> None:
    """data.js as publishing leaves it: the last MAX_ITEMS nights' entries, one per series
    and night (the series are bounded, so that is all years of nightly runs leave)."""
    n = min(days, data_js.MAX_ITEMS)
    runs, entries = [], []
    for doc in synthetic.nightly(n, keys, oses=oses, records=False, first_day=days - n):
        run = history.run_id_of(doc)
        runs.append(history.run_record(doc, run))
        entries.extend(history.entry_records(doc, run))
    path = wt / publish.DATA_JS
    path.parent.mkdir(parents=True, exist_ok=True)
    data_js.update(path, runs, entries, "https://github.com/example/bench")


def seed_samples(wt: Path, days: int, keys: list[dict], oses) -> int:
    """The raw samples publishing leaves: those of the last KEEP_DAYS nights' runs (each
    publish expires older ones), from the same synthetic runs as the history (records
    included: the samples are the records' values), each named by the run id the
    history has (that of the run written without records), so that they expire as
    publishing's do. Returns the bytes written."""
    n = min(days, history_summary.KEEP_DAYS + 1)   # a run exactly 90 days older stays
    written = 0
    full = synthetic.nightly(n, keys, oses=oses, records=True, first_day=days - n)
    for doc, bare in zip(full, synthetic.nightly(n, keys, oses=oses, records=False, first_day=days - n)):
        rel = Path(raw_samples.rel_of(doc)).with_name(history.run_id_of(bare) + history_summary.SUFFIX)
        (wt / rel).parent.mkdir(parents=True, exist_ok=True)
        (wt / rel).write_bytes(raw_samples.data(doc))
        written += (wt / rel).stat().st_size
    return written


def seed(remote: Path, work: Path, days: int, keys: list[dict], oses, branch: str = "gh-pages",
         compact: bool = False, jobs: int = 1, log=None, versus: bool = True) -> None:
    """The branch's first commit: DAYS nights of history, written directly (no publish),
    data.js with its last nights and the last 90 days' raw samples; with compact, months older than 90 days
    summarised, written by `jobs` processes, each a range of whole months into its own
    directory, then put together."""
    wt = work / "seed"
    git("init", "--quiet", "--bare", f"--initial-branch={branch}", remote)
    git("init", "--quiet", f"--initial-branch={branch}", wt)
    root = wt / publish.HISTORY_DIR
    starts = _month_starts(days)
    cuts = sorted({starts[len(starts) * j // jobs] for j in range(jobs)}) + [days]
    verdicts = versus_pool(keys, oses) if versus else []
    parts = [(work / f"seed-part{j}", a, b - a, keys, tuple(oses), compact, verdicts)
             for j, (a, b) in enumerate(zip(cuts, cuts[1:]))]
    if len(parts) > 1:
        with multiprocessing.get_context("spawn").Pool(len(parts)) as workers:
            workers.map(_write_days, parts)
        for part in parts:   # whole months each: no file is in two parts
            for f in sorted(p for p in part[0].rglob("*") if p.is_file() and p.name != ".lock"):
                dest = root / f.relative_to(part[0])
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(f, dest)
            shutil.rmtree(part[0])
    else:
        _write_days((root, 0, days, keys, tuple(oses), compact, verdicts))
    if compact:
        history.compact(root)   # what the first parts left whole near their ends
    _seed_data_js(wt, days, keys, oses)
    seed_samples(wt, days, keys, oses)
    (wt / ".gitignore").write_text(".lock\n*.tmp\n", encoding="utf-8")
    git("add", "-A", cwd=wt)
    git("-c", "user.name=seed", "-c", "user.email=seed@localhost", "commit", "--quiet", "-m",
        f"seed: {days} synthetic nights", cwd=wt)
    git("push", "--quiet", remote, f"HEAD:refs/heads/{branch}", cwd=wt)


def nights(remote: Path, work: Path, first_day: int, n: int, keys: list[dict], oses, *, detect: bool = True,
           jobs: int | None = None, compact: bool = True, log=print) -> list[dict]:
    """Publish n more synthetic nights (records included, valid results files), one
    publish per night; per night: packed growth, tree size, publish seconds."""
    before = packed_bytes(remote)
    out = []
    docs = list(synthetic.nightly(n, keys, oses=oses, first_day=first_day, records=True))
    for night in range(n):
        files = []
        for i, doc in enumerate(docs[night * len(oses):(night + 1) * len(oses)]):
            f = work / "results" / f"night{first_day + night}-{i}.json"
            f.parent.mkdir(parents=True, exist_ok=True)
            results.write(f, doc)
            files.append(f)
        t = time.perf_counter()
        clock = datetime.fromisoformat(max(d["env"]["timestamp"] for d in docs[night * len(oses):(night + 1) * len(oses)])
                                       .replace("Z", "+00:00"))
        rep = publish.publish(str(remote), "gh-pages", files, out=work / "site", jobs=jobs, detect=detect,
                              compact=compact, now=clock, log=lambda *a, **k: None)
        secs = time.perf_counter() - t
        after = packed_bytes(remote)
        parts = tree_parts(remote)
        row = {"night": night + 1, "growth": after - before, "packed": after, "tree": sum(parts.values()),
               "parts": parts, "publish_s": secs, "site": rep.site.times() if rep.site else ""}
        log(f"night {row['night']}: +{row['growth'] / 1024:,.0f} KiB packed (repository {after / 2**20:.1f} MiB, "
            f"branch tree {row['tree'] / 2**20:.1f} MiB: "
            f"{', '.join(f'{k} {v / 2**20:.1f}' for k, v in sorted(parts.items()))}), publish {secs:.1f} s"
            + (f" (site: {row['site']})" if row["site"] else ""))
        out.append(row)
        before = after
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--days", type=int, default=30, help="nights of history on the branch first (default: 30)")
    p.add_argument("--nights", type=int, default=3, help="nights then published (default: 3)")
    p.add_argument("--preset", default="standard")
    p.add_argument("--toolchains", type=int, default=2, help="toolchains per language (1 or 2)")
    p.add_argument("--oses", default=",".join(synthetic.OSES))
    p.add_argument("--jobs", type=int, default=None)
    p.add_argument("--no-changepoints", action="store_true")
    p.add_argument("--no-versus", action="store_true",
                   help="seed without the toolchain verdicts publishing adds (as seeds before 2026-12-03 were)")
    p.add_argument("--compact", action="store_true", help="seed as publishing with compaction leaves the branch")
    p.add_argument("--seed-jobs", type=int, default=1, help="processes writing the seed (with --compact)")
    a = p.parse_args(argv)
    a.work.mkdir(parents=True, exist_ok=True)
    if any(a.work.iterdir()):
        p.error(f"{a.work} is not empty")
    oses = tuple(a.oses.split(","))
    tc = {"go": synthetic.GO_TOOLCHAINS[-a.toolchains:], "rust": synthetic.RUST_TOOLCHAINS[-a.toolchains:]}
    keys = synthetic.keys_for(a.preset, toolchains=tc)
    remote = a.work / "pages.git"
    t = time.perf_counter()
    seed(remote, a.work, a.days, keys, oses, compact=a.compact, jobs=a.seed_jobs if a.compact else 1,
         versus=not a.no_versus)
    print(f"seed: {a.days} nights x {len(oses)} OS x {len(keys)} benchmarks ({a.preset}) in "
          f"{time.perf_counter() - t:.0f} s; packed {packed_bytes(remote) / 2**20:.1f} MiB")
    rows = nights(remote, a.work, a.days, a.nights, keys, oses, detect=not a.no_changepoints, jobs=a.jobs,
                  compact=a.compact)
    site = a.work / "site"
    size = sum(f.stat().st_size for f in site.rglob("*") if f.is_file()) if site.exists() else 0
    print(f"last night's growth {rows[-1]['growth'] / 1024:,.0f} KiB; site folder {size / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
