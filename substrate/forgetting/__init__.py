"""Forgetting: the walk over lineage, and the forget that erases along it.

Owns what a forget does (`cascade`: a fact, a profile line, a promotion, a
curation candidate, a logged session or message, and everything derived only
from it), its work order (`orders`, finished after a kill), the lineage walk
(`walk`), the erasure of facts from pages, buffer, archive, trash and the
decision log (`facts`, `scrub`) and of lines and records from the profile
(`profile`), what `memory lineage` tells (`lineage_report`), what `memory
doctor` proves (`residue`) and the compaction of derived stores (`purge`).
It stands above every room that writes a derived record and imports them;
nothing in the substrate imports it.
"""

from substrate.forgetting.cascade import (
    Forgotten,
    Outcome,
    check_message_id,
    finish_orders,
    forget,
    forget_conversation,
    forget_lock,
    run_order,
)
from substrate.forgetting.orders import SURFACES, Order, pending_orders
from substrate.forgetting.report import lineage

__all__ = [
    "SURFACES",
    "Forgotten",
    "Order",
    "Outcome",
    "check_message_id",
    "finish_orders",
    "forget",
    "forget_conversation",
    "forget_lock",
    "lineage",
    "pending_orders",
    "run_order",
]
