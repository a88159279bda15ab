"""What is never filed, with the reason recorded: echoes of the blocks we
inject (an assistant that saves its own context back fills memory with
copies of memory), entries with nothing to say, and text the scanner refuses
now (its rules may have grown since the entry was remembered)."""

from __future__ import annotations

from substrate.safety import Scanner, has_echo, linear, runs

PHATIC = frozenset(
    """ok okay k kk thanks thank you thx ty cheers hi hello hey bye goodbye yes no yep
    nope sure great cool nice good fine lol haha hmm hm wow yay noted done right alright
    got it sounds good will do np""".split()
)
_WORD = runs(r"\w+")
_HINT = linear(r"\[\[[^\]]*\]\]")


def skip_reason(text: str, scanner: Scanner) -> str | None:
    """Why an entry must not be filed, or None when it may be."""
    if has_echo(text):
        return "echoes a block the assistant was shown (memory card, info or profile)"
    words = [w.lower() for w in _WORD.findall(_HINT.sub(" ", text))]
    if not words:
        return "empty: nothing to file"
    if all(w in PHATIC for w in words) and len(words) <= 4:
        return "phatic: an acknowledgement, not a fact"
    # the user's words, judged again by today's rules (the learned detector's
    # opinion alone never drops a user's fact)
    verdict = scanner.check(text, "user", learned=False)
    if not verdict.ok:
        return f"refused by scanner rule {verdict.rule!r}: {verdict.detail}"
    return None
