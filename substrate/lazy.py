"""Package roots that load a room when one of its names is first used.

A package's `__init__` re-exports its modules' names so callers write
`from substrate import Settings`. Importing every module up front made any
import of the package cost everything in it: `memory remember` paid 0.4 s for
the model client, the index and the consolidation planner it never touches.
A lazy root lists its names once, as imports inside `if TYPE_CHECKING:` (what
the type checker reads, `X as X` marking each a re-export), and sets
`__getattr__ = lazy.exports(__name__, __file__)`: at run time that block is
read from the source, and the first use of a name imports its module.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def declared(path: str) -> dict[str, str]:
    """Name → module, from the `if TYPE_CHECKING:` imports of the file at `path`."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    homes: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for item in node.body:
                if isinstance(item, ast.ImportFrom) and item.module:
                    homes.update({alias.asname or alias.name: item.module for alias in item.names})
    return homes


def exports(package: str, path: str) -> Callable[[str], Any]:
    """The `__getattr__` of a lazy package root (see the module doc)."""
    homes: dict[str, str] = {}

    def __getattr__(name: str) -> Any:
        if not homes:
            homes.update(declared(path))
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
