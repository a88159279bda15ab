"""Technical text no one wrote for this project, harvested from this machine:
man pages, `--help` output, `/usr/share/doc`, Python's docstrings and the
Debian package descriptions. Each harvester yields `(document, text)`: the
document (a man page, a package, a module) is what the train/report split
deals out, so no report text shares a document with training.

Run through `bench/benign_corpus.py`, which writes the corpus once; the
scanner's benchmarks read the committed file, so a machine with other
packages installed reports on the same texts.
"""

from __future__ import annotations

import gzip
import importlib
import inspect
import random
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

Harvest = Iterator[tuple[str, str]]

_ROFF_FONT = re.compile(r"\\f(?:\[[^\]]*\]|\(..|.)")
_ROFF_ESCAPES = {
    r"\-": "-", r"\(aq": "'", r"\(dq": '"', r"\(em": "-", r"\(en": "-", r"\e": "\\",
    r"\(bu": "*", r"\(lq": '"', r"\(rq": '"', r"\ ": " ", r"\&": "", r"\|": "", r"\/": "",
    r"\,": "", r"\(co": "(c)", r"\(oq": "'", r"\(cq": "'",
}  # fmt: skip
_ROFF_REST = re.compile(r"\\[*n]\(?..|\\[*n].|\\s[-+]?\d|\\.")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_OPTION = re.compile(r"^\s{1,8}(-{1,2}[\w][\w-]*(?:[ =,]\s*-{0,2}[\w<>\[\]=-]+)*)\s{2,}(\S.{8,})$")
_SKIP_MODULES = {
    "antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "pydoc_data",
    "lib2to3", "ensurepip", "venv", "msilib", "winreg", "winsound", "_msi", "nt",
    "msvcrt", "_winapi", "_overlapped", "asyncio.windows_events", "crypt",
}  # fmt: skip
HELP_TOOLS = (
    "ls cp mv rm mkdir rmdir ln chmod chown chgrp touch cat head tail sort uniq cut tr wc du df "
    "tar gzip gunzip xz zstd bzip2 grep sed find xargs date env id stat sha256sum md5sum base64 "
    "split join paste tee timeout nohup nice install mktemp readlink realpath basename dirname "
    "curl wget git ssh ssh-keygen ssh-add scp rsync gpg openssl apt apt-get apt-cache dpkg "
    "dpkg-query python3 pip3 make gcc ld strip objdump file less diff patch ps kill top free "
    "uname hostname ip ping systemctl journalctl useradd passwd su sudo mount umount lsblk "
    "chromium node npm sqlite3 jq unzip zip shred"
).split()


def _roff_text(line: str) -> str:
    for escape, plain in _ROFF_ESCAPES.items():
        line = line.replace(escape, plain)
    line = _ROFF_FONT.sub("", line)
    return " ".join(_ROFF_REST.sub("", line).split())


def _man_sections(source: str) -> dict[str, list[list[str]]]:
    """Section name -> paragraphs (lists of text lines), options as their own paragraphs."""
    sections: dict[str, list[list[str]]] = {}
    current: list[list[str]] | None = None
    para: list[str] = []

    def close() -> None:
        nonlocal para
        if current is not None and para:
            current.append(para)
        para = []

    tagged = False
    for raw in source.splitlines():
        if raw.startswith(('.\\"', "'\\\"")):
            continue
        if raw.startswith(".SH"):
            close()
            name = _roff_text(raw[3:]).strip('"').upper()
            current = sections.setdefault(name, [])
            continue
        if raw.startswith((".PP", ".LP", ".P ", ".IP", ".sp", ".TP", ".HP", ".RS", ".RE", ".br")):
            close()
            tagged = raw.startswith(".TP")
            continue
        if raw.startswith((".B ", ".I ", ".BR ", ".IR ", ".BI ", ".RB ", ".IB ", ".RI ")):
            text = _roff_text(raw.split(" ", 1)[1].replace('"', ""))
        elif raw.startswith("."):
            continue
        else:
            text = _roff_text(raw)
        if not text:
            continue
        if tagged and not para:
            para = [text + ":"]
            continue
        para.append(text)
    close()
    return sections


def man_pages(sample: int, rng: random.Random) -> Harvest:
    """A command note from each sampled page's NAME line ("tool: what it does"), the
    first paragraph of its description, and two of its options."""
    pages = sorted(
        p for sec in ("man1", "man5", "man8") for p in Path(f"/usr/share/man/{sec}").glob("*.gz")
    )
    for path in rng.sample(pages, min(sample, len(pages))):
        try:
            source = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
        except (OSError, EOFError):
            continue
        if source.startswith(".so "):
            continue  # an alias of another page
        doc = f"man:{path.name}"
        sections = _man_sections(source)
        name = " ".join(" ".join(p) for p in sections.get("NAME", []))
        if " - " in name:
            tool, what = name.split(" - ", 1)
            yield doc, f"{tool.strip()}: {what.strip()}"
        description = [" ".join(p) for p in sections.get("DESCRIPTION", []) if len(p) > 0]
        prose = [p for p in description if not p.endswith(":") and len(p) > 40]
        if prose:
            yield doc, " ".join(_SENTENCE.split(prose[0])[:3])
        options = [
            " ".join(p)
            for p in sections.get("OPTIONS", [])
            if p[0].endswith(":") and len(p) > 1 and p[0].startswith("-")
        ]
        tool_name = path.name.split(".")[0]
        for option in rng.sample(options, min(2, len(options))):
            flag, _, what = option.partition(": ")
            yield doc, f"{tool_name} {flag}: {' '.join(_SENTENCE.split(what)[:2])}"


def help_output(rng: random.Random, per_tool: int = 12) -> Harvest:
    """Option lines of `TOOL --help`, as command notes ("tar -x, --extract: …")."""
    for tool in HELP_TOOLS:
        try:
            done = subprocess.run(
                [tool, "--help"],
                capture_output=True,
                text=True,
                timeout=5,
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.SubprocessError):
            continue
        lines = (done.stdout or done.stderr).splitlines()
        options = []
        for line in lines:
            match = _OPTION.match(line)
            if match:
                options.append(f"{tool} {match.group(1).strip()}: {match.group(2).strip()}")
        prose = [
            ln.strip()
            for ln in lines[:6]
            if len(ln.split()) >= 5 and not ln.strip().startswith("-")
        ]
        for text in prose[:1] + rng.sample(options, min(per_tool, len(options))):
            yield f"help:{tool}", text


def debian_descriptions() -> Harvest:
    """Each installed package's synopsis and the first paragraph of its description."""
    status = Path("/var/lib/dpkg/status").read_text("utf-8", "replace")
    for block in status.split("\n\n"):
        name = re.search(r"^Package: (\S+)", block, re.M)
        desc = re.search(r"^Description: (.*(?:\n .*)*)", block, re.M)
        if not name or not desc:
            continue
        head, *body = desc.group(1).split("\n")
        yield f"deb:{name.group(1)}", f"{name.group(1)}: {head.strip()}"
        paragraph: list[str] = []
        for line in body:
            if line.strip() == ".":
                break
            paragraph.append(line.strip())
        if len(paragraph) >= 2:
            yield f"deb:{name.group(1)}", " ".join(paragraph)


def share_doc(rng: random.Random, sample: int) -> Harvest:
    """Paragraphs of READMEs and NEWS files, and entries of Debian changelogs."""
    files = sorted(
        p
        for p in Path("/usr/share/doc").glob("*/*")
        if p.is_file() and re.match(r"(?i)(readme|news|changelog\.debian)", p.name)
    )
    for path in rng.sample(files, min(sample, len(files))):
        try:
            raw = path.read_bytes()
            text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8")
        except (OSError, EOFError, UnicodeDecodeError):
            continue
        doc = f"doc:{path.parent.name}"
        if "changelog" in path.name.lower():
            items = [ln.strip()[2:] for ln in text.splitlines() if ln.startswith("  * ")]
            for item in items[:3]:
                yield doc, item
            continue
        paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
        prose = [
            p for p in paragraphs if 60 <= len(p) <= 700 and p.count(" ") > 8 and "http" not in p
        ]
        for paragraph in prose[:2]:
            yield doc, paragraph


def python_docstrings(rng: random.Random, per_module: int = 3) -> Harvest:
    """The first paragraph of stdlib modules' docstrings and of some of their
    functions' and classes'."""
    warnings.simplefilter("ignore")
    for name in sorted(sys.stdlib_module_names):
        if name.startswith("_") or name in _SKIP_MODULES:
            continue
        try:
            module = importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a platform's missing module is just skipped
            continue
        doc = f"py:{name}"
        docs = [inspect.getdoc(module) or ""]
        members = [
            m for _, m in inspect.getmembers(module) if inspect.isfunction(m) or inspect.isclass(m)
        ]
        members = [m for m in members if getattr(m, "__module__", "") == name]
        docs += [
            inspect.getdoc(m) or "" for m in rng.sample(members, min(per_module, len(members)))
        ]
        for text in docs:
            first = " ".join(text.split("\n\n")[0].split())
            if len(first) >= 30:
                yield doc, first


def everything(rng: random.Random) -> Iterator[tuple[str, str, str]]:
    """(origin, document, text) for every harvested technical note."""
    for origin, harvest in (
        ("man", man_pages(1400, rng)),
        ("help", help_output(rng)),
        ("debian", debian_descriptions()),
        ("doc", share_doc(rng, 500)),
        ("python", python_docstrings(rng)),
    ):
        for doc, text in harvest:
            yield origin, doc, text
