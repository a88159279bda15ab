"""The durable core, in rooms by concern (each room's `__init__` says what it owns):

- `safety`: the scanner, atomic drift-aware files, locks (the floor: imports no room);
- `config`: `config.toml`, tier predicates, tuning, the workspace, `Settings`;
- `pages`: the page format, slugs, the PageIndex and its live refresh;
- `intake`: the buffer format, `remember`, the daily archive;
- `index`: embedders, chunks, BM25, the store adapters, maintenance, search, fusion.

Rooms import one way, `safety` ← `config` ← `pages` ← `intake` ← `index`, and
`substrate.errors` (the one error tree) is shared by all. The substrate imports
none of the other packages. This module re-exports what they use.
"""

from substrate.config import (
    MemoryConfig,
    Settings,
    SubstrateTuning,
    Workspace,
    init_workspace,
    is_memory_v3_live,
    is_v3_tier_active,
    load_config,
    memory_tier,
    migrate_config,
    open_workspace,
    parse_config,
    resolve_substrate_tuning,
    uses_concept_page_memory,
)
from substrate.errors import (
    BillingError,
    ConfigError,
    InvalidInputError,
    LockHeldError,
    MemoryDisabledError,
    MemoryServiceError,
    NotFoundError,
    NotRegularFileError,
    PageParseError,
    ScannerRejection,
    ServiceStartingError,
    StaleWriteError,
    StoreUnavailableError,
    TooLargeError,
    TransientError,
    WorkspaceError,
)
from substrate.index import (
    Capability,
    Hit,
    MaintainReport,
    SearchIndex,
    Stats,
    collect_stats,
    open_search_index,
)
from substrate.intake import BufferEntry, format_entry, parse_buffer, read_buffer, remember
from substrate.pages import (
    DanglingLink,
    Link,
    LivePageIndex,
    Page,
    PageEntry,
    PageIndex,
    ParseFailure,
    entry_json,
    iso_utc,
    load_page_index,
    parse_page,
)
from substrate.safety import (
    FileSnapshot,
    Scanner,
    Verdict,
    read_text_snapshot,
    write_atomic,
)

__all__ = [
    "BillingError",
    "BufferEntry",
    "Capability",
    "ConfigError",
    "DanglingLink",
    "FileSnapshot",
    "Hit",
    "InvalidInputError",
    "Link",
    "LivePageIndex",
    "LockHeldError",
    "MaintainReport",
    "MemoryConfig",
    "MemoryDisabledError",
    "MemoryServiceError",
    "NotFoundError",
    "NotRegularFileError",
    "Page",
    "PageEntry",
    "PageIndex",
    "PageParseError",
    "ParseFailure",
    "Scanner",
    "ScannerRejection",
    "SearchIndex",
    "ServiceStartingError",
    "Settings",
    "StaleWriteError",
    "Stats",
    "StoreUnavailableError",
    "SubstrateTuning",
    "TooLargeError",
    "TransientError",
    "Verdict",
    "Workspace",
    "WorkspaceError",
    "collect_stats",
    "entry_json",
    "format_entry",
    "init_workspace",
    "is_memory_v3_live",
    "is_v3_tier_active",
    "iso_utc",
    "load_config",
    "load_page_index",
    "memory_tier",
    "migrate_config",
    "open_search_index",
    "open_workspace",
    "parse_buffer",
    "parse_config",
    "parse_page",
    "read_buffer",
    "read_text_snapshot",
    "remember",
    "resolve_substrate_tuning",
    "uses_concept_page_memory",
    "write_atomic",
]
