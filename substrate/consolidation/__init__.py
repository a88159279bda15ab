"""Consolidation: buffer entries filed into concept pages.

Owns one entry point, `consolidate`, that the job, the CLI and the HTTP route
all call: a run takes the first buffer entries up to a cutoff by entry
(`consolidation_batch_entries`), drops what must not be filed (echoes of our
own blocks, phatic entries, text the scanner now refuses), plans where each
entry goes (the deterministic filer's cascade, or an LLM planner over any
OpenAI-compatible endpoint that falls back to the filer on a bad answer),
validates the plan, writes the pages first and trims the buffer after, all
under the consolidation lock. On tier v1, `file_into_pkb` files the buffer
onto the knowledge base's monthly notes instead (`pkb.py`). It imports `config`, `safety`, `pages`,
`intake`, `index` and `llm`; nothing above the substrate.
"""

from substrate.consolidation.explain import explain, page_facts
from substrate.consolidation.outcome import ConsolidationOutcome, EntryOutcome
from substrate.consolidation.pkb import PkbFiled, file_into_pkb
from substrate.consolidation.run import consolidate, consolidate_all

__all__ = [
    "ConsolidationOutcome",
    "EntryOutcome",
    "PkbFiled",
    "consolidate",
    "consolidate_all",
    "explain",
    "file_into_pkb",
    "page_facts",
]
