"""The learned second opinion: logistic regression for what the rules miss.

Its features are the multilingual sentence embedding the product already
ships (USE, 512 numbers that read sixteen languages) beside hashed lexical
features of the folded text (words, word pairs and character 4-grams, signed
into `hash_dim` buckets): the embedding carries meaning across languages and
wordings, the hashed part carries the tell-tale phrases the embedding blurs.

The weights (`model/detector.json`, tens of KB) are fitted by
`bench/scanner_train.py` on the development set with a fixed seed; its
threshold was chosen under cross-validation for at most 1% false positives
on the benign half. This module only scores: the embedding is computed by
whoever builds the scanner (the composition root passes an `embed`
function, loaded on first use), so the safety room loads no model itself.
"""

from __future__ import annotations

import base64
import itertools
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from substrate.errors import InvalidInputError
from substrate.safety.safe_files import read_text_file
from substrate.safety.scanner.findings import rx
from substrate.safety.scanner.normalize import fold

MODEL_PATH = Path(__file__).parent / "model" / "detector.json"
FORMAT = 1
if TYPE_CHECKING:  # numpy is imported when a vector is first made (a cold `remember` makes none)
    import numpy as np
    import numpy.typing as npt

    Embed = Callable[[str], npt.NDArray[np.float32]]
    Floats = npt.NDArray[np.float64]
MAX_CHARS = 4000  # what the detector reads of a text (it was trained on the same cut)
# Below this many words the detector abstains: a hash, a key fingerprint or a
# two-word note gives its features too little to read (and the rules still run).
MIN_WORDS = 3
CHAR_GRAM = 4
_WORD = rx(r"[\pL\pN_]+")
_CJK = rx(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]")


def hashed_features(text: str, dim: int) -> Floats:
    """Signed feature hashing of the folded text, unit length: words, adjacent
    word pairs and character 4-grams over the words joined by single spaces.
    crc32 keeps the buckets the same in every process (Python's `hash` is
    salted)."""
    import numpy as np

    words = _WORD.findall(fold(text[:MAX_CHARS]))
    grams = [*words, *(f"{a} {b}" for a, b in itertools.pairwise(words))]
    joined = f" {' '.join(words)} "
    grams += [f"#{joined[i : i + CHAR_GRAM]}" for i in range(len(joined) - CHAR_GRAM + 1)]
    out = np.zeros(dim, dtype=np.float64)
    for gram in grams:
        code = zlib.crc32(gram.encode("utf-8"))
        out[code % dim] += 1.0 if code >> 31 else -1.0
    norm = float(np.linalg.norm(out))
    return out / norm if norm else out


def readable(text: str) -> bool:
    """Enough words for the detector to judge: words of letters only (a CJK
    character counts as one), at least `MIN_WORDS`."""
    cut = text[:MAX_CHARS]
    words = sum(1 for w in _WORD.findall(cut) if w.isalpha() and not _CJK.search(w))
    return words + len(_CJK.findall(cut)) >= MIN_WORDS


def pack(values: Floats) -> str:
    """float32, little-endian, base64: a third of the size of a JSON list."""
    import numpy as np

    return base64.b64encode(np.asarray(values, dtype="<f4").tobytes()).decode("ascii")


def unpack(text: str) -> Floats:
    import numpy as np

    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float64)


class Detector(Protocol):
    """What the scanner asks of a learned second opinion."""

    def flags(self, text: str) -> bool: ...

    def score(self, text: str) -> float: ...


@dataclass(frozen=True)
class DetectorWeights:
    """What the training script fits and this module scores with."""

    embedding: Floats  # one weight per embedding dimension
    hashed: Floats  # one weight per hash bucket
    bias: float
    threshold: float  # flags above this score
    embedder: str  # the model the embedding weights were fitted to (USE's identity)
    trained: dict[str, Any]  # counts, seed, cross-validated rates: for the record

    def score(self, vector: Floats, text: str) -> float:
        lexical = hashed_features(text, len(self.hashed))
        return float(vector @ self.embedding + lexical @ self.hashed + self.bias)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "embedder": self.embedder,
            "embedding_dim": len(self.embedding),
            "hash_dim": len(self.hashed),
            "bias": self.bias,
            "threshold": self.threshold,
            "embedding_weights": pack(self.embedding),
            "hashed_weights": pack(self.hashed),
            "trained": self.trained,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any], where: str) -> DetectorWeights:
        if doc.get("format") != FORMAT:
            raise InvalidInputError(f"{where}: format {doc.get('format')!r}, expected {FORMAT}")
        try:
            out = cls(
                unpack(doc["embedding_weights"]),
                unpack(doc["hashed_weights"]),
                float(doc["bias"]),
                float(doc["threshold"]),
                str(doc["embedder"]),
                dict(doc.get("trained") or {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"{where}: damaged detector weights ({exc})") from None
        if len(out.embedding) != doc.get("embedding_dim") or len(out.hashed) != doc.get("hash_dim"):
            raise InvalidInputError(f"{where}: weight counts do not match their dimensions")
        return out


@dataclass(frozen=True)
class LearnedDetector:
    weights: DetectorWeights
    embed: Embed

    @classmethod
    def load(cls, embed: Embed, path: Path = MODEL_PATH) -> LearnedDetector:
        text = read_text_file(path)
        if text is None:
            raise FileNotFoundError(f"{path} is missing")
        return cls(DetectorWeights.from_json(json.loads(text), str(path)), embed)

    def score(self, text: str) -> float:
        import numpy as np

        cut = text[:MAX_CHARS]
        vector = np.asarray(self.embed(cut), dtype=np.float64)
        return self.weights.score(vector, cut)

    def flags(self, text: str) -> bool:
        if not readable(text):
            return False
        return self.score(text) > self.weights.threshold


class DeferredDetector:
    """Learned weights (the scanner's detector by default; capture's durability
    judge reads its own), read from disk on the first text judged: a process
    that never asks (a cold `memory remember`, whose user fact the detector does
    not judge) never loads numpy or the weights. A damaged install is reported
    then, naming what (`name`) and why, as `LearnedDetector.load` reports it."""

    def __init__(
        self,
        embed: Embed,
        path: Path = MODEL_PATH,
        name: str = "the scanner's learned detector",
    ) -> None:
        self._embed = embed
        self._path = path
        self._name = name
        self._loaded: LearnedDetector | None = None

    def _detector(self) -> LearnedDetector:
        if self._loaded is None:
            try:
                self._loaded = LearnedDetector.load(self._embed, self._path)
            except (OSError, ValueError) as exc:  # a damaged install
                raise InvalidInputError(f"{self._name} cannot be loaded: {exc}") from None
        return self._loaded

    @property
    def threshold(self) -> float:
        return self._detector().weights.threshold

    def score(self, text: str) -> float:
        return self._detector().score(text)

    def flags(self, text: str) -> bool:
        return self._detector().flags(text)
