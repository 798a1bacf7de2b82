"""An advisory lock that lets concurrent publishers take turns instead of racing.

Without it, N publishers at once each fetch, add their runs and push; one push lands and
N-1 attempts were wasted work (seconds of CPU each, on a runner that is short of it):
measured, 64 full-size publishers with a core kept busy took 909 s. With it, a
publisher first creates the ref refs/publish-lock/<branch> on the remote (a push that
creates a ref is atomic: of several, one succeeds); the others wait, polling with `git
ls-remote` only, until the ref is gone, and the holder deletes it (with a lease: only
its own) when its push landed or it gave up.

The lock is only an optimisation, never what keeps data safe: every data push is still
refused if the branch moved, and retried. So a lock that outlives its holder (a killed
job) is broken after STALE_S by whoever has waited that long on the same holder, and
where the remote refuses such a ref (a server policy) or it cannot be taken within the
publisher's time budget, the publisher goes ahead without it, as before."""

from __future__ import annotations

import os
import random
import re
import socket
import time
import uuid

STALE_S = 90.0          # one full-size publish attempt takes 5-20 s here, beside 63 others
POLL_S = (1.0, 3.0)     # a waiter's poll interval (uniform): ls-remote only
MISSES = 10             # creates refused with no holder in sight, in a row: give the lock up
# a ref update that lost a race, as git reports it (anything else "remote rejected" is a policy)
_RACE = re.compile(r"failed to update ref|cannot lock ref|unable to lock|incorrect old value|stale info", re.I)


def ref(branch: str) -> str:
    return f"refs/publish-lock/{branch}"


def holder(git, wt, remote: str, branch: str) -> str | None:
    out = git(["ls-remote", remote, ref(branch)], cwd=wt, check=False).stdout.split()
    return out[0] if out else None


def acquire(git, wt, remote: str, branch: str, env: dict, deadline: float, log) -> str | None:
    """Take the lock: its commit, or None (publish without it: see the module's doc)."""
    empty_tree = git(["mktree"], cwd=wt).stdout.strip()
    first_seen: dict[str, float] = {}
    # test hook: the kill tests leave a dead holder's lock behind and need not wait 90 s
    stale_s = float(os.environ.get("BENCH_PUBLISH_LOCK_STALE_S", STALE_S))
    misses = 0
    said = False
    while True:
        # a nonce: two publishers in the same second would otherwise make the same commit,
        # and the second "create" would succeed as already up to date
        commit = git(["commit-tree", empty_tree, "-m", f"publish lock, taken at {time.time():.0f} by "
                      f"{socket.gethostname()} {os.getpid()} {uuid.uuid4()}"], cwd=wt, env=env).stdout.strip()
        p = git(["push", "--quiet", remote, f"{commit}:{ref(branch)}"], cwd=wt, check=False, env=env)
        if p.returncode == 0:
            return commit
        if "remote rejected" in p.stderr and not _RACE.search(p.stderr):
            tail = " | ".join(p.stderr.strip().splitlines()[-1:])
            log(f"publish: the remote refuses {ref(branch)} ({tail}); publishing without the lock")
            return None
        while True:
            now = time.monotonic()
            current = holder(git, wt, remote, branch)
            if current is None:   # released meanwhile: try again at once
                misses += 1
                if misses >= MISSES:
                    log(f"publish: {ref(branch)} cannot be taken and nobody holds it; publishing without the lock")
                    return None
                break
            misses = 0
            if now - first_seen.setdefault(current, now) > stale_s:
                log(f"publish: the lock held since {stale_s:.0f} s by {current[:12]} is stale; breaking it")
                git(["push", "--quiet", f"--force-with-lease={ref(branch)}:{current}", remote, f":{ref(branch)}"],
                    cwd=wt, check=False, env=env)
                break
            if now >= deadline:
                log("publish: the lock was not free within the time budget; publishing without it")
                return None
            if not said:
                log(f"publish: another publisher holds {ref(branch)}; waiting for its turn")
                said = True
            time.sleep(min(random.uniform(*POLL_S), max(0.0, deadline - now)))


def release(git, wt, remote: str, branch: str, commit: str | None, env: dict) -> None:
    """Delete the lock if it is still this publisher's (a lease: never another's)."""
    if commit:
        git(["push", "--quiet", f"--force-with-lease={ref(branch)}:{commit}", remote, f":{ref(branch)}"],
            cwd=wt, check=False, env=env)
