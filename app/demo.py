"""The demo store: the bundled conversations ingested through the write path,
plus a few facts from "another pipeline" that wait in the review queue.

The conversations are replayed in the order they happened: every turn of
every demo file, merged by time. Transaction time follows the turns' times
and never moves backwards, so ingesting the files one after the other would
record a conversation that happened before the previous file's at that
file's last moment, and "known at" would have nothing to replay for it.

``memdesk demo`` builds it into the configured store; ``memdesk`` with no store
configured builds it once into the user's data folder and opens the app on it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from memdesk import InvalidInput, Store, Turn, data_path, demo_files, iter_turns, to_us

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


@dataclass(frozen=True)
class Stretch:
    """Consecutive turns (in time order) that all come from one file."""

    path: Path
    turns: tuple[Turn, ...]


def stretches(paths: Sequence[Path]) -> list[Stretch]:
    """The turns of ``paths`` merged by time, cut where the file changes.
    Equal times keep the files' order and each file's line order, so every
    session's turns stay in the order its file gives them.
    Raises InputFileError naming a bad line."""
    timed = [(to_us(turn.time), i, line, turn)
             for i, path in enumerate(paths) for line, turn in iter_turns(path)]
    timed.sort(key=lambda item: item[:3])
    out: list[tuple[int, list[Turn]]] = []
    for _, i, _, turn in timed:
        if not out or out[-1][0] != i:
            out.append((i, []))
        out[-1][1].append(turn)
    return [Stretch(paths[i], tuple(turns)) for i, turns in out]


def _facts(s: dict) -> int:
    return s["asserted"] + s["evolutions"] + s["corrections"] + s["backfills"] + s["refinements"]


def build_demo(store: Store, progress: Callable[[str], None] | None = None) -> list[DemoPart]:
    """Load the demo data into ``store`` as one bulk load (see ``_load_demo``)."""
    with store.bulk():
        return _load_demo(store, progress)


def _load_demo(store: Store, progress: Callable[[str], None] | None = None) -> list[DemoPart]:
    """Replay the demo conversations in time order (one transaction per
    stretch of one file), then import the demo review candidates. Returns
    what each file added. Rerunning adds nothing. Raises FileNotFoundError
    when data/ is missing."""
    paths = demo_files()
    totals = {path.name: [0, 0, 0, 0, 0, 0] for path in paths}
    started: set[str] = set()
    for part in stretches(paths):
        name = part.path.name
        if progress and name not in started:
            progress(f"ingesting {name}")
        started.add(name)
        try:
            s = store.facts.ingest_turns(part.turns, origin=str(part.path)).to_dict()
        except InvalidInput as exc:  # "turn N" counts from the stretch: name the file too
            raise InvalidInput(f"{part.path}: {exc}") from None
        for k, value in enumerate((s["turns"], _facts(s), s["merged"], s["queued"],
                                   s["conflicts"], s["memories"])):
            totals[name][k] += value
    parts = [DemoPart(name, *counts) for name, counts in totals.items()]
    if progress:
        progress(f"importing {DEMO_REVIEW.name}")
    s = store.facts.import_file(DEMO_REVIEW, actor="demo").to_dict()
    parts.append(DemoPart(DEMO_REVIEW.name, 0, _facts(s), s["merged"], s["queued"],
                          s["conflicts"], s["memories"]))
    return parts


def demo_vectors() -> Path:
    """The table of the demo's passage vectors (``memdesk.KnownVectors``), shipped with the demo data and
    rebuilt by ``python -m memdesk.app.demo_vectors``."""
    return data_path("demo", "vectors.npz")


def default_demo_path() -> Path:
    """Where ``memdesk`` keeps the demo store when no store is configured:
    ``$XDG_DATA_HOME/memdesk/demo.db`` (``~/.local/share/memdesk/demo.db``)."""
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "memdesk" / "demo.db"
