"""Characters that hide text from a reader: refused from every source.

Zero-width characters, bidirectional controls, invisible operators, the BOM
and soft hyphen, C0 controls other than tab and newline, Unicode tag
characters (which can spell a whole hidden instruction in ASCII), and
variation selectors where they carry no glyph change (after ASCII, or in
runs, which is how bytes are smuggled). Allowed where writing needs them:
ZWJ/ZWNJ between non-ASCII letters or emoji (Persian, emoji families), the
direction marks (LRM, RLM, ALM) in text that holds right-to-left script
(Arabic and Hebrew writing uses them to order mixed runs), tag
characters inside a subdivision flag, and a single variation selector after
a symbol or emoji (❤️) or in a keycap (1️⃣).
"""

from __future__ import annotations

from substrate.safety.scanner.findings import Finding, rx
from substrate.safety.scanner.normalize import tag_payload

_KINDS = {
    **{
        c: "zero-width or invisible"
        for c in (0x200B, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF, 0x180E, 0x00AD)
    },
    **{
        c: "bidirectional control"
        for c in (0x200E, 0x200F, 0x061C, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
    },
}
_JOINERS = (0x200C, 0x200D)
_MARKS = frozenset({0x200E, 0x200F, 0x061C})
_NO_MARKS = dict.fromkeys(_MARKS)
_RTL = rx(r"[\p{Arabic}\p{Hebrew}\p{Syriac}\p{Thaana}\p{Nko}]")
_SUSPECT = rx(
    "["
    + "".join(f"\\x{{{c:04X}}}" for c in sorted(_KINDS))
    + "\\x{0000}-\\x{0008}\\x{000B}\\x{000C}\\x{000E}-\\x{001F}\\x{007F}"
    + "\\x{E0000}-\\x{E007F}\\x{200C}\\x{200D}\\x{FE00}-\\x{FE0F}\\x{E0100}-\\x{E01EF}]"
)
KEYCAP = 0x20E3
# A zero-width space or BOM next to a real space hides nothing (text pasted from
# a translation tool carries them): `strip_harmless` drops them from what is stored.
_HARMLESS_NEAR_SPACE = frozenset({0x200B, 0xFEFF, 0x2060})
_ZW_RUN = rx("[\\x{200B}\\x{FEFF}\\x{2060}]+")


def _beside_space(text: str, i: int) -> bool:
    """Inside a run of zero-width characters that follows a space (what a
    translation tool leaves), or a BOM opening the text. A run after a letter
    (`secret\u200b = …`) can hide what a name is, and is refused."""
    j = i
    while j > 0 and ord(text[j - 1]) in _HARMLESS_NEAR_SPACE:
        j -= 1
    if j == 0:
        return text[0] == "\ufeff"
    return text[j - 1] in (" ", "\n", "\t")


def strip_harmless(text: str) -> str:
    """The text without the zero-width characters `invisible` lets pass."""
    return str(_ZW_RUN.sub(lambda m: "" if _beside_space(text, m.start()) else m.group(0), text))


def invisible(text: str) -> Finding | None:
    rtl: bool | None = None
    for match in _SUSPECT.finditer(text):
        i = match.start()
        code = ord(text[i])
        if code in _HARMLESS_NEAR_SPACE and _beside_space(text, i):
            continue
        if code in _MARKS:
            rtl = bool(_RTL.search(text.translate(_NO_MARKS))) if rtl is None else rtl
            if rtl:
                continue
        kind = _KINDS.get(code)
        if kind is None and (code < 0x20 or code == 0x7F):
            kind = "control"
        if kind is None and 0xE0000 <= code <= 0xE007F and not _in_flag(text, i):
            hidden = tag_payload(text).strip()
            kind = "invisible tag" + (f" (spelling {hidden[:40]!r})" if hidden else "")
        if kind is None and code in _JOINERS and not _joins_visible(text, i):
            kind = "stray zero-width joiner"
        if kind is None and _is_selector(code) and _smuggling(text, i):
            kind = "variation selector"
        if kind is not None:
            return Finding("invisible_character", f"{kind} character U+{code:04X} at offset {i}")
    return None


def _is_selector(code: int) -> bool:
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def _smuggling(text: str, i: int) -> bool:
    """A selector that changes no glyph: after ASCII (but a keycap), or one of a run."""
    before = text[i - 1] if i > 0 else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    if after and _is_selector(ord(after)):
        return True
    if before and _is_selector(ord(before)):
        return True
    if not before:
        return True
    if ord(before) < 0x80:
        return not (after and ord(after) == KEYCAP)
    return False


def _joins_visible(text: str, i: int) -> bool:
    before = text[i - 1] if i > 0 else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    return bool(before and after) and ord(before) > 0x7F and ord(after) > 0x7F


def _in_flag(text: str, i: int) -> bool:
    j = i
    while j > 0 and 0xE0000 <= ord(text[j - 1]) <= 0xE007F:
        j -= 1
    return j > 0 and text[j - 1] == "\U0001f3f4"
