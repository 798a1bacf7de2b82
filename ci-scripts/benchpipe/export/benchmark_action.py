"""github-action-benchmark's `customSmallerIsBetter` format: the one exporter, used by
`run` (the run's own files), `merge-artifacts` (what the publish workflow gives the
action) and `history add --data-js` / `publish` (dev/bench/data.js on gh-pages), so the
action always compares the same names.

Sets: one per OS, language and compiler channel (`linux rust stable`). The action
compares a set's new entry with its previous one, so a set per channel compares a new
compiler release with the one before it, and a set per OS never mixes machines.

Benches: two per `ok` benchmark, named by family (no toolchain: the name survives a
release) with ` time` (the program's own timed window, s, the primary time) and
` peak memory` (MiB); `range` is half the 95% CI of the median; `extra` starts with the
exact toolchain of the point.
"""

from __future__ import annotations

from pathlib import Path

from benchpipe import results
from benchpipe.fsutil import atomic_write_json
from benchpipe.history import channel, entry_records, primary_time, run_id_of


def set_name(os_: str, lang: str, chan: str) -> str:
    return f"{os_} {lang} {chan}"


def file_name(set_: str) -> str:
    """`linux rust stable` -> `linux-rust-stable.json` (set names are made of name-contract
    parts and spaces, so this is one-to-one)."""
    return set_.replace(" ", "-") + ".json"


def write_sets(folder, docs: list[dict]) -> list[dict]:
    """One file per set in folder; [{name, file}] (the publish workflow's matrix)."""
    out = []
    for name, bs in sorted(sets(docs).items()):
        atomic_write_json(Path(folder) / file_name(name), bs)
        out.append({"name": name, "file": file_name(name)})
    return out


def set_of(entry: dict) -> str:
    """The set a history entry belongs to."""
    return set_name(entry["os"], entry["key"]["lang"], channel(entry))


def benches(entries: list[dict]) -> list[dict]:
    """customSmallerIsBetter benches of history entries (history.entry_records)."""
    out = []
    for e in sorted(entries, key=lambda x: x["id"]):
        fam = results.family_id(e["key"]) + (f"#{e['key']['label']}" if e["key"].get("label") else "")
        t, m = primary_time(e), e["memory_bytes"]
        tc = e["key"]["toolchain"]
        out.append({"name": f"{fam} time", "value": t["median"], "unit": "s",
                    "range": f"± {(t['ci_high'] - t['ci_low']) / 2:.6g}",
                    "extra": f"{tc}; n={t['n']} ci95=[{t['ci_low']:.6g}, {t['ci_high']:.6g}] run={e['run']}"})
        out.append({"name": f"{fam} peak memory", "value": round(m["median"] / 2**20, 3), "unit": "MiB",
                    "range": f"± {(m['ci_high'] - m['ci_low']) / 2 / 2**20:.3f}",
                    "extra": f"{tc}; n={m['n']} run={e['run']}"})
    return out


def sets(docs: list[dict]) -> dict[str, list[dict]]:
    """Set name -> benches of results documents (A/B runs are not history: left out).
    Several documents of one commit (shards) go into their sets together; a bench given
    twice keeps its first figure."""
    out: dict[str, list[dict]] = {}
    seen: dict[str, set[str]] = {}
    for doc in docs:
        if results.is_ab(doc):
            continue
        by_set: dict[str, list[dict]] = {}
        for e in entry_records(doc, run_id_of(doc)):
            by_set.setdefault(set_of(e), []).append(e)
        for name, entries in by_set.items():
            for bench in benches(entries):
                if bench["name"] not in seen.setdefault(name, set()):
                    seen[name].add(bench["name"])
                    out.setdefault(name, []).append(bench)
    return out
