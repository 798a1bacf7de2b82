"""The GitHub Actions workflows (.github/workflows): clean under actionlint and
`zizmor --offline`; triggers, matrix, dispatch inputs, pins, permissions as the issue
asks; every `run:` step a call of ci-scripts whose arguments parse; and the steps run
here on saved inputs (the plan step, the publish steps)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import wf_fixtures
from benchpipe import catalogue
from benchpipe.cli import build_parser
from benchpipe.commands import matrix as matrix_cmd
from conftest import unavailable

CI_SCRIPTS = Path(__file__).resolve().parent.parent
ROOT = CI_SCRIPTS.parent
WORKFLOWS = ROOT / ".github" / "workflows"

FILES = ("ci.yml", "bench.yml", "publish.yml")
OSES = {"ubuntu-latest", "windows-latest", "macos-latest"}
# Where a write permission is allowed, and why.
WRITE_ALLOWED = {
    ("publish.yml", "pr-comment"): {"pull-requests"},
    ("publish.yml", "benchmark-action"): {"contents"},
    ("publish.yml", "history"): {"contents"},
    ("publish.yml", "deploy"): {"pages", "id-token"},
}
PIN = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<action>[^@\s]+)@(?P<ref>\S+)(?P<rest>.*)$")


def load(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def triggers(doc: dict) -> dict:
    on = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    return {on: None} if isinstance(on, str) else on


def jobs(name: str):
    return load(name)["jobs"].items()


def steps(name: str):
    for job_id, job in jobs(name):
        for i, step in enumerate(job.get("steps", [])):
            yield job_id, i, step


def registered() -> set[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return set(sub.choices)


# --------------------------------------------------------------------------- linters

def find_tool(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for d in (Path.home() / "go" / "bin", Path(sys.executable).parent, ROOT / ".venv" / "bin",
              ROOT / ".bench" / "tools-venv" / "bin"):
        for cand in (d / name, d / f"{name}.exe"):
            if cand.is_file():
                return str(cand)
    return None


def tool_or_skip(name: str, install: str) -> str:
    path = find_tool(name)
    if path:
        return path
    unavailable(f"{name} is not installed ({install})", f"{name} is not installed; CI must install it: {install}")


def test_actionlint_finds_nothing():
    exe = tool_or_skip("actionlint", "go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12")
    proc = subprocess.run([exe, "-no-color", *sorted(str(p) for p in WORKFLOWS.glob("*.yml"))],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "", proc.stdout + proc.stderr


def test_zizmor_offline_finds_nothing():
    exe = tool_or_skip("zizmor", "pip install zizmor==1.32.0")
    proc = subprocess.run([exe, "--offline", "--no-progress", "--format", "json", str(WORKFLOWS)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    findings = json.loads(proc.stdout or "[]")
    assert proc.returncode == 0 and findings == [], proc.stdout + proc.stderr


def test_zizmor_ignores_are_few_and_justified():
    for path in WORKFLOWS.glob("*.yml"):
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.search(r"zizmor: ignore\[([^\]]+)\](.*)", line)
            if m:
                assert m.group(1) == "dangerous-triggers" and path.name == "publish.yml", line
                assert len(m.group(2).strip()) > 40, f"an ignore needs its justification on the line: {line}"


# --------------------------------------------------------------------------- shape

def test_the_three_workflows_exist_and_parse():
    assert sorted(p.name for p in WORKFLOWS.glob("*.yml")) == sorted(FILES)
    for name in FILES:
        assert load(name)["jobs"]


def test_ci_runs_the_project_tests_on_three_oses():
    doc = load("ci.yml")
    assert set(triggers(doc)) == {"pull_request", "push"}
    (job_id, job), = doc["jobs"].items()
    assert set(job["strategy"]["matrix"]["os"]) == OSES and job["strategy"]["fail-fast"] is False
    assert job["runs-on"] == "${{ matrix.os }}"
    assert job["steps"][-1]["run"] == "ci-scripts/test"


def matrix_defaults_os():
    from benchpipe.commands import matrix
    return matrix.DEFAULT_OS


def test_bench_triggers_and_dispatch_inputs():
    on = triggers(load("bench.yml"))
    assert set(on) == {"pull_request", "push", "schedule", "workflow_dispatch"}
    assert on["push"]["branches"] == ["main"]
    assert len(on["schedule"]) == 1 and len(on["schedule"][0]["cron"].split()) == 5
    inputs = on["workflow_dispatch"]["inputs"]
    assert set(inputs) == {"preset", "scenarios", "os", "go", "rust", "runners"}
    assert inputs["preset"]["type"] == "choice" and tuple(inputs["preset"]["options"]) == catalogue.PRESETS
    # empty: the three hosted OSes (bench matrix's default), so --runners can replace it
    assert inputs["os"]["default"] == "" and set(matrix_defaults_os()) == OSES
    for name in ("scenarios", "os", "go", "rust", "runners"):
        assert inputs[name]["type"] == "string" and inputs[name]["description"]


def test_bench_matrix_comes_from_bench_matrix_and_does_not_fail_fast():
    doc = load("bench.yml")
    plan, bench = doc["jobs"]["plan"], doc["jobs"]["bench"]
    assert bench["needs"] == "plan"
    assert bench["strategy"] == {"fail-fast": False, "matrix": "${{ fromJSON(needs.plan.outputs.matrix) }}"}
    assert bench["runs-on"] == "${{ matrix.runs-on }}"
    assert plan["outputs"]["matrix"] == "${{ steps.matrix.outputs.matrix }}"
    (step,) = [s for s in plan["steps"] if s.get("id") == "matrix"]
    assert step["run"].startswith("ci-scripts/bench matrix ")
    assert set(matrix_cmd.DEFAULT_OS) == OSES
    assert 0 < bench["timeout-minutes"] < 360


def test_bench_caches_cargo_go_modules_and_hyperfine():
    bench = load("bench.yml")["jobs"]["bench"]
    cached = " ".join(s["with"]["path"] for s in bench["steps"] if s.get("uses", "").startswith("actions/cache@"))
    assert "~/.cargo/registry" in cached and "hyperfine" in cached
    # the cargo target dirs are where `bench build`/`bench run` build by default: <build-dir>/<label>/<toolchain>/target
    args = build_parser().parse_args(["run", "--preset", "quick"])
    build_dir = Path(args.build_dir).resolve().relative_to(ROOT).as_posix()
    assert f"{build_dir}/*/*/target" in cached.split()
    (go,) = [s for s in bench["steps"] if s.get("uses", "").startswith("actions/setup-go@")]
    # a Go to start from; `bench build` has it fetch every requested version (GOTOOLCHAIN),
    # into the module cache setup-go caches
    assert go["with"]["go-version"] == "stable" and go["with"]["cache-dependency-path"] == "go/go.sum"
    assert go["with"].get("cache", True) is not False


def test_bench_job_builds_and_runs_every_toolchain_of_its_row():
    """Jobs are OS x shard: one job measures every requested toolchain, interleaved."""
    bench = load("bench.yml")["jobs"]["bench"]
    assert bench["env"]["GO_TOOLCHAINS"] == "${{ matrix.go }}" and bench["env"]["RUST_TOOLCHAINS"] == "${{ matrix.rust }}"
    runs = [s["run"] for s in bench["steps"] if "run" in s and ("bench build" in s["run"] or "bench run" in s["run"])]
    assert len(runs) == 3
    assert all('--go "$GO_TOOLCHAINS"' in r and '--rust "$RUST_TOOLCHAINS"' in r for r in runs)
    # the shard's part of the preset, and its cap on sampling until sure (bench matrix)
    assert all('--build "$BUILDS"' in r and '--max-runs "$MAX_RUNS"' in r for r in runs if "bench run" in r)
    # the build step builds the programs of the shard's scenarios, as its runs will ask (the
    # SQL programs only in a shard with a SQL scenario)
    assert all('--scenario "$SCENARIOS"' in r for r in runs)
    assert bench["env"]["BUILDS"] == "${{ matrix.builds }}" and bench["env"]["MAX_RUNS"] == "${{ matrix.max_runs }}"
    (cmp_,) = [s for s in bench["steps"] if "bench compare" in s.get("run", "")]
    assert "--skip-if-nothing" in cmp_["run"] and "pull_request" not in cmp_["if"]  # compiler verdicts on every event


def test_bench_uploads_results_and_writes_the_job_summary():
    bench = load("bench.yml")["jobs"]["bench"]
    (up,) = [s for s in bench["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert up["with"]["name"] == "bench-${{ matrix.id }}" and up["if"] == "${{ !cancelled() }}"
    runs = [s.get("run", "") for s in bench["steps"]]
    assert any("bench summary" in r and "$GITHUB_STEP_SUMMARY" in r for r in runs)
    assert any("--ab-base" in r for r in runs) and any("bench compare" in r for r in runs)
    # the artifacts are what publish.yml downloads
    (dl,) = [s for s in load("publish.yml")["jobs"]["collect"]["steps"] if "pattern" in s.get("with", {})]
    assert dl["with"]["pattern"] == "bench-*"
    assert dl["with"]["run-id"] == "${{ github.event.workflow_run.id }}"


def test_publish_follows_bench_and_never_cancels_a_publish():
    doc = load("publish.yml")
    on = triggers(doc)
    assert on == {"workflow_run": {"workflows": [load("bench.yml")["name"]], "types": ["completed"]}}
    assert doc["concurrency"]["cancel-in-progress"] is False
    hist = doc["jobs"]["history"]
    assert hist["concurrency"] == {"group": "gh-pages-publish", "cancel-in-progress": False}
    assert any(s.get("run", "").startswith("ci-scripts/bench publish ") for s in hist["steps"])
    assert "pull_request" in hist["if"] and "default_branch" in hist["if"]
    pr = doc["jobs"]["pr-comment"]
    assert "github.event.workflow_run.event == 'pull_request'" in pr["if"]


def test_the_site_is_deployed_as_a_pages_artifact_not_committed():
    doc = load("publish.yml")
    hist, deploy = doc["jobs"]["history"], doc["jobs"]["deploy"]
    (pub,) = [s for s in hist["steps"] if s.get("name") == "Publish to gh-pages"]
    assert '--out "$SITE"' in pub["run"] and doc["env"]["SITE"].startswith("${{ github.workspace }}/../")
    (up,) = [s for s in hist["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert up["with"]["path"] == "${{ env.SITE }}"
    # the deploy job runs nothing but the action: no checkout, no run step, no token but its own
    assert deploy["needs"] == "history" and "needs.history.result == 'success'" in deploy["if"]
    assert "pull_request" in deploy["if"] and "default_branch" in deploy["if"]
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert deploy["concurrency"]["cancel-in-progress"] is False


def test_publish_feeds_github_action_benchmark():
    job = load("publish.yml")["jobs"]["benchmark-action"]
    (step,) = [s for s in job["steps"] if s.get("uses", "").startswith("benchmark-action/github-action-benchmark@")]
    w = step["with"]
    assert w["tool"] == "customSmallerIsBetter" and w["comment-on-alert"] is True
    assert w["name"] == "${{ matrix.name }}"  # one benchmark name per OS and toolchain (merge-artifacts)
    assert job["strategy"]["matrix"]["include"] == "${{ fromJSON(needs.collect.outputs.benchmark-action) }}"


def test_publish_treats_artifacts_as_data():
    doc = load("publish.yml")
    for job_id, job in doc["jobs"].items():
        for step in job["steps"]:
            if step.get("uses", "").startswith("actions/checkout@"):
                # the default branch only: no ref, no repository from the triggering run
                assert "ref" not in step.get("with", {}) and "repository" not in step.get("with", {}), job_id
    collect = [s.get("run", "") for s in doc["jobs"]["collect"]["steps"]]
    assert any(r.startswith("ci-scripts/bench merge-artifacts ") for r in collect)
    assert any(r.startswith("ci-scripts/bench validate ") for r in collect)
    # downloaded outside the work tree, so nothing in it can replace ci-scripts
    assert doc["env"]["ARTIFACTS"].startswith("${{ github.workspace }}/../")
    text = (WORKFLOWS / "publish.yml").read_text(encoding="utf-8")
    assert "head_repository" not in text and "pull_requests" not in text  # resolved by pr-comment from the event file


# --------------------------------------------------------------------------- security rules

def test_every_action_is_pinned_to_a_full_sha_with_its_version():
    seen = 0
    for name in FILES:
        for line in (WORKFLOWS / name).read_text(encoding="utf-8").splitlines():
            m = PIN.match(line)
            if not m:
                continue
            seen += 1
            assert not m["action"].startswith("docker://"), line
            if m["action"].startswith("./"):
                continue
            assert re.fullmatch(r"[0-9a-f]{40}", m["ref"]), f"{name}: not pinned to a commit: {line.strip()}"
            assert re.fullmatch(r"\s*#\s*v\d+(\.\d+){0,2}\s*", m["rest"]), f"{name}: no version comment: {line.strip()}"
    assert seen >= 10


def test_one_sha_per_action_everywhere():
    pins: dict[str, set[str]] = {}
    for name in FILES:
        for line in (WORKFLOWS / name).read_text(encoding="utf-8").splitlines():
            m = PIN.match(line)
            if m:
                pins.setdefault(m["action"], set()).add(m["ref"] + m["rest"].strip())
    assert all(len(v) == 1 for v in pins.values()), pins


def test_permissions_are_least_privilege():
    for name in FILES:
        doc = load(name)
        assert doc["permissions"] == {}, f"{name}: top level must grant nothing"
        for job_id, job in doc["jobs"].items():
            perms = job.get("permissions")
            assert isinstance(perms, dict), f"{name}/{job_id}: permissions must be explicit"
            writes = {k for k, v in perms.items() if v == "write"}
            assert writes <= WRITE_ALLOWED.get((name, job_id), set()), f"{name}/{job_id}: writes {writes}"
            assert set(perms.values()) <= {"read", "write", "none"}
            assert "id-token" not in perms or (name, job_id) == ("publish.yml", "deploy"), f"{name}/{job_id}"
    assert all(v for v in WRITE_ALLOWED.values())


def test_checkouts_do_not_persist_credentials():
    for name in FILES:
        for job_id, i, step in steps(name):
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step.get("with", {}).get("persist-credentials") is False, f"{name}/{job_id} step {i}"


def test_no_expression_inside_run():
    for name in FILES:
        for job_id, i, step in steps(name):
            assert "${{" not in step.get("run", ""), f"{name}/{job_id} step {i}: pass it through env:"


def test_no_secrets_but_the_job_token():
    for name in FILES:
        text = (WORKFLOWS / name).read_text(encoding="utf-8")
        assert "secrets." not in text and "pull_request_target" not in text


# --------------------------------------------------------------------------- run steps: ci-scripts calls that parse

def run_steps():
    out = []
    for name in FILES:
        for job_id, i, step in steps(name):
            if "run" in step:
                out.append(pytest.param(name, job_id, step, id=f"{name}:{job_id}:{step.get('name', i)}"))
    return out


def placeholder(word: str) -> str:
    """An env reference as the shell would see it, with a value of the right kind."""
    def value(var: str) -> str:
        if var in ("PRESET",):
            return "quick"
        if var in ("EVENT",):
            return "pull_request"
        if var in ("SCENARIOS",):
            return "cpu"
        if var in ("RUST_TOOLCHAINS",):
            return "stable,beta,nightly"
        if var in ("GO_TOOLCHAINS",):
            return "oldstable,stable"
        if var in ("MAX_RUNS",):
            return "30"
        if var in ("BUILDS",):
            return ""
        return f"/tmp/{var.lower()}"
    return re.sub(r"\$\{?([A-Z_][A-Z0-9_]*)\}?", lambda m: value(m.group(1)), word)


@pytest.mark.parametrize("wf,job_id,step", run_steps())
def test_run_step_is_a_ci_scripts_call_that_parses(wf, job_id, step):
    script = step["run"].strip()
    assert "\n" not in script and not re.search(r"[;&|`<>]|\$\(", script), f"one command, no shell logic: {script}"
    argv = [placeholder(w) for w in shlex.split(script)]
    if argv[0] == "sudo":  # root only to install system packages, never to run anything else
        assert argv[:5] == ["sudo", "-n", "ci-scripts/bench", "doctor", "--install"], script
        assert "Linux" in str(step.get("if", "")) or load(wf)["jobs"][job_id]["runs-on"] == "ubuntu-latest", script
        argv = argv[2:]
    assert argv[0] in ("ci-scripts/bench", "ci-scripts/test"), script
    if argv[0] == "ci-scripts/test":
        assert (CI_SCRIPTS / "test").is_file(), script
        return
    assert (CI_SCRIPTS / "bench").is_file()
    command = argv[1]
    assert command in registered(), f"{script}: `bench {command}` is not a command"
    try:
        args = build_parser().parse_args(argv[1:])
    except SystemExit as err:
        pytest.fail(f"{script}: the arguments do not parse (exit {err.code})")
    assert args.command == command


def test_the_steps_env_defines_what_run_uses():
    for name in FILES:
        doc = load(name)
        for job_id, job in doc["jobs"].items():
            for step in job.get("steps", []):
                if "run" not in step:
                    continue
                env = {**doc.get("env", {}), **job.get("env", {}), **step.get("env", {})}
                for var in re.findall(r"\$\{?([A-Z_][A-Z0-9_]*)", step["run"]):
                    assert var in env or var.startswith(("GITHUB_", "RUNNER_")), f"{name}/{job_id}: ${var} is not set"


# --------------------------------------------------------------------------- steps run here on saved inputs

def expand(value, exprs: dict) -> str:
    def sub(m):
        expr = m.group(1).strip()
        assert expr in exprs, f"no test value for ${{{{ {expr} }}}}"
        return exprs[expr]
    return re.sub(r"\$\{\{(.*?)\}\}", sub, str(value))


def run_step(wf: str, job_id: str, step_id_or_name: str, exprs: dict, extra_env: dict, cwd=ROOT, timeout=600):
    doc = load(wf)
    job = doc["jobs"][job_id]
    (step,) = [s for s in job["steps"] if step_id_or_name in (s.get("id"), s.get("name"))]
    env = {k: expand(v, exprs) for k, v in {**doc.get("env", {}), **job.get("env", {}), **step.get("env", {})}.items()}
    bash = shutil.which("bash")
    return subprocess.run([bash, "-e", "-o", "pipefail", "-c", step["run"]], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **extra_env, **env}, timeout=timeout)


def gh_outputs(path: Path) -> dict:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


@pytest.mark.parametrize("event,inputs,jobs_expected", [
    ("pull_request", {}, 3),
    ("push", {}, None),
    ("schedule", {}, None),
    ("workflow_dispatch", {"preset": "smoke", "scenarios": "cpu,sleep", "os": "ubuntu-latest", "go": "stable",
                           "rust": "stable,nightly", "runners": ""}, 1),  # one job measures both Rust toolchains
])
def test_plan_step_runs_here(tmp_path, event, inputs, jobs_expected):
    gh_out = tmp_path / "out"
    exprs = {"github.event_name": event, **{f"inputs.{k}": inputs.get(k, "") for k in
                                             ("preset", "scenarios", "os", "go", "rust", "runners")}}
    proc = run_step("bench.yml", "plan", "matrix", exprs, {"GITHUB_OUTPUT": str(gh_out)})
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(gh_outputs(gh_out)["matrix"])["include"]
    if jobs_expected:
        assert len(rows) == jobs_expected
    assert all({"id", "name", "runs-on", "go", "rust", "preset", "scenarios", "shard", "estimate_min"} <= set(r)
               for r in rows)
    if inputs.get("rust"):
        assert {r["rust"] for r in rows} == {inputs["rust"]}
    assert {r["preset"] for r in rows} == {"quick" if event == "pull_request" else inputs.get("preset") or "standard"}


def publish_exprs(tmp_path) -> dict:
    return {"github.workspace": str(tmp_path / "ws")}


def test_collect_steps_run_here_on_saved_artifacts(tmp_path):
    exprs = publish_exprs(tmp_path)
    (tmp_path / "ws").mkdir()
    art = tmp_path / "bench-artifacts"
    wf_fixtures.write_artifact(art, "bench-ubuntu-latest-go-stable-rust-stable", wf_fixtures.results_doc())
    wf_fixtures.write_artifact(art, "bench-windows-latest-go-stable-rust-stable", wf_fixtures.results_doc(os_name="windows"))
    (art / "bench-junk").mkdir()
    (art / "bench-junk" / "results.json").write_text("[]")
    gh_out, summary = tmp_path / "out", tmp_path / "summary.md"
    env = {"GITHUB_OUTPUT": str(gh_out), "GITHUB_STEP_SUMMARY": str(summary)}
    proc = run_step("publish.yml", "collect", "merge", exprs, env)
    assert proc.returncode == 0, proc.stderr
    assert gh_outputs(gh_out)["results"] == "2"
    assert len(json.loads(gh_outputs(gh_out)["benchmark-action"])) == 4
    assert "bench-junk" in proc.stderr and "Rejected (1)" in summary.read_text()
    proc = run_step("publish.yml", "collect", "Validate the merged results again", exprs, env)
    assert proc.returncode == 0, proc.stderr


def test_publish_steps_turn_saved_artifacts_into_history_and_site(tmp_path):
    git = shutil.which("git")
    exprs = {**publish_exprs(tmp_path), "github.token": "unused", "github.server_url": "file://",
             "github.repository": str(tmp_path / "remote")}
    (tmp_path / "ws").mkdir()
    subprocess.run([git, "init", "-q", "--bare", str(tmp_path / "remote.git")], check=True)
    art = tmp_path / "bench-artifacts"
    wf_fixtures.write_artifact(art, "bench-ubuntu-latest-go-stable-rust-stable", wf_fixtures.results_doc())
    wf_fixtures.write_artifact(art, "bench-macos-latest-go-stable-rust-stable", wf_fixtures.results_doc(os_name="macos"))
    env = {"GITHUB_OUTPUT": str(tmp_path / "out"), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    assert run_step("publish.yml", "collect", "merge", exprs, env).returncode == 0
    proc = run_step("publish.yml", "history", "Publish to gh-pages", exprs, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    clone = tmp_path / "clone"
    subprocess.run([git, "clone", "-q", "--branch", "gh-pages", str(tmp_path / "remote.git"), str(clone)], check=True)
    files = {p.relative_to(clone).as_posix() for p in clone.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert "dev/bench/data.js" in files and any(f.startswith("history/") for f in files)
    assert "index.html" not in files  # the site is not committed: it is the Pages artifact
    site = tmp_path / "bench-site"  # $SITE, which the upload-pages-artifact step uploads
    assert (site / "index.html").is_file() and (site / "dev/bench/data.js").is_file()
    site_text = " ".join(p.read_text(encoding="utf-8", errors="replace") for p in site.rglob("*.html"))
    assert "linux" in site_text and "macos" in site_text
    # publishing the same artifacts again adds nothing
    head = subprocess.run([git, "-C", str(tmp_path / "remote.git"), "rev-parse", "gh-pages"], capture_output=True, text=True).stdout
    assert run_step("publish.yml", "history", "Publish to gh-pages", exprs, env).returncode == 0
    again = subprocess.run([git, "-C", str(tmp_path / "remote.git"), "rev-parse", "gh-pages"], capture_output=True, text=True).stdout
    assert again == head


def test_publish_step_hands_the_token_to_git_only_through_its_environment(tmp_path):
    """The history job's checkout keeps no credentials; git gets the job token from the
    step's env through a credential helper (not in argv, not in .git/config)."""
    doc = load("publish.yml")
    (step,) = [s for s in doc["jobs"]["history"]["steps"] if s.get("name") == "Publish to gh-pages"]
    env = {k: expand(v, {"github.token": "t0k3n-for-test", "github.server_url": "https://github.com",
                         "github.repository": "o/r"}) for k, v in step["env"].items()}
    assert env["REMOTE"] == "https://github.com/o/r.git" and "t0k3n" not in step["run"] + env["REMOTE"]
    git = shutil.which("git")
    proc = subprocess.run([git, "credential", "fill"], input="protocol=https\nhost=github.com\n\n", capture_output=True,
                          text=True, env={**os.environ, "GIT_TERMINAL_PROMPT": "0", **env}, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "username=x-access-token" in proc.stdout and "password=t0k3n-for-test" in proc.stdout


def test_pr_comment_step_runs_here_against_a_fake_github(tmp_path):
    """publish.yml's collect + pr-comment steps, as written, on saved A/B artifacts of a
    fork's pull request; GitHub is a fake API on 127.0.0.1."""
    from test_workflow_commands import FakeGitHub, pr

    exprs = {**publish_exprs(tmp_path), "github.token": "job-token"}
    (tmp_path / "ws").mkdir()
    art = tmp_path / "bench-artifacts"
    wf_fixtures.write_artifact(art, "bench-ubuntu-latest-go-stable-rust-stable", wf_fixtures.results_doc(ab=True))
    env = {"GITHUB_OUTPUT": str(tmp_path / "out"), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
    assert run_step("publish.yml", "collect", "merge", exprs, env).returncode == 0
    sha = "f" * 40
    event = {"repository": {"id": 1}, "workflow_run": {
        "id": 9, "event": "pull_request", "head_sha": sha, "head_branch": "patch-1", "html_url": "https://example/runs/9",
        "head_repository": {"owner": {"login": "someone"}}, "pull_requests": []}}
    (tmp_path / "event.json").write_text(json.dumps(event))
    fake = FakeGitHub([pr(42, sha=sha, owner="someone", branch="patch-1")])
    try:
        env = {**env, "GITHUB_EVENT_PATH": str(tmp_path / "event.json"), "GITHUB_REPOSITORY": "o/r",
               "GITHUB_API_URL": fake.url}
        for _ in range(2):
            proc = run_step("publish.yml", "pr-comment", "Create or update the comparison comment", exprs, env)
            assert proc.returncode == 0, proc.stderr
        assert list(fake.comments) == [42] and len(fake.comments[42]) == 1
        assert fake.comments[42][0]["body"].startswith("<!-- gorust-bench-comment -->")
        assert {r[4] for r in fake.requests} == {"Bearer job-token"}
    finally:
        fake.close()
