"""Keyed fingerprints: how a forgotten item is recognised without keeping it.

A forget keeps no words, yet a repeat must be recognised ("already forgotten"),
a re-imported export must not bring a forgotten message back, and `doctor`
must be able to prove that no product file still holds a forgotten fact. So
a tombstone keeps an HMAC-SHA256 of the item's normalized text under a key of
this workspace: equal texts give equal fingerprints, and without the key a
fingerprint says nothing about the text it came from.

The key is 32 random bytes in `memory/.forget-key`, made on first use (an
exclusive create: two processes racing agree on one key). It lives under
`memory/` so that deleting `.substrate/` keeps it (tombstones would otherwise
stop matching), and nothing ever exports it. What a keyed hash does not
protect: anyone holding the key and a guess (a phone number has few enough
values to try them all) can confirm the guess; `docs/guarantees.md` says so.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
from pathlib import Path

from substrate.config.workspace import Workspace
from substrate.errors import InvalidInputError, StaleWriteError
from substrate.safety import FileSnapshot, read_regular_file, write_atomic

KEY_FILE = ".forget-key"
KEY_BYTES = 32
PREFIX = "h:"
DIGEST_HEX = 32  # 128 bits of the HMAC: collisions are not a concern at any workspace's size

_KEYS: dict[Path, bytes] = {}
_GUARD = threading.Lock()


def key_path(workspace: Workspace) -> Path:
    return workspace.memory_dir / KEY_FILE


def forget_key(workspace: Workspace) -> bytes:
    """This workspace's fingerprint key, made once (never replaced: every
    tombstone already written depends on it)."""
    path = key_path(workspace)
    with _GUARD:
        known = _KEYS.get(path)
        if known is not None:
            return known
        key = _read_key(path)
        if key is None:
            fresh = os.urandom(KEY_BYTES).hex()
            try:
                write_atomic(path, fresh, FileSnapshot(path, None, 0, 0))
                os.chmod(path, 0o600)
            except (OSError, StaleWriteError):
                pass  # another process made it first, or the folder is read-only
            key = _read_key(path)
            if key is None:
                raise InvalidInputError(f"{path}: cannot create the forget key")
        _KEYS[path] = key
        return key


def _read_key(path: Path) -> bytes | None:
    try:
        raw = read_regular_file(path, 1024).decode("ascii").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"{path}: not a forget key ({exc})") from None
    try:
        key = bytes.fromhex(raw)
    except ValueError:
        raise InvalidInputError(f"{path}: not a forget key (expected hex)") from None
    if len(key) != KEY_BYTES:
        raise InvalidInputError(f"{path}: not a forget key ({len(key)} bytes)")
    return key


def normalized(text: str) -> str:
    """What two mentions of the same words share: spacing and case folded."""
    return " ".join(text.split()).casefold()


def fingerprint(workspace: Workspace, text: str) -> str:
    """The keyed fingerprint of `text` (normalized first)."""
    return _keyed(workspace, normalized(text))


def message_fingerprint(
    workspace: Workspace, session_id: str, role: str, at: float, text: str
) -> str:
    """A logged message's fingerprint: the same session, role, time (to the
    millisecond) and words. An export imported again gives its items the same
    one; the same words said in a new message do not."""
    return _keyed(workspace, "\0".join([session_id, role, f"{at:.3f}", normalized(text)]))


# A forgotten message is found again by its words within this window of its
# time, whatever conversation an export puts it in (`message_word_prints`).
WORDS_WINDOW_S = 120.0


def loose(text: str) -> str:
    """The words alone: case, spacing and punctuation folded away (an export
    that changes a final stop or a quote mark still says the same words)."""
    kept = "".join(ch if ch.isalnum() else " " for ch in text.casefold())
    return " ".join(kept.split())


def message_word_print(workspace: Workspace, role: str, at: float, text: str) -> str:
    """A forgotten message's print by its words and its time's window, in no
    conversation: what a re-import with a new conversation id, a time shifted
    by seconds or other punctuation still matches (`message_word_prints`)."""
    window = int(at // WORDS_WINDOW_S)
    return _keyed(workspace, "\0".join(["words", role, str(window), loose(text)]))


def message_word_prints(workspace: Workspace, role: str, at: float, text: str) -> set[str]:
    """The prints a message arriving at `at` matches: its window's and each
    neighbour's, so a time shifted across a window's edge still matches."""
    return {
        message_word_print(workspace, role, at + shift, text)
        for shift in (-WORDS_WINDOW_S, 0.0, WORDS_WINDOW_S)
    }


# A split message's pieces: each proper prefix and suffix of its words, of at
# least this many words, up to this many words of the message.
PIECE_MIN_WORDS = 2
PIECE_MAX_WORDS = 200
PIECE_HEX = 16  # 64 bits: a piece is matched only within its window and role


def message_piece_prints(workspace: Workspace, role: str, at: float, text: str) -> list[str]:
    """What a forgotten message keeps so that an export splitting it over two
    messages is still matched: a keyed print of every proper prefix and suffix
    of its words (no words kept), in its time's window."""
    words = loose(text).split()[:PIECE_MAX_WORDS]
    window = int(at // WORDS_WINDOW_S)
    pieces = {" ".join(words[:n]) for n in range(PIECE_MIN_WORDS, len(words))}
    pieces |= {" ".join(words[n:]) for n in range(1, len(words) - PIECE_MIN_WORDS + 1)}
    return sorted(_piece(workspace, role, window, piece) for piece in pieces)


def message_as_piece(workspace: Workspace, role: str, at: float, text: str) -> set[str]:
    """The prints a message arriving at `at` matches as a piece of a forgotten
    one: its own words in its window and each neighbour's."""
    words = loose(text)
    if len(words.split()) < PIECE_MIN_WORDS:
        return set()
    window = int(at // WORDS_WINDOW_S)
    return {_piece(workspace, role, window + shift, words) for shift in (-1, 0, 1)}


def _piece(workspace: Workspace, role: str, window: int, words: str) -> str:
    return _keyed(workspace, "\0".join(["piece", role, str(window), words]))[
        : len(PREFIX) + PIECE_HEX
    ]


def _keyed(workspace: Workspace, value: str) -> str:
    digest = hmac.new(forget_key(workspace), value.encode("utf-8", "surrogatepass"), hashlib.sha256)
    return PREFIX + digest.hexdigest()[:DIGEST_HEX]
