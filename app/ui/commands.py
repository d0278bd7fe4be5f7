"""Command palette: jump to a subject, a predicate (on the current subject's
timeline), a pending candidate or an open conflict; Textual's own commands
(theme, keys, quit…) come after those.

Textual lists the opening suggestions of all providers in the order they
arrive, and its own provider answers first, so memdesk's provider lists
Textual's commands itself, after its own, and ``SystemCommandsAfter``
answers searches only."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.system_commands import SystemCommandsProvider

from .text import shown

if TYPE_CHECKING:
    from .desk import Desk

Entry = tuple[str, str, Callable[[], Any]]

PALETTE_LIMIT = 300


class MemdeskCommands(Provider):
    """Entries are loaded from the store once per palette opening, off the UI thread."""

    @property
    def memdesk(self) -> Desk:
        """``self.app``, typed as the memdesk app."""
        return cast("Desk", self.app)

    async def startup(self) -> None:
        app = self.memdesk
        service = app.service
        self.entries: list[Entry] = []

        def load() -> list[Entry]:
            out: list[Entry] = []
            for s in service.subjects(limit=PALETTE_LIMIT):  # stored text: shown on one line
                out.append((f"subject {shown(s)}", "open the timeline",
                            partial(app.open_subject, s)))
            for p in service.predicates():
                out.append((f"predicate {p}", "audit the current subject's value",
                            partial(app.open_predicate, p)))
            for c in service.review_page(limit=PALETTE_LIMIT).items:
                out.append((shown(f"candidate #{c.id} {c.subject} {c.predicate} {c.object}"),
                            f"review (confidence {c.confidence:.2f})",
                            partial(app.open_candidate, c.id)))
            for k in service.conflicts("open", limit=PALETTE_LIMIT):
                out.append((shown(f"conflict #{k.id} {k.subject} {k.predicate}"),
                            shown(f"resolve ({k.kind})"), partial(app.open_conflict, k.id)))
            return out

        self.entries = await asyncio.to_thread(load)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, help_text, callback in self.entries:
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), callback, help=help_text)

    async def discover(self) -> Hits:
        for text, help_text, callback in self.entries[:40]:
            yield DiscoveryHit(text, callback, help=help_text)
        for name, help_text, callback, listed in sorted(
                self.app.get_system_commands(self.screen), key=lambda command: command[0]):
            if listed:
                yield DiscoveryHit(name, callback, help=help_text)


class SystemCommandsAfter(SystemCommandsProvider):
    """Textual's own commands, found by searching; their opening suggestions
    are listed by ``MemdeskCommands`` after memdesk's."""

    async def discover(self) -> Hits:
        return
        yield  # an async generator that yields nothing
