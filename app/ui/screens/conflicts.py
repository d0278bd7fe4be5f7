"""Conflicts: open contradictions, each side by side; resolve by keeping the
existing value, taking the incoming one as a change from its own valid time,
as a correction of an existing value that was wrong, keeping both (in another
scope) or neither. Before a key is pressed, a panel shows what each choice
would make of the timeline (a dry run of the gates); ``u`` undoes the last
resolution taken in this sitting."""

from __future__ import annotations

from memdesk.core import Conflict
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Header, Label, Static

from ..widgets.fast_table import FastTable
from ..widgets.keybar import KeyBar
from .base import MemdeskScreen, cells


class ConflictsLoaded(Message):
    def __init__(self, conflicts: list[Conflict]) -> None:
        self.conflicts = conflicts
        super().__init__()


class Resolved(Message):
    def __init__(self, conflict: Conflict) -> None:
        self.conflict = conflict
        super().__init__()


class Reopened(Message):
    def __init__(self, conflict: Conflict) -> None:
        self.conflict = conflict
        super().__init__()


class PreviewLoaded(Message):
    def __init__(self, conflict_id: int, choices: list[dict]) -> None:
        self.conflict_id = conflict_id
        self.choices = choices
        super().__init__()


CHOICE_NAMES = {
    "existing": "keep existing",
    "changed": "it changed",
    "incoming": "existing was wrong",
    "both": "keep both",
    "neither": "neither",
}
"""How the preview names each resolution (``incoming`` is a correction)."""


def preview_text(choices: list[dict], keys: dict[str, str]) -> Group:
    """What each resolution would make of the timeline, one row per key, in
    the order of ``keys`` (resolution -> key)."""
    head = Text()
    head.append("what each key would make of the timeline", style="bold")
    head.append(" · nothing changes until you press one · u undoes", style="dim")
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1)
    by_keep = {c["keep"]: c for c in choices}
    for keep, key in keys.items():
        choice = by_keep.get(keep)
        if choice is None:
            continue
        style = "" if choice["error"] is None else "dim"
        grid.add_row(Text(f" {key} ", style="bold reverse"),
                     Text(CHOICE_NAMES.get(keep, keep), style=style or "bold"),
                     Text(choice["text"], style=style))
    return Group(head, grid)


def side_text(side: dict, incoming: bool) -> Text:
    """One side of a conflict: object, polarity, scope, times, source, confidence."""
    out = Text()
    title = "incoming (pending)" if incoming else f"existing · fact {side['id']}"
    out.append(title + "\n", style="bold yellow" if incoming else "bold green")
    out.append(f"{side['object']}\n", style="bold")
    out.append(f"polarity   {side['polarity']}\nscope      {side['scope']}\n")
    out.append(f"valid      {(side['valid_from'] or '')[:16]} → {(side['valid_to'] or '…')[:16]}\n")
    if not incoming:
        out.append(f"recorded   {(side['recorded_at'] or '')[:16]}\n")
    out.append(f"confidence {side['confidence']:.2f}\n")
    src = side.get("source")
    if src:
        out.append(f"source     {src['session']}#{src['turn']} ({src['kind']}, "
                   f"{(src['time'] or '')[:16]})\n")
        out.append(f"“{src['text']}”\n", style="italic")
    return out


class ConflictsScreen(MemdeskScreen):
    """Open conflicts with resolve actions."""

    BINDINGS = [
        Binding("e", "resolve('existing')", "Keep existing", id="conflicts.keep_existing"),
        Binding("c", "resolve('changed')", "It changed", id="conflicts.changed"),
        Binding("i", "resolve('incoming')", "Existing was wrong", id="conflicts.keep_incoming"),
        Binding("b", "resolve('both')", "Keep both", id="conflicts.keep_both"),
        Binding("x", "resolve('neither')", "Retract both", id="conflicts.neither"),
        Binding("u", "undo", "Undo", id="conflicts.undo"),
        Binding("p", "audit", "Audit", id="conflicts.audit"),
        Binding("r", "reload", "Reload", id="conflicts.reload"),
        Binding("j", "cursor(1)", "Down", show=False, id="conflicts.down"),
        Binding("k", "cursor(-1)", "Up", show=False, id="conflicts.up"),
    ]

    KEYS = {b.action.split("'")[1]: b.key for b in BINDINGS
            if isinstance(b, Binding) and b.action.startswith("resolve(")}
    """Resolution -> its key, in the key bar's order."""

    def __init__(self) -> None:
        super().__init__()
        self.items: list[Conflict] = []
        self.previews: dict[int, list[dict]] = {}  # conflict id -> choices, until the next load
        self.undo_stack: list[int] = []  # conflicts resolved in this sitting, for ``u``

    def compose(self) -> ComposeResult:
        yield Header()
        yield Label("", id="conflicts-count", classes="bar")
        with Vertical():
            table = FastTable(id="conflicts-table", cursor_type="row", zebra_stripes=True)
            for name in ("id", "subject", "predicate", "scope", "kind", "existing", "incoming",
                         "opened"):
                table.add_column(name, key=name)
            yield table
            yield Horizontal(id="conflict-sides")
            yield Static("", id="conflict-preview", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        for widget in self.query(DataTable):  # none if the app closes while this screen is built
            widget.focus()

    def on_screen_resume(self) -> None:
        """Shown (or built in the background): load the open conflicts afresh."""
        self.fetch()

    @work(thread=True, exclusive=True, group="conflicts")
    def fetch(self) -> None:
        try:
            self.post_message(ConflictsLoaded(self.service.conflicts("open")))
        except Exception as exc:  # noqa: BLE001
            self.report(exc)

    def on_conflicts_loaded(self, message: ConflictsLoaded) -> None:
        table = self.query_one(DataTable)
        row = table.cursor_row
        self.items = message.conflicts
        self.previews.clear()
        table.clear()
        for c in self.items:
            existing = ", ".join(f["object"] for f in c.facts if f["id"] is not None)
            incoming = ", ".join(f["object"] for f in c.facts if f["id"] is None)
            opened = c.facts[-1]["source"]["time"][:16] if c.facts[-1].get("source") else ""
            table.add_row(*cells(c.id, c.subject, c.predicate, c.scope, c.kind, existing, incoming,
                                 opened), key=str(c.id))
        self.query_one("#conflicts-count", Label).update(
            f"[b]{len(self.items)}[/b] open conflicts shown, oldest first · current belief is unchanged until you decide")
        if self.items:
            target = row
            wanted = self.memdesk.focus_conflict
            if wanted is not None:
                target = next((i for i, c in enumerate(self.items) if c.id == wanted), row)
                self.memdesk.focus_conflict = None
            table.move_cursor(row=max(0, min(target, len(self.items) - 1)))
        self._show_sides()

    @property
    def current(self) -> Conflict | None:
        row = self.query_one(DataTable).cursor_row
        return self.items[row] if 0 <= row < len(self.items) else None

    @on(DataTable.RowHighlighted)
    def highlighted(self) -> None:
        self._show_sides()

    def _show_sides(self) -> None:
        """Show the current conflict's sides, reusing the side panels already mounted."""
        box = self.query_one("#conflict-sides", Horizontal)
        c = self.current
        texts = [side_text(f, f["id"] is None) for f in c.facts] if c else [Text("no open conflicts")]
        panels = list(box.query(".side").results(Static))
        for panel in panels[len(texts):]:
            panel.remove()
        for panel, text in zip(panels, texts, strict=False):
            panel.update(text)
        if len(texts) > len(panels):
            box.mount_all([Static(t, classes="side") for t in texts[len(panels):]])
        self._show_preview()

    def _show_preview(self) -> None:
        panel = self.query_one("#conflict-preview", Static)
        c = self.current
        if c is None:
            panel.update("")
            return
        choices = self.previews.get(c.id)
        if choices is None:
            panel.update(Text("working out what each choice would do…", style="dim"))
            self.fetch_preview(c.id)
        else:
            panel.update(preview_text(choices, self.KEYS))

    @work(thread=True, exclusive=True, group="conflict-preview")
    def fetch_preview(self, conflict_id: int) -> None:
        try:
            self.post_message(PreviewLoaded(conflict_id, self.service.resolution_preview(conflict_id)))
        except Exception as exc:  # noqa: BLE001
            self.report(exc)

    def on_preview_loaded(self, message: PreviewLoaded) -> None:
        self.previews[message.conflict_id] = message.choices
        c = self.current
        if c is not None and c.id == message.conflict_id:
            self._show_preview()

    # ------------------------------------------------------------- actions
    def action_cursor(self, step: int) -> None:
        table = self.query_one(DataTable)
        if self.items:
            table.move_cursor(row=max(0, min(len(self.items) - 1, table.cursor_row + step)))

    def action_resolve(self, keep: str) -> None:
        c = self.current
        if c is None:
            return
        conflict_id = c.id

        def keep_both(scope: str | None) -> None:
            if scope:
                self.resolve(conflict_id, keep, scope, None)

        def retract_both(reason: str | None) -> None:
            if reason is not None:
                self.resolve(conflict_id, keep, None, reason or None)

        if keep == "both":
            self.app.push_screen(
                self.memdesk.prompt(f"keep both: in which scope does the incoming value hold? "
                                    f"(the existing one stays in {c.scope!r})", "e.g. session or project"),
                keep_both)
        elif keep == "neither":
            self.app.push_screen(
                self.memdesk.prompt(f"retract both values of {c.subject} {c.predicate}: why?",
                                    "reason (optional)", required=False),
                retract_both)
        else:
            self.resolve(c.id, keep, None, None)

    @work(thread=True, group="resolve")
    def resolve(self, conflict_id: int, keep: str, scope: str | None, reason: str | None) -> None:
        try:
            self.post_message(Resolved(self.service.resolve(conflict_id, keep, scope, reason)))
        except Exception as exc:  # noqa: BLE001
            self.report(exc)

    def on_resolved(self, message: Resolved) -> None:
        c = message.conflict
        self.undo_stack.append(c.id)
        self.notify(f"conflict {c.id} resolved: kept {c.resolution} (by {c.resolved_by}) · "
                    "u undoes it", timeout=4)
        self.fetch()
        self.memdesk.refresh_overview()

    def action_undo(self) -> None:
        if not self.undo_stack:
            self.notify("no resolution to undo in this sitting", severity="warning")
            return
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
        self.memdesk.focus_conflict = c.id
        self.fetch()
        self.memdesk.refresh_overview()

    def action_audit(self) -> None:
        c = self.current
        if c is not None:
            existing = next((f["object"] for f in c.facts if f["id"] is not None), None)
            self.memdesk.open_audit(c.subject, c.predicate, existing)

    def action_reload(self) -> None:
        self.fetch()
