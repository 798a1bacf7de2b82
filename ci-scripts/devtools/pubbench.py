"""Benchmark of concurrent publishing (not a test): N publishers of full-size results
(every `standard` benchmark of the catalogue, 10 runs each) push to one local bare
repository at once, optionally while another process keeps a core busy, as on a shared
runner. Prints how many succeeded, the wall time of the slowest, and the commits on
the branch (one per publisher: the site is not rendered in the race, nor committed).

    python -m devtools.pubbench --work DIR [--publishers 8,16,32] [--busy]"""

from __future__ import annotations

import argparse
import multiprocessing
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchpipe import CI_SCRIPTS, results
from devtools import synthetic


def _spin() -> None:
    while True:
        pass


def one_round(work: Path, n: int, keys: list[dict]) -> dict:
    remote = work / f"pages-{n}.git"
    subprocess.run(["git", "init", "--quiet", "--bare", "--initial-branch=gh-pages", str(remote)], check=True)
    files = []
    for i in range(n):
        f = work / f"r{n}-{i}.json"
        if not f.exists():
            doc = synthetic.results_doc(keys, seed=i, commit=f"{i:040x}", runs=10, preset="standard",
                                        timestamp=datetime(2026, 3, 1, tzinfo=timezone.utc) + timedelta(hours=i))
            results.write(f, doc)
        files.append(f)
    t0 = time.monotonic()
    procs = [subprocess.Popen([str(CI_SCRIPTS / "bench"), "publish", "--remote", str(remote), "--jobs", "1", str(f)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for f in files]
    ends, ok, failures = [], 0, []
    for p in procs:
        out, _ = p.communicate()
        ends.append(time.monotonic() - t0)
        ok += p.returncode == 0
        if p.returncode:
            failures.append(out.strip().splitlines()[-1] if out.strip() else f"exit {p.returncode}")
    log = subprocess.run(["git", "--git-dir", str(remote), "log", "--format=%s", "gh-pages"],
                         capture_output=True, text=True).stdout.splitlines()
    return {"n": n, "ok": ok, "wall_s": max(ends), "mean_s": sum(ends) / n,
            "data_commits": len(log), "failures": failures}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--publishers", default="8,16,32")
    p.add_argument("--busy", action="store_true", help="keep one core busy meanwhile")
    a = p.parse_args(argv)
    a.work.mkdir(parents=True, exist_ok=True)
    keys = synthetic.keys_for("standard")
    print(f"{len(keys)} benchmarks per results file{'; one core kept busy' if a.busy else ''}")
    spinner = multiprocessing.Process(target=_spin, daemon=True) if a.busy else None
    if spinner:
        spinner.start()
    try:
        for n in (int(x) for x in a.publishers.split(",")):
            r = one_round(a.work, n, keys)
            print(f"{r['n']:>3} publishers: {r['ok']}/{r['n']} succeeded in {r['wall_s']:.0f} s "
                  f"(mean {r['mean_s']:.0f} s per publisher); {r['data_commits']} commits", flush=True)
            for line in r["failures"][:3]:
                print(f"    a publisher that gave up said: {line}", flush=True)
    finally:
        if spinner:
            spinner.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
