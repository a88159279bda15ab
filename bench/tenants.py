"""Many workspaces in one service: load, memory and cold opens.

    python bench/tenants.py [--workspaces 200] [--pages 200] [--clients 32]
        [--seconds 30] [--processes 1,2]

Builds one workspace of `--pages` generated notes and indexes it with the
real models, then copies it `--workspaces` times (pages, index and state;
each copy gets its own token), so every workspace is real and indexed
without embedding 40,000 pages. Then, per `--processes` value, in the same
run, starts `memory serve --workspaces DIR --processes P` and measures:

- `open_rss_mib`: the service's resident memory (every process) after one,
  50 and all workspaces have answered a request (`--max-open` above their
  number, so none closes);
- `cold_open_ms`: a request to a workspace not yet open, p50/p95 over 20
  (opening its store, page index and runtime; the models are loaded);
- `load`: `--clients` clients for `--seconds`, each request to a random
  workspace: 50% cards, 30% searches, 20% remembers; per route requests/s
  and p50/p99 in ms, and errors.

The index is the embedded store: qdrant-client's local mode keeps nothing
between opens (each open would embed its workspace again), so the server
path's load figures need a real Qdrant server; its isolation is tested in
`tests/substrate/index/test_tenant_store.py`. Needs ~280 MB of disk per
workspace (Qdrant Edge preallocates its WAL and vector files). The load
generator shares the machine with the service.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from common import WORDS, project_module, write_pages
from served import rss_mib

from substrate import init_workspace, open_workspace

ROUTES = (("card", 0.5), ("search", 0.3), ("remember", 0.2))


def base_workspace(root: Path, pages: int) -> Path:
    """One indexed workspace of generated notes (real models)."""
    init_workspace(root)
    write_pages(open_workspace(root).concepts_dir, pages, random.Random(pages))
    subprocess.run(
        [str(Path(sys.executable).parent / "memory"), "maintain", "--workspace", str(root)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return root


def copies(base: Path, root: Path, n: int) -> dict[str, str]:
    """`n` copies of `base` under `root`, each with its own token."""
    tokens = project_module("service.tenants.tokens")
    out = {}
    for i in range(n):
        name = f"w{i:04d}"
        shutil.copytree(base, root / name, symlinks=True)
        out[name], _ = tokens.workspace_token(open_workspace(root / name), rotate=True)
    return out


def start(root: Path, processes: int, max_open: int) -> tuple[subprocess.Popen[str], str]:
    memory = str(Path(sys.executable).parent / "memory")
    command = [
        memory, "serve", "--workspaces", str(root), "--port", "0",
        "--processes", str(processes), "--max-open", str(max_open),
    ]  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    said = proc.stdout.readline()
    return proc, said.split(" at ")[1].split("/w/")[0]


def service_rss(proc: subprocess.Popen[str]) -> dict[str, float]:
    """Resident memory of the service and every process it started (MiB): all
    of it, and its anonymous part (the file-backed rest is mapped store files,
    page cache the kernel reclaims under pressure)."""
    pids = [proc.pid]
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    return {
        "rss": round(sum(rss_mib(p) or 0.0 for p in pids), 1),
        "anon": round(sum(rss_mib(p, "RssAnon") or 0.0 for p in pids), 1),
    }


def opened(url: str, name: str, token: str) -> float:
    """One request to the workspace (opening it if needed): its ms."""
    started = time.perf_counter()
    answer = httpx.get(
        f"{url}/w/{name}/v1/memory/stats", headers={"Authorization": f"Bearer {token}"}, timeout=300
    )
    answer.raise_for_status()
    return (time.perf_counter() - started) * 1000


async def load(url: str, tokens: dict[str, str], clients: int, seconds: float) -> dict[str, Any]:
    rng = random.Random(48)
    names = sorted(tokens)
    latencies: dict[str, list[float]] = {r: [] for r, _ in ROUTES}
    errors: dict[str, list[str]] = {r: [] for r, _ in ROUTES}
    deadline = time.monotonic() + seconds

    async def client_loop(c: int, http: httpx.AsyncClient) -> None:
        n = 0
        while time.monotonic() < deadline:
            name = rng.choice(names)
            route = rng.choices([r for r, _ in ROUTES], [w for _, w in ROUTES])[0]
            words = " ".join(rng.sample(WORDS, 4))
            path, body = {
                "card": ("card", {"message": words, "conversation_id": f"c{c}"}),
                "search": ("search", {"query": words, "k": 10}),
                "remember": ("remember", {"text": f"Client {c} noted {words} ({n})"}),
            }[route]
            n += 1
            started = time.perf_counter()
            try:
                answer = await http.post(
                    f"/w/{name}/v1/memory/{path}",
                    json=body,
                    headers={"Authorization": f"Bearer {tokens[name]}"},
                )
            except httpx.HTTPError as exc:
                errors[route].append(type(exc).__name__)
                continue
            if answer.status_code == 200:
                latencies[route].append((time.perf_counter() - started) * 1000)
            else:
                errors[route].append(f"{answer.status_code} {answer.text[:120]}")

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=300, limits=limits) as http:
        await asyncio.gather(*(client_loop(c, http) for c in range(clients)))
    return {
        route: {
            "rps": round(len(latencies[route]) / seconds, 1),
            **percentiles(latencies[route]),
            "errors": len(errors[route]),
            "first_errors": errors[route][:3],
        }
        for route, _ in ROUTES
    }


def percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50_ms": None, "p99_ms": None}
    ordered = sorted(values)
    return {
        "p50_ms": round(statistics.median(ordered), 1),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 1),
    }


def run(root: Path, tokens: dict[str, str], processes: int, args: argparse.Namespace) -> Any:
    names = sorted(tokens)
    proc, url = start(root, processes, max_open=len(names) + 1)
    try:
        rss = {"0": service_rss(proc)}
        opened(url, names[0], tokens[names[0]])
        rss["1"] = service_rss(proc)
        for name in names[1:50]:
            opened(url, name, tokens[name])
        rss["50"] = service_rss(proc)
        cold = [opened(url, name, tokens[name]) for name in names[50:70]]
        for name in names[70:]:
            opened(url, name, tokens[name])
        rss[str(len(names))] = service_rss(proc)
        figures = asyncio.run(load(url, tokens, args.clients, args.seconds))
        return {
            "processes": processes,
            "open_rss_mib": rss,
            "rss_50_over_1": round(rss["50"]["rss"] / rss["1"]["rss"], 2),
            "anon_50_over_1": round(rss["50"]["anon"] / rss["1"]["anon"], 2),
            "cold_open_ms": {
                "p50": round(statistics.median(cold), 1),
                "p95": round(sorted(cold)[int(len(cold) * 0.95) - 1], 1),
            },
            "load": figures,
        }
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
        if proc.stdout is not None:
            proc.stdout.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workspaces", type=int, default=200)
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--processes", default="1,2")
    args = parser.parse_args()
    if args.workspaces < 70:
        raise SystemExit("--workspaces: at least 70 (1, 50 and 20 cold opens are measured)")
    with tempfile.TemporaryDirectory() as scratch:
        started = time.perf_counter()
        base = base_workspace(Path(scratch, "base"), args.pages)
        root = Path(scratch, "served")
        root.mkdir()
        tokens = copies(base, root, args.workspaces)
        report: dict[str, Any] = {
            "workspaces": args.workspaces,
            "pages_each": args.pages,
            "setup_s": round(time.perf_counter() - started, 1),
            "runs": [],
        }
        for processes in (int(p) for p in args.processes.split(",")):
            for name in tokens:  # each run starts from closed workspaces
                (root / name / ".substrate" / "writer.lease").unlink(missing_ok=True)
            report["runs"].append(run(root, tokens, processes, args))
            print(json.dumps(report["runs"][-1]), file=sys.stderr)
        runs = report["runs"]
        if len(runs) == 2:
            one, two = (r["load"]["card"] for r in runs)
            report["card_rps_ratio"] = round(two["rps"] / one["rps"], 2) if one["rps"] else None
        print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
