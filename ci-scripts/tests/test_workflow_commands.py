"""The commands only the workflows use: `bench matrix` (bench.yml's job matrix),
`bench merge-artifacts` (publish.yml: untrusted artifacts in, validated data out) and
`bench pr-comment` (publish.yml: the one PR comment, against a fake GitHub API on
127.0.0.1)."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

import wf_fixtures
from benchpipe import catalogue, results
from benchpipe.cli import main
from benchpipe.commands import matrix as matrix_cmd
from benchpipe.commands import pr_comment
from benchpipe.export import benchmark_action

CI_SCRIPTS = Path(__file__).resolve().parent.parent


def bench(*argv) -> int:
    return main([str(a) for a in argv])


def matrix(capsys, *argv) -> list[dict]:
    assert bench("matrix", *argv) == 0
    return json.loads(capsys.readouterr().out)["include"]


# --------------------------------------------------------------------------- bench matrix

def test_matrix_pull_request_is_quick_on_three_oses_one_shard(capsys):
    rows = matrix(capsys, "--event", "pull_request")
    assert [r["runs-on"] for r in rows] == ["ubuntu-latest", "windows-latest", "macos-latest"]
    assert {(r["preset"], r["go"], r["rust"], r["shard"]) for r in rows} == {("quick", "stable", "stable", "1/1")}
    assert rows[0]["scenarios"].split(",") == list(catalogue.load().scenarios)


def test_matrix_nightly_builds_every_toolchain_once_per_job(capsys):
    """Jobs are OS x shard: each job builds Go oldstable and stable and Rust stable, beta
    and nightly once and measures them interleaved on one machine."""
    assert bench("matrix", "--event", "schedule") == 0
    out, err = capsys.readouterr()
    rows = json.loads(out)["include"]
    cat = catalogue.load()
    assert {r["preset"] for r in rows} == {"standard"}
    assert {r["go"] for r in rows} == {"oldstable,stable"}
    assert {r["rust"] for r in rows} == {"stable,beta,nightly"}
    assert {r["runs-on"] for r in rows} == set(matrix_cmd.DEFAULT_OS)
    per_os = {}
    for r in rows:
        per_os.setdefault(r["runs-on"], []).append(r)
    assert len({len(v) for v in per_os.values()}) == 1
    n_shards = len(per_os["ubuntu-latest"])
    assert len(rows) == 3 * n_shards and n_shards > 1, "standard with 5 toolchains is sharded"
    every = {(s.scenario.name, s.build.name) for s in cat.benchmarks("standard")}
    for leg_rows in per_os.values():
        covered = [(sc, b) for r in leg_rows for sc in r["scenarios"].split(",")
                   for b in (r["builds"].split(",") if r["builds"] else sorted(cat.builds))
                   if (sc, b) in every]
        assert sorted(covered) == sorted(every), "every scenario and build exactly once per OS"
        for r in leg_rows:
            # well inside the job's 180-minute timeout, even when every group samples to its maximum
            assert r["worst_min"] <= matrix_cmd.JOB_BUDGET_MIN
            assert 0 < r["estimate_min"] <= r["worst_min"]
            # sampling until sure: 3 x runs for every group, up to 12 x within the preset's budget
            # (a shard too big for that gets fewer, and no late looks)
            runs = cat.preset("standard").runs
            assert r["max_runs"] == 12 * runs or runs <= r["max_runs"] <= 3 * runs
    ids = [r["id"] for r in rows]
    assert len(set(ids)) == len(ids)
    assert all(set(i) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") for i in ids)
    # the job count and the estimated time per job are printed
    assert f"matrix: {len(rows)} jobs ({n_shards} shard(s) per runner)" in err
    assert "go oldstable,stable and rust stable,beta,nightly once" in err
    assert err.count(" min (at most ~") == n_shards


def test_matrix_splits_a_scenario_too_big_for_one_job_by_build(capsys):
    rows = matrix(capsys, "--event", "schedule", "--os", "ubuntu-latest", "--scenarios", "hashmap")
    assert len(rows) > 1 and {r["scenarios"] for r in rows} == {"hashmap"}
    assert sorted(b for r in rows for b in r["builds"].split(",")) == sorted(catalogue.load().builds)


def test_matrix_estimate_grows_with_the_toolchains(capsys):
    one = matrix(capsys, "--event", "workflow_dispatch", "--preset", "standard", "--os", "ubuntu-latest",
                 "--go", "stable", "--rust", "stable")
    five = matrix(capsys, "--event", "workflow_dispatch", "--preset", "standard", "--os", "ubuntu-latest",
                  "--go", "oldstable,stable", "--rust", "stable,beta,nightly")
    assert sum(r["estimate_min"] for r in five) > 2 * sum(r["estimate_min"] for r in one)
    assert len(five) >= len(one)


def test_matrix_counts_the_instruction_pass_on_linux_legs_only(capsys):
    """Linux jobs also count instructions (the preset's instruction_runs more runs of every
    benchmark on every side, at the scenario's instructions.run_s; at the worst case as many
    again, every pair taking the pass's second look): their estimate is that much longer
    than the Windows and macOS jobs' of the same shard, each distinct pass command once
    (sleep at 1000 and 10,000 tasks are both counted at 1000: instructions.counted_as) and
    none the catalogue declares unsteady (not counted); a runner label naming no OS is taken
    for Linux, the longer case."""
    from benchpipe import instructions
    cat = catalogue.load()
    rows = matrix(capsys, "--event", "pull_request")
    by = {r["runs-on"]: r for r in rows}
    specs = cat.benchmarks("quick")
    runs = cat.preset("quick").instruction_runs
    assert runs > 0
    once = {(s.build.name, *instructions.counted_as(s, instructions.pass_params(s.scenario))): s for s in specs}
    assert len(specs) - len(once) >= 10, "the quick preset has benchmarks the pass counts at one size"
    unsteady = {k for k, s in once.items() if s.scenario.instructions.unsteady_for(s.build.lang, s.variant)}
    assert len(unsteady) >= 10, "the quick preset has benchmarks declared not deterministic"
    once = {k: s for k, s in once.items() if k not in unsteady}
    pass_min = sum(2 * runs * s.scenario.instructions.seconds("quick") for s in once.values()) / 60
    assert pass_min > 5, "the quick preset's pass takes minutes a side"
    for other in ("windows-latest", "macos-latest"):
        assert by["ubuntu-latest"]["estimate_min"] - by[other]["estimate_min"] == pytest.approx(pass_min, abs=1)
        assert by["ubuntu-latest"]["worst_min"] - by[other]["worst_min"] == pytest.approx(2 * pass_min, abs=1)
    assert [matrix_cmd.counts_instructions(x) for x in ("ubuntu-24.04-arm", "windows-2025", "macos-15",
                                                         ["self-hosted", "gpu"], ["self-hosted", "macOS"])] == \
        [True, False, False, True, False]


def test_matrix_dispatch_inputs_and_self_hosted_runners(capsys):
    rows = matrix(capsys, "--event", "workflow_dispatch", "--preset", "full", "--scenarios", "cpu, sleep",
                  "--go", "1.25.x,stable", "--rust", "beta", "--runners", "self-hosted,linux,x64; self-hosted,macOS")
    assert {json.dumps(r["runs-on"]) for r in rows} == {'["self-hosted", "linux", "x64"]', '["self-hosted", "macOS"]'}
    assert {r["go"] for r in rows} == {"1.25.x,stable"} and {r["rust"] for r in rows} == {"beta"}
    per_runner = {}
    for r in rows:
        per_runner.setdefault(json.dumps(r["runs-on"]), []).append(r["scenarios"])
    assert all(sorted(set(",".join(v).split(","))) == ["cpu", "sleep"] for v in per_runner.values())


def test_matrix_takes_go_versions_spelled_as_build_spells_them(capsys):
    rows = matrix(capsys, "--event", "workflow_dispatch", "--go", "go1.25.5,stable", "--os", "ubuntu-latest")
    assert {r["go"] for r in rows} == {"go1.25.5,stable"}


def test_matrix_empty_dispatch_inputs_take_the_event_defaults(capsys):
    rows = matrix(capsys, "--event", "push", "--preset", "", "--scenarios", "", "--os", "", "--go", "", "--rust", "",
                  "--runners", "")
    assert {r["preset"] for r in rows} == {"standard"} and {r["runs-on"] for r in rows} == set(matrix_cmd.DEFAULT_OS)


@pytest.mark.parametrize("argv", [
    ["--event", "release"],
    ["--event", "workflow_dispatch", "--preset", "huge"],
    ["--event", "workflow_dispatch", "--scenarios", "nope"],
    ["--event", "workflow_dispatch", "--go", "stable; curl evil"],
    ["--event", "workflow_dispatch", "--rust", "$(id)"],
    ["--event", "workflow_dispatch", "--os", "ubuntu-latest,ubuntu-latest"],
    ["--event", "workflow_dispatch", "--runners", "self hosted"],
    ["--event", "workflow_dispatch", "--os", "windows-latest", "--runners", "self-hosted,linux"],  # not silently one
    ["--event", "workflow_dispatch", "--go", "1.24", "--os", "ubuntu-latest"],  # a minor, not a version: 1.24.x
    ["--event", "workflow_dispatch", "--preset", "full", "--go", "1.24.x,1.25.x,1.26.x,oldstable,stable",
     "--rust", "1.85.0,1.86.0,stable,beta,nightly", "--budget-min", "20"],  # building alone takes longer
])
def test_matrix_rejects_bad_input_with_a_usage_error(argv, capsys):
    assert bench("matrix", *argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("bench matrix: ") and len(err.strip().splitlines()) == 1


def test_matrix_github_output(tmp_path, capsys):
    out = tmp_path / "out"
    out.write_text("earlier=1\n")
    assert bench("matrix", "--event", "pull_request", "--github-output", out) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "earlier=1" and lines[1].startswith("matrix={") and len(lines) == 2
    assert json.loads(lines[1].split("=", 1)[1]) == json.loads(capsys.readouterr().out)


# --------------------------------------------------------------------------- bench merge-artifacts

def test_merge_artifacts_keeps_valid_results_and_rejects_the_rest(tmp_path, capsys):
    art = tmp_path / "artifacts"
    wf_fixtures.write_artifact(art, "bench-ubuntu-latest-go-stable-rust-stable", wf_fixtures.results_doc())
    wf_fixtures.write_artifact(art, "bench-macos-latest-go-stable-rust-stable", wf_fixtures.results_doc(os_name="macos"))
    bad = art / "bench-bad" / "results.json"
    bad.parent.mkdir()
    bad.write_text('{"schema": "gorust-bench.results/1", "env": {}, "benchmarks": []}')
    notjson = art / "bench-notjson" / "results.json"
    notjson.parent.mkdir()
    notjson.write_text("<script>")
    tampered = wf_fixtures.results_doc(os_name="windows")
    tampered["benchmarks"][0]["id"] = "cpu/other"
    wf_fixtures.write_artifact(art, "bench-windows", wf_fixtures.results_doc(os_name="windows"))
    (art / "bench-windows" / "results.json").write_text(json.dumps(tampered))
    link = art / "bench-link" / "results.json"
    link.parent.mkdir()
    link.symlink_to(art / "bench-ubuntu-latest-go-stable-rust-stable" / "results.json")
    gh_out, summary = tmp_path / "gh_output", tmp_path / "summary.md"

    assert bench("merge-artifacts", art, "--out", tmp_path / "v", "--github-output", gh_out, "--markdown", summary) == 0
    manifest = json.loads((tmp_path / "v" / "manifest.json").read_text())
    assert sorted(a["os"] for a in manifest["accepted"]) == ["linux", "macos"]
    rejected = {r["file"].split("/")[0]: r["reason"] for r in manifest["rejected"]}
    assert set(rejected) == {"bench-bad", "bench-notjson", "bench-windows", "bench-link"}
    assert "not a regular file" in rejected["bench-link"] and "does not match its key" in rejected["bench-windows"]
    assert sorted(p.name for p in (tmp_path / "v" / "results").iterdir()) == [
        "001-bench-macos-latest-go-stable-rust-stable.json", "002-bench-ubuntu-latest-go-stable-rust-stable.json"]
    # the output the publish workflow reads: counts and the github-action-benchmark matrix
    outputs = dict(line.split("=", 1) for line in gh_out.read_text().splitlines())
    assert outputs["results"] == "2"
    gab = json.loads(outputs["benchmark-action"])
    names = {benchmark_action.set_name(os_, lang, tc) for os_ in ("linux", "macos")
             for lang, tc in wf_fixtures.TOOLCHAINS.items()}
    assert {g["name"] for g in gab} == names  # one set per OS, language and channel (here: no channel recorded)
    for g in gab:
        benches = json.loads((tmp_path / "v" / "benchmark-action" / g["file"]).read_text())
        assert benches and all(set(b) >= {"name", "value", "unit"} and b["value"] > 0 for b in benches)
        assert len({b["name"] for b in benches}) == len(benches)
    assert "Rejected (4)" in summary.read_text() and "<script>" not in summary.read_text()


def test_merge_artifacts_ab_runs_are_not_fed_to_github_action_benchmark(tmp_path, capsys):
    art = tmp_path / "a"
    wf_fixtures.write_artifact(art, "bench-pr", wf_fixtures.results_doc(ab=True))
    assert bench("merge-artifacts", art, "--out", tmp_path / "v") == 0
    manifest = json.loads((tmp_path / "v" / "manifest.json").read_text())
    assert manifest["accepted"][0]["ab"] is True and manifest["benchmark_action"] == []


def test_merge_artifacts_fails_when_nothing_is_valid(tmp_path, capsys):
    (tmp_path / "a" / "bench-x").mkdir(parents=True)
    (tmp_path / "a" / "bench-x" / "results.json").write_text("{}")
    assert bench("merge-artifacts", tmp_path / "a", "--out", tmp_path / "v") == 1
    assert "no valid results file" in capsys.readouterr().err


# --------------------------------------------------------------------------- bench pr-comment

class FakeGitHub:
    """Just enough of the REST API: pulls by head, commit pulls, issue comments."""

    def __init__(self, prs, comments=None):
        self.prs = prs
        self.comments = comments or {}
        self.requests = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, code, doc):
                data = json.dumps(doc).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method):
                url = urlparse(self.path)
                q = {k: v[0] for k, v in parse_qs(url.query).items()}
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n)) if n else None
                fake.requests.append((method, url.path, q, body, self.headers.get("Authorization")))
                parts = url.path.strip("/").split("/")[3:]  # after repos/owner/name
                if method == "GET" and parts == ["pulls"]:
                    owner, branch = q["head"].split(":", 1)
                    return self._send(200, [p for p in fake.prs if p["_head"] == (owner, branch)
                                            and p["state"] == q.get("state", "open")][: int(q["per_page"])] if q["page"] == "1" else [])
                if method == "GET" and parts[:1] == ["commits"] and parts[2:] == ["pulls"]:
                    return self._send(200, [p for p in fake.prs if p["head"]["sha"] == parts[1]] if q["page"] == "1" else [])
                if parts[:1] == ["issues"] and parts[2:] == ["comments"]:
                    num = int(parts[1])
                    if method == "GET":
                        return self._send(200, fake.comments.get(num, []) if q["page"] == "1" else [])
                    new = {"id": 1000 + sum(len(v) for v in fake.comments.values()), "body": body["body"],
                           "user": {"login": "github-actions[bot]"}}
                    fake.comments.setdefault(num, []).append(new)
                    return self._send(201, new)
                if method == "PATCH" and parts[:2] == ["issues", "comments"]:
                    for cs in fake.comments.values():
                        for c in cs:
                            if c["id"] == int(parts[2]):
                                c["body"] = body["body"]
                                return self._send(200, c)
                return self._send(404, {"message": "Not Found"})

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

            def do_PATCH(self):
                self._handle("PATCH")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


HEAD = "c" * 40


def pr(number, sha=HEAD, owner="forker", branch="feature", state="open"):
    return {"number": number, "state": state, "head": {"sha": sha, "ref": branch}, "_head": (owner, branch),
            "base": {"repo": {"id": 1}}}


def event(tmp_path, pull_requests=(), sha=HEAD, trigger="pull_request"):
    ev = {"repository": {"id": 1, "full_name": "o/r"},
          "workflow_run": {"id": 77, "event": trigger, "head_sha": sha, "head_branch": "feature",
                           "html_url": "https://github.example/o/r/actions/runs/77",
                           "head_repository": {"owner": {"login": "forker"}}, "pull_requests": list(pull_requests)}}
    path = tmp_path / "event.json"
    path.write_text(json.dumps(ev))
    return path


@pytest.fixture
def validated(tmp_path):
    art = tmp_path / "artifacts"
    wf_fixtures.write_artifact(art, "bench-ubuntu-latest-go-stable-rust-stable", wf_fixtures.results_doc(ab=True))
    wf_fixtures.write_artifact(art, "bench-macos-latest-go-stable-rust-stable",
                               wf_fixtures.results_doc(os_name="macos", ab=True, slowdown=1.5, seed=3))
    assert main(["merge-artifacts", str(art), "--out", str(tmp_path / "v")]) == 0
    return tmp_path / "v" / "results"


@pytest.fixture
def github():
    fake = FakeGitHub([pr(5, sha="d" * 40), pr(7), pr(9, state="closed")])
    yield fake
    fake.close()


def comment_run(tmp_path, github, validated, ev, *extra):
    return bench("pr-comment", "--results", validated, "--event", ev, "--repo", "o/r", "--api", github.url, *extra)


def test_pr_comment_fork_pr_found_by_head_sha_then_one_comment_updated(tmp_path, github, validated, monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_TOKEN", "t0k3n")
    ev = event(tmp_path)  # a fork: GitHub leaves workflow_run.pull_requests empty
    assert comment_run(tmp_path, github, validated, ev) == 0
    assert "created comment" in capsys.readouterr().out
    assert list(github.comments) == [7]  # the open PR whose head is the run's head SHA
    first = github.comments[7][0]["body"]
    assert first.startswith(pr_comment.MARKER) and first.count(pr_comment.MARKER) == 1
    sections = {sec.split("</summary>")[0]: sec for sec in first.split("<details")[1:]}
    (mac,) = [v for k, v in sections.items() if "macos" in k]
    (lin,) = [v for k, v in sections.items() if "linux" in k]
    assert re.search(r"\*\*[1-9]\d* regressions?\*\*", mac)  # head 1.5x slower: flagged by `bench compare`
    assert not re.search(r"\*\*[1-9]\d* regressions?\*\*", lin)
    assert pr_comment.MARKER == "<!-- gorust-bench-comment -->"
    assert "linux" in first and "macos" in first
    assert all(r[4] == "Bearer t0k3n" for r in github.requests)

    assert comment_run(tmp_path, github, validated, ev) == 0  # a new push: the same comment, updated
    assert "updated comment" in capsys.readouterr().out
    assert len(github.comments[7]) == 1
    assert [r[0] for r in github.requests].count("POST") == 1 and [r[0] for r in github.requests].count("PATCH") == 1


def test_pr_comment_uses_the_event_pull_requests_only_when_the_sha_matches(tmp_path, github, validated, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "x")
    stale = {"number": 5, "head": {"sha": "d" * 40}, "base": {"repo": {"id": 1}}}
    same = {"number": 7, "head": {"sha": HEAD}, "base": {"repo": {"id": 1}}}
    assert comment_run(tmp_path, github, validated, event(tmp_path, [stale, same])) == 0
    assert list(github.comments) == [7]
    assert not any(r[1].endswith("/pulls") for r in github.requests)  # no lookup needed


def test_pr_comment_leaves_other_users_marker_comments_alone(tmp_path, validated, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "x")
    forged = {"id": 1, "body": pr_comment.MARKER + " forged by the PR author", "user": {"login": "forker"}}
    fake = FakeGitHub([pr(7)], {7: [forged]})
    try:
        assert comment_run(tmp_path, fake, validated, event(tmp_path)) == 0
        assert fake.comments[7][0]["body"].endswith("forged by the PR author")
        assert len(fake.comments[7]) == 2 and fake.comments[7][1]["user"]["login"] == "github-actions[bot]"
    finally:
        fake.close()


def test_pr_comment_no_open_pr_for_the_sha_writes_nothing(tmp_path, github, validated, monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_TOKEN", "x")
    assert comment_run(tmp_path, github, validated, event(tmp_path, sha="e" * 40)) == 0
    assert "nothing to comment on" in capsys.readouterr().out
    assert github.comments == {} and not any(r[0] in ("POST", "PATCH") for r in github.requests)


def test_pr_comment_refuses_a_non_pull_request_run(tmp_path, github, validated, monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_TOKEN", "x")
    assert comment_run(tmp_path, github, validated, event(tmp_path, trigger="push")) == 2
    assert github.requests == []


def test_pr_comment_dry_run_writes_nothing(tmp_path, github, validated, monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)
    summary = tmp_path / "summary.md"
    assert comment_run(tmp_path, github, validated, event(tmp_path), "--dry-run", "--markdown", summary) == 0
    out = capsys.readouterr().out
    assert out.startswith("pull request #7") and pr_comment.MARKER in out
    assert summary.read_text().startswith(pr_comment.MARKER)
    assert not any(r[0] in ("POST", "PATCH") for r in github.requests)


def test_pr_comment_body_is_bounded(tmp_path, validated, monkeypatch):
    monkeypatch.setattr(pr_comment, "MAX_BODY", 2000)
    text = pr_comment.body(validated, {"head_sha": HEAD, "id": 1, "html_url": "u"})
    assert len(text) <= 2000 and text.startswith(pr_comment.MARKER) and "truncated" in text



def test_pr_comment_names_the_preset_that_was_run(validated):
    """The header named the quick preset whatever was run; it reads the results now."""
    text = pr_comment.body(validated, {"head_sha": HEAD, "id": 1, "html_url": "u"})
    presets = {results.load(p)["env"]["preset"] for p in validated.glob("*.json")}
    (preset,) = presets
    assert f"({preset} preset;" in text
