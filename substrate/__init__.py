"""The durable core, in rooms by concern (each room's `__init__` says what it owns):

- `safety`: the scanner, patterns, atomic drift-aware files, journals, locks (the floor);
- `config`: `config.toml`, the key and lane tables, tier predicates, tuning, `Settings`;
- `lineage`: what derived records came from, the tombstones and keyed fingerprints of forgets;
- `meaning`: what a text says, read once for every path: whose words, about whom, which slot
  family, and whether it asserts, ends or only supposes;
- `pages`: the page format, slugs, the PageIndex and its live refresh;
- `intake`: the buffer format, `remember`, the daily archive;
- `index`: embedders, chunks, BM25, the store adapters, maintenance, search, fusion;
- `llm`: the OpenAI-compatible client;
- `consolidation`: the buffer filed into pages (and the v1 knowledge base);
- `sessions`: the conversation log;
- `profile`: the profile files and their budgets;
- `promotion`: deterministic promotion from the log into the profile;
- `curation`: model-proposed profile lines, reviewed and applied;
- `forgetting`: forget as erasure along lineage, purge, and doctor's proof of it.

Rooms import one way (`tests/test_layering.py` holds the order), and
`substrate.errors` (the one error tree) is shared by all. The substrate imports
none of the other packages. This module re-exports what they use, each
room loaded on first use of one of its names (`substrate.lazy`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from substrate.lazy import exports

if TYPE_CHECKING:  # the names as the type checker sees them: `X as X` re-exports
    from substrate.config import (
        MemoryConfig as MemoryConfig,
        Settings as Settings,
        SubstrateTuning as SubstrateTuning,
        Workspace as Workspace,
        init_workspace as init_workspace,
        is_memory_v3_live as is_memory_v3_live,
        is_v3_tier_active as is_v3_tier_active,
        load_config as load_config,
        memory_tier as memory_tier,
        migrate_config as migrate_config,
        migration_advice as migration_advice,
        open_workspace as open_workspace,
        parse_config as parse_config,
        resolve_substrate_tuning as resolve_substrate_tuning,
        tier_reason as tier_reason,
        uses_concept_page_memory as uses_concept_page_memory,
    )
    from substrate.errors import (
        BillingError as BillingError,
        ConfigError as ConfigError,
        FencedError as FencedError,
        IndexDamagedError as IndexDamagedError,
        InvalidInputError as InvalidInputError,
        LockHeldError as LockHeldError,
        MemoryDisabledError as MemoryDisabledError,
        MemoryServiceError as MemoryServiceError,
        NotFoundError as NotFoundError,
        NotRegularFileError as NotRegularFileError,
        PageParseError as PageParseError,
        ScannerRejection as ScannerRejection,
        ServiceStartingError as ServiceStartingError,
        StaleWriteError as StaleWriteError,
        StoreUnavailableError as StoreUnavailableError,
        TooLargeError as TooLargeError,
        TransientError as TransientError,
        WorkspaceError as WorkspaceError,
    )
    from substrate.index import (
        Capability as Capability,
        Hit as Hit,
        MaintainReport as MaintainReport,
        SearchIndex as SearchIndex,
        Stats as Stats,
        collect_stats as collect_stats,
        open_search_index as open_search_index,
    )
    from substrate.intake import (
        BufferEntry as BufferEntry,
        format_entry as format_entry,
        parse_buffer as parse_buffer,
        read_buffer as read_buffer,
        remember as remember,
    )
    from substrate.pages import (
        DanglingLink as DanglingLink,
        Link as Link,
        LivePageIndex as LivePageIndex,
        Page as Page,
        PageEntry as PageEntry,
        PageIndex as PageIndex,
        ParseFailure as ParseFailure,
        entry_json as entry_json,
        iso_utc as iso_utc,
        load_page_index as load_page_index,
        parse_page as parse_page,
    )
    from substrate.safety import (
        FileSnapshot as FileSnapshot,
        Scanner as Scanner,
        Verdict as Verdict,
        read_text_snapshot as read_text_snapshot,
        write_atomic as write_atomic,
    )

__getattr__ = exports(__name__, __file__)
