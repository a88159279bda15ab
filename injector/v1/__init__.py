"""The v1 engine (legacy): the personal knowledge base, markdown notes under
`memory/pkb/**` in their own collection, retrieved per turn into a
`<knowledge_base>` block, and the filer that moves remembered facts into it.
Imported only by the spine; all of it is suppressed while the concept-page
substrate is active."""

from injector.v1.engine import V1Engine
from injector.v1.filing import PkbFiled, file_into_pkb

__all__ = ["PkbFiled", "V1Engine", "file_into_pkb"]
