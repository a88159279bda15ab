"""The `remember` write path: scanner → archive + buffer, atomically.

Both files are rewritten atomically under the buffer lock. The archive is
written first; if the buffer write then fails (drift, disk), the archive is
restored, so a fact is either in both files or in neither.
"""

from __future__ import annotations

from datetime import UTC, datetime

from substrate.config.settings import Settings
from substrate.config.tiers import is_memory_enabled
from substrate.errors import InvalidInputError, MemoryServiceError
from substrate.intake.buffer import BufferEntry, format_entry, parse_buffer, with_hints
from substrate.pages.slugs import validate_slug
from substrate.safety.locks import hold_lock
from substrate.safety.safe_files import read_text_snapshot, write_atomic
from substrate.safety.scanner import scan_text


def remember(
    settings: Settings, text: str, hints: list[str] | None = None, now: datetime | None = None
) -> BufferEntry:
    """Append one fact to the buffer and today's archive; returns the stored entry."""
    if not is_memory_enabled(settings.config):
        raise MemoryServiceError("memory is disabled (memory.enabled = false); nothing was saved")
    hint_slugs = [validate_slug(h.strip()) for h in hints or []]
    cleaned = scan_text(text).strip()
    if not cleaned:
        raise InvalidInputError("text is empty; nothing was saved")
    stamped = (now or datetime.now(UTC)).astimezone(UTC).replace(second=0, microsecond=0)
    entry_text = format_entry(stamped, with_hints(cleaned, hint_slugs))
    ws = settings.workspace
    with hold_lock(ws.buffer_lock_path, purpose="buffer"):
        archive_path = ws.archive_dir / f"{stamped:%Y-%m-%d}.md"
        archive, archive_snap = read_text_snapshot(archive_path)
        buffer, buffer_snap = read_text_snapshot(ws.buffer_path)
        new_archive = _appended(archive or f"# Archive {stamped:%Y-%m-%d}\n\n", entry_text)
        new_buffer = _appended(buffer or "# Buffer\n\n", entry_text)
        write_atomic(archive_path, new_archive, expected=archive_snap)
        try:
            write_atomic(ws.buffer_path, new_buffer, expected=buffer_snap)
        except BaseException:
            write_atomic(archive_path, archive) if archive_snap.exists else archive_path.unlink()
            raise
    return parse_buffer(new_buffer)[-1]


def _appended(existing: str, entry: str) -> str:
    return existing + ("" if existing.endswith("\n") else "\n") + entry


def read_buffer(settings: Settings) -> list[BufferEntry]:
    text, _ = read_text_snapshot(settings.workspace.buffer_path)
    return parse_buffer(text)
