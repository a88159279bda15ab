"""One owner of a served workspace, measured from outside.

    python bench/one_owner.py [--pages 300] [--rounds 20] [--clients 8]
        [--workspaces 200] [--facts 400]

Three parts, each against real `memory serve` processes:

1. **CLI beside the service.** A workspace of `--pages` generated notes is
   served while `--clients` clients post cards back to back. Meanwhile the CLI
   runs `memory import` (a new JSON Lines session with its own words),
   `memory ingest` (a new page), `memory maintain` and `memory consolidate`
   (after a `memory remember`), `--rounds` times each, as a person would
   beside a running service. After each import the session's words are
   searched (`kind: episode`) until found: `import_searchable_s`. Then
   `memory doctor`: index problems (through the service, which holds the
   index), and the CLI's failures and the cards' errors.
2. **A killed worker's job.** `--facts` facts are remembered, a consolidation
   is queued on the worker and the service is killed (`kill -9`) while it
   runs; a new service is started on the workspace. `takeover_s`: from the
   new service answering until the job is claimed again (its attempts go up)
   — before, a job waited out its 300 s lease.
3. **Many workspaces on two processes.** `--workspaces` new workspaces under
   one folder, served with `--processes 2`; one card to each, 16 at a time,
   all at once as the service starts: answers that are not 200 (503s while
   leases moved, before), and any answer naming the server's folder.

Printed as JSON. Needs about 280 MB of disk per workspace in part 3 (Qdrant
Edge preallocates its files).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from common import WORDS, write_pages
from served import start_service, wait_until_ready

from service.tenants.tokens import workspace_token
from substrate import init_workspace, open_workspace

MEMORY = str(Path(sys.executable).parent / "memory")
SEARCHABLE_WITHIN_S = 30.0


def cli(workspace: Path, *args: str) -> tuple[int, float, str]:
    """Run `memory ARGS --workspace W`: exit code, seconds, stderr's last line."""
    started = time.perf_counter()
    done = subprocess.run(
        [MEMORY, *args, "--workspace", str(workspace)], capture_output=True, text=True
    )
    said = done.stderr.strip().splitlines()[-1:] or [""]
    return done.returncode, time.perf_counter() - started, said[0]


class Cards:
    """`clients` threads posting cards back to back until stopped."""

    def __init__(self, url: str, clients: int) -> None:
        self.errors: list[str] = []
        self.done = 0
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._loop, args=(url, n), daemon=True) for n in range(clients)
        ]
        for thread in self._threads:
            thread.start()

    def _loop(self, url: str, n: int) -> None:
        rng = random.Random(n)
        with httpx.Client(base_url=url, timeout=120) as client:
            while not self._stop.is_set():
                words = " ".join(rng.choice(WORDS) for _ in range(6))
                try:
                    answer = client.post("/v1/memory/card", json={"message": words})
                except httpx.HTTPError as exc:
                    self.errors.append(type(exc).__name__)
                    continue
                if answer.status_code != 200:
                    self.errors.append(f"{answer.status_code} {answer.text[:120]}")
                self.done += 1

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()


def searchable_after(url: str, marker: str) -> float | None:
    """Seconds until an episode search finds `marker` (None past the bound)."""
    started = time.perf_counter()
    with httpx.Client(base_url=url, timeout=60) as client:
        while time.perf_counter() - started < SEARCHABLE_WITHIN_S:
            body = {"query": marker, "kind": "episode", "k": 3}
            hits = client.post("/v1/memory/search", json=body).json().get("hits", [])
            if any(marker in h.get("excerpt", "") for h in hits):
                return time.perf_counter() - started
            time.sleep(0.05)
    return None


def beside_the_service(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    ws = root / "served"
    init_workspace(ws)
    write_pages(open_workspace(ws).concepts_dir, args.pages, random.Random(args.pages))
    proc = start_service(ws)
    try:
        url = wait_until_ready(ws, None, proc)
        cards = Cards(url, args.clients)
        rounds: dict[str, list[float]] = {
            "import": [],
            "ingest": [],
            "maintain": [],
            "consolidate": [],
        }
        failures: list[str] = []
        searchable: list[float | None] = []
        for n in range(args.rounds):
            marker = f"zephyrine{n}x"
            chat = root / f"chat{n}.jsonl"
            line = {"session": f"s{n}", "role": "user", "time": "2026-11-01T10:00:00Z"}
            chat.write_text(json.dumps({**line, "text": f"The {marker} kite flew over Leith."}))
            page = root / f"pages{n}"
            (page / "notes").mkdir(parents=True)
            (page / "notes" / f"extra{n}.md").write_text(f"# Extra {n}\n\nA {marker} note.\n")
            steps = {
                "import": ("import", "jsonl", str(chat)),
                "ingest": ("ingest", str(page)),
                "maintain": ("maintain",),
                "consolidate": ("consolidate",),
            }
            cli(ws, "remember", f"My colleague Person{n} keeps {marker} bees.")
            for name, command in steps.items():
                code, seconds, said = cli(ws, *command)
                rounds[name].append(seconds)
                if code != 0:
                    failures.append(f"{name}: {code} {said}")
                if name == "import":
                    searchable.append(searchable_after(url, marker))
        cards.stop()
        code, _, _ = cli(ws, "doctor")
        doctor = subprocess.run(
            [MEMORY, "doctor", "--workspace", str(ws), "--json"], capture_output=True, text=True
        )
        problems = json.loads(doctor.stdout or "{}").get("problems", [])
        found = [s for s in searchable if s is not None]
        return {
            "rounds": args.rounds,
            "cli_seconds_p50": {k: round(statistics.median(v), 2) for k, v in rounds.items()},
            "cli_failures": failures,
            "import_searchable_s": {
                "found": len(found),
                "of": len(searchable),
                "p50": round(statistics.median(found), 2) if found else None,
                "max": round(max(found), 2) if found else None,
            },
            "doctor_problems": [p["kind"] for p in problems],
            "cards": cards.done,
            "card_errors": cards.errors[:5],
            "card_error_count": len(cards.errors),
        }
    finally:
        proc.terminate()
        proc.wait(timeout=120)


def attempts_of(ws: Path, job_id: int) -> int:
    db = sqlite3.connect(open_workspace(ws).state_dir / "jobs.sqlite", timeout=30)
    try:
        row = db.execute("SELECT attempts, state FROM jobs WHERE id = ?", (job_id,)).fetchone()
    finally:
        db.close()
    return int(row[0]) if row else 0


def killed_worker(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    ws = root / "killed"
    init_workspace(ws)
    write_pages(open_workspace(ws).concepts_dir, 50, random.Random(5))
    proc = start_service(ws)
    url = wait_until_ready(ws, None, proc)
    with httpx.Client(base_url=url, timeout=120) as client:
        for n in range(args.facts):
            person, thing = f"Person{n}", random.Random(n).choice(WORDS)
            client.post("/v1/memory/remember", json={"text": f"My friend {person} likes {thing}."})
        queued = client.post("/v1/consolidation/run-now", json={"wait": False}).json()
        job = int(queued["job_id"])
        deadline = time.monotonic() + 60
        while client.get(f"/v1/jobs/{job}").json()["state"] != "running":
            if time.monotonic() > deadline:
                raise SystemExit("the consolidation never started")
            time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    before = attempts_of(ws, job)
    again = start_service(ws)
    try:
        wait_until_ready(ws, None, again)
        started = time.perf_counter()
        while attempts_of(ws, job) <= before and time.perf_counter() - started < 600:
            time.sleep(0.05)
        taken = time.perf_counter() - started
        return {
            "facts": args.facts,
            "takeover_s": round(taken, 2) if attempts_of(ws, job) > before else None,
        }
    finally:
        again.terminate()
        again.wait(timeout=120)


def many_workspaces(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    folder = root / "many"
    ids = [f"w{n:03d}" for n in range(args.workspaces)]
    tokens = {}
    for w in ids:
        init_workspace(folder / w)
        tokens[w], _ = workspace_token(open_workspace(folder / w))
    service = subprocess.Popen(
        [MEMORY, "serve", "--workspaces", str(folder), "--processes", "2", "--port", "0",
         "--max-open", str(args.workspaces + 8)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert service.stdout is not None and service.stderr is not None
    try:
        url = service.stdout.readline().split(" at ")[1].split("/w/")[0]

        def card(w: str) -> tuple[int, str]:
            headers = {"Authorization": f"Bearer {tokens[w]}"}
            with httpx.Client(base_url=url, timeout=300) as client:
                answer = client.post(
                    f"/w/{w}/v1/memory/card", json={"message": "hello"}, headers=headers
                )
            return answer.status_code, answer.text

        started = time.perf_counter()
        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(card, ids))
        seconds = time.perf_counter() - started
    finally:
        service.send_signal(signal.SIGTERM)
        try:
            service.wait(timeout=300)
        except subprocess.TimeoutExpired:
            service.kill()
        logged = service.stderr.read()
        service.stdout.close()
        service.stderr.close()
    errors = [f"{code} {text[:120]}" for code, text in answers if code != 200]
    return {
        "workspaces": args.workspaces,
        "seconds": round(seconds, 1),
        "errors": len(errors),
        "first_errors": errors[:5],
        "answers_naming_the_folder": sum(str(folder) in text for _, text in answers),
        "forwarding_log_lines": logged.count("HTTP Request:"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--facts", type=int, default=400)
    parser.add_argument("--workspaces", type=int, default=200)
    parser.add_argument("--parts", default="cli,killed,many", help="which parts to run")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="one-owner-") as tmp:
        root = Path(tmp)
        if "cli" in parts:
            out["beside_the_service"] = beside_the_service(root, args)
            print(json.dumps(out, indent=1), file=sys.stderr)
        if "killed" in parts:
            out["killed_worker"] = killed_worker(root, args)
            print(json.dumps(out, indent=1), file=sys.stderr)
        if "many" in parts:
            out["many_workspaces"] = many_workspaces(root, args)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
