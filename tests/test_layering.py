"""Architecture rules, checked on the source with `ast`:

- dependency direction: service → injector → lanes → substrate, service → ingest → substrate;
- tier engines (`injector/v1`, `injector/v2`, `injector/v3`) never import each other,
  and the injector outside them is a frozen spine (`SPINE`): only its composers
  import engines, and engines never import the composers;
- inside `substrate`, rooms import one way (`SUBSTRATE_ROOMS`), every module lives in a room
  except the shared error tree, and only `substrate/__init__.py` re-exports across rooms;
- the tier switches `memory.v2.enabled` / `memory.v3.live` are read only in
  `substrate/config/tiers.py` (and declared and parsed in `substrate/config/schema.py` and
  `config_file.py`, which own the file format).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("substrate", "lanes", "injector", "ingest", "service")
ALLOWED: dict[str, set[str]] = {
    "substrate": set(),
    "lanes": {"substrate"},
    "injector": {"lanes", "substrate"},
    "ingest": {"substrate"},
    "service": {"substrate", "lanes", "injector", "ingest"},
}
# Each room of the substrate and the rooms it may import: one way, lowest first.
SUBSTRATE_ROOMS: dict[str, set[str]] = {
    "safety": set(),
    "config": {"safety"},
    "lineage": {"safety", "config"},
    # what a text means: whose words, which subject, which slot family, what it changes
    "meaning": {"safety", "config"},
    "pages": {"safety", "config", "lineage"},
    "intake": {"safety", "config", "lineage", "pages", "meaning"},
    "index": {"safety", "config", "pages", "intake"},
    "llm": {"safety", "config"},
    "consolidation": {
        *("safety", "config", "lineage", "meaning", "pages", "intake", "index", "llm"),
    },
    "sessions": {"safety", "config", "lineage"},
    "profile": {"safety", "config", "meaning"},
    "promotion": {"safety", "config", "lineage", "meaning", "sessions", "profile"},
    "curation": {
        *("safety", "config", "lineage", "meaning", "pages", "intake", "sessions", "profile"),
        "llm",
    },
    # the walk over lineage and the forget that follows it: above every room
    # that writes a derived record
    "forgetting": {
        *("safety", "config", "lineage", "meaning", "pages", "intake", "index", "llm"),
        *("consolidation", "sessions", "profile", "promotion", "curation"),
    },
}
SUBSTRATE_SHARED = {"errors", "lazy"}  # root modules every room may import
SWITCH_OWNERS = {
    "substrate/config/tiers.py",
    "substrate/config/keys.py",  # declares them, with every other key
    "substrate/config/template.py",  # writes `live = true` into a new workspace
    "substrate/config/schema.py",
    "substrate/config/config_file.py",
}
ENGINES = ("v1", "v2", "v3")
# The injector's spine: the frozen set of modules outside the engine packages.
# Only the composers (`assemble`, the package root) import engines; the rest are
# leaves every engine may use (blocks, rendering helpers, shared page state) and
# the blocks every tier shares (`<info>`, profile and recall).
SPINE = {
    "injector/__init__.py",
    "injector/assemble.py",
    "injector/blocks.py",
    "injector/info.py",
    "injector/render.py",
    "injector/page_state.py",
    "injector/trust.py",
}
COMPOSERS = {"injector/__init__.py", "injector/assemble.py"}


def imported_modules(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def layering_violations(rel: str, source: str) -> list[str]:
    package = rel.split("/", 1)[0]
    problems = []
    for module in imported_modules(ast.parse(source)):
        top = module.split(".", 1)[0]
        if top in PACKAGES and top != package and top not in ALLOWED[package]:
            problems.append(f"{rel}: {package} must not import {module}")
        parts = rel.split("/")
        if package == "injector" and len(parts) > 2 and parts[1] in ENGINES:
            mod_parts = module.split(".")
            if (
                mod_parts[0] == "injector"
                and len(mod_parts) > 1
                and mod_parts[1] in ENGINES
                and mod_parts[1] != parts[1]
            ):
                problems.append(f"{rel}: tier engine {parts[1]} must not import {module}")
    return problems


def spine_violations(rel: str, source: str) -> list[str]:
    """Injector modules outside the spine and the engines; engines reaching the
    composers; spine leaves importing an engine."""
    parts = rel.split("/")
    if parts[0] != "injector":
        return []
    in_engine = len(parts) > 2 and parts[1] in ENGINES
    if not in_engine and rel not in SPINE:
        return [f"{rel}: not a spine module (injector/{{{', '.join(ENGINES)}}}/ hold engines)"]
    problems = []
    for module in imported_modules(ast.parse(source)):
        mod = module.split(".")
        if mod[0] != "injector":
            continue
        if in_engine and (len(mod) == 1 or mod[1] == "assemble"):
            problems.append(f"{rel}: an engine must not import the spine's composer {module}")
        if not in_engine and rel not in COMPOSERS and len(mod) > 1 and mod[1] in ENGINES:
            problems.append(f"{rel}: only the composers import engines, not {module}")
    return problems


def room_violations(rel: str, source: str) -> list[str]:
    """Upward or sideways imports between substrate rooms, and modules outside any room."""
    parts = rel.split("/")
    if parts[0] != "substrate" or rel == "substrate/__init__.py":
        return []
    if len(parts) == 2:
        name = parts[1].removesuffix(".py")
        return (
            [] if name in SUBSTRATE_SHARED else [f"{rel}: every substrate module lives in a room"]
        )
    room = parts[1]
    if room not in SUBSTRATE_ROOMS:
        return [f"{rel}: {room} is not a known substrate room"]
    problems = []
    for module in imported_modules(ast.parse(source)):
        mod = module.split(".")
        if mod[0] != "substrate":
            continue
        if len(mod) == 1:
            problems.append(f"{rel}: a room imports rooms directly, not the package root")
        elif mod[1] not in {*SUBSTRATE_SHARED, room, *SUBSTRATE_ROOMS[room]}:
            problems.append(f"{rel}: room {room} must not import {module}")
    return problems


def switch_reads(rel: str, source: str) -> list[str]:
    if rel in SWITCH_OWNERS:
        return []
    problems = []
    for node in ast.walk(ast.parse(source)):
        text = node.value if isinstance(node, ast.Constant) else None
        if isinstance(text, str) and ("v2.enabled" in text or "v3.live" in text):
            problems.append(f"{rel}:{node.lineno}: names tier switch {text!r}")
        key = _section_key_read(node)
        if key in (("v2", "enabled"), ("v3", "live")):
            problems.append(f"{rel}:{node.lineno}: reads switch {key[0]}.{key[1]} directly")
    return problems


def _section_key_read(node: ast.AST) -> tuple[str, str] | None:
    """(section, key) for `x.v2.get("enabled")` or `x.v3["live"]`-shaped reads."""
    target: ast.AST | None = None
    key: ast.AST | None = None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
    ):
        target, key = node.func.value, node.args[0]
    elif isinstance(node, ast.Subscript):
        target, key = node.value, node.slice
    if (
        isinstance(target, ast.Attribute)
        and isinstance(key, ast.Constant)
        and isinstance(key.value, str)
    ):
        return target.attr, key.value
    return None


def source_files() -> list[tuple[str, str]]:
    files = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            files.append((path.relative_to(ROOT).as_posix(), path.read_text("utf-8")))
    return files


def test_dependency_direction() -> None:
    problems = [p for rel, src in source_files() for p in layering_violations(rel, src)]
    assert problems == []


def test_the_injector_is_a_frozen_spine_and_isolated_engines() -> None:
    problems = [p for rel, src in source_files() for p in spine_violations(rel, src)]
    assert problems == []
    present = {
        rel for rel, _ in source_files() if rel.count("/") == 1 and rel.startswith("injector/")
    }
    assert present == SPINE
    for engine in ENGINES:
        assert (ROOT / "injector" / engine / "__init__.py").is_file()


def test_spine_checker_catches_violations() -> None:
    assert spine_violations("injector/helpers.py", "") != []
    assert spine_violations("injector/v2/engine.py", "from injector import Injector") != []
    assert spine_violations("injector/v2/engine.py", "from injector.assemble import x") != []
    assert spine_violations("injector/v2/engine.py", "from injector.blocks import Blocks") == []
    assert spine_violations("injector/blocks.py", "from injector.v3 import V3Engine") != []
    assert spine_violations("injector/assemble.py", "from injector.v3 import V3Engine") == []


def test_substrate_rooms_import_one_way() -> None:
    problems = [p for rel, src in source_files() for p in room_violations(rel, src)]
    assert problems == []


def test_room_checker_catches_violations() -> None:
    assert room_violations("substrate/config/x.py", "from substrate.pages import parse_page") == [
        "substrate/config/x.py: room config must not import substrate.pages"
    ]
    assert room_violations("substrate/safety/x.py", "import substrate.config.tiers") != []
    assert (
        room_violations("substrate/pages/x.py", "from substrate.index.bm25 import tokenize") != []
    )
    assert room_violations("substrate/intake/x.py", "from substrate import remember") != []
    assert room_violations("substrate/loose.py", "") == [
        "substrate/loose.py: every substrate module lives in a room"
    ]
    assert room_violations("substrate/index/x.py", "from substrate.intake import remember") == []
    assert (
        room_violations("substrate/pages/x.py", "from substrate.errors import NotFoundError") == []
    )
    assert room_violations("substrate/pages/x.py", "from substrate.pages.slugs import x") == []


def test_tier_switches_are_read_only_by_the_predicates() -> None:
    problems = [p for rel, src in source_files() for p in switch_reads(rel, src)]
    assert problems == []


def test_checkers_catch_violations() -> None:
    assert layering_violations("substrate/x.py", "from service.cli import main") == [
        "substrate/x.py: substrate must not import service.cli"
    ]
    assert layering_violations("lanes/x.py", "import injector") != []
    assert layering_violations("ingest/x.py", "from lanes import y") != []
    assert layering_violations("injector/v3/card.py", "from injector.v2 import engine") == [
        "injector/v3/card.py: tier engine v3 must not import injector.v2"
    ]
    assert layering_violations("injector/assemble.py", "from injector.v2 import engine") == []
    assert switch_reads("lanes/x.py", "live = config.v3.get('live')") != []
    assert switch_reads("lanes/x.py", "on = settings.config.v2['enabled']") != []
    assert switch_reads("substrate/config/tuning.py", "k1 = config.v2.get('bm25_k1')") == []
    assert switch_reads("service/x.py", "key = 'memory.v3.live'") != []
    assert switch_reads("substrate/config/tiers.py", "live = config.v3.get('live')") == []
