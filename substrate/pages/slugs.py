"""Page slugs: the path of a page under `memory/concepts/` without `.md`.

A slug names a file we may write, so anything that could escape the concepts
folder or hide in a listing is refused: `..` and `.` segments, absolute paths,
backslashes, empty segments, hidden (dot) segments, control characters,
file names whose bytes are not UTF-8, and a slug too long or too deep as a
whole (a file system's path limit) even when each segment is short enough.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from substrate.errors import InvalidInputError
from substrate.safety.inputs import printable

# A file name holds 255 bytes; a page's is the segment + `.md`, and the atomic
# writer's temp beside it `.<name>.<8 letters>.tmp` (an old swap's aside copy
# `.<name>.<16 hex>.old.tmp`): 200 leaves room for every name we make of it.
MAX_SEGMENT_BYTES = 200
# A path holds 4,096 bytes, the workspace's own folder and `memory/concepts/`
# before the slug: 1,024 for the whole slug leaves the rest to them. Depth is
# bounded too (every folder a write walks and makes is a step; 1,000 of them
# ran recursion out), well past any hand-made tree.
MAX_SLUG_BYTES = 1024
MAX_DEPTH = 16


def slug_problem(slug: str) -> str | None:
    """Why `slug` is unsafe, or None when it is fine."""
    if not slug:
        return "slug is empty"
    if "\\" in slug:
        return "slug contains a backslash"
    if slug.startswith("/"):
        return "slug is an absolute path"
    if len(slug.encode("utf-8", "surrogatepass")) > MAX_SLUG_BYTES:
        return f"slug is longer than {MAX_SLUG_BYTES} bytes in all"
    if slug.count("/") >= MAX_DEPTH:
        return f"slug is more than {MAX_DEPTH} folders deep"
    for ch in slug:
        if unicodedata.category(ch) == "Cs":
            return "slug is not valid UTF-8 (the file name holds bytes that do not decode)"
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            return f"slug contains control character U+{ord(ch):04X}"
    for segment in slug.split("/"):
        if segment == "":
            return "slug has an empty path segment"
        if segment in (".", ".."):
            return f"slug contains a '{segment}' segment"
        if segment.startswith("."):
            return f"slug segment '{segment}' is hidden (starts with '.')"
        if segment != segment.strip():
            return f"slug segment '{segment}' has leading or trailing spaces"
        if len(segment.encode("utf-8")) > MAX_SEGMENT_BYTES:
            return f"slug segment is longer than {MAX_SEGMENT_BYTES} bytes"
    return None


def validate_slug(slug: str) -> str:
    problem = slug_problem(slug)
    if problem is not None:
        raise InvalidInputError(f"bad slug {printable(slug)!r}: {problem}")
    return slug


def path_for_slug(concepts_dir: Path, slug: str) -> Path:
    """The page file of `slug`; refused when a folder on the way is a symbolic
    link (a write there would land wherever the link points)."""
    parts = validate_slug(slug).split("/")
    folder = concepts_dir
    for part in ["", *parts[:-1]]:
        folder = folder / part if part else folder
        if folder.is_symlink():
            raise InvalidInputError(
                f"bad slug {printable(slug)!r}: {printable(str(folder))} is a symbolic link "
                "(links are not followed: one could point out of the workspace)"
            )
    return folder / (parts[-1] + ".md")
