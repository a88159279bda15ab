"""Forget means gone, measured: forgotten markers left on disk, derived items
left, predecessors given back, forget latency beside remember, purge cost.

    python bench/forgetting.py [--pages 2000] [--sessions 1000] [--facts 100]
                               [--forget-sessions 20] [--forget-messages 50]
                               [--workspace DIR] [--seed 7]

Builds a workspace of `--pages` generated notes (or uses `--workspace`, e.g.
one kept by `bench/ingest.py --keep`), indexed with the real models; logs
`--sessions` conversations of four turns each (every user turn carrying a
unique marker token, many stating a durable fact that capture takes), and
remembers and files facts, each with its own marker: people's homes, then a
move to a marker town (which supersedes the old home). Then, picked at
random: `--facts` facts forgotten (moves among them), `--forget-sessions`
sessions and `--forget-messages` single messages; the same number of new
facts remembered in the same run, interleaved, for the latency baseline.
Then `memory purge`. Prints JSON:

- `files_holding_forgotten_markers`: by a byte search of every file of the
  workspace, `.substrate/` included (must be 0); `kept_markers_found`: the
  same search for markers not forgotten (each must still be found somewhere:
  the search works);
- `derived_left`: what `memory doctor` reports as `forgotten_residue` (0);
- `predecessors`: the facts the forgotten ones had replaced, and whether each
  is current again or replaced by a value of its slot that still stands
  (`neither` must be 0);
- `forget_ms` and `remember_ms` p50/p95 (the library calls, as `memory forget`
  and `memory remember` make them) and their p50 ratio; `forget_reindex_ms`:
  the forget with the index brought up to it, as the CLI answers;
- `purge`: seconds, bytes freed, and what it rewrote (it embeds nothing).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common import write_pages

from service.memory import Memory
from service.settings_loader import build_settings
from substrate import init_workspace, remember
from substrate.curation import capture_offline
from substrate.forgetting import forget, forget_conversation
from substrate.forgetting.residue import find_residue
from substrate.pages import fact_bullets, load_page_index
from substrate.sessions import NewMessage

TOWNS = "Leeds York Bath Perth Derby Ayr Wells Ripon Truro Hexham".split()
FIRST = "Tilda Morven Iona Karim Bruno Anika Farah Emeka Dara Chen Oskar Nell".split()
HEADS = "Aber Quin Hallo Fair Lind Strach Mac Kil Ross Dun Gal Bal".split()
TAILS = "nathy tero ran bairn qvist an leod patrick more bar braith four".split()


def person(p: int) -> str:
    """A name of its own for every `p` below 1,728 (a page of its own each)."""
    return f"{FIRST[p % 12]} {HEADS[p // 12 % 12]}{TAILS[p // 144 % 12]}"


STATEMENTS = (
    "My locker code at the pool is {m}.",
    "I keep my spare key with {m} next door.",
    "My bike is registered as {m}.",
    "I renewed my library card, number {m}.",
)


def marker(n: int) -> str:
    return f"Qzm{n:06d}x"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def build(root: Path, args: argparse.Namespace, rng: random.Random) -> dict[str, Any]:
    """The workspace, its log and its facts; what was planted, by marker."""
    if args.workspace is None:
        init_workspace(root)
        write_pages(root / "memory" / "concepts", args.pages, rng)
    settings = build_settings(root)
    memory = Memory(settings)
    started = time.perf_counter()
    memory.maintain()
    indexed = time.perf_counter() - started
    log = memory.sessions
    planted: dict[str, Any] = {"sessions": {}, "messages": {}, "facts": {}, "moves": {}}
    base = datetime(2025, 1, 1, tzinfo=UTC).timestamp()
    n = 0
    for s in range(args.sessions):
        sid = f"chat-{s:04d}"
        turns = []
        for _ in range(2):
            n += 1
            turns.append(NewMessage("user", rng.choice(STATEMENTS).format(m=marker(n)), True))
            turns.append(NewMessage("assistant", "Noted.", True))
        at = base + s * 3600
        ids = log.append(sid, turns, at)
        users = [i for i, t in zip(ids, turns, strict=True) if t.role == "user"]
        planted["sessions"][sid] = [marker(n - 1), marker(n)]
        planted["messages"].update({str(i): marker(n - 1 + k) for k, i in enumerate(users)})
        capture_offline(settings, log, sid, at)
    for p in range(args.facts * 2):
        who = person(p)
        day = datetime(2025, 3, 1, tzinfo=UTC) + timedelta(days=p % 50)
        remember(settings, f"{who} lives in {rng.choice(TOWNS)}.", now=day)
        n += 1
        moved = remember(settings, f"{who} moved to {marker(n)}.", now=day + timedelta(days=60))
        planted["moves"][moved.id] = marker(n)
        planted["facts"][moved.id] = marker(n)
    memory.consolidate()
    planted["build"] = {
        "index_s": round(indexed, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }
    memory.close()
    return planted


def bullets(root: Path) -> dict[str, Any]:
    """Every filed fact, by id."""
    ws = build_settings(root).workspace
    out = {}
    for entry in load_page_index(ws).entries.values():
        for b in fact_bullets((ws.concepts_dir / entry.path).read_text()):
            out[b.entry_id] = b
    return out


def predecessors(root: Path, ids: list[str]) -> dict[str, str]:
    """Each fact these ids replaced (and that is not forgotten itself) -> the id
    that replaced it."""
    return {
        b.entry_id: b.by
        for b in bullets(root).values()
        if b.status == "superseded" and b.by in ids and b.entry_id not in ids
    }


def given_back(root: Path, replaced: dict[str, str]) -> dict[str, int]:
    """What became of the facts the forgotten ones had replaced: current again,
    replaced by another value of the slot that still stands (a newer one on
    the same page), or neither (a fault: must be 0)."""
    now = bullets(root)
    out = {"current_again": 0, "replaced_by_a_standing_value": 0, "neither": 0}
    for old in replaced:
        b = now.get(old)
        if b is not None and b.current:
            out["current_again"] += 1
        elif b is not None and b.by in now and now[b.by].current:
            out["replaced_by_a_standing_value"] += 1
        else:
            out["neither"] += 1
    return out


def holding(root: Path, markers: set[str]) -> tuple[list[str], set[str]]:
    """(files holding any of `markers`, the markers found), by bytes."""
    wanted = {m.encode() for m in markers}
    files, found = [], set()
    for path in root.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        data = path.read_bytes()
        hits = {m for m in wanted if m in data}
        if hits:
            files.append(str(path.relative_to(root)))
            found |= {m.decode() for m in hits}
    return files, found


def run(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    rng = random.Random(args.seed)
    planted = build(root, args, rng)
    settings = build_settings(root)
    memory = Memory(settings)
    memory.maintain()
    log = memory.sessions
    facts = rng.sample(sorted(planted["facts"]), args.facts)
    replaced = predecessors(root, facts)
    sessions = rng.sample(sorted(planted["sessions"]), args.forget_sessions)
    left = [
        m
        for m, mk in planted["messages"].items()
        if not any(mk in planted["sessions"][s] for s in sessions)
    ]
    messages = rng.sample(left, args.forget_messages)
    gone = {planted["facts"][f] for f in facts}
    gone |= {m for s in sessions for m in planted["sessions"][s]}
    gone |= {planted["messages"][m] for m in messages}
    forget_ms, reindex_ms, remember_ms = [], [], []
    by_kind: dict[str, list[float]] = {}
    work = [("fact", f) for f in facts] + [("session", s) for s in sessions]
    work += [("message", m) for m in messages]
    rng.shuffle(work)
    for i, (kind, what) in enumerate(work):
        t = time.perf_counter()
        if kind == "fact":
            forget(settings, log, what)
        elif kind == "session":
            forget_conversation(settings, log, what)
        else:
            forget_conversation(settings, log, message_id=int(what))
        forget_ms.append((time.perf_counter() - t) * 1000)
        by_kind.setdefault(kind, []).append(forget_ms[-1])
        t = time.perf_counter()
        memory.maintain_after_write(None)
        reindex_ms.append(forget_ms[-1] + (time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        remember(settings, f"A new note, number {i}, about the garden.")
        remember_ms.append((time.perf_counter() - t) * 1000)
    residue = find_residue(settings, log)
    t = time.perf_counter()
    purged = memory.purge()
    purge_s = time.perf_counter() - t
    memory.close()
    files, _ = holding(root, gone)
    kept = {m for m in planted["facts"].values()} - gone
    _, found_kept = holding(root, set(sorted(kept)[:50]))
    return {
        "pages": args.pages if args.workspace is None else "given",
        "sessions": args.sessions,
        "forgotten": {
            "facts": len(facts),
            "sessions": len(sessions),
            "messages": len(messages),
            "markers": len(gone),
        },
        "files_holding_forgotten_markers": len(files),
        "files_holding_forgotten_markers_list": files[:10],
        "kept_markers_found": f"{len(found_kept)}/{min(50, len(kept))}",
        "derived_left": len(residue),
        "predecessors": {"of_forgotten_facts": len(replaced), **given_back(root, replaced)},
        "forget_ms": {"p50": pct(forget_ms, 0.5), "p95": pct(forget_ms, 0.95)},
        "forget_ms_by_kind": {k: {"p50": pct(v, 0.5), "n": len(v)} for k, v in by_kind.items()},
        "forget_reindex_ms": {"p50": pct(reindex_ms, 0.5), "p95": pct(reindex_ms, 0.95)},
        "remember_ms": {"p50": pct(remember_ms, 0.5), "p95": pct(remember_ms, 0.95)},
        "forget_over_remember_p50": round(
            statistics.median(forget_ms) / statistics.median(remember_ms), 2
        ),
        "purge": {
            "seconds": round(purge_s, 2),
            "freed_bytes": purged["freed"],
            "rewrote": [
                {k: r[k] for k in ("what", "before", "after") if k in r} for r in purged["rewrote"]
            ],
        },
        "build": planted["build"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--facts", type=int, default=100)
    parser.add_argument("--forget-sessions", type=int, default=20)
    parser.add_argument("--forget-messages", type=int, default=50)
    parser.add_argument("--workspace", type=Path, help="a workspace to copy and use")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        if args.workspace is not None:
            import shutil

            shutil.copytree(args.workspace, root, symlinks=True)
        print(json.dumps(run(root, args), indent=1))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
