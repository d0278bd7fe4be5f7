"""The app's one-line header: the five screens with their keys (the current
one highlighted), and what waits for a decision (pending candidates, open
conflicts), the reviewer and the store.

It is redrawn from the app's ``overview`` whenever that changes. When the line
is too narrow, the parts go in a fixed order, decorations before names: the
store's name first, then the reviewer, then the app's name, then the spaces
around the tabs not shown, then the screens' names are shortened
(``SHORT_NAMES``); only then the names of the screens not shown go (their
keys stay), then the current screen's name; the counts of what waits are
never dropped. At 80 columns every screen keeps its name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.cells import cell_len
from rich.text import Text
from textual.widget import Widget

from ..text import ellipsize, plural

if TYPE_CHECKING:
    from ..desk import Desk
    from ..service import Overview


SHORT_NAMES = {"timeline": "time", "conflicts": "confl", "review": "review", "recall": "recall",
               "audit": "audit"}
"""Each screen's name when the full ones do not fit."""


def header_line(screens: tuple[str, ...], current: str | None, overview: Overview | None,
                width: int) -> Text:
    """The header for ``width`` cells: the richest version that fits."""
    if overview is None:
        waits, who, store = "loading…", "", ""
    else:
        waits = (f"{plural(overview.pending, 'pending', 'pending')} · "
                 f"{plural(overview.open_conflicts, 'conflict')}")
        who, store = f"reviewer {overview.reviewer}", overview.store

    def tabs(named: str, tight: bool = False) -> Text:
        """Every screen's key; with its name for ``all`` screens (``short``:
        shortened) or the ``current`` one; ``tight``: one space between tabs."""
        out = Text()
        for i, name in enumerate(screens, 1):
            shown = named in ("all", "short") or (named == "current" and name == current)
            label = SHORT_NAMES.get(name, name) if named == "short" else name
            text = f"{i} {label}" if shown else f"{i}"
            if name == current or not tight:
                text = f" {text} "
            elif out.plain and not out.plain.endswith(" "):
                text = " " + text
            out.append(text, style="bold reverse" if name == current else "")
        if tight and not out.plain.endswith(" "):
            out.append(" ")
        return out

    for brand, named, tight, extras in (
            (True, "all", False, (who, store)), (True, "all", False, (who,)),
            (True, "all", False, ()), (False, "all", False, ()), (False, "all", True, ()),
            (False, "short", True, ()), (False, "current", False, (who,)),
            (False, "current", False, ()), (False, "none", False, ())):
        left = Text.assemble(("memdesk " if brand else "", "bold"), tabs(named, tight))
        right = " · ".join(part for part in (waits, *extras) if part)
        gap = width - left.cell_len - cell_len(right) - 1
        if gap >= 1:
            return Text.assemble(left, " " * gap, (right, "bold"), " ")
    right = ellipsize(waits, max(width - 1, 0))  # not even the keys fit: what waits, alone
    return Text.assemble(" " * max(width - cell_len(right) - 1, 0), (right, "bold"), " ")


class DeskHeader(Widget):
    """The header line of every screen (see the module docstring)."""

    DEFAULT_CSS = """
    DeskHeader { dock: top; height: 1; background: $panel; color: $foreground; }
    """

    def on_mount(self) -> None:
        self.watch(self.app, "overview", self._changed, init=False)

    def _changed(self) -> None:
        self.refresh()

    def render(self) -> Text:
        app = cast("Desk", self.app)
        return header_line(app.SCREENS_IN_ORDER, app.current_mode, app.overview,
                           self.size.width)
