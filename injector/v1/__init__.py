"""The v1 engine (legacy): the personal knowledge base, markdown notes under
`memory/pkb/**` in their own collection, retrieved per turn into a
`<knowledge_base>` block. Imported only by the spine; all of it is suppressed
while the concept-page substrate is active. The filer that moves remembered
facts into the knowledge base is consolidation's (`substrate.consolidation.pkb`):
the injector only reads."""

from injector.v1.engine import V1Engine

__all__ = ["V1Engine"]
