"""github-action-benchmark's own store, `dev/bench/data.js` on gh-pages
(`window.BENCHMARK_DATA = {lastUpdate, repoUrl, entries: {set: [entry, ...]}}`): read it,
append new history runs to it in the action's format (sets and benches from
export.benchmark_action), keeping whatever the action itself wrote there, and bound it:
each series (set) keeps its newest MAX_ITEMS entries, as the action's own
`max-items-in-chart` does. The series goes on; only its oldest entries leave data.js
(the history keeps every run)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from benchpipe import strictjson
from benchpipe.errors import BenchError
from benchpipe.export import benchmark_action
from benchpipe.fsutil import atomic_write_text

DATA_JS_PREFIX = "window.BENCHMARK_DATA = "
# Entries per series kept in data.js: two weeks of nightly runs. The action compares a
# new result with a series' latest entry only, so its alerts need just that; the trend
# site draws every year from the history. A night of the standard preset is ~0.42 MiB
# (12 series), so 14 keep data.js at ~5.8 MiB for good: the ten-year branch stays under
# 200 MB (30 made it ~202 MB; 500, ~210 MiB of data.js alone).
MAX_ITEMS = 14


def read(path: Path) -> dict:
    return parse(Path(path).read_text(encoding="utf-8"), str(path))


def parse(text: str, where: str) -> dict:
    """A data.js's text (where: its name in errors)."""
    body = text.strip()
    if not body.startswith(DATA_JS_PREFIX):
        raise BenchError(f"{where}: not a github-action-benchmark data.js (expected {DATA_JS_PREFIX.strip()!r})")
    body = body[len(DATA_JS_PREFIX):].rstrip().rstrip(";")
    data = strictjson.loads(body, f"{where} (data.js after its prefix)")
    if not isinstance(data, dict) or not isinstance(data.get("entries"), dict):
        raise BenchError(f"{where}: data.js has no 'entries' object")
    return data


def _person(p: dict | None) -> dict:
    p = p or {}
    return {"email": p.get("email", ""), "name": p.get("name", ""), "username": p.get("username", "")}


def commit_object(run: dict, commit_id: str, repo_url: str) -> dict:
    """The `commit` of a data.js entry in the action's shape (its push-event commit:
    author, committer, id, message, timestamp = the commit's time, url); the action's
    chart page shows `commit.committer.username` in every tooltip, so author and
    committer are always objects (empty strings for what git does not know, such as a
    GitHub login outside a push event). A run recorded before commits carried their
    people and time gives the run's date."""
    return {"author": _person(run.get("commit_author")), "committer": _person(run.get("commit_committer")),
            "distinct": True, "id": commit_id, "message": run.get("commit_message", ""),
            "timestamp": run.get("commit_time") or run["date"],
            "url": f"{repo_url.rstrip('/')}/commit/{commit_id}" if repo_url else ""}


def update(path, new_runs: list[dict], new_entries: list[dict], repo_url: str = "", max_items: int = MAX_ITEMS) -> int:
    """Append the new runs to github-action-benchmark's dev/bench/data.js (keeping
    whatever the action itself wrote there; sets and benches: export.benchmark_action).
    One entry per set and commit: the shards of one commit (several runs) go into one
    entry, else the action, which compares only with a set's latest entry, would compare
    each shard with the one before it and never see the others. A series longer than
    max_items (0: unbounded) loses its oldest entries. Returns the number of entries
    added or extended."""
    path = Path(path)
    data = read(path) if path.exists() else {"lastUpdate": 0, "repoUrl": repo_url, "entries": {}}
    if repo_url and not data.get("repoUrl"):
        data["repoUrl"] = repo_url
    runs = {r["run"]: r for r in new_runs}
    by_group: dict[tuple[str, str], list[dict]] = {}
    for e in new_entries:
        by_group.setdefault((runs[e["run"]]["commit"], benchmark_action.set_of(e)), []).append(e)
    first_date = {}
    for r in sorted(new_runs, key=lambda r: r["date"]):
        first_date.setdefault(r["commit"], r["date"])
    changed = 0
    for (commit_id, name), ents in sorted(by_group.items(), key=lambda kv: (first_date[kv[0][0]], kv[0][1])):
        r = runs[ents[0]["run"]]
        series = data["entries"].setdefault(name, [])
        entry = next((x for x in series if x.get("commit", {}).get("id") == commit_id), None)
        if entry is None:
            stamp = int(datetime.fromisoformat(first_date[commit_id].replace("Z", "+00:00")).timestamp() * 1000)
            commit = commit_object(r, commit_id, data.get("repoUrl", ""))
            entry = {"commit": commit, "date": stamp, "tool": "customSmallerIsBetter", "benches": []}
            series.append(entry)
        have = {b.get("name") for b in entry["benches"]}
        fresh = [b for b in benchmark_action.benches(ents) if b["name"] not in have]
        if fresh:
            entry["benches"].extend(fresh)
            changed += 1
    trimmed = False
    if max_items > 0:
        for name, series in data["entries"].items():
            if len(series) > max_items:  # oldest first, as appended (the action's order too)
                data["entries"][name] = series[-max_items:]
                trimmed = True
    if changed or trimmed:
        data["lastUpdate"] = int(datetime.now(timezone.utc).timestamp() * 1000)
        # Compact JSON (the action's JSON.parse reads any layout; indented, the same data
        # is 43 % larger), UTF-8 as the action writes it.
        atomic_write_text(path, DATA_JS_PREFIX + json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n")
    return changed
