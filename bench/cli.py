"""Cold wall time of everyday CLI commands: each run is a fresh interpreter, as a
person's shell starts it.

Figures: the median of `--runs` runs of `remember`, `search`, `card` and `stats`
over a small copy of the example workspace, in this checkout and (with
`--baseline REV`) in a worktree of an earlier commit run by the same interpreter
in the same run, then the same commands through a running `memory serve`
(`--url` found by discovery). The ratio column is baseline / now.

    .venv/bin/python bench/cli.py --baseline b52e898 --runs 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from served import start_service, wait_until_ready

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "workspace"
COMMANDS: dict[str, list[str]] = {
    "remember": ["remember", "I take my tea with oat milk, run {n}"],
    "search": ["search", "--k", "3", "what is Sam allergic to"],
    "card": ["card", "what is Sam allergic to?"],
    "stats": ["stats"],
}


def cold(tree: Path, workspace: Path, name: str, runs: int) -> float:
    """Median seconds of `runs` fresh `memory NAME` processes importing from `tree`."""
    times = []
    for n in range(runs):
        args = [a.format(n=n) for a in COMMANDS[name]]
        command = [sys.executable, "-c", "from service.cli import main; main()", *args]
        command += ["--workspace", str(workspace)]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=tree, env=_env(tree), capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"memory {name} failed in {tree}: {done.stderr.strip()[-400:]}")
    return statistics.median(times)


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


def worktree(rev: str, where: Path) -> Path:
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(where), rev],
        check=True,
        capture_output=True,
    )
    return where


def workspace_copy(tree: Path, where: Path) -> Path:
    """The example workspace, indexed once (so `search` and `card` time a warm
    index, not a first embedding)."""
    shutil.copytree(EXAMPLE, where, ignore=shutil.ignore_patterns(".substrate"))
    command = [sys.executable, "-c", "from service.cli import main; main()", "maintain"]
    subprocess.run(
        [*command, "--workspace", str(where)],
        cwd=tree,
        env=_env(tree),
        check=True,
        capture_output=True,
    )
    return where


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", metavar="REV", help="Also time this commit, same run.")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-service", action="store_true", help="Skip the served figures.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        base = Path(tmp)
        trees = {"now": ROOT}
        if args.baseline:
            trees["baseline"] = worktree(args.baseline, base / "baseline")
        spaces = {
            label: workspace_copy(tree, base / f"ws-{label}") for label, tree in trees.items()
        }
        rows: dict[str, dict[str, float]] = {name: {} for name in COMMANDS}
        for name in COMMANDS:  # interleaved: both trees see the same machine state
            for label, tree in trees.items():
                rows[name][label] = cold(tree, spaces[label], name, args.runs)
        print(f"cold CLI, median of {args.runs} fresh processes (s)")
        header = "command    " + "".join(f"{label:>10}" for label in trees)
        print(header + ("     ratio" if args.baseline else ""))
        for name, figures in rows.items():
            line = f"{name:<11}" + "".join(f"{figures[label]:>10.3f}" for label in trees)
            if args.baseline:
                line += f"{figures['baseline'] / figures['now']:>9.1f}x"
            print(line)
        if not args.no_service:
            served(spaces["now"], args.runs)
        if args.baseline:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(trees["baseline"])],
                check=False,
            )


def served(workspace: Path, runs: int) -> None:
    proc = start_service(workspace)
    try:
        wait_until_ready(workspace, None, proc)
        print("through a running service (the CLI finds it and sends the call)")
        for name in COMMANDS:
            print(f"{name:<11}{cold(ROOT, workspace, name, runs):>10.3f}")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


if __name__ == "__main__":
    main()
