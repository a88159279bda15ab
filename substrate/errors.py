"""The one error tree of the memory service.

Every failure a user can cause or meet is a `MemoryServiceError`; each
subclass carries the HTTP status the service answers with and the exit code
the CLI uses, so the edges translate errors without knowing their kinds.
(Never name anything `MemoryError`: that is a Python builtin.)
"""

from __future__ import annotations


class MemoryServiceError(Exception):
    """Base class: a clear, one-line message for the user."""

    http_status: int = 500
    exit_code: int = 1
    code: str = "internal"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class WorkspaceError(MemoryServiceError):
    """The folder given as a workspace is missing or is not one."""

    http_status = 404
    code = "workspace"


class NotFoundError(MemoryServiceError):
    http_status = 404
    code = "not_found"


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


class StoreUnavailableError(MemoryServiceError):
    http_status = 503
    code = "store_unavailable"
