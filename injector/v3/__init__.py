"""The v3 engine: lanes over the concept pages, selected within quotas and
rendered as the `<memory>` card. Imported only by the spine."""

from injector.v3.engine import V3Engine

__all__ = ["V3Engine"]
