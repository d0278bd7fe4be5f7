"""Regenerate ``screenshots/*.svg``: every screen of the app on the demo store,
at fixed terminal sizes (140x42, and 80x24 / 100x30 for the main screens)
and a fixed clock, so the output is deterministic.

Run: ``python -m memdesk.app.screenshots [--out screenshots]``.
The same scenes drive the snapshot tests (tests/test_app_snapshots.py).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from memdesk import ManualClock, Recaller, Store
from textual.pilot import Pilot
from textual.worker import WorkerCancelled, WorkerState

from .demo import build_demo
from .ui.app import MemdeskApp
from .ui.service import MemdeskService

SIZE = (140, 42)
SIZES = ((80, 24), (100, 30), (140, 42))
"""Every scene is snapshot-tested at these sizes; the README shows 140x42,
and ``SMALL`` the small sizes of the screens people use most."""
SMALL = {"timeline", "conflicts", "review", "recall"}
DEMO_NOW = datetime.fromisoformat("2026-06-01T09:00:00+08:00")
REVIEWER = "demo-reviewer"
OUT = Path(__file__).resolve().parent.parent / "screenshots"


def build_demo_store(path: Path) -> Path:
    """Build the demo store at ``path`` with the fixed clock. Returns ``path``."""
    with Store.open(path, clock=ManualClock(DEMO_NOW)) as store:
        build_demo(store)
    return path


def demo_app(path: Path, **kwargs) -> MemdeskApp:  # noqa: ANN003 - passed to MemdeskApp
    """The app on an existing demo store, with the fixed clock and reviewer.
    Recall's index files go beside the store file."""
    store = Store.open(path, clock=ManualClock(DEMO_NOW))
    return MemdeskApp(MemdeskService(store, REVIEWER, Recaller(store)), **kwargs)


async def settle(pilot: Pilot) -> None:
    """Wait until no worker is running and the screen has repainted (a worker's
    message can start another worker, so check until it is quiet twice)."""
    quiet = 0
    for _ in range(50):
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:  # an exclusive worker replaced by a newer one
            pass
        await pilot.pause(0.02)
        busy = any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in pilot.app.workers)
        quiet = 0 if busy else quiet + 1
        if quiet >= 2:
            break
    await pilot.pause(0.05)


@dataclass(frozen=True)
class Scene:
    """One screenshot: how to open the app and what to press first."""

    name: str
    kwargs: dict
    prepare: Callable[[Pilot], Awaitable[None]]


async def _nothing(pilot: Pilot) -> None:
    await settle(pilot)


def _keys(*keys: str) -> Callable[[Pilot], Awaitable[None]]:
    async def run(pilot: Pilot) -> None:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run


async def _audit(pilot: Pilot) -> None:
    await settle(pilot)
    pilot.app.open_audit("user:alice", "lives_in", "张江")  # type: ignore[attr-defined]
    await settle(pilot)


async def _recall(pilot: Pilot) -> None:
    await settle(pilot)
    await pilot.click("#recall-query")
    await pilot.press(*"where does alice live now")
    await pilot.press("enter")
    await settle(pilot)
    await pilot.press("v")
    await settle(pilot)


SCENES = (
    Scene("timeline", {"subject": "user:alice"}, _keys("down", "down", "down", "right")),
    Scene("timeline_known_at", {"subject": "user:alice"},
          _keys("left_square_bracket", "left_square_bracket", "left_square_bracket")),
    Scene("conflicts", {"start": "conflicts"}, _nothing),
    Scene("review", {"start": "review"}, _keys("j")),
    Scene("recall", {"start": "recall"}, _recall),
    Scene("audit", {"start": "audit"}, _audit),
    Scene("help", {"start": "timeline", "subject": "user:alice"}, _keys("question_mark")),
)


def shot_name(scene: Scene, size: tuple[int, int]) -> str:
    """``timeline.svg`` at 140x42, ``timeline-80x24.svg`` at another size."""
    return f"{scene.name}.svg" if size == SIZE else f"{scene.name}-{size[0]}x{size[1]}.svg"


async def take(scene: Scene, store_path: Path, out: Path, size: tuple[int, int] = SIZE) -> Path:
    """Run one scene on a copy of the demo store at ``size`` and save its SVG."""
    work = Path(tempfile.mkdtemp(prefix="memdesk-shot-"))
    try:
        db = work / "demo.db"
        shutil.copy(store_path, db)
        app = demo_app(db, **scene.kwargs)
        async with app.run_test(size=size) as pilot:
            await scene.prepare(pilot)
            target = out / shot_name(scene, size)
            app.save_screenshot(filename=target.name, path=str(out))
        app.service.store.close()
        return target
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memdesk.app.screenshots", description=__doc__)
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder for the SVGs (default {OUT})")
    args = parser.parse_args(argv)
    os.environ.pop("NO_COLOR", None)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="memdesk-demo-") as tmp:
        store_path = build_demo_store(Path(tmp) / "demo.db")
        for scene in SCENES:
            for size in SIZES if scene.name in SMALL else (SIZE,):
                path = asyncio.run(take(scene, store_path, args.out, size))
                print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
