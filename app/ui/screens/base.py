"""What every memdesk screen shares: the service, failure reporting, and
formatting helpers for times and facts."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta, timezone
from typing import TYPE_CHECKING, cast

from memdesk import MemdeskError, shown
from rich.text import Text
from textual import events
from textual.message import Message
from textual.screen import Screen
from textual.worker import NoActiveWorker, Worker, get_current_worker

if TYPE_CHECKING:
    from memdesk import TurnRecord

    from ..desk import Desk
    from ..service import MemdeskService


class Failed(Message):
    """A worker's call into the engine failed with a user-facing error."""

    def __init__(self, text: str) -> None:
        self.text = text
        super().__init__()


class Fetched(Message):
    """What a thread worker fetched for its screen. Textual cancels the older
    run of an exclusive worker group when a newer one starts, but a thread
    cannot be stopped, so the older run's result still arrives, possibly after
    the screen asked for something newer (a cursor to land on a conflict just
    reopened, say). ``superseded`` says so; handlers drop such a result, since
    the newer run's is on its way."""

    def __init__(self) -> None:
        try:
            self._worker: Worker[object] | None = get_current_worker()
        except NoActiveWorker:  # posted outside a worker: always current
            self._worker = None
        super().__init__()

    @property
    def superseded(self) -> bool:
        """A newer run of the worker that fetched this has started since: this
        one was cancelled, or another of its group is live (an exclusive group
        cancels older runs as a new one starts, so a live uncancelled one is
        newer)."""
        worker = self._worker
        if worker is None:
            return False
        return worker.is_cancelled or any(
            w is not worker and w.group == worker.group and w.node is worker.node
            and not w.is_cancelled and not w.is_finished for w in worker.node.app.workers)


NARROW = 120
"""Below this many columns (100x30 and smaller) a screen is ``narrow``: side-by-side panels stack
(the stylesheet's ``.narrow`` rules)."""


class MemdeskScreen(Screen):
    """Base for the five screens."""

    stale = False
    """The store changed while this screen was not shown: catch up on resume."""

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW, "narrow")

    def on_mount(self) -> None:
        self.watch(self.app, "changes", self._store_changed, init=False)
        self._first_screen_up()

    def _first_screen_up(self) -> None:
        """The keys typed while the app started wait for the first screen to
        be built and shown (and for what it then loads: its own hold, taken
        in its handlers, which Textual calls before these)."""
        if self.built and self.is_current:
            self.memdesk.release_keys("startup")

    def _store_changed(self) -> None:
        if self.is_current:
            self.store_changed()
        else:
            self.stale = True

    @property
    def built(self) -> bool:
        """Whether every widget of this screen is mounted. A screen built
        while the app closes is left with some widgets or none (a container
        whose own children never came): its mount and resume handlers then
        have nothing to show and do nothing."""
        return bool(self.children) and all(w.is_mounted for w in self.query("*"))

    def on_screen_resume(self) -> None:
        """Shown again: catch up if the store changed while it was hidden
        (Textual calls this besides the screen's own handler)."""
        if self.built:
            self.catch_up()
            self._first_screen_up()

    def catch_up(self) -> None:
        """Bring the screen up to date if the store changed while it was hidden."""
        if self.stale:
            self.stale = False
            self.store_changed()

    def hold_keys(self, what: str) -> None:
        """Keys typed from now on wait until ``release_keys(what)``: this screen
        is loading what they act on (the app's ``KeyGate``). Only a screen in
        view holds them (one built or reloaded in the background does not)."""
        if self.is_current:
            self.memdesk.hold_keys((self, what))

    def release_keys(self, what: str) -> None:
        """What the keys act on is here (or failed): let them go on."""
        self.memdesk.release_keys((self, what))

    def store_changed(self) -> None:
        """Someone wrote to the store (another process, another reviewer, this
        app): reload what is shown, keeping the cursor, the focus and anything
        half-typed. Screens override it."""

    @property
    def memdesk(self) -> Desk:
        """``self.app``, typed as the memdesk app (textual types it as any App)."""
        return cast("Desk", self.app)

    @property
    def service(self) -> MemdeskService:
        return self.memdesk.service

    def report(self, exc: BaseException) -> None:
        """Post a failure from a worker thread (engine errors only; others propagate)."""
        if not isinstance(exc, MemdeskError | LookupError | ValueError):
            raise exc
        self.post_message(Failed(str(exc) or exc.__class__.__name__))

    def on_failed(self, message: Failed) -> None:
        self.memdesk.release_screen_keys(self)  # whatever was loading will not come
        self.notify(shown(message.text), severity="error", timeout=6, markup=False)


def cells(*values: object) -> list[Text]:
    """Table cells as plain Text: DataTable would read ``str`` cells as markup
    (slow, and an object like "[x]" would lose its brackets). A ``str`` cell
    is ``shown`` (one line, control and format characters as escapes)."""
    return [v if isinstance(v, Text) else Text(shown(str(v))) for v in values]


def when(us: int | None, tz: int = 0, minutes: bool = True) -> str:
    """A stored time (µs UTC) shown in its source's offset, or "…" for open ends."""
    if us is None:
        return "…"
    zone = timezone(timedelta(minutes=tz)) if tz else UTC
    fmt = "%Y-%m-%d %H:%M" if minutes else "%Y-%m-%d"
    return datetime.fromtimestamp(us / 1e6, zone).strftime(fmt)


def conversation_text(turns: Iterable[TurnRecord], mark: int) -> Text:
    """Turns of one conversation, one per line: number, time, speaker, text;
    turn ``mark`` (the source of what is shown) highlighted and pointed at."""
    out = Text()
    for t in turns:
        marked = t.turn == mark
        style = "bold reverse" if marked else ("" if t.speaker == "user" else "dim")
        out.append(f"{'▶' if marked else ' '} #{t.turn:<3} {when(t.time, t.tz)} "
                   f"{shown(t.speaker):<9} ", style="cyan" if marked else "dim")
        out.append(shown(t.text) + "\n", style=style)
    return out
