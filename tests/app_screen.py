"""Reading the app's screen in tests: the plain text of every cell as drawn
(what a person sees in the terminal), the sizes every screen is tested at,
and a way to wait until the app is quiet."""

from __future__ import annotations

import io
from pathlib import Path

from memdesk import ManualClock, Store
from memdesk.app.screenshots import DEMO_NOW
from rich.console import Console
from textual.app import App
from textual.strip import Strip

SIZES = ((80, 24), (100, 30), (140, 42))
"""The terminal sizes every screen must work at: a laptop's default
terminal, a half screen, the screenshots' size."""


def screen_lines(app: App) -> list[str]:
    """The screen as drawn (the top screen over the ones below it), one string per row."""
    update = app.screen._compositor.render_update(
        full=True, screen_stack=app._background_screens)
    rows: list[str] = []
    for line in update.strips:  # type: ignore[union-attr]
        pieces: list[Strip] = list(line)
        rows.append("".join(segment.text for strip in pieces for segment in strip))
    return rows


def screen_text(app: App) -> str:
    """``screen_lines`` joined by newlines."""
    return "\n".join(screen_lines(app))


def plain(renderable: object, width: int = 100) -> str:
    """A rich renderable as the plain text it prints at ``width``."""
    console = Console(width=width, file=io.StringIO(), record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def reopen(db: Path) -> Store:
    """The store at ``db`` with the demo's fixed clock (to check what the app wrote)."""
    return Store.open(db, clock=ManualClock(DEMO_NOW))
