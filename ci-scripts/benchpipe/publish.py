"""Publishing: the history and github-action-benchmark's data.js committed to the
gh-pages branch of a git remote and pushed; the site rendered from that history into a
folder (`out`), which the publish workflow deploys to GitHub Pages as an artifact
(actions/upload-pages-artifact + actions/deploy-pages). The branch is the record; the
site is derived from it and never committed, so a night adds its history entries to
the repository, not a re-rendered site (measured: devtools/pagesgrowth.py, docs/gh-pages-history.md).

Several jobs may publish at once. None loses an entry, and no data push is forced. A
publish fetches the branch's current tip, re-applies `history add` on top of it (the
history is append-only files, so re-applying is the merge: no textual merge), updates
data.js (bounded: the newest `max_items` entries per series; the history keeps every
one), commits and pushes. A push rejected because the branch moved (or its ref was
locked by a concurrent push) is retried from the fetch, with jittered exponential
backoff, for a bounded time (RETRY_FOR_S); nothing is rendered in the race, and the
work tree is a sparse checkout of the files the runs touch, kept between attempts, so a
retry costs a fetch of what is new and a `history add` of a few files, however long
the history. A publisher that gives up says how to publish its runs again. The remote changes only by a push, which is atomic: a
publisher killed at any point leaves the branch as it was or with its data. Then, with
`out`, the site is rendered from the history of the tip this publisher pushed (or
found, when its runs were already there): every run published before it included.

Twice a month the branch is compacted (issue 40: ten years must fit GitHub's limits): the
first publish after a month ended compresses that month's entries files whole (xz, byte
for byte), and a publish that finds months older than history_summary.KEEP_DAYS not yet
summarised summarises them (`history.compact`, each entry proven); each replaces the branch by one commit of
that tree, pushed with --force-with-lease against the tip it compacted, so a push that
raced it is never overwritten (the compaction is then left to the next publish, and
the racing publishers retry on top of the new commit as on any other). The history
files are the record; the branch's git log of nightly commits is not kept.

Branch layout: history/ (Contract 3), samples/ (each run's raw per-run values, kept
90 days: raw_samples), dev/bench/data.js (github-action-benchmark),
cache/changepoints.json (publish_cache: what a render on a fresh machine need not
search again; committed after the render, when series filled new windows), .gitignore.
The site of an older layout (pages, assets/, charts/, data/, .cache/ at the root) is
removed from the branch by the next publish that adds a run.

Site folder (`out`, swapped in whole): the pages, assets/, charts/, data/, .nojekyll,
dev/bench/data.js (a copy, so the action's data stays at its usual address), .cache/
(the change-point cache, and where a site was rendered before the summarised months'
columns: kept from the previous folder, so a local re-render is incremental). A local remote path that does not exist yet is created as a bare
repository: `bench publish --remote ./.bench/pages.git --out ./site RESULTS` gives a site
to open from disk."""

from __future__ import annotations

import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchpipe import compare, history, history_summary, publish_cache, publish_lock, raw_samples, results, site, strictjson
from benchpipe.errors import BenchError
from benchpipe.export import data_js
from benchpipe.fsutil import atomic_write_bytes, swap_dir

HISTORY_DIR = "history"
DATA_JS = "dev/bench/data.js"
GITIGNORE = ".lock\n*.tmp\n"
# What an older layout committed of the site at the branch's root (site.render's
# output): removed from the branch, since the site is deployed from a workflow artifact.
LEGACY_SITE = ("*.html", "assets", "charts", "data", ".cache", ".nojekyll", ".charts-new", ".data-new",
               ".assets-new")
RETRYABLE = re.compile(r"non-fast-forward|fetch first|\[rejected\]|failed to update ref|cannot lock ref|"
                       r"unable to lock|incorrect old value|stale info|remote rejected", re.I)


@dataclass
class PublishReport:
    attempts: int
    runs_added: list[str]
    commit: str | None
    pushed: bool
    site: site.SiteReport | None = None   # the render's, when a site was written


def is_local(remote: str) -> bool:
    return "://" not in remote and not re.match(r"^[\w.-]+@[\w.-]+:", remote)


def _git(args, cwd=None, check=True, env=None, input: str | None = None) -> subprocess.CompletedProcess:
    exe = shutil.which("git")
    if not exe:
        raise BenchError("git not found: install git")
    # stdin: `input`, or nothing (no git command here may wait on a terminal)
    p = subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True, env=env, input=input,
                       stdin=subprocess.DEVNULL if input is None else None)
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


def sparse_paths(docs) -> list[str]:
    """The files of the branch a publish of these results reads or writes: the run
    records and the entries files of their months, OSes and scenarios, data.js, and an
    older layout's site (removed). A publish checks out only these: the rest of the
    history (years of it) is neither written to disk nor read on every attempt."""
    out = {"/.gitignore", f"/{DATA_JS}", *(f"/{p}" for p in LEGACY_SITE)}
    for _, doc in docs:
        month = history.month_of(history.utc_date(doc["env"]["timestamp"]))
        out.add(f"/{HISTORY_DIR}/{history.RUNS_DIR}/{month}.json")
        out.add(f"/{raw_samples.rel_of(doc)}")
        for b in doc["benchmarks"]:
            if b["status"] == "ok":   # the month's summary too: `add` refuses a run of a summarised month
                rel = f"/{HISTORY_DIR}/{doc['env']['os']}/{b['key']['scenario']}/{month}.json"
                out.update((rel, history.summary_rel(rel)))
    return sorted(out)


def _init_tree(wt: Path, sparse: list[str] | None) -> None:
    """An empty repository in wt (once), checking out only `sparse` (None: everything)."""
    if not (wt / ".git").is_dir():
        _git(["init", "--quiet", str(wt)])
        if sparse:
            _git(["config", "core.sparseCheckout", "true"], cwd=wt)
            (wt / ".git" / "info").mkdir(parents=True, exist_ok=True)
            (wt / ".git" / "info" / "sparse-checkout").write_text("\n".join(sparse) + "\n", encoding="utf-8")


def _fetch(wt: Path, remote: str, branch: str, sparse: list[str] | None = None) -> bool:
    """Check out the remote branch's tip in wt (True), or an empty orphan branch (False).
    wt is kept from one attempt to the next: a retry fetches only what is new. sparse:
    the only paths to check out (git's sparse checkout; None: everything)."""
    _init_tree(wt, sparse)
    p = _git(["fetch", "--quiet", "--depth", "1", remote, f"+refs/heads/{branch}:refs/remotes/origin/{branch}"],
             cwd=wt, check=False)
    if p.returncode == 0:
        _git(["checkout", "--quiet", "--force", "-B", branch, f"refs/remotes/origin/{branch}"], cwd=wt)
        _git(["clean", "--quiet", "-d", "--force", "-x", "--exclude=.lock"], cwd=wt)
        return True
    if "couldn't find remote ref" in p.stderr or "could not find remote ref" in p.stderr.lower():
        if _git(["rev-parse", "--verify", "--quiet", "HEAD"], cwd=wt, check=False).returncode == 0:
            # an earlier attempt committed here, and the branch is still missing: drop that
            # commit (the orphan branch is made again below)
            _git(["checkout", "--quiet", "--detach"], cwd=wt)
            _git(["branch", "--quiet", "-D", branch], cwd=wt)
            _git(["rm", "-r", "-q", "--cached", "--ignore-unmatch", "."], cwd=wt)
            _git(["clean", "--quiet", "-d", "--force", "-x", "--exclude=.lock"], cwd=wt)
        _git(["checkout", "--quiet", "--orphan", branch], cwd=wt)
        return False
    tail = " | ".join(p.stderr.strip().splitlines()[-2:])
    raise BenchError(f"cannot fetch branch {branch} from {remote}: {tail}")


def _full_checkout(wt: Path) -> None:
    """Every file of the commit in wt (after a sparse checkout): the site reads the whole history."""
    if _git(["config", "--get", "core.sparseCheckout"], cwd=wt, check=False).stdout.strip() == "true":
        _git(["sparse-checkout", "disable"], cwd=wt)


def _pause(stage: str) -> None:
    """Test hook: BENCH_PUBLISH_PAUSE=<stage>:<seconds> sleeps at that stage (kill tests)."""
    want = os.environ.get("BENCH_PUBLISH_PAUSE", "")
    if want.startswith(stage + ":"):
        print(f"publish: paused at {stage}", file=sys.stderr, flush=True)
        time.sleep(float(want.split(":", 1)[1]))


# How long a publisher keeps trying while other publishers land first (the workflow's
# job allows 30 minutes, and a render follows).
RETRY_FOR_S = 1200.0
MAX_BACKOFF_S = 20.0


def publish(remote: str, branch: str, results_paths, *, site_url: str = "", repo_url: str = "",
            out: Path | None = None, retries: int = 1000, retry_for_s: float = RETRY_FOR_S,
            jobs: int | None = None, detect: bool = True, max_items: int = data_js.MAX_ITEMS,
            compact: bool = True, now: datetime | None = None, log=print) -> PublishReport:
    if retries < 1:
        raise BenchError(f"--retries must be at least 1, not {retries}")
    paths = [Path(p) for p in results_paths]
    docs = [(str(p), results.load(p)) for p in paths]  # every input valid before anything else
    versus = [compare.toolchain_verdicts(doc) for _, doc in docs]  # once: every attempt adds the same runs
    if is_local(remote):
        remote = ensure_local_remote(remote, branch)
    env = _identity_env()
    work = Path(tempfile.mkdtemp(prefix="bench-publish-"))
    wt, deadline = work / "data", time.monotonic() + retry_for_s
    try:
        _init_tree(wt, sparse_paths(docs))
        lock = publish_lock.acquire(_git, wt, remote, branch, env, deadline, log)
        try:
            newest = _clock(docs, now, log) if compact else None
            wt, runs_added, commit, attempts = _push_data(work, remote, branch, docs, versus, repo_url,
                                                          (retries, deadline), max_items, env, log, newest)
            if newest:   # under the lock too: a publisher landing meanwhile would fail its lease
                _compact_or_say(wt, remote, branch, newest, env, log)
        except _GaveUp as gave_up:
            raise BenchError(f"{gave_up}; nothing of these runs was pushed, and nothing is lost: publish them "
                             f"again with `{republish_command(remote, branch, paths, max_items)}` (idempotent: runs that "
                             "landed meanwhile are skipped), or in CI re-run the workflow's failed job") from None
        finally:
            publish_lock.release(_git, wt, remote, branch, lock, env)
        rep = None
        if out:
            _full_checkout(wt)
            rep = render_site(wt, Path(out), site_url=site_url, repo_url=repo_url, jobs=jobs, detect=detect)
            log(f"publish: site of {branch}'s history written to {out} ({rep.times()})")
            if detect:
                try:
                    publish_cache.save(_git, _fetch, wt, remote, branch, Path(out) / site.CP_CACHE, env, log)
                except Exception as err:   # noqa: BLE001 - it only saves time: never fails a publish
                    log(f"publish: change-point cache not saved: {err}")
        return PublishReport(attempts, runs_added, commit, commit is not None, rep)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def republish_command(remote: str, branch: str, paths, max_items: int = data_js.MAX_ITEMS) -> str:
    """The command that publishes these results files again (quoted for bash, which runs
    the pipeline on every OS; from the repository's root)."""
    keep = [] if max_items == data_js.MAX_ITEMS else ["--data-js-max-items", str(max_items)]
    args = ["ci-scripts/bench", "publish", "--remote", remote, "--branch", branch, *keep, *map(str, paths)]
    return " ".join(shlex.quote(str(a)) for a in args)


class _GaveUp(Exception):
    pass


def _backoff(branch: str, attempt: int, deadline: float, log) -> None:
    """Exponential backoff with full jitter: with many publishers at once most wait, so
    the one whose turn it is has the machine (and the remote) to itself."""
    delay = min(MAX_BACKOFF_S, 0.5 * 2 ** min(attempt - 1, 10)) * random.uniform(0.2, 1.0)
    delay = max(0.0, min(delay, deadline - time.monotonic()))
    log(f"publish: {branch} moved meanwhile (attempt {attempt}); fetching again in {delay:.1f}s")
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




def _clock(docs, now: datetime | None, log) -> str | None:
    """The clock of compaction and of the raw samples' 90 days: the newest run given, but
    never later than now (a results file dated in the future must not summarise the
    current months; `now`: a synthetic clock, for simulations). None: no such clock."""
    newest = max(history.utc_date(doc["env"]["timestamp"]) for _, doc in docs)
    clock = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    if newest > clock:
        log(f"publish: a run is dated {newest}, after now ({clock}); no compaction by this publish")
        return None
    return newest


def _compact_or_say(wt: Path, remote: str, branch: str, newest: str, env: dict, log) -> None:
    """The compaction, which is optional: any problem is one line in the log, and the
    publish (whose data has landed) goes on."""
    try:
        _compact_branch(wt, remote, branch, newest, env, log)
    except BenchError as err:
        log(f"publish: compaction skipped: {err}")


def _compact_branch(wt: Path, remote: str, branch: str, newest: str, env: dict, log) -> str | None:
    """Compress the branch's months that have ended and summarise those that ended
    KEEP_DAYS before `newest` (the date of the newest run this publisher was given: never
    a date read from the branch, where a hand-made far-future run record would summarise
    everything), and replace the branch by one commit of the compacted tree (see the
    module's doc). Raw samples are not its business: each publish that adds runs expires
    them (_expire_samples). Returns the new commit, or None (nothing to do, or the branch
    moved: left to the next publish)."""
    if _git(["rev-parse", "--verify", "--quiet", "HEAD"], cwd=wt, check=False).returncode != 0:
        return None
    names = _git(["ls-tree", "-r", "-z", "--name-only", "HEAD", "--", HISTORY_DIR], cwd=wt).stdout.split("\0")
    entries = [n for n in names if n.startswith(f"{HISTORY_DIR}/") and history.is_month_file(n)
               and not n.startswith(f"{HISTORY_DIR}/{history.RUNS_DIR}/")]
    whole = {Path(n).name[:7] for n in entries if n.endswith(".json")}
    closed = {Path(n).name[:7]: n for n in sorted(entries) if history.is_compressed(n)}   # a file a month
    # a month that has ended is compressed whole (at the first publish after it ended); one
    # KEEP_DAYS old is summarised. Compaction does every due month at once, so the newest
    # due month's kind tells whether any is still whole; a summary of an older version is
    # rewritten as /3, UPGRADES_PER_PUBLISH a night, the oldest first, while months are
    # still summarised as /3: any due month's last file (the last of its month rewritten)
    # may tell that some are left.
    due = history.closed_months(closed, newest)
    kinds = _blob_kinds(wt, [closed[m] for m in due])
    if not (history.closed_months(whole, newest, 0)
            or (kinds and kinds[-1] == "entries") or history_summary.LEGACY in kinds):
        return None
    tip = _git(["rev-parse", "HEAD"], cwd=wt).stdout.strip()
    _full_checkout(wt)
    rep = history.compact(wt / HISTORY_DIR, newest=newest, max_upgrades=UPGRADES_PER_PUBLISH)
    if rep.not_upgraded:
        log(f"publish: {len(rep.not_upgraded)} summarised month(s) of an older version left as they are, read as "
            f"they are: {rep.not_upgraded[0]}")
    if rep.left_out:
        log(f"publish: {rep.left_out} entries of runs without a run record (interrupted adds, never part of the "
            "history) left out of the summaries")
    if not rep.files and not rep.closed_files and not rep.upgraded:
        return None
    _git(["add", "-A"], cwd=wt)
    tree = _git(["write-tree"], cwd=wt).stdout.strip()
    done = []
    if rep.files:
        done.append(f"history compacted: {', '.join(rep.months)} summarised ({rep.entries} entries, "
                    f"{rep.bytes_before / 2**20:.1f} MiB -> {rep.bytes_after / 2**20:.2f} MiB)")
    if rep.closed_files:
        done.append(f"{', '.join(rep.closed_months)} kept whole, compressed ({rep.closed_before / 2**20:.1f} MiB -> "
                    f"{rep.closed_after / 2**20:.2f} MiB)")
    if rep.upgraded:
        done.append(_upgraded_text(rep))
    message = f"{'; '.join(done)}; the branch squashed to this one commit (it was {tip[:12]})"
    commit = _git(["commit-tree", tree, "-m", message], cwd=wt, env=env).stdout.strip()
    p = _git(["push", "--quiet", f"--force-with-lease=refs/heads/{branch}:{tip}", remote,
              f"{commit}:refs/heads/{branch}"], cwd=wt, check=False, env=env)
    if p.returncode != 0:
        tail = " | ".join(p.stderr.strip().splitlines()[-1:])
        log(f"publish: compaction not pushed ({tail}); left to the next publish")
        _git(["reset", "--quiet", "--hard", "HEAD"], cwd=wt)
        _git(["clean", "--quiet", "-d", "--force", "-x", "--exclude=.lock"], cwd=wt)
        return None
    _git(["reset", "--quiet", commit], cwd=wt)
    log(f"publish: {'; '.join(done)}; {branch} squashed to {commit[:12]}")
    return commit


# Summaries of an older version (history-summary/1, /2) that one publish rewrites as /3,
# the oldest first (~0.2 s each here: a ten-year branch of 3 OSes, ~3,200 files, over 8
# nights, each publish well within its job's time).
UPGRADES_PER_PUBLISH = 400


def _upgraded_text(rep) -> str:
    return (f"{rep.upgraded} summarised month(s) of an older version rewritten as history-summary/3 "
            f"({rep.upgraded_before / 2**20:.1f} MiB -> {rep.upgraded_after / 2**20:.1f} MiB)")


def _blob_kinds(wt: Path, paths: list[str]) -> list[str | None]:
    """The kind of each of these closed months' files in HEAD (history_summary.peek_kind),
    read by one git process (None: not there, or not a start written here)."""
    if not paths:
        return []
    p = subprocess.run(["git", "cat-file", "--batch"], cwd=wt, input="".join(f"HEAD:{n}\n" for n in paths).encode(),
                       capture_output=True, check=False)
    if p.returncode != 0:
        return [None] * len(paths)
    out, at = [], 0
    for _ in paths:
        end = p.stdout.index(b"\n", at)
        head = p.stdout[at:end].split()
        at = end + 1
        if len(head) != 3 or head[1] != b"blob":   # "<name> missing"
            out.append(None)
            continue
        size = int(head[2])
        out.append(history_summary.peek_kind(p.stdout[at:at + size]))
        at += size + 1
    return out


def _expire_samples(wt: Path, newest: str) -> int:
    """Take out of the next commit the raw samples of runs dated more than KEEP_DAYS before
    `newest`, each night, so that the branch holds 90 days of them (not up to 120, as when
    a month's went only with its summary). They are not on disk (sparse checkout): they
    leave the index. A run's date is its run record's, read from the commit
    (history/runs/<YYYY-MM>.json) for a month that straddles the cut; a file whose run has
    no record stays. Returns how many went."""
    cut_dt = datetime.fromisoformat(newest.replace("Z", "+00:00")) - timedelta(days=history_summary.KEEP_DAYS)
    cut = cut_dt.strftime("%Y-%m-%dT%H:%M:%SZ")
    names = _git(["ls-tree", "-r", "-z", "--name-only", "HEAD", "--", raw_samples.DIR], cwd=wt,
                 check=False).stdout.split("\0")
    by_month: dict[str, list[str]] = {}
    for n in names:
        if raw_samples.months([n]):
            by_month.setdefault(n.split("/")[1], []).append(n)
    gone = []
    for month, files in sorted(by_month.items()):
        if history.month_end(month) <= cut_dt:
            gone += files
        elif f"{month}-01T00:00:00Z" < cut:
            gone += [f for f, d in zip(files, _run_dates(wt, month, files)) if d is not None and d < cut]
    if gone:
        _git(["rm", "--cached", "--quiet", "--sparse", "--ignore-unmatch", "--pathspec-from-file=-",
              "--pathspec-file-nul"], cwd=wt, input="\0".join(gone))
    return len(gone)


def _run_dates(wt: Path, month: str, files: list[str]) -> list[str | None]:
    """The date of each samples file's run, from the month's run records in HEAD."""
    p = _git(["cat-file", "blob", f"HEAD:{HISTORY_DIR}/{history.RUNS_DIR}/{month}.json"], cwd=wt, check=False)
    try:
        doc = strictjson.loads(p.stdout, "run records") if p.returncode == 0 else {}
        dates = {r["run"]: r["date"] for r in doc.get("runs", []) if isinstance(r, dict)
                 and isinstance(r.get("run"), str) and isinstance(r.get("date"), str)}
    except (BenchError, AttributeError):
        dates = {}
    return [dates.get(Path(f).name[: -len(history_summary.SUFFIX)]) for f in files]


def _drop_legacy_site(wt: Path) -> None:
    for pattern in LEGACY_SITE:
        for path in wt.glob(pattern):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()


def _push_data(work, remote, branch, docs, versus, repo_url, limits, max_items, env, log, expire_from=None):
    """History entries and data.js, without rendering anything, so a race costs a fetch
    of what is new and a `history add` of the few files these runs touch (a sparse
    checkout, kept from one attempt to the next). Returns the work tree at the tip that
    holds them, the runs added, the commit (None: nothing new) and the attempts; gives
    up (_GaveUp) after `limits` = (attempts, monotonic deadline). expire_from: the clock
    of the raw samples' KEEP_DAYS (None: none expire)."""
    retries, deadline = limits
    wt = work / "data"
    sparse = sparse_paths(docs)
    t0 = time.monotonic()
    for attempt in range(1, retries + 1):
        _fetch(wt, remote, branch, sparse)
        _pause("fetched")
        rep = history.add(wt / HISTORY_DIR, docs, versus)
        if not rep.runs_added:
            log(f"publish: nothing new (the {len(rep.runs_present)} run(s) are already in {branch})")
            return wt, [], None, attempt
        data_js.update(wt / DATA_JS, rep.new_runs, rep.new_entries, repo_url, max_items=max_items)
        for _, doc in docs:
            if history.run_id_of(doc) in rep.runs_added:
                (wt / raw_samples.rel_of(doc)).parent.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(wt / raw_samples.rel_of(doc), raw_samples.data(doc))
        _drop_legacy_site(wt)
        expired = _expire_samples(wt, expire_from) if expire_from else 0
        runs = ", ".join(rep.runs_added[:4]) + (f" and {len(rep.runs_added) - 4} more" if len(rep.runs_added) > 4 else "")
        gone = f"; raw samples of {expired} run(s) older than {history_summary.KEEP_DAYS} days removed" if expired else ""
        commit = _push(wt, remote, branch, f"bench publish: {runs}{gone}", env)
        if commit:
            log(f"publish: pushed {commit[:12]} to {branch} ({len(rep.runs_added)} run(s), attempt {attempt})")
            return wt, rep.runs_added, commit, attempt
        if attempt == retries or time.monotonic() >= deadline:
            break
        _backoff(branch, attempt, deadline, log)
    raise _GaveUp(f"gave up after {attempt} attempt(s) in {time.monotonic() - t0:.0f} s: {branch} kept moving")


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:   # another file system, or one without hard links
        shutil.copy2(src, dst)


def render_site(wt: Path, out: Path, *, site_url: str = "", repo_url: str = "", jobs: int | None = None,
                detect: bool = True) -> site.SiteReport:
    """The site of the history in work tree wt, rendered into a new folder swapped in
    for out whole (a failed render leaves out as it was), with a copy of data.js. The
    previous folder's caches (change points, summarised months' columns and series) are carried over."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-new-", dir=out.parent))
    try:
        if (out / ".cache").is_dir():   # linked, not copied: its files are only ever replaced by a rename
            shutil.copytree(out / ".cache", tmp / ".cache", copy_function=_link_or_copy)
        if site.rendered_before(out):   # where site.render keeps the columns cache
            (tmp / site.COLUMNS_CACHE).mkdir(parents=True, exist_ok=True)
        try:   # a fresh machine: start from the branch's, if any; it only saves time
            publish_cache.seed(wt, tmp / site.CP_CACHE)
        except Exception as err:   # noqa: BLE001
            print(f"publish: the branch's change-point cache not used: {err}", file=sys.stderr)
        rep = site.render(wt / HISTORY_DIR, tmp, site_url=site_url, repo_url=repo_url, jobs=jobs, detect=detect)
        if (wt / DATA_JS).exists():
            (tmp / DATA_JS).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(wt / DATA_JS, tmp / DATA_JS)
        _pause("rendered")
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    swap_dir(tmp, out)
    return rep
