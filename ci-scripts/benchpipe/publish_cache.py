"""The change-point cache kept on the branch, so that the publish job, which starts on a
fresh runner every night, searches only the newest window of each series instead of
all of them (trends.detect_all: ten years of nights are 60 windows a series).

The file (CACHE, beside history/) holds trends.shared_cache: the candidates of the
full windows, keyed by the window's values. It changes only when series fill a new
window (every trends.STEP nights), so it adds little to the branch. It is derived data
and only ever saves time: a render finds the same change points without it, a cache
of other options or layout is ignored, an entry that a search of its window could not
give is searched again (changepoints.detect), a file that is missing, too big, not a
plain file or not strict JSON is as good as none, and any failure to read or save it is
one line in the log, never a failed publish. (An entry that is well formed but false would hide or add
a candidate; it is trusted as far as the branch is: whoever can write it can write the
history itself.) Saving it is a separate commit after the render, tried
once: when the branch moved meanwhile, the next publish saves it. Stale entries (of
series no longer in the history) are kept until the file is written with another
stamp: windows are keyed by their values, so an entry never becomes false."""

from __future__ import annotations

import json
from pathlib import Path

from benchpipe import trends
from benchpipe.fsutil import atomic_write_bytes

CACHE = "cache/changepoints.json"


def read(path: Path) -> dict | None:
    """The branch's cache in shared form (its well-formed entries), or None (missing, not
    a plain file, too big, not JSON, written with other options or code)."""
    return trends.shared_cache(path)


def seed(wt: Path, site_cache: Path) -> None:
    """Start the site's cache from the branch's, when the site has none of its own."""
    shared = read(wt / CACHE)
    if shared is not None:
        trends.seed_cache(site_cache, shared)


def encode(doc: dict) -> bytes:
    # sorted and one window a line: a new window is a small diff, and the same cache the same bytes
    windows = doc["windows"]
    head = {k: v for k, v in doc.items() if k != "windows"}
    lines = [json.dumps(head, sort_keys=True)[:-1] + ', "windows": {']
    lines += [f"{json.dumps(k)}: {json.dumps(windows[k])}," for k in sorted(windows)]
    if len(lines) > 1:
        lines[-1] = lines[-1][:-1]
    lines.append("}}")
    return ("\n".join(lines) + "\n").encode()


def save(git, fetch, wt: Path, remote: str, branch: str, site_cache: Path, env: dict, log) -> bool:
    """Commit the site's full windows to the branch when it lacks some of them or holds
    them otherwise (the union with what the branch holds, ours winning: an entry keyed by
    its window's values stays true as the history grows). wt: the work tree the site was
    rendered from, at the tip this publisher pushed (compared with first: most nights
    nothing is new, and nothing is fetched). One attempt; True when pushed."""
    ours = trends.shared_cache(site_cache)
    if ours is None:
        return False

    def missing(theirs: dict | None) -> set[str]:
        have = (theirs or {"windows": {}})["windows"]
        return {k for k, v in ours["windows"].items() if have.get(k) != v}

    if not missing(read(wt / CACHE)) or not fetch(wt, remote, branch, None):
        return False   # nothing new (or no branch: nothing was published to add to)
    theirs = read(wt / CACHE) or {"windows": {}}
    new = missing(theirs)
    if not new:
        return False
    doc = {**ours, "windows": {**theirs["windows"], **ours["windows"]}}
    (wt / CACHE).parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(wt / CACHE, encode(doc))
    git(["add", "--", CACHE], cwd=wt)
    git(["commit", "--quiet", "-m", f"change-point cache: {len(new)} new window(s), {len(doc['windows'])} in all"],
        cwd=wt, env=env)
    p = git(["push", "--quiet", remote, f"HEAD:refs/heads/{branch}"], cwd=wt, check=False, env=env)
    if p.returncode != 0:
        tail = " | ".join(p.stderr.strip().splitlines()[-1:])
        log(f"publish: change-point cache not saved ({tail}); the next publish saves it")
        return False
    log(f"publish: change-point cache saved to {branch} ({len(new)} new window(s))")
    return True
