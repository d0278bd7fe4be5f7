"""Snapshots of every screen (pytest-textual-snapshot), from the same scenes
as ``python -m app.screenshots``: the demo store, a fixed clock, at 80x24,
100x30 and 140x42.

After an intended change to the look of a screen, review the new SVGs and run
``pytest tests/test_app_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import shutil

import pytest
from memdesk.app.screenshots import SCENES, SIZES, Scene, demo_app, settle
from textual.pilot import Pilot


async def _confirm_it_changed(pilot: Pilot) -> None:
    """The conflicts screen with the confirmation of "it changed" open: its
    after timeline (the new value) in view at every size."""
    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)


DESK_SCENES = (*SCENES, Scene("conflict_confirm", {"start": "conflicts"}, _confirm_it_changed))
"""The README's scenes, and the dialogs the screenshots leave out."""


@pytest.fixture(autouse=True)
def _plain_env(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("scene", DESK_SCENES, ids=[s.name for s in DESK_SCENES])
def test_screen_snapshot(scene, size, demo_db, tmp_path, snap_compare):
    db = tmp_path / "demo.db"
    shutil.copy(demo_db, db)
    app = demo_app(db, **scene.kwargs)
    try:
        assert snap_compare(app, terminal_size=size, run_before=scene.prepare)
    finally:
        app.service.store.close()
