"""The site folder's cache of every summarised month read as series (`.cache/series*.marshal`).

A summarised month never changes once written (until compaction rewrites it), and the
months summarised change once a month; yet every render turned ten years of them into
series again: at ten years 1,053 files and 1.2 million points an OS, most of a night's
load even with their columns cached (columns_cache). So the series the summarised months
make (trends._add_summarised: each series' stretch, its newest summarised point as an
entry, each month's point count) are kept, beside a key of each month they were made from
(its name, the SHA-256 of its file's bytes and of its month's run records), in order. A
render whose months are those reads them. Where only the newest months differ (the two
nights a month that summarise a month or close one: the last three or four of ten
years'), the series are cut back to the months before the first that differs (each
series' point count at each month it has points in is kept for that, and the month that
holds its newest point so far) and only the months from there on are read: at ten years
those nights rebuilt every series from the columns cache, 20 s.

Kept in chunks of CHUNK_MONTHS calendar months (`series.marshal`, then `series-1.marshal`,
...), each the series' stretch in its months, so that those two nights write again only
the chunks from the first month that changed on (one or two years of ten), not all of
it: writing ten years' 400 MiB took about 2 s of each of those nights. Each chunk says
the digest of the months' keys before it (`prev`); the last, each series' newest point.
A render joins the chunks whose chain holds, in order (get: one doc, as a single file
was).

Derived data only, in columns_cache's frame (the first line says the format, Python's
version and a digest of the code that makes the series; then the payload's CRC-32):
anything else (a torn write, other code, a first month that differs, a chunk whose
`prev` is not the months before it) is a miss from there on, and the months are read as
before, then kept anew. Trusted as far as the site folder it is in."""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from benchpipe import columns_cache

NAME = "series.marshal"
MAX_BYTES = 2 * 2**30   # ten years of one OS's series are ~100 MiB
CHUNK_MONTHS = 12       # calendar months a chunk (a year: ~40 MiB at three OSes)
MAX_CHUNKS = 1000       # (a bound on the files read: ten years are ten)
# what turns a summarised month into series (trends._add_summarised and what it calls)
_CODE = (*columns_cache._CODE, "series_cache.py", "trends.py", "stat_columns.py", "metrics.py",
         "results.py")


@functools.cache
def _start() -> bytes:
    return f"{columns_cache.frame_line('bench-series/3', _CODE)}\n".encode()


def month_keys(months) -> list[bytes] | None:
    """The key of each of these summarised months (history.SummarisedMonth, in the order
    they are read): the SHA-256 of its month's name, its file's digest and its run
    records'. None where a file cannot be read (the months are read as before, which
    says why)."""
    keys = []
    runs: dict[int, bytes] = {}   # the months of one calendar month share their run records
    for m in months:
        digest = m.digest   # (taken where load read the file for its kind: kinds_cache)
        if digest is None:
            try:
                digest = hashlib.sha256(m.path.read_bytes()).digest()
            except OSError:
                return None
        if id(m.runs) not in runs:
            runs[id(m.runs)] = columns_cache.runs_digest(m.runs)
        name = m.month.encode("utf-8", "surrogatepass")
        keys.append(hashlib.sha256(len(name).to_bytes(8, "little") + name + digest + runs[id(m.runs)]).digest())
    return keys


def kept_months(doc: dict, keys: list[bytes]) -> int:
    """How many of these months, from the first, the kept series were made of (0: none
    can be reused)."""
    old = doc.get("months")
    if type(old) is not list:
        return 0
    return next((i for i, (a, b) in enumerate(zip(old, keys)) if a != b), min(len(old), len(keys)))


def chunks(names: list[str]) -> list[int]:
    """Where each chunk of these months (their names, "YYYY-MM", in order) starts: at
    each month of another CHUNK_MONTHS-month stretch than the one before's."""
    def stretch(name: str):
        try:
            return (int(name[:4]) * 12 + int(name[5:7]) - 1) // CHUNK_MONTHS
        except ValueError:   # (load reads month names only)
            return name
    starts, last = [], object()
    for i, name in enumerate(names):
        s = stretch(name)
        if s != last:
            starts.append(i)
            last = s
    return starts


def first_to_write(kept: dict | None, starts: list[int], n: int, first: int) -> int:
    """Which of the chunks starting at `starts` (of n months) is the first to write again,
    the months from `first` on not being as kept (get's doc, or None): the first whose
    months are not those of the chunk kept there, or that holds a month from `first` on;
    the last at least (it holds the newest points, and no chunk kept after it may stay)."""
    ends = [*starts[1:], n]
    was = list(zip(kept["starts"], [*kept["starts"][1:], len(kept["months"])])) if kept is not None else []
    return next((i for i, span in enumerate(zip(starts, ends)) if i >= len(was) or was[i] != span or span[1] > first),
                len(starts) - 1)


def prev_id(keys: list[bytes]) -> bytes:
    """What a chunk says of the months before it: the digest of their keys."""
    return hashlib.sha256(len(keys).to_bytes(8, "little") + b"".join(keys)).digest()


def _chunk_path(path: Path, i: int) -> Path:
    return path if i == 0 else path.with_name(f"{path.stem}-{i}{path.suffix}")


def get(path: Path) -> dict | None:
    """The series kept at path and the chunks after it whose chain holds, joined (a
    series' stat columns as a list of each chunk's bytes: StatColumn.frombytes reads
    them so), or None: none, one of another shape, or a chain that does not end in a
    chunk with the newest points (one a render killed while writing them left). The
    doc says where each chunk starts (`starts`)."""
    doc = None
    for i in range(MAX_CHUNKS):
        part = columns_cache.read_framed(_chunk_path(path, i), _start(), MAX_BYTES)
        if type(part) is not dict:
            break
        try:
            if part.get("prev") != prev_id(doc["months"] if doc else []):
                break
            doc = _join(doc, part)
        except (TypeError, ValueError, KeyError, AttributeError, IndexError):   # (a payload of another shape: a miss)
            return None
    return doc if doc is not None and "tails" in doc else None


def _join(doc: dict | None, part: dict) -> dict:
    """doc with the next chunk after it (the first, where doc is None)."""
    if not all(type(part[name]) is list for name in ("months", "counts", "ckeys")) \
            or type(part["spans"]) is not dict or type(part["series"]) is not dict:
        raise TypeError("not a chunk")
    if doc is None:
        doc = {"months": [], "counts": [], "ckeys": [], "spans": {}, "series": {}, "starts": []}
    doc["starts"].append(len(doc["months"]))
    for name in ("months", "counts", "ckeys"):
        doc[name] += part[name]
    spans, series = doc["spans"], doc["series"]
    for sid, sp in part["spans"].items():
        old = spans.get(sid)
        spans[sid] = sp if old is None else tuple(a + b for a, b in zip(old, sp, strict=True))
    for sid, cols in part["series"].items():
        head, lists, stats = cols[:3], cols[3:-1], cols[-1]
        old = series.get(sid)
        if old is None:
            series[sid] = (*head, *lists, {name: [p] for name, p in stats.items()})
            continue
        old_lists, old_stats = old[3:-1], old[-1]
        if len(lists) != len(old_lists) or stats.keys() != old_stats.keys():
            raise ValueError("a series of another shape")
        for a, b in zip(old_lists, lists):
            a.extend(b)   # (lists read from the chunks: this doc's own)
        for name, p in stats.items():
            old_stats[name].append(p)
        series[sid] = (*head, *old_lists, old_stats)
    if "tails" in part:
        doc["tails"] = part["tails"]
    else:
        doc.pop("tails", None)
    return doc


def put(path: Path, docs: list[dict], first: int) -> None:
    """Keep these chunks as the first-th chunk and those after it (each made with
    `prev` and, the last, `tails`; those from earlier chunks stand), removing any chunk
    after them and what a render killed while writing left."""
    for tmp in path.parent.glob(f".{path.stem}-*{path.suffix}.*.tmp"):   # (replace_framed: the chunk it writes)
        try:
            tmp.unlink()
        except OSError:
            pass
    for i, doc in enumerate(docs, first):
        if not columns_cache.replace_framed(_chunk_path(path, i), _start(), doc):
            return
    for i in range(first + len(docs), MAX_CHUNKS):
        p = _chunk_path(path, i)
        if not p.exists():
            break
        try:
            p.unlink()
        except OSError:
            break
