"""The history (Contract 3): an append-only store of summary statistics, one entry per
(run, benchmark key), kept as a directory of JSON files on the gh-pages branch.

Layout of a history directory:

    runs/<YYYY-MM>.json                    one record per run (provenance), kind "runs"
    <os>/<scenario>/<YYYY-MM>.json         one entry per run and benchmark, kind "entries"

No file grows without bound (one month of one scenario on one OS). Every file is
written whole to a temp file and renamed (fsutil), after the new content was validated
and checked to keep every old record byte for byte (append-only). A run's entries are
written first and its run record last: the run record is the commit marker, and
readers ignore entries of runs without one (a killed `add` leaves the history as it
was; re-running it completes the run). The run id is derived from the results file's
content, so adding the same results again adds nothing.

Every record carries a digest of its own content, so a hand edit is reported by
`check` (and `add` refuses to append to a file that does not check).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from benchpipe import measures, metrics, results, schema, strictjson
from benchpipe.errors import BenchError
from benchpipe.fsutil import atomic_write_text, file_lock
from benchpipe.stats import summarize

HISTORY_SCHEMA = "gorust-bench.history/1"
RUNS_DIR = "runs"
_MONTH_FILE = re.compile(r"^[0-9]{4}-[0-9]{2}\.json$")
# One month of one scenario on one OS (or of run records): far below this.
MAX_FILE_BYTES = 256 * 2**20


# --------------------------------------------------------------------------- helpers

def canonical(doc) -> str:
    # allow_nan=False: NaN/Infinity are not JSON, and the history never holds them
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def digest_of(record: dict) -> str:
    body = {k: v for k, v in record.items() if k != "digest"}
    return hashlib.sha256(canonical(body).encode("utf-8")).hexdigest()[:16]


def run_id_of(doc: dict) -> str:
    """The run id: derived from the results document's whole content (env + benchmarks)."""
    return "r" + hashlib.sha256(canonical(doc).encode("utf-8")).hexdigest()[:20]


def utc_date(timestamp: str) -> str:
    """An RFC 3339 timestamp as UTC with a Z suffix (seconds precision)."""
    ts = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=timezone.utc)
    return ts.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def month_of(date: str) -> str:
    return date[:7]


# --------------------------------------------------------------------------- validation

_DEFS = {"entries": "entries_file", "runs": "runs_file", "entry": "entry", "run": "run"}


def record_problems(record, kind: str) -> list[str]:
    return schema.problems_at(record, "history", _DEFS[kind])


# Digests of records that passed the schema in this process. A record whose content
# still hashes to such a digest is the same record: it is not validated again. Publish
# retries re-read files that grew by a few records, and `add` re-checks what it read
# before writing; with jsonschema at about 0.2 ms per entry, re-validating every record
# made each retry cost seconds per full-size run.
_VALID_RECORDS: set[str] = set()


def _known_valid(rec) -> bool:
    return (isinstance(rec, dict) and isinstance(rec.get("digest"), str) and rec["digest"] in _VALID_RECORDS
            and rec["digest"] == digest_of(rec))


def file_problems(path: Path, doc, rel: str) -> list[str]:
    """Problems of one parsed history file (schema, place, digests, duplicates)."""
    if not isinstance(doc, dict) or doc.get("kind") not in ("entries", "runs"):
        return ['$.kind: must be "entries" or "runs"']
    kind = doc["kind"]
    list_name = "runs" if kind == "runs" else "entries"
    records = doc.get(list_name)
    # positions of records validated before in this process (their digest checked too)
    known = {i for i, r in enumerate(records) if _known_valid(r)} if isinstance(records, list) else set()
    fresh = [r for i, r in enumerate(records) if i not in known] if known else records
    found = record_problems(doc if not known else {**doc, list_name: fresh}, kind)
    if found and known:
        found = record_problems(doc, kind)  # the messages' indices count every record
    if found:
        return found
    parts = Path(rel).parts
    if kind == "runs":
        if len(parts) != 2 or parts[0] != RUNS_DIR:
            found.append(f"a runs file belongs in {RUNS_DIR}/<YYYY-MM>.json")
    else:
        if len(parts) != 3 or parts[0] != doc["os"] or parts[1] != doc["scenario"]:
            found.append(f"an entries file of os {doc['os']!r} and scenario {doc['scenario']!r} "
                         f"belongs in {doc['os']}/{doc['scenario']}/{doc['month']}.json")
    if parts and parts[-1] != f"{doc['month']}.json":
        found.append(f"$.month: {doc['month']!r} does not match the file name")
    seen = set()
    for i, rec in enumerate(records):
        where = f"$.{list_name}[{i}]"
        if i not in known and rec["digest"] != digest_of(rec):
            found.append(f"{where}: digest mismatch: the record was changed after it was written (hand edit?)")
        if month_of(rec["date"]) != doc["month"]:
            found.append(f"{where}.date: {rec['date']} is not in month {doc['month']}")
        if kind == "entries":
            if rec["os"] != doc["os"] or rec["key"]["scenario"] != doc["scenario"]:
                found.append(f"{where}: os/scenario do not match the file")
            if rec["id"] != results.key_id(rec["key"]):
                found.append(f"{where}.id: {rec['id']!r} does not match its key")
        ident = rec["run"] if kind == "runs" else (rec["run"], rec["id"])
        if ident in seen:
            found.append(f"{where}: duplicate record {ident!r}")
        seen.add(ident)
    if not found:
        _VALID_RECORDS.update(r["digest"] for r in records)
    return found


def read_file(path: Path, rel: str) -> dict:
    """Read and fully check one history file; any problem is one BenchError with the path."""
    doc = strictjson.read(path, max_bytes=MAX_FILE_BYTES)
    found = file_problems(path, doc, rel)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise BenchError(f"{path}: not a valid history file: {found[0]}{more}")
    return doc


# --------------------------------------------------------------------------- serialisation

def _header(doc: dict) -> str:
    head = {k: v for k, v in doc.items() if k not in ("entries", "runs")}
    return canonical(head)[:-1]


def serialise(doc: dict) -> str:
    """One record per line, appended at the end: the file's diff is pure append."""
    list_name = "runs" if doc["kind"] == "runs" else "entries"
    lines = [canonical(r) for r in doc[list_name]]
    body = ",\n".join(lines)
    return f'{_header(doc)},"{list_name}":[\n{body}\n]}}\n' if lines else f'{_header(doc)},"{list_name}":[\n]}}\n'


# --------------------------------------------------------------------------- records from results

def run_record(doc: dict, run: str) -> dict:
    env = doc["env"]
    rec = {
        "run": run, "commit": env["commit"], "branch": env["branch"], "date": utc_date(env["timestamp"]),
        "os": env["os"], "arch": env["arch"], "cpu_model": env["cpu_model"], "cores": env["cores"],
        "memory_bytes": env["memory_bytes"], "runner": env["runner"], "preset": env["preset"],
        "toolchains": dict(env["toolchains"]), "hyperfine": env["hyperfine"],
        "benchmarks": sum(1 for b in doc["benchmarks"] if b["status"] == "ok"),
    }
    for f in ("commit_message", "commit_time"):
        if env.get(f) is not None:
            rec[f] = env[f]
    for f in ("commit_author", "commit_committer"):
        if env.get(f):
            rec[f] = dict(env[f])
    if env.get("labels"):
        rec["labels"] = dict(env["labels"])
    not_ok = [{"id": b["id"], "status": b["status"], "reason": b.get("reason", "")[-500:]}
              for b in doc["benchmarks"] if b["status"] != "ok"]
    if not_ok:
        rec["not_ok"] = not_ok
    rec["digest"] = digest_of(rec)
    return rec


def channel(entry: dict) -> str:
    """The channel a benchmark's toolchain was asked for (entries written before channels
    were kept: the exact toolchain, which was their series key then)."""
    return entry.get("channel") or entry["key"]["toolchain"]


def entry_records(doc: dict, run: str, versus: dict | None = None) -> list[dict]:
    """The entries of a run's ok benchmarks. versus: benchmark id -> its verdict against the
    next older toolchain of the run (compare.toolchain_verdicts), kept as the entry's `versus`."""
    env = doc["env"]
    date = utc_date(env["timestamp"])
    versus = versus or {}
    out = []
    for b in doc["benchmarks"]:
        if b["status"] != "ok":
            continue
        s = b["samples"]
        tc = b["key"]["toolchain"]
        e = {
            "run": run, "id": b["id"], "key": b["key"], "commit": env["commit"], "date": date,
            "os": env["os"], "runner": env["runner"], "preset": env["preset"],
            "toolchain_version": env["toolchains"].get(tc, tc),
            "time_s": summarize(s["wall_s"]),
        }
        if b.get("channel"):
            e["channel"] = b["channel"]
        if b["id"] in versus:
            e["versus"] = versus[b["id"]]
        for m in metrics.METRICS.values():   # each compared metric's summary, where measured
            xs = m.history_samples(b)
            if xs:
                e[m.fields[0]] = summarize(xs)
        # memory_bytes is required of every entry (since the first): 0 when not measured,
        # which memory_source then does not name
        e.setdefault("memory_bytes", summarize([0]))
        lat = measures.latency_us(b)
        if lat:
            e["latency_us"] = lat
        figures = measures.scenario_metrics(b)
        base = measures.baseline_bytes(b)
        if base is not None:
            figures["baseline_rss_bytes"] = base
        if figures:
            e["metrics"] = figures
        if b.get("reason"):
            e["warning"] = b["reason"][:500]
        facts = measures.settings(b)
        if facts:
            e["settings"] = facts
        source = measures.memory_source(b)
        if source:
            e["memory_source"] = source
        cpu = {}
        if s["user_s"]:
            cpu["user_median"] = summarize(s["user_s"])["median"]
        if s["sys_s"]:
            cpu["sys_median"] = summarize(s["sys_s"])["median"]
        if cpu:
            e["cpu_s"] = cpu
        e["digest"] = digest_of(e)
        out.append(e)
    return out


# --------------------------------------------------------------------------- the store

@dataclass
class AddReport:
    runs_added: list[str] = field(default_factory=list)
    runs_present: list[str] = field(default_factory=list)
    entries_added: int = 0
    files_written: list[str] = field(default_factory=list)
    new_runs: list[dict] = field(default_factory=list)
    new_entries: list[dict] = field(default_factory=list)


def _load_or_new(root: Path, rel: str, fresh: dict) -> tuple[dict, str | None]:
    path = root / rel
    if not path.exists():
        return fresh, None
    doc = read_file(path, rel)
    return doc, path.read_text(encoding="utf-8")


def _write_appended(root: Path, rel: str, doc: dict, old_text: str | None) -> None:
    kind = doc["kind"]
    problems = file_problems(root / rel, doc, rel)
    if problems:  # a bug, never bad input: the records were made here
        raise BenchError(f"{root / rel}: refusing to write an invalid history file: {problems[0]}")
    text = serialise(doc)
    if old_text is not None:
        list_name = "runs" if kind == "runs" else "entries"
        old_doc = strictjson.loads(old_text, str(root / rel))
        if old_text != serialise(old_doc):
            # written by hand or by another tool: keep it verbatim, append by re-serialising
            # would reformat it, so refuse instead of rewriting old records.
            raise BenchError(f"{root / rel}: not in the history's own layout (one record per line); "
                             f"restore it from git, nothing was written")
        keep = old_text[: old_text.rindex("\n]}")]
        if not text.startswith(keep) or len(old_doc[list_name]) > len(doc[list_name]):
            raise BenchError(f"{root / rel}: internal error: an append would rewrite old records")
    atomic_write_text(root / rel, text)


def add(root, docs: list[tuple[str, dict]], versus: list[dict] | None = None) -> AddReport:
    """Append the runs of the given results documents (label, doc) to the history at root.
    versus: per document, its toolchain verdicts (compare.toolchain_verdicts; the history
    only stores them).

    Idempotent (a run already recorded adds nothing), validated, atomic per file, with
    the run records written last. Raises BenchError naming the file for a corrupt
    history file it would have to touch, and writes nothing then."""
    root = Path(root)
    report = AddReport()
    with file_lock(root):
        # what is there already
        pending_runs: dict[str, list[dict]] = {}   # month -> new run records
        pending_entries: dict[str, list[dict]] = {}  # rel -> new entries
        runs_docs: dict[str, tuple[dict, str | None]] = {}
        for i, (_label, doc) in enumerate(docs):
            run = run_id_of(doc)
            rrec = run_record(doc, run)
            month = month_of(rrec["date"])
            rel = f"{RUNS_DIR}/{month}.json"
            if rel not in runs_docs:
                runs_docs[rel] = _load_or_new(root, rel, {"schema": HISTORY_SCHEMA, "kind": "runs", "month": month, "runs": []})
            existing = {r["run"] for r in runs_docs[rel][0]["runs"]} | {r["run"] for r in pending_runs.get(rel, [])}
            if run in existing:
                report.runs_present.append(run)
                continue
            pending_runs.setdefault(rel, []).append(rrec)
            report.runs_added.append(run)
            report.new_runs.append(rrec)
            for e in entry_records(doc, run, versus[i] if versus else None):
                erel = f"{e['os']}/{e['key']['scenario']}/{month}.json"
                pending_entries.setdefault(erel, []).append(e)
        # load every file to be touched first: a corrupt one stops everything before a write
        entry_docs = {}
        for erel, new in pending_entries.items():
            os_, scen, _ = erel.split("/")
            entry_docs[erel] = _load_or_new(root, erel, {"schema": HISTORY_SCHEMA, "kind": "entries", "os": os_,
                                                          "scenario": scen, "month": new[0]["date"][:7], "entries": []})
        for erel, new in sorted(pending_entries.items()):
            doc, old_text = entry_docs[erel]
            have = {(e["run"], e["id"]) for e in doc["entries"]}
            fresh = [e for e in new if (e["run"], e["id"]) not in have]  # completes an interrupted add
            if not fresh:
                continue
            doc = {**doc, "entries": doc["entries"] + fresh}
            _write_appended(root, erel, doc, old_text)
            report.entries_added += len(fresh)
            report.new_entries.extend(fresh)
            report.files_written.append(erel)
        # the commit marker: run records last
        for rel, new in sorted(pending_runs.items()):
            doc, old_text = runs_docs[rel]
            doc = {**doc, "runs": doc["runs"] + new}
            _write_appended(root, rel, doc, old_text)
            report.files_written.append(rel)
    return report


# --------------------------------------------------------------------------- reading

def history_files(root: Path) -> list[tuple[Path, str]]:
    root = Path(root)
    out = []
    for path in sorted(root.rglob("*.json")):
        rel = path.relative_to(root).as_posix()
        if any(part.startswith(".") for part in Path(rel).parts):
            continue
        out.append((path, rel))
    return out


def check(root) -> list[str]:
    """Every problem of every file, as 'path: problem' lines (empty: the history is valid)."""
    root = Path(root)
    if not root.is_dir():
        return [f"{root}: no such history directory"]
    problems = []
    for path, rel in history_files(root):
        if not _MONTH_FILE.match(path.name):
            problems.append(f"{path}: not a history file name (expected <YYYY-MM>.json)")
            continue
        try:
            doc = strictjson.read(path, max_bytes=MAX_FILE_BYTES)
        except BenchError as err:
            problems.append(str(err))
            continue
        found = file_problems(path, doc, rel)
        problems.extend(f"{path}: {p}" for p in found)
    return problems


def uncommitted(root) -> list[str]:
    """Warnings: entries whose run has no run record (an interrupted `add`). Readers
    ignore them (the history is as it was before that add); adding the same results
    again completes the run."""
    runs, entry_runs = set(), {}
    for path, rel in history_files(root):
        try:
            doc = strictjson.read(path, max_bytes=MAX_FILE_BYTES)
        except BenchError:
            continue
        if not isinstance(doc, dict):
            continue
        if doc.get("kind") == "runs":
            runs.update(r.get("run") for r in doc.get("runs", []) if isinstance(r, dict))
        elif doc.get("kind") == "entries":
            for e in doc.get("entries", []):
                if isinstance(e, dict):
                    entry_runs.setdefault(e.get("run"), str(path))
    return [f"{path}: entries of run {run} have no run record yet (an interrupted add; they are ignored "
            f"until `bench history add` is run again with that run's results)"
            for run, path in sorted(entry_runs.items(), key=lambda kv: str(kv[0])) if run not in runs]


@dataclass
class History:
    runs: dict[str, dict]         # run id -> run record
    entries: list[dict]           # committed entries (their run has a record), by date


def load(root) -> History:
    """Everything in the history, read and checked (fast checks only: structure of
    the files, digests; `check` runs the full schema validation)."""
    root = Path(root)
    if not root.is_dir():
        raise BenchError(f"{root}: no such history directory")
    runs: dict[str, dict] = {}
    entries: list[dict] = []
    for path, rel in history_files(root):
        try:
            doc = strictjson.read(path, max_bytes=MAX_FILE_BYTES)
        except BenchError as err:
            raise BenchError(f"{err}; run `bench history check`") from None
        kind = doc.get("kind") if isinstance(doc, dict) else None
        if kind == "runs":
            for r in doc.get("runs", []):
                runs[r["run"]] = r
        elif kind == "entries":
            entries.extend(doc.get("entries", []))
        else:
            raise BenchError(f"{path}: not a history file; run `bench history check`")
    entries = [e for e in entries if e["run"] in runs]
    entries.sort(key=lambda e: (e["date"], e["run"], e["id"]))
    return History(runs, entries)


# --------------------------------------------------------------------------- what entries are shown by

def primary_time(entry: dict) -> dict:
    """The time an entry is shown and analysed by (metrics.HEADLINE): the program's own
    timed window, or the whole-process wall time for entries written before windows were kept."""
    return metrics.HEADLINE.summary_of(entry)
