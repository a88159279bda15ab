"""The running service under concurrent `/v1/memory/card` load.

    python bench/load.py --workspace DIR [--clients 32] [--seconds 30] [--ingest 1000]
    python bench/load.py --url http://127.0.0.1:8765 ...   (a service already running)

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
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from common import WORDS, turn_messages

from service.discovery import running_service
from substrate import load_page_index, open_workspace

STARTUP_S = 3600.0  # the first maintain of a large workspace walks every page
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


def start_service(workspace: Path) -> subprocess.Popen[bytes]:
    memory = str(Path(sys.executable).parent / "memory")
    command = [memory, "serve", "--workspace", str(workspace), "--port", "0"]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL)


def wait_until_ready(workspace: Path | None, url: str | None, proc: Any) -> str:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"memory serve exited with {proc.returncode}")
        if url is None and workspace is not None:
            info = running_service(open_workspace(workspace))
            url = info.url if info else None
        if url is not None:
            try:
                runs = httpx.get(url + "/v1/memory/stats", timeout=60).json()["last_runs"]
            except httpx.HTTPError:
                runs = {}
            if "memory_v3_maintain" in runs:
                return url
        time.sleep(0.5)
    raise SystemExit("the service never finished its startup maintain")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workspace", type=Path, help="an indexed workspace to serve")
    parser.add_argument("--url", help="a service already running (skips starting one)")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument(
        "--ingest", type=int, default=1000, help="pages ingested in phase 2 (0: skip)"
    )
    args = parser.parse_args()
    if not args.workspace and not args.url:
        parser.error("give --workspace DIR or --url URL")
    rng = random.Random(11)
    titles = ["Sam", "Lisbon"]
    if args.workspace and args.ingest:
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
