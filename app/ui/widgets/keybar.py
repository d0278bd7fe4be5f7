"""A one-line key bar: the screen's active bindings drawn as one Text.

Textual's Footer mounts a widget per key and recomposes them whenever focus
moves, which costs tens of milliseconds per screen switch on a slow machine;
this bar repaints a single line instead. Clicking is not supported: every
action has its key, listed in full by the help screen (``?``); when the bar
is too narrow for every key it says so ("? more keys").
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget


class KeyBar(Widget):
    """The keys of whatever has focus on this screen, then the screen's and
    the app's. Keys that do not fit the width are left out whole (never cut
    mid-word), and the bar then ends with the help key, which lists them all."""

    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: 1; background: $footer-background; color: $footer-foreground; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._keys: list[tuple[str, str, bool]] = []  # (key, description, enabled)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._changed)
        self._changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _changed(self, screen) -> None:  # noqa: ANN001 - a textual Screen
        if not self.is_attached or screen is not self.screen:
            return
        keys: list[tuple[str, str, bool]] = []
        seen: set[str] = set()
        for _node, binding, enabled, _tooltip in screen.active_bindings.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            keys.append((self.app.get_key_display(binding), binding.description, enabled))
        self._keys = keys
        self.refresh()

    def render(self) -> Text:
        return key_line(self._keys, self.size.width or 200)


def key_line(keys: list[tuple[str, str, bool]], width: int) -> Text:
    """The bar for ``width`` cells: as many whole keys as fit; when some are
    left out, the help key ("?", which lists every key) comes last."""
    def entry(key: str, description: str, enabled: bool) -> Text:
        return Text.assemble((f" {key} ", "bold reverse" if enabled else "dim reverse"),
                             (f" {description} ", "" if enabled else "dim"))

    parts = [entry(*k) for k in keys]
    if sum(p.cell_len for p in parts) <= width:
        return Text.assemble(*parts)
    more = entry("?", "more keys", True)
    shown: list[Text] = []
    used = more.cell_len
    for key, part in zip(keys, parts, strict=True):
        if key[0] == "?":
            continue
        if used + part.cell_len > width:
            break
        shown.append(part)
        used += part.cell_len
    return Text.assemble(*shown, more)
