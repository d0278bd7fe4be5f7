"""Keys typed in a burst are handled one at a time, in order, by the widget
the person meant.

Textual hands a key to the focused widget by posting it to that widget's
queue and goes straight on to the next key; a key that the widget does not
use (tab, enter in a form, ``g``, ``1``–``5``, ``/``) then travels up through
each parent's queue to the app, which only then runs its binding. By the time
``tab`` moves the focus or ``g`` opens the subject picker, the keys typed after
it were already handed to the widget focused before: the rest of a form landed
in its first field, a name typed after ``g`` went to the screen below (or to a
dialog whose field was not focused yet, or was emptied as the dialog reset
itself). And a screen that answers a key by loading something in a worker (the
subject picker's list, a timeline, a recall) received the next keys before
that answer, acting on what was shown before.

``KeyGate`` (mixed into the app) queues keys and pastes and lets the next one
through only when the one before has *settled*:

* the key's own journey is over: a callback is queued behind it on the widget
  it went to and on each parent up to the screen, and one on the app;
* what it set off is done: the screen in view (a dialog just pushed, the
  screen below one just dismissed, a mode switched to) and every widget on it
  have nothing left in their queues (a focus change, a dialog's reset, a
  result callback), checked in rounds until a round finds them quiet;
* no screen holds the keys: a screen that starts loading what the next keys
  act on calls ``hold_keys`` and ``release_keys`` when it is shown (each hold
  lapses after ``KEY_HOLD_MAX_S`` so a lost answer cannot freeze the keys);
  a screen that is not the app's own (Textual's command palette) is waited
  for while ``screen_busy`` says it works on something (its search).

Only public Textual API is used (``call_later``, ``message_queue_size``,
``walk_children``); a round that does not come back (a widget removed with the
callback in its queue) is given up after ``ROUND_MAX_S``.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Hashable

from textual import events
from textual.app import App, ScreenStackError
from textual.dom import DOMNode

KEY_HOLD_MAX_S = 5.0
"""The longest a screen may hold typed keys while it loads (a slow store, a
failed worker): after that the keys go on to whatever is focused."""
ROUND_MAX_S = 1.0
"""A settling round that has not come back by then is over anyway (a widget
removed with a callback in its queue; counted in ``lapsed_rounds``)."""
BUSY_POLL_S = 0.02
"""How often a busy screen (``screen_busy``) is looked at again."""
MAX_ROUNDS = 12
"""Rounds a key may take to settle (something that keeps posting messages,
an animation, would otherwise hold the next key for ever)."""


class KeyGate(App[None]):
    """The app's key queue (see the module docstring)."""

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        super().__init__(*args, **kwargs)
        self._typed: deque[events.Key | events.Paste] = deque()
        self._settling = False  # a key (or a released hold) is settling
        self._round = 0  # the last settling round's number
        self._open: int | None = None  # the round under way, if one is
        self._round_left = 0  # its callbacks not back yet
        self._round_screen: object = None  # the screen in view when it started
        self._rounds = 0  # rounds taken by the key settling now
        self._key_at = 0.0  # when the key settling now was handed on
        self._round_timer: asyncio.TimerHandle | None = None
        self._holds: dict[Hashable, float] = {}  # holder -> when its hold lapses
        self.lapsed_holds = 0  # holds that lapsed (an answer that never came, or a slow one)
        self.lapsed_rounds = 0  # settling rounds given up (ROUND_MAX_S)
        self._hold_timer: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------- holds
    def hold_keys(self, holder: Hashable, timeout: float | None = None) -> None:
        """Keep typed keys waiting until ``release_keys(holder)`` (or ``timeout``
        seconds, ``KEY_HOLD_MAX_S`` by default)."""
        self._holds[holder] = time.monotonic() + (KEY_HOLD_MAX_S if timeout is None else timeout)

    def release_keys(self, holder: Hashable) -> None:
        """End ``holder``'s hold; waiting keys go on once the screen is settled."""
        if self._holds.pop(holder, None) is not None:
            self.call_later(self._resume)

    def release_screen_keys(self, screen: object) -> None:
        """End every hold of ``screen`` (holders ``(screen, what)``): its load failed."""
        for holder in [h for h in self._holds if isinstance(h, tuple) and h and h[0] is screen]:
            self.release_keys(holder)

    @property
    def holding_keys(self) -> bool:
        """Whether a hold is in force (lapsed ones are dropped)."""
        if not self._holds:
            return False
        now = time.monotonic()
        for holder in [h for h, until in self._holds.items() if until <= now]:
            del self._holds[holder]
            self.lapsed_holds += 1
        if self._holds and self._hold_timer is None:
            wait = min(self._holds.values()) - now
            self._hold_timer = asyncio.get_running_loop().call_later(wait, self._hold_lapsed)
        return bool(self._holds)

    def _hold_lapsed(self) -> None:
        self._hold_timer = None
        self.call_later(self._resume)

    @property
    def keys_pending(self) -> bool:
        """Whether typed keys wait for their turn or the last one is still settling."""
        return bool(self._typed) or self._settling

    # ------------------------------------------------------------ events
    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.Paste) and not event.is_forwarded:
            self._typed.append(event)
            await self._next_key()
            return
        await super().on_event(event)

    async def _next_key(self) -> None:
        """Hand the next typed key on, if the last one settled and nothing holds."""
        if self._settling or not self._typed or self.holding_keys:
            return
        event = self._typed.popleft()
        try:
            target: DOMNode | None = self.focused or self.screen
        except ScreenStackError:  # no screen yet or any more: Textual's own handling
            target = None
        path: list[DOMNode] = []
        while target is not None and target is not self:
            path.append(target)
            target = target.parent
        self._settling = True
        self._rounds = 0
        self._key_at = time.monotonic()
        await super().on_event(event)  # the app's priority bindings, else to the focused widget
        self._start_round(path)

    async def _resume(self) -> None:
        """A hold ended: settle the screen first (a dialog it just pushed), then go on."""
        if not self._settling and self._typed:
            self._settling = True
            self._rounds = 0
            self._key_at = time.monotonic()
            self._settle_round()

    # ----------------------------------------------------------- settling
    def _start_round(self, path: list[DOMNode]) -> None:
        """Wait for the last key to finish its way up ``path`` (the widget it
        went to, then each parent up to the screen: a callback queued on each
        in turn lands behind the key, which each passes on to its parent
        before it runs the callback), then for the app, then for every busy
        node of the screen in view (``_settle_round``)."""
        self._round += 1
        self._rounds += 1
        number = self._open = self._round
        self._round_screen = self._screen_or_none()
        self._round_timer = asyncio.get_running_loop().call_later(
            ROUND_MAX_S, self._round_lapsed, number)
        self._hop(number, path, 0)

    def _hop(self, number: int, path: list[DOMNode], at: int) -> None:
        if number != self._open:
            return
        while at < len(path):
            if path[at].call_later(self._hop, number, path, at + 1):
                return
            at += 1  # closed: the key goes no further that way
        self.call_later(self._round_done, number)

    def _settle_round(self) -> None:
        """Queue a callback on the screen in view and on each of its nodes
        with messages waiting; the last one back queues ``_round_done`` on
        the app, behind whatever they posted there."""
        self._round += 1
        self._rounds += 1
        number = self._open = self._round
        screen = self._round_screen = self._screen_or_none()
        self._round_timer = asyncio.get_running_loop().call_later(
            ROUND_MAX_S, self._round_lapsed, number)
        if screen is None:  # no screen (closing): nothing to wait for
            self.call_later(self._round_done, number)
            return
        nodes: list[DOMNode] = [screen]
        nodes += [node for node in screen.walk_children() if node.message_queue_size]
        self._round_left = len(nodes)
        for node in nodes:
            if not node.call_later(self._node_done, number):  # closed: nothing to wait for
                self._round_left -= 1
        if self._round_left <= 0:
            self.call_later(self._round_done, number)

    def _screen_or_none(self) -> DOMNode | None:
        try:
            return self.screen
        except ScreenStackError:
            return None

    def _node_done(self, number: int) -> None:
        if number != self._open:
            return
        self._round_left -= 1
        if self._round_left == 0:  # last in the app's queue: behind whatever they posted there
            self.call_later(self._round_done, number)

    def _round_lapsed(self, number: int) -> None:
        if number == self._open:
            self.lapsed_rounds += 1
            self.call_later(self._round_done, number)

    async def _round_done(self, number: int) -> None:
        if number != self._open:
            return  # lapsed and done already
        self._open = None  # late callbacks of this round are ignored
        if self._round_timer is not None:
            self._round_timer.cancel()
            self._round_timer = None
        if self._rounds < MAX_ROUNDS and self._busy_screen():
            self._settle_round()
            return
        screen = self._screen_or_none()
        if (screen is not None and self.screen_busy(screen)
                and time.monotonic() - self._key_at < KEY_HOLD_MAX_S):
            asyncio.get_running_loop().call_later(BUSY_POLL_S, self.call_later, self._look_again)
            return
        self._settling = False
        await self._next_key()

    def _look_again(self) -> None:
        """A busy screen, a moment later: settle again."""
        if self._settling and self._open is None:
            self._rounds = 0
            self._settle_round()

    def screen_busy(self, screen: DOMNode) -> bool:
        """Whether ``screen`` works on what the next key acts on without holding
        the keys itself (the app's own screens hold them); the app says."""
        return False

    def _busy_screen(self) -> bool:
        """The screen in view changed during the round, or some node on it
        has messages waiting (always another round after the key's own way
        up: what it set off comes after)."""
        screen = self._screen_or_none()
        if screen is None:
            return False
        if screen is not self._round_screen or self._rounds == 1:
            return True
        return any(node.message_queue_size for node in screen.walk_children(with_self=True))
