"""The static `<info>` block: the aggregate views, then what is still pending.

`essentials.md`, `threads.md` and `recent.md` in that order (a view holding
nothing but headings is left out), then the newest buffer entries, up to a
cap, read through the buffer module's matcher. The block is rendered
whenever the concept-page substrate is active (tier v3 or v2). Its text is
escaped like the card's, so a view can never close the block.
"""

from __future__ import annotations

from html import escape

from substrate.config import VIEW_FILES, Settings, uses_concept_page_memory
from substrate.intake import format_timestamp, read_buffer

PENDING_NOTE = "Remembered recently, not yet filed into pages:"


def render_info(settings: Settings, max_entries: int) -> str:
    if not uses_concept_page_memory(settings.config):
        return ""
    sections = []
    for name in VIEW_FILES:
        text = _view_text(settings, name)
        if text:
            tag = name.removesuffix(".md")
            sections.append(f"<{tag}>\n{escape(text, quote=False)}\n</{tag}>")
    entries = read_buffer(settings)[-max_entries:] if max_entries > 0 else []
    if entries:
        lines = [
            f"- [{format_timestamp(e.at)}] {escape(' '.join(e.text.split()), quote=False)}"
            for e in entries
        ]
        sections.append("<pending>\n" + PENDING_NOTE + "\n" + "\n".join(lines) + "\n</pending>")
    if not sections:
        return ""
    return "<info>\n" + "\n".join(sections) + "\n</info>"


def _view_text(settings: Settings, name: str) -> str:
    try:
        text = settings.workspace.view_path(name).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ""
    has_content = any(line.strip() and not line.startswith("#") for line in text.splitlines())
    return text if has_content else ""
