"""Compaction of USER.md / MEMORY.md through the model, with a backup.

The model rewrites the file shorter; its text is judged like any model-written
text (the strict scanner) and held to the file's budget. The model is asked
outside the profile lease (it may take seconds); the write happens under it,
drift-aware against the file as the model saw it, after a timestamped backup
of that file. `restore` puts a backup back (backing up what it replaces)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from substrate.config.settings import Settings
from substrate.curation.operations import lease
from substrate.errors import InvalidInputError, NotFoundError
from substrate.llm import ChatClient, LlmAnswerError
from substrate.profile import check_profile_text, profile_path
from substrate.safety import anchored, read_text_snapshot, strip_hidden_reasoning, write_atomic

COMPACTABLE = ("USER.md", "MEMORY.md")
_BACKUP = anchored(r"(USER|MEMORY)\.md\.\d{8}T\d{6}\d{0,6}Z\.bak")
SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["text"],
    "properties": {"text": {"type": "string"}},
}
SYSTEM = (
    "You compact a memory file of an assistant's user: merge duplicates, drop what "
    "later lines contradict, keep every distinct fact and preference, keep the "
    'markdown bullet style. Answer with the JSON object {"text": <the whole new file>}.'
)


def backups_dir(settings: Settings) -> Path:
    return settings.workspace.memory_dir / "profile" / "backups"


def _backup(settings: Settings, name: str, text: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    path = backups_dir(settings) / f"{name}.{stamp}.bak"
    write_atomic(path, text)
    return path


def compact(settings: Settings, client: ChatClient, name: str) -> dict[str, Any]:
    if name not in COMPACTABLE:
        raise InvalidInputError(f"compact: {name!r} is not one of {', '.join(COMPACTABLE)}")
    path = profile_path(settings.workspace, name)
    text, snapshot = read_text_snapshot(path)
    if not text.strip():
        raise InvalidInputError(f"memory/profile/{name} is empty: nothing to compact")
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]
    answer = client.complete_json(messages, SCHEMA, "profile_compaction")
    new = answer.data.get("text")
    if not isinstance(new, str) or not new.strip():
        raise LlmAnswerError("compaction answer has no text")
    new = strip_hidden_reasoning(new).strip() + "\n"
    check_profile_text(settings, name, new, new, "llm")  # model-written: strict
    with lease(settings):
        backup = _backup(settings, name, text)
        write_atomic(path, new, snapshot)
    return {
        "file": name,
        "before_chars": len(text),
        "after_chars": len(new),
        "backup": backup.name,
        "tokens": answer.usage.as_json(),
    }


def restore(settings: Settings, backup_name: str) -> dict[str, Any]:
    """Put a backup back in place; what it replaces is backed up first."""
    if not _BACKUP.fullmatch(backup_name):
        raise InvalidInputError(
            f"restore: {backup_name!r} is not a backup name (see memory/profile/backups/)"
        )
    source = backups_dir(settings) / backup_name
    saved, _ = read_text_snapshot(source)
    if not source.exists():
        raise NotFoundError(f"no backup {backup_name!r} in memory/profile/backups/")
    name = backup_name.split(".md.", 1)[0] + ".md"
    path = profile_path(settings.workspace, name)
    check_profile_text(settings, name, saved, "", "user")  # the budget still holds
    with lease(settings):
        current, snapshot = read_text_snapshot(path)
        replaced = _backup(settings, name, current)
        write_atomic(path, saved, snapshot)
    return {"file": name, "restored": backup_name, "backup_of_replaced": replaced.name}
