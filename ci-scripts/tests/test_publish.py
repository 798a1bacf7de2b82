"""`bench publish` against a real local bare git repository: concurrent publishers lose
no entry, a killed publisher leaves the branch valid, a corrupt history on the branch
is reported and nothing is pushed, re-publishing is idempotent; the branch holds the
history and data.js only (the site goes to --out), data.js is bounded, and a branch of
the older layout loses its committed site."""

import json
import lzma
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from benchpipe import history, publish, publish_lock
from benchpipe.export import data_js
from factories import make_results, read_json, small_keys

BENCH = Path(__file__).resolve().parent.parent / "bench"
KEYS = small_keys(("sleep",))


def git(*args, cwd=None):
    return subprocess.run(["git", *map(str, args)], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def tip(remote):
    p = subprocess.run(["git", "--git-dir", str(remote), "rev-parse", "--verify", "-q", "refs/heads/gh-pages"],
                       capture_output=True, text=True)
    return p.stdout.strip() or None


def checkout(remote, dest):
    git("clone", "--quiet", "--branch", "gh-pages", remote, dest)
    return Path(dest)


def _tmpdir(tmp_path):
    d = tmp_path / "tmp"
    d.mkdir(exist_ok=True)
    return d


def publish_cmd(remote, *results, extra=()):
    return [str(BENCH), "publish", "--remote", str(remote), "--branch", "gh-pages", "--jobs", "1", *extra, *map(str, results)]


def test_publish_to_new_local_bare_repo_then_idempotent(tmp_path):
    r = [make_results(tmp_path / f"r{i}.json", i, keys=KEYS) for i in range(2)]
    remote = tmp_path / "pages.git"
    p = subprocess.run(publish_cmd(remote, *r, extra=["--out", tmp_path / "site", "--site-url", "https://o.github.io/r"]),
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (remote / "HEAD").exists() and tip(remote)
    wt = checkout(remote, tmp_path / "co")
    branch = {p.relative_to(wt).as_posix() for p in wt.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert "dev/bench/data.js" in branch and "history/runs/2026-03.json" in branch
    assert all(f.startswith(("history/", "dev/bench/", "samples/")) or f == ".gitignore" for f in branch), branch  # no site
    # each run's raw per-run values beside the history's summaries
    samples = sorted(f for f in branch if f.startswith("samples/2026-03/"))
    assert len(samples) == 2 and all(f.endswith(".json.xz") for f in samples)
    doc = json.loads(lzma.decompress((wt / samples[0]).read_bytes()))
    runs = {history.run_id_of(read_json(f)): read_json(f) for f in r}
    src = runs[doc["run"]]
    assert doc["benchmarks"] and all(doc["benchmarks"][b["id"]]["wall_s"] == b["samples"]["wall_s"]
                                     for b in src["benchmarks"] if b["status"] == "ok")
    site = tmp_path / "site"
    for f in ("index.html", "regressions.html", "about.html", "scenario-sleep.html", ".nojekyll", "dev/bench/data.js",
              "charts/sleep/size-linux-time.svg", "data/sleep.js"):
        assert (site / f).exists(), f
    assert not (site / "history").exists() and not (site / ".git").exists()
    assert not list(tmp_path.glob(".site-new-*"))
    assert "2 runs in the history" in (site / "index.html").read_text()
    assert 'rel="canonical" href="https://o.github.io/r/' in (site / "index.html").read_text()
    first = tip(remote)
    p = subprocess.run(publish_cmd(remote, *r), capture_output=True, text=True)
    assert p.returncode == 0 and "nothing new" in p.stderr + p.stdout
    assert tip(remote) == first  # no new commit
    r2 = make_results(tmp_path / "r2.json", 2, keys=KEYS)
    assert subprocess.run(publish_cmd(remote, r2, extra=["--out", site]), capture_output=True,
                          text=True).returncode == 0
    wt2 = checkout(remote, tmp_path / "co2")
    assert len(history.load(wt2 / "history").runs) == 3
    assert "3 runs in the history" in (site / "index.html").read_text()
    assert (site / "dev/bench/data.js").read_bytes() == (wt2 / "dev/bench/data.js").read_bytes()
    # one commit per publish that adds runs: the data (the site is never committed)
    assert git("rev-list", "--count", "gh-pages", cwd=wt2) == "2"
    # old history records were not rewritten: the first commit's file is a prefix of the new one
    old = git("show", f"{first}:history/linux/sleep/2026-03.json", cwd=wt2)
    new = (wt2 / "history/linux/sleep/2026-03.json").read_text()
    assert new.startswith(old[: old.rindex("\n]}")])


def test_twelve_concurrent_publishers_lose_nothing(tmp_path):
    remote = tmp_path / "pages.git"
    git("init", "--quiet", "--bare", "--initial-branch=gh-pages", remote)
    files = [make_results(tmp_path / f"r{i}.json", i, keys=KEYS) for i in range(12)]
    env = dict(os.environ)
    procs = [subprocess.Popen(publish_cmd(remote, f, extra=["--retries", "40"]), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for f in files]
    outs = [p.communicate(timeout=900) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    retried = sum("moved meanwhile" in out + err for out, err in outs)
    wt = checkout(remote, tmp_path / "co")
    assert history.check(wt / "history") == []
    h = history.load(wt / "history")
    assert len(h.runs) == 12 and len(h.entries) == 12 * len(KEYS)
    subjects = git("log", "--format=%s", "gh-pages", cwd=wt).splitlines()
    assert len(subjects) == 12 and all(x.startswith("bench publish: r") for x in subjects)  # one each, none lost
    data = data_js.read(wt / "dev/bench/data.js")
    assert len(data["entries"]["linux go stable"]) == 12
    # nothing new, but the site of everything on the branch is rendered
    p = subprocess.run(publish_cmd(remote, files[0], extra=["--out", tmp_path / "site"]), capture_output=True, text=True)
    assert p.returncode == 0 and "nothing new" in p.stdout + p.stderr, p.stderr
    assert "12 runs in the history" in (tmp_path / "site/index.html").read_text()
    print(f"{retried} publishers had to retry")


@pytest.mark.parametrize("stage", ["fetched", "committed", "rendered"])
def test_killed_publisher_leaves_branch_valid(tmp_path, stage):
    remote, site = tmp_path / "pages.git", tmp_path / "site"
    out = ["--no-changepoints", "--out", site]
    r0 = make_results(tmp_path / "r0.json", 0, keys=KEYS)
    assert subprocess.run(publish_cmd(remote, r0, extra=out), capture_output=True).returncode == 0
    before = tip(remote)
    r1 = make_results(tmp_path / "r1.json", 1, keys=KEYS)
    # A SIGKILLed publisher cannot remove its work tree: keep it under tmp_path.
    env = dict(os.environ, BENCH_PUBLISH_PAUSE=f"{stage}:60", TMPDIR=str(_tmpdir(tmp_path)))
    p = subprocess.Popen(publish_cmd(remote, r1, extra=out), stderr=subprocess.PIPE, text=True,
                         env=env, start_new_session=True)
    line = p.stderr.readline()
    while line and "paused at" not in line:
        line = p.stderr.readline()
    assert f"paused at {stage}" in line
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    wt = checkout(remote, tmp_path / "co")
    assert history.check(wt / "history") == []
    if stage == "rendered":
        # killed while writing the site: the data is in, the site folder is the previous one, whole
        assert tip(remote) != before and len(history.load(wt / "history").runs) == 2
    else:
        assert tip(remote) == before  # old, not half
        assert len(history.load(wt / "history").runs) == 1
    assert "1 runs in the history" in (site / "index.html").read_text()
    assert subprocess.run(["git", "fsck", "--no-progress"], cwd=remote, capture_output=True).returncode == 0
    # and the next publish completes it (breaking the lock the killed one held, after its few seconds)
    quick = dict(os.environ, BENCH_PUBLISH_LOCK_STALE_S="3")
    p = subprocess.run(publish_cmd(remote, r1, extra=out), capture_output=True, text=True, env=quick)
    assert p.returncode == 0, p.stderr
    assert ("is stale; breaking it" in p.stdout) == (stage != "rendered"), p.stdout
    assert git("--git-dir", remote, "for-each-ref", "refs/publish-lock/") == ""
    wt2 = checkout(remote, tmp_path / "co2")
    assert len(history.load(wt2 / "history").runs) == 2
    assert "2 runs in the history" in (site / "index.html").read_text()


def test_killed_at_random_moments(tmp_path):
    remote = tmp_path / "pages.git"
    r0 = make_results(tmp_path / "r0.json", 0, keys=KEYS)
    assert subprocess.run(publish_cmd(remote, r0, extra=["--no-changepoints"]), capture_output=True).returncode == 0
    prev_runs = 1
    for i, delay in enumerate((1.0, 2.5, 4.0)):
        ri = make_results(tmp_path / f"k{i}.json", 10 + i, keys=KEYS)
        before = tip(remote)
        p = subprocess.Popen(publish_cmd(remote, ri, extra=["--no-changepoints"]), stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True,
                             env=dict(os.environ, TMPDIR=str(_tmpdir(tmp_path)), BENCH_PUBLISH_LOCK_STALE_S="3"))
        time.sleep(delay)
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        after = tip(remote)
        wt = checkout(remote, tmp_path / f"co{i}")
        assert history.check(wt / "history") == []
        runs = len(history.load(wt / "history").runs)
        assert runs == (prev_runs if after == before else prev_runs + 1)  # old or new, never half
        prev_runs = runs


def test_corrupt_history_on_the_branch_is_reported_and_nothing_pushed(tmp_path):
    remote = tmp_path / "pages.git"
    r0 = make_results(tmp_path / "r0.json", 0, keys=KEYS)
    assert subprocess.run(publish_cmd(remote, r0, extra=["--no-changepoints"]), capture_output=True).returncode == 0
    wt = checkout(remote, tmp_path / "co")
    f = wt / "history/linux/sleep/2026-03.json"
    text = f.read_text()
    assert ',0,{"' in text
    f.write_text(text.replace(',0,{"', ',0,{"warning":"edited","', 1))  # a hand edit of an entry
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "hand edit", cwd=wt)
    git("push", "-q", "origin", "gh-pages", cwd=wt)
    edited = tip(remote)
    r1 = make_results(tmp_path / "r1.json", 1, keys=KEYS)
    p = subprocess.run(publish_cmd(remote, r1), capture_output=True, text=True)
    assert p.returncode == 1
    assert "history/linux/sleep/2026-03.json" in p.stderr and "digest mismatch" in p.stderr
    assert p.stderr.strip().count("\n") == 0
    assert tip(remote) == edited


def test_invalid_results_are_refused_before_touching_the_remote(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "gorust-bench.results/1"}')
    p = subprocess.run(publish_cmd(tmp_path / "pages.git", bad), capture_output=True, text=True)
    assert p.returncode == 1 and "bad.json" in p.stderr and not (tmp_path / "pages.git").exists()


def test_data_js_is_bounded_and_its_series_continue(tmp_path):
    remote = tmp_path / "pages.git"
    for i in range(4):
        r = make_results(tmp_path / f"r{i}.json", i, keys=KEYS)
        publish.publish(str(remote), "gh-pages", [r], max_items=2, log=lambda *a: None)
    wt = checkout(remote, tmp_path / "co")
    runs = history.load(wt / "history").runs
    assert len(runs) == 4  # the history keeps every run
    commits = [r["commit"] for r in sorted(runs.values(), key=lambda r: r["date"])]
    data = data_js.read(wt / "dev/bench/data.js")
    for name, series in data["entries"].items():
        assert [e["commit"]["id"] for e in series] == commits[-2:], name  # the newest two, in order


def test_a_branch_of_the_older_layout_loses_its_committed_site(tmp_path):
    remote = tmp_path / "pages.git"
    r0 = make_results(tmp_path / "r0.json", 0, keys=KEYS)
    publish.publish(str(remote), "gh-pages", [r0], log=lambda *a: None)
    wt = checkout(remote, tmp_path / "co")
    for f in ("index.html", "about.html", "charts/sleep/a.svg", "data/sleep.js", "assets/site.css",
              ".cache/changepoints.json", ".nojekyll", "dev/bench/index.html"):
        (wt / f).parent.mkdir(parents=True, exist_ok=True)
        (wt / f).write_text("old site")
    git("add", "-A", cwd=wt)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "the site, as publish used to commit it", cwd=wt)
    git("push", "-q", "origin", "gh-pages", cwd=wt)
    r1 = make_results(tmp_path / "r1.json", 1, keys=KEYS)
    publish.publish(str(remote), "gh-pages", [r1], log=lambda *a: None)
    wt2 = checkout(remote, tmp_path / "co2")
    left = {p.relative_to(wt2).as_posix() for p in wt2.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert {f for f in left if not f.startswith(("history/", "samples/"))} == {".gitignore", "dev/bench/data.js",
                                                                 "dev/bench/index.html"}
    assert len(history.load(wt2 / "history").runs) == 2


def test_a_publish_checks_out_only_the_files_it_touches_and_keeps_the_rest(tmp_path):
    """Years of history are neither written to disk nor read on each attempt: the work
    tree holds the months, OSes and scenarios of the runs being published (a sparse
    checkout), and every other file of the branch is kept as it was."""
    remote = tmp_path / "pages.git"
    from datetime import datetime, timezone
    old = make_results(tmp_path / "old.json", 0, keys=small_keys(("sleep", "cpu")),
                       timestamp=datetime(2025, 12, 1, tzinfo=timezone.utc))
    publish.publish(str(remote), "gh-pages", [old], log=lambda *a: None)
    before = set(git("ls-tree", "-r", "--name-only", "gh-pages", cwd=remote).split())
    r1 = make_results(tmp_path / "r1.json", 1, keys=KEYS)
    env = dict(os.environ, BENCH_PUBLISH_PAUSE="fetched:3", TMPDIR=str(_tmpdir(tmp_path)))
    p = subprocess.Popen(publish_cmd(remote, r1), stderr=subprocess.PIPE, text=True, env=env)
    line = p.stderr.readline()
    while line and "paused at" not in line:
        line = p.stderr.readline()
    (wt,) = [d for d in _tmpdir(tmp_path).glob("bench-publish-*/data")]
    on_disk = {f.relative_to(wt).as_posix() for f in wt.rglob("*") if f.is_file() and ".git" not in f.parts}
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert on_disk == {".gitignore", "dev/bench/data.js"}, on_disk    # March's files do not exist yet
    after = set(git("ls-tree", "-r", "--name-only", "gh-pages", cwd=remote).split())
    # every file kept, December's entries compressed whole now that the month has ended, and
    # its raw samples gone (the run is more than 90 days older than March's)
    kept = {f + ".xz" if f.endswith("/2025-12.json") and "/runs/" not in f else f for f in before
            if not f.startswith("samples/2025-12/")}
    assert kept <= after and {"history/runs/2026-03.json", "history/linux/sleep/2026-03.json"} <= after
    assert "history/linux/cpu/2025-12.json.xz" in kept and any(f.startswith("samples/2025-12/") for f in before)
    assert not any(f.startswith("samples/2025-12/") for f in after)
    wt2 = checkout(remote, tmp_path / "co")
    assert history.check(wt2 / "history") == [] and len(history.load(wt2 / "history").runs) == 2


def test_a_publisher_that_cannot_land_says_how_to_publish_its_runs_again(tmp_path, monkeypatch):
    """Another writer lands while this one holds its commit (paused after the fetch): one
    that does not take the publish lock (an older pipeline); with one attempt allowed it
    gives up in one line naming the command that publishes its runs again, and that
    command lands them."""
    remote = tmp_path / "pages.git"
    r0, r1, r2 = (make_results(tmp_path / f"r{i}.json", i, keys=KEYS) for i in range(3))
    assert subprocess.run(publish_cmd(remote, r0), capture_output=True).returncode == 0
    env = dict(os.environ, BENCH_PUBLISH_PAUSE="fetched:20")
    slow = subprocess.Popen(publish_cmd(remote, r1, extra=["--retries", "1"]), stderr=subprocess.PIPE, text=True,
                            env=env)
    line = slow.stderr.readline()
    while line and "paused at" not in line:
        line = slow.stderr.readline()
    monkeypatch.setattr(publish_lock, "acquire", lambda *a, **k: None)
    publish.publish(str(remote), "gh-pages", [r2], log=lambda *a: None)   # lands first
    _, err = slow.communicate(timeout=300)
    assert slow.returncode == 1
    (msg,) = [ln for ln in err.splitlines() if "gave up" in ln]
    assert "gave up after 1 attempt(s)" in msg and "nothing is lost" in msg and str(r1) in msg, msg
    again = msg.split("publish them again with `", 1)[1].split("`", 1)[0]
    assert again.startswith("ci-scripts/bench publish --remote ")
    p = subprocess.run(["bash", "-c", again], cwd=BENCH.parent.parent, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    wt = checkout(remote, tmp_path / "co")
    assert len(history.load(wt / "history").runs) == 3


def test_publishers_take_turns_and_a_stale_lock_is_broken(tmp_path, monkeypatch):
    """The publish lock: taken and released (no ref left behind); a lock whose holder died
    is broken after STALE_S and the publisher lands; a remote that refuses the ref is
    published to without it."""
    remote = tmp_path / "pages.git"
    r0, r1, r2 = (make_results(tmp_path / f"r{i}.json", i, keys=KEYS) for i in range(3))
    lines = []
    publish.publish(str(remote), "gh-pages", [r0], log=lines.append)
    assert git("--git-dir", remote, "for-each-ref", "refs/publish-lock/") == ""     # released
    # a holder that died: its lock stays until someone has waited STALE_S on it
    wt = tmp_path / "dead"
    git("init", "-q", wt)
    empty = subprocess.run(["git", "mktree"], cwd=wt, input="", capture_output=True, text=True, check=True).stdout.strip()
    dead = git("-c", "user.name=t", "-c", "user.email=t@t", "commit-tree", empty, "-m", "lock", cwd=wt)
    git("push", "-q", remote, f"{dead}:refs/publish-lock/gh-pages", cwd=wt)
    monkeypatch.setattr(publish_lock, "STALE_S", 2.0)
    monkeypatch.setattr(publish_lock, "POLL_S", (0.2, 0.4))
    t = time.monotonic()
    assert publish.publish(str(remote), "gh-pages", [r1], log=lines.append).pushed
    assert time.monotonic() - t >= 2.0 and any("is stale; breaking it" in ln for ln in lines), lines
    assert git("--git-dir", remote, "for-each-ref", "refs/publish-lock/") == ""
    # a remote whose policy refuses the ref (a hook here)
    hook = remote / "hooks" / "update"
    hook.write_text('#!/bin/sh\ncase "$1" in refs/publish-lock/*) echo "no such refs here" >&2; exit 1;; esac\n')
    hook.chmod(0o755)
    assert publish.publish(str(remote), "gh-pages", [r2], log=lines.append).pushed
    assert any("refuses refs/publish-lock/gh-pages" in ln for ln in lines), lines
    wt2 = checkout(remote, tmp_path / "co")
    assert len(history.load(wt2 / "history").runs) == 3


def test_two_publishers_in_the_same_second_do_not_both_hold_the_lock(tmp_path):
    """Lock commits carry a nonce: the same empty tree, identity and second would
    otherwise give the same commit, and the second create would succeed as up to date."""
    remote = tmp_path / "pages.git"
    git("init", "--quiet", "--bare", "--initial-branch=gh-pages", remote)
    env = dict(os.environ, GIT_AUTHOR_DATE="2026-03-01T00:00:00Z", GIT_COMMITTER_DATE="2026-03-01T00:00:00Z",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    trees = []
    for name in ("a", "b"):
        git("init", "-q", tmp_path / name)
        trees.append(tmp_path / name)
    first = publish_lock.acquire(publish._git, trees[0], str(remote), "gh-pages", env, time.monotonic() + 60,
                                 lambda *a: None)
    lines = []
    second = publish_lock.acquire(publish._git, trees[1], str(remote), "gh-pages", env, time.monotonic() + 1.5,
                                  lines.append)
    assert first and second is None and any("not free within the time budget" in ln for ln in lines), lines
    publish_lock.release(publish._git, trees[1], str(remote), "gh-pages", "0" * 40, env)   # not its lock: kept
    assert publish_lock.holder(publish._git, trees[0], str(remote), "gh-pages") == first
    publish_lock.release(publish._git, trees[0], str(remote), "gh-pages", first, env)
    assert publish_lock.holder(publish._git, trees[0], str(remote), "gh-pages") is None
