"""Lineage: what every derived record came from, and what was forgotten.

Owns the keyed fingerprints a forget keeps instead of words
(`fingerprints`, the key in `memory/.forget-key`), the tombstones under
`memory/forgotten/` (`tombstones`), and how a derived record names its
sources (`sources`: the message ids a captured fact was drawn from). The
walk over lineage and the forget that follows it live in `forgetting`, which
stands above every room that writes a derived record; this room stands low,
so that each of those rooms can write its lineage and read the tombstones.
It imports `safety` and `config` only.
"""

from substrate.lineage.fingerprints import (
    KEY_FILE,
    fingerprint,
    forget_key,
    key_path,
    message_as_piece,
    message_fingerprint,
    message_piece_prints,
    message_word_print,
    message_word_prints,
    normalized,
)
from substrate.lineage.sources import (
    MESSAGE_ID_LIMIT,
    decode_sources,
    encode_sources,
)
from substrate.lineage.tombstones import (
    Row,
    Tombstones,
    read_tombstones,
    tombstone_step,
    tombstones_dir,
    when,
)

__all__ = [
    "KEY_FILE",
    "MESSAGE_ID_LIMIT",
    "Row",
    "Tombstones",
    "decode_sources",
    "encode_sources",
    "fingerprint",
    "forget_key",
    "key_path",
    "message_as_piece",
    "message_fingerprint",
    "message_piece_prints",
    "message_word_print",
    "message_word_prints",
    "normalized",
    "read_tombstones",
    "tombstone_step",
    "tombstones_dir",
    "when",
]
