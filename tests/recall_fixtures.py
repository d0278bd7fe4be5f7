"""Helpers for the recall tests: a tiny deterministic embedder (no model to
load) and small conversations to ingest."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from memdesk import ManualClock, Store
from memdesk.ingest import demo_files
from memdesk.lang.text import grams


class HashEmbedder:
    """Character n-grams hashed into ``dim`` buckets: texts that share wording
    are close, which is all the lifecycle and filter tests need."""

    name = "test-hash"

    def __init__(self, version: str = "1", dim: int = 64) -> None:
        self.version = version
        self.dim = dim
        self.calls = 0

    def embed(self, texts: Sequence[str], *, query: bool = False) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for g in grams(text, drop_stopwords=False) or {text}:
                h = int.from_bytes(hashlib.blake2b(g.encode(), digest_size=8).digest(), "little")
                out[row, h % self.dim] += 1.0 if (h >> 32) & 1 else -1.0
            out[row, (row * 7) % self.dim] += 0.01  # never all zeros
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def write_turns(path: Path, texts: Sequence[str], *, session: str = "s1", start: int = 1,
                user: str = "u1", day: int = 1) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i, text in enumerate(texts, start):
            f.write(json.dumps({"session": session, "turn": i, "speaker": "user",
                                "time": f"2026-03-{day:02d}T10:{i % 60:02d}:{i // 60:02d}+08:00",
                                "text": text, "user": user}, ensure_ascii=False) + "\n")
    return path


TOPICS = ["taxis", "coffee", "the metro", "red-eye flights", "marble worktops", "sushi",
          "jazz concerts", "long meetings", "cold showers", "board games", "hiking trips",
          "spicy noodles", "early alarms", "crowded buses", "green tea", "museum visits",
          "winter holidays", "cycling to work", "podcasts", "gardening"]


def topic_texts(n: int, offset: int = 0) -> list[str]:
    out = []
    for i in range(offset, offset + n):
        topic = TOPICS[i % len(TOPICS)]
        out.append(f"Note {i}: the user keeps talking about {topic} and item {i} in the list")
    return out


def demo_store(url: str, clock_iso: str = "2026-06-01T00:00:00+00:00") -> Store:
    from datetime import datetime

    store = Store.open(url, clock=ManualClock(datetime.fromisoformat(clock_iso)))
    for path in demo_files():
        store.facts.ingest_file(path)
    return store


def crowded(vectors: np.ndarray) -> np.ndarray:
    """Unit vectors pulled towards one shared direction: two different texts
    end at a cosine of about 0.96 (as e5 puts short messages), and the order
    of cosines to a query is still that of shared wording."""
    shared = np.zeros(vectors.shape[1], np.float32)
    shared[0] = 5.0
    out = vectors + shared
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def join_warmers(timeout: float = 30) -> None:
    """Wait for the background embedding threads (``memdesk-warm``) to finish."""
    for t in threading.enumerate():
        if t.name == "memdesk-warm":
            t.join(timeout)
