"""Collapsing near-duplicates: the best of each group of twins is kept and
counts the others in ``RecallHit.duplicates``. Reads vectors only through
the collection (``Collection.vectors_of``); raises nothing of its own."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..lang.text import grams
from .collection import Collection
from .hits import RecallHit

DUP_COSINE = 0.95
DUP_GRAMS = 0.8


def collapse(col: Collection, hits: list[RecallHit], k: int) -> list[RecallHit]:
    """Drop near-duplicates of a better result; the kept one counts them in
    ``duplicates``. Memories: same subject and status, and cosine >= 0.95
    or nearly the same wording. Raw turns: the same words (``wording``:
    up to case, spaces and punctuation), never by their vectors: e5 puts
    short messages in a narrow cone (two different messages of one
    person: median cosine 0.90 on the development streams, one pair in a
    hundred at 0.95 or more, an update and the plan it changed the usual
    pair), and every turn is its own evidence. Goes down the list until
    k results are kept. Vectors and n-grams are read only for memories
    that have a rival (a kept result about the same subject with the same
    status), vectors a window of max(3k, 30) results at a time."""
    if len(hits) < 2:
        return hits[:k]
    if all(h.kind == "turn" for h in hits):
        return collapse_wording(hits, k)
    step = max(3 * k, 30)
    kept: list[RecallHit] = []
    kept_grams: list[set[str] | None] = []  # computed when first compared
    vectors: dict[int, np.ndarray | None] = {}  # read when first compared, a window at a time
    dups: list[int] = []

    def item(h: RecallHit) -> int | None:
        return h.memory_id if h.kind == "memory" else h.turn_id

    def vector(h: RecallHit, window: list[RecallHit]) -> np.ndarray | None:
        i = item(h)
        if i is not None and i not in vectors:
            wanted = {j for x in (*window, *kept) if (j := item(x)) is not None} - vectors.keys()
            vectors.update(dict.fromkeys(wanted))  # None stays for items without a vector
            vectors.update(col.vectors_of(sorted(wanted)))
        return vectors.get(i) if i is not None else None

    full = False  # k results kept and a further distinct one seen: stop
    for s in range(0, len(hits), step):
        window = hits[s:s + step]
        for h in window:
            # only results about the same subject, with the same status, can be twins
            rivals = [j for j, kh in enumerate(kept)
                      if kh.subject == h.subject and kh.status == h.status]
            g: set[str] | None = None
            twin = None
            if rivals:
                v = vector(h, window)
                g = grams(h.text, drop_stopwords=False)
                for j in rivals:
                    kv = vector(kept[j], window)
                    if v is not None and kv is not None and float(v @ kv) >= DUP_COSINE:
                        twin = j
                        break
                    kg = kept_grams[j]
                    if kg is None:
                        kg = kept_grams[j] = grams(kept[j].text, drop_stopwords=False)
                    union = g | kg
                    if union and len(g & kg) / len(union) >= DUP_GRAMS:
                        twin = j
                        break
            if twin is not None:
                dups[twin] += 1
            elif len(kept) >= k:
                full = True
                break
            else:
                kept.append(h)
                kept_grams.append(g)
                dups.append(0)
        if full:
            break
    return [replace(h, duplicates=d) if d else h for h, d in zip(kept, dups, strict=True)]


def wording(text: str) -> str:
    """A turn's words as ``collapse_wording`` compares them: case folded,
    only letters and digits (``"好的，收到！"`` and ``"好的 收到"`` are the
    same; ``"跑了5公里"`` and ``"跑了6公里"`` are not); the text as it is
    when it holds neither."""
    folded = "".join(ch for ch in text.casefold() if ch.isalnum())
    return folded or text.strip()


def collapse_wording(hits: list[RecallHit], k: int) -> list[RecallHit]:
    """The first k hits of different wording (``wording``), best first; each
    counts the later hits of its wording in ``duplicates``. Fewer than k only
    when fewer than k wordings are among ``hits``."""
    first: dict[tuple[str | None, str], int] = {}
    kept: list[RecallHit] = []
    dups: list[int] = []
    for h in hits:
        key = (h.subject, wording(h.text))
        j = first.get(key)
        if j is not None:
            dups[j] += 1
        elif len(kept) >= k:
            break
        else:
            first[key] = len(kept)
            kept.append(h)
            dups.append(0)
    return [replace(h, duplicates=d) if d else h for h, d in zip(kept, dups, strict=True)]


__all__ = ["DUP_COSINE", "DUP_GRAMS", "collapse", "collapse_wording", "wording"]
