"""The one place this service compiles a regular expression: every pattern it
runs over text it did not write itself costs time linear in that text.

Python's `re` backtracks, and its `search` retries from every position: a
pattern as innocent as `^\\s*assistant:` under MULTILINE reads the rest of a
message from every one of its lines (quadratic: 40,000 newlines stalled the
service for 48 s). So no module imports `re` but this one (a test walks the
code), and a pattern is compiled by one of four constructors, each with the
reason its cost is bounded:

- `linear(pattern)`: RE2, whose automaton never backtracks. For anything with
  alternatives, anchors or context. RE2 has no backreferences and no
  look-around, its `\\b` is an ASCII word boundary, and `\\w` here is
  rewritten to letters and digits of every script.
- `runs(pattern)`: Python's `re`, for tokenizers on hot paths (RE2's binding
  costs ~20x more per match). Checked when compiled: a sequence of
  single-character items (a literal, a class, `.`), each repeated a bounded
  number of times except the last, which may repeat without bound (`\\w+`,
  `[A-Za-z]+`, `[^\\W\\d_][\\w'-]*`). Such a pattern fails within a bounded
  number of characters or matches to the end of a run, and the next search
  starts after the match: each character is read a bounded number of times.
- `anchored(pattern)`: Python's `re`, `match`/`fullmatch` only (one attempt,
  never retried from later positions), at most one unbounded repeat and no
  repeat inside another: one pass over the text.
- `short(pattern, max_chars)`: Python's `re` for patterns with look-around
  or several unbounded repeats (the promotion detectors), on text of at most
  `max_chars` characters (longer text is refused with `ValueError`: the
  caller bounds its input, as the statement extractor does); no nested
  repeats, so the cost is a small polynomial of a constant.
"""

from __future__ import annotations

import re
import re._constants as sre  # type: ignore[import-not-found]
import re._parser as sre_parse  # type: ignore[import-not-found]
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import re2  # type: ignore[import-untyped]

Flags = int
IGNORECASE = re.IGNORECASE
MULTILINE = re.MULTILINE
DOTALL = re.DOTALL

_SINGLE = {sre.LITERAL, sre.NOT_LITERAL, sre.IN, sre.ANY, sre.CATEGORY}
_REPEATS = {sre.MAX_REPEAT, sre.MIN_REPEAT}
_WORD = r"[\pL\pN_]"
_NOT_WORD = r"[^\pL\pN_]"


def linear(pattern: str, flags: Flags = 0, *, unicode_words: bool = True) -> Linear:
    """`pattern` on RE2 (linear time whatever the text), with `\\w` over every
    script (unless `unicode_words` is false: the scanner spells its classes
    itself). Compiled when first used (see `Linear`)."""
    inline = "".join(
        letter
        for flag, letter in ((IGNORECASE, "i"), (MULTILINE, "m"), (DOTALL, "s"))
        if flags & flag
    )
    prefix = f"(?{inline})" if inline else ""
    body = _unicode_words(pattern) if unicode_words else pattern
    ascii_body = _ascii_classes(pattern)
    return Linear(prefix + body, None if ascii_body is None else prefix + ascii_body)


def any_of(patterns: Sequence[Linear]) -> Linear:
    """One RE2 pattern matching wherever any of `patterns` (each from `linear`)
    does: a rule set is asked once whether anything fires, and each pattern
    only when something did. Besides the one pass instead of many (143
    injection patterns: 0.3 ms a short text in turn, 0.015 ms at once), each
    RE2 call gives up the interpreter lock, and under load every call waits its
    turn to take it back: a scan of 240 calls took 75 ms at p99."""
    full = "|".join(f"(?:{p.pattern})" for p in patterns)
    ascii_sources = [p.ascii_pattern for p in patterns]
    if any(source is None for source in ascii_sources):
        return Linear(full, None)
    return Linear(full, "|".join(f"(?:{source})" for source in ascii_sources))


class Linear:
    """An RE2 pattern, compiled on first use, in one of two equivalent forms.

    Compiling is most of a cold command's cost: the scanner's 264 patterns took
    240 ms, half of it the one union of the injection rules, and nearly all of
    that is the UTF-8 automata of the Unicode classes (`[\\pL\\pN_]`). On text
    that is all ASCII those classes match exactly what `[A-Za-z0-9_]` does, so
    such text is run on an ASCII twin of the pattern (the injection union: 13 ms
    instead of 118), and the Unicode form is compiled only when a text needs it.
    Each form is compiled once, when first needed; a pattern a text never
    reaches is never compiled (most rules run only after their union fired).
    Both forms get room for the DFA of patterns over Unicode classes (the
    default 8 MB makes RE2 fall back to its slower NFA) and no logging."""

    __slots__ = ("_ascii", "_full", "ascii_pattern", "pattern")

    def __init__(self, pattern: str, ascii_pattern: str | None) -> None:
        self.pattern = pattern
        self.ascii_pattern = ascii_pattern  # None: no twin, ASCII text uses the full form
        self._full: Any = None
        self._ascii: Any = None

    def _for(self, text: str) -> Any:
        if self.ascii_pattern is not None and text.isascii():
            if self._ascii is None:
                self._ascii = _compile(self.ascii_pattern)
            return self._ascii
        if self._full is None:
            self._full = _compile(self.pattern)
        return self._full

    def compile(self) -> Linear:
        """Both forms now (a test compiles every pattern of the product this way)."""
        self._for("a")
        self._for("\u00e9")
        return self

    def forms(self) -> tuple[Any, Any]:
        """(the Unicode form, the ASCII twin or None), compiled."""
        self.compile()
        return self._full, self._ascii

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        return self._for(text).search(text, pos, len(text) if endpos is None else endpos)

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        return self._for(text).match(text, pos, len(text) if endpos is None else endpos)

    def fullmatch(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        return self._for(text).fullmatch(text, pos, len(text) if endpos is None else endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[Any]:
        return self._for(text).finditer(text, pos, len(text) if endpos is None else endpos)  # type: ignore[no-any-return]

    def findall(self, text: str, pos: int = 0, endpos: int | None = None) -> list[Any]:
        return self._for(text).findall(text, pos, len(text) if endpos is None else endpos)  # type: ignore[no-any-return]

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        return self._for(text).split(text, maxsplit)  # type: ignore[no-any-return]

    def sub(self, repl: Any, text: str, count: int = 0) -> str:
        return self._for(text).sub(repl, text, count)  # type: ignore[no-any-return]

    def subn(self, repl: Any, text: str, count: int = 0) -> tuple[str, int]:
        return self._for(text).subn(repl, text, count)  # type: ignore[no-any-return]


def _compile(source: str) -> Any:
    options = re2.Options()
    options.max_mem = 64 << 20
    options.log_errors = False
    return re2.compile(source, options)


def _ascii_classes(pattern: str) -> str | None:
    r"""`pattern` as it reads on ASCII text: `\pL` as `A-Za-z`, `\pN` as `0-9`
    (bracketed outside a class), `\w` left ASCII as RE2 has it, `\Z` as RE2's
    `\z`; None when some other Unicode property remains (that pattern gets no
    ASCII twin)."""
    out: list[str] = []
    letters = {"L": "A-Za-z", "N": "0-9"}
    pieces = _pieces(pattern)
    for piece, in_class in pieces:
        if piece in (r"\p", r"\P"):
            name = next(pieces, ("", False))[0]
            if piece == r"\P" or name not in letters:
                return None
            out.append(letters[name] if in_class else f"[{letters[name]}]")
        else:
            out.append(r"\z" if piece == r"\Z" else piece)
    return "".join(out)


def _unicode_words(pattern: str) -> str:
    r"""`\w` and `\W` as every script's letters and digits (RE2's are ASCII);
    inside a class `[...]`, `\w` becomes `\pL\pN_`. `\\w` (an escaped backslash
    and a `w`) is left alone."""
    out: list[str] = []
    for piece, in_class in _pieces(pattern):
        if piece == r"\w":
            out.append(r"\pL\pN_" if in_class else _WORD)
        elif piece == r"\W" and not in_class:
            out.append(_NOT_WORD)
        else:
            out.append(r"\z" if piece == r"\Z" else piece)
    return "".join(out)


def _pieces(pattern: str) -> Iterator[tuple[str, bool]]:
    """The pattern's pieces in order, each with whether it stands inside a class
    `[...]`: an escape (a backslash and the character after it), a class's
    opening (`[` or `[^`, with a `]` right after it, which is a literal), or one
    character. The rewriters above work on these, so they agree on where a
    class begins and ends."""
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            yield pattern[i : i + 2], in_class
            i += 2
            continue
        if ch == "[" and not in_class:
            opening = "[^" if pattern.startswith("^", i + 1) else "["
            if pattern.startswith("]", i + len(opening)):  # a `]` first in a class is a literal
                opening += "]"
            yield opening, False
            in_class = True
            i += len(opening)
            continue
        if ch == "]" and in_class:
            in_class = False
        yield ch, in_class
        i += 1


def runs(pattern: str, flags: Flags = 0) -> re.Pattern[str]:
    """A tokenizer pattern on Python's `re` (see the module doc for the rule)."""
    items = sre_parse.parse(pattern, flags)
    for i, (op, arg) in enumerate(items):
        last = i == len(items) - 1
        if op in _SINGLE or op is sre.AT:
            continue
        if op in _REPEATS and _single_body(arg[2]):
            if arg[1] == sre.MAXREPEAT and not last:
                raise ValueError(f"runs({pattern!r}): only the last item may repeat without bound")
            continue
        raise ValueError(f"runs({pattern!r}): {op} is not a single-character item")
    return re.compile(pattern, flags)


def _single_body(body: Any) -> bool:
    return len(body) == 1 and body[0][0] in _SINGLE


class Anchored:
    """A pattern tried once, at the start of the text (`match`, `fullmatch`)."""

    def __init__(self, compiled: re.Pattern[str]) -> None:
        self._compiled = compiled

    def match(self, text: str) -> re.Match[str] | None:
        return self._compiled.match(text)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self._compiled.fullmatch(text)


def anchored(pattern: str, flags: Flags = 0) -> Anchored:
    """A pattern for `match`/`fullmatch` only (see the module doc for the rule)."""
    _check_repeats(pattern, flags, unbounded=1)
    return Anchored(re.compile(pattern, flags))


class Short:
    """A pattern applied only to text of at most `max_chars` characters."""

    def __init__(self, compiled: re.Pattern[str], max_chars: int) -> None:
        self._compiled = compiled
        self.max_chars = max_chars

    @property
    def pattern(self) -> str:
        return self._compiled.pattern

    def _bounded(self, text: str) -> str:
        if len(text) > self.max_chars:
            raise ValueError(
                f"pattern {self._compiled.pattern[:40]!r} is for text of at most "
                f"{self.max_chars} characters, got {len(text)}"
            )
        return text

    def match(self, text: str) -> re.Match[str] | None:
        return self._compiled.match(self._bounded(text))

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self._compiled.fullmatch(self._bounded(text))

    def search(self, text: str) -> re.Match[str] | None:
        return self._compiled.search(self._bounded(text))

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str, count: int = 0) -> str:
        return self._compiled.sub(repl, self._bounded(text), count)


def short(pattern: str, max_chars: int, flags: Flags = 0) -> Short:
    """Any pattern without a repeat inside a repeat or a backreference, for text of
    at most `max_chars` characters (see the module doc)."""
    _check_repeats(pattern, flags, unbounded=3)
    return Short(re.compile(pattern, flags), max_chars)


def _check_repeats(pattern: str, flags: Flags, unbounded: int) -> None:
    found = _walk(sre_parse.parse(pattern, flags), pattern, inside_repeat=False)
    if found > unbounded:
        raise ValueError(f"{pattern!r}: {found} unbounded repeats, at most {unbounded} allowed")


def _walk(items: Any, pattern: str, inside_repeat: bool) -> int:
    """How many unbounded repeats `items` holds; refuses backreferences and a
    repeat (of more than one) nested in another."""
    count = 0
    for op, arg in items:
        if op in (sre.GROUPREF, sre.GROUPREF_EXISTS):
            raise ValueError(f"{pattern!r}: backreferences are not allowed")
        if op in _REPEATS:
            if inside_repeat and arg[1] > 1:
                raise ValueError(f"{pattern!r}: a repeat inside a repeat")
            count += arg[1] == sre.MAXREPEAT
            count += _walk(arg[2], pattern, inside_repeat=inside_repeat or arg[1] > 1)
        elif op is sre.SUBPATTERN:
            count += _walk(arg[3], pattern, inside_repeat)
        elif op is sre.BRANCH:
            count += max((_walk(b, pattern, inside_repeat) for b in arg[1]), default=0)
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            count += _walk(arg[1], pattern, inside_repeat)
        elif op is sre.ATOMIC_GROUP:
            count += _walk(arg, pattern, inside_repeat)
    return count


def escape(text: str) -> str:
    """`text` as a literal inside a pattern of any of these constructors."""
    return re.escape(text)
