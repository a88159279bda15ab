"""What the rules look at: the text as a reader would understand it.

An attack that the patterns would catch in plain text hides behind a
transformation a model undoes without noticing: full-width or styled letters
(NFKC), upper case, a Cyrillic `о` for a Latin `o`, zero-width characters
inside words ("ign\u200bore"), letters spaced out ("i g n o r e"), leetspeak,
runs of punctuation, tag characters that encode ASCII invisibly, or an
instruction wrapped in base64, hex or URL encoding. `views` returns the
texts the rules run on: the folded text, the same with spaced letters and
leetspeak joined, the decoded tag payload, and each decoded blob. Rules match
any view, so a transformation can only ever add a match, never remove one.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import unicodedata
import urllib.parse
from dataclasses import dataclass

from substrate.safety.scanner.findings import rx

# Characters that change nothing a reader sees: zero-width, joiners, word
# joiner, invisible operators, BOM, soft hyphen, Mongolian vowel separator,
# variation selectors (both blocks) and tag characters.
_INVISIBLE = rx(
    "[\\x{200B}-\\x{200F}\\x{2060}-\\x{2064}\\x{FEFF}\\x{00AD}\\x{180E}"
    "\\x{FE00}-\\x{FE0F}\\x{E0100}-\\x{E01EF}\\x{E0000}-\\x{E007F}"
    "\\x{202A}-\\x{202E}\\x{2066}-\\x{2069}\\x{061C}]"
)
_TAGS = rx("[\\x{E0020}-\\x{E007E}]+")
_SPACES = rx(r"[ \t\r\f\v\x{00A0}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}]+")
_NEWLINES = rx(r"\s*\n\s*")
_SPACED_SEPARATORS = rx(r"[ .\-_*]")
_HEX_SEPARATORS = rx(r"[ :]")
# "i g n o r e", "i.g.n.o.r.e", "i-g-n-o-r-e": four or more single letters.
_SPACED = rx(r"\b(?:\pL[ .\-_*]){3,}\pL\b")
_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
)
_LEET_WORD = rx(r"\b\w*[a-z]\w*\b")
_BASE64 = rx(r"[A-Za-z0-9+/]{24,}={0,2}")
_HEX = rx(r"\b(?:[0-9a-fA-F]{2}[ :]?){12,}\b")
# A token with three or more %XX escapes, whatever sits between them.
_URLENC = rx(r"[A-Za-z0-9._~+\-]*(?:%[0-9a-fA-F]{2}[A-Za-z0-9._~+\-]*){3,}")

# Latin look-alikes from Cyrillic and Greek (and a few symbols), folded only for
# matching: a word mixing scripts is how a homoglyph hides "ignore".
CONFUSABLES = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "ѕ": "s",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "һ": "h",
        "ӏ": "l",
        "ɡ": "g",
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ω": "w",
        "γ": "y",
        "ı": "i",
        "ℓ": "l",
        "∕": "/",
        "⁄": "/",
    }
)
_LATIN = rx(r"[a-z]")
_CYRILLIC_OR_GREEK = rx(r"[\x{0370}-\x{03FF}\x{0400}-\x{04FF}]")


@dataclass(frozen=True)
class Views:
    """The texts the rules run on. `folded` is the primary view; every other is
    an alternative reading that may reveal what `folded` hides."""

    folded: str
    others: tuple[str, ...]

    def all(self) -> tuple[str, ...]:
        return (self.folded, *self.others)


def fold_lines(text: str) -> str:
    """NFKC with invisible characters out, lines kept: for the rules that read
    a text's shape (a `System:` line, a chat-template token)."""
    return str(_INVISIBLE.sub("", unicodedata.normalize("NFKC", text)))


def fold(text: str) -> str:
    """NFKC, invisible characters out, case-folded, whitespace runs to one space,
    runs of one punctuation mark to three."""
    text = unicodedata.normalize("NFKC", text)
    text = _INVISIBLE.sub("", text).casefold()
    text = _NEWLINES.sub("\n", _SPACES.sub(" ", text))
    return _punctuation_runs(text)


def _punctuation_runs(text: str) -> str:
    """Runs of one punctuation mark cut to three ("!!!!!!" -> "!!!"), in one pass."""
    if not any(a == b == c for a, b, c in zip(text, text[1:], text[2:], strict=False)):
        return text
    out: list[str] = []
    for char, group in itertools.groupby(text):
        run = sum(1 for _ in group)
        keep = min(run, 3) if not (char.isalnum() or char == "_" or char.isspace()) else run
        out.append(char * keep)
    return "".join(out)


def views(text: str) -> Views:
    folded = fold(text)
    others: list[str] = []
    homoglyphs = _fold_homoglyphs(folded)
    if homoglyphs != folded:
        others.append(homoglyphs)
    joined = _SPACED.sub(lambda m: _SPACED_SEPARATORS.sub("", m.group(0)), homoglyphs)
    leet = _LEET_WORD.sub(lambda m: m.group(0).translate(_LEET), joined)
    if leet != homoglyphs:
        others.append(leet)
    hidden = tag_payload(text)
    if hidden:
        others.append(fold(hidden))
    others.extend(fold(d) for d in decoded_blobs(text))
    return Views(folded, tuple(others))


def _fold_homoglyphs(text: str) -> str:
    """Look-alikes folded inside words that also hold Latin letters (`ignоre`),
    and in all-look-alike words only when the text is otherwise Latin, so
    Russian and Greek prose stays what it is."""
    if not _CYRILLIC_OR_GREEK.search(text):
        return text
    words = text.split(" ")
    latin = sum(1 for w in words if _LATIN.search(w))
    mostly_latin = latin >= len(words) / 2
    out = []
    for word in words:
        if _CYRILLIC_OR_GREEK.search(word) and (_LATIN.search(word) or mostly_latin):
            out.append(word.translate(CONFUSABLES))
        else:
            out.append(word)
    return " ".join(out)


_WORD = rx(r"[\pL\pM]+")
_LATIN_LETTER = rx(r"\p{Latin}")


def mixed_script_word(folded: str) -> str | None:
    """A word spelled with Latin letters and Cyrillic or Greek look-alikes
    ("sеcurе", "ехес"): nobody types one by accident, and it is how a
    spoofed domain or a hidden keyword gets past a reader."""
    if not _CYRILLIC_OR_GREEK.search(folded):
        return None
    for match in _WORD.finditer(folded):
        word: str = match.group(0)
        if not (_LATIN_LETTER.search(word) and _CYRILLIC_OR_GREEK.search(word)):
            continue
        foreign = [ch for ch in word if _CYRILLIC_OR_GREEK.search(ch)]
        if all(ch.translate(CONFUSABLES) != ch for ch in foreign):
            return word
    return None


def tag_payload(text: str) -> str:
    """ASCII hidden as Unicode tag characters (U+E0020..E007E), decoded."""
    return " ".join(
        "".join(chr(ord(ch) - 0xE0000) for ch in m.group(0)) for m in _TAGS.finditer(text)
    )


def decoded_blobs(text: str, limit: int = 8) -> list[str]:
    """base64, hex and URL-encoded runs that decode to readable text."""
    out: list[str] = []
    for match in _BASE64.finditer(text):
        blob = match.group(0)
        try:
            raw = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=False)
        except (binascii.Error, ValueError):
            continue
        _keep(out, raw)
        if len(out) >= limit:
            return out
    for match in _HEX.finditer(text):
        try:
            raw = bytes.fromhex(_HEX_SEPARATORS.sub("", match.group(0)))
        except ValueError:
            continue
        _keep(out, raw)
    for match in _URLENC.finditer(text):
        _keep(out, urllib.parse.unquote_to_bytes(match.group(0).replace("+", " ")))
    return out[:limit]


def _keep(out: list[str], raw: bytes) -> None:
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return
    printable = sum(1 for ch in decoded if ch.isprintable() or ch in "\n\t")
    letters = sum(1 for ch in decoded if ch.isalpha())
    if len(decoded) >= 8 and printable / len(decoded) > 0.95 and letters / len(decoded) > 0.5:
        out.append(decoded)
