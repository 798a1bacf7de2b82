"""The history (Contract 3): an append-only store of summary statistics, one entry per
(run, benchmark key), kept as a directory of JSON files on the gh-pages branch.

Layout of a history directory:

    runs/<YYYY-MM>.json                    one record per run (provenance), kind "runs"
    <os>/<scenario>/<YYYY-MM>.json         one entry per run and benchmark, kind "entries"
    <os>/<scenario>/<YYYY-MM>.json.xz      a closed month: kind "entries" (history/2, whole,
                                           xz-compressed) until it is KEEP_DAYS old, then
                                           kind "summary"

An entries file is history/1 (one object per entry, every field) or, written since,
history/2 (a row per entry holding what its series and its run record do not say:
history_rows); both read to the same entries. `add` appends to a file in the format it
has and starts new files in history/2; `migrate` rewrites history/1 files as history/2
and proves each entry decodes to what it was (its digest). `compact` rewrites each month
older than KEEP_DAYS as a summarised month (history_summary: medians, intervals and
counts, compressed), proven entry by entry before the full file is removed; a month that
has ended but is younger than that is kept whole, its history/2 file xz-compressed byte
for byte (a tenth of the size: most of the raw-sample window's weight in the tree).

No file grows without bound (one month of one scenario on one OS). Every file is
written whole to a temp file and renamed (fsutil), after the new content was validated
and checked to keep every old record byte for byte (append-only). A run's entries are
written first and its run record last: the run record is the commit marker, and
readers ignore entries of runs without one (a killed `add` leaves the history as it
was; re-running it completes the run). The run id is derived from the results file's
content, so adding the same results again adds nothing.

Every record carries a digest of its own content, so a hand edit is reported by
`check`, and `add` refuses to append to a file whose form, place or digests do not
check (it validates against the schema only the records it writes: an old record
that still hashes to its digest was validated when it was written).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from benchpipe import columns_cache, entries_cache, gcpause, history_rows, history_summary, kinds_cache, measures, metrics, results, schema, strictjson
from benchpipe.errors import BenchError
from benchpipe.fsutil import atomic_write_bytes, atomic_write_text, file_lock
from benchpipe.stats import summarize

HISTORY_SCHEMA = "gorust-bench.history/1"   # runs files, and entries files written before history/2
RUNS_DIR = "runs"
_MONTH_FILE = re.compile(r"^[0-9]{4}-[0-9]{2}\.json(\.xz)?$")
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


def is_month_file(path: str) -> bool:
    """A history file's name: <YYYY-MM>.json, or <YYYY-MM>.json.xz (a closed month)."""
    return bool(_MONTH_FILE.match(Path(path).name))


# --------------------------------------------------------------------------- validation

_DEFS = {"entries": "entries_file", "runs": "runs_file", "entry": "entry", "run": "run", "rows": "rows_file",
         "summary": "summary_file"}


def record_problems(record, kind: str) -> list[str]:
    return schema.problems_at(record, "history", _DEFS[kind])


def is_rows(doc) -> bool:
    """An entries file in the compact format (history/2)."""
    return isinstance(doc, dict) and doc.get("schema") == history_rows.SCHEMA


def has_rows(doc) -> bool:
    """An entries file of rows (history/2, or a summarised month), not of entry objects."""
    return is_rows(doc) or history_summary.is_summary(doc)


def list_name(doc: dict) -> str:
    return "runs" if doc["kind"] == "runs" else "rows" if has_rows(doc) else "entries"


def is_compressed(path: Path | str) -> bool:
    """A closed month's file (<YYYY-MM>.json.xz): summarised, or whole and compressed."""
    return str(path).endswith(history_summary.SUFFIX)


def read_text(path: Path) -> str:
    """A history file's text (a closed month's decompressed first); one BenchError."""
    if not is_compressed(path):
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise BenchError(f"{path}: cannot read: {err}") from None
    return text_of(path, read_compressed(path))


def read_compressed(path: Path) -> bytes:
    """A closed month's file's bytes, its size checked first; one BenchError."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise BenchError(f"{path}: more than {MAX_FILE_BYTES} bytes")
        return path.read_bytes()
    except OSError as err:
        raise BenchError(f"{path}: cannot read: {err}") from None


def text_of(path: Path, data: bytes) -> str:
    """A closed month's text from its file's bytes; one BenchError."""
    return history_summary.decompress(data, str(path), MAX_FILE_BYTES)


def write_text(path: Path, text: str) -> None:
    """A history file written whole (atomically), compressed when its name says so."""
    if is_compressed(path):
        atomic_write_bytes(path, history_summary.compress(text))
    else:
        atomic_write_text(path, text)


def read_doc(path: Path):
    """A history file parsed (a closed month's decompressed first, a summarised month's
    columns as its rows: history_summary); one BenchError."""
    if not is_compressed(path):
        return strictjson.read(path, max_bytes=MAX_FILE_BYTES)
    return as_rows(strictjson.loads(read_text(path), str(path)), path)


def as_rows(doc, path: Path):
    """A parsed file with a summarised month's columns (history-summary/2, /3) made rows, the
    form every check and decode reads; any other document as it is."""
    if not history_summary.is_columns(doc):
        return doc
    try:
        return history_summary.to_rows(doc)
    except (history_summary.ColumnError, *_MALFORMED) as err:
        raise BenchError(f"{path}: not a valid history file: {err}") from None


def file_entries(doc: dict, runs: dict[str, dict]) -> list[dict]:
    """The entries of a parsed entries or summary file, any format; a history/2 row whose
    run has no record in `runs` is left out (its entry is whole only beside it:
    uncommitted). A summarised month's entries have no digest and only KEPT statistics."""
    if not has_rows(doc):
        return list(doc["entries"])
    series = history_rows.Series(doc["rows"])
    decode = history_summary.decode if history_summary.is_summary(doc) else history_rows.decode
    return [decode(r, series, runs[r[0]]) for r in doc["rows"] if isinstance(r, list) and r[0] in runs]


def _entry_keys(doc: dict) -> list[tuple[str, str]]:
    """(run, id) of every entry of an entries file (no run records needed)."""
    if not has_rows(doc):
        return [(e["run"], e["id"]) for e in doc["entries"]]
    series = history_rows.Series(doc["rows"])
    return [(r[0], history_rows.row_id(r, series)) for r in doc["rows"] if isinstance(r, list)]


# Digests of records that passed the schema in this process. A record whose content
# still hashes to such a digest is the same record: it is not validated again. Publish
# retries re-read files that grew by a few records, and `add` re-checks what it read
# before writing; with jsonschema at about 0.2 ms per entry, re-validating every record
# made each retry cost seconds per full-size run.
_VALID_RECORDS: set[str] = set()


def _known_valid(rec) -> bool:
    return (isinstance(rec, dict) and isinstance(rec.get("digest"), str) and rec["digest"] in _VALID_RECORDS
            and rec["digest"] == digest_of(rec))


def file_problems(path: Path, doc, rel: str, runs: dict[str, dict] | None = None) -> list[str]:
    """Problems of one parsed history file (schema, place, digests, duplicates). runs:
    the run records of the file's month, which a history/2 file needs to be checked
    entry by entry (its rows of other runs are checked for form only)."""
    if not isinstance(doc, dict) or doc.get("kind") not in ("entries", "runs", "summary"):
        return ['$.kind: must be "entries", "runs" or "summary"']
    if (is_compressed(rel) and not has_rows(doc)) or (history_summary.is_summary(doc) and not is_compressed(rel)):
        return [f"a {doc['kind']} file may not be named {Path(rel).name} (closed months, summarised or history/2: "
                f"<YYYY-MM>{history_summary.SUFFIX}, every other file <YYYY-MM>.json)"]
    if has_rows(doc):
        return _rows_problems(doc, rel, runs or {})
    kind = doc["kind"]
    name = list_name(doc)
    records = doc.get(name)
    # positions of records validated before in this process (their digest checked too)
    known = {i for i, r in enumerate(records) if _known_valid(r)} if isinstance(records, list) else set()
    fresh = [r for i, r in enumerate(records) if i not in known] if known else records
    found = record_problems(doc if not known else {**doc, name: fresh}, kind)
    if found and known:
        found = record_problems(doc, kind)  # the messages' indices count every record
    if found:
        return found
    found = _place_problems(doc, rel)
    seen = set()
    for i, rec in enumerate(records):
        where = f"$.{name}[{i}]"
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


def _place_problems(doc: dict, rel: str) -> list[str]:
    parts = Path(rel).parts
    found = []
    if doc["kind"] == "runs":
        if len(parts) != 2 or parts[0] != RUNS_DIR:
            found.append(f"a runs file belongs in {RUNS_DIR}/<YYYY-MM>.json")
    elif len(parts) != 3 or parts[0] != doc["os"] or parts[1] != doc["scenario"]:
        found.append(f"an entries file of os {doc['os']!r} and scenario {doc['scenario']!r} "
                     f"belongs in {doc['os']}/{doc['scenario']}/{doc['month']}.json")
    if parts and parts[-1] not in (f"{doc['month']}.json", f"{doc['month']}{history_summary.SUFFIX}"):
        found.append(f"$.month: {doc['month']!r} does not match the file name")
    return found


def _known_row(row) -> bool:
    return (isinstance(row, list) and len(row) == 4 and isinstance(row[0], str) and type(row[1]) is int
            and row[1] >= 0 and isinstance(row[2], dict) and isinstance(row[3], str) and row[3] in _VALID_RECORDS)


def _rows_problems(doc: dict, rel: str, runs: dict[str, dict]) -> list[str]:
    """Problems of a history/2 entries file or a summarised month: its form, its place,
    its series, and each entry whose run record is at hand decoded and checked as
    history/1 checks an entry (schema, digest: the entry is the one that was written,
    month, OS, scenario). A summarised month has one digest, of the whole file, and
    every row's run record must be there (compaction keeps only committed entries)."""
    summary = history_summary.is_summary(doc)
    kind = "summary" if summary else "rows"
    rows = doc.get("rows")
    # rows whose entry was validated before in this process: their form is not checked by
    # the schema again (their digest still is, against the decoded entry); a summary's
    # rows, where the whole file's digest was (compaction proved each row, or _trust_digests)
    known = {i for i, r in enumerate(rows) if _known_row(r)} if isinstance(rows, list) else set()
    if summary and isinstance(rows, list) and _known_valid(doc):
        known = set(range(len(rows)))
    found = record_problems({**doc, "rows": [r for i, r in enumerate(rows) if i not in known]} if known else doc,
                            kind)
    if found and known:
        found = record_problems(doc, kind)  # the messages' indices count every row
    if found:
        return found
    found = _place_problems(doc, rel)
    if summary:
        if doc["digest"] != digest_of(doc):
            found.append("$.digest: digest mismatch: the file was changed after it was summarised (hand edit?)")
            return found
        if doc["count"] != sum(1 for r in doc["rows"] if isinstance(r, list)):
            found.append(f"$.count: {doc['count']} is not the number of its rows")
    series = history_rows.Series()
    seen = set()
    for i, row in enumerate(doc["rows"]):
        where = f"$.rows[{i}]"
        if isinstance(row, dict):
            if row["series"] != len(series.by_index) or row["id"] in series.by_id:
                found.append(f"{where}: series {row['series']} ({row['id']!r}) is out of order or said twice")
                continue
            if row["id"] != results.key_id(row["key"]):
                found.append(f"{where}.id: {row['id']!r} does not match its key")
            series.by_id[row["id"]] = series.by_index[row["series"]] = row
            continue
        if row[1] not in series.by_index:
            found.append(f"{where}: series {row[1]} is not declared above it")
            continue
        ident = (row[0], series.by_index[row[1]]["id"])
        if ident in seen:
            found.append(f"{where}: duplicate record {ident!r}")
        seen.add(ident)
        run = runs.get(row[0])
        if run is None:
            if summary:
                found.append(f"{where}: run {row[0]} has no run record in runs/{doc['month']}.json")
            continue
        if summary:
            try:
                e = history_summary.decode(row, series, run)
            except history_rows.RowError as err:
                found.append(f"{where}: {err}")
                continue
            if doc["digest"] not in _VALID_RECORDS:
                found.extend(f"{where}{p[1:]}" for p in record_problems(history_summary.as_entry(e), "entry"))
            if month_of(e["date"]) != doc["month"] or e["os"] != doc["os"] or e["key"]["scenario"] != doc["scenario"]:
                found.append(f"{where}: its run's date, OS or scenario does not match the file")
            continue
        try:
            e = history_rows.decode(row, series, run)
        except history_rows.RowError as err:
            found.append(f"{where}: {err}")
            continue
        if e["digest"] != digest_of(e):
            found.append(f"{where}: digest mismatch: the entry was changed after it was written (hand edit?)")
            continue
        if e["digest"] not in _VALID_RECORDS:
            schema_found = record_problems(e, "entry")
            if schema_found:
                found.extend(f"{where}{p[1:]}" for p in schema_found)
                continue
        if month_of(e["date"]) != doc["month"]:
            found.append(f"{where}: its run's date {e['date']} is not in month {doc['month']}")
        if e["os"] != doc["os"] or e["key"]["scenario"] != doc["scenario"]:
            found.append(f"{where}: os/scenario do not match the file")
    if not found and summary:
        _VALID_RECORDS.add(doc["digest"])
    elif not found:
        _VALID_RECORDS.update(r[3] for r in doc["rows"] if isinstance(r, list) and r[0] in runs)
    return found


_MALFORMED = (KeyError, TypeError, AttributeError, IndexError, ValueError)


def _problems_or_malformed(path: Path, doc, rel: str, runs: dict[str, dict] | None) -> list[str]:
    """file_problems, with a record of a shape the checks did not foresee (a hand edit
    whose digest was recomputed) reported as one problem instead of a traceback."""
    try:
        return file_problems(path, doc, rel, runs)
    except _MALFORMED as err:
        return [f"a record of an unexpected shape ({type(err).__name__}: {err})"]


def _trust_digests(doc) -> None:
    """Take the records of a file whose content still hashes to their digest as valid:
    they were validated when they were written. `add` reads the files it appends to this
    way, checking every digest, the file's form and place, but not every old record
    against the schema again (measured: 2 ms a record, 15 s of a 21 s publish into a
    month of full-size runs); `check` validates every record."""
    if history_summary.is_summary(doc):   # one digest, of the whole file (a wrong one: check says so)
        try:
            if isinstance(doc.get("digest"), str) and digest_of(doc) == doc["digest"]:
                _VALID_RECORDS.add(doc["digest"])
        except (TypeError, ValueError):
            pass
        return
    if not isinstance(doc, dict) or doc.get("kind") not in ("entries", "runs"):
        return
    records = doc.get(list_name(doc))
    for rec in records if isinstance(records, list) else ():
        if isinstance(rec, dict) and isinstance(rec.get("digest"), str):
            try:
                if digest_of(rec) == rec["digest"]:
                    _VALID_RECORDS.add(rec["digest"])
            except (TypeError, ValueError):
                pass
        elif isinstance(rec, list) and len(rec) == 4 and isinstance(rec[3], str):
            _VALID_RECORDS.add(rec[3])   # still compared with the decoded entry's digest


def read_file(path: Path, rel: str, runs: dict[str, dict] | None = None, *, trust_digests: bool = False) -> dict:
    """Read and check one history file (trust_digests: see _trust_digests); any problem
    is one BenchError with the path."""
    doc = read_doc(path)
    if trust_digests:
        _trust_digests(doc)
    found = _problems_or_malformed(path, doc, rel, runs)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise BenchError(f"{path}: not a valid history file: {found[0]}{more}")
    return doc


# --------------------------------------------------------------------------- serialisation

def _header(doc: dict) -> str:
    head = {k: v for k, v in doc.items() if k not in ("entries", "runs", "rows")}
    return canonical(head)[:-1]


def serialise(doc: dict) -> str:
    """One record per line, appended at the end: the file's diff is pure append. A
    summarised month (history-summary/2, /3) as its columns, on one line (it is never
    appended to)."""
    if history_summary.is_summary(doc) and doc.get("schema") in history_summary.COLUMN_SCHEMAS:
        return canonical(history_summary.to_columns(doc)) + "\n"
    name = list_name(doc)
    lines = [canonical(r) for r in doc[name]]
    body = ",\n".join(lines)
    return f'{_header(doc)},"{name}":[\n{body}\n]}}\n' if lines else f'{_header(doc)},"{name}":[\n]}}\n'


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


def _load_or_new(root: Path, rel: str, fresh: dict, runs: dict[str, dict] | None = None) -> tuple[dict, str | None]:
    path = root / rel
    if not path.exists():
        return fresh, None
    doc = read_file(path, rel, runs, trust_digests=True)
    return doc, read_text(path)


def _write_appended(root: Path, rel: str, doc: dict, old_text: str | None,
                    runs: dict[str, dict] | None = None) -> None:
    problems = file_problems(root / rel, doc, rel, runs)
    if problems:  # a bug, never bad input: the records were made here
        raise BenchError(f"{root / rel}: refusing to write an invalid history file: {problems[0]}")
    text = serialise(doc)
    if old_text is not None:
        name = list_name(doc)
        old_doc = strictjson.loads(old_text, str(root / rel))
        if old_text != serialise(old_doc):
            # written by hand or by another tool: keep it verbatim, append by re-serialising
            # would reformat it, so refuse instead of rewriting old records.
            raise BenchError(f"{root / rel}: not in the history's own layout (one record per line); "
                             f"restore it from git, nothing was written")
        keep = old_text[: old_text.rindex("\n]}")]
        if not text.startswith(keep) or len(old_doc[name]) > len(doc[name]):
            raise BenchError(f"{root / rel}: internal error: an append would rewrite old records")
    write_text(root / rel, text)


def _appended(doc: dict, fresh: list[dict], runs: dict[str, dict]) -> dict:
    """The entries file with these entries appended, in the file's own format."""
    if not is_rows(doc):
        return {**doc, "entries": doc["entries"] + fresh}
    series = history_rows.Series(doc["rows"])
    rows = list(doc["rows"])
    for e in fresh:
        rows.extend(history_rows.encode(e, series, runs.get(e["run"])))
    return {**doc, "rows": rows}


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
                erel = _entries_rel(root, f"{e['os']}/{e['key']['scenario']}/{month}.json")
                pending_entries.setdefault(erel, []).append(e)
        # the run records of each month, old and new: a history/2 file is checked and
        # written beside them
        month_runs = {rel.split("/")[1][:7]: {r["run"]: r for r in doc["runs"] + pending_runs.get(rel, [])}
                      for rel, (doc, _) in runs_docs.items()}
        # load every file to be touched first: a corrupt one stops everything before a write
        entry_docs = {}
        for erel, new in pending_entries.items():
            os_, scen, _ = erel.split("/")
            month = new[0]["date"][:7]
            closed = root / summary_rel(erel)
            if closed.exists() and history_summary.is_summary(read_doc(closed)):
                raise BenchError(f"{closed}: month {month} is summarised (older than "
                                 f"{history_summary.KEEP_DAYS} days when it was compacted): a run of then cannot be "
                                 "added; nothing was written")
            entry_docs[erel] = _load_or_new(root, erel, {"schema": history_rows.SCHEMA, "kind": "entries", "os": os_,
                                                          "scenario": scen, "month": month, "rows": []},
                                            month_runs[month])
        for erel, new in sorted(pending_entries.items()):
            doc, old_text = entry_docs[erel]
            have = set(_entry_keys(doc))
            fresh = [e for e in new if (e["run"], e["id"]) not in have]  # completes an interrupted add
            if not fresh:
                continue
            runs = month_runs[new[0]["date"][:7]]
            _write_appended(root, erel, _appended(doc, fresh, runs), old_text, runs)
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


def _entries_rel(root: Path, rel: str) -> str:
    """Where a month's entries are appended: its <YYYY-MM>.json, or its closed file when
    that is all there is (a run of a closed month added late, e.g. re-published: a whole
    month takes it, rewritten compressed; a summarised one refuses it, in add)."""
    return summary_rel(rel) if not (root / rel).exists() and (root / summary_rel(rel)).exists() else rel


# --------------------------------------------------------------------------- closed months

def summary_rel(rel: str) -> str:
    """The closed file of a month's entries file (a/b/2026-01.json -> a/b/2026-01.json.xz)."""
    return rel if is_compressed(rel) else rel[: -len(".json")] + history_summary.SUFFIX


def month_end(month: str) -> datetime:
    """The first moment after a month (UTC)."""
    y, m = int(month[:4]), int(month[5:7])
    return datetime(y + m // 12, m % 12 + 1, 1, tzinfo=timezone.utc)


def closed_months(months, newest_date: str, keep_days: int = history_summary.KEEP_DAYS) -> list[str]:
    """The months (of those given) that ended more than keep_days before newest_date (an
    RFC 3339 date): every entry of the last keep_days days stays whole. A name that is not
    a month (2026-13, 0000-01) is never one to summarise."""
    newest = datetime.fromisoformat(newest_date.replace("Z", "+00:00"))
    return sorted(m for m in set(months) if _REAL_MONTH.match(m) and (newest - month_end(m)).days >= keep_days)


_REAL_MONTH = re.compile(r"^(19[7-9][0-9]|2[0-9]{3})-(0[1-9]|1[0-2])$")


@dataclass
class CompactReport:
    files: int = 0
    entries: int = 0
    left_out: int = 0        # entries of runs without a run record (never part of the history)
    bytes_before: int = 0
    bytes_after: int = 0
    months: list[str] = field(default_factory=list)
    closed_files: int = 0    # closed months' files kept whole, compressed
    closed_before: int = 0
    closed_after: int = 0
    closed_months: list[str] = field(default_factory=list)
    upgraded: int = 0        # summarised months of an older version (history-summary/1, /2) rewritten as /3
    upgraded_before: int = 0
    upgraded_after: int = 0
    not_upgraded: list[str] = field(default_factory=list)   # why each one left as it was was


def newest_run_date(root: Path, runs: dict[str, dict[str, dict]] | None = None) -> str | None:
    """The date of the newest run record (runs: _run_records(root), when read already)."""
    runs = _run_records(Path(root)) if runs is None else runs
    dates = [r["date"] for month in runs.values() for r in month.values()]
    return max(dates) if dates else None


def compact(root, keep_days: int = history_summary.KEEP_DAYS, newest: str | None = None,
            max_upgrades: int | None = None) -> CompactReport:
    """Rewrite the entries file of every month that ended more than keep_days before the
    newest run (or `newest`) as a summarised month (history_summary). Each file is read
    and checked first; each of its rows is decoded from the new file, beside its run
    record, and compared with the entry as written less what a summary leaves out; only
    then is the summarised file written (atomically) and the full one removed. A crash
    between the two leaves both, the full one read; compacting again completes it.
    A month that has ended but is not yet due is kept whole, compressed (_compress_closed).
    A summary of an older version (history-summary/1: rows; /2: whole verdicts) is
    rewritten as /3 (_upgrade_summary; at most max_upgrades, the oldest first; one that
    does not check is left, and said).
    Idempotent. Raises BenchError for a file that does not check, before touching it."""
    root = Path(root)
    report = CompactReport()
    with file_lock(root):
        runs = _run_records(root)
        newest = newest or newest_run_date(root, runs)
        if newest is None:
            return report
        candidates = [(p, rel) for p, rel in history_files(root)
                      if not rel.startswith(f"{RUNS_DIR}/") and _MONTH_FILE.match(p.name)]
        due = set(closed_months({p.name[:7] for p, _ in candidates}, newest, keep_days))
        ended = set(closed_months({p.name[:7] for p, _ in candidates}, newest, 0)) - due
        there = {p for p, _ in candidates}
        work, legacy = [], []
        for p, rel in candidates:
            # not an interrupted compaction's copy (its plain file is done), nor a closed
            # month compressed whole and not yet due, nor one summarised already
            if p.name[:7] not in due | ended or (is_compressed(p) and p.with_name(f"{p.name[:7]}.json") in there):
                continue
            kind = _peek_kind(p) if is_compressed(p) else "entries"
            if kind == history_summary.LEGACY:
                legacy.append((p, rel))
            elif not (is_compressed(p) and (p.name[:7] in ended or kind == history_summary.KIND)):
                work.append((p, rel))
        for m in sorted({p.name[:7] for p, _ in work}):   # each month's run records once, not once a file
            _refuse_unchecked_runs(root, m)
        # summaries of an older version, the oldest months first, at most max_upgrades of them
        # (publish: a long history is rewritten over a few nights, each within its job's time)
        for path, rel in sorted(legacy, key=lambda pr: (pr[0].name, pr[1]))[:max_upgrades]:
            month = runs.get(path.name[:7], {})
            try:
                _upgrade_summary(path, rel, read_file(path, rel, month, trust_digests=True), month, report)
            except BenchError as err:   # left as it is, read as it is; check says why
                report.not_upgraded.append(str(err))
        for path, rel in work:
            name = path.name[:7]
            month = runs.get(name, {})
            doc = read_file(path, rel, month, trust_digests=True)
            if doc["kind"] != "entries":
                continue
            if name in ended:
                if is_rows(doc):
                    _compress_closed(root, path, rel, doc, read_text(path), month, report)
                elif all(e["run"] in month for e in doc["entries"]):   # else: an interrupted add's, left as is
                    new = _as_history_2(path, doc, rel, month)   # history/1: as history/2, proven as migrate does
                    _compress_closed(root, path, rel, new, serialise(new), month, report)
                continue
            entries = file_entries(doc, month) if is_rows(doc) else [e for e in doc["entries"] if e["run"] in month]
            total = len(_entry_keys(doc))
            summary = _summarised(doc, entries, month)
            text = serialise(summary)
            out = root / summary_rel(rel)
            if out != path and out.exists():
                existing = read_doc(out)
                if history_summary.is_summary(existing):
                    if _row_set(existing) != _row_set(summary):
                        raise BenchError(f"{out}: a summarised file of this month is there and differs from what "
                                         f"{path.name} summarises to; nothing was written (check both with git)")
                else:
                    _refuse_stale_plain(out, path, read_text(path))
            # each row was just proven to be an entry that checked, less what a summary drops:
            # its form and place are checked here, its rows not validated one by one again
            _VALID_RECORDS.add(summary["digest"])
            found = file_problems(out, summary, summary_rel(rel), month)
            if found:
                raise BenchError(f"{path}: internal error: its summary does not check: {found[0]}; nothing was written")
            data = history_summary.compress(text)
            size_before = path.stat().st_size
            atomic_write_bytes(out, data)
            report.files += 1
            report.entries += len(entries)
            report.left_out += total - len(entries)
            report.bytes_before += size_before
            report.bytes_after += len(data)
            report.months = sorted({*report.months, name})
            if out != path:
                path.unlink()
    return report


def _row_set(summary: dict) -> list[str]:
    """A summary's rows as sorted canonical JSON: two summaries hold the same rows, in
    whatever order, when these are equal."""
    return sorted(canonical(r) for r in summary["rows"])


def _upgrade_summary(path: Path, rel: str, doc: dict, runs: dict[str, dict], report: CompactReport) -> None:
    """A summarised month of an older version (history-summary/1: rows; /2: columns with
    whole verdicts) rewritten as /3, proven first to hold the same series and each row as
    row_of makes it (the verdicts' intervals, p-values and resolutions are what goes),
    and to read back and check."""
    want = {**doc, "schema": history_summary.SCHEMA, "rows": history_summary.summarised_rows(doc["rows"], runs)}
    new = history_summary.to_rows(history_summary.to_columns(want, runs))
    new["digest"] = digest_of(new)
    text = serialise(new)
    if _row_set(new) != _row_set(want) or {k: v for k, v in new.items() if k not in ("rows", "schema", "digest")} != \
            {k: v for k, v in doc.items() if k not in ("rows", "schema", "digest")} or \
            as_rows(strictjson.loads(text, str(path)), path) != new:
        raise BenchError(f"{path}: internal error: its columns do not hold its rows; nothing was written")
    _VALID_RECORDS.add(new["digest"])   # the rows of a file that checked (read_file), each the same
    found = file_problems(path, new, rel, runs)
    if found:
        raise BenchError(f"{path}: internal error: its columns do not check: {found[0]}; nothing was written")
    data = history_summary.compress(text)
    report.upgraded += 1
    report.upgraded_before += path.stat().st_size
    report.upgraded_after += len(data)
    atomic_write_bytes(path, data)


def _peek_kind(path: Path) -> str | None:
    try:
        with path.open("rb") as f:
            return history_summary.peek_kind(f.read(history_summary.PEEK_BYTES))
    except OSError:
        return None


def _known_kind(path: Path, known: dict, seen: dict) -> tuple[str | None, bytes | None]:
    """A closed month's kind (as _peek_kind) and its file's SHA-256, the kind taken from
    `known` (kinds_cache) by that digest where it is there; recorded in `seen`. No digest
    for a file that cannot be read whole."""
    try:
        data = read_compressed(path)
    except BenchError:   # (too large, unreadable: peeked at as without the cache, and read where it is used)
        return _peek_kind(path), None
    digest = hashlib.sha256(data).digest()
    kind = known[digest] if digest in known else history_summary.peek_kind(data[:history_summary.PEEK_BYTES])
    seen[digest] = kind
    return kind, digest


def _kept_prefix(path: Path, record: dict) -> tuple[bytes, list] | None:
    """An open month's file's bytes and the rows after those a kept record was read from
    (entries_cache), parsed; None where the file does not start with them, or what
    follows is not rows appended in the history's own layout (then it is read whole)."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    n = record["size"]
    if len(data) < n or hashlib.sha256(memoryview(data)[:n]).digest() != record["sha"]:
        return None
    rest = data[n:]
    if rest == b"\n]}\n":
        return data, []
    if len(rest) <= 6 or not (rest.startswith(b",\n") and rest.endswith(b"\n]}\n")):
        return None   # (",\n]}\n": a row taken away by hand, its comma left: not JSON)
    try:
        body = rest[2:-4].decode("utf-8")
        rows = strictjson.loads(f"[{body}]", str(path))
    except (UnicodeDecodeError, BenchError):
        return None
    # one record per line, each canonical: then they are exactly the rows the whole file's parse adds
    return (data, rows) if rows and ",\n".join(map(canonical, rows)) == body else None


def _kept_entries(record: dict, data: bytes, rows: list, month: dict[str, dict]) -> tuple[list, dict] | None:
    """The entries of an open month's file from its kept record and the rows after it
    (_kept_prefix), and the record to keep now; None where the run records its rows were
    decoded beside have changed, or a row after it declares a series again (a hand edit:
    then the file is read whole, which decodes every row as it says)."""
    if _runs_sha(record["runs"], month) != record["runs_sha"]:
        return None
    if not rows:
        return record["entries"], record   # (the same record: nothing to write)
    table = record["table"]
    new = [r for r in rows if isinstance(r, dict)]
    if new:
        old = history_rows.Series(table)
        if any(r["series"] in old.by_index or r["id"] in old.by_id for r in new):
            return None
        table = table + new
    series = history_rows.Series(table)
    found = record["entries"] + [history_rows.decode(r, series, month[r[0]]) for r in rows
                                 if isinstance(r, list) and r[0] in month]
    named = list(dict.fromkeys([*record["runs"], *(r[0] for r in rows if isinstance(r, list))]))
    size = data.rindex(b"\n]}")
    return found, {"size": size, "sha": hashlib.sha256(memoryview(data)[:size]).digest(), "header": record["header"],
                   "table": table, "runs": named,
                   "runs_sha": record["runs_sha"] if named == record["runs"] else _runs_sha(named, month),
                   "entries": found}


def _record(path: Path, doc, month: dict[str, dict], found: list[dict]) -> dict | None:
    """What entries_cache keeps of an open month's file read whole (found: its entries,
    file_entries(doc, month)), where it is rows in the history's own layout (serialise
    writes it byte for byte); None otherwise."""
    if not is_rows(doc) or not isinstance(doc.get("rows"), list) or not doc["rows"] or list(doc)[-1] != "rows":
        return None
    try:
        data = path.read_bytes()
        if data != serialise(doc).encode("utf-8"):
            return None
    except (OSError, *_MALFORMED):
        return None
    size = data.rindex(b"\n]}")
    rows = doc["rows"]
    named = list(dict.fromkeys(r[0] for r in rows if isinstance(r, list)))
    return {"size": size, "sha": hashlib.sha256(memoryview(data)[:size]).digest(),
            "header": {k: v for k, v in doc.items() if k != "rows"}, "table": [r for r in rows if isinstance(r, dict)],
            "runs": named, "runs_sha": _runs_sha(named, month), "entries": found}


def _runs_sha(named: list[str], month: dict[str, dict]) -> bytes:
    """The SHA-256 of these runs' records (None for a run without one: its rows are left out)."""
    return hashlib.sha256(canonical([month.get(r) for r in named]).encode("utf-8", "surrogatepass")).digest()


def _records_text(text: str) -> str:
    """A history file's text up to its closing bracket: what an append keeps byte for byte."""
    return text[: text.rindex("\n]}")] if "\n]}" in text else text


def _refuse_stale_plain(out: Path, plain: Path, text: str) -> None:
    """A plain month file may replace its compressed whole copy only when it holds every
    record of the copy (an interrupted compaction: the copy was made from it, and a late
    run was appended to it since); a plain file restored from an older commit beside a
    copy that took a late run would otherwise lose that run."""
    if out.exists() and _peek_kind(out) not in (history_summary.KIND, history_summary.LEGACY) and \
            not text.startswith(_records_text(read_text(out))):
        raise BenchError(f"{out}: this compressed month holds records that {plain.name} beside it lacks; nothing was "
                         "written (keep the one that holds every run: check both with git)")


def _compress_closed(root: Path, path: Path, rel: str, doc: dict, text: str, runs: dict[str, dict],
                     report: CompactReport) -> None:
    """A closed month kept whole: `text`, its history/2 document `doc` as written (the
    file's very text, or a history/1 file's as migrate writes it), xz-compressed as
    <YYYY-MM>.json.xz, read back and checked before the plain file is removed (a crash
    between leaves both, the plain one read). Nothing is dropped: every statistic and
    digest stays, and a late run of the month is still appended (add)."""
    out = root / summary_rel(rel)
    if out.exists() and history_summary.is_summary(read_doc(out)):
        raise BenchError(f"{out}: month {doc['month']} is summarised already beside {path.name}; nothing was "
                         "written (check both with git)")
    _refuse_stale_plain(out, path, text)
    data = history_summary.compress(text)
    back = strictjson.loads(history_summary.decompress(data, str(out), MAX_FILE_BYTES), str(out))
    found = file_problems(out, back, summary_rel(rel), runs) if back == doc else ["it does not read back"]
    if found:
        raise BenchError(f"{path}: internal error: its compressed copy does not check: {found[0]}; nothing was written")
    atomic_write_bytes(out, data)
    report.closed_files += 1
    report.closed_before += len(text.encode("utf-8"))
    report.closed_after += len(data)
    report.closed_months = sorted({*report.closed_months, doc["month"]})
    path.unlink()


def _refuse_unchecked_runs(root: Path, month: str) -> None:
    """A month is summarised only beside run records that all check: an entry of a run
    whose record does not would be left out of the summary, and so lost."""
    rel = f"{RUNS_DIR}/{month}.json"
    if not (root / rel).exists():
        return
    found = _problems_or_malformed(root / rel, read_doc(root / rel), rel, None)
    if found:
        raise BenchError(f"{root / rel}: {found[0]}; month {month} is not summarised until `bench history check` "
                         "passes")


def _summarised(doc: dict, entries: list[dict], runs: dict[str, dict]) -> dict:
    """The summarised month of these entries, proven to decode to each entry's projection."""
    series = history_rows.Series()
    rows = [row for e in entries for row in history_rows.encode(e, series, runs[e["run"]])]
    rows = history_summary.summarised_rows(rows, runs)
    out = {"schema": history_summary.SCHEMA, "kind": history_summary.KIND, "os": doc["os"],
           "scenario": doc["scenario"], "month": doc["month"], "count": len(entries), "rows": rows}
    out = history_summary.to_rows(history_summary.to_columns(out, runs))   # the rows in their file's order
    out["digest"] = digest_of(out)
    back = file_entries(out, runs)
    if sorted(canonical(e) for e in back) != sorted(canonical(e) for e in history_summary.projections(entries)):
        raise BenchError(f"{doc['os']}/{doc['scenario']}/{doc['month']}: internal error: its summary does not "
                         "read back as the entries less their dropped statistics; nothing was written")
    return out


# --------------------------------------------------------------------------- reading

def history_files(root: Path) -> list[tuple[Path, str]]:
    root = Path(root)
    out = []
    for path in sorted([*root.rglob("*.json"), *root.rglob(f"*{history_summary.SUFFIX}")]):
        rel = path.relative_to(root).as_posix()
        if any(part.startswith(".") for part in Path(rel).parts):
            continue
        out.append((path, rel))
    return out


def _run_records(root: Path) -> dict[str, dict[str, dict]]:
    """month -> run id -> run record, from every runs file that reads (check reports the rest)."""
    out: dict[str, dict[str, dict]] = {}
    for path, rel in history_files(root):
        if not rel.startswith(f"{RUNS_DIR}/"):
            continue
        try:
            doc = strictjson.read(path, max_bytes=MAX_FILE_BYTES)
        except BenchError:
            continue
        if isinstance(doc, dict) and doc.get("kind") == "runs" and isinstance(doc.get("runs"), list):
            # only run records that check: a history/2 entry is decoded beside its run record
            out.setdefault(str(doc.get("month")), {}).update(
                (r["run"], r) for r in doc["runs"] if isinstance(r, dict) and isinstance(r.get("run"), str)
                and (_known_valid(r) or (r.get("digest") == _digest_or_none(r) and not record_problems(r, "run"))))
    return out


def _digest_or_none(rec: dict) -> str | None:
    try:
        return digest_of(rec)
    except _MALFORMED:
        return None


def check(root) -> list[str]:
    """Every problem of every file, as 'path: problem' lines (empty: the history is valid).
    A history/2 entry is decoded beside its run record and its digest checked: the entry
    read is the entry that was written."""
    root = Path(root)
    if not root.is_dir():
        return [f"{root}: no such history directory"]
    problems = []
    runs = _run_records(root)
    for path, rel in history_files(root):
        if not _MONTH_FILE.match(path.name):
            problems.append(f"{path}: not a history file name (expected <YYYY-MM>.json)")
            continue
        try:
            doc = read_doc(path)
        except BenchError as err:
            problems.append(str(err))
            continue
        found = _problems_or_malformed(path, doc, rel, runs.get(path.name[:7], {}))
        problems.extend(f"{path}: {p}" for p in found)
    for plain in _interrupted_compactions(history_files(root)):
        try:
            _refuse_stale_plain(plain.with_name(plain.stem + history_summary.SUFFIX), plain, read_text(plain))
        except BenchError as err:   # the plain file is read, and would lose the copy's late runs
            problems.append(str(err).replace("; nothing was written", ""))
    return problems


def uncommitted(root) -> list[str]:
    """Warnings: entries whose run has no run record (an interrupted `add`). Readers
    ignore them (the history is as it was before that add); adding the same results
    again completes the run."""
    runs, entry_runs = set(), {}
    files = history_files(root)
    halfway = [f"{path}: a compacted copy of this month (summarised or compressed) is there too (an interrupted "
               "`bench history compact`: this file is read; compacting again completes it)"
               for path in _interrupted_compactions(files)]
    for path, rel in files:
        try:
            doc = read_doc(path)
        except BenchError:
            continue
        if not isinstance(doc, dict):
            continue
        if doc.get("kind") == "runs":
            runs.update(r.get("run") for r in doc.get("runs", []) if isinstance(r, dict))
        elif doc.get("kind") in ("entries", "summary"):
            rowish = has_rows(doc)   # series rows are objects, entries lists
            for e in doc.get("rows" if rowish else "entries", []):
                run = (e[0] if isinstance(e, list) and e else None) if rowish else \
                    (e.get("run") if isinstance(e, dict) else None)
                if run is not None:
                    entry_runs.setdefault(run, str(path))
    return halfway + [f"{path}: entries of run {run} have no run record yet (an interrupted add; they are "
                      "ignored until `bench history add` is run again with that run's results)"
                      for run, path in sorted(entry_runs.items(), key=lambda kv: str(kv[0])) if run not in runs]


def _interrupted_compactions(files: list[tuple[Path, str]]) -> list[Path]:
    """Of history_files' list, the plain month files whose compacted copy (summarised, or
    compressed whole) was written and which were not yet removed."""
    there = {p for p, _ in files}
    return [p for p, _ in files if p.suffix == ".json" and p.with_name(p.stem + history_summary.SUFFIX) in there]


@dataclass
class SummarisedMonth:
    """A closed month's file as load(summaries="rows") leaves it: not read yet. A
    summarised month, or one kept whole (`whole`: its entries compressed, read as the
    summarised month compaction would make of it, its series' newest points whole). Its
    rows go straight into the trend model's columns (trends.build, several months at
    once in parallel processes: ten years of them are most of a render's time)."""
    path: Path
    month: str
    runs: dict[str, dict]        # its month's run records (decode reads a row beside its own)
    doc: dict | None = None      # the parsed file, where load had to read it to know its kind
    count: int | None = None     # its committed rows, once read
    cache: Path | None = None    # the site's cache of columns (columns_cache), if any
    whole: bool = False          # kept whole (kind "entries"), not summarised
    # the SHA-256 of its file's bytes, where load took it (series_cache.month_keys; not part of what it is)
    digest: bytes | None = field(default=None, compare=False)

    def rows(self) -> tuple[history_rows.Series, list[list]]:
        """Its series table and its committed rows by date, checked as load checks them
        (decode can read each); one BenchError for a file that is not that."""
        try:
            doc = self.doc if self.doc is not None else read_doc(self.path)
        except BenchError as err:
            raise BenchError(f"{err}; run `bench history check`") from None
        try:
            if self.whole:
                doc = history_summary.to_rows(self._summary_of_whole(doc))
            if not history_summary.is_summary(doc) or doc["month"] != self.month:
                raise ValueError("not this month's summary")
            series = history_rows.Series(doc["rows"])
            rows = [r for r in doc["rows"] if isinstance(r, list) and r[0] in self.runs]
            for r in rows:   # what decode would refuse, refused here (trends.build reads them)
                history_summary.check(r, series)
            rows.sort(key=_row_order(self.runs, series))
        except (*_MALFORMED, history_rows.RowError):
            raise BenchError(f"{self.path}: not a valid history file; run `bench history check`") from None
        self.count = len(rows)
        return series, rows

    def columns(self) -> tuple[dict, str | None]:
        """Its file as columns (history-summary/2, /3; a /1 file's rows made columns), checked
        as far as the site reads them (history_summary.check_columns): the form the site
        reads ten years of, without making a row of each point; and its key in the cache
        (None: not cached; a /1 file's columns depend on the run records, and are not).
        One BenchError for a file that is not that.

        With a cache, the columns checked before for the same bytes are taken from it
        (if they say this month: the key is of the content, not the name); otherwise
        they are read and checked, and kept there."""
        what = f"{self.path}: not a valid history file"
        k = None
        try:
            if self.doc is not None:
                doc = self.doc
            elif self.cache is not None and is_compressed(self.path):
                data = read_compressed(self.path)
                # (a whole month's columns depend on its run records too: their order, its
                # series' newest dates)
                k = columns_cache.key(data, self.runs if self.whole else None)
                doc = columns_cache.get(self.cache, k)
                if doc is not None and doc.get("month") == self.month and ("whole" in doc) == self.whole:
                    return doc, k   # (the key is of the bytes, not the name)
                doc = strictjson.loads(text_of(self.path, data), str(self.path))
            else:
                doc = strictjson.loads(read_text(self.path), str(self.path))
        except BenchError as err:
            raise BenchError(f"{err}; run `bench history check`") from None
        if not (self.whole or history_summary.is_columns(doc)):   # rows made columns with the run records: not kept
            k = None
        doc = self._checked_columns(doc, what)
        if k is not None:
            columns_cache.put(self.cache, k, doc)
        return doc, k

    def _checked_columns(self, doc, what: str) -> dict:
        try:
            if self.whole:
                doc = self._summary_of_whole(doc)
            elif not history_summary.is_summary(doc) or doc["month"] != self.month:
                raise ValueError("not this month's summary")
            elif not history_summary.is_columns(doc):   # rows (/1, or read by load already)
                series = history_rows.Series(doc["rows"])
                for r in doc["rows"]:
                    if isinstance(r, list):
                        history_summary.check(r, series)
                doc = history_summary.to_columns(doc, self.runs)
            history_summary.check_columns(doc)
        except history_summary.ColumnError as err:
            raise BenchError(f"{what}: {err}; run `bench history check`") from None
        except (*_MALFORMED, history_rows.RowError):
            raise BenchError(f"{what}; run `bench history check`") from None
        return doc

    def _summary_of_whole(self, doc) -> dict:
        """A month kept whole (history/2 rows; entry objects, in a hand-made file) as the
        columns of the summarised month compaction would make of it (history_summary: what
        the site reads of each point is the same), its series numbered in order, and
        `whole`: the whole rows of each series' newest date (Series.last and the newest
        verdict are whole entries). Its committed rows only. Raises what a file that is
        not that trips (_MALFORMED, history_rows.RowError)."""
        if doc["kind"] != "entries" or doc["month"] != self.month:
            raise ValueError("not this month's entries")
        if has_rows(doc):
            table = history_rows.Series(doc["rows"])
            rows = [r for r in doc["rows"] if isinstance(r, list) and r[0] in self.runs]
            for r in rows:   # (what decode refuses, refused here)
                history_rows.check(r, table)
                if len(r) != 4:
                    raise history_rows.RowError("an entry row is [run, series, fields, digest]")
        else:
            table, rows = history_rows.Series(), []
            for e in doc["entries"]:
                if e["run"] in self.runs:
                    rows += history_rows.encode(e, table, self.runs[e["run"]])
            rows = [r for r in rows if isinstance(r, list)]
        number = {i: n for n, i in enumerate(sorted(table.by_index))}
        head = [{**table.by_index[i], "series": number[i]} for i in sorted(table.by_index)]
        rows = [[r[0], number[r[1]], *r[2:]] for r in rows]
        summary = {"schema": history_summary.SCHEMA, "kind": history_summary.KIND, "os": doc.get("os"),
                   "scenario": doc.get("scenario"), "month": self.month, "count": len(rows),
                   "rows": history_summary.summarised_rows([*head, *rows], self.runs)}
        out = history_summary.to_columns(summary, self.runs)
        out["whole"] = list(itertools.compress(rows, history_summary.newest_of_series(rows, self.runs)))
        return out


@dataclass
class History:
    runs: dict[str, dict]         # run id -> run record
    entries: list[dict]           # committed entries (their run has a record), by date
    # load(summaries="rows"): the summarised months, oldest first, not made into entries
    summarised: list[SummarisedMonth] = field(default_factory=list)

    @property
    def count(self) -> int:
        """Entries, summarised rows included (a month not read yet is read to count them)."""
        return len(self.entries) + sum(m.count if m.count is not None else len(m.rows()[1]) for m in self.summarised)


def _row_order(runs: dict[str, dict], series: history_rows.Series):
    """A summarised row's place in load's order (date, run, id), from its run record."""
    def key(row):
        p = row[2]
        return (p["date"] if "date" in p else runs[row[0]]["date"], row[0], series.by_index[row[1]]["id"])
    return key


def load(root, summaries: str = "entries", cache: Path | None = None) -> History:
    """Everything in the history, read and checked (fast checks only: structure of
    the files, digests; `check` runs the full schema validation).

    summaries="rows": a closed month's file, summarised or kept whole, is left unread
    (History.summarised: a SummarisedMonth, which trends.build reads, in parallel, into a
    few columns of its rows: ten years are 1.2 million rows an OS, most of the site's time
    when each was made into an entry), where the start of its file is one written here;
    its rows are checked when read. Only the open months' entries are in History.entries
    then.

    cache (with summaries="rows"): a folder (the site's) where what reading the files
    found is kept, and taken from where the files are the same: the closed months' kinds
    by their files' digests (kinds_cache: only a file not seen before is peeked at), and
    the open months' entries (entries_cache: only the rows appended since are parsed)."""
    with gcpause.paused():
        return _load(Path(root), summaries, cache if summaries == "rows" else None)


def _load(root: Path, summaries: str, cache: Path | None = None) -> History:
    if not root.is_dir():
        raise BenchError(f"{root}: no such history directory")
    runs: dict[str, dict] = {}
    by_month: dict[str, dict[str, dict]] = {}
    docs, deferred = [], []
    files = history_files(root)
    halfway = {p.with_name(p.stem + history_summary.SUFFIX) for p in _interrupted_compactions(files)}
    kinds_path = cache / kinds_cache.NAME if cache is not None else None
    entries_path = cache / entries_cache.NAME if cache is not None else None
    known, kept = kinds_cache.read(kinds_path), entries_cache.read(entries_path)
    seen: dict[bytes, str | None] = {}
    opened: dict[Path, tuple[bytes, list]] = {}   # an open month's file that starts with a kept record's bytes
    for path, rel in files:
        if path in halfway:
            continue   # its full month file is still there, and read
        kind = digest = None
        if summaries == "rows" and is_compressed(path):
            if kinds_path is None:
                kind = _peek_kind(path)
            else:   # (a file that cannot be read is read below, which says why)
                kind, digest = _known_kind(path, known, seen)
        if kind in (history_summary.KIND, history_summary.LEGACY, "entries"):
            # read later, where its rows are wanted (trends.build), a month kept whole as
            # columns too (closed: its file never changes, and the site caches them); a
            # file whose start is not one written here is read now, as every other
            deferred.append((path, path.name[:-len(history_summary.SUFFIX)], kind == "entries", digest))
            continue
        if rel in kept and (got := _kept_prefix(path, kept[rel])) is not None:
            opened[path] = got   # only the rows after its kept bytes parsed (entries_cache)
            docs.append((path, kept[rel]["header"]))
            continue
        try:
            doc = read_doc(path)
        except BenchError as err:
            raise BenchError(f"{err}; run `bench history check`") from None
        kind = doc.get("kind") if isinstance(doc, dict) else None
        try:
            if kind == "runs":
                for r in doc.get("runs", []):
                    runs[r["run"]] = by_month.setdefault(doc["month"], {})[r["run"]] = r
            elif kind in ("entries", "summary"):
                docs.append((path, doc))
            else:
                raise BenchError(f"{path}: not a history file; run `bench history check`")
        except _MALFORMED:
            raise BenchError(f"{path}: not a valid history file; run `bench history check`") from None
    if kinds_path is not None and seen != known:
        kinds_cache.write(kinds_path, seen)   # (the files read now: those compaction replaced go)
    entries = []
    summarised = [SummarisedMonth(path, month, by_month.get(month, {}), whole=whole, digest=digest)
                  for path, month, whole, digest in deferred]
    records: dict[str, dict] = {}   # the open months' records to keep (entries_cache)
    rels = {path: rel for path, rel in files}
    for path, doc in docs:
        try:
            # a history/2 row is decoded beside the run records of its own month, as check does
            month = runs if doc["kind"] == "entries" and not is_rows(doc) else by_month.get(doc["month"], {})
            if summaries == "rows" and history_summary.is_summary(doc):
                summarised.append(SummarisedMonth(path, doc["month"], month, doc=doc))
                continue
            got = _kept_entries(kept[rels[path]], *opened[path], month) if path in opened else None
            if got is None:
                if path in opened:   # its run records changed since: read whole
                    doc = read_doc(path)
                found = file_entries(doc, month)
                got = found, (_record(path, doc, month, found) if entries_path is not None else None)
            found, record = got
            if record is not None:
                records[rels[path]] = record
            entries.extend(e for e in found if e["run"] in runs)
        except BenchError as err:
            raise BenchError(f"{err}; run `bench history check`") from None
        except (*_MALFORMED, history_rows.RowError):
            raise BenchError(f"{path}: not a valid history file; run `bench history check`") from None
    if entries_path is not None and (records.keys() != kept.keys() or any(records[r] is not kept[r] for r in records)):
        entries_cache.write(entries_path, records)   # (only where a file grew, changed or went)
    try:
        summarised.sort(key=lambda m: m.month)   # (a series is one OS and scenario: one file a month)
        entries.sort(key=lambda e: (e["date"], e["run"], e["id"]))
    except TypeError:   # a hand-edited id or date of another type
        raise BenchError(f"{root}: a history entry of an unexpected shape; run `bench history check`") from None
    return History(runs, entries, summarised)


@dataclass
class MigrateReport:
    files: int = 0
    entries: int = 0
    bytes_before: int = 0
    bytes_after: int = 0


def migrate(root) -> MigrateReport:
    """Rewrite every history/1 entries file as history/2. Each file is checked first, and
    its new form is decoded and compared with the old entries, field for field, before
    it replaces the old one; a file with entries of a run without a run record (an
    interrupted add) is left as it is. Idempotent; refuses a history that does not check."""
    root = Path(root)
    problems = check(root)
    if problems:
        raise BenchError(f"{problems[0]} (and {len(problems) - 1} more problem(s)); nothing was migrated"
                         if len(problems) > 1 else f"{problems[0]}; nothing was migrated")
    report = MigrateReport()
    with file_lock(root):
        runs = _run_records(root)
        for path, rel in history_files(root):
            if is_compressed(path):
                continue   # a closed month: history/2, or summarised
            doc = strictjson.read(path, max_bytes=MAX_FILE_BYTES)
            if doc.get("kind") != "entries" or is_rows(doc):
                continue
            month = runs.get(doc["month"], {})
            if any(e["run"] not in month for e in doc["entries"]):
                continue
            new = _as_history_2(path, doc, rel, month)
            text = serialise(new)
            report.files += 1
            report.entries += len(doc["entries"])
            report.bytes_before += path.stat().st_size
            report.bytes_after += len(text.encode("utf-8"))
            atomic_write_text(path, text)
    return report


def _as_history_2(path: Path, doc: dict, rel: str, runs: dict[str, dict]) -> dict:
    """A history/1 entries file's history/2 form (every entry's run in `runs`), proven to
    read back entry for entry and to check."""
    new = _appended({**{k: v for k, v in doc.items() if k != "entries"}, "schema": history_rows.SCHEMA,
                     "rows": []}, doc["entries"], runs)
    if [canonical(e) for e in file_entries(new, runs)] != [canonical(e) for e in doc["entries"]]:
        raise BenchError(f"{path}: internal error: its history/2 form does not read back as it was; "
                         "nothing was written to it")
    problems = file_problems(path, new, rel, runs)
    if problems:
        raise BenchError(f"{path}: internal error: its history/2 form does not check: {problems[0]}")
    return new


# --------------------------------------------------------------------------- what entries are shown by

def primary_time(entry: dict) -> dict:
    """The time an entry is shown and analysed by (metrics.HEADLINE): the program's own
    timed window, or the whole-process wall time for entries written before windows were kept."""
    return metrics.HEADLINE.summary_of(entry)
