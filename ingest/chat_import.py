"""Chat-history import: conversations exported from another assistant become
root sessions of the conversation log, then capture learns from them.

Formats (`FORMATS`), each read from its public description:

- `chatgpt`: a ChatGPT data export's `conversations.json`: a list of
  conversations, each `{id or conversation_id, title, create_time, mapping,
  current_node}`; `mapping` is a tree of nodes `{message: {author: {role},
  create_time, content: {content_type, parts}}, parent, children}`. The
  branch the person last saw (from `current_node` up to the root) is read,
  oldest first; text parts only.
- `claude`: a Claude export's `conversations.json`: a list of
  `{uuid, name, created_at, chat_messages: [{sender: human|assistant, text,
  content: [{type: text, text}], created_at}]}`.
- `jsonl`: one JSON object per line, `{session, role, text, time}`; `time` is
  ISO 8601 or epoch seconds; role `user`, `assistant`, `system` or `tool`.

The structure says who spoke (a message's role), never the text: a user
message that holds "assistant:" is still the user's, and the scanner still
reads what capture takes from it. A session is `import:<format>:<id>` and
keeps its messages' own times. The whole file is checked before anything is
written. A conversation keeps the title its export gave it. Each conversation
is appended in one write (all its messages or
none), and a message already in the log (the same role, time and text in
that session, wherever it stands) is not appended again, so a rerun, or a
rerun after a kill, leaves every message there once; two conversations with
one id are two sessions. A message the person forgot (or cut a forgotten
fact's words out of) is recognised by its tombstone's keyed fingerprint
(the same session, role, time and words) and not brought back, nor anything
capture would learn from it, unless `include_forgotten` asks for it.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from substrate import InvalidInputError
from substrate.lineage import (
    Tombstones,
    message_as_piece,
    message_fingerprint,
    message_word_prints,
    read_tombstones,
)
from substrate.safety import read_regular_file, surrogate_offset
from substrate.sessions import LoggedMessage, NewMessage, SessionLog

FORMATS = ("chatgpt", "claude", "jsonl")
MAX_FILE = 1 << 30
ROLES = {"user": "user", "human": "user", "assistant": "assistant", "system": "system"}
ROLES |= {"tool": "tool"}
Progress = Callable[[int, int], None]
DAY_S = 86_400.0


@dataclass
class Conversation:
    session: str
    messages: list[NewMessage] = field(default_factory=list)
    title: str | None = None  # the name the export gave it


@dataclass
class Imported:
    format: str
    file: str
    dry_run: bool
    sessions: int = 0
    messages: int = 0
    appended: int = 0
    already: int = 0
    forgotten: int = 0
    skipped_messages: int = 0
    new_sessions: list[str] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)
    capture: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        saved = sum(int(c.get("saved", 0)) for c in self.capture)
        return {
            "format": self.format,
            "file": self.file,
            "dry_run": self.dry_run,
            "sessions": self.sessions,
            "new_sessions": len(self.new_sessions),
            "messages": self.messages,
            "appended": self.appended,
            "already_in_the_log": self.already,
            "skipped_as_forgotten": self.forgotten,
            "skipped_messages": self.skipped_messages,
            "captured": saved,
        }


def read_conversations(
    fmt: str, path: Path, now: float | None = None, data: bytes | None = None
) -> tuple[list[Conversation], int]:
    """The conversations of an export file, and how many of its messages were left
    out (no text, or a part that is not text). The whole file is read and checked
    before anything is written: a value of the wrong type, nesting too deep for
    the reader, a time outside 1970 … a day from now, or text that is not valid
    UTF-8 is refused, naming the conversation, the message and the field.
    `data`: the file's bytes, sent to a service (`path` then only names it)."""
    if fmt not in FORMATS:
        raise InvalidInputError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if data is None:
        data = read_regular_file(path, MAX_FILE)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path}: not UTF-8 (byte {exc.start})") from None
    check = Checks(time.time() if now is None else now)
    if fmt == "jsonl":
        return _unique(_jsonl(text, path, check)), 0
    doc = _json(text, str(path))
    if not isinstance(doc, list):
        raise InvalidInputError(f"{path}: a {fmt} export is a JSON list of conversations")
    read = _chatgpt if fmt == "chatgpt" else _claude
    out, skipped = [], 0
    for i, item in enumerate(doc):
        if not isinstance(item, dict):
            raise InvalidInputError(f"{path}: conversations[{i}] is not an object")
        conversation, left = read(item, f"{path}: conversations[{i}]", check)
        skipped += left
        if conversation.messages:
            out.append(conversation)
    return _unique(out), skipped


def import_conversations(
    log: SessionLog,
    fmt: str,
    path: Path,
    dry_run: bool = False,
    progress: Progress | None = None,
    include_forgotten: bool = False,
    data: bytes | None = None,
) -> Imported:
    """Append the export's conversations to the log (what is already there stays
    as it is, what was forgotten stays out unless `include_forgotten`); capture
    is the caller's next step, over `pending` (every session of the file that
    capture has not read to its end, so a run a kill or a full disk stopped is
    finished by the next)."""
    conversations, skipped = read_conversations(fmt, path, data=data)
    done = Imported(fmt, str(path), dry_run, skipped_messages=skipped)
    graves = None if include_forgotten else read_tombstones(log.workspace)
    for n, conversation in enumerate(conversations, start=1):
        done.sessions += 1
        done.messages += len(conversation.messages)
        row = log.session(conversation.session)
        logged = log.messages(conversation.session) if row is not None else []
        new = _not_logged(conversation.messages, Counter(_identity(m) for m in logged))
        done.already += len(conversation.messages) - len(new)
        kept = [m for m in new if graves is None or not _forgotten(log, graves, conversation, m)]
        done.forgotten += len(new) - len(kept)
        new = kept
        if row is None:
            done.new_sessions.append(conversation.session)
        ids = [m.id for m in logged]
        if new and not dry_run:
            started = conversation.messages[0].at or 0.0
            ids += log.append(conversation.session, new, started, title=conversation.title)
        if ids and not dry_run and log.capture_cursor(conversation.session) < ids[-1]:
            done.touched.append(conversation.session)
        done.appended += len(new)
        if progress is not None:
            progress(n, len(conversations))
    return done


def imported_session(log: SessionLog, given: str) -> str | None:
    """The logged session `given` names: itself, or the imported conversation whose
    export id it is (`import:<format>:<id>`), when exactly one format has it."""
    if log.session(given) is not None:
        return given
    found = [f"import:{f}:{given}" for f in FORMATS if log.session(f"import:{f}:{given}")]
    if len(found) > 1:
        raise InvalidInputError(
            f"{given!r} names {len(found)} imported conversations: {', '.join(found)}"
        )
    return found[0] if found else None


def _forgotten(log: SessionLog, graves: Tombstones, conversation: Any, message: NewMessage) -> bool:
    """A message the person forgot: the same message of the same conversation,
    or the same words said within the same time window in any conversation (an
    export that gave the conversation a new id, moved a time by seconds or
    changed a final stop), or the first or last words of such a message (an
    export that split it over two messages)."""
    if _print(log, conversation.session, message) in graves.message_prints:
        return True
    at = message.at or 0.0
    prints = message_word_prints(log.workspace, message.role, at, message.text)
    if graves.message_words & prints:
        return True
    return bool(
        graves.message_pieces & message_as_piece(log.workspace, message.role, at, message.text)
    )


def _print(log: SessionLog, session: str, message: NewMessage) -> str:
    """The keyed fingerprint a tombstone keeps of this message, were it forgotten."""
    at = message.at or 0.0
    return message_fingerprint(log.workspace, session, message.role, at, message.text)


def _identity(message: NewMessage | LoggedMessage) -> tuple[str, float, str]:
    """A message is the same message when its role, time and text are: an export's
    message found again whatever its position (a conversation continued, another
    branch, a message removed upstream)."""
    return (message.role, round(message.at or 0.0, 3), message.text)


def _not_logged(
    messages: list[NewMessage], have: Counter[tuple[str, float, str]]
) -> list[NewMessage]:
    new = []
    for message in messages:
        key = _identity(message)
        if have[key] > 0:
            have[key] -= 1
        else:
            new.append(message)
    return new


def _unique(conversations: list[Conversation]) -> list[Conversation]:
    """Two conversations of one file with one id are two sessions (`ID~2`, in file
    order, so a rerun finds each again), never one dropped."""
    seen: Counter[str] = Counter()
    out = []
    for conversation in conversations:
        seen[conversation.session] += 1
        n = seen[conversation.session]
        out.append(
            conversation
            if n == 1
            else Conversation(
                f"{conversation.session}~{n}", conversation.messages, conversation.title
            )
        )
    return out


def _json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise InvalidInputError(f"{where}: nested too deep to read") from None
    except ValueError as exc:
        raise InvalidInputError(f"{where}: not JSON ({exc})") from None


def _jsonl(text: str, path: Path, check: Checks) -> list[Conversation]:
    by_session: dict[str, Conversation] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        row = _json(line, where)
        if not isinstance(row, dict):
            raise InvalidInputError(f"{where}: expected an object {{session, role, text, time}}")
        session = check.text(row.get("session"), f"{where}: session")
        role = ROLES.get(check.text(row.get("role"), f"{where}: role").lower())
        if role is None:
            raise InvalidInputError(f"{where}: role must be user, assistant, system or tool")
        said = check.text(row.get("text"), f"{where}: text", empty=True)
        message = _message(role, said, check.time(row.get("time"), f"{where}: time"))
        if message is None:
            continue
        key = f"import:jsonl:{session}"
        by_session.setdefault(key, Conversation(key)).messages.append(message)
    return list(by_session.values())


def _chatgpt(item: dict[str, Any], where: str, check: Checks) -> tuple[Conversation, int]:
    ident = item.get("conversation_id") or item.get("id")
    mapping = item.get("mapping")
    if not isinstance(ident, str) or not isinstance(mapping, dict):
        raise InvalidInputError(f"{where}: a ChatGPT conversation has an id and a mapping")
    where = f"{where} ({check.text(ident, f'{where}.id')[:60]})"
    for key, node in mapping.items():
        _check_node(node, f"{where}.mapping[{key[:60]!r}]")
    fallback = item.get("create_time")
    conversation = Conversation(f"import:chatgpt:{ident}", title=_title(item.get("title")))
    skipped = 0
    for node_id, node in _branch(mapping, item.get("current_node")):
        message = node.get("message")
        if message is None:
            continue
        at_where = f"{where}.mapping[{node_id[:60]!r}].message"
        author = _object(message.get("author"), f"{at_where}.author")
        role = ROLES.get(
            check.text(author.get("role"), f"{at_where}.author.role", empty=True).lower()
        )
        content = _object(message.get("content"), f"{at_where}.content")
        parts = content.get("parts")
        if parts is not None and not isinstance(parts, list):
            raise InvalidInputError(f"{at_where}.content.parts: expected a list")
        texts = [
            check.text(p, f"{at_where}.content.parts", empty=True)
            for p in parts or []
            if isinstance(p, str)
        ]
        stamp = message.get("create_time")
        at = check.time(stamp if stamp is not None else fallback or 0.0, f"{at_where}.create_time")
        found = _message(role, "\n".join(texts), at) if role else None
        if found is None:
            skipped += role != "system" and bool(parts)
            continue
        conversation.messages.append(found)
    return conversation, skipped


def _title(value: Any) -> str | None:
    """The conversation's name in its export, kept as the session's title (a
    name that is not text is no title)."""
    if not isinstance(value, str) or surrogate_offset(value) is not None:
        return None
    return " ".join(value.split()) or None


def _check_node(node: Any, where: str) -> None:
    if not isinstance(node, dict):
        raise InvalidInputError(f"{where}: expected an object")
    parent, children, message = node.get("parent"), node.get("children"), node.get("message")
    if parent is not None and not isinstance(parent, str):
        raise InvalidInputError(f"{where}.parent: expected a node id (text) or null")
    if children is not None and (
        not isinstance(children, list) or not all(isinstance(c, str) for c in children)
    ):
        raise InvalidInputError(f"{where}.children: expected a list of node ids (text)")
    if message is not None and not isinstance(message, dict):
        raise InvalidInputError(f"{where}.message: expected an object or null")


def _object(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInputError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def _branch(mapping: dict[str, Any], current: Any) -> list[tuple[str, dict[str, Any]]]:
    """The nodes (id, node) from the root down to `current` (or, without it, down
    the first child of each node): the branch the person saw. Every node was
    checked (`_check_node`), and a cycle ends the walk."""
    seen: set[str] = set()
    chain: list[tuple[str, dict[str, Any]]] = []
    if isinstance(current, str) and current in mapping:
        node_id: Any = current
        while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
            seen.add(node_id)
            chain.append((node_id, mapping[node_id]))
            node_id = mapping[node_id].get("parent")
        return chain[::-1]
    roots = [k for k, n in mapping.items() if not n.get("parent")]
    node_id = roots[0] if roots else None
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        chain.append((node_id, mapping[node_id]))
        children = mapping[node_id].get("children") or []
        node_id = children[0] if children else None
    return chain


def _claude(item: dict[str, Any], where: str, check: Checks) -> tuple[Conversation, int]:
    ident = item.get("uuid")
    messages = item.get("chat_messages")
    if not isinstance(ident, str) or not isinstance(messages, list):
        raise InvalidInputError(f"{where}: a Claude conversation has a uuid and chat_messages")
    where = f"{where} ({check.text(ident, f'{where}.uuid')[:60]})"
    conversation = Conversation(f"import:claude:{ident}", title=_title(item.get("name")))
    skipped = 0
    for i, message in enumerate(messages):
        at_where = f"{where}.chat_messages[{i}]"
        if not isinstance(message, dict):
            raise InvalidInputError(f"{at_where} is not an object")
        role = ROLES.get(
            check.text(message.get("sender"), f"{at_where}.sender", empty=True).lower()
        )
        text = check.text(message.get("text"), f"{at_where}.text", empty=True)
        content = message.get("content")
        if content is not None and not isinstance(content, list):
            raise InvalidInputError(f"{at_where}.content: expected a list")
        if not text and content:
            text = "\n".join(
                check.text(c.get("text"), f"{at_where}.content[{j}].text", empty=True)
                for j, c in enumerate(content)
                if isinstance(c, dict) and c.get("type") == "text"
            )
        at = check.time(message.get("created_at"), f"{at_where}.created_at")
        found = _message(role, text, at) if role else None
        if found is None:
            skipped += 1
            continue
        conversation.messages.append(found)
    return conversation, skipped


def _message(role: str | None, text: str, at: float) -> NewMessage | None:
    if role is None or not text.strip():
        return None
    return NewMessage(role, text, role == "user", at)


@dataclass(frozen=True)
class Checks:
    """The value checks every reader shares, against one `now`."""

    now: float

    def text(self, value: Any, where: str, *, empty: bool = False) -> str:
        """`value` as text: a string (or, where `empty`, a missing value as "")
        that encodes as UTF-8 (a lone surrogate would break every reader)."""
        if value is None and empty:
            return ""
        if not isinstance(value, str) or (not value and not empty):
            raise InvalidInputError(f"{where}: must be a non-empty string")
        bad = surrogate_offset(value)
        if bad is not None:
            raise InvalidInputError(
                f"{where}: not valid UTF-8 text (a lone surrogate at character {bad})"
            )
        return value

    def time(self, value: Any, where: str) -> float:
        """Epoch seconds of an ISO 8601 time or a number, within 1970 … a day
        from now (`Infinity`, `NaN`, 1e300 and -1e15 are refused)."""
        if isinstance(value, bool) or value is None:
            raise InvalidInputError(f"{where}: a time is required (ISO 8601 or epoch seconds)")
        if isinstance(value, int | float):
            seconds = float(value)
        elif isinstance(value, str):
            try:
                moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                raise InvalidInputError(
                    f"{where}: {value[:60]!r} is not an ISO 8601 time"
                ) from None
            seconds = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
        else:
            raise InvalidInputError(f"{where}: a time is ISO 8601 text or epoch seconds")
        latest = self.now + DAY_S
        if not (math.isfinite(seconds) and 0.0 <= seconds <= latest):
            raise InvalidInputError(
                f"{where}: {value!r} is outside 1970-01-01 … "
                f"{datetime.fromtimestamp(latest, UTC).date()} (a day from now)"
            )
        return seconds
