"""The v2 engine (transitional): activation over the concept pages, a router and a
dense reranker, rendered as its own `<memory>` block. Imported only by the spine."""

from injector.v2.engine import V2Engine

__all__ = ["V2Engine"]
