"""`bench pr-comment`: create or update THE comparison comment on a pull request, from
the publish workflow (workflow_run), which has a write token and runs the default
branch's code only.

- The pull request comes from trusted data: the workflow_run event GitHub wrote
  (`--event`, i.e. $GITHUB_EVENT_PATH) and GitHub's API, matched on the run's head
  SHA; never from an artifact. For a fork the event's `pull_requests` is empty, so the
  open PRs of the head repository's branch, then the PRs of the head commit, are
  looked up, and only one whose head SHA is the run's is taken.
- The body is rendered here, by `bench compare` on each validated results file, with
  a hidden marker (`<!-- gorust-bench-comment -->`) by which the one comment is found
  again: only a comment by the token's own bot user (`--bot-login`) carrying the
  marker is updated; otherwise a new comment is created.

Token: $GITHUB_TOKEN (or $GH_TOKEN). API: $GITHUB_API_URL or --api.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from benchpipe import results
from benchpipe.compare import compare_docs
from benchpipe.errors import BenchError, UsageError
from benchpipe.report import compare_md, md

NAME = "pr-comment"
HELP = "create or update the one benchmark comparison comment on a pull request"

MARKER = compare_md.MARKER  # "<!-- gorust-bench-comment -->"
MAX_BODY = 65000  # GitHub refuses comments over 65536 characters
DEFAULT_BOT = "github-actions[bot]"


def add_arguments(p):
    p.add_argument("--results", type=Path, required=True, help="folder of validated results files (merge-artifacts' results/)")
    p.add_argument("--event", type=Path, required=True, help="the workflow_run event JSON ($GITHUB_EVENT_PATH)")
    p.add_argument("--repo", required=True, help="owner/name of the base repository ($GITHUB_REPOSITORY)")
    p.add_argument("--api", default=os.environ.get("GITHUB_API_URL", "https://api.github.com"), help="GitHub API URL")
    p.add_argument("--bot-login", default=DEFAULT_BOT, help=f"the token's user, whose comment is updated (default: {DEFAULT_BOT})")
    p.add_argument("--markdown", metavar="FILE", help="also append the comment's body to this file (job summary)")
    p.add_argument("--dry-run", action="store_true", help="find the PR and print the body; write nothing")


# --------------------------------------------------------------------------- GitHub API

class Api:
    def __init__(self, base: str, repo: str, token: str | None):
        if not repo or repo.count("/") != 1:
            raise UsageError(f"--repo must be owner/name, not {repo!r}")
        self.base = base.rstrip("/")
        self.repo = repo
        self.token = token

    def call(self, method: str, path: str, query: dict | None = None, body: dict | None = None):
        url = f"{self.base}/repos/{self.repo}{path}"
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = json.dumps(body).encode("utf-8") if body is not None else None
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Accept", "application/vnd.github+json")
        req.add_header("X-GitHub-Api-Version", "2022-11-28")
        req.add_header("User-Agent", "gorust-bench-pr-comment")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                text = resp.read().decode("utf-8")
        except urllib.error.HTTPError as err:
            detail = err.read().decode("utf-8", "replace")[:300]
            raise BenchError(f"GitHub API {method} {path}: HTTP {err.code}: {' '.join(detail.split())}") from None
        except urllib.error.URLError as err:
            raise BenchError(f"GitHub API {method} {path}: {err.reason}") from None
        return json.loads(text) if text.strip() else None

    def pages(self, path: str, query: dict | None = None, limit: int = 30):
        for page in range(1, limit + 1):
            items = self.call("GET", path, {**(query or {}), "per_page": 100, "page": page})
            if not isinstance(items, list):
                raise BenchError(f"GitHub API GET {path}: expected a list")
            yield from items
            if len(items) < 100:
                return


# --------------------------------------------------------------------------- the pull request (trusted data only)

def find_pr(api: Api, event: dict) -> int | None:
    """The open PR whose head is the workflow run's head SHA, from the event and the API."""
    run = event.get("workflow_run")
    if not isinstance(run, dict):
        raise UsageError("--event is not a workflow_run event (no workflow_run object)")
    if run.get("event") != "pull_request":
        raise UsageError(f"the bench run was triggered by {run.get('event')!r}, not a pull request")
    sha = run.get("head_sha")
    if not isinstance(sha, str) or len(sha) != 40:
        raise UsageError("the workflow_run event has no head_sha")
    repo_id = (event.get("repository") or {}).get("id")

    def ours(pr: dict) -> bool:
        base_repo = ((pr.get("base") or {}).get("repo") or {})
        return (pr.get("head") or {}).get("sha") == sha and (repo_id is None or base_repo.get("id") in (None, repo_id))

    for pr in run.get("pull_requests") or []:
        if ours(pr) and isinstance(pr.get("number"), int):
            return pr["number"]
    owner = ((run.get("head_repository") or {}).get("owner") or {}).get("login")
    branch = run.get("head_branch")
    if owner and branch:
        for pr in api.pages("/pulls", {"state": "open", "head": f"{owner}:{branch}"}, limit=3):
            if ours(pr) and pr.get("state") == "open":
                return pr["number"]
    for pr in api.pages(f"/commits/{sha}/pulls", limit=3):
        if ours(pr) and pr.get("state") == "open":
            return pr["number"]
    return None


# --------------------------------------------------------------------------- the body

def _compare_markdown(path: Path) -> str:
    """`compare`'s Markdown report of one results file (typed calls, not argv)."""
    try:
        report = compare_docs([results.load(path)], [path.name])
    except BenchError as err:
        return f"_Comparison failed:_ {md.escape(str(err)[-300:])}\n"
    text = compare_md.render(report)
    # one section of the comment: no marker of its own, headings one level down
    lines = []
    for line in text.splitlines():
        if line.strip() == MARKER:
            continue
        lines.append("#" + line if line.startswith("#") else line)
    return "\n".join(lines) + "\n"


def body(results_dir: Path, run: dict) -> str:
    files = sorted(results_dir.glob("*.json"))
    if not files:
        raise BenchError(f"{results_dir}: no results files")
    sha = str(run.get("head_sha", ""))[:12]
    docs = [(path, results.load(path)) for path in files]  # validated again: this is still downloaded data
    presets = ", ".join(sorted({d["env"]["preset"] for _, d in docs}))
    parts = [MARKER, "## Benchmarks: this pull request against its base", "",
             f"Head {md.code(sha)}, measured by [bench run {md.escape(run.get('id', ''))}]({run.get('html_url', '')}) "
             f"({md.escape(presets)} preset; head and base built and run interleaved on the same runner).", ""]
    for path, doc in docs:
        env = doc["env"]
        title = f"{env['os']}/{env['arch']}, {', '.join(sorted(env['toolchains']))}, {env['cores']} cores"
        parts += [f"<details open><summary><b>{md.escape_html(title)}</b></summary>", "", _compare_markdown(path).strip(), "",
                  "</details>", ""]
    parts.append("<sub>Updated on every push to the pull request. A change is flagged only when it is both "
                 "statistically significant and larger than the practical threshold.</sub>")
    text = "\n".join(parts) + "\n"
    if len(text) > MAX_BODY:
        text = text[: MAX_BODY - 200] + "\n\n_(truncated: the full comparison is in the bench run's job summaries)_\n"
    return text


def upsert(api: Api, number: int, text: str, bot_login: str) -> tuple[str, int]:
    for c in api.pages(f"/issues/{number}/comments"):
        if MARKER in (c.get("body") or "") and (c.get("user") or {}).get("login") == bot_login:
            api.call("PATCH", f"/issues/comments/{c['id']}", body={"body": text})
            return "updated", c["id"]
    made = api.call("POST", f"/issues/{number}/comments", body={"body": text})
    return "created", made["id"]


def run(args) -> int:
    try:
        event = json.loads(args.event.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise UsageError(f"{args.event}: cannot read the event: {err}") from None
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN")
    api = Api(args.api, args.repo, token)
    number = find_pr(api, event)
    if number is None:
        print(f"bench pr-comment: no open pull request has head {event['workflow_run']['head_sha']}: nothing to comment on")
        return 0
    text = body(args.results, event["workflow_run"])
    if args.markdown:
        with open(args.markdown, "a", encoding="utf-8") as fh:
            fh.write(text)
    if args.dry_run:
        print(f"pull request #{number}\n{text}")
        return 0
    if not token:
        raise UsageError("no token: set GITHUB_TOKEN")
    action, ident = upsert(api, number, text, args.bot_login)
    print(f"bench pr-comment: {action} comment {ident} on pull request #{number}")
    return 0
