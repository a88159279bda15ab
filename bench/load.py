"""The running service under concurrent load.

    python bench/load.py --workspace DIR [--clients 32] [--seconds 30] [--ingest 1000]
    python bench/load.py --url http://127.0.0.1:8765 ...   (a service already running)
    python bench/load.py --workspace DIR --mixed [--clients 32,64] [--seconds 60] [--runs 3]

`--mixed` (the hardening issues' measure): per client count, `--runs` runs of
`--seconds` each, every client drawing each request at random: 50% cards (a
conversation per client), 10% logged messages, 15% remembers (new facts, so
consolidation and re-indexing run underneath), 10% forgets and 10%
corrections of facts the client filed before the runs (`--seed-facts` each,
consolidated first), 5% consolidation runs. `--no-tending` keeps the earlier
mix (60% cards, 20% messages, 20% remembers) for comparing with old runs.
After the runs: facts lost or doubled (every seeded fact id on exactly one
page, every remembered fact once in the buffer, archive or pages). Prints, per run, each route's
p50/p99 and its answers by status, and the service's RSS before the runs,
after each, and after `--idle` seconds of quiet at the end.

Starts `memory serve` on the workspace (make a 10,000-page one with
`bench/ingest.py --pages 10000 --keep DIR`), waits for its startup maintain,
then runs three phases with `--clients` concurrent clients, each posting
requests back to back (messages mixing topic words and page titles, a
conversation per client so `hot` and `edges` have state):

- `search_baseline`: `--seconds` of `/v1/memory/search` (k=20, what a card's
  sim lane asks for), the same process and clients: the floor a card stands on;
- `steady`: `--seconds` of card load alone (`card_over_search_p50` is its
  median over the baseline's);
- `during_ingest`: the card load while `POST /v1/memory/ingest` writes
  `--ingest` new pages (under `load/`, which must not exist yet) and waits
  for them to be searchable (the load runs for `--seconds` or until the
  ingest returns, whichever is later).

Printed as JSON per phase: requests, requests/s, p50/p99 latency in ms,
errors (non-200 answers and transport failures, with the first few
messages), plus the ingest's own duration. The load generator shares the
machine with the service, as a co-located prompt assembler would.

Targets (issue 6): zero errors, p99 <= 200 ms on 2 cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from common import WORDS, turn_messages
from served import rss_mib, start_service, wait_until_ready

from substrate import load_page_index, open_workspace

CARD = "/v1/memory/card"
SEARCH = "/v1/memory/search"
INGEST_FOLDER = "load"


@dataclass
class Phase:
    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        ordered = sorted(self.latencies_ms)
        total = len(ordered) + len(self.errors)
        return {
            "requests": total,
            "requests_per_s": round(total / self.seconds, 1) if self.seconds else 0.0,
            "p50_ms": round(statistics.median(ordered), 1) if ordered else None,
            "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1)
            if ordered
            else None,
            "errors": len(self.errors),
            "first_errors": self.errors[:5],
            "seconds": round(self.seconds, 1),
        }


async def client_loop(
    client: httpx.AsyncClient,
    route: str,
    texts: list[str],
    conversation: str,
    until: Any,
    phase: Phase,
) -> None:
    i = 0
    while not until():
        text = texts[i % len(texts)]
        body = (
            {"message": text, "conversation_id": conversation}
            if route == CARD
            else {"query": text, "k": 20}
        )
        i += 1
        started = time.perf_counter()
        try:
            response = await client.post(route, json=body)
        except httpx.HTTPError as exc:
            phase.errors.append(f"{type(exc).__name__}: {exc}")
            continue
        if response.status_code == 200:
            phase.latencies_ms.append((time.perf_counter() - started) * 1000)
        else:
            phase.errors.append(f"{response.status_code}: {response.text[:200]}")


async def run_load(
    url: str, clients: int, texts: list[str], until: Any, route: str = CARD
) -> Phase:
    phase = Phase()
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    started = time.perf_counter()
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        await asyncio.gather(
            *(
                client_loop(client, route, texts[c::clients] or texts, f"load-{c}", until, phase)
                for c in range(clients)
            )
        )
    phase.seconds = time.perf_counter() - started
    return phase


PLAIN_MIX: tuple[tuple[str, float], ...] = ((CARD, 0.6), ("messages", 0.2), ("remember", 0.2))
TENDING_MIX: tuple[tuple[str, float], ...] = (
    (CARD, 0.5),
    ("messages", 0.1),
    ("remember", 0.15),
    ("forget", 0.1),
    ("correct", 0.1),
    ("consolidate", 0.05),
)


@dataclass
class Seeded:
    """A client's filed facts: ids still current (for correct) and texts still
    unforgotten (for forget), both used up as the run goes."""

    current: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


@dataclass
class Mixed:
    latencies_ms: dict[str, list[float]] = field(default_factory=dict)
    statuses: dict[str, dict[str, int]] = field(default_factory=dict)
    seconds: float = 0.0

    def note(self, route: str, status: str, ms: float | None) -> None:
        counts = self.statuses.setdefault(route, {})
        counts[status] = counts.get(status, 0) + 1
        if ms is not None:
            self.latencies_ms.setdefault(route, []).append(ms)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seconds": round(self.seconds, 1)}
        for route, counts in sorted(self.statuses.items()):
            ordered = sorted(self.latencies_ms.get(route, []))
            out[route] = {
                "requests": sum(counts.values()),
                "statuses": counts,
                "p50_ms": round(statistics.median(ordered), 1) if ordered else None,
                "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1)
                if ordered
                else None,
            }
        return out


def request_for(
    route: str, c: int, n: int, text: str, seeded: Seeded
) -> tuple[str, dict[str, Any]] | None:
    """The path and body of one request; None when the client has nothing left
    to tend (its seeded facts used up)."""
    if route == CARD:
        return CARD, {"message": text, "conversation_id": f"load-{c}"}
    if route == "messages":
        return f"/v1/conversations/load-{c}/messages", {
            "messages": [{"role": "user", "text": text}]
        }
    if route == "remember":
        return "/v1/memory/remember", {"text": f"client {c} noted {text} (#{n})"}
    if route == "forget":
        return ("/v1/memory/forget", {"what": seeded.texts.pop()}) if seeded.texts else None
    if route == "correct":
        if not seeded.current:
            return None
        return "/v1/memory/correct", {"fact_id": seeded.current.pop(), "text": f"{text} (fixed)"}
    return "/v1/consolidation/run-now", {"wait": False}


async def mixed_loop(
    client: httpx.AsyncClient,
    texts: list[str],
    c: int,
    until: Any,
    mixed: Mixed,
    seed: int,
    plan: tuple[tuple[str, float], ...],
    seeded: Seeded,
) -> None:
    rng = random.Random(seed)
    routes = [route for route, _ in plan]
    weights = [weight for _, weight in plan]
    n = 0
    while not until():
        route = rng.choices(routes, weights)[0]
        text = texts[(c * 7919 + n) % len(texts)]
        n += 1
        request = request_for(route, c, n, text, seeded)
        if request is None:
            continue
        path, body = request
        started = time.perf_counter()
        try:
            response = await client.post(path, json=body)
        except httpx.HTTPError as exc:
            mixed.note(route, type(exc).__name__, None)
            continue
        ms = (time.perf_counter() - started) * 1000
        if route == "correct" and response.status_code == 200:
            seeded.current.append(response.json()["fact"]["id"])
        mixed.note(route, str(response.status_code), ms if response.status_code == 200 else None)


async def run_mixed(
    url: str,
    clients: int,
    texts: list[str],
    seconds: float,
    seed: int,
    plan: tuple[tuple[str, float], ...],
    seeded: list[Seeded],
) -> Mixed:
    mixed = Mixed()
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    deadline = time.monotonic() + seconds
    started = time.perf_counter()
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        await asyncio.gather(
            *(
                mixed_loop(client, texts, c, _until(deadline), mixed, seed + c, plan, seeded[c])
                for c in range(clients)
            )
        )
    mixed.seconds = time.perf_counter() - started
    return mixed


def mixed_runs(
    url: str, pid: int | None, args: argparse.Namespace, texts: list[str]
) -> dict[str, Any]:
    out: dict[str, Any] = {"rss_mib_before": rss_mib(pid) if pid else None, "runs": []}
    plan = PLAIN_MIX if args.no_tending else TENDING_MIX
    counts = [int(c) for c in str(args.clients).split(",")]
    seeded = [] if args.no_tending else seed_facts(url, max(counts), args.seed_facts)
    for clients in counts:
        for run in range(args.runs):
            pool = seeded or [Seeded() for _ in range(clients)]
            mixed = asyncio.run(
                run_mixed(url, clients, texts, args.seconds, 1000 * run, plan, pool)
            )
            out["runs"].append(
                {
                    "clients": clients,
                    "run": run + 1,
                    **mixed.summary(),
                    "rss_mib_after": rss_mib(pid) if pid else None,
                }
            )
            print(json.dumps(out["runs"][-1]), file=sys.stderr)
    time.sleep(args.idle)
    out["rss_mib_after_idle"] = rss_mib(pid) if pid else None
    if args.workspace is not None:
        out["facts"] = fact_ledger(args.workspace)
    return out


def seed_facts(url: str, clients: int, per_client: int) -> list[Seeded]:
    """Each client's facts remembered and filed before the runs: what forget and
    correct then tend."""
    seeded = [Seeded() for _ in range(clients)]
    with httpx.Client(base_url=url, timeout=600) as client:
        for c in range(clients):
            for k in range(per_client):
                text = f"Tender {c} keeps marker {c}x{k} about plum harvest {k}."
                answer = client.post("/v1/memory/remember", json={"text": text}).json()
                seeded[c].current.append(answer["id"])
                seeded[c].texts.append(f"marker {c}x{k} about")
        client.post("/v1/consolidation/run-now", json={"wait": True})
    for s in seeded:  # forget and correct draw different facts
        s.texts = s.texts[: len(s.texts) // 2]
        s.current = s.current[len(s.current) // 2 :]
    return seeded


def fact_ledger(root: Path) -> dict[str, int]:
    """Facts lost or doubled: every fact id on the pages once, every current one
    of them once."""
    from substrate.pages import fact_bullets

    ws = open_workspace(root)
    seen: dict[str, int] = {}
    for path in ws.concepts_dir.rglob("*.md"):
        for bullet in fact_bullets(path.read_text(encoding="utf-8")):
            if bullet.entry_id:
                seen[bullet.entry_id] = seen.get(bullet.entry_id, 0) + 1
    return {"fact_ids": len(seen), "doubled": sum(1 for n in seen.values() if n > 1)}


def ingest_pages(n: int, rng: random.Random) -> list[dict[str, str]]:
    pages = []
    for i in range(n):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 15)))
        title = f"Load {i} {rng.choice(WORDS)}"
        pages.append(
            {
                "slug": f"{INGEST_FOLDER}/page-{i:05d}",
                "content": f"---\ntitle: {title}\n---\n{body}\n",
            }
        )
    return pages


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workspace", type=Path, help="an indexed workspace to serve")
    parser.add_argument("--url", help="a service already running (skips starting one)")
    parser.add_argument("--clients", default="32", help="clients (--mixed: a list, 32,64)")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument(
        "--ingest", type=int, default=1000, help="pages ingested in phase 2 (0: skip)"
    )
    parser.add_argument("--mixed", action="store_true", help="the mixed load (see above)")
    parser.add_argument("--runs", type=int, default=3, help="--mixed: runs per client count")
    parser.add_argument(
        "--no-tending", action="store_true", help="--mixed: the mix without forget and correct"
    )
    parser.add_argument(
        "--seed-facts", type=int, default=40, help="--mixed: facts each client files to tend"
    )
    parser.add_argument(
        "--idle", type=float, default=30.0, help="--mixed: quiet before the last RSS"
    )
    args = parser.parse_args()
    if not args.workspace and not args.url:
        parser.error("give --workspace DIR or --url URL")
    rng = random.Random(11)
    titles = ["Sam", "Lisbon"]
    if args.workspace and args.ingest and not args.mixed:
        left = open_workspace(args.workspace).concepts_dir / INGEST_FOLDER
        if left.exists():
            parser.error(
                f"{left} exists (an earlier run's ingest): remove it and run "
                "`memory maintain` so the ingest phase writes new pages"
            )
    if args.workspace:
        titles = [e.title for e in load_page_index(open_workspace(args.workspace)).entries.values()]
    texts = turn_messages(rng, titles, 2000)
    proc = start_service(args.workspace) if args.url is None else None
    try:
        url = wait_until_ready(args.workspace, args.url, proc)
        print(f"service ready at {url}", file=sys.stderr)
        if args.mixed:
            print(json.dumps(mixed_runs(url, proc.pid if proc else None, args, texts), indent=1))
            return
        args.clients = int(args.clients)
        out: dict[str, Any] = {"clients": args.clients}
        for name, route in (("search_baseline", SEARCH), ("steady", CARD)):
            deadline = time.monotonic() + args.seconds
            phase = asyncio.run(run_load(url, args.clients, texts, _until(deadline), route))
            out[name] = phase.summary()
        base, card = out["search_baseline"]["p50_ms"], out["steady"]["p50_ms"]
        out["card_over_search_p50"] = round(card / base, 2) if base and card else None
        if args.ingest:
            out |= during_ingest(url, args, texts, rng)
        print(json.dumps(out, indent=1))
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=300)


def _until(deadline: float) -> Any:
    return lambda: time.monotonic() > deadline


def during_ingest(
    url: str, args: argparse.Namespace, texts: list[str], rng: random.Random
) -> dict[str, Any]:
    pages = ingest_pages(args.ingest, rng)
    done = threading.Event()
    report: dict[str, Any] = {}

    def ingest() -> None:
        started = time.perf_counter()
        try:
            response = httpx.post(url + "/v1/memory/ingest", json={"pages": pages}, timeout=7200)
            report["status"] = response.status_code
            body = response.json()
            report["written"] = sum(
                1 for p in body.get("pages", []) if p.get("status") == "written"
            )
        except httpx.HTTPError as exc:
            report["status"] = f"{type(exc).__name__}: {exc}"
        report["seconds"] = round(time.perf_counter() - started, 1)
        done.set()

    thread = threading.Thread(target=ingest, daemon=True)
    deadline = time.monotonic() + args.seconds
    thread.start()
    phase = asyncio.run(
        run_load(url, args.clients, texts, lambda: time.monotonic() > deadline and done.is_set())
    )
    thread.join()
    return {"during_ingest": phase.summary(), "ingest": report}


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
