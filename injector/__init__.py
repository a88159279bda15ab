"""What prompt assembly calls each turn: tier dispatch and the rendered blocks.
Depends on `lanes` and `substrate`."""

from injector.assemble import Blocks, Injector, SelectedPage

__all__ = ["Blocks", "Injector", "SelectedPage"]
