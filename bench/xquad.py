"""XQuAD retrieval in Arabic and English through `memory search --batch`.

    python bench/xquad.py ../shared/data/xquad [--questions N] [--keep DIR]

Protocol (../shared/data/README.md): one page per paragraph, slug
`xquad/<lang>/<article>-<n>`, a question's only relevant page is its own
paragraph. Pages get a neutral title (`Paragraph <article>-<n>`): the Arabic
file's article titles are English, which would hand English questions a
lexical match. Three directions: Arabic questions over the Arabic pages
(`ar->ar`), English questions over the same Arabic pages (`en->ar`,
cross-lingual), English over the English pages (`en->en`).

Each workspace is indexed once (`memory maintain`); every variant is then one
`memory search --batch --k 5` run over all questions, differing only in the
workspace's fusion settings, so every figure comes from the same index:
`default` (the configured defaults), `bm25` (BM25 alone), `dense` (the English
model alone) and `dense_ml` (the multilingual model alone). Prints JSON: hit@1 and hit@5 per direction and variant,
plus each run's seconds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from substrate import init_workspace, open_workspace

VARIANTS: dict[str, str] = {
    "default": "",
    "bm25": "dense_weight = 0.0\nsparse_weight = 1.0\nmultilingual_weight = 0.0\n",
    "dense": "dense_weight = 1.0\nsparse_weight = 0.0\nmultilingual_weight = 0.0\n",
    "dense_ml": "dense_weight = 0.0\nsparse_weight = 0.0\nmultilingual_weight = 1.0\n",
}
DIRECTIONS = (("ar->ar", "ar", "ar"), ("en->ar", "en", "ar"), ("en->en", "en", "en"))


def load(data: Path, lang: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """(slug -> paragraph, [(question, its paragraph's slug)]) in file order."""
    doc = json.loads((data / f"xquad.{lang}.json").read_text(encoding="utf-8"))
    pages: dict[str, str] = {}
    questions: list[tuple[str, str]] = []
    for a, article in enumerate(doc["data"]):
        for n, paragraph in enumerate(article["paragraphs"]):
            slug = f"xquad/{lang}/{a}-{n}"
            pages[slug] = paragraph["context"]
            questions += [(qa["question"], slug) for qa in paragraph["qas"]]
    return pages, questions


def memory(*args: str, stdin: str | None = None) -> str:
    command = [str(Path(sys.executable).parent / "memory"), *args]
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[1:3])} failed:\n{done.stderr}")
    return done.stdout


def build_workspace(root: Path, pages: dict[str, str]) -> Path:
    init_workspace(root)
    concepts = open_workspace(root).concepts_dir
    for slug, text in pages.items():
        path = concepts / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        name = slug.rsplit("/", 1)[1]
        path.write_text(f"---\ntitle: Paragraph {name}\n---\n{text}\n", encoding="utf-8")
    started = time.perf_counter()
    memory("maintain", "--workspace", str(root))
    print(f"indexed {len(pages)} pages in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return root


def set_fusion(root: Path, template: str, extra: str) -> None:
    config = template.replace("[memory.substrate]\n", f"[memory.substrate]\n{extra}", 1)
    (root / "config.toml").write_text(config, encoding="utf-8")


def run(root: Path, questions: list[tuple[str, str]]) -> dict[str, Any]:
    lines = "".join(json.dumps({"query": q}, ensure_ascii=False) + "\n" for q, _ in questions)
    started = time.perf_counter()
    out = memory("search", "--workspace", str(root), "--batch", "--k", "5", stdin=lines)
    seconds = time.perf_counter() - started
    answers = [json.loads(line) for line in out.splitlines() if line.strip()]
    if len(answers) != len(questions):
        raise SystemExit(f"asked {len(questions)} questions, got {len(answers)} answers")
    hit1 = hit5 = 0
    for (_, relevant), answer in zip(questions, answers, strict=True):
        slugs = [h["slug"] for h in answer["hits"]]
        hit1 += bool(slugs) and slugs[0] == relevant
        hit5 += relevant in slugs
    n = len(questions)
    return {
        "hit@1": round(hit1 / n, 3),
        "hit@5": round(hit5 / n, 3),
        "n": n,
        "seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "data", type=Path, help="the folder holding xquad.ar.json and xquad.en.json"
    )
    parser.add_argument("--questions", type=int, help="use only the first N questions")
    parser.add_argument("--keep", type=Path, help="build the workspaces here and keep them")
    args = parser.parse_args()
    corpus = {lang: load(args.data, lang) for lang in ("ar", "en")}
    # The two files list the same questions in the same order: an English question
    # over the Arabic pages is relevant to the Arabic twin of its paragraph.
    ar_slugs = [slug for _, slug in corpus["ar"][1]]
    questions = {
        "ar->ar": corpus["ar"][1],
        "en->ar": [(q, ar) for (q, _), ar in zip(corpus["en"][1], ar_slugs, strict=True)],
        "en->en": corpus["en"][1],
    }
    with tempfile.TemporaryDirectory() as scratch:
        base = args.keep or Path(scratch)
        roots = {lang: build_workspace(base / lang, corpus[lang][0]) for lang in ("ar", "en")}
        templates = {lang: (root / "config.toml").read_text() for lang, root in roots.items()}
        report: dict[str, Any] = {}
        for name, extra in VARIANTS.items():
            for lang, root in roots.items():
                set_fusion(root, templates[lang], extra)
            for direction, _, pages_lang in DIRECTIONS:
                asked = questions[direction][: args.questions]
                report.setdefault(direction, {})[name] = run(roots[pages_lang], asked)
                print(f"{direction} {name}: {report[direction][name]}", file=sys.stderr)
        for lang, root in roots.items():
            (root / "config.toml").write_text(templates[lang])
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
