"""Curation: the pipeline's own cost per finalized session, and (with a real
model) how much of LongMemEval's evidence it learns.

    python bench/curation.py [--sizes 1000,10000] [--sessions 100]
    MEMORY_LLM_BASE_URL=http://host/v1 MEMORY_LLM_MODEL=name \\
        python bench/curation.py --longmemeval ../shared/data/longmemeval [--sessions 50]

1. **Cost.** A loopback chat-completions peer (the tests' scripted server)
   answers every extraction at once, with one fact citing a message of the
   slice, so the model is the only slow part in real use. Over a log already
   holding each size of messages, `--sessions` sessions of 20 turns end and
   are finalized by `run_finalizations` (claim, slices, extraction, evidence
   checks, reviewer, curation store, the profile write); p50/p95 per session.
2. **LongMemEval** (only with `MEMORY_LLM_BASE_URL` and `MEMORY_LLM_MODEL`, and
   `MEMORY_LLM_API_KEY` when the endpoint needs one): each oracle evidence
   session's turns are logged and finalized through the real endpoint; the
   figure is how many gold `has_answer` turns are cited by an applied or
   reviewable fact.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from service.settings_loader import build_settings
from substrate import Settings, init_workspace
from substrate.curation import CurationStore, run_finalizations
from substrate.llm import open_chat_client
from substrate.sessions import NewMessage, SessionLog, open_session_log

TURNS = 20


def scripted_peer() -> Any:
    """The tests' loopback chat-completions server (a real HTTP server)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.llm_server import ScriptedLLM

    return ScriptedLLM()


def workspace(base: Path, name: str, url: str, model: str) -> Settings:
    root = base / name
    init_workspace(root)
    (root / "config.toml").write_text(
        "[memory.v3]\nlive = true\n[memory.substrate]\nscanner_detector = false\n"
        f'[memory.substrate.llm]\nbase_url = "{url}"\nmodel = "{model}"\n'
        'api_key_env = "MEMORY_LLM_API_KEY"\ntimeout_s = 60.0\n'
    )
    return build_settings(root)


def fill(log: SessionLog, size: int) -> None:
    for s in range(size // TURNS):
        log.append(
            f"old-{s}",
            [
                NewMessage("user", f"note {s}.{i} about the build pipeline", True)
                for i in range(TURNS)
            ],
            1_600_000_000.0 + s,
        )


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cost(base: Path, sizes: list[int], sessions: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with scripted_peer().serving() as peer:
        for size in sizes:
            settings = workspace(base, f"cost-{size}", peer.url, "scripted")
            log = open_session_log(settings.workspace)
            fill(log, size)
            client = open_chat_client(settings)
            assert client is not None
            times = []
            for s in range(sessions):
                texts = [f"turn {i} of session {s}" for i in range(TURNS - 1)]
                texts.append(f"I keep my notes in folder number {s}.")
                ids = log.append(
                    f"new-{s}", [NewMessage("user", t, True) for t in texts], 1_700_000_000.0
                )
                log.end(f"new-{s}", "exit", 1_700_000_000.0)
                fact = {
                    "text": f"The user keeps notes in folder number {s}.",
                    "evidence": [{"message_id": ids[-1], "span": f"folder number {s}"}],
                    "target": "user",
                    "confidence": 0.9,
                    "risk": "low",
                    "sensitive": False,
                }
                peer.say({"facts": [fact]})
                started = time.perf_counter()
                [ran] = run_finalizations(settings, log, client)
                times.append((time.perf_counter() - started) * 1000)
                assert ran["status"] == "done", ran
                (
                    settings.workspace.memory_dir / "profile" / "USER.md"
                ).unlink()  # keep under budget
            out[str(size)] = {
                "messages": log.count(),
                "sessions": sessions,
                "p50_ms": round(pct(times, 0.5), 2),
                "p95_ms": round(pct(times, 0.95), 2),
                "mean_ms": round(statistics.mean(times), 2),
            }
            print(f"curation cost at {size}: {out[str(size)]}", file=sys.stderr)
            client.close()
            log.close()
    return out


def longmemeval(base: Path, data: Path, sessions: int) -> dict[str, Any]:
    url, model = os.environ["MEMORY_LLM_BASE_URL"], os.environ["MEMORY_LLM_MODEL"]
    settings = workspace(base, "lme", url, model)
    client = open_chat_client(settings)
    assert client is not None
    with gzip.open(data / "longmemeval_oracle.json.gz", "rt", encoding="utf-8") as f:
        everything = json.load(f)
    log = open_session_log(settings.workspace)
    gold: set[int] = set()
    seen: set[str] = set()
    for q in everything:
        for sid, turns in zip(q["haystack_session_ids"], q["haystack_sessions"], strict=True):
            if sid in seen or len(seen) >= sessions:
                continue
            seen.add(sid)
            messages = [NewMessage(t["role"], t["content"], t["role"] == "user") for t in turns]
            ids = log.append(sid, messages, time.time())
            gold |= {i for i, t in zip(ids, turns, strict=True) if t.get("has_answer")}
            log.end(sid, "exit", time.time())
    started = time.perf_counter()
    while run_finalizations(settings, log, client, limit=1000):
        pass
    seconds = time.perf_counter() - started
    cited: set[int] = set()
    counts: dict[str, int] = {}
    for c in CurationStore.load(settings.workspace).candidates:
        counts[c.status] = counts.get(c.status, 0) + 1
        if c.status in ("applied", "pending"):
            cited |= {e["message_id"] for e in c.fact["evidence"]}
    return {
        "sessions": len(seen),
        "gold_turns": len(gold),
        "gold_turns_learned": len(gold & cited),
        "share": round(len(gold & cited) / max(1, len(gold)), 3),
        "candidates": counts,
        "seconds": round(seconds, 1),
        "tokens": client.usage.as_json(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument(
        "--longmemeval", type=Path, help="the LongMemEval folder (needs a real model)"
    )
    args = parser.parse_args()
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        if args.longmemeval is not None:
            if not os.environ.get("MEMORY_LLM_BASE_URL") or not os.environ.get("MEMORY_LLM_MODEL"):
                raise SystemExit("--longmemeval needs MEMORY_LLM_BASE_URL and MEMORY_LLM_MODEL")
            report["longmemeval"] = longmemeval(base, args.longmemeval, args.sessions)
        else:
            report["cost"] = cost(base, [int(s) for s in args.sizes.split(",")], args.sessions)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
