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
keeps its messages' own times. Each conversation is appended in one write
(all its messages or none), and a message already in the log (by position in
its session) is not appended again, so a rerun, or a rerun after a kill,
leaves every message there once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from substrate import InvalidInputError
from substrate.safety import read_regular_file
from substrate.sessions import NewMessage, SessionLog

FORMATS = ("chatgpt", "claude", "jsonl")
MAX_FILE = 1 << 30
ROLES = {"user": "user", "human": "user", "assistant": "assistant", "system": "system"}
ROLES |= {"tool": "tool"}
Progress = Callable[[int, int], None]


@dataclass
class Conversation:
    session: str
    messages: list[NewMessage] = field(default_factory=list)


@dataclass
class Imported:
    format: str
    file: str
    dry_run: bool
    sessions: int = 0
    messages: int = 0
    appended: int = 0
    already: int = 0
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
            "skipped_messages": self.skipped_messages,
            "captured": saved,
        }


def read_conversations(fmt: str, path: Path) -> tuple[list[Conversation], int]:
    """The conversations of an export file, and how many of its messages were left
    out (no text, or a part that is not text); a file that is not of the format
    is refused, naming what is wrong and where."""
    if fmt not in FORMATS:
        raise InvalidInputError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")
    data = read_regular_file(path, MAX_FILE)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"{path}: not UTF-8 (byte {exc.start})") from None
    if fmt == "jsonl":
        return _jsonl(text, path)
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise InvalidInputError(f"{path}: not JSON ({exc})") from None
    if not isinstance(doc, list):
        raise InvalidInputError(f"{path}: a {fmt} export is a JSON list of conversations")
    read = _chatgpt if fmt == "chatgpt" else _claude
    out, skipped = [], 0
    for i, item in enumerate(doc):
        if not isinstance(item, dict):
            raise InvalidInputError(f"{path}: conversations[{i}] is not an object")
        conversation, left = read(item, f"{path}: conversations[{i}]")
        skipped += left
        if conversation.messages:
            out.append(conversation)
    return out, skipped


def import_conversations(
    log: SessionLog,
    fmt: str,
    path: Path,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> Imported:
    """Append the export's conversations to the log (what is already there stays
    as it is); capture is the caller's next step, over `touched`."""
    conversations, skipped = read_conversations(fmt, path)
    done = Imported(fmt, str(path), dry_run, skipped_messages=skipped)
    for n, conversation in enumerate(conversations, start=1):
        done.sessions += 1
        done.messages += len(conversation.messages)
        row = log.session(conversation.session)
        have = row.messages if row is not None else 0
        new = conversation.messages[have:]
        done.already += len(conversation.messages) - len(new)
        if row is None:
            done.new_sessions.append(conversation.session)
        if new and not dry_run:
            started = conversation.messages[0].at or 0.0
            log.append(conversation.session, new, started)
            done.touched.append(conversation.session)
        done.appended += len(new)
        if progress is not None:
            progress(n, len(conversations))
    return done


def _jsonl(text: str, path: Path) -> tuple[list[Conversation], int]:
    by_session: dict[str, Conversation] = {}
    skipped = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise InvalidInputError(f"{where}: not JSON ({exc})") from None
        if not isinstance(row, dict):
            raise InvalidInputError(f"{where}: expected an object {{session, role, text, time}}")
        session = _string(row, "session", where)
        role = ROLES.get(_string(row, "role", where).lower())
        if role is None:
            raise InvalidInputError(f"{where}: role must be user, assistant, system or tool")
        message = _message(role, row.get("text"), _time(row.get("time"), f"{where}: time"))
        if message is None:
            skipped += 1
            continue
        key = f"import:jsonl:{session}"
        by_session.setdefault(key, Conversation(key)).messages.append(message)
    return list(by_session.values()), skipped


def _chatgpt(item: dict[str, Any], where: str) -> tuple[Conversation, int]:
    ident = item.get("conversation_id") or item.get("id")
    mapping = item.get("mapping")
    if not isinstance(ident, str) or not isinstance(mapping, dict):
        raise InvalidInputError(f"{where}: a ChatGPT conversation has an id and a mapping")
    conversation = Conversation(f"import:chatgpt:{ident}")
    skipped = 0
    for node in _branch(mapping, item.get("current_node")):
        message = node.get("message")
        if not isinstance(message, dict):
            continue
        author = message.get("author") or {}
        role = ROLES.get(str(author.get("role", "")).lower())
        content = message.get("content") or {}
        parts = content.get("parts") if isinstance(content, dict) else None
        text = "\n".join(p for p in parts if isinstance(p, str)) if isinstance(parts, list) else ""
        stamp = message.get("create_time") or item.get("create_time") or 0.0
        at = _time(stamp, f"{where}: create_time")
        found = _message(role, text, at) if role else None
        if found is None:
            skipped += role != "system" and bool(parts)
            continue
        conversation.messages.append(found)
    return conversation, skipped


def _branch(mapping: dict[str, Any], current: Any) -> list[dict[str, Any]]:
    """The nodes from the root down to `current` (or, without it, down the first
    child of each node): the branch the person saw."""
    if isinstance(current, str) and current in mapping:
        chain: list[dict[str, Any]] = []
        seen: set[str] = set()
        node_id: Any = current
        while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
            seen.add(node_id)
            node = mapping[node_id]
            chain.append(node if isinstance(node, dict) else {})
            node_id = chain[-1].get("parent")
        return chain[::-1]
    roots = [n for n in mapping.values() if isinstance(n, dict) and not n.get("parent")]
    out: list[dict[str, Any]] = []
    node = roots[0] if roots else None
    while isinstance(node, dict) and len(out) <= len(mapping):
        out.append(node)
        children = node.get("children") or []
        node = mapping.get(children[0]) if children else None
    return out


def _claude(item: dict[str, Any], where: str) -> tuple[Conversation, int]:
    ident = item.get("uuid")
    messages = item.get("chat_messages")
    if not isinstance(ident, str) or not isinstance(messages, list):
        raise InvalidInputError(f"{where}: a Claude conversation has a uuid and chat_messages")
    conversation = Conversation(f"import:claude:{ident}")
    skipped = 0
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise InvalidInputError(f"{where}.chat_messages[{i}] is not an object")
        role = ROLES.get(str(message.get("sender", "")).lower())
        text = message.get("text")
        if not text and isinstance(message.get("content"), list):
            text = "\n".join(
                str(c.get("text", ""))
                for c in message["content"]
                if isinstance(c, dict) and c.get("type") == "text"
            )
        at = _time(message.get("created_at"), f"{where}.chat_messages[{i}].created_at")
        found = _message(role, text, at) if role else None
        if found is None:
            skipped += 1
            continue
        conversation.messages.append(found)
    return conversation, skipped


def _message(role: str | None, text: Any, at: float) -> NewMessage | None:
    if role is None or not isinstance(text, str) or not text.strip():
        return None
    return NewMessage(role, text, role == "user", at)


def _string(row: dict[str, Any], key: str, where: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value:
        raise InvalidInputError(f"{where}: {key} must be a non-empty string")
    return value


def _time(value: Any, where: str) -> float:
    if isinstance(value, bool) or value is None:
        raise InvalidInputError(f"{where}: a time is required (ISO 8601 or epoch seconds)")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInputError(f"{where}: {value!r} is not an ISO 8601 time") from None
        return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()
    raise InvalidInputError(f"{where}: a time is ISO 8601 text or epoch seconds")
