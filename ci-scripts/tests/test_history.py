"""The history (Contract 3): append-only, validated, atomic, idempotent; corrupt or
hand-edited files are reported with their path and never overwritten."""

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from benchpipe import history, history_rows
from benchpipe.commands.history import add_results
from benchpipe.errors import BenchError
from benchpipe.export import data_js
from conftest import unavailable
from factories import make_results, read_json, small_keys

BENCH = Path(__file__).resolve().parent.parent / "bench"


def bench(*args, **kw):
    return subprocess.run([str(BENCH), *map(str, args)], capture_output=True, text=True, **kw)


def snapshot(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.json"))}


def test_add_writes_entries_and_runs_and_is_idempotent(tmp_path):
    r0, r1 = make_results(tmp_path / "r0.json", 0), make_results(tmp_path / "r1.json", 1)
    rep = add_results(tmp_path / "h", [r0, r1])
    n_keys = len(small_keys())
    assert len(rep.runs_added) == 2 and rep.entries_added == 2 * n_keys
    assert history.check(tmp_path / "h") == []
    before = snapshot(tmp_path / "h")
    assert set(before) == {"runs/2026-03.json", "linux/sleep/2026-03.json", "linux/files-read/2026-03.json"}
    rep2 = add_results(tmp_path / "h", [r1, r0])
    assert rep2.runs_added == [] and rep2.entries_added == 0 and len(rep2.runs_present) == 2
    assert snapshot(tmp_path / "h") == before  # nothing rewritten, nothing added
    h = history.load(tmp_path / "h")
    assert len(h.runs) == 2 and len(h.entries) == 2 * n_keys
    e = h.entries[0]
    assert {"median", "ci_low", "ci_high", "n", "min", "max"} <= set(e["time_s"]) and e["time_s"]["n"] == 5
    assert e["time_s"]["min"] <= e["time_s"]["ci_low"] <= e["time_s"]["median"] <= e["time_s"]["ci_high"] <= e["time_s"]["max"]
    assert e["commit"] and e["os"] == "linux" and e["toolchain_version"].startswith(("go version", "rustc"))


def test_run_id_comes_from_content(tmp_path):
    a = make_results(tmp_path / "a.json", 3)
    b = tmp_path / "copy-with-other-name.json"
    b.write_bytes(a.read_bytes())
    add_results(tmp_path / "h", [a])
    assert add_results(tmp_path / "h", [b]).runs_added == []
    c = make_results(tmp_path / "c.json", 3, runner="another-runner")  # same samples, other env: another run
    assert len(add_results(tmp_path / "h", [c]).runs_added) == 1


def test_append_keeps_old_records_byte_for_byte(tmp_path):
    add_results(tmp_path / "h", [make_results(tmp_path / "r0.json", 0)])
    old = (tmp_path / "h/linux/sleep/2026-03.json").read_text()
    add_results(tmp_path / "h", [make_results(tmp_path / "r1.json", 1)])
    new = (tmp_path / "h/linux/sleep/2026-03.json").read_text()
    assert new.startswith(old[: old.rindex("\n]}")]) and len(new) > len(old)


def test_months_and_oses_split_files(tmp_path):
    from datetime import datetime, timezone
    r = [make_results(tmp_path / "a.json", 0, timestamp=datetime(2026, 1, 31, 23, 0, tzinfo=timezone.utc)),
         make_results(tmp_path / "b.json", 1, timestamp=datetime(2026, 2, 1, 1, 0, tzinfo=timezone.utc), os_="windows")]
    add_results(tmp_path / "h", r)
    names = set(snapshot(tmp_path / "h"))
    assert {"runs/2026-01.json", "runs/2026-02.json", "linux/sleep/2026-01.json", "windows/sleep/2026-02.json"} <= names


def test_failed_benchmarks_are_recorded_on_the_run_not_as_entries(tmp_path):
    keys = small_keys(("sleep",))
    from benchpipe.results import key_id
    bad = key_id(keys[0])
    add_results(tmp_path / "h", [make_results(tmp_path / "r.json", 0, keys=keys, failed={bad})])
    runs = read_json(tmp_path / "h/runs/2026-03.json")["runs"]
    assert runs[0]["not_ok"] == [{"id": bad, "status": "failed", "reason": "exit 1: boom"}]
    ids = [e["id"] for e in history.load(tmp_path / "h").entries if e["key"]["scenario"] == "sleep"]
    assert bad not in ids and len(ids) == len(keys) - 1


def test_invalid_results_are_refused_before_any_write(tmp_path):
    good = make_results(tmp_path / "good.json", 0)
    bad = tmp_path / "bad.json"
    doc = read_json(good)
    del doc["env"]["commit"]
    bad.write_text(json.dumps(doc))
    with pytest.raises(BenchError, match=r"bad\.json: not a valid results document"):
        add_results(tmp_path / "h", [good, bad])
    assert snapshot(tmp_path / "h") == {}


@pytest.mark.parametrize("damage, problem", [
    (lambda t: t[:-10], "not JSON"),
    (lambda t: t.replace(',0,{"', ',0,{"warning":"edited","', 1), "digest mismatch"),
    (lambda t: t.replace('"os":"linux"', '"os":"solaris"', 1), "solaris"),
    (lambda t: t.replace('"kind":"entries"', '"kind":"stuff"', 1), "kind"),
])
def test_corrupt_or_hand_edited_file_is_reported_and_never_overwritten(tmp_path, damage, problem):
    add_results(tmp_path / "h", [make_results(tmp_path / "r0.json", 0)])
    target = tmp_path / "h/linux/sleep/2026-03.json"
    target.write_text(damage(target.read_text()))
    broken = target.read_bytes()
    found = history.check(tmp_path / "h")
    assert found and all(str(target) in line for line in found) and problem in found[0], found
    if problem == "digest mismatch":  # the CLI (slow to start: once): path + problem on stderr, exit 1
        p = bench("history", "check", "--history", tmp_path / "h")
        assert p.returncode == 1 and str(target) in p.stderr and problem in p.stderr
    # add refuses to touch it, and writes nothing at all (not even other files)
    before = snapshot(tmp_path / "h")
    with pytest.raises(BenchError) as err:
        add_results(tmp_path / "h", [make_results(tmp_path / "r1.json", 1)])
    assert str(target) in str(err.value) and "\n" not in str(err.value)
    assert target.read_bytes() == broken and snapshot(tmp_path / "h") == before
    if problem == "digest mismatch":
        p = bench("history", "add", "--history", tmp_path / "h", tmp_path / "r1.json")
        assert p.returncode == 1 and p.stderr.count("\n") == 1 and str(target) in p.stderr
        assert target.read_bytes() == broken


def test_records_checked_once_per_process_are_still_checked_when_changed(tmp_path):
    """Validation skips records already validated in this process (by content digest);
    a record changed to break the schema, its digest recomputed to match, is caught."""
    add_results(tmp_path / "h", [make_results(tmp_path / "r0.json", 0)])
    assert history.check(tmp_path / "h") == []        # every record now known valid
    target = tmp_path / "h/linux/sleep/2026-03.json"
    doc = json.loads(target.read_text())
    (run,) = history.load(tmp_path / "h").runs.values()
    series = history_rows.Series(doc["rows"])
    row = doc["rows"][1]
    row[2]["time_s"][0] = "fast"                      # the median: not a number
    row[3] = history.digest_of({k: v for k, v in history_rows.decode(row, series, run).items() if k != "digest"})
    target.write_text(history.serialise(doc))         # and a digest that matches it
    found = history.check(tmp_path / "h")
    assert found and "rows[1]" in found[0] and "median" in found[0] and str(target) in found[0], found


def test_reformatted_file_is_refused(tmp_path):
    add_results(tmp_path / "h", [make_results(tmp_path / "r0.json", 0)])
    target = tmp_path / "h/linux/sleep/2026-03.json"
    target.write_text(json.dumps(json.loads(target.read_text()), indent=2))  # same records, other layout
    with pytest.raises(BenchError, match="layout"):
        add_results(tmp_path / "h", [make_results(tmp_path / "r1.json", 1)])


def test_cli_add_and_check(tmp_path):
    r = [make_results(tmp_path / f"r{i}.json", i) for i in range(2)]
    p = bench("history", "add", "--history", tmp_path / "h", "--data-js", tmp_path / "dev/bench/data.js", *r)
    assert p.returncode == 0, p.stderr
    assert "2 run(s) added" in p.stdout
    p = bench("history", "add", "--history", tmp_path / "h", *r)
    assert "0 run(s) added" in p.stdout and "2 already present" in p.stdout
    p = bench("history", "check", "--history", tmp_path / "h")
    assert p.returncode == 0 and "all valid" in p.stdout
    p = bench("history", "check", "--history", tmp_path / "nope")
    assert p.returncode == 1 and "no such history directory" in p.stderr


def test_data_js_layout_of_github_action_benchmark(tmp_path):
    keys = small_keys(("sleep",)) + [dict(k, toolchain="go1.25.9") for k in small_keys(("sleep",)) if k["lang"] == "go"]
    r = [make_results(tmp_path / f"r{i}.json", i, keys=keys) for i in range(2)]
    rw = make_results(tmp_path / "w.json", 5, keys=keys, os_="windows")
    path = tmp_path / "dev/bench/data.js"
    # the action may already have written its own entries there: they are kept
    path.parent.mkdir(parents=True)
    path.write_text('window.BENCHMARK_DATA = {"lastUpdate": 1, "repoUrl": "https://github.com/o/r", '
                       '"entries": {"Other": [{"commit": {"id": "x"}, "date": 1, "tool": "go", "benches": []}]}}')
    for f in (*r, rw, r[0]):
        rep = add_results(tmp_path / "h", [f])
        data_js.update(path, rep.new_runs, rep.new_entries)
    data = data_js.read(path)
    assert set(data["entries"]) == {"Other", "linux go stable", "linux go oldstable", "linux rust stable",
                                    "windows go stable", "windows go oldstable", "windows rust stable"}
    series = data["entries"]["linux rust stable"]
    assert len(series) == 2  # r[0] twice: once
    assert [s["commit"]["id"] for s in series] == [f"{0:040x}", f"{1:040x}"]
    e = series[0]
    assert e["tool"] == "customSmallerIsBetter" and isinstance(e["date"], int)
    assert e["commit"]["url"] == f"https://github.com/o/r/commit/{0:040x}" and e["commit"]["message"] == "change number 0"
    names = [b["name"] for b in e["benches"]]
    assert all(b["unit"] in ("s", "MiB") and isinstance(b["value"], (int, float)) for b in e["benches"])
    assert any(n.endswith(" time") for n in names) and any(n.endswith(" peak memory") for n in names)
    assert not any("rust1.95.0" in n for n in names)  # the name survives a release: no toolchain in it
    assert all(b["extra"].startswith("rust1.95.0; ") for b in e["benches"])  # the exact version of the point


# github-action-benchmark's own reading of data.js (src/write.ts, loadDataJson): the
# prefix sliced off by its length, the rest given to JSON.parse.
ACTION_READS_DATA_JS = """
const fs = require('fs');
const SCRIPT_PREFIX = 'window.BENCHMARK_DATA = ';
const script = fs.readFileSync(process.argv[1], 'utf8');
const data = JSON.parse(script.slice(SCRIPT_PREFIX.length));
const out = {};
for (const [name, series] of Object.entries(data.entries))
  out[name] = series.map(e => [e.commit.id, e.benches.length, e.benches[0].range]);
process.stdout.write(JSON.stringify(out));
"""


def test_data_js_is_read_by_the_actions_own_reader_and_bounded_by_default(tmp_path):
    """data.js is written compact (43 % smaller than indented) and as UTF-8; the action's
    reader takes it as it is, and a series keeps its newest data_js.MAX_ITEMS entries."""
    if not shutil.which("node"):
        unavailable("node not installed (apt-get install nodejs)", "node not installed: the data.js reader test cannot run")
    keys = small_keys(("sleep",))
    path = tmp_path / "dev/bench/data.js"
    n = data_js.MAX_ITEMS + 2
    for i in range(n):
        rep = add_results(tmp_path / "h", [make_results(tmp_path / f"r{i}.json", i, keys=keys)])
        data_js.update(path, rep.new_runs, rep.new_entries)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(data_js.DATA_JS_PREFIX + "{") and "\n" not in text.rstrip("\n") and "\\u00b1" not in text
    p = subprocess.run(["node", "-e", ACTION_READS_DATA_JS, str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    seen = json.loads(p.stdout)
    assert set(seen) == {"linux go stable", "linux rust stable"}
    for name, series in seen.items():
        assert [c for c, _, _ in series] == [f"{i:040x}" for i in range(2, n)], name  # the newest, in order
        assert all(b > 0 and r.startswith("± ") for _, b, r in series)
    assert data_js.read(path)["entries"] == json.loads(text[len(data_js.DATA_JS_PREFIX):])["entries"]


def test_data_js_commit_has_the_actions_author_committer_and_commit_time(tmp_path, monkeypatch):
    """A real commit's people and time, from git (and the GitHub login from a push
    event), through the results file and the history into data.js in the shape of the
    action's push-event commit: its chart page reads commit.committer.username and shows
    commit.timestamp (the commit's time, not the run's). A run recorded before these
    fields existed still gives both objects."""
    from benchpipe import envinfo
    from benchpipe.results import write as write_results
    from factories import results_doc

    repo = tmp_path / "repo"
    repo.mkdir()
    people = {"GIT_AUTHOR_NAME": "Ada \x07Author", "GIT_AUTHOR_EMAIL": "ada@example.org",
              "GIT_AUTHOR_DATE": "2026-02-03T04:05:06+01:00", "GIT_COMMITTER_NAME": "Cy Committer",
              "GIT_COMMITTER_EMAIL": "cy@example.org", "GIT_COMMITTER_DATE": "2026-02-03T05:06:07+01:00"}
    git = {**os.environ, **people}
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "faster maps"], check=True, env=git)
    sha = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"head_commit": {"id": sha, "author": {"username": "ada"},
                                                  "committer": {"username": "web-flow"}}}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    info = envinfo.git_info(repo)
    assert info["commit"] == sha and info["commit_message"] == "faster maps"
    assert info["commit_time"] == "2026-02-03T05:06:07+01:00"
    assert info["commit_author"] == {"name": "Ada Author", "email": "ada@example.org", "username": "ada"}
    assert info["commit_committer"] == {"name": "Cy Committer", "email": "cy@example.org", "username": "web-flow"}
    event.write_text(json.dumps({"head_commit": {"id": "0" * 40, "author": {"username": "someone-else"}}}))
    assert "username" not in envinfo.git_info(repo)["commit_author"]   # another commit's event

    keys = small_keys(("sleep",))
    doc = results_doc(keys, commit=sha, message="faster maps")
    doc["env"].update({k: info[k] for k in ("commit_time", "commit_author", "commit_committer")})
    write_results(tmp_path / "new.json", doc)           # valid against results.schema.json
    old = make_results(tmp_path / "old.json", 1, keys=keys)
    path = tmp_path / "dev/bench/data.js"
    for f in (tmp_path / "new.json", old):
        rep = add_results(tmp_path / "h", [f])
        data_js.update(path, rep.new_runs, rep.new_entries, "https://github.com/o/r")
    assert history.check(tmp_path / "h") == []          # valid against history.schema.json
    new, before = data_js.read(path)["entries"]["linux go stable"]
    assert new["commit"] == {"author": {"email": "ada@example.org", "name": "Ada Author", "username": "ada"},
                             "committer": {"email": "cy@example.org", "name": "Cy Committer", "username": "web-flow"},
                             "distinct": True, "id": sha, "message": "faster maps",
                             "timestamp": "2026-02-03T05:06:07+01:00", "url": f"https://github.com/o/r/commit/{sha}"}
    assert before["commit"]["committer"] == {"email": "", "name": "", "username": ""}
    assert before["commit"]["timestamp"] == "2026-03-01T03:00:00Z"   # the run's date


def test_killed_add_leaves_history_valid(tmp_path):
    """Kill `history add` at several moments: every file is old or new (atomic rename),
    check passes, readers see only whole runs, and adding again completes the run."""
    keys = small_keys(("sleep", "files-read", "files-rw", "cpu", "hashmap"))
    files = [make_results(tmp_path / f"r{i}.json", i, keys=keys) for i in range(6)]
    add_results(tmp_path / "h", files[:1])
    for delay in (0.3, 0.8, 1.5, 2.5):
        p = subprocess.Popen([str(BENCH), "history", "add", "--history", str(tmp_path / "h"), *map(str, files)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(delay)
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        # A killed writer may leave a stray temp file beside its target: readers ignore it.
        assert history.check(tmp_path / "h") == []
        h = history.load(tmp_path / "h")
        assert all(e["run"] in h.runs for e in h.entries)
        assert len(h.entries) == len(h.runs) * len(keys)  # whole runs only
    add_results(tmp_path / "h", files)
    h = history.load(tmp_path / "h")
    assert len(h.runs) == 6 and len(h.entries) == 6 * len(keys) and history.uncommitted(tmp_path / "h") == []


def test_a_held_lock_is_waited_for_then_a_one_line_error(tmp_path):
    """Writers wait for each other a bounded time, the same on every OS, and give up
    with a one-line error that writes nothing."""
    import threading

    from benchpipe import fsutil

    root = tmp_path / "h"
    got = []
    with fsutil.file_lock(root):
        t = threading.Thread(target=lambda: got.append(_locked_within(root, 5.0)))
        t.start()
        time.sleep(0.3)
        assert not got  # still waiting while the lock is held
    t.join(10)
    assert got == [True]
    with fsutil.file_lock(root):
        with pytest.raises(BenchError, match=r"held the lock for more than 0.2 s"):
            with fsutil.file_lock(root, wait_s=0.2):
                pass


def _locked_within(root, wait_s) -> bool:
    from benchpipe import fsutil

    with fsutil.file_lock(root, wait_s=wait_s):
        return True


def test_memory_says_where_it_came_from(tmp_path):
    """hyperfine's Windows timer reports 0 bytes: not measured. The program's own peak is
    used and the entry says so; without either, no source and a zero figure."""
    from benchpipe import measures, results

    path = make_results(tmp_path / "r.json", 0)
    doc = results.load(path)
    b = doc["benchmarks"][0]
    b["samples"]["peak_rss_bytes"] = [0] * len(b["samples"]["peak_rss_bytes"])  # as on Windows
    assert measures.memory_source(b) == "program" and min(measures.memory_bytes(b)) > 0
    entry = history.entry_records(doc, "r" + "0" * 20)[0]
    assert entry["memory_source"] == "program" and entry["memory_bytes"]["median"] > 0
    for r in b["records"]:
        r["peak_rss_bytes"] = 0
    assert measures.memory_source(b) is None and measures.memory_bytes(b) == []
    b["samples"]["peak_rss_bytes"] = [5_000_000] * len(b["samples"]["peak_rss_bytes"])
    assert measures.memory_source(b) == "hyperfine"
