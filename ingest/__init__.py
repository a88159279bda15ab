"""Deterministic batch import of ready-made concept pages. Depends only on `substrate`.

`run(settings, source, options)` validates and writes a batch of pages from a
staging folder (`DirectorySource`) or a JSON manifest (`ManifestSource`) and
returns an `IngestReport`; nothing here calls an LLM.
"""

from ingest.batch import IngestOptions, IngestReport, PageResult, run
from ingest.sources import DirectorySource, ManifestSource, Source, StagedPage

__all__ = [
    "DirectorySource",
    "IngestOptions",
    "IngestReport",
    "ManifestSource",
    "PageResult",
    "Source",
    "StagedPage",
    "run",
]
