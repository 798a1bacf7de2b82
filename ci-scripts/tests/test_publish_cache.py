"""The change-point cache kept on the branch (publish_cache), against a real local bare
repository: saved when series filled a new window and only then, read back on a fresh
machine so that only the newest windows are searched; a damaged or foreign cache, or a
malformed entry, is searched past and changes nothing."""

import json
import random
import subprocess

from benchpipe import changepoints, publish, publish_cache, site, trends

WINDOW, STEP = trends.WINDOW, trends.STEP


def git(*args, cwd=None):
    return subprocess.run(["git", *map(str, args)], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def branch_with_a_file(tmp_path):
    """A bare repository whose gh-pages holds one file (as a published history would)."""
    remote, seed = tmp_path / "pages.git", tmp_path / "seed"
    git("init", "--quiet", "--bare", "--initial-branch=gh-pages", remote)
    git("init", "--quiet", "--initial-branch=gh-pages", seed)
    (seed / "history").mkdir()
    (seed / "history" / "README").write_text("the record\n")
    git("add", "-A", cwd=seed)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "history", cwd=seed)
    git("push", "--quiet", remote, "HEAD:refs/heads/gh-pages", cwd=seed)
    return remote


def series(n, seed=3):
    rng = random.Random(seed)
    vals = [(1.0 if i < n // 2 else 1.25) * (1 + rng.gauss(0, 0.01)) for i in range(n)]
    return [f"c{i}" for i in range(n)], [f"2026-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z" for i in range(n)], vals


def counting(monkeypatch):
    searched = []
    real = changepoints.candidates
    monkeypatch.setattr(changepoints, "candidates", lambda v, **o: (searched.append(len(v)), real(v, **o))[1])
    return searched


def save(tmp_path, remote, site_cache, logs):
    """As publish does after a render: from a work tree at the branch's tip."""
    wt = tmp_path / f"wt{len(list(tmp_path.glob('wt*')))}"
    publish._fetch(wt, str(remote), "gh-pages")
    return publish_cache.save(publish._git, publish._fetch, wt, str(remote), "gh-pages", site_cache,
                              publish._identity_env(), logs.append)


def test_saved_when_windows_fill_and_a_fresh_machine_searches_only_the_newest(tmp_path, monkeypatch):
    remote = branch_with_a_file(tmp_path)
    searched = counting(monkeypatch)
    data = {"a": series(250), "b": series(130, seed=4)}
    site_cache = tmp_path / "site1" / site.CP_CACHE
    first = trends.detect_all(data, site_cache, jobs=1)
    assert sorted(searched) == [70, 70, 120, 120, 120, 120] and first["a"][0]["index"] == 125
    logs = []
    assert save(tmp_path, remote, site_cache, logs), logs
    co = tmp_path / "co"
    git("clone", "--quiet", "--branch", "gh-pages", remote, co)
    doc = json.loads((co / publish_cache.CACHE).read_text())
    assert len(doc["windows"]) == 4 and (co / "history" / "README").exists()  # the full windows; the rest kept
    assert git("log", "--format=%s", "-1", cwd=co) == "change-point cache: 4 new window(s), 4 in all"
    assert not save(tmp_path, remote, site_cache, logs)  # nothing new: no commit
    assert git("rev-list", "--count", "gh-pages", cwd=remote) == "2"

    # a fresh machine, one night later: only each series' newest window is searched
    del searched[:]
    fresh = tmp_path / "site2" / site.CP_CACHE
    publish_cache.seed(co, fresh)
    grown = {"a": series(251), "b": series(131, seed=4)}
    assert trends.detect_all(grown, fresh, jobs=1) == trends.detect_all(grown, None, jobs=1)
    assert searched[:2] == [71, 71]


def test_a_damaged_or_foreign_cache_changes_nothing(tmp_path, monkeypatch):
    remote = branch_with_a_file(tmp_path)
    data = {"a": series(250)}
    truth = trends.detect_all(data, None, jobs=1)
    site_cache = tmp_path / "site" / ".cache" / "changepoints.json"
    trends.detect_all(data, site_cache, jobs=1)
    logs = []
    save(tmp_path, remote, site_cache, logs)
    co = tmp_path / "co"
    git("clone", "--quiet", "--branch", "gh-pages", remote, co)
    doc = json.loads((co / publish_cache.CACHE).read_text())
    searched = counting(monkeypatch)
    # malformed entries: a candidate outside its window, not a number, not a list
    keys = sorted(doc["windows"])
    one_bad = {**doc, "windows": {**doc["windows"], keys[0]: [500]}}
    bad = {**doc, "windows": {**doc["windows"], keys[0]: [500], keys[1]: ["x"], keys[2]: "x"}}
    # searches: the malformed entries' windows and the newest window, which the branch never holds
    for text, searches in ((json.dumps(one_bad), 2), (json.dumps(bad), 4), ("{not json", 4),
                           (json.dumps({**doc, "step": 7}), 4), (json.dumps([1, 2]), 4),
                           (json.dumps({**doc, "windows": [1]}), 4), (json.dumps({**doc, "note": float("nan")}), 4),
                           ('{"windows": ' + "[" * 100_000 + "]" * 100_000 + "}", 4), ("symlink", 4)):
        (co / publish_cache.CACHE).unlink(missing_ok=True)
        if text == "symlink":   # to a good cache: a branch's symlink is never followed
            (tmp_path / "good.json").write_text(json.dumps(doc))
            (co / publish_cache.CACHE).symlink_to(tmp_path / "good.json")
        else:
            (co / publish_cache.CACHE).write_text(text)
        fresh = tmp_path / f"fresh{len(searched)}" / site.CP_CACHE
        publish_cache.seed(co, fresh)
        before = len(searched)
        assert trends.detect_all(data, fresh, jobs=1) == truth, text[:40]
        assert len(searched) - before == searches, text[:40]
    # a site's own cache of the wrong form is searched past too
    local = json.loads(site_cache.read_text())
    for wrong in ({"windows": [[1]], "cps": []}, {"cps": ["x"]}, {"cps": [{"index": 10**6}]}, {"hash": 3}):
        damaged = tmp_path / "damaged.json"
        damaged.write_text(json.dumps({**local, "series": {"a": {**local["series"]["a"], **wrong}}}))
        assert trends.detect_all(data, damaged, jobs=1) == truth, wrong
    # a branch holding a damaged cache gets a good one with the next save
    (co / publish_cache.CACHE).unlink()
    (co / publish_cache.CACHE).write_text(json.dumps(bad))
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-am", "damaged", cwd=co)
    git("push", "--quiet", "origin", "HEAD:gh-pages", cwd=co)
    assert save(tmp_path, remote, fresh, logs), logs
    assert logs[-1] == "publish: change-point cache saved to gh-pages (3 new window(s))"
    git("pull", "--quiet", cwd=co)
    assert json.loads((co / publish_cache.CACHE).read_text()) == doc


def test_the_file_is_sorted_one_window_a_line():
    doc = {**trends.cache_stamp(), "windows": {"b" * 24: [3], "a" * 24: []}}
    text = publish_cache.encode(doc).decode()
    assert json.loads(text) == doc and text.splitlines()[1].startswith('"aaaa')
    assert json.loads(publish_cache.encode({**trends.cache_stamp(), "windows": {}})) == {**trends.cache_stamp(), "windows": {}}
