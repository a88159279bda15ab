"""The one error tree of the memory service.

Every failure a user can cause or meet is a `MemoryServiceError`; each
subclass carries the HTTP status the service answers with, the exit code the
CLI uses and a `code` unique in the tree, so the edges translate errors
without knowing their kinds. Over the wire an error is `{"error": {"status",
"code", "message", ...fields}}`, and `from_wire` turns that body back into the
same class, so a command through a running service exits and prints as the
local call would. (Never name anything `MemoryError`: that is a Python builtin.)

    MemoryServiceError            500 internal
    ├── WorkspaceError            404 workspace
    ├── NotFoundError             404 not_found
    ├── InvalidInputError         422 invalid_input
    │   ├── TooLargeError         413 too_large
    │   ├── NotRegularFileError   422 not_a_file
    │   ├── ConfigError           422 config
    │   ├── PageParseError        422 parse_error
    │   ├── LlmConfigError        422 llm_config
    │   └── ScannerRejection      422 scanner_rejected (exit 2)
    ├── StaleWriteError           409 changed_on_disk
    ├── MemoryDisabledError       409 memory_disabled
    ├── LockHeldError             409 locked
    ├── ServiceStartingError      503 starting
    ├── TransientError            503 transient
    ├── BillingError              402 billing
    ├── LlmAnswerError            502 model_answer
    └── StoreUnavailableError     503 store_unavailable
        ├── DiskFullError         507 disk_full
        └── ReadOnlyError         503 read_only
"""

from __future__ import annotations

import shutil
from pathlib import Path


class MemoryServiceError(Exception):
    """Base class: a clear, one-line message for the user."""

    http_status: int = 500
    exit_code: int = 1
    code: str = "internal"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def fields(self) -> dict[str, str]:
        """What the wire body carries besides status, code and message."""
        return {}

    @classmethod
    def from_fields(cls, message: str, fields: dict[str, str]) -> MemoryServiceError:
        return cls(message)


class WorkspaceError(MemoryServiceError):
    """The folder given as a workspace is missing or is not one."""

    http_status = 404
    code = "workspace"


class NotFoundError(MemoryServiceError):
    http_status = 404
    code = "not_found"


class PersonRequiredError(MemoryServiceError):
    """Only the person may do this, not an assistant holding the workspace token."""

    http_status = 403
    code = "person_required"


class InvalidInputError(MemoryServiceError):
    """Input that cannot be accepted as given (bad slug, bad field, bad file)."""

    http_status = 422
    code = "invalid_input"


class TooLargeError(InvalidInputError):
    """Input over one of its documented limits (`memory.limits.*`)."""

    http_status = 413
    code = "too_large"


class NotRegularFileError(InvalidInputError):
    """A path that should be a plain file is a FIFO, a device, a socket or a folder."""

    code = "not_a_file"


class ConfigError(InvalidInputError):
    code = "config"


class PageParseError(InvalidInputError):
    code = "parse_error"


class ScannerRejection(InvalidInputError):
    """Text refused by the safety scanner; names the rule that fired."""

    exit_code = 2
    code = "scanner_rejected"

    def __init__(self, rule: str, detail: str, policy: str = "user") -> None:
        super().__init__(f"rejected by scanner rule '{rule}' under the {policy} policy: {detail}")
        self.rule = rule
        self.detail = detail
        self.policy = policy

    def fields(self) -> dict[str, str]:
        return {"rule": self.rule, "detail": self.detail, "policy": self.policy}

    @classmethod
    def from_fields(cls, message: str, fields: dict[str, str]) -> MemoryServiceError:
        if {"rule", "detail", "policy"} <= set(fields):
            return cls(fields["rule"], fields["detail"], fields["policy"])
        rejection = cls("unknown", message)
        rejection.message = message
        return rejection


class NeedsConfirmationError(InvalidInputError):
    """A trusted profile line that asks the assistant to act: written only once
    the person confirms it (`substrate.profile.pending`)."""

    code = "needs_confirmation"


class StaleWriteError(MemoryServiceError):
    """The file changed on disk since it was read; the newer file was kept."""

    http_status = 409
    code = "changed_on_disk"


class MemoryDisabledError(MemoryServiceError):
    """The workspace has memory switched off (`memory.enabled = false`)."""

    http_status = 409
    code = "memory_disabled"


class LockHeldError(MemoryServiceError):
    http_status = 409
    code = "locked"


class FencedError(LockHeldError):
    """A write by a process that no longer holds its workspace's writer lease:
    another process took the workspace over (its generation is newer)."""

    code = "fenced"


class ServiceStartingError(MemoryServiceError):
    """The service has not finished starting (or is stopping): retry shortly."""

    http_status = 503
    code = "starting"


class TransientError(MemoryServiceError):
    """A dependency failed in a way that passes on its own (a timeout, a dropped
    connection, a 5xx, a 429): retry soon; nothing was consumed."""

    http_status = 503
    code = "transient"


class BillingError(MemoryServiceError):
    """A model provider refused for payment or quota (402, insufficient quota):
    retry, but slowly; nothing was consumed."""

    http_status = 402
    code = "billing"


class LlmConfigError(ConfigError):
    """The provider refused the request as configured (key, model, URL)."""

    code = "llm_config"


class LlmAnswerError(MemoryServiceError):
    """The model answered, but with nothing usable: not a JSON object, too large,
    nested too deep, or outside the schema."""

    http_status = 502
    code = "model_answer"


class StoreUnavailableError(MemoryServiceError):
    http_status = 503
    code = "store_unavailable"


class StoreHeldError(StoreUnavailableError):
    """Another process holds the embedded index open (a lease moving between
    processes, or a second writer): worth waiting a moment for."""

    code = "store_held"


class IndexDamagedError(StoreUnavailableError):
    """The embedded index failed inside the store (a file cut short or
    overwritten under it): derived data, rebuilt from the pages and the log."""

    code = "index_damaged"


class DiskFullError(StoreUnavailableError):
    """The disk holding the workspace is full: nothing was written (or what was
    half written was undone); free some space and retry."""

    http_status = 507
    code = "disk_full"


class ReadOnlyError(StoreUnavailableError):
    """The workspace (or its derived state) cannot be written here."""

    code = "read_only"


_FULL = {28, 122}  # ENOSPC, EDQUOT
_FULL_BELOW = 1024 * 1024


def _nearly_full(folder: Path) -> bool:
    try:
        return shutil.disk_usage(folder).free < _FULL_BELOW
    except OSError:
        return False


_READ_ONLY = {30, 13, 1}  # EROFS, EACCES, EPERM


def from_os_error(exc: OSError) -> MemoryServiceError:
    """An operating-system failure as one of ours, naming the file."""
    where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
    reason = exc.strerror or type(exc).__name__
    if exc.errno in _FULL:
        return DiskFullError(f"the disk is full{where}: nothing was stored; free some space")
    if exc.errno in _READ_ONLY:
        return ReadOnlyError(f"cannot write{where}: {reason} (is the workspace read-only?)")
    return StoreUnavailableError(f"a file could not be read or written{where}: {reason}")


def from_database_error(exc: Exception, where: Path | None = None) -> MemoryServiceError:
    """A SQLite failure (the log's or the job queue's index) as one of ours. SQLite
    reports a full disk as "disk I/O error" when its shared-memory file cannot
    grow: with `where` (the database's folder), the disk's free space decides."""
    text = str(exc)
    if "full" in text or (where is not None and _nearly_full(where)):
        return DiskFullError(f"the disk is full: {text}; free some space")
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return ReadOnlyError(f"cannot write a database under .substrate/: {text}")
    return StoreUnavailableError(f"a database under .substrate/ failed: {text}")


def error_kinds() -> dict[str, type[MemoryServiceError]]:
    """Every error class that declares its own code, by that code (imported
    subclasses included; one that only narrows its parent keeps the parent's)."""
    kinds: dict[str, type[MemoryServiceError]] = {}
    todo: list[type[MemoryServiceError]] = [MemoryServiceError]
    while todo:
        cls = todo.pop()
        if "code" in vars(cls):
            kinds[cls.code] = cls
        todo.extend(cls.__subclasses__())
    return kinds


def from_wire(status: int, body: object) -> MemoryServiceError:
    """The error a service's answer body describes, as the class that raised it;
    a body that names no code we know falls back on the status."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return _by_status(status)(f"the service answered {status}")
    message = str(error.get("message", f"the service answered {status}"))
    cls = error_kinds().get(str(error.get("code")))
    if cls is None:
        return _by_status(status)(message)
    fields = {k: str(v) for k, v in error.items() if k not in ("status", "code", "message")}
    return cls.from_fields(message, fields)


def _by_status(status: int) -> type[MemoryServiceError]:
    return {
        404: NotFoundError,
        409: LockHeldError,
        413: TooLargeError,
        422: InvalidInputError,
        503: StoreUnavailableError,
    }.get(status, MemoryServiceError)
