"""Recall debugger: run a query, see ranked results with their score
breakdown, compare index and exact search (and which results the index
missed), switch between memories and raw turns, recall as of a past time,
for everyone or for the current subject, and preview the block an agent
would get in its prompt. The detail pane shows the selected result whole:
its text, how its score was made, and its source turn in its conversation."""

from __future__ import annotations

from dataclasses import asdict

from memdesk import InvalidInput, RecallHit, TurnRecord, read_moment
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Label, Static

from ..service import RecallView
from ..text import plural, shown
from ..widgets.desk_header import DeskHeader
from ..widgets.fast_table import FastTable
from ..widgets.keybar import KeyBar
from .base import Fetched, MemdeskScreen, cells, conversation_text, when


class RecallDone(Fetched):
    def __init__(self, view: RecallView, quiet: bool = False) -> None:
        self.view = view
        self.quiet = quiet  # a rerun after the store changed: no notice, the cursor stays
        super().__init__()


class SourceLoaded(Fetched):
    def __init__(self, key: tuple[str, int], turns: tuple[TurnRecord, ...]) -> None:
        self.key = key
        self.turns = turns
        super().__init__()


def score_text(hit: RecallHit, weights: dict[str, float]) -> Text:
    """How the score was made: each part with its weight, and the sum when
    the parts add up to it (pinned values and fused turn scores do not)."""
    parts = [("relevance", hit.relevance, weights.get("relevance", 0.0)),
             ("recency", hit.recency, weights.get("recency", 0.0)),
             ("importance", hit.importance, weights.get("importance", 0.0)),
             ("subject", hit.subject_match, weights.get("subject", 0.0))]
    total = sum(value * weight for _, value, weight in parts) * hit.status_factor
    out = Text()
    out.append(f"score {hit.score:.3f}", style="bold")
    out.append(" = (" if abs(total - hit.score) < 1e-3 else "   from (")
    out.append(" + ".join(f"{w:g}×{name} {v:.3f}" for name, v, w in parts))
    out.append(f") × status {hit.status_factor:g}\n")
    out.append(f"relevance: semantic {hit.semantic:.3f} · lexical {hit.lexical:.3f}"
               + (f" · words {hit.words:.2f}" if hit.words else "")
               + f" · found by {hit.channel}"
               + (" · pinned: the current value of a predicate the query names" if hit.pinned
                  else "") + "\n", style="dim")
    facts = [f"mentions {hit.mentions}"]
    if hit.confidence is not None:
        facts.append(f"confidence {hit.confidence:.2f}")
    if hit.duplicates:
        facts.append(f"{plural(hit.duplicates, 'duplicate')} folded in")
    if hit.conflict:
        facts.append("open conflict " + ", ".join(map(str, hit.conflict)))
    out.append(" · ".join(facts) + "\n", style="dim")
    return out


def hit_text(rank: str, hit: RecallHit, index: str, weights: dict[str, float],
             turns: tuple[TurnRecord, ...] | None) -> Text:
    """The detail pane for one result: what it is, its whole text, its score
    breakdown, its source turn among the turns around it (None: loading)."""
    out = Text()
    what = f"#{rank} {hit.kind} · {hit.status}"
    if hit.subject:
        what += f" · {hit.subject}"
    if hit.predicate:
        what += f" · {hit.predicate}" + (f" = {hit.object}" if hit.object is not None else "")
    out.append(shown(what), style="bold")
    if index:
        out.append(f"  [{index} by the index]" if index == "found" else "  [missed by the index]",
                   style="green" if index == "found" else "red")
    out.append("\n")
    out.append(shown(hit.text) + "\n\n")
    out.append_text(score_text(hit, weights))
    src = hit.source
    if src is None:
        out.append("no source turn (a fact imported without one)", style="dim")
        return out
    out.append(f"\nsource {shown(src.session)}#{src.turn} · {shown(src.speaker)} · "
               f"{when(src.time, src.tz)} · {shown(src.kind)}\n", style="bold underline")
    if turns is None:
        out.append(f"  {shown(src.text)}\n", style="italic")
    else:
        out.append_text(conversation_text(turns, src.turn))
    return out


class RecallScreen(MemdeskScreen):
    """Query box, ranked results with score columns, the selected result in
    the detail pane (or the prompt preview in its place)."""

    BINDINGS = [
        Binding("slash", "focus_query", "Query", id="recall.query"),
        Binding("escape", "leave_input", "Results", show=False, id="recall.results"),
        Binding("x", "toggle_exact", "Exact/index", id="recall.exact"),
        Binding("o", "toggle_over", "Memories/turns", id="recall.over"),
        Binding("s", "toggle_scope", "Subject/everyone", id="recall.scope"),
        Binding("t", "focus_at", "At…", id="recall.at"),
        Binding("v", "toggle_prompt", "Prompt block", id="recall.prompt"),
        Binding("p", "audit", "Audit", id="recall.audit"),
        Binding("j", "cursor(1)", "Down", show=False, id="recall.down"),
        Binding("k", "cursor(-1)", "Up", show=False, id="recall.up"),
    ]

    COLUMNS = ("#", "score", "relev", "kind", "status", "subject", "text", "confl", "index")
    """The table's columns (the rest of the breakdown is in the detail pane)."""

    def __init__(self) -> None:
        super().__init__()
        self.exact = False
        self.over = "memories"
        self.at: int | None = None
        self.scope: str | None = None  # recall for this subject only; None = everyone
        self.view: RecallView | None = None
        self.rows: list[tuple[str, RecallHit, str]] = []  # (rank, hit, index mark) per table row
        self.sources: dict[tuple[str, int], tuple[TurnRecord, ...]] = {}  # until the next query

    def compose(self) -> ComposeResult:
        yield DeskHeader()
        with Horizontal(classes="bar"):
            yield Input(placeholder="ask: 预算上限是多少 / where does she live", id="recall-query")
            yield Input(placeholder="at YYYY-MM-DD (empty: now)", id="recall-at")
        yield Label("", id="recall-mode")
        with Vertical():
            # the text is what a person reads: relevance, conflicts and the index
            # mark step aside for it on a narrow screen (the detail pane has them,
            # and a result the index missed is ranked "–")
            table = FastTable(id="recall-table", cursor_type="row", zebra_stripes=True,
                              flex=("text", "subject"), caps={"subject": 14},
                              optional=("relev", "confl", "index"), want=30)
            for name in self.COLUMNS:
                table.add_column(name, key=name)
            yield table
            yield Static("run a query (/) to see results; the selected one is shown here whole",
                         id="recall-detail", classes="panel")
            yield Static("", id="recall-prompt", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        if not self.built:
            return
        self._mode()
        self.query_one(DataTable).focus()

    def _mode(self) -> None:
        at = "now" if self.at is None else self.query_one("#recall-at", Input).value
        line = Text()
        for label, value, key in (("search", "exact" if self.exact else "index", "x"),
                                  ("over", self.over, "o"),
                                  ("for", self.scope or "everyone", "s"), ("at", at, "t")):
            line.append(f"{label} ")
            line.append(shown(value), style="bold")
            line.append(f" ({key}) · ")
        line.append("prompt block (v) · / types a query", style="dim")
        self.query_one("#recall-mode", Label).update(line)

    # ---------------------------------------------------------------- run
    def run_query(self) -> None:
        query = self.query_one("#recall-query", Input).value.strip()
        if not query:
            return
        self.query_one("#recall-mode", Label).update(Text(f"searching {shown(query)!r} …"))
        self.hold_keys("search")  # keys typed next move among these results
        self.search(query, self.exact, self.over, self.at, self.scope)

    def store_changed(self) -> None:
        """Run the last search again, as it was (whatever is half-typed in
        the query box stays there), keeping the cursor on its result."""
        v = self.view
        if v is not None:
            self.search(v.query, v.exact, v.over, self.at, v.subject, quiet=True)

    @work(thread=True, exclusive=True, group="recall")
    def search(self, query: str, exact: bool, over: str, at: int | None,
               subject: str | None, quiet: bool = False) -> None:
        try:
            self.post_message(RecallDone(self.service.recall(query, exact=exact, over=over, at=at,
                                                             subject=subject), quiet))
        except Exception as exc:  # noqa: BLE001
            self.report(exc)

    @work(thread=True, exclusive=True, group="recall-source")
    def fetch_source(self, session: str, turn: int) -> None:
        try:
            self.post_message(SourceLoaded((session, turn), self.service.turn_context(session, turn)))
        except Exception as exc:  # noqa: BLE001
            self.report(exc)

    def on_recall_done(self, message: RecallDone) -> None:
        if message.superseded:
            return
        self.release_keys("search")  # (a quiet rerun may have replaced the search asked for)
        self.view = view = message.view
        self.sources.clear()
        table = self.query_one(DataTable)
        current = self.current
        row = table.cursor_row
        self.rows = [(str(i), hit, "" if view.exact else "found")
                     for i, hit in enumerate(view.hits, 1)]
        self.rows += [("–", hit, "missed") for hit in view.missed]
        table.clear()
        for rank, hit, index in self.rows:
            table.add_row(*self._cells(rank, hit, index))
        if message.quiet and self.rows:
            keys = [hit.key for _, hit, _ in self.rows]
            target = keys.index(current[1].key) if current and current[1].key in keys else row
            table.move_cursor(row=max(0, min(target, len(self.rows) - 1)))
        self._mode()
        if message.quiet:
            self._show_detail()
            self.query_one("#recall-prompt", Static).update(Text(view.prompt))
            return
        note = (plural(len(view.hits), "result")
                + ("" if view.exact else f" · the index missed {len(view.missed)} of the exact top "
                   f"{len(view.hits)}") + (f" · {view.message}" if view.message else ""))
        self.notify(shown(note), timeout=3, markup=False)
        self.query_one("#recall-prompt", Static).update(Text(view.prompt))
        if not self.rows:
            self.query_one("#recall-detail", Static).update(
                Text(shown(f"no results for {view.query!r}"
                           + (f": {view.message}" if view.message else ""))))
        else:
            self._show_detail()

    @staticmethod
    def _cells(rank: str, hit: RecallHit, index: str) -> list[Text]:
        stale = index == "missed" or hit.status not in ("active", "pending")
        return cells(
            rank, f"{hit.score:.3f}", f"{hit.relevance:.3f}", hit.kind + (" ★" if hit.pinned else ""),
            hit.status, hit.subject or "",
            Text(" ".join(shown(hit.text).split()), style="dim" if stale else ""),
            ",".join(map(str, hit.conflict)),
            Text(index, style="red" if index == "missed" else "green"))

    @property
    def current(self) -> tuple[str, RecallHit, str] | None:
        row = self.query_one(DataTable).cursor_row
        return self.rows[row] if 0 <= row < len(self.rows) else None

    @on(DataTable.RowHighlighted)
    def highlighted(self) -> None:
        self._show_detail()

    def _show_detail(self) -> None:
        """The selected result, whole; its source conversation is fetched once."""
        current = self.current
        if current is None:
            return
        rank, hit, index = current
        weights = asdict(self.service.recaller.weights)
        src = hit.source
        turns = self.sources.get((src.session, src.turn)) if src else ()
        self.query_one("#recall-detail", Static).update(hit_text(rank, hit, index, weights, turns))
        if src is not None and turns is None:
            self.fetch_source(src.session, src.turn)

    def on_source_loaded(self, message: SourceLoaded) -> None:
        if message.superseded:
            return
        self.sources[message.key] = message.turns
        current = self.current
        if current is not None and current[1].source is not None and (
                current[1].source.session, current[1].source.turn) == message.key:
            self._show_detail()

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
            try:  # a bare day: the end of it here, as on the command line
                self.at, note = read_moment(text, "at")
            except InvalidInput as exc:
                self.notify(shown(str(exc)), severity="error", markup=False)
                return
            if note:
                self.notify(shown(note), timeout=4, markup=False)
        self._mode()
        self.run_query()
        self.query_one(DataTable).focus()

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

    def action_toggle_scope(self) -> None:
        """Recall for the current subject only (g picks another), or for everyone."""
        subject = self.memdesk.subject
        if self.scope is None and not subject:
            self.notify("no subject chosen yet: g picks one", severity="warning")
            return
        self.scope = None if self.scope else subject
        self._mode()
        self.run_query()

    def action_toggle_prompt(self) -> None:
        block = self.query_one("#recall-prompt", Static).toggle_class("shown").has_class("shown")
        self.query_one("#recall-detail", Static).set_class(block, "hidden")

    def action_cursor(self, step: int) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + step)))

    def action_audit(self) -> None:
        current = self.current
        if current is None:
            return
        hit = current[1]
        if hit.subject and hit.predicate:
            self.memdesk.open_audit(hit.subject, hit.predicate, hit.object)
        else:
            self.notify("this result is not linked to a fact", severity="warning")
