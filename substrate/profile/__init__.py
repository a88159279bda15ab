"""Profile memory: the trusted files under `memory/profile/`.

`USER.md` (the user's preferences), `MEMORY.md` (project facts), `SOUL.md`
(identity and safety: protected, never searched, never in a lane, only
injected) and an optional `SHARED.md`. People may edit them by hand; every
program write is drift-aware, atomic, scanned and held to the file's
character budget (`[memory.limits] profile_*_chars`): an over-budget write is
refused with a diagnostic, never cut.

A profile file never changes alone: a promotion also changes
`promotions.json`, a curation apply `memory-curation.json`. Each such change is
one journaled commit (`commit_profile`, `safety.journal`) under the profile
lease (`profile_lease`), which first finishes whatever a killed writer left:
however a process dies, the file and the records describing it agree.
"""

from substrate.profile.files import (
    PROFILE_FILES,
    ProfileFile,
    ProfileWrite,
    budget_for,
    check_profile_text,
    commit_profile,
    profile_journal,
    profile_json,
    profile_lease,
    profile_lock_path,
    profile_path,
    read_profile,
    recover_profile,
    replace_step,
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
    "commit_profile",
    "profile_journal",
    "profile_json",
    "profile_lease",
    "profile_lock_path",
    "profile_path",
    "read_profile",
    "recover_profile",
    "replace_step",
    "with_bullet",
    "without_bullet",
    "write_profile",
]
