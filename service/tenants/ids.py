"""Workspace ids: the one place a request's workspace name is checked.

An id names a folder under the served directory and appears in every route
(`/w/{workspace}/…`), so it is held to a fixed alphabet and length before
anything touches the disk: lowercase ASCII letters and digits, with `-` and
`_` inside, at most 48 characters. No dot (so no `..` and no hidden folder),
no slash or backslash, no percent sign, no Unicode look-alike: the path the
server decoded is compared as it is, and an id that needed decoding to look
valid is refused.
"""

from __future__ import annotations

from substrate import InvalidInputError

MAX_ID = 48
_ENDS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_INSIDE = _ENDS | {"-", "_"}


def is_workspace_id(text: str) -> bool:
    return (
        0 < len(text) <= MAX_ID
        and text[0] in _ENDS
        and text[-1] in _ENDS
        and all(c in _INSIDE for c in text)
    )


def checked_workspace_id(text: str, field: str = "workspace") -> str:
    """`text` when it is a valid id, else a clear error naming `field`."""
    if not is_workspace_id(text):
        shown = text if len(text) <= MAX_ID else text[:MAX_ID] + "…"
        raise InvalidInputError(
            f"{field} must be 1-{MAX_ID} lowercase letters, digits, '-' or '_', starting "
            f"and ending with a letter or digit; got {shown!r}"
        )
    return text
