"""`memory doctor` on a clean indexed workspace: how long the checks take, and that
no model is loaded for them.

    python bench/doctor.py [--pages 10000] [--words 5,15] [--workspace DIR]

Generates and indexes `--pages` pages (real models; slow), or takes an indexed
`--workspace` (e.g. `bench/ingest.py --keep DIR`), then runs the checks
(`service.doctor.diagnose`) `--runs` times in this process and `memory doctor`
once as a command. Prints JSON: the in-process median and worst, the command's
wall time (interpreter start and imports included), the problems found (0 on a
clean workspace) and how many ONNX sessions the checks created (0: no model).
Target (issue 25): a clean workspace exits 0 in under 1 s at 10k pages.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import onnxruntime
from common import word_range, workspace_for

from service.doctor import diagnose
from service.settings_loader import build_settings
from substrate import open_search_index


def indexed_workspace(args: argparse.Namespace, tmp: Path) -> Path:
    root = workspace_for(args, tmp)
    if args.workspace:
        return root
    settings = build_settings(root)
    index = open_search_index(settings)
    started = time.perf_counter()
    index.maintain()
    index.store.close()
    print(f"indexed {args.pages} pages in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return root


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--words", type=word_range, default=(5, 15), help="MIN,MAX per page")
    parser.add_argument("--workspace", help="an indexed workspace")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = indexed_workspace(args, Path(tmp))
        settings = build_settings(root)
        sessions = 0
        real_init = onnxruntime.InferenceSession.__init__

        def counted(self: object, *a: object, **k: object) -> None:
            nonlocal sessions
            sessions += 1
            real_init(self, *a, **k)

        onnxruntime.InferenceSession.__init__ = counted
        seconds, problems = [], 0
        for _ in range(args.runs):
            started = time.perf_counter()
            problems = len(diagnose(settings).problems)
            seconds.append(time.perf_counter() - started)
        onnxruntime.InferenceSession.__init__ = real_init
        started = time.perf_counter()
        command = subprocess.run(
            [
                sys.executable,
                "-c",
                "from service.cli import main; main()",
                "doctor",
                "--workspace",
                str(root),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        command_s = time.perf_counter() - started
    print(
        json.dumps(
            {
                "pages": args.pages if not args.workspace else None,
                "diagnose_s": {
                    "median": round(statistics.median(seconds), 3),
                    "max": round(max(seconds), 3),
                    "runs": args.runs,
                },
                "command_s": round(command_s, 3),
                "command_exit": command.returncode,
                "command_output": command.stdout.strip(),
                "problems": problems,
                "onnx_sessions_created": sessions,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
