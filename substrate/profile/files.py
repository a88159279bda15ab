"""Reading and writing the profile files (see the package doc)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from substrate.config.settings import Settings
from substrate.config.workspace import Workspace
from substrate.errors import InvalidInputError, NeedsConfirmationError, ScannerRejection
from substrate.profile.actions import asks_action
from substrate.profile.values import unsafe_value
from substrate.safety import (
    FileSnapshot,
    hold_lock,
    journal,
    linear,
    read_text_snapshot,
    sweep_stale_temps,
    unlinked_folder,
    write_atomic,
)

# name -> (the limits key of its budget, what it holds), in injection order
PROFILE_FILES: dict[str, tuple[str, str]] = {
    "SOUL.md": ("profile_soul_chars", "identity and safety"),
    "USER.md": ("profile_user_chars", "the user's preferences"),
    "MEMORY.md": ("profile_memory_chars", "project facts"),
    "SHARED.md": ("profile_shared_chars", "shared memory"),
}
PROTECTED = frozenset({"SOUL.md"})
HEADINGS = {"USER.md": "# User preferences\n", "MEMORY.md": "# Project facts\n"}
# A profile line naming a secret's variable invites an assistant to read it out.
_SECRET_NAME = linear(
    r"\b[A-Z][A-Z0-9]*_(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)\b"
    r"|\b(?:API_KEY|SECRET_KEY|ACCESS_TOKEN|PASSWORD)\b"
)


@dataclass(frozen=True)
class ProfileFile:
    name: str
    text: str
    snapshot: FileSnapshot
    budget: int

    @property
    def protected(self) -> bool:
        return self.name in PROTECTED


@dataclass(frozen=True)
class ProfileWrite:
    """`added`: the new lines (what is scanned; the rest is the file as a person
    or an earlier checked write left it); `source`: whose words they are."""

    name: str
    text: str
    expected: FileSnapshot
    added: str = ""
    source: str = "user"


def profile_lock_path(workspace: Workspace) -> Path:
    """The one lease every program writer of the profile takes (promotion,
    curation, operator commands, compaction): they serialize, never race."""
    return workspace.state_dir / "profile.lock"


LEASE_TIMEOUT_S = 10.0


@contextmanager
def profile_lease(workspace: Workspace) -> Iterator[None]:
    """Hold the profile lease, having finished any change a killed writer left
    (and swept its temp files): every profile writer starts from agreement."""
    with hold_lock(profile_lock_path(workspace), timeout_s=LEASE_TIMEOUT_S, purpose="profile"):
        recover_profile(workspace)
        yield


def profile_journal(workspace: Workspace) -> Path:
    return workspace.memory_dir / "profile" / ".profile.journal"


def recover_profile(workspace: Workspace) -> list[str]:
    """Finish a profile change a killed writer left half done (call under the lease)."""
    sweep_stale_temps([workspace.memory_dir / "profile"])
    return journal.recover(profile_journal(workspace))


def commit_profile(workspace: Workspace, steps: Sequence[journal.Step]) -> None:
    """Write a profile file and the records that describe it as one change (call
    under the lease): all of it lands, or none does."""
    journal.commit(profile_journal(workspace), steps)


def replace_step(path: Path, text: str, expected: FileSnapshot) -> journal.Replace:
    return journal.Replace(path, text.encode("utf-8"), expected)


def profile_path(workspace: Workspace, name: str) -> Path:
    if name not in PROFILE_FILES:
        raise InvalidInputError(
            f"profile file {name!r}: expected one of {', '.join(PROFILE_FILES)}"
        )
    return unlinked_folder(workspace.memory_dir, workspace.memory_dir / "profile") / name


def budget_for(settings: Settings, name: str) -> int:
    key, _ = PROFILE_FILES[name]
    return int(getattr(settings.limits, key))


def read_profile(settings: Settings) -> dict[str, ProfileFile]:
    """Every profile file as it is on disk ('' when absent), in injection order."""
    out = {}
    for name in PROFILE_FILES:
        text, snap = read_text_snapshot(profile_path(settings.workspace, name))
        out[name] = ProfileFile(name, text, snap, budget_for(settings, name))
    return out


def profile_json(f: ProfileFile) -> dict[str, Any]:
    """A profile file as every surface lists it: its text, its bullet lines (what
    `forget` takes by text), its size and budget."""
    return {
        "name": f.name,
        "text": f.text,
        "lines": [line[2:] for line in f.text.splitlines() if line.startswith("- ")],
        "chars": len(f.text),
        "budget": f.budget,
        "protected": f.protected,
        "exists": f.snapshot.exists,
    }


def check_profile_text(
    settings: Settings,
    name: str,
    text: str,
    added: str,
    source: str = "user",
    confirmed: bool = False,
) -> None:
    """Refuse what may not be written to a profile file: a file over its budget,
    or new lines naming a secret's variable, carrying an exfiltration- or
    execution-shaped value (`values`), refused by the scanner under the policy
    of their `source`, or asking the assistant to act (`actions`) unless the
    person `confirmed` it (`NeedsConfirmationError`: the caller parks it)."""
    budget = budget_for(settings, name)
    if len(text) > budget:
        raise InvalidInputError(
            f"memory/profile/{name}: {len(text)} characters would exceed its budget of "
            f"{budget} ([memory.limits] {PROFILE_FILES[name][0]}); nothing was written. "
            "Remove or compact entries first."
        )
    found = _SECRET_NAME.search(added)
    if found:
        raise ScannerRejection(
            "secret_name", f"names a secret's variable ({found.group(0)})", "profile"
        )
    unsafe = unsafe_value(added)
    if unsafe is not None:
        raise ScannerRejection("unsafe_value", f"a trusted profile line {unsafe}", "profile")
    if added:
        settings.scanner.scan(added, source)
    action = None if confirmed else next(filter(None, map(asks_action, added.splitlines())), None)
    if action is not None:
        raise NeedsConfirmationError(
            f"this profile line {action}: it is written only once you confirm it "
            "(`memory profile pending`, or the web tab's Profile panel)"
        )


def write_profile(settings: Settings, write: ProfileWrite) -> None:
    """Check, then write atomically against the snapshot it was planned from
    (`StaleWriteError` when the file was edited meanwhile: the edit is kept)."""
    check_profile_text(settings, write.name, write.text, write.added, write.source)
    write_atomic(profile_path(settings.workspace, write.name), write.text, write.expected)


def bullet(content: str) -> str:
    return f"- {content}"


def with_bullet(name: str, text: str, content: str, replacing: str | None = None) -> str:
    """`text` with `content` as a bullet line (in place of `replacing`'s line, when
    that is there; else appended), a heading first in a new file."""
    lines = text.splitlines()
    if replacing is not None and bullet(replacing) in lines:
        lines[lines.index(bullet(replacing))] = bullet(content)
    elif bullet(content) not in lines:
        if not lines:
            lines = [HEADINGS.get(name, f"# {name}\n").rstrip("\n"), ""]
        lines.append(bullet(content))
    return "\n".join(lines) + "\n"


def without_bullet(text: str, content: str) -> str:
    lines = [line for line in text.splitlines() if line != bullet(content)]
    return "\n".join(lines) + ("\n" if lines else "")
