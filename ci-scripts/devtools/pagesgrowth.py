"""Benchmark of the gh-pages repository's growth (not a test): a local bare repository
whose gh-pages branch holds a synthetic history (DAYS nights, written straight into the
history, no site), then NIGHTS more nights through the real publish path (`bench
publish`'s function, one publish per night with one results file per OS, as
publish.yml does), `git gc` after each; prints what each night added to the packed
repository, the branch's tree size and the publish time.

    python -m devtools.pagesgrowth --work DIR [--days 30] [--nights 3] [--preset standard]
                                   [--oses linux,macos,windows] [--no-changepoints]

(from ci-scripts/). DIR must not exist or be empty; it keeps the repository and the
last night's site folder afterwards."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from benchpipe import history, publish, results
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
    out = git("--git-dir", remote, "ls-tree", "-r", "-l", branch)
    return sum(int(line.split()[3]) for line in out.splitlines() if line.split()[3] != "-")


def seed(remote: Path, work: Path, days: int, keys: list[dict], oses, branch: str = "gh-pages") -> None:
    """The branch's first commit: DAYS nights of history, written directly (no publish)."""
    wt = work / "seed"
    git("init", "--quiet", "--bare", f"--initial-branch={branch}", remote)
    git("init", "--quiet", f"--initial-branch={branch}", wt)
    batch = []
    for doc in synthetic.nightly(days, keys, oses=oses, records=False):
        batch.append(("synthetic", doc))
        if len(batch) >= 90:
            history.add(wt / publish.HISTORY_DIR, batch)
            batch = []
    if batch:
        history.add(wt / publish.HISTORY_DIR, batch)
    (wt / ".gitignore").write_text(".lock\n*.tmp\n", encoding="utf-8")
    git("add", "-A", cwd=wt)
    git("-c", "user.name=seed", "-c", "user.email=seed@localhost", "commit", "--quiet", "-m",
        f"seed: {days} synthetic nights", cwd=wt)
    git("push", "--quiet", remote, f"HEAD:refs/heads/{branch}", cwd=wt)


def nights(remote: Path, work: Path, first_day: int, n: int, keys: list[dict], oses, *, detect: bool = True,
           jobs: int | None = None, log=print) -> list[dict]:
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
        publish.publish(str(remote), "gh-pages", files, out=work / "site", jobs=jobs, detect=detect,
                        log=lambda *a, **k: None)
        secs = time.perf_counter() - t
        after = packed_bytes(remote)
        row = {"night": night + 1, "growth": after - before, "packed": after, "tree": tree_bytes(remote),
               "publish_s": secs}
        log(f"night {row['night']}: +{row['growth'] / 1024:,.0f} KiB packed (repository {after / 2**20:.1f} MiB, "
            f"branch tree {row['tree'] / 2**20:.1f} MiB), publish {secs:.1f} s")
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
    a = p.parse_args(argv)
    a.work.mkdir(parents=True, exist_ok=True)
    if any(a.work.iterdir()):
        p.error(f"{a.work} is not empty")
    oses = tuple(a.oses.split(","))
    tc = {"go": synthetic.GO_TOOLCHAINS[-a.toolchains:], "rust": synthetic.RUST_TOOLCHAINS[-a.toolchains:]}
    keys = synthetic.keys_for(a.preset, toolchains=tc)
    remote = a.work / "pages.git"
    t = time.perf_counter()
    seed(remote, a.work, a.days, keys, oses)
    print(f"seed: {a.days} nights x {len(oses)} OS x {len(keys)} benchmarks ({a.preset}) in "
          f"{time.perf_counter() - t:.0f} s; packed {packed_bytes(remote) / 2**20:.1f} MiB")
    rows = nights(remote, a.work, a.days, a.nights, keys, oses, detect=not a.no_changepoints, jobs=a.jobs)
    site = a.work / "site"
    size = sum(f.stat().st_size for f in site.rglob("*") if f.is_file()) if site.exists() else 0
    print(f"last night's growth {rows[-1]['growth'] / 1024:,.0f} KiB; site folder {size / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
