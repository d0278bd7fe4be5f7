"""The demo store: the bundled conversations ingested through the write path,
plus a few facts from "another pipeline" that wait in the review queue.

``memdesk demo`` builds it into the configured store; ``memdesk`` with no store
configured builds it once into the user's data folder and opens the app on it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memdesk.core import Store
from memdesk.core.ingest import demo_files
from memdesk.core.resources import data_path

DEMO_REVIEW = data_path("demo", "review.jsonl")


@dataclass(frozen=True)
class DemoPart:
    """What one demo file added."""

    file: str
    turns: int
    facts: int
    merged: int
    queued: int
    conflicts: int
    memories: int


def build_demo(store: Store, progress: Callable[[str], None] | None = None) -> list[DemoPart]:
    """Ingest the demo conversations and import the demo review candidates.
    Rerunning adds nothing. Raises FileNotFoundError when data/ is missing."""
    parts = []
    for path in demo_files():
        if progress:
            progress(f"ingesting {path.name}")
        s = store.ingest_file(path)
        parts.append(DemoPart(path.name, s["turns"], s["asserted"] + s["evolutions"]
                              + s["corrections"] + s["backfills"], s["merged"], s["queued"],
                              s["conflicts"], s["memories"]))
    if progress:
        progress(f"importing {DEMO_REVIEW.name}")
    s = store.import_file(DEMO_REVIEW, actor="demo").to_dict()
    parts.append(DemoPart(DEMO_REVIEW.name, 0, s["asserted"] + s["evolutions"]
                          + s["corrections"] + s["backfills"], s["merged"], s["queued"],
                          s["conflicts"], s["memories"]))
    return parts


def default_demo_path() -> Path:
    """Where ``memdesk`` keeps the demo store when no store is configured:
    ``$XDG_DATA_HOME/memdesk/demo.db`` (``~/.local/share/memdesk/demo.db``)."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "memdesk" / "demo.db"
