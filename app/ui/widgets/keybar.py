"""A one-line key bar: the screen's active bindings drawn as one Text.

Textual's Footer mounts a widget per key and recomposes them whenever focus
moves, which costs tens of milliseconds per screen switch on a slow machine;
this bar repaints a single line instead. Clicking is not supported: every
action has its key, listed in full by the help screen (``?``).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class KeyBar(Static):
    """The keys of whatever has focus on this screen, then the screen's and the app's."""

    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: 1; background: $footer-background; color: $footer-foreground; }
    """

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._changed)
        self._changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _changed(self, screen) -> None:  # noqa: ANN001 - a textual Screen
        if not self.is_attached or screen is not self.screen:
            return
        out = Text(no_wrap=True, overflow="ellipsis")
        seen: set[str] = set()
        for _node, binding, enabled, _tooltip in screen.active_bindings.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            key = self.app.get_key_display(binding)
            out.append(f" {key} ", style="bold reverse" if enabled else "dim reverse")
            out.append(f" {binding.description} ", style="" if enabled else "dim")
        self.update(out)
