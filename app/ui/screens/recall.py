"""Recall debugger: run a query, see ranked results with their score
breakdown, compare index and exact search (and which results the index
missed), switch between memories and raw turns, recall as of a past time,
and preview the block an agent would get in its prompt."""

from __future__ import annotations

from memdesk.core import InvalidInput, parse_time_us
from memdesk.core.recall import RecallHit
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import DataTable, Header, Input, Label, Static

from ..service import RecallView
from ..widgets.fast_table import FastTable
from ..widgets.keybar import KeyBar
from .base import MemdeskScreen, cells


class RecallDone(Message):
    def __init__(self, view: RecallView) -> None:
        self.view = view
        super().__init__()


class RecallScreen(MemdeskScreen):
    """Query box, ranked results with score columns, and the prompt preview."""

    BINDINGS = [
        Binding("slash", "focus_query", "Query", id="recall.query"),
        Binding("escape", "leave_input", "Results", show=False, id="recall.results"),
        Binding("x", "toggle_exact", "Exact/index", id="recall.exact"),
        Binding("o", "toggle_over", "Memories/turns", id="recall.over"),
        Binding("t", "focus_at", "At…", id="recall.at"),
        Binding("v", "toggle_prompt", "Prompt block", id="recall.prompt"),
        Binding("p", "audit", "Audit", id="recall.audit"),
        Binding("j", "cursor(1)", "Down", show=False, id="recall.down"),
        Binding("k", "cursor(-1)", "Up", show=False, id="recall.up"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.exact = False
        self.over = "memories"
        self.at: int | None = None
        self.view: RecallView | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(classes="bar"):
            yield Input(placeholder="ask what the agent would ask, e.g. 预算上限是多少 / where does she live",
                        id="recall-query")
            yield Input(placeholder="at (YYYY-MM-DD…, empty = now)", id="recall-at")
        yield Label("", id="recall-mode")
        with Vertical():
            table = FastTable(id="recall-table", cursor_type="row", zebra_stripes=True)
            for name in ("#", "score", "relev", "recency", "import", "kind", "status", "text",
                         "source", "conflict", "index"):
                table.add_column(name, key=name)
            yield table
            yield Static("", id="recall-prompt", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        for table in self.query(DataTable):  # none if the app closes while this screen is built
            self._mode()
            table.focus()

    def _mode(self) -> None:
        at = "now" if self.at is None else self.query_one("#recall-at", Input).value
        self.query_one("#recall-mode", Label).update(
            f"search: [b]{'exact' if self.exact else 'index'}[/b] (x) · over: [b]{self.over}[/b] (o)"
            f" · at: [b]{at}[/b] (t) · prompt block (v) · / types a query, escape leaves it")

    # ---------------------------------------------------------------- run
    def run_query(self) -> None:
        query = self.query_one("#recall-query", Input).value.strip()
        if not query:
            return
        self.query_one("#recall-mode", Label).update(f"searching {query!r} …")
        self.search(query, self.exact, self.over, self.at)

    @work(thread=True, exclusive=True, group="recall")
    def search(self, query: str, exact: bool, over: str, at: int | None) -> None:
        try:
            self.post_message(RecallDone(self.service.recall(query, exact=exact, over=over, at=at)))
        except Exception as exc:  # noqa: BLE001
            self.report(exc)

    def on_recall_done(self, message: RecallDone) -> None:
        self.view = view = message.view
        table = self.query_one(DataTable)
        table.clear()
        for i, hit in enumerate(view.hits, 1):
            self._row(table, str(i), hit, "" if view.exact else "found")
        for hit in view.missed:
            self._row(table, "–", hit, "missed")
        self._mode()
        note = (f"{len(view.hits)} results"
                + ("" if view.exact else f" · the index missed {len(view.missed)} of the exact top "
                   f"{len(view.hits)}") + (f" · {view.message}" if view.message else ""))
        self.notify(note, timeout=3)
        self.query_one("#recall-prompt", Static).update(Text(view.prompt))

    @staticmethod
    def _row(table: DataTable, rank: str, hit: RecallHit, index: str) -> None:
        src = hit.source
        stale = index == "missed" or hit.status not in ("active", "pending")
        table.add_row(*cells(
            rank, f"{hit.score:.3f}", f"{hit.relevance:.3f}", f"{hit.recency:.3f}",
            f"{hit.importance:.3f}", hit.kind + (" ★" if hit.pinned else ""), hit.status,
            Text(" ".join(hit.text.split())[:44], style="dim" if stale else ""),
            f"{src.session}#{src.turn}" if src else "",
            ",".join(map(str, hit.conflict)),
            Text(index, style="red" if index == "missed" else "green")))

    # ------------------------------------------------------------- actions
    @on(Input.Submitted, "#recall-query")
    def query_entered(self) -> None:
        self.run_query()
        self.query_one(DataTable).focus()

    @on(Input.Submitted, "#recall-at")
    def at_entered(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or text == "now":
            self.at = None
        else:
            if len(text) == 10:
                text += "T23:59:59"
            if text[-6] not in "+-" and not text.endswith("Z"):
                text += "+00:00"
            try:
                self.at = parse_time_us(text, "at")
            except InvalidInput as exc:
                self.notify(str(exc), severity="error")
                return
        self._mode()
        self.run_query()

    def action_focus_query(self) -> None:
        self.query_one("#recall-query", Input).focus()

    def action_leave_input(self) -> None:
        self.query_one(DataTable).focus()

    def action_focus_at(self) -> None:
        self.query_one("#recall-at", Input).focus()

    def action_toggle_exact(self) -> None:
        self.exact = not self.exact
        self._mode()
        self.run_query()

    def action_toggle_over(self) -> None:
        self.over = "turns" if self.over == "memories" else "memories"
        self._mode()
        self.run_query()

    def action_toggle_prompt(self) -> None:
        self.query_one("#recall-prompt", Static).toggle_class("shown")

    def action_cursor(self, step: int) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + step)))

    def action_audit(self) -> None:
        if self.view is None:
            return
        row = self.query_one(DataTable).cursor_row
        hits = list(self.view.hits) + list(self.view.missed)
        if 0 <= row < len(hits):
            hit = hits[row]
            if hit.subject and hit.predicate:
                self.memdesk.open_audit(hit.subject, hit.predicate, hit.object)
            else:
                self.notify("this result is not linked to a fact", severity="warning")
