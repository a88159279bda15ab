"""The durable core: workspace, config and tiers, pages and PageIndex, buffer,
safe writes and the scanner. Imports none of the other packages."""

from substrate.buffer import BufferEntry, format_entry, parse_buffer
from substrate.config import MemoryConfig, load_config, migrate_config, parse_config
from substrate.errors import (
    ConfigError,
    InvalidInputError,
    LockHeldError,
    MemoryServiceError,
    NotFoundError,
    PageParseError,
    ScannerRejection,
    StaleWriteError,
    StoreUnavailableError,
    WorkspaceError,
)
from substrate.page_index import (
    DanglingLink,
    LivePageIndex,
    PageEntry,
    PageIndex,
    ParseFailure,
    entry_json,
    load_page_index,
)
from substrate.pages import Link, Page, iso_utc, parse_page
from substrate.remember import read_buffer, remember
from substrate.safe_files import FileSnapshot, read_text_snapshot, write_atomic
from substrate.scanner import find_problems, scan_text
from substrate.search_index import Capability, Hit, MaintainReport, SearchIndex, open_search_index
from substrate.settings import Settings
from substrate.stats import Stats, collect_stats
from substrate.tiers import (
    is_memory_v3_live,
    is_v3_tier_active,
    memory_tier,
    uses_concept_page_memory,
)
from substrate.tuning import SubstrateTuning, resolve_substrate_tuning
from substrate.workspace import Workspace, init_workspace, open_workspace

__all__ = [
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
    "MemoryServiceError",
    "NotFoundError",
    "Page",
    "PageEntry",
    "PageIndex",
    "PageParseError",
    "ParseFailure",
    "ScannerRejection",
    "SearchIndex",
    "Settings",
    "StaleWriteError",
    "Stats",
    "StoreUnavailableError",
    "SubstrateTuning",
    "Workspace",
    "WorkspaceError",
    "collect_stats",
    "entry_json",
    "find_problems",
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
    "scan_text",
    "uses_concept_page_memory",
    "write_atomic",
]
