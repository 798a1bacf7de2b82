"""Publishing: the history, github-action-benchmark's data.js, the charts and the site,
committed to the gh-pages branch of a git remote and pushed.

Several jobs may publish at once. None loses an entry, and no push is forced. A
publish has two phases, each a commit pushed on its own:
1. the data: fetch the branch's current tip, re-apply `history add` on top of it (the
   history is append-only files, so re-applying is the merge: no textual merge), update
   data.js, commit and push;
2. the site: render it from the history now on the branch, commit and push, unless the
   branch's site already shows that history, or a publisher that added data after ours
   will render it (see _push_site).
A push rejected because the branch moved (or its ref was locked by a concurrent push)
is retried from the fetch, with jittered exponential backoff, a bounded number of
times. Rendering only in phase 2 keeps a race cheap: 32 publishers used to re-render
the whole site on every retry (work growing with the square of their number). The
remote changes only by a push, which is atomic: a publisher killed at any point leaves
the branch as it was or with its data and the previous site.

Branch layout: index.html and the other pages, assets/, charts/, data/ (the site, at the
root so GitHub Pages serves it), history/ (Contract 3), dev/bench/data.js
(github-action-benchmark), .nojekyll.

A local remote path that does not exist yet is created as a bare repository, and
`out` receives a plain copy of the published branch: `bench publish --remote
./.bench/pages.git --out ./site RESULTS` gives a site to open from disk."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchpipe import compare, history, results, site
from benchpipe.errors import BenchError
from benchpipe.export import data_js
from benchpipe.fsutil import swap_dir

HISTORY_DIR = "history"
DATA_JS = "dev/bench/data.js"
SITE_STAMP = "data/site-of-history.txt"   # the history tree the site was rendered from
GITIGNORE = ".lock\n*.tmp\n.charts-new/\n.data-new/\n.assets-new/\n.*-old/\n"
RETRYABLE = re.compile(r"non-fast-forward|fetch first|\[rejected\]|failed to update ref|cannot lock ref|"
                       r"unable to lock|incorrect old value|stale info|remote rejected", re.I)


@dataclass
class PublishReport:
    attempts: int
    runs_added: list[str]
    commit: str | None
    pushed: bool


def is_local(remote: str) -> bool:
    return "://" not in remote and not re.match(r"^[\w.-]+@[\w.-]+:", remote)


def _git(args, cwd=None, check=True, env=None) -> subprocess.CompletedProcess:
    exe = shutil.which("git")
    if not exe:
        raise BenchError("git not found: install git")
    p = subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, env=env)
    if check and p.returncode != 0:
        tail = " | ".join((p.stderr or p.stdout).strip().splitlines()[-2:])
        raise BenchError(f"git {' '.join(args[:2])} failed (exit {p.returncode}): {tail}")
    return p


def _identity_env() -> dict:
    env = dict(os.environ)
    for var, fallback, key in (("NAME", "bench publish", "user.name"), ("EMAIL", "bench-publish@localhost", "user.email")):
        if not (env.get(f"GIT_AUTHOR_{var}") or _git(["config", "--get", key], check=False).stdout.strip()):
            env[f"GIT_AUTHOR_{var}"] = env[f"GIT_COMMITTER_{var}"] = fallback
    return env


def ensure_local_remote(remote: str, branch: str) -> str:
    path = Path(remote).expanduser().resolve()
    if not path.exists():
        path.mkdir(parents=True)
        _git(["init", "--quiet", "--bare", f"--initial-branch={branch}", str(path)])
    return str(path)


def _fetch(wt: Path, remote: str, branch: str) -> bool:
    """Check out the remote branch's tip in wt (True), or an empty orphan branch (False)."""
    _git(["init", "--quiet", str(wt)])
    p = _git(["fetch", "--quiet", "--depth", "1", remote, f"+refs/heads/{branch}:refs/remotes/origin/{branch}"],
             cwd=wt, check=False)
    if p.returncode == 0:
        _git(["checkout", "--quiet", "-B", branch, f"refs/remotes/origin/{branch}"], cwd=wt)
        return True
    if "couldn't find remote ref" in p.stderr or "could not find remote ref" in p.stderr.lower():
        _git(["checkout", "--quiet", "--orphan", branch], cwd=wt)
        return False
    tail = " | ".join(p.stderr.strip().splitlines()[-2:])
    raise BenchError(f"cannot fetch branch {branch} from {remote}: {tail}")


def _pause(stage: str) -> None:
    """Test hook: BENCH_PUBLISH_PAUSE=<stage>:<seconds> sleeps at that stage (kill tests)."""
    want = os.environ.get("BENCH_PUBLISH_PAUSE", "")
    if want.startswith(stage + ":"):
        print(f"publish: paused at {stage}", file=sys.stderr, flush=True)
        time.sleep(float(want.split(":", 1)[1]))


def publish(remote: str, branch: str, results_paths, *, site_url: str = "", repo_url: str = "",
            out: Path | None = None, retries: int = 15, jobs: int | None = None, detect: bool = True,
            log=print) -> PublishReport:
    docs = [(str(p), results.load(p)) for p in results_paths]  # every input valid before anything else
    versus = [compare.toolchain_verdicts(doc) for _, doc in docs]  # once: every attempt adds the same runs
    if is_local(remote):
        remote = ensure_local_remote(remote, branch)
    env = _identity_env()
    work = Path(tempfile.mkdtemp(prefix="bench-publish-"))
    try:
        wt, runs_added, data_commit, attempts = _push_data(work, remote, branch, docs, versus, repo_url, retries, env, log)
        site_commit, more, tip = _push_site(work, wt, remote, branch, site_url, repo_url, retries, jobs, detect, env, log)
        if out:
            export(tip, Path(out))
        commit = site_commit or data_commit
        return PublishReport(attempts + more, runs_added, commit, commit is not None)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _backoff(branch: str, attempt: int, retries: int, what: str, log) -> None:
    delay = min(8.0, 0.25 * 2 ** (attempt - 1)) * random.uniform(0.5, 1.5)
    log(f"publish: {branch} moved meanwhile ({what}, attempt {attempt}/{retries}); fetching again in {delay:.1f}s")
    time.sleep(delay)


def _push(wt: Path, remote: str, branch: str, message: str, env: dict) -> str | None:
    """Commit everything in wt and push it; the commit, or None when the branch moved."""
    (wt / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    _git(["add", "-A"], cwd=wt)
    _git(["commit", "--quiet", "-m", message], cwd=wt, env=env)
    commit = _git(["rev-parse", "HEAD"], cwd=wt).stdout.strip()
    _pause("committed")
    p = _git(["push", "--quiet", remote, f"HEAD:refs/heads/{branch}"], cwd=wt, check=False, env=env)
    if p.returncode == 0:
        return commit
    if not RETRYABLE.search(p.stderr):
        tail = " | ".join(p.stderr.strip().splitlines()[-2:])
        raise BenchError(f"git push to {remote} failed: {tail}")
    return None


def _gave_up(branch: str, retries: int):
    return BenchError(f"gave up after {retries} attempts: {branch} kept moving; run publish again "
                      f"(it is idempotent) or raise --retries")


def _push_data(work, remote, branch, docs, versus, repo_url, retries, env, log):
    """Phase 1, the data: history entries and data.js, without rendering anything, so a
    race costs a fetch and a `history add`, not a site. Returns the work tree at the tip
    that holds them, the runs added, the data commit (None: nothing new) and attempts."""
    for attempt in range(1, retries + 1):
        wt = work / f"data-{attempt}"
        _fetch(wt, remote, branch)
        _pause("fetched")
        rep = history.add(wt / HISTORY_DIR, docs, versus)
        if not rep.runs_added:
            log(f"publish: nothing new (the {len(rep.runs_present)} run(s) are already in {branch})")
            return wt, [], None, attempt
        data_js.update(wt / DATA_JS, rep.new_runs, rep.new_entries, repo_url)
        runs = ", ".join(rep.runs_added[:4]) + (f" and {len(rep.runs_added) - 4} more" if len(rep.runs_added) > 4 else "")
        commit = _push(wt, remote, branch, f"bench publish: {runs}", env)
        if commit:
            log(f"publish: pushed {commit[:12]} to {branch} ({len(rep.runs_added)} run(s), attempt {attempt})")
            return wt, rep.runs_added, commit, attempt
        shutil.rmtree(wt, ignore_errors=True)
        _backoff(branch, attempt, retries, "history", log)
    raise _gave_up(branch, retries)


def _history_tree(wt: Path) -> str:
    p = _git(["rev-parse", f"HEAD:{HISTORY_DIR}"], cwd=wt, check=False)
    return p.stdout.strip() if p.returncode == 0 else ""


def _push_site(work, wt, remote, branch, site_url, repo_url, retries, jobs, detect, env, log):
    """Phase 2, the site: rendered from the history the branch holds, and pushed unless
    the branch's site already shows that history (SITE_STAMP names the history tree it
    was rendered from). Only the publisher whose data is the newest renders: when
    another publisher's data reached the branch after ours, that publisher renders (its
    own phase 2) and this one stops, before rendering or after losing the push. So N
    racing publishers render about once, not N times each. Killed between the phases,
    the branch keeps every entry and an older site, which the next publish renders anew.
    Returns the site commit (None: not ours), the attempts, and the work tree of the
    branch as last seen."""
    ours = _history_tree(wt)  # the history as our phase 1 left it on the branch
    for attempt in range(1, retries + 1):
        wt = work / f"site-{attempt}"
        _fetch(wt, remote, branch)
        tree = _history_tree(wt)
        stamp = wt / SITE_STAMP
        if tree and (wt / "index.html").exists() and stamp.exists() and stamp.read_text(encoding="utf-8").strip() == tree:
            return None, attempt - 1, wt  # the site already shows this history
        if tree != ours:
            log(f"publish: newer data reached {branch} meanwhile; its publisher renders the site")
            return None, attempt - 1, wt
        site.render(wt / HISTORY_DIR, wt, site_url=site_url, repo_url=repo_url, jobs=jobs, detect=detect)
        stamp.write_text(tree + "\n", encoding="utf-8")
        _pause("rendered")
        commit = _push(wt, remote, branch, f"bench publish: site of history {tree[:12] or '(empty)'}", env)
        if commit:
            log(f"publish: pushed {commit[:12]} to {branch} (site, attempt {attempt})")
            return commit, attempt, wt
        _backoff(branch, attempt, retries, "site", log)
    raise _gave_up(branch, retries)


def export(wt: Path, out: Path) -> None:
    """A plain copy of the branch's files (no .git) into out, swapped in whole."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-new-", dir=out.parent))
    shutil.rmtree(tmp)
    shutil.copytree(wt, tmp, ignore=shutil.ignore_patterns(".git", ".lock"))
    swap_dir(tmp, out)
