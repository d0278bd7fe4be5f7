"""Conflicts: open contradictions, each side in full; resolve by keeping the
existing value, taking the incoming one as a change from its own valid time,
as a correction of an existing value that was wrong, keeping both (in another
scope) or neither.

The table lists the open conflicts; below it, the detail pane shows the
selected one: each side's whole text, its score (confidence, source kind,
extractor, mentions, scope, polarity, valid and recorded times), the gates it
passed, its source turn inside the conversation around it, and what each
choice would make of the timeline (a dry run of the gates). Every key asks
first: a dialog shows that choice's timeline before -> after and takes it on
enter (escape writes nothing); ``u`` undoes the last resolution taken in this
sitting. A reload (``fetch``, also called when the store changes) keeps the
cursor on the conflict it was on, or the next one if that one is gone."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memdesk import AlreadyDecided, Conflict, TurnRecord
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import DataTable, Label, Static

from ..service import ConflictDetail, ConflictSide
from ..text import plural, short_time, shown, shown_all
from ..widgets.desk_header import DeskHeader
from ..widgets.fast_table import FastTable
from ..widgets.keybar import KeyBar
from .base import Fetched, MemdeskScreen, cells, when
from .modals import Confirmation, ConfirmScreen


class ConflictsLoaded(Fetched):
    def __init__(self, conflicts: list[Conflict]) -> None:
        self.conflicts = conflicts
        super().__init__()


class DetailLoaded(Message):
    """A conflict's detail and its choices' dry run, as fetched for the list
    of load ``generation``; ``closed`` says why there are no choices (the
    conflict was decided meanwhile)."""

    def __init__(self, generation: int, detail: ConflictDetail, choices: list[dict[str, Any]],
                 closed: str | None) -> None:
        self.generation = generation
        self.detail = detail
        self.choices = choices
        self.closed = closed
        super().__init__()


class Resolved(Message):
    def __init__(self, conflict: Conflict) -> None:
        self.conflict = conflict
        super().__init__()


class Reopened(Message):
    def __init__(self, conflict: Conflict) -> None:
        self.conflict = conflict
        super().__init__()


CHOICE_NAMES = {
    "existing": "keep existing",
    "changed": "it changed",
    "incoming": "existing was wrong",
    "both": "keep both",
    "neither": "neither",
}
"""How the preview names each resolution (``incoming`` is a correction)."""

CHOICE_DOES = {
    "existing": "keep the existing value; the incoming claim is rejected",
    "changed": "the value changed: the incoming one holds from its own valid time, "
               "the existing one until then",
    "incoming": "the existing value was wrong: the incoming one takes its whole time",
    "both": "both hold: the incoming value in another scope, which you name",
    "neither": "retract both values (you may say why)",
}
"""What each resolution does, in a sentence (key help, dialog titles)."""

KIND_WHY = {
    "value": "another value already holds over this time, and the incoming turn gave no "
             "sign that the value changed or that the existing one was wrong",
    "polarity": "the same value already holds with the opposite polarity",
}
"""Why the conflict gate opened a conflict of each kind (core.gates.ConflictKind)."""

ORIGINS = {"kept": "unchanged", "history": "closed, kept as history", "incoming": "incoming"}
"""How the preview's timeline rows came about (``origin``)."""

RETIRED_AS = {"corrected": "marked corrected: never true", "superseded": "closed, kept as history",
              "retracted": "retracted: no longer believed"}
"""What each retire reason means for the row retired."""

EMPTY_TEXT = (
    "Nothing to decide: there are no open conflicts.\n\n"
    "A conflict opens when a claim gives another value for something that holds one value "
    "at a time (or the same value with the opposite polarity) over a time where a fact "
    "already holds, and its turn says neither that the value changed nor that the old one "
    "was wrong. Claims come from imports, ingested conversations, the agent's memory door "
    "and approved review candidates (3 review). Until someone decides, current belief "
    "keeps the existing value.\n\n"
    "Decided conflicts stay in the audit of their facts (5 audit); u undoes the last "
    "resolution taken in this sitting."
)

CONVERSATION_TIMES_WIDTH = 60
"""Below this width the conversation leaves out each turn's time (the source
turn's time is in the side's score) so the text keeps room to wrap."""


def offset_of(stamp: str | None) -> int:
    """The UTC offset, in minutes, of an ISO 8601 time (0 without one)."""
    if not stamp:
        return 0
    offset = datetime.fromisoformat(stamp).utcoffset()
    return 0 if offset is None else int(offset.total_seconds() // 60)


def incoming_tz(conflict: Conflict) -> int:
    """The offset of the conflict's incoming claim (its source turn's), which
    the conflict's own times are shown in."""
    incoming = conflict.facts[-1] if conflict.facts else {}
    source = incoming.get("source") or {}
    return offset_of(source.get("time") or incoming.get("valid_from"))


def value_text(value_json: str | None) -> str | None:
    """A stored value (JSON) as one readable line, or None."""
    if value_json is None:
        return None
    return shown(json.dumps(json.loads(value_json), ensure_ascii=False, separators=(", ", ": ")))


def preview_text(choices: list[dict], keys: dict[str, str]) -> Group:
    """What each resolution would make of the timeline, one row per key, in
    the order of ``keys`` (resolution -> key)."""
    head = Text()
    head.append("what each key would make of the timeline", style="bold")
    head.append(" · each key asks before it writes · u undoes", style="dim")
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1)
    by_keep = {c["keep"]: c for c in shown_all(choices)}
    for keep, key in keys.items():
        choice = by_keep.get(keep)
        if choice is None:
            continue
        style = "" if choice["error"] is None else "dim"
        text = choice["text"] if choice["error"] is None else f"cannot: {choice['error']}"
        grid.add_row(Text(f" {key} ", style="bold reverse"),
                     Text(CHOICE_NAMES.get(keep, keep), style=style or "bold"),
                     Text(text, style=style))
    return Group(head, grid)


def head_text(detail: ConflictDetail) -> Text:
    """The conflict itself: what it is about, when it opened, why."""
    c = detail.conflict
    out = Text()
    out.append(f"conflict {c.id}  ", style="bold")
    out.append(shown(f"{c.subject} {c.predicate}"), style="bold")
    out.append(shown(f" · scope {c.scope} · {c.kind} conflict") + " · opened "
               f"{when(c.opened_at, detail.tz)}\n")
    existing = ", ".join(f"fact {s.fact_id}" for s in detail.sides if not s.incoming)
    why = KIND_WHY.get(c.kind, f"a {c.kind} conflict")
    out.append(f"why: {why} ({existing or 'no fact left'}).", style="yellow")
    return out


class Conversation:
    """The turns around a source turn, that turn marked; each turn's time is
    shown where the width leaves the text room (CONVERSATION_TIMES_WIDTH)."""

    def __init__(self, session: str, turns: Iterable[TurnRecord], mark: int) -> None:
        self.session = session
        self.turns = tuple(turns)
        self.mark = mark

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        times = options.max_width >= CONVERSATION_TIMES_WIDTH
        yield Text(f"conversation {shown(self.session)}", style="bold underline")
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True)
        if times:
            grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True)
        grid.add_column(ratio=1, overflow="fold")
        for t in self.turns:
            marked = t.turn == self.mark
            head = Text(f"{'▶' if marked else ' '} #{t.turn}", style="cyan" if marked else "dim")
            style = "bold reverse" if marked else ("" if t.speaker == "user" else "dim")
            row = [head] + ([Text(when(t.time, t.tz), style="dim")] if times else [])
            grid.add_row(*row, Text(shown(t.speaker), style="dim"),
                         Text(shown(t.text), style=style))
        yield grid


def side_text(side: ConflictSide, conflict: Conflict) -> Group:
    """One side of ``conflict`` in full: title, whole object and value, score,
    gates, and the conversation around its source turn."""
    title = Text()
    if side.incoming:
        title.append(f"incoming · claim {side.claim_id} · waits for you", style="bold yellow")
    else:
        title.append(f"existing · fact {side.fact_id} · {side.status}", style="bold green")
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, style="dim")
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row("object", Text(shown(side.held.object), style="bold"))
    value = value_text(side.held.value_json)
    if value is not None:
        grid.add_row("value", Text(value))
    grid.add_row("confidence", Text(shown(f"{side.held.confidence:.2f} · {side.kind} · extractor "
                                          f"{side.extractor} · "
                                          f"{plural(side.mentions, 'mention')}")))
    grid.add_row("scope", Text(shown(f"{side.held.scope} · polarity {side.held.polarity}")))
    grid.add_row("valid", Text(f"{when(side.held.valid_from, side.tz)} → {when(side.held.valid_to, side.tz)}"))
    if side.recorded_at is not None:
        grid.add_row("recorded", Text(when(side.recorded_at, side.tz)))
    else:
        grid.add_row("recorded", Text("not yet: it becomes a fact only if you take it"))
    if side.source is not None:
        grid.add_row("said", Text(f"{when(side.source.time, side.source.tz)} by "
                                  + shown(f"{side.source.speaker}, {side.source.session} "
                                          f"#{side.source.turn}")))
    if side.reasons:
        grid.add_row("review", Text(shown("; ".join(side.reasons)), style="yellow"))
    if side.gates:
        grid.add_row("gates", Text(shown(" · ".join(
            f"{g.gate} {g.result}" + (f" ({g.note})" if g.note else "") for g in side.gates))))
    elif side.incoming:  # the store keeps a waiting claim's gates to itself; this one it tells
        grid.add_row("gates", Text(f"conflict opened (conflict {conflict.id}, {conflict.kind})"))
    parts: list[RenderableType] = [title, grid]
    if side.source is not None and side.turns:
        parts += [Text(""), Conversation(side.source.session, side.turns, side.source.turn)]
    return Group(*parts)


# ---------------------------------------------------------------- confirm
def timeline_rows(rows: list[dict[str, Any]], scope_named: str | None = None) -> Table:
    """Timeline rows of a preview (``object, valid_from, valid_to, scope,
    origin, fact_id``), whole objects, wrapped; ``scope_named`` replaces the
    incoming row's scope (keep both: the scope typed so far)."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(ratio=1, overflow="fold")
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for r in shown_all(rows):
        scope = scope_named if scope_named and r.get("origin") == "incoming" else r.get("scope")
        obj = r["object"] + (f" ({r['predicate']})" if r.get("predicate") else "")
        note = ORIGINS.get(r.get("origin", ""), r.get("origin", ""))
        if r.get("fact_id") is not None:
            note = f"fact {r['fact_id']}, {note}"
        grid.add_row(Text(obj, style="bold"),
                     Text(f"{short_time(r.get('valid_from'))} → {short_time(r.get('valid_to'))}"),
                     Text(f"{scope} · {note}", style="dim"))
    return grid


def choice_effect(choices: list[dict[str, Any]], keep: str, incoming: str,
                  answer: str = "") -> Group:
    """What resolving as ``keep`` does to the timeline: what the choice
    means, the preview's one-line summary, current belief after, the rows it
    retires and whether the incoming claim (object ``incoming``) is rejected,
    then before (as keeping the existing value leaves it). After comes first:
    on a small screen the dialog's body scrolls, and what the choice makes is
    what a person has to see. ``answer`` is the scope typed for keep both."""
    by_keep = {c["keep"]: c for c in shown_all(choices)}
    choice = by_keep[keep]
    incoming, answer = shown(incoming), shown(answer)
    unchanged = by_keep.get("existing")
    parts: list[RenderableType] = [Text(CHOICE_DOES.get(keep, keep)),
                                   Text(choice["text"], style="italic dim")]
    parts.append(Text("after", style="bold underline"))
    if choice["error"] is not None:
        parts.append(Text(f"nothing: {choice['error']}", style="red"))
    elif choice["timeline"]:
        parts.append(timeline_rows(choice["timeline"], answer if keep == "both" else None))
    else:
        parts.append(Text("no value: nothing is believed for this any more", style="yellow"))
    if choice["error"] is None:
        for r in choice.get("retired") or ():
            what = RETIRED_AS.get(r["reason"], r["reason"])
            parts.append(Text(f"fact {r['fact_id']} {r['object']} ({short_time(r['valid_from'])} → "
                              f"{short_time(r['valid_to'])}): {what}", style="yellow"))
        if choice["outcome"] == "rejected":
            parts.append(Text(f"incoming {incoming}: rejected", style="yellow"))
    parts.append(Text("before", style="bold underline"))
    if unchanged is not None and unchanged["error"] is None and unchanged["timeline"]:
        parts.append(timeline_rows(unchanged["timeline"]))
    else:
        parts.append(Text("(the current belief could not be worked out)", style="dim"))
    return Group(*parts)


def confirmation(conflict: Conflict, choices: list[dict[str, Any]], keep: str,
                 key: str) -> Confirmation:
    """The confirm dialog for resolving ``conflict`` as ``keep`` (pressed as ``key``)."""
    by_keep = {c["keep"]: c for c in choices}
    error = by_keep[keep]["error"] if keep in by_keep else "the preview has no such choice"
    title = (f"{key} · {CHOICE_NAMES.get(keep, keep)}: conflict {conflict.id}, "
             + shown(f"{conflict.subject} {conflict.predicate}"))
    incoming = shown(conflict.facts[-1]["object"]) if conflict.facts else "claim"

    def effect(answer: str) -> RenderableType:
        if keep not in by_keep:
            return Text(CHOICE_DOES.get(keep, keep))
        return choice_effect(choices, keep, incoming, answer)

    if keep == "both":
        def check(scope: str) -> str | None:
            if scope == conflict.scope:
                return f"the existing value already holds in {scope!r}: name another scope"
            return None

        return Confirmation(
            title, effect, error=error, required=True, check=check,
            question=f"in which scope does {incoming} hold? (the existing value stays in "
                     f"{conflict.scope!r})",
            placeholder="a scope, e.g. session or project")
    if keep == "neither":
        return Confirmation(title, effect, error=error,
                            question="why are both wrong? (optional, kept in the audit)",
                            placeholder="reason (optional)")
    return Confirmation(title, effect, error=error)


@dataclass(frozen=True)
class Loaded:
    """A conflict's detail and choices as fetched in one load generation."""

    generation: int
    detail: ConflictDetail
    choices: list[dict[str, Any]]
    closed: str | None


class ConflictsScreen(MemdeskScreen):
    """Open conflicts, the selected one in detail, with resolve actions."""

    BINDINGS = [
        Binding("e", "resolve('existing')", "Keep existing", id="conflicts.keep_existing",
                tooltip=CHOICE_DOES["existing"]),
        Binding("c", "resolve('changed')", "It changed", id="conflicts.changed",
                tooltip=CHOICE_DOES["changed"]),
        Binding("i", "resolve('incoming')", "Existing was wrong", id="conflicts.keep_incoming",
                tooltip=CHOICE_DOES["incoming"]),
        Binding("b", "resolve('both')", "Keep both (scope)", id="conflicts.keep_both",
                tooltip=CHOICE_DOES["both"]),
        Binding("x", "resolve('neither')", "Retract both", id="conflicts.neither",
                tooltip=CHOICE_DOES["neither"]),
        Binding("u", "undo", "Undo last", id="conflicts.undo",
                tooltip="reopen the conflict resolved last in this sitting"),
        Binding("p", "audit", "Audit", id="conflicts.audit"),
        Binding("r", "reload", "Reload", id="conflicts.reload"),
        Binding("j", "cursor(1)", "Down", show=False, id="conflicts.down"),
        Binding("k", "cursor(-1)", "Up", show=False, id="conflicts.up"),
        Binding("J", "scroll_detail(1)", "Scroll detail down", show=False,
                id="conflicts.detail_down"),
        Binding("K", "scroll_detail(-1)", "Scroll detail up", show=False,
                id="conflicts.detail_up"),
    ]

    KEYS = {b.action.split("'")[1]: b.key for b in BINDINGS
            if isinstance(b, Binding) and b.action.startswith("resolve(")}
    """Resolution -> its key, in the key bar's order."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    """Sides stack below 100 columns and stand side by side from there."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[Conflict] = []
        self.generation = 0  # bumped by each load of the list: older details are stale
        self.loaded: dict[int, Loaded] = {}  # conflict id -> detail and choices of this generation
        self.shown: int | None = None  # the conflict the detail pane shows
        self.fetching: tuple[int, int] | None = None  # (conflict id, generation) on its way
        self.pending: tuple[int, str] | None = None  # a key pressed before its choices arrived
        self.asking: tuple[int, ConfirmScreen] | None = None  # the open confirm dialog's conflict
        self.undo_stack: list[int] = []  # conflicts resolved in this sitting, for ``u``
        # the conflict a reload after this screen's own write must land on, until a load
        # lands: a live refresh started meanwhile supersedes that reload and has no focus
        self.focus_after_write: int | None = None

    def compose(self) -> ComposeResult:
        yield DeskHeader()
        yield Label("", id="conflicts-count", classes="bar")
        with Vertical(id="conflicts-body"):
            # the two values and whose they are are what a person reads: when
            # was it opened, the kind and the scope step aside for them (the
            # detail pane below says them)
            table = FastTable(id="conflicts-table", cursor_type="row", zebra_stripes=True,
                              flex=("existing", "incoming", "subject"), caps={"subject": 18},
                              optional=("opened", "kind", "scope"), want=16)
            for name in ("id", "subject", "predicate", "scope", "kind", "existing", "incoming",
                         "opened"):
                table.add_column(name, key=name)
            yield table
            with VerticalScroll(id="conflict-detail"):
                yield Static("", id="conflict-head")
                yield Horizontal(id="conflict-sides")
                yield Static("", id="conflict-preview", classes="panel")
            yield Static(EMPTY_TEXT, id="conflicts-empty")
        yield KeyBar()

    def on_mount(self) -> None:
        if not self.built:
            return
        self.query_one("#conflicts-empty").display = False
        self.query_one(DataTable).focus()

    def on_screen_resume(self) -> None:
        """Shown (or built in the background): load the open conflicts afresh."""
        if not self.built:
            return
        self.stale = False  # the fetch below catches up with any change
        self.hold_keys("list")  # keys typed next act on the list as it is now
        self.fetch()

    def store_changed(self) -> None:
        """Someone wrote: reload, the cursor on its conflict, an open dialog untouched."""
        self.fetch()

    # ---------------------------------------------------------------- data
    @work(thread=True, exclusive=True, group="conflicts")
    def fetch(self) -> None:
        """Reload the open conflicts, the cursor on ``focus_after_write`` (or a
        conflict jumped to) if set, else staying on its conflict."""
        try:
            self.post_message(ConflictsLoaded(self.service.conflicts("open")))
        except Exception as exc:  # noqa: BLE001
            self.report(exc)

    def on_conflicts_loaded(self, message: ConflictsLoaded) -> None:
        if message.superseded:
            return
        self.release_keys("list")
        table = self.query_one(DataTable)
        wanted = next((f for f in (self.focus_after_write, self.memdesk.focus_conflict)
                       if f is not None), None)
        self.memdesk.focus_conflict = self.focus_after_write = None
        if wanted is None and self.current is not None:
            wanted = self.current.id
        self.items = message.conflicts
        self.generation += 1
        self.loaded.clear()  # kept on screen until the fresh detail replaces it
        table.clear()
        for c in self.items:
            existing = ", ".join(f["object"] for f in c.facts if f["id"] is not None)
            incoming = ", ".join(f["object"] for f in c.facts if f["id"] is None)
            table.add_row(*cells(c.id, c.subject, c.predicate, c.scope, c.kind, existing, incoming,
                                 when(c.opened_at, incoming_tz(c))), key=str(c.id))
        count = plural(len(self.items), "open conflict")
        self.query_one("#conflicts-count", Label).update(
            f"[b]{count}[/b] shown, oldest first · current belief is unchanged until you decide"
            if self.items else f"[b]{count}[/b] · nothing to decide")
        empty = not self.items
        table.display = not empty
        self.query_one("#conflict-detail").display = not empty
        self.query_one("#conflicts-empty").display = empty
        if self.items:
            table.move_cursor(row=self.row_for(wanted))
        else:
            self.shown = None
        self._check_dialog()
        self._show_current()

    def row_for(self, conflict_id: int | None) -> int:
        """The row of ``conflict_id``; if it is gone, the row of the next one
        (ids grow with age, the list is oldest first), else the last row."""
        if conflict_id is None:
            return 0
        for i, c in enumerate(self.items):
            if c.id >= conflict_id:
                return i
        return max(len(self.items) - 1, 0)

    def _check_dialog(self) -> None:
        """An open confirm dialog whose conflict left the list refuses enter
        (what was typed stays)."""
        if self.asking is None:
            return
        conflict_id, dialog = self.asking
        if all(c.id != conflict_id for c in self.items):
            dialog.withdraw(f"conflict {conflict_id} was closed meanwhile (another reviewer "
                            "decided it, or its facts changed)")

    @property
    def current(self) -> Conflict | None:
        row = self.query_one(DataTable).cursor_row
        return self.items[row] if 0 <= row < len(self.items) else None

    @on(DataTable.RowHighlighted)
    def highlighted(self) -> None:
        self._show_current()

    def _show_current(self) -> None:
        """Show the current conflict's detail if it is loaded, else fetch it;
        until it arrives the pane keeps what it shows (no flicker)."""
        c = self.current
        if self.pending is not None and (c is None or c.id != self.pending[0]):
            self.pending = None  # the key was for a conflict no longer selected
            self.release_keys("choice")
        if c is None:
            return
        loaded = self.loaded.get(c.id)
        if loaded is None:
            if self.fetching != (c.id, self.generation):
                self.fetching = (c.id, self.generation)
                self.fetch_detail(c.id, self.generation)
        elif self.shown != c.id:
            self._show(loaded)

    @work(thread=True, exclusive=True, group="conflict-detail")
    def fetch_detail(self, conflict_id: int, generation: int) -> None:
        try:
            detail = self.service.conflict_detail(conflict_id)
            closed = None
            try:
                choices = self.service.resolution_preview(conflict_id)
            except AlreadyDecided as exc:  # decided since the list was loaded
                choices, closed = [], str(exc)
            self.post_message(DetailLoaded(generation, detail, choices, closed))
        except Exception as exc:  # noqa: BLE001
            self.fetching = None  # a later highlight may try again
            self.report(exc)

    def on_detail_loaded(self, message: DetailLoaded) -> None:
        conflict_id = message.detail.conflict.id
        if self.fetching == (conflict_id, message.generation):
            self.fetching = None
        if message.generation != self.generation:
            return  # fetched before the last reload: another is on its way
        loaded = Loaded(message.generation, message.detail, message.choices, message.closed)
        self.loaded[conflict_id] = loaded
        c = self.current
        if c is None or c.id != conflict_id:
            return
        self._show(loaded)
        if self.pending is not None and self.pending[0] == conflict_id:
            keep = self.pending[1]
            self.pending = None
            self._ask(c, keep, loaded)
            self.release_keys("choice")  # the keys typed next go to the dialog

    def _show(self, loaded: Loaded) -> None:
        """Fill the detail pane, reusing the side panels already mounted."""
        detail = loaded.detail
        self.shown = detail.conflict.id
        self.query_one("#conflict-head", Static).update(head_text(detail))
        box = self.query_one("#conflict-sides", Horizontal)
        texts = [side_text(s, detail.conflict) for s in detail.sides]
        panels = list(box.query(".side").results(Static))
        for panel in panels[len(texts):]:
            panel.remove()
        for panel, text in zip(panels, texts, strict=False):
            panel.update(text)
        if len(texts) > len(panels):
            box.mount_all([Static(t, classes="side") for t in texts[len(panels):]])
        preview = self.query_one("#conflict-preview", Static)
        if loaded.closed is not None:
            preview.update(Text(f"{loaded.closed}; r reloads the list", style="yellow"))
        else:
            preview.update(preview_text(loaded.choices, self.KEYS))

    # ------------------------------------------------------------- actions
    def action_cursor(self, step: int) -> None:
        table = self.query_one(DataTable)
        if self.items:
            table.move_cursor(row=max(0, min(len(self.items) - 1, table.cursor_row + step)))

    def action_scroll_detail(self, step: int) -> None:
        pane = self.query_one("#conflict-detail", VerticalScroll)
        pane.scroll_relative(y=step * max(pane.size.height // 2, 1), animate=False)

    def action_resolve(self, keep: str) -> None:
        """Ask to confirm resolving the current conflict as ``keep``, showing
        what it does; if its choices are still on their way, ask when they come."""
        c = self.current
        if c is None:
            self.notify("no open conflict to resolve", severity="warning")
            return
        loaded = self.loaded.get(c.id)
        if loaded is None:
            self.pending = (c.id, keep)
            self.hold_keys("choice")  # enter typed next confirms this choice in its dialog
            self.notify("working out what this choice would do…", timeout=2)
            self._show_current()
            return
        self._ask(c, keep, loaded)

    def _ask(self, c: Conflict, keep: str, loaded: Loaded) -> None:
        if loaded.closed is not None:
            self.notify(shown(f"{loaded.closed}; r reloads the list"), severity="warning",
                        markup=False)
            return
        conflict_id = c.id
        key = self.KEYS.get(keep, keep)

        def answered(answer: str | None) -> None:
            self.asking = None
            if answer is None:
                return  # cancelled: nothing written
            # keys typed next act on the list without this conflict: they wait
            # for the resolution, then for the list loaded after it
            self.hold_keys("resolve")
            if keep == "both":
                self.resolve(conflict_id, keep, answer, None)
            elif keep == "neither":
                self.resolve(conflict_id, keep, None, answer or None)
            else:
                self.resolve(conflict_id, keep, None, None)

        dialog = self.memdesk.confirm(confirmation(c, loaded.choices, keep, key))
        self.asking = (conflict_id, dialog)
        self.app.push_screen(dialog, answered)

    @work(thread=True, group="resolve")
    def resolve(self, conflict_id: int, keep: str, scope: str | None, reason: str | None) -> None:
        try:
            self.post_message(Resolved(self.service.resolve(conflict_id, keep, scope, reason)))
        except Exception as exc:  # noqa: BLE001
            self.report(exc)

    def on_resolved(self, message: Resolved) -> None:
        c = message.conflict
        self.undo_stack.append(c.id)
        self.notify(shown(f"conflict {c.id} resolved: kept {c.resolution} (by {c.resolved_by}) · "
                          "u undoes it"), timeout=4, markup=False)
        self._reload_after_write()
        self.memdesk.refresh_overview()

    def action_undo(self) -> None:
        if not self.undo_stack:
            self.notify("no resolution to undo in this sitting", severity="warning")
            return
        self.hold_keys("resolve")  # keys typed next act on the list with it back
        self.reopen(self.undo_stack.pop())

    @work(thread=True, group="resolve")
    def reopen(self, conflict_id: int) -> None:
        try:
            self.post_message(Reopened(self.service.undo_resolution(conflict_id)))
        except Exception as exc:  # noqa: BLE001
            self.undo_stack.append(conflict_id)
            self.report(exc)

    def on_reopened(self, message: Reopened) -> None:
        c = message.conflict
        self.notify(f"conflict {c.id} is open again: the timeline is as it was before", timeout=4)
        self._reload_after_write(focus=c.id)
        self.memdesk.refresh_overview()

    def _reload_after_write(self, focus: int | None = None) -> None:
        """Reload the list after this screen wrote; keys held for the write
        now wait for this load (a load started before the write, by a live
        refresh, is superseded by it and cannot let them go early)."""
        if self.memdesk.holding_keys:
            self.hold_keys("list")
        self.release_keys("resolve")
        self.focus_after_write = focus
        self.fetch()

    def action_audit(self) -> None:
        c = self.current
        if c is not None:
            existing = next((f["object"] for f in c.facts if f["id"] is not None), None)
            self.memdesk.open_audit(c.subject, c.predicate, existing)

    def action_reload(self) -> None:
        self.hold_keys("list")
        self.fetch()
