"""What prompt assembly calls each turn: tier dispatch (the spine) and the
rendered blocks; one engine package per tier (`v1`, `v2`, `v3`). Depends on
`lanes` and `substrate`."""

from injector.assemble import Injector
from injector.blocks import Blocks, SelectedPage, check_conversation_id

__all__ = [
    "Blocks",
    "Injector",
    "SelectedPage",
    "check_conversation_id",
]
