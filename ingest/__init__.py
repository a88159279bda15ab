"""Deterministic batch import of ready-made concept pages. Depends only on `substrate`.

`run(settings, source, options)` validates and writes a batch of pages from a
staging folder (`DirectorySource`), a JSON manifest (`ManifestSource`) or an
HTTP request body (`InlineSource`) and
returns an `IngestReport`; nothing here calls an LLM.
"""

from ingest.batch import IngestOptions, IngestReport, PageResult, run
from ingest.sources import DirectorySource, InlineSource, ManifestSource, Source, StagedPage

__all__ = [
    "DirectorySource",
    "IngestOptions",
    "IngestReport",
    "InlineSource",
    "ManifestSource",
    "PageResult",
    "Source",
    "StagedPage",
    "run",
]
