"""The change-point cache kept on the branch, so that the publish job, which starts on a
fresh runner every night, searches only the newest window of each series instead of
all of them (trends.detect_all: ten years of nights are 60 windows a series).

The file (CACHE, beside history/) holds trends.shared_cache: the candidates of the
full windows, keyed by the window's values. It changes only when series fill a new
window (every trends.STEP nights), so it adds little to the branch. It is derived data
and only ever saves time: a render finds the same change points without it, a cache
of other options or layout is ignored, an entry that a search of its window could not
give is searched again (changepoints.detect), and a file that is missing, too big or
not JSON is as good as none. (An entry that is well formed but false would hide or add
a candidate; it is trusted as far as the branch is: whoever can write it can write the
history itself.) Saving it is a separate commit after the render, tried
once: when the branch moved meanwhile, the next publish saves it."""

from __future__ import annotations

import json
from pathlib import Path

from benchpipe import trends
from benchpipe.fsutil import atomic_write_bytes

CACHE = "cache/changepoints.json"
MAX_BYTES = 256 * 2**20  # ~60 bytes a window: millions of windows, far beyond ten years


def read(path: Path) -> dict | None:
    """The branch's cache in shared form, or None (missing, too big, not JSON, other options)."""
    try:
        if path.stat().st_size > MAX_BYTES:
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict):
        return None
    stamp = trends.cache_stamp()
    if {k: doc.get(k) for k in stamp} != stamp or not isinstance(doc.get("windows"), dict):
        return None
    return doc


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


def save(git, fetch, work: Path, remote: str, branch: str, site_cache: Path, env: dict, log) -> bool:
    """Commit the site's full windows to the branch when it lacks some of them or holds
    them otherwise (the union with what the branch holds, ours winning: an entry keyed by
    its window's values stays true as the history grows). One attempt; True when pushed."""
    ours = trends.shared_cache(site_cache)
    if ours is None:
        return False
    wt = work / "cache"
    if not fetch(wt, remote, branch, [f"/{CACHE}"]):
        return False   # no branch (nothing was published): nothing to add to
    theirs = read(wt / CACHE) or {"windows": {}}
    new = {k for k, v in ours["windows"].items() if theirs["windows"].get(k) != v}  # missing, or malformed there
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
