"""The static `<info>` block: the aggregate views, then what is still pending.

`essentials.md`, `threads.md` and `recent.md` in that order (a view holding
nothing but headings is left out), then the newest buffer entries, up to a
cap, read through the buffer module's matcher. The block is rendered
whenever the concept-page substrate is active (tier v3 or v2). Its text is
escaped like the card's, so a view can never close the block.
"""

from __future__ import annotations

from injector.render import fit_escaped
from substrate.config import VIEW_FILES, Settings, uses_concept_page_memory
from substrate.errors import InvalidInputError
from substrate.intake import BufferEntry, format_timestamp, read_buffer
from substrate.safety import read_text_file

PENDING_NOTE = "Remembered recently, not yet filed into pages:"
OPEN = "<info>\n"
CLOSE = "\n</info>"
ENTRY_CHARS = 500
MIN_SECTION = 40
VIEW_BYTES = 1024 * 1024  # a view is cut to a quarter of `info_chars` anyway


def render_info(settings: Settings, max_entries: int) -> str:
    """The block within `memory.limits.info_chars`, so a 10 MB fact or view can
    never flood every turn: each view cut to a quarter of the budget, then as
    many of the newest entries as fit in what is left (each cut to
    `ENTRY_CHARS`), so a long view never crowds out what is pending."""
    if not uses_concept_page_memory(settings.config):
        return ""
    room = settings.limits.info_chars - len(OPEN) - len(CLOSE)
    view_room = room // (len(VIEW_FILES) + 1)
    sections: list[str] = []
    for name in VIEW_FILES:
        text = _view_text(settings, name)
        tag = name.removesuffix(".md")
        section = _section(tag, text, view_room) if text else ""
        if section:
            sections.append(section)
            room -= len(section) + 1
    entries = read_buffer(settings)[-max_entries:] if max_entries > 0 else []
    pending = _pending(entries, room)
    if pending:
        sections.append(pending)
    if not sections:
        return ""
    return OPEN + "\n".join(sections) + CLOSE


def _section(tag: str, text: str, room: int) -> str:
    wrapper = len(f"<{tag}>\n\n</{tag}>")
    body = fit_escaped(text, room - wrapper) if room - wrapper >= MIN_SECTION else ""
    return f"<{tag}>\n{body}\n</{tag}>" if body else ""


def _pending(entries: list[BufferEntry], room: int) -> str:
    """The newest entries that fit, in file order."""
    room -= len("<pending>\n" + PENDING_NOTE + "\n\n</pending>")
    lines: list[str] = []
    for entry in reversed(entries):
        text = " ".join(entry.text.split())
        line = f"- [{format_timestamp(entry.at)}] {fit_escaped(text, ENTRY_CHARS)}"
        if len(line) + 1 > room:
            break
        lines.append(line)
        room -= len(line) + 1
    if not lines:
        return ""
    return "<pending>\n" + PENDING_NOTE + "\n" + "\n".join(reversed(lines)) + "\n</pending>"


def _view_text(settings: Settings, name: str) -> str:
    try:
        text = (read_text_file(settings.workspace.view_path(name), VIEW_BYTES) or "").strip()
    except (OSError, UnicodeDecodeError, InvalidInputError):
        return ""
    has_content = any(line.strip() and not line.startswith("#") for line in text.splitlines())
    return text if has_content else ""
