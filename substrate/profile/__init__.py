"""Profile memory: the trusted files under `memory/profile/`.

`USER.md` (the user's preferences), `MEMORY.md` (project facts), `SOUL.md`
(identity and safety: protected, never searched, never in a lane, only
injected) and an optional `SHARED.md`. People may edit them by hand; every
program write is drift-aware, atomic, scanned and held to the file's
character budget (`[memory.limits] profile_*_chars`): an over-budget write is
refused with a diagnostic, never cut.
"""

from substrate.profile.files import (
    PROFILE_FILES,
    ProfileFile,
    ProfileWrite,
    budget_for,
    check_profile_text,
    profile_lock_path,
    profile_path,
    read_profile,
    with_bullet,
    without_bullet,
    write_profile,
)

__all__ = [
    "PROFILE_FILES",
    "ProfileFile",
    "ProfileWrite",
    "budget_for",
    "check_profile_text",
    "profile_lock_path",
    "profile_path",
    "read_profile",
    "with_bullet",
    "without_bullet",
    "write_profile",
]
